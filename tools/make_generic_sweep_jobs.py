#!/usr/bin/env python3
"""Writes calibration/jobs/generic-sweep.txt: kernel configurations drawn at
random (fixed seed) over the shapes networks use, for the fitted models to
price shapes no zoo model has (docs/calibration.md, "Generic sweep").

The zoo's keys are the shapes of 25 models; a model outside it falls between
them, where the fitted source interpolates from its nearest measured
neighbours. This list spreads keys over the space instead: GEMMs and batched
GEMMs log-uniform in each dimension, convolutions of the common families
(1x1, 3x3, depthwise, grouped, 5x5/7x7, stems, 1-D) at log-uniform widths and
sizes, recurrent layers, and the memory-bound kinds at log-uniform sizes.

Left out, so that the accuracy checks stay honest: every key a held-out zoo
model or a probe (bench/accuracy/probes.py) uses, as `dlsim plan` lists them
(--exclude-plan), and every key the database already has (--exclude-db).

Usage: tools/make_generic_sweep_jobs.py [--exclude-plan FILE]... [--exclude-db DB]
"""
import argparse
import math
import os
import random
import sqlite3

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "calibration", "jobs", "generic-sweep.txt")
SEED = 20261123

# dtype, math of each precision as the lowering writes them (fp32 convs and
# RNNs run TF32 math under PyTorch's defaults, fp32 GEMMs do not).
MATRIX = {"fp32": ("fp32", "fp32"), "fp16": ("fp16", "fp16"), "bf16": ("bf16", "bf16")}
CONV = {"fp32": ("fp32", "tf32"), "fp16": ("fp16", "fp16")}
MEMORY = {"fp32": ("fp32", "fp32"), "fp16": ("fp16", "fp32")}
# Largest work per key: keeps one key's timing under about 5 ms.
MAX_FLOPS = {"fp32": 2e11, "tf32": 6e11, "fp16": 1.2e12, "bf16": 1.2e12}
MAX_BYTES = 1.5e9


class Draw:
    def __init__(self, seed):
        self.rng = random.Random(seed)

    def log_int(self, lo, hi):
        return int(round(math.exp(self.rng.uniform(math.log(lo), math.log(hi)))))

    def width(self, lo, hi):
        """A channel or feature count: a multiple of 8 three times in four."""
        x = self.log_int(lo, hi)
        return max(8, 8 * round(x / 8)) if self.rng.random() < 0.75 else x

    def choice(self, xs):
        return self.rng.choice(xs)

    def chance(self, p):
        return self.rng.random() < p


def tail(dtype, math_, layout="-"):
    return f"dtype={dtype} math={math_} layout={layout}"


def gemm(d):
    dtype, math_ = MATRIX[d.choice(["fp32", "fp32", "fp16", "fp16", "bf16"])]
    m, n, k = d.log_int(1, 32768), d.width(16, 16384), d.width(16, 16384)
    tb = 1 if d.chance(0.7) else 0
    size = 2 if dtype != "fp32" else 4
    if 2 * m * n * k > MAX_FLOPS[math_] or (m * k + k * n + m * n) * size > MAX_BYTES:
        return None
    return f"gemm m={m} n={n} k={k} trans_a=0 trans_b={tb} {tail(dtype, math_)}"


def batched_gemm(d):
    dtype, math_ = MATRIX[d.choice(["fp32", "fp16"])]
    b, m, n, k = d.log_int(1, 4096), d.log_int(8, 4096), d.width(8, 4096), d.width(8, 4096)
    tb = 1 if d.chance(0.5) else 0
    size = 2 if dtype != "fp32" else 4
    if 2 * b * m * n * k > MAX_FLOPS[math_] or b * (m * k + k * n + m * n) * size > MAX_BYTES:
        return None
    return f"batched_gemm batch={b} m={m} n={n} k={k} trans_a=0 trans_b={tb} {tail(dtype, math_)}"


def conv_key(n, c, h, w, k, r, s, stride, groups, dtype, math_):
    """A conv_fwd key (docs/kernel-keys.md), padded to keep the size at stride 1."""
    return (f"conv_fwd n={n} c={c} h={h} w={w} k={k} r={r} s={s} pad_h={r // 2} pad_w={s // 2} "
            f"stride_h={stride} stride_w={stride} dil_h=1 dil_w=1 groups={groups} "
            f"{tail(dtype, math_, 'nchw')}")


def conv_shape(d):
    """(c, k, r, s, groups, stride, h, w) of one convolution family."""
    hw = d.choice([7, 14, 28, 56, 112, 224]) if d.chance(0.6) else d.log_int(4, 256)
    stride = 2 if d.chance(0.2) else 1
    family = d.rng.choices(["1x1", "3x3", "dw", "grouped", "large", "stem", "1d"],
                           weights=[35, 35, 10, 7, 6, 3, 4])[0]
    c, k = d.width(8, 2048), d.width(8, 2048)
    if family == "1x1":
        return c, k, 1, 1, 1, stride, hw, hw
    if family == "3x3":
        return c, k, 3, 3, 1, stride, hw, hw
    if family == "dw":
        r = d.choice([3, 3, 5, 7])
        return c, c, r, r, c, stride, hw, hw
    if family == "grouped":
        per_group = d.choice([4, 8, 16, 32, 64])
        groups = max(2, c // per_group)
        return groups * per_group, groups * per_group, 3, 3, groups, stride, hw, hw
    if family == "large":
        r = d.choice([5, 7])
        return c, k, r, r, 1, stride, hw, hw
    if family == "stem":
        r = d.choice([3, 7])
        return 3, d.choice([16, 24, 32, 48, 64]), r, r, 1, 2, d.choice([224, 256, 299, 384, 512]), \
            d.choice([224, 256, 299, 384, 512])
    s = d.choice([3, 5, 9, 15])
    return c, k, 1, s, 1, 1, 1, d.log_int(32, 8192)


def conv(d):
    c, k, r, s, groups, stride, h, w = conv_shape(d)
    n = d.choice([1, 1, 2, 4, 8, 16, 32, 64, 128])
    dtype, math_ = CONV[d.choice(["fp32", "fp16"])]
    pad_h, pad_w = r // 2, s // 2
    ho = (h + 2 * pad_h - r) // stride + 1
    wo = (w + 2 * pad_w - s) // stride + 1
    if ho < 1 or wo < 1:
        return None
    size = 2 if dtype == "fp16" else 4
    flops = 2 * n * k * ho * wo * (c // groups) * r * s
    nbytes = (n * c * h * w + k * (c // groups) * r * s + n * k * ho * wo) * size
    if flops > MAX_FLOPS[math_] or nbytes > MAX_BYTES:
        return None
    return conv_key(n, c, h, w, k, r, s, stride, groups, dtype, math_)


def rnn(d):
    cell = d.choice(["lstm", "gru"])
    seq, batch = d.log_int(1, 512), d.log_int(1, 256)
    inp, hidden = d.choice([64, 128, 256, 512, 1024]), d.choice([64, 128, 256, 512, 1024])
    layers = d.choice([1, 2])
    dtype, math_ = CONV[d.choice(["fp32", "fp16"])]
    gates = 4 if cell == "lstm" else 3
    flops = 2 * seq * batch * gates * hidden * (inp + hidden) * layers
    if flops > 2e11:
        return None
    return (f"rnn_fwd cell={cell} seq={seq} batch={batch} input={inp} hidden={hidden} "
            f"layers={layers} dirs=1 {tail(dtype, math_)}")


def memory_dtype(d):
    return MEMORY[d.choice(["fp32", "fp16"])]


def elements(d):
    return d.log_int(1_000, 300_000_000)


def batchnorm(d):
    n, c, hw = d.choice([1, 2, 8, 16, 32, 64, 128]), d.width(8, 2048), d.log_int(4, 256)
    if n * c * hw * hw > 300_000_000:
        return None
    return f"batchnorm_infer n={n} c={c} h={hw} w={hw} {tail(*memory_dtype(d), 'nchw')}"


def rows_cols(d, kind):
    rows, cols = d.log_int(1, 300_000), d.choice([32, 49, 64, 96, 128, 197, 256, 384, 512, 768, 1024,
                                                  2048, 4096, 8192])
    if rows * cols > 300_000_000:
        return None
    return f"{kind} rows={rows} cols={cols} {tail(*memory_dtype(d))}"


def elementwise(d):
    op = d.choice(["relu", "add", "mul", "sigmoid", "gelu", "tanh", "bias_add", "hardswish"])
    arity = 2 if op in ("add", "mul") else 1
    return f"elementwise op={op} elems={elements(d)} arity={arity} {tail(*memory_dtype(d))}"


def copy(d):
    op = d.choice(["transpose", "concat", "copy"])
    return f"copy op={op} elems={elements(d)} {tail(*memory_dtype(d))}"


def pool(d):
    mode, n, c, hw = d.choice(["max", "avg"]), d.choice([1, 16, 64]), d.width(16, 1024), d.log_int(7, 224)
    r = d.choice([2, 3])
    if n * c * hw * hw > 300_000_000 or hw < r:
        return None
    return (f"pool_fwd mode={mode} n={n} c={c} h={hw} w={hw} r={r} s={r} pad_h=0 pad_w=0 "
            f"stride_h=2 stride_w=2 {tail(*memory_dtype(d), 'nchw')}")


def reduction(d):
    op, rows, cols = d.choice(["sum", "mean", "max"]), d.log_int(1, 1_000_000), d.log_int(1, 8192)
    if rows * cols > 300_000_000:
        return None
    return f"reduction op={op} rows={rows} cols={cols} {tail(*memory_dtype(d))}"


# kind: (maker, how many keys)
PLAN = [
    (gemm, 1200), (batched_gemm, 400), (conv, 2800), (rnn, 120), (batchnorm, 200),
    (lambda d: rows_cols(d, "layernorm_fwd"), 150), (lambda d: rows_cols(d, "softmax_fwd"), 150),
    (elementwise, 400), (copy, 200), (pool, 80), (reduction, 80),
]


def plan_keys(paths):
    keys = set()
    for path in paths:
        with open(path) as f:
            keys.update(line.strip() for line in f if line.strip() and not line.startswith("#"))
    return keys


def db_keys(path):
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    return {k for (k,) in con.execute("SELECT DISTINCT key FROM measurements")}


def generate(excluded, plan=PLAN, seed=SEED):
    """The keys of `plan` ((maker, draws) pairs) drawn with `seed`, none in
    `excluded`. A maker returns a key, a list of keys drawn together (a
    forward and its backward), or None; a draw counts when it adds a key."""
    d = Draw(seed)
    keys, seen = [], set(excluded)
    for maker, count in plan:
        made = tries = 0
        while made < count and tries < 50 * count:
            tries += 1
            drawn = maker(d)
            drawn = [k for k in ([drawn] if isinstance(drawn, str) else drawn or []) if k not in seen]
            if not drawn:
                continue
            seen.update(drawn)
            keys.extend(drawn)
            made += 1
    return keys


def write_job_list(doc, default_out, generate_fn, script, seed):
    """The command line both sweep writers share: --exclude-plan and
    --exclude-db name the keys to leave out, generate_fn(excluded) draws the
    keys, and the job list goes to --out with a header naming script and seed."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--exclude-plan", action="append", default=[],
                    help="job list whose keys are left out (held-out models, probes)")
    ap.add_argument("--exclude-db", help="performance database whose keys are left out")
    ap.add_argument("--out", default=default_out)
    args = ap.parse_args()
    excluded = plan_keys(args.exclude_plan)
    if args.exclude_db:
        excluded |= db_keys(args.exclude_db)
    keys = generate_fn(excluded)
    with open(args.out, "w") as f:
        f.write(f"# {len(keys)} keys: tools/{script} (seed {seed})\n")
        f.write("\n".join(keys) + "\n")
    print(f"wrote {args.out}: {len(keys)} keys ({len(excluded)} excluded)")


def main():
    write_job_list(__doc__, OUT, generate, "make_generic_sweep_jobs.py", SEED)


if __name__ == "__main__":
    main()
