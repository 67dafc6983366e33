#!/usr/bin/env python3
"""Probe runs: models and shapes the zoo does not have. Runs on the GPU machine.

The zoo (zoo.py) is what dlsim was built and tuned against; even its held-out
models were chosen at the start. The probes are a validation set chosen after
all tuning, to see how dlsim does on what an outside check would feed it:
torchvision and Hugging Face models outside the zoo, zoo models at unseen
input sizes, and small blocks written around ops the zoo lacks (Einsum,
GroupNorm with a nearest-neighbour upsample, causal scaled-dot-product
attention, a GEMM larger than any calibrated). Nothing is ever fitted on them.

For each probe it exports a graph-only ONNX (reference_runs.export_graph:
opset 17, dynamic batch) into OUT/probes/, then times CUDA-graph replay of
every (probe, dtype, batch) in interleaved rounds (rounds.run_rounds), as
gpu_rounds.py does for the zoo. A probe that fails to build, export or
capture is reported and left out.

The probe list (inputs, batches, what each probes) is probes.py.

Usage: probe_runs.py --out FILE [--models a,b] [--max-seconds S] [--max-rounds N] [--skip-export]
"""
import os
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reference_runs import HfWrapper, _register_diff_symbolic, export_graph, graph_replay_ms  # noqa: E402
from probes import PROBES  # noqa: E402
from rounds import parse_args, resident_cases, run_rounds, set_reference_math  # noqa: E402

DEV = "cuda"


# ---------------------------------------------------------------- blocks
class EinsumAttention(nn.Module):
    """Multi-head self-attention written with torch.einsum (exports as Einsum)."""

    def __init__(self, dim=512, heads=8):
        super().__init__()
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.heads = heads

    def forward(self, x):
        b, s, d = x.shape
        qkv = self.qkv(x).reshape(b, s, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        a = torch.einsum("bhqd,bhkd->bhqk", q, k) * (d // self.heads) ** -0.5
        y = torch.einsum("bhqk,bhkd->bhqd", a.softmax(-1), v)
        return self.proj(y.transpose(1, 2).reshape(b, s, d))


class CausalBlock(nn.Module):
    """Pre-norm decoder block on F.scaled_dot_product_attention(is_causal=True)."""

    def __init__(self, dim=768, heads=12):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.qkv, self.proj = nn.Linear(dim, 3 * dim), nn.Linear(dim, dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))
        self.heads = heads

    def forward(self, x):
        b, s, d = x.shape
        qkv = self.qkv(self.ln1(x)).reshape(b, s, 3, self.heads, d // self.heads)
        q, k, v = qkv.permute(2, 0, 3, 1, 4)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(y.transpose(1, 2).reshape(b, s, d))
        return x + self.mlp(self.ln2(x))


def gn_block(cin, cout):
    return nn.Sequential(nn.GroupNorm(32, cin), nn.SiLU(), nn.Conv2d(cin, cout, 3, padding=1))


class UNetGroupNorm(nn.Module):
    """A diffusion-style U-Net level: GroupNorm-SiLU-conv blocks, a strided
    downsample, a nearest upsample and a skip concat."""

    def __init__(self, c=64):
        super().__init__()
        self.inp = nn.Conv2d(3, c, 3, padding=1)
        self.d1, self.d2 = gn_block(c, c), gn_block(2 * c, 2 * c)
        self.down = nn.Conv2d(c, 2 * c, 3, stride=2, padding=1)
        self.up = nn.Conv2d(2 * c, c, 3, padding=1)
        self.u1 = gn_block(2 * c, c)
        self.out = nn.Conv2d(c, 3, 1)

    def forward(self, x):
        h1 = self.inp(x)
        h1 = h1 + self.d1(h1)
        h2 = self.down(h1)
        h2 = h2 + self.d2(h2)
        u = self.up(F.interpolate(h2, scale_factor=2.0, mode="nearest"))
        return self.out(self.u1(torch.cat([u, h1], dim=1)))


class RnnProbe(nn.Module):
    """A recurrent stack with a Linear head on the last step, like the zoo's lstm2."""

    def __init__(self, cell, inputs, hidden, layers, bidirectional=False):
        super().__init__()
        rnn = nn.LSTM if cell == "lstm" else nn.GRU
        self.rnn = rnn(inputs, hidden, num_layers=layers, batch_first=True,
                       bidirectional=bidirectional)
        self.head = nn.Linear(hidden * (2 if bidirectional else 1), 10)

    def forward(self, x):
        y, _ = self.rnn(x)
        return self.head(y[:, -1, :])


def llama_small():
    import transformers as tf
    cfg = tf.LlamaConfig(hidden_size=1024, intermediate_size=2816, num_hidden_layers=8,
                         num_attention_heads=16, num_key_value_heads=16, vocab_size=32000,
                         max_position_embeddings=512, use_cache=False,
                         attn_implementation="eager")
    return HfWrapper(tf.LlamaModel(cfg))


def bert_base():
    import transformers as tf
    cfg = tf.BertConfig(attn_implementation="eager")
    return HfWrapper(tf.BertModel(cfg, add_pooling_layer=False))


def torchvision_model(name):
    def make():
        import torchvision
        return getattr(torchvision.models, name)(weights=None)
    return make


# ---------------------------------------------------------------- probes
BUILDERS = {
    "resnet50_img512": torchvision_model("resnet50"),
    "bert_base_seq512": bert_base,
    "wide_resnet50_2": torchvision_model("wide_resnet50_2"),
    "vgg11_bn": torchvision_model("vgg11_bn"),
    "mobilenet_v3_small": torchvision_model("mobilenet_v3_small"),
    "efficientnet_v2_s": torchvision_model("efficientnet_v2_s"),
    "regnet_x_1_6gf": torchvision_model("regnet_x_1_6gf"),
    "vit_b_32": torchvision_model("vit_b_32"),
    "llama_small": llama_small,
    "unet_groupnorm": UNetGroupNorm,
    "einsum_attention": EinsumAttention,
    "causal_sdpa_block": lambda: nn.Sequential(*[CausalBlock() for _ in range(4)]),
    "big_linear": lambda: nn.Linear(8192, 8192, bias=False),
    "lstm_h256_seq128": lambda: RnnProbe("lstm", 128, 256, 1),
    "gru_h1024": lambda: RnnProbe("gru", 512, 1024, 1),
    "lstm_bidir_h384": lambda: RnnProbe("lstm", 256, 384, 2, bidirectional=True),
    "lstm_h128_3layer": lambda: RnnProbe("lstm", 64, 128, 3),
    "gru_2layer_h256": lambda: RnnProbe("gru", 80, 256, 2),
    "lstm_h768_seq64": lambda: RnnProbe("lstm", 256, 768, 1),
    "gru_bidir_h128": lambda: RnnProbe("gru", 40, 128, 1, bidirectional=True),
}


def make_input(spec, batch, dtype):
    kind = spec[0]
    fdt = torch.float16 if dtype == "fp16" else torch.float32
    if kind == "image":
        return torch.randn(batch, 3, spec[1], spec[1], device=DEV, dtype=fdt)
    if kind == "tokens":
        return torch.randint(0, spec[2], (batch, spec[1]), device=DEV)
    if kind == "seq":
        return torch.randn(batch, spec[1], spec[2], device=DEV, dtype=fdt)
    raise ValueError(kind)


def load_probe(name, onnx_dir):
    """Exports NAME (unless onnx_dir is None) and returns its cases (one per
    dtype and batch)."""
    build = BUILDERS[name]
    spec, batches, _, _ = PROBES[name]
    iname = "input_ids" if spec[0] == "tokens" else "input"
    if onnx_dir is not None:
        path, nodes = export_graph(name, build(), make_input(spec, 2, "fp32"), iname, onnx_dir)
        print(f"# {name}: exported {nodes} nodes to {path}", flush=True)
    return resident_cases(name, build, lambda batch, dtype: make_input(spec, batch, dtype), batches)


def main():
    args = parse_args(__doc__, max_rounds=3, models=tuple(PROBES),
                      flags=[("--skip-export", "time only (the ONNX files are in tests/data/probes)")])
    names = args.models.split(",")
    set_reference_math()
    _register_diff_symbolic()
    onnx_dir = None
    if not args.skip_export:
        onnx_dir = os.path.join(os.path.dirname(os.path.abspath(args.out)), "probes")
        os.makedirs(onnx_dir, exist_ok=True)
    cases = []
    for name in names:
        try:
            cases += load_probe(name, onnx_dir)
        except Exception as e:  # a probe that cannot be built or exported is left out
            print(f"# {name}: left out: {repr(e)[:300]}", flush=True)
        torch.cuda.empty_cache()
    print(f"# {len(cases)} cases loaded in {time.time() - args.start:.0f}s", flush=True)
    run_rounds(cases, lambda c: graph_replay_ms(c["net"], c["x"])[0], args, "gpu_rounds",
               "gpu_ms", min_rounds=2)
    for c in cases:
        if c.get("failed"):
            print(f"# {c['model']} {c['dtype']} b{c['batch']}: dropped: {c['failed']}", flush=True)


if __name__ == "__main__":
    main()
