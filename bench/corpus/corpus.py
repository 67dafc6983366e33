#!/usr/bin/env python3
"""The generalisation corpus: models a user would bring, drawn from seeds.

Every model is a name; its architecture (a JSON-able "spec") is drawn from a
random generator seeded by the name alone, so the same name always gives the
same model, here (no torch needed) and on the GPU machine (families.py builds
the torch module from the spec).

The corpus splits by name into two sides:
  * calibration side ("c_<family>_<i>"): dlsim may be fitted and tuned on it;
  * test side ("t<generation>_<family>_<i>"): never fitted, never tuned on,
    never looked at kernel by kernel before the figures are taken. Once it has
    been looked at, bump TEST_GENERATION: every test model is then new.

Usage: corpus.py list [--side cal|test|all] [--generation N] [--family F]
       corpus.py spec NAME
"""
import argparse
import json
import random
import sys
import zlib

# The generation of the test side whose figures docs/accuracy.md reports.
TEST_GENERATION = 1

# family -> (models on the calibration side, models on the test side)
FAMILIES = {
    "cnn2d": (14, 14),
    "cnn1d": (3, 3),
    "cnn3d": (3, 3),
    "encdec": (5, 5),
    "mlp": (3, 4),
    "rnn": (5, 5),
    "attn": (4, 4),
    "bert": (1, 2),
    "roberta": (1, 2),
    "distilbert": (1, 2),
    "gpt2": (1, 2),
    "gpt_neox": (1, 2),
    "llama": (2, 2),
    "mistral": (1, 2),
    "t5": (1, 2),
    "whisper": (1, 2),
    "vit": (1, 2),
    "deit": (1, 2),
    "swin": (1, 2),
}

HF_FAMILIES = ("bert", "roberta", "distilbert", "gpt2", "gpt_neox", "llama", "mistral", "t5",
               "whisper", "vit", "deit", "swin")


def names(side="all", generation=TEST_GENERATION, family=None):
    out = []
    for fam, (n_cal, n_test) in FAMILIES.items():
        if family and fam != family:
            continue
        if side in ("cal", "all"):
            out += [f"c_{fam}_{i}" for i in range(n_cal)]
        if side in ("test", "all"):
            out += [f"t{generation}_{fam}_{i}" for i in range(n_test)]
    return out


def family_of(name):
    return name.split("_", 1)[1].rsplit("_", 1)[0]


def side_of(name):
    return "cal" if name.startswith("c_") else "test"


# ---------------------------------------------------------------- drawing helpers
def odd_width(rng, lo, hi):
    """A channel count in [lo, hi], log-uniform; half the time a multiple of 8."""
    import math
    v = int(round(math.exp(rng.uniform(math.log(lo), math.log(hi)))))
    if rng.random() < 0.5:
        v = max(8, (v // 8) * 8)
    return max(lo, min(hi, v))


def pick(rng, options, weights=None):
    return rng.choices(options, weights=weights, k=1)[0]


def small_batch(rng):
    return pick(rng, [1, 2, 4, 8, 16, 32], [3, 2, 2, 2, 2, 1])


# ---------------------------------------------------------------- families
def spec_cnn2d(rng):
    ch = pick(rng, [1, 3], [1, 3])
    h = rng.randint(48, 256)
    w = rng.randint(48, 256)
    stem = dict(out=odd_width(rng, 8, 64), k=pick(rng, [3, 5, 7]), stride=pick(rng, [1, 2], [1, 3]))
    stages = []
    for _ in range(rng.randint(2, 4)):
        blocks = [dict(type=pick(rng, ["plain", "residual", "inverted", "grouped", "dilated", "branch"]),
                       k=pick(rng, [1, 3, 3, 5, 7]), se=rng.random() < 0.4,
                       expand=pick(rng, [2, 3, 4, 6]), groups=pick(rng, [2, 4, 8]),
                       dilation=pick(rng, [2, 3]))
                  for _ in range(rng.randint(1, 3))]
        stages.append(dict(out=odd_width(rng, 3, 300), stride=pick(rng, [1, 2], [1, 2]), blocks=blocks))
    return dict(input=dict(kind="image", shape=[ch, h, w]), batch=small_batch(rng),
                act=pick(rng, ["relu", "relu6", "silu", "gelu", "hardswish", "leaky_relu"]),
                norm=pick(rng, ["bn", "bn", "bn", "none"]), stem=stem, stages=stages,
                classes=rng.randint(2, 1000))


def spec_cnn1d(rng):
    layers = [dict(out=odd_width(rng, 8, 256), k=pick(rng, [1, 3, 5, 7, 9]),
                   stride=pick(rng, [1, 2]), dilation=pick(rng, [1, 1, 2, 4]),
                   pool=pick(rng, ["none", "max", "avg"])) for _ in range(rng.randint(2, 6))]
    return dict(input=dict(kind="signal", shape=[rng.randint(1, 64), rng.randint(256, 4096)]),
                batch=small_batch(rng), act=pick(rng, ["relu", "gelu", "silu"]),
                norm=pick(rng, ["bn", "none"]), layers=layers, classes=rng.randint(2, 100))


def spec_cnn3d(rng):
    layers = [dict(out=odd_width(rng, 8, 128), k=pick(rng, [1, 3, 3]), stride=pick(rng, [1, 2]))
              for _ in range(rng.randint(2, 5))]
    return dict(input=dict(kind="volume", shape=[pick(rng, [1, 3]), rng.randint(8, 24),
                                                 rng.randint(32, 112), rng.randint(32, 112)]),
                batch=pick(rng, [1, 2, 4, 8]), act=pick(rng, ["relu", "silu"]),
                norm=pick(rng, ["bn", "none"]), layers=layers, classes=rng.randint(2, 400))


def spec_encdec(rng):
    levels = rng.randint(2, 4)
    m = 2 ** levels
    return dict(input=dict(kind="image", shape=[pick(rng, [1, 3]), m * rng.randint(4, 256 // m),
                                                m * rng.randint(4, 256 // m)]),
                batch=pick(rng, [1, 2, 4, 8, 16]), levels=levels, base=odd_width(rng, 8, 64),
                up=pick(rng, ["transposed", "nearest", "bilinear"]), norm=pick(rng, ["bn", "gn", "none"]),
                act=pick(rng, ["relu", "silu", "leaky_relu"]), out=rng.randint(1, 8))


def spec_mlp(rng):
    return dict(input=dict(kind="vector", shape=[rng.randint(17, 5000)]), batch=pick(rng, [1, 8, 32, 64, 256]),
                widths=[odd_width(rng, 10, 3000) for _ in range(rng.randint(2, 6))],
                act=pick(rng, ["relu", "gelu", "tanh", "silu"]), layer_norm=rng.random() < 0.3,
                dropout=rng.random() < 0.5, classes=rng.randint(2, 1000))


def spec_rnn(rng):
    seq = rng.randint(16, 256)
    return dict(input=dict(kind="tokens", shape=[seq], vocab=rng.randint(1000, 50000)),
                batch=pick(rng, [1, 4, 16, 32, 64]), embed=odd_width(rng, 32, 512),
                cell=pick(rng, ["lstm", "gru"]), hidden=odd_width(rng, 32, 1024),
                layers=pick(rng, [1, 1, 2, 3]), bidirectional=rng.random() < 0.4,
                classes=rng.randint(2, 100))


def spec_attn(rng):
    heads = pick(rng, [1, 2, 3, 4, 6, 8, 12])
    head_dim = pick(rng, [16, 24, 32, 40, 48, 64, 80, 96, 128])
    return dict(input=dict(kind="sequence", shape=[rng.randint(32, 512), heads * head_dim]),
                batch=pick(rng, [1, 2, 4, 8, 16]), heads=heads, layers=rng.randint(1, 4),
                mlp_ratio=pick(rng, [2, 3, 4]), style=pick(rng, ["matmul", "sdpa"]),
                causal=rng.random() < 0.5, pre_norm=rng.random() < 0.7)


def _transformer_dims(rng, head_dims=(32, 48, 64, 80, 96, 128)):
    heads = pick(rng, [2, 4, 6, 8, 12, 16])
    head_dim = pick(rng, list(head_dims))
    return heads, head_dim, heads * head_dim


def spec_hf_encoder(rng, family):
    heads, head_dim, hidden = _transformer_dims(rng, (32, 48, 64, 80))
    seq = rng.randint(24, 512)
    cfg = dict(hidden=hidden, heads=heads, layers=rng.randint(2, 6),
               ffn=hidden * pick(rng, [2, 3, 4]) + pick(rng, [0, 0, 8, 24]), vocab=rng.randint(1000, 32000))
    return dict(input=dict(kind="tokens", shape=[seq], vocab=cfg["vocab"]), batch=pick(rng, [1, 2, 4, 8, 16]),
                config=cfg, attn=pick(rng, ["sdpa", "sdpa", "sdpa", "eager"]))


def spec_hf_decoder(rng, family):
    heads, head_dim, hidden = _transformer_dims(rng, (32, 64, 80, 96, 128))
    seq = rng.randint(32, 512)
    kv = heads
    if family in ("llama", "mistral"):
        kv = pick(rng, [d for d in (1, 2, 4, heads) if heads % d == 0])
    cfg = dict(hidden=hidden, heads=heads, kv_heads=kv, layers=rng.randint(2, 6),
               ffn=odd_width(rng, 2 * hidden, 4 * hidden), vocab=rng.randint(1000, 32000))
    return dict(input=dict(kind="tokens", shape=[seq], vocab=cfg["vocab"]), batch=pick(rng, [1, 2, 4, 8]),
                config=cfg, attn=pick(rng, ["sdpa", "sdpa", "sdpa", "eager"]))


def spec_t5(rng):
    heads = pick(rng, [4, 6, 8, 12])
    d_kv = pick(rng, [32, 64])
    d_model = pick(rng, [256, 384, 512, 768])
    cfg = dict(hidden=d_model, heads=heads, d_kv=d_kv, layers=rng.randint(2, 6),
               ffn=d_model * pick(rng, [2, 4]), vocab=rng.randint(1000, 32000),
               gated=rng.random() < 0.5)
    return dict(input=dict(kind="tokens", shape=[rng.randint(32, 512)], vocab=cfg["vocab"]),
                batch=pick(rng, [1, 2, 4, 8]), config=cfg, attn="eager")


def spec_whisper(rng):
    heads, head_dim, hidden = _transformer_dims(rng, (32, 64))
    frames = pick(rng, [200, 500, 750, 1000, 1500])
    cfg = dict(hidden=hidden, heads=heads, layers=rng.randint(2, 6), ffn=hidden * 4,
               mels=pick(rng, [80, 128]), positions=frames)
    return dict(input=dict(kind="audio", shape=[cfg["mels"], 2 * frames]), batch=pick(rng, [1, 2, 4, 8]),
                config=cfg, attn=pick(rng, ["sdpa", "sdpa", "eager"]))


def spec_vit(rng, family):
    heads, head_dim, hidden = _transformer_dims(rng, (32, 48, 64))
    patch = pick(rng, [8, 14, 16, 32])
    image = patch * rng.randint(4, 16)
    cfg = dict(hidden=hidden, heads=heads, layers=rng.randint(2, 8), ffn=hidden * 4, patch=patch,
               image=image)
    return dict(input=dict(kind="image", shape=[3, image, image]), batch=pick(rng, [1, 2, 8, 16, 32]),
                config=cfg, attn=pick(rng, ["sdpa", "sdpa", "eager"]))


def spec_swin(rng):
    embed = pick(rng, [32, 48, 64, 96])
    window = pick(rng, [4, 7, 8])
    stages = rng.randint(2, 4)
    image = 4 * window * 2 ** (stages - 1) * pick(rng, [1, 2])
    cfg = dict(embed=embed, depths=[pick(rng, [1, 2, 2, 3]) for _ in range(stages)],
               heads=[max(1, embed * 2 ** i // 32) for i in range(stages)], window=window, image=image)
    return dict(input=dict(kind="image", shape=[3, image, image]), batch=pick(rng, [1, 2, 8, 16]),
                config=cfg, attn="eager")


SPECS = {
    "cnn2d": spec_cnn2d, "cnn1d": spec_cnn1d, "cnn3d": spec_cnn3d, "encdec": spec_encdec,
    "mlp": spec_mlp, "rnn": spec_rnn, "attn": spec_attn,
    "bert": lambda r: spec_hf_encoder(r, "bert"), "roberta": lambda r: spec_hf_encoder(r, "roberta"),
    "distilbert": lambda r: spec_hf_encoder(r, "distilbert"),
    "gpt2": lambda r: spec_hf_decoder(r, "gpt2"), "gpt_neox": lambda r: spec_hf_decoder(r, "gpt_neox"),
    "llama": lambda r: spec_hf_decoder(r, "llama"), "mistral": lambda r: spec_hf_decoder(r, "mistral"),
    "t5": spec_t5, "whisper": spec_whisper,
    "vit": lambda r: spec_vit(r, "vit"), "deit": lambda r: spec_vit(r, "deit"), "swin": spec_swin,
}


def spec(name):
    """The architecture of NAME: a dict, the same on every machine."""
    family = family_of(name)
    rng = random.Random(zlib.crc32(name.encode()))
    s = SPECS[family](rng)
    s.update(name=name, family=family, side=side_of(name))
    return s


# ---------------------------------------------------------------- inputs
# kind -> (input name, dim names after the batch; None = fixed by the model)
INPUT_KINDS = {
    "image": ("input", [None, None, None]),
    "signal": ("input", [None, "length"]),
    "volume": ("input", [None, None, None, None]),
    "vector": ("input", [None]),
    "tokens": ("input_ids", ["seq"]),
    "sequence": ("input", ["seq", None]),
    "audio": ("input_features", [None, None]),
}


def input_name(s):
    return INPUT_KINDS[s["input"]["kind"]][0]


def input_shape(s, batch=None):
    return [batch or s["batch"]] + list(s["input"]["shape"])


def dim_names(s):
    """{axis: name} of the input's dynamic axes (batch first)."""
    named = INPUT_KINDS[s["input"]["kind"]][1]
    out = {0: "batch"}
    for i, n in enumerate(named):
        if n:
            out[i + 1] = n
    return out


# The most a CUDA-graph replay may exceed the kernel sum by, per kernel, and
# still be taken as the GPU time: replay pays a few microseconds a kernel
# over the kernel sum; far more than that is capture itself slowing the model
# down (some Hugging Face encoders), and the kernel sum is the GPU time then.
GRAPH_US_PER_KERNEL = 5.0


def gpu_time(rec):
    """(GPU time in ms, "graph_replay" or "kernel_sum") of a measured inference case."""
    g = rec.get("graph_ms")
    if g is not None and g <= rec["kernel_sum_ms"] * 1.1 + GRAPH_US_PER_KERNEL * rec["kernels"] / 1000:
        return g, "graph_replay"
    return rec["kernel_sum_ms"], "kernel_sum"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    lp = sub.add_parser("list")
    lp.add_argument("--side", choices=["cal", "test", "all"], default="all")
    lp.add_argument("--generation", type=int, default=TEST_GENERATION)
    lp.add_argument("--family")
    sp = sub.add_parser("spec")
    sp.add_argument("name")
    args = ap.parse_args()
    if args.cmd == "list":
        print("\n".join(names(args.side, args.generation, args.family)))
    else:
        print(json.dumps(spec(args.name), indent=1))


if __name__ == "__main__":
    sys.exit(main())
