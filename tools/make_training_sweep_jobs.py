#!/usr/bin/env python3
"""Writes calibration/jobs/training-sweep.txt: the backward kernels of a
training step drawn at random (fixed seed) over the shapes networks use, for
the fitted models to price backward shapes no measured model has
(docs/calibration.md, "Training sweep").

The generic sweep (make_generic_sweep_jobs.py) draws forward kernels only:
GEMMs with trans_a = 0 and conv_fwd. A training step also runs each Linear's
weight gradient (gemm trans_a=1 trans_b=0: in x out over the tokens) and
input gradient (trans_a=0 trans_b=0), and each convolution's backward-data
and backward-filter. This list draws those in fp32 (TF32 convolutions, as
PyTorch's defaults run them) and bf16 (autocast), at the generic sweep's
widths: a multiple of 8 three times in four, any count otherwise.

Left out, so that the accuracy checks stay honest: every key of the corpus
test side (--exclude-plan, what bench/corpus/plan_side.py --side test lists)
and every key the database already has (--exclude-db).

Usage: tools/make_training_sweep_jobs.py [--exclude-plan FILE]... [--exclude-db DB] [--count N]
"""
import argparse
import os
import sqlite3
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_generic_sweep_jobs as generic  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "calibration", "jobs", "training-sweep.txt")
SEED = 20261128
PRECISIONS = {"fp32": ("fp32", "fp32", "tf32"), "bf16": ("bf16", "bf16", "bf16")}  # dtype, gemm, conv math


def gemm_grads(d):
    """A Linear's weight and input gradients at one drawn shape (tokens x in -> out)."""
    dtype, gemm_math, _ = PRECISIONS[d.choice(["fp32", "bf16", "bf16"])]
    tokens, fin, fout = d.log_int(1, 32768), d.width(16, 16384), d.width(16, 16384)
    size = 4 if dtype == "fp32" else 2
    if 2 * tokens * fin * fout > generic.MAX_FLOPS[gemm_math] or \
            (tokens * fin + fin * fout + tokens * fout) * size > generic.MAX_BYTES:
        return []
    tail = generic.tail(dtype, gemm_math)
    return [f"gemm m={fin} n={fout} k={tokens} trans_a=1 trans_b=0 {tail}",
            f"gemm m={tokens} n={fin} k={fout} trans_a=0 trans_b=0 {tail}"]


def conv_grads(d):
    """A convolution's backward-data and backward-filter at one drawn shape."""
    c, k, r, s, groups, stride, h, w = generic.conv_shape(d)
    n = d.choice([1, 2, 4, 8, 16, 32, 64])
    dtype, _, math_ = PRECISIONS[d.choice(["fp32", "bf16"])]
    ho = (h + 2 * (r // 2) - r) // stride + 1
    wo = (w + 2 * (s // 2) - s) // stride + 1
    if ho < 1 or wo < 1:
        return []
    size = 4 if dtype == "fp32" else 2
    flops = 2 * n * k * ho * wo * (c // groups) * r * s
    nbytes = (n * c * h * w + k * (c // groups) * r * s + n * k * ho * wo) * size
    if flops > generic.MAX_FLOPS[math_] or nbytes > generic.MAX_BYTES:
        return []
    fwd = generic.conv_key(n, c, h, w, k, r, s, stride, groups, dtype, math_)
    params = fwd[len("conv_fwd "):]
    return [f"conv_bwd_data {params}", f"conv_bwd_filter {params}"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--exclude-plan", action="append", default=[])
    ap.add_argument("--exclude-db")
    ap.add_argument("--count", type=int, default=600, help="shapes of each of GEMMs and convolutions")
    ap.add_argument("--out", default=OUT)
    args = ap.parse_args()
    exclude = set()
    for path in args.exclude_plan:
        exclude |= {l.strip() for l in open(path) if l.strip() and not l.startswith("#")}
    if args.exclude_db:
        exclude |= {k for (k,) in sqlite3.connect(args.exclude_db).execute("select key from measurements")}
    d = generic.Draw(SEED)
    keys, seen, left_out = [], set(), 0
    for draw in (gemm_grads, conv_grads):
        shapes = 0
        while shapes < args.count:
            drawn = draw(d)
            if not drawn:
                continue
            shapes += 1
            for key in drawn:
                if key in exclude:
                    left_out += 1
                elif key not in seen:
                    seen.add(key)
                    keys.append(key)
    with open(args.out + ".tmp", "w") as f:
        f.write(f"# {len(keys)} keys: tools/make_training_sweep_jobs.py (seed {SEED}, {args.count} GEMM and "
                f"{args.count} convolution shapes; {left_out} left out as measured or on the test side)\n")
        f.write("\n".join(keys) + "\n")
    os.replace(args.out + ".tmp", args.out)
    print(f"{args.out}: {len(keys)} keys ({left_out} left out)")


if __name__ == "__main__":
    main()
