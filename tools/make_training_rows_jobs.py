#!/usr/bin/env python3
"""Writes calibration/jobs/training-rows-sweep.txt: the memory-bound kernels
of a training step drawn at random (fixed seed) over the shapes networks use,
for the fitted models to price backward shapes no measured model has
(docs/calibration.md, "Training rows sweep").

The generic sweep (make_generic_sweep_jobs.py) draws the forward row kernels
in fp32 and fp16, and the training sweep (make_training_sweep_jobs.py) the
backward GEMMs and convolutions. A training step also runs batch norm in
training mode and its backward, pooling, layer norm and softmax backward,
group norm backward, the reductions of bias gradients, and the recurrent
layers' backward, in fp32 and under bf16 autocast. Without this list those
kinds are priced only where a measured model has them, and by the roofline
elsewhere.

Left out, so that the accuracy checks stay honest: every key of the corpus
test side (--exclude-plan, what bench/corpus/plan_side.py --side test lists)
and every key the database already has (--exclude-db).

Usage: tools/make_training_rows_jobs.py [--exclude-plan FILE]... [--exclude-db DB] [--out FILE]
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_generic_sweep_jobs as generic  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "calibration", "jobs", "training-rows-sweep.txt")
SEED = 20261129
MAX_ELEMS = 300_000_000
# dtype, math of the memory-bound kinds: fp32, and bf16 data under autocast.
MEMORY = {"fp32": ("fp32", "fp32"), "bf16": ("bf16", "fp32")}
RNN = {"fp32": ("fp32", "tf32"), "bf16": ("bf16", "bf16")}


def memory_tail(d, layout="-"):
    return generic.tail(*MEMORY[d.choice(["fp32", "bf16"])], layout)


def spatial(d):
    """(h, w) of a feature map: square three times in four, else any shape."""
    h = d.choice([7, 14, 28, 56, 112]) if d.chance(0.5) else d.log_int(1, 256)
    return (h, h) if d.chance(0.75) else (h, d.log_int(1, 512))


def batchnorm(d):
    n, c, (h, w) = d.choice([1, 2, 4, 8, 16, 32, 64, 128]), d.width(3, 1024), spatial(d)
    if n * c * h * w > MAX_ELEMS:
        return []
    params = f"n={n} c={c} h={h} w={w} {memory_tail(d, 'nchw')}"
    return [f"batchnorm_train_fwd {params}", f"batchnorm_bwd {params}"]


def pool(d):
    mode, n, c, (h, w) = d.choice(["max", "avg"]), d.choice([1, 2, 8, 16, 64]), d.width(8, 1024), spatial(d)
    r = d.choice([2, 3])
    stride, pad = (2, 0) if r == 2 else (d.choice([1, 2]), 1)
    if n * c * h * w > MAX_ELEMS or h < r or w < r:
        return []
    return [f"pool_bwd mode={mode} n={n} c={c} h={h} w={w} r={r} s={r} pad_h={pad} pad_w={pad} "
            f"stride_h={stride} stride_w={stride} {memory_tail(d, 'nchw')}"]


def rows_cols(d, kind):
    rows, cols = d.log_int(1, 300_000), d.width(16, 8192)
    if rows * cols > MAX_ELEMS:
        return []
    return [f"{kind} rows={rows} cols={cols} {memory_tail(d)}"]


def groupnorm(d):
    n, groups = d.choice([1, 2, 4, 8, 16]), d.choice([8, 16, 32])
    c, hw = groups * d.choice([2, 4, 8, 16, 32]), d.log_int(16, 16384)
    if n * c * hw > MAX_ELEMS:
        return []
    params = f"n={n} c={c} groups={groups} hw={hw} {memory_tail(d)}"
    return [f"groupnorm_fwd {params}", f"groupnorm_bwd {params}"]


def reduction(d):
    op, rows, cols = d.choice(["sum", "sum", "mean"]), d.log_int(1, 1_000_000), d.log_int(1, 8192)
    if rows * cols > MAX_ELEMS:
        return []
    return [f"reduction op={op} rows={rows} cols={cols} {memory_tail(d)}"]


def rnn(d):
    cell, layers, dirs = d.choice(["lstm", "gru"]), d.choice([1, 1, 2, 3]), 2 if d.chance(0.25) else 1
    seq, batch = d.log_int(1, 512), d.choice([1, 2, 4, 8, 16, 32, 64])
    inp, hidden = d.width(16, 1024), d.width(16, 1024)
    dtype, math_ = RNN[d.choice(["fp32", "bf16"])]
    gates = 4 if cell == "lstm" else 3
    if 4 * seq * batch * gates * hidden * (inp + hidden * dirs) * layers * dirs > 1.5e11:
        return []
    params = (f"cell={cell} seq={seq} batch={batch} input={inp} hidden={hidden} layers={layers} "
              f"dirs={dirs} dtype={dtype} math={math_} layout=-")
    return [f"rnn_fwd {params}", f"rnn_bwd_data {params}", f"rnn_bwd_weights {params}"]


# maker, how many draws
PLAN = [
    (batchnorm, 300), (pool, 150), (lambda d: rows_cols(d, "layernorm_bwd"), 150),
    (lambda d: rows_cols(d, "softmax_bwd"), 150), (groupnorm, 60), (reduction, 150), (rnn, 60),
]


def generate(excluded):
    return generic.generate(excluded, PLAN, SEED)


def main():
    generic.write_job_list(__doc__, OUT, generate, "make_training_rows_jobs.py", SEED)


if __name__ == "__main__":
    main()
