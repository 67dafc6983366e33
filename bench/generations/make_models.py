#!/usr/bin/env python3
"""Builds graph-only ONNX models of the Hugging Face models NeuSight measured (onnx helper, no torch).

The graphs follow what PyTorch 2.1 eager runs for transformers' BertModel (with its pooler: the
model NeuSight's traces show), GPT2LMHeadModel
(GPT-2 large and the GPT-3 XL / 2.7B shapes of NeuSight's configs) and OPTForCausalLM, as
torch.onnx.export writes them: nn.Linear as MatMul + Add (GPT-2's Conv1D as Gemm on the flattened
input), eager attention (MatMul, scale, mask, Softmax, MatMul), GELU as its erf or tanh chain.
Shapes come from NeuSight's configs (scripts/asplos/data/DLmodel_configs); the batch is symbolic
(`--batch`), the sequence length is fixed per file. Weights are external data that does not exist
(dlsim needs only shapes). Dropout is left out (dlsim prices it as nothing either way).

  python3 bench/generations/make_models.py [--out bench/generations/models]
"""
import argparse, math, os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F = TensorProto.FLOAT

# name: (family, hidden, heads, layers, ffn, vocab, positions)
MODELS = {
    "bert_large": ("bert", 1024, 16, 24, 4096, 30522, 512),
    "gpt2_large": ("gpt2", 1280, 20, 36, 5120, 50257, 1024),
    "gpt3_xl": ("gpt2", 3072, 24, 24, 4 * 3072, 50257, 2048),
    "gpt3_27": ("gpt2", 2560, 32, 32, 4 * 2560, 50257, 2048),
    "opt_13": ("opt", 2048, 32, 24, 8192, 50272, 2048),
}


class Builder:
    def __init__(self):
        self.nodes, self.inits, self.n, self.weights = [], [], 0, set()

    def name(self, base):
        self.n += 1
        return f"{base}_{self.n}"

    def weight(self, name, shape, dtype=F):
        if name in self.weights:
            return name
        self.weights.add(name)
        t = TensorProto()
        t.name, t.data_type = name, dtype
        t.dims.extend(shape)
        t.data_location = TensorProto.EXTERNAL
        for k, v in (("location", "weights.bin"), ("offset", "0"), ("length", str((4 if dtype == F else 1) * int(np.prod(shape))))):
            e = t.external_data.add()
            e.key, e.value = k, v
        self.inits.append(t)
        return name

    def const(self, values, dtype=np.int64):
        n = self.name("c")
        self.inits.append(numpy_helper.from_array(np.array(values, dtype=dtype), n))
        return n

    def op(self, op_type, inputs, **attrs):
        out = self.name(op_type.lower())
        self.nodes.append(helper.make_node(op_type, inputs, [out], name=out, **attrs))
        return out

    # nn.Linear on a [batch, seq, in] input: MatMul + Add (bias)
    def linear(self, x, prefix, fan_in, fan_out, bias=True):
        y = self.op("MatMul", [x, self.weight(prefix + ".weight", [fan_in, fan_out])])
        return self.op("Add", [y, self.weight(prefix + ".bias", [fan_out])]) if bias else y

    # GPT-2's Conv1D: addmm on the flattened input
    def conv1d(self, x, prefix, fan_in, fan_out, seq):
        flat = self.op("Reshape", [x, self.const([-1, fan_in])])
        y = self.op("Gemm", [flat, self.weight(prefix + ".weight", [fan_in, fan_out]),
                             self.weight(prefix + ".bias", [fan_out])])
        return self.op("Reshape", [y, self.const([-1, seq, fan_out])])

    def layernorm(self, x, prefix, h):
        return self.op("LayerNormalization", [x, self.weight(prefix + ".weight", [h]),
                                              self.weight(prefix + ".bias", [h])], axis=-1, epsilon=1e-5)

    def heads(self, x, seq, heads, hd, perm):
        r = self.op("Reshape", [x, self.const([0, seq, heads, hd])])
        return self.op("Transpose", [r], perm=perm)

    def gelu_erf(self, x):
        d = self.op("Div", [x, self.const(math.sqrt(2.0), np.float32)])
        e = self.op("Erf", [d])
        a = self.op("Add", [e, self.const(1.0, np.float32)])
        m = self.op("Mul", [x, a])
        return self.op("Mul", [m, self.const(0.5, np.float32)])

    def gelu_tanh(self, x):  # transformers' NewGELUActivation, op by op
        p = self.op("Pow", [x, self.const(3.0, np.float32)])
        m = self.op("Mul", [p, self.const(0.044715, np.float32)])
        a = self.op("Add", [x, m])
        s = self.op("Mul", [a, self.const(math.sqrt(2.0 / math.pi), np.float32)])
        t = self.op("Tanh", [s])
        one = self.op("Add", [t, self.const(1.0, np.float32)])
        half = self.op("Mul", [x, self.const(0.5, np.float32)])
        return self.op("Mul", [half, one])


def attention(b, x, p, fam, h, heads, seq):
    hd = h // heads
    if fam == "gpt2":
        qkv = b.conv1d(x, p + ".c_attn", h, 3 * h, seq)
        q, k, v = (b.name("split") for _ in range(3))
        b.nodes.append(helper.make_node("Split", [qkv, b.const([h, h, h])], [q, k, v], axis=-1, name=b.name("split")))
    else:
        q = b.linear(x, p + ".q_proj", h, h)
        if fam == "opt":
            q = b.op("Mul", [q, b.const(hd ** -0.5, np.float32)])
        k = b.linear(x, p + ".k_proj", h, h)
        v = b.linear(x, p + ".v_proj", h, h)
    qh = b.heads(q, seq, heads, hd, [0, 2, 1, 3])
    kt = b.heads(k, seq, heads, hd, [0, 2, 3, 1])
    vh = b.heads(v, seq, heads, hd, [0, 2, 1, 3])
    s = b.op("MatMul", [qh, kt])
    if fam != "opt":
        s = b.op("Div", [s, b.const(math.sqrt(hd), np.float32)])
    if fam == "gpt2":
        causal = b.weight("causal_mask", [1, 1, seq, seq], TensorProto.BOOL)  # GPT-2's attn.bias buffer
        s = b.op("Where", [causal, s, b.const(np.finfo(np.float32).min, np.float32)])
    else:  # extended attention mask, broadcast over heads (and rows, for BERT)
        shape = [1, 1, 1, seq] if fam == "bert" else [1, 1, seq, seq]
        s = b.op("Add", [s, b.weight("attention_mask", shape)])
        if fam == "opt":  # OPTAttention clamps the masked scores: torch.max(s, finfo.min)
            s = b.op("Max", [s, b.const(np.finfo(np.float32).min, np.float32)])
    pr = b.op("Softmax", [s], axis=-1)
    o = b.op("MatMul", [pr, vh])
    o = b.op("Transpose", [o], perm=[0, 2, 1, 3])
    o = b.op("Reshape", [o, b.const([0, seq, h])])
    if fam == "gpt2":
        return b.conv1d(o, p + ".attn.c_proj", h, h, seq)
    return b.linear(o, p + ".out_proj", h, h)


def mlp(b, x, p, fam, h, ffn, seq):
    if fam == "gpt2":
        return b.conv1d(b.gelu_tanh(b.conv1d(x, p + ".mlp.c_fc", h, ffn, seq)), p + ".mlp.c_proj", ffn, h, seq)
    y = b.linear(x, p + ".fc1", h, ffn)
    y = b.gelu_erf(y) if fam == "bert" else b.op("Relu", [y])
    return b.linear(y, p + ".fc2", ffn, h)


def build(name, seq):
    fam, h, heads, layers, ffn, vocab, _ = MODELS[name]
    b = Builder()
    ids = "input_ids"
    x = b.op("Gather", [b.weight("wte", [vocab, h]), ids])
    pos = b.op("Gather", [b.weight("wpe", [seq + 2, h]), b.const([list(range(seq))])])
    x = b.op("Add", [x, pos])
    if fam == "bert":
        tt = b.op("Gather", [b.weight("token_type", [2, h]), b.const([[0] * seq])])
        x = b.layernorm(b.op("Add", [x, tt]), "emb_ln", h)
    for i in range(layers):
        p = f"layer{i}"
        if fam == "bert":  # post-LN
            x = b.layernorm(b.op("Add", [attention(b, x, p, fam, h, heads, seq), x]), p + ".ln1", h)
            x = b.layernorm(b.op("Add", [mlp(b, x, p, fam, h, ffn, seq), x]), p + ".ln2", h)
        else:  # pre-LN
            x = b.op("Add", [x, attention(b, b.layernorm(x, p + ".ln1", h), p, fam, h, heads, seq)])
            x = b.op("Add", [x, mlp(b, b.layernorm(x, p + ".ln2", h), p, fam, h, ffn, seq)])
    if fam == "bert":  # BertModel's pooler (NeuSight timed BertModel: no LM head in its traces)
        first = b.op("Gather", [x, b.const(0)], axis=1)
        logits = b.op("Tanh", [b.op("Gemm", [first, b.weight("pooler.weight", [h, h]), b.weight("pooler.bias", [h])])])
    else:
        logits = b.op("MatMul", [b.layernorm(x, "ln_f", h), b.weight("lm_head", [h, vocab])])
    graph = helper.make_graph(
        b.nodes, f"{name}_{seq}",
        [helper.make_tensor_value_info(ids, TensorProto.INT64, ["batch", seq])],
        [helper.make_tensor_value_info(logits, F, None)], b.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                              producer_name="dlsim-bench-generations")
    model.ir_version = 8
    return model


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "models"))
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for name, seqs in (("bert_large", [512]), ("gpt2_large", [1024]), ("gpt3_xl", [2048]),
                       ("gpt3_27", [2048]), ("opt_13", [2048])):
        for seq in seqs:
            path = os.path.join(args.out, f"{name}-{seq}.onnx")
            onnx.save(build(name, seq), path)
            print(path)


if __name__ == "__main__":
    main()
