#!/usr/bin/env python3
"""Framework-level calibration: times each kernel key through the PyTorch call
a PyTorch model makes for it (cudnn.benchmark on, so convolutions use the
fastest cuDNN algorithm, as in the reference runs), captured in a CUDA graph
of back-to-back calls, and writes measurement records in the format of
docs/kernel-keys.md (algo "torch").

It complements dlsim-calibrate (which drives cuDNN/cuBLAS directly, every
algorithm): this one prices what the framework actually launches for a key,
extra kernels included (layout conversions, bias adds, PyTorch's own
pointwise kernels).

Usage: torch_calibrate.py --jobs FILE [--jobs FILE ...] --out RECORDS.jsonl
                          [--max-seconds S] [--reps N]
Resumes: keys already in --out are skipped; every record is flushed and
fsync'd before the next measurement.
"""
import argparse
import json
import os
import random
import statistics
import sys
import time

import torch
import torch.nn.functional as F

DEV = "cuda"
DT = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}


def parse_key(key):
    tok = key.split()
    p = {}
    for t in tok[1:]:
        name, _, value = t.partition("=")
        p[name] = value
    return tok[0], p


def ip(p, name, default=None):
    return int(p[name]) if name in p else default


def rnd(*shape, dtype=torch.float32, fmt=None):
    t = torch.randn(*shape, device=DEV, dtype=dtype)
    return t.contiguous(memory_format=fmt) if fmt is not None else t


# ----------------------------------------------------------------- builders
# Each builder returns (bytes of one input set, make_inputs(), fn(inputs)).
def conv_geometry(p):
    n, c, h, w, k = (ip(p, x) for x in "nchwk")
    r, s, g = ip(p, "r"), ip(p, "s"), ip(p, "groups")
    stride = (ip(p, "stride_h"), ip(p, "stride_w"))
    pad = (ip(p, "pad_h"), ip(p, "pad_w"))
    dil = (ip(p, "dil_h"), ip(p, "dil_w"))
    return n, c, h, w, k, r, s, g, stride, pad, dil


def build_conv(kind, p, dt):
    n, c, h, w, k, r, s, g, stride, pad, dil = conv_geometry(p)
    fmt = torch.channels_last if p.get("layout") == "nhwc" else torch.contiguous_format

    def make():
        x = rnd(n, c, h, w, dtype=dt, fmt=fmt)
        wt = rnd(k, c // g, r, s, dtype=dt, fmt=fmt)
        return x, wt

    x0, w0 = make()
    y0 = F.conv2d(x0, w0, None, stride, pad, dil, g)
    nbytes = (x0.numel() + w0.numel() + y0.numel()) * x0.element_size()
    if kind == "conv_fwd":
        return nbytes, make, lambda i: F.conv2d(i[0], i[1], None, stride, pad, dil, g)
    mask = [kind == "conv_bwd_data", kind == "conv_bwd_filter", False]

    def make_bwd():
        x, wt = make()
        return x, wt, torch.randn_like(y0)

    def bwd(i):
        return torch.ops.aten.convolution_backward(i[2], i[0], i[1], None, stride, pad, dil,
                                                   False, [0, 0], g, mask)
    return nbytes, make_bwd, bwd


def build_gemm(kind, p, dt):
    batch = ip(p, "batch", 1)
    m, n, k = ip(p, "m"), ip(p, "n"), ip(p, "k")
    ta, tb = ip(p, "trans_a"), ip(p, "trans_b")

    def make():
        a = rnd(batch, k, m, dtype=dt).transpose(1, 2) if ta else rnd(batch, m, k, dtype=dt)
        b = rnd(batch, n, k, dtype=dt).transpose(1, 2) if tb else rnd(batch, k, n, dtype=dt)
        if kind == "gemm":
            a, b = a[0], b[0]
        return a, b

    nbytes = batch * (m * k + k * n + m * n) * torch.empty(0, dtype=dt).element_size()
    if kind == "gemm" and tb and not ta:
        # A weight operand: what nn.Linear runs, one GEMM with the bias in
        # its epilogue (addmm), since dlsim folds the bias add into it.
        bias = rnd(n, dtype=dt)

        def make_l():
            a = rnd(m, k, dtype=dt)
            return a, rnd(n, k, dtype=dt)
        return nbytes, make_l, lambda i: F.linear(i[0], i[1], bias)
    fn = (lambda i: torch.mm(i[0], i[1])) if kind == "gemm" else (lambda i: torch.bmm(i[0], i[1]))
    return nbytes, make, fn


def nchw(p):
    return ip(p, "n"), ip(p, "c"), ip(p, "h"), ip(p, "w")


def build_bn(kind, p, dt):
    n, c, h, w = nchw(p)
    fmt = torch.channels_last if p.get("layout") == "nhwc" else torch.contiguous_format

    def make():
        x = rnd(n, c, h, w, dtype=dt, fmt=fmt)
        return (x, rnd(c, dtype=dt), rnd(c, dtype=dt).abs() + 1, rnd(c, dtype=dt), rnd(c, dtype=dt),
                torch.randn_like(x))

    nbytes = 2 * n * c * h * w * torch.empty(0, dtype=dt).element_size()
    if kind == "batchnorm_infer":
        return nbytes, make, lambda i: F.batch_norm(i[0], i[1], i[2], i[3], i[4], False)
    if kind == "batchnorm_train_fwd":  # F.batch_norm picks cuDNN (fp32) or the native kernels as a model does
        return nbytes, make, lambda i: F.batch_norm(i[0], i[1], i[2], i[3], i[4], True, 0.1, 1e-5)

    def make_b():  # the saved statistics are fp32, as the forward leaves them
        i = make()
        return i + (i[1].float(), i[2].float())

    def bwd(i):
        return torch.ops.aten.native_batch_norm_backward(i[5], i[0], i[3], i[1], i[2], i[6], i[7],
                                                         True, 1e-5, [True, True, True])
    return nbytes, make_b, bwd


def build_pool(kind, p, dt):
    n, c, h, w = nchw(p)
    ks, st, pd = (ip(p, "r"), ip(p, "s")), (ip(p, "stride_h"), ip(p, "stride_w")), (ip(p, "pad_h"), ip(p, "pad_w"))
    mx = p.get("mode") == "max"
    fmt = torch.channels_last if p.get("layout") == "nhwc" else torch.contiguous_format

    def make():
        return (rnd(n, c, h, w, dtype=dt, fmt=fmt),)

    nbytes = n * c * h * w * torch.empty(0, dtype=dt).element_size() * 2
    if kind == "pool_fwd":
        f = (lambda i: F.max_pool2d(i[0], ks, st, pd)) if mx else (lambda i: F.avg_pool2d(i[0], ks, st, pd))
        return nbytes, make, f
    x0 = make()[0]
    if mx:
        y0, idx0 = F.max_pool2d(x0, ks, st, pd, return_indices=True)

        def make_b():
            x = make()[0]
            return x, torch.randn_like(y0), idx0
        return nbytes, make_b, lambda i: torch.ops.aten.max_pool2d_with_indices_backward(
            i[1], i[0], ks, st, pd, (1, 1), False, i[2])
    y0 = F.avg_pool2d(x0, ks, st, pd)

    def make_a():
        return make()[0], torch.randn_like(y0)
    return nbytes, make_a, lambda i: torch.ops.aten.avg_pool2d_backward(i[1], i[0], ks, st, pd, False, True, None)


def build_rows(kind, p, dt):
    rows, cols = ip(p, "rows"), ip(p, "cols")
    esz = torch.empty(0, dtype=dt).element_size()
    nbytes = 2 * rows * cols * esz

    def make():
        x = rnd(rows, cols, dtype=dt)
        return x, rnd(cols, dtype=dt), rnd(cols, dtype=dt), torch.randn_like(x)

    if kind == "softmax_fwd":
        return nbytes, make, lambda i: torch.softmax(i[0], -1)
    if kind == "softmax_bwd":
        return nbytes, make, lambda i: torch.ops.aten._softmax_backward_data(i[3], i[0], -1, dt)
    if kind == "layernorm_fwd":
        return nbytes, make, lambda i: F.layer_norm(i[0], (cols,), i[1], i[2])

    def make_l():  # the saved mean and rstd, as the forward leaves them
        return make() + (torch.zeros(rows, 1, device=DEV, dtype=torch.float32),
                         torch.ones(rows, 1, device=DEV, dtype=torch.float32))

    def ln_bwd(i):
        return torch.ops.aten.native_layer_norm_backward(i[3], i[0], (cols,), i[4], i[5], i[1], i[2],
                                                         [True, True, True])
    return nbytes, make_l, ln_bwd


def build_group_norm(kind, p, dt):
    """nn.GroupNorm over x [n, c, hw] (its forward, or native_group_norm_backward
    with every gradient, as autograd calls it in training)."""
    n, c, g, hw = ip(p, "n"), ip(p, "c"), ip(p, "groups"), ip(p, "hw")
    esz = torch.empty(0, dtype=dt).element_size()
    nbytes = (2 if kind == "groupnorm_fwd" else 4) * n * c * hw * esz

    def make():
        x = rnd(n, c, hw, dtype=dt)
        return x, rnd(c, dtype=dt), rnd(c, dtype=dt), torch.randn_like(x)

    if kind == "groupnorm_fwd":
        return nbytes, make, lambda i: F.group_norm(i[0], g, i[1], i[2])

    def make_b():
        x, w, b, dy = make()
        _, mean, rstd = torch.ops.aten.native_group_norm(x, w, b, n, c, hw, g, 1e-5)
        return x, w, dy, mean, rstd
    return nbytes, make_b, lambda i: torch.ops.aten.native_group_norm_backward(
        i[2], i[0], i[3], i[4], i[1], n, c, hw, g, [True, True, True])


UNARY = {"relu": torch.relu, "sigmoid": torch.sigmoid, "tanh": torch.tanh, "erf": torch.erf,
         "exp": torch.exp, "log": torch.log, "sqrt": torch.sqrt, "neg": torch.neg, "abs": torch.abs,
         "hardswish": F.hardswish, "hardsigmoid": F.hardsigmoid, "gelu": F.gelu, "softplus": F.softplus,
         "reciprocal": torch.reciprocal, "clip": lambda x: torch.clamp(x, -1, 1)}
BINARY = {"add": torch.add, "sub": torch.sub, "mul": torch.mul, "div": torch.div, "pow": torch.pow,
          "max": torch.maximum, "min": torch.minimum}


def build_elementwise(p, dt):
    op, elems, arity = p.get("op", "add"), ip(p, "elems"), ip(p, "arity", 1)
    esz = torch.empty(0, dtype=dt).element_size()
    nbytes = elems * esz * (arity + 1)
    if op == "bias_add":
        def make():
            return rnd(elems, dtype=dt), rnd(1, dtype=dt)
        return nbytes, make, lambda i: i[0].add_(i[1])
    if op.endswith("_bwd"):
        def make_b():
            return tuple(rnd(elems, dtype=dt) for _ in range(max(arity, 2)))
        return nbytes, make_b, lambda i: torch.mul(i[0], i[1])

    def make():
        return tuple(rnd(elems, dtype=dt) for _ in range(max(arity, 1)))

    if arity >= 2:
        f = BINARY.get(op, torch.add)
        if arity == 2:
            return nbytes, make, lambda i: f(i[0], i[1])
        return nbytes, make, lambda i: torch.where(i[0] > 0, i[1], i[2])
    if op in UNARY:
        f = UNARY[op]
        return nbytes, make, lambda i: f(i[0])
    f = BINARY.get(op, torch.add)
    return nbytes, make, lambda i: f(i[0], 0.5)


def build_reduction(p, dt):
    rows, cols, op = ip(p, "rows"), ip(p, "cols"), p.get("op", "sum")
    nbytes = rows * cols * torch.empty(0, dtype=dt).element_size()

    def make():
        return (rnd(rows, cols, dtype=dt),)
    f = {"mean": lambda x: x.mean(-1), "max": lambda x: x.amax(-1), "min": lambda x: x.amin(-1),
         "argmax": lambda x: x.argmax(-1)}.get(op, lambda x: x.sum(-1))
    return nbytes, make, lambda i: f(i[0])


def near_square(elems):
    a = int(elems ** 0.5)
    while a > 1 and elems % a:
        a -= 1
    return a, elems // a


def build_copy(p, dt):
    op, elems = p.get("op", "copy"), ip(p, "elems")
    esz = torch.empty(0, dtype=dt).element_size()
    nbytes = 2 * elems * esz
    a, b = near_square(elems)

    def make():
        return (rnd(a, b, dtype=dt),)
    if op.startswith("transpose"):
        inner = max(1, ip(p, "inner", 1))
        ra, rb = near_square(max(elems // inner, 1))

        def make_t():
            return (rnd(ra, rb, inner, dtype=dt),)
        return nbytes, make_t, lambda i: i[0].permute(1, 0, 2).contiguous()
    if op.startswith("concat"):
        def make_c():
            return rnd(elems // 2, dtype=dt), rnd(elems - elems // 2, dtype=dt)
        return nbytes, make_c, lambda i: torch.cat([i[0], i[1]])
    if op.startswith("cast"):
        other = torch.float32 if dt != torch.float32 else torch.float16
        return nbytes, make, lambda i: i[0].to(other)
    if op.startswith("gather"):
        def make_g():
            idx = torch.randint(0, a, (a,), device=DEV)
            return rnd(a, b, dtype=dt), idx
        return nbytes, make_g, lambda i: torch.index_select(i[0], 0, i[1])
    built = build_copy_as_autograd(op, elems, dt, make, a, b)
    if built is not None:
        return nbytes, built[0], built[1]
    return nbytes, make, lambda i: i[0].clone()


def build_copy_as_autograd(op, elems, dt, make, a, b):
    """(make, fn) for the copies whose PyTorch call is not a plain copy (a
    clone is a memcpy, no kernel at all): what the op, or autograd's
    backward of it, runs; None for the rest."""
    if op == "slice_bwd":  # SliceBackward0: the input's zeros, the gradient copied into its slice
        return make, lambda i: torch.ops.aten.slice_backward(i[0], [a, 2 * b], 1, 0, b, 1)
    if op == "split_bwd":  # SplitBackward0: the pieces' gradients concatenated
        def make_c():
            return rnd(a, b - b // 2, dtype=dt), rnd(a, b // 2, dtype=dt)
        return make_c, lambda i: torch.cat([i[0], i[1]], 1)
    if op == "expand_bwd":  # ExpandBackward0: summed over the broadcast dimension
        return make, lambda i: i[0].sum(0)
    if op == "pad":  # constant_pad_nd: the output filled, the input copied into it
        return make, lambda i: F.pad(i[0], (1, 1))
    if op == "pad_bwd" and b > 2:  # the gradient's interior copied out
        return make, lambda i: i[0][:, 1:-1].clone()
    if op in ("resize", "resize_bwd"):  # nearest x2 upsampling (the key has no mode); elems: the output's
        ra, rb = near_square(max(elems // 4, 1))
        if op == "resize":
            return (lambda: (rnd(1, 1, ra, rb, dtype=dt),),
                    lambda i: F.interpolate(i[0], scale_factor=2, mode="nearest"))
        return (lambda: (rnd(1, 1, 2 * ra, 2 * rb, dtype=dt),),
                lambda i: torch.ops.aten.upsample_nearest2d_backward(
                    i[0], [2 * ra, 2 * rb], [1, 1, ra, rb]))
    if op == "constantofshape":  # torch.full
        return make, lambda i: torch.full((elems,), 0.5, device=DEV, dtype=dt)
    return None


def build_rnn(kind, p, dt):
    cell, seq, batch = p.get("cell", "lstm"), ip(p, "seq"), ip(p, "batch")
    inp, hid, dirs = ip(p, "input"), ip(p, "hidden"), ip(p, "dirs", 1)
    layers = ip(p, "layers", 1)
    mod = {"lstm": torch.nn.LSTM, "gru": torch.nn.GRU}.get(cell, torch.nn.RNN)
    rnn = mod(inp, hid, layers, bidirectional=dirs == 2).to(DEV, dt).eval()
    nbytes = (seq * batch * (inp + hid * dirs)) * torch.empty(0, dtype=dt).element_size()
    if kind == "rnn_fwd":
        def make():
            return (rnd(seq, batch, inp, dtype=dt),)
        def fwd(i):
            with torch.no_grad():
                return rnn(i[0])[0]
        return nbytes, make, fwd
    # Backward: cuDNN's backward-weights call needs the backward-data call
    # before it, and both need a training forward; so each is timed as the
    # difference of two captured sequences (with its baseline, the 4th item).
    rnn.train()
    weights = list(rnn.parameters())

    def make_bwd():
        x = rnd(seq, batch, inp, dtype=dt).requires_grad_(True)
        return x, rnd(seq, batch, hid * dirs, dtype=dt)

    def forward_only(i):
        return rnn(i[0])[0]

    def with_data(i):
        return torch.autograd.grad(rnn(i[0])[0], [i[0]], i[1])

    def with_weights(i):
        return torch.autograd.grad(rnn(i[0])[0], [i[0]] + weights, i[1])
    if kind == "rnn_bwd_data":
        return nbytes, make_bwd, with_data, forward_only
    if kind == "rnn_bwd_weights":
        return nbytes, make_bwd, with_weights, with_data
    return None


def build_attention(kind, p, dt):
    """F.scaled_dot_product_attention on [batch, heads, seq, head_dim] inputs
    (PyTorch picks flash, memory-efficient or math attention); mask=1 adds a
    float mask of [batch, 1, seq_q, seq_k], mask=2 is causal (is_causal=True,
    no mask tensor). The backward is timed as the
    difference of forward+backward and forward (both captured)."""
    b, h, sq, sk, d = ip(p, "batch"), ip(p, "heads"), ip(p, "seq_q"), ip(p, "seq_k"), ip(p, "head_dim")
    masked = ip(p, "mask", 0) == 1
    causal = ip(p, "mask", 0) == 2
    sdpa = torch.nn.functional.scaled_dot_product_attention
    nbytes = b * h * (2 * sq + 2 * sk) * d * torch.empty(0, dtype=dt).element_size()
    grad = kind == "attention_bwd"

    def make():
        qkv = [rnd(b, h, s, d, dtype=dt).requires_grad_(grad) for s in (sq, sk, sk)]
        mask = rnd(b, 1, sq, sk, dtype=dt) if masked else None
        return qkv + [mask, rnd(b, h, sq, d, dtype=dt)]

    def fwd(i):
        if grad:
            return sdpa(i[0], i[1], i[2], attn_mask=i[3], is_causal=causal)
        with torch.no_grad():
            return sdpa(i[0], i[1], i[2], attn_mask=i[3], is_causal=causal)
    if not grad:
        return nbytes, make, fwd

    def fwd_bwd(i):
        return torch.autograd.grad(fwd(i), i[:3], i[4])
    return nbytes, make, fwd_bwd, fwd


def build_optimizer(p, dt):
    n, op = ip(p, "params"), p.get("op", "sgd_momentum")
    nbytes = n * 4 * 5

    def make():
        return rnd(n), rnd(n), rnd(n), rnd(n).abs()

    def sgd_m(i):
        i[2].mul_(0.9).add_(i[1])
        i[0].add_(i[2], alpha=-0.01)

    def adam(i):
        torch._fused_adam_([i[0]], [i[1]], [i[2]], [i[3]], [], [torch.tensor(1.0, device=DEV)],
                           lr=1e-3, beta1=0.9, beta2=0.999, weight_decay=0.0, eps=1e-8,
                           amsgrad=False, maximize=False)
    if op in ("adam", "adamw"):
        return nbytes, make, adam
    if op == "foreach_mul":  # one launch of SGD's foreach ops (src/ops/foreach_optimizer.h)
        return n * 4 * 2, make, lambda i: torch._foreach_mul_([i[2]], 0.9)
    if op == "foreach_add":
        return n * 4 * 3, make, lambda i: torch._foreach_add_([i[0]], [i[1]], alpha=-0.01)
    if op == "sgd":
        return nbytes, make, lambda i: i[0].add_(i[1], alpha=-0.01)
    return nbytes, make, sgd_m


def build(key):
    kind, p = parse_key(key)
    dt = DT.get(p.get("dtype", "fp32"), torch.float32)
    torch.backends.cudnn.allow_tf32 = p.get("math") == "tf32"
    torch.backends.cuda.matmul.allow_tf32 = p.get("math") == "tf32"
    if kind.startswith("conv_") and kind != "conv_bias_act":
        return build_conv(kind, p, dt)
    if kind in ("gemm", "batched_gemm"):
        return build_gemm(kind, p, dt)
    if kind.startswith("batchnorm"):
        return build_bn(kind, p, dt)
    if kind.startswith("pool"):
        return build_pool(kind, p, dt)
    if kind.startswith("softmax") or kind.startswith("layernorm"):
        return build_rows(kind, p, dt)
    if kind.startswith("groupnorm"):
        return build_group_norm(kind, p, dt)
    if kind == "elementwise":
        return build_elementwise(p, dt)
    if kind == "reduction":
        return build_reduction(p, dt)
    if kind == "copy":
        return build_copy(p, dt)
    if kind.startswith("rnn"):
        return build_rnn(kind, p, dt)
    if kind.startswith("attention"):
        return build_attention(kind, p, dt)
    if kind == "optimizer":
        return build_optimizer(p, dt)
    return None


# ----------------------------------------------------------------- timing
L2_BYTES = 0


def graph_of_calls(fn, inputs):
    """(graph, calls): one CUDA graph of max(len(inputs), 8) calls of `fn`,
    cycling over `inputs`, after three warm-up calls on a side stream."""
    sets = len(inputs)
    per_graph = max(sets, 8)
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for i in range(3):  # warm-up; cudnn.benchmark picks the algorithm here
            fn(inputs[i % sets])
    torch.cuda.current_stream().wait_stream(s)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for i in range(per_graph):
            fn(inputs[i % sets])
    return g, per_graph


def time_graph(fn, inputs, reps):
    """Per-call times (ms) of `fn` over `inputs`, replayed from one CUDA graph."""
    g, per_graph = graph_of_calls(fn, inputs)
    g.replay()
    torch.cuda.synchronize()
    samples = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        g.replay()
        b.record()
        b.synchronize()
        samples.append(a.elapsed_time(b) / per_graph)
    del g
    return samples


def cold_sets(nbytes):
    """Enough input sets that one pass over them exceeds twice the L2: every
    call starts cold, as a layer does whose inputs were evicted."""
    return max(1, min(64, int(2 * L2_BYTES / max(nbytes, 1)) + 1))


def measure(key, reps):
    built = build(key)
    if built is None:
        return None
    nbytes, make, fn = built[:3]
    inputs = [make() for _ in range(cold_sets(nbytes))]
    samples = time_graph(fn, inputs, reps)
    if len(built) > 3:  # timed as the difference from a baseline sequence
        base = statistics.median(time_graph(built[3], inputs, reps))
        samples = [max(t - base, 1e-6) for t in samples]
    del inputs
    return samples


def header():
    p = torch.cuda.get_device_properties(0)
    return dict(schema=1, gpu_name=p.name, gpu_cc=f"{p.major}.{p.minor}", gpu_sms=p.multi_processor_count,
                gpu_clock_mhz=float(getattr(p, "clock_rate", 0) / 1000 or 1980),
                gpu_mem_bytes=float(p.total_memory), driver="torch", cuda=str(torch.version.cuda),
                cudnn=str(torch.backends.cudnn.version()), cublas="torch-" + torch.__version__)


def quantile(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * (len(xs) - 1) + 0.5))]


def read_jobs(paths):
    """The keys of job files in order, without comments, blanks or repeats."""
    keys, seen = [], set()
    for path in paths:
        for line in open(path):
            line = line.strip()
            if line and not line.startswith("#") and line not in seen:
                seen.add(line)
                keys.append(line)
    return keys


def keys_done(out_path):
    """The keys already in a records file, which is cut after its last whole
    record (a killed run leaves a torn last line)."""
    done = set()
    if os.path.exists(out_path):
        good = []
        for line in open(out_path):
            try:
                done.add(json.loads(line)["key"])
                good.append(line)
            except (ValueError, KeyError):
                break
        with open(out_path, "w") as f:
            f.writelines(good)
    return done


def main():
    global L2_BYTES
    ap = argparse.ArgumentParser()
    ap.add_argument("--jobs", action="append", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--max-seconds", type=float, default=1e9)
    ap.add_argument("--shuffle", action="store_true")
    args = ap.parse_args()
    torch.backends.cudnn.benchmark = True
    L2_BYTES = getattr(torch.cuda.get_device_properties(0), "L2_cache_size", 50 << 20)
    done = keys_done(args.out)
    todo = [k for k in read_jobs(args.jobs) if k not in done]
    if args.shuffle:  # spread a time-limited run over every kind of key
        random.Random(0).shuffle(todo)
    hdr = header()
    t0 = time.time()
    last = t0
    with open(args.out, "a") as out:
        for n, key in enumerate(todo):
            if time.time() - t0 > args.max_seconds:
                print(f"# budget reached after {n} of {len(todo)} keys", flush=True)
                break
            rec = dict(hdr, key=key, algo="torch", heuristic=False, fastest=True, kernels=[],
                       time_utc=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
            try:
                samples = measure(key, args.reps)
                if samples is None:
                    rec["status"] = "unsupported"
                else:
                    med = statistics.median(samples)
                    p10, p90 = quantile(samples, 0.1), quantile(samples, 0.9)
                    rec.update(status="ok" if (p90 - p10) <= 0.25 * med else "noisy",
                               median_ms=med, min_ms=min(samples), max_ms=max(samples),
                               p10_ms=p10, p90_ms=p90, reps=len(samples), workspace_bytes=0)
            except Exception as e:  # noqa: BLE001 - record the failure and go on
                rec["status"] = "failed"
                rec["error"] = repr(e)[:200]
                healthy = True
                try:
                    torch.cuda.synchronize()
                    (torch.zeros(1, device=DEV) + 1).item()
                except Exception:  # noqa: BLE001
                    healthy = False
                if not healthy:  # a broken CUDA context: record, then let the caller restart us
                    out.write(json.dumps(rec) + "\n")
                    out.flush()
                    os.fsync(out.fileno())
                    sys.exit(3)
            out.write(json.dumps(rec) + "\n")
            out.flush()
            os.fsync(out.fileno())
            if time.time() - last > 10:
                last = time.time()
                el = last - t0
                eta = el / (n + 1) * (len(todo) - n - 1)
                print(f"# {n+1}/{len(todo)} keys, {el:.0f}s elapsed, ETA {eta:.0f}s", flush=True)
    print(f"# done: {len(todo)} keys attempted in {time.time()-t0:.0f}s", flush=True)


if __name__ == "__main__":
    main()
