#!/usr/bin/env python3
"""Writes calibration/jobs/group-norm-sweep.txt: PyTorch group_norm keys
(groupnorm_fwd and groupnorm_bwd, docs/kernel-keys.md) drawn at random with a
fixed seed over batch, group count, channels per group and spatial extent, in
fp32, fp16 and bf16 (statistics in fp32), for the fitted models to price
group norms no measured model has. A draw, not any model's shapes.

Left out so that the accuracy checks stay honest: every key of the files
given with --exclude-plan (the corpus test side's keys, as
bench/corpus/plan_side.py --side test lists them).

Usage: tools/make_group_norm_jobs.py [--exclude-plan FILE]... [--count N]
"""
import argparse
import math
import os
import random

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "calibration", "jobs", "group-norm-sweep.txt")
SEED = 20261127
MAX_ELEMS = 32 << 20     # x of one key: keeps a key's timing short
MAX_ROW_ELEMS = 4 << 20  # one (sample, group): PyTorch reduces it in one block


def log_int(rng, lo, hi):
    return int(round(math.exp(rng.uniform(math.log(lo), math.log(hi)))))


def draw(rng):
    while True:
        n = log_int(rng, 1, 64)
        groups = rng.choice((32, 32, 32, 16, 8, 4, 1))
        c = groups * log_int(rng, 1, 64)
        hw = log_int(rng, 16, 65536)
        if rng.random() < 0.5:  # a square image
            side = max(2, int(round(math.sqrt(hw))))
            hw = side * side
        if 1024 <= n * c * hw <= MAX_ELEMS and c // groups * hw <= MAX_ROW_ELEMS:
            return n, c, groups, hw


def key(kind, n, c, groups, hw, dtype):
    return f"{kind} n={n} c={c} groups={groups} hw={hw} dtype={dtype} math=fp32 layout=-"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--exclude-plan", action="append", default=[])
    ap.add_argument("--count", type=int, default=300, help="shapes drawn (default 300)")
    args = ap.parse_args()
    excluded = set()
    for path in args.exclude_plan:
        excluded |= {line.strip() for line in open(path) if line.strip()}
    rng = random.Random(SEED)
    keys, shapes = [], set()
    while len(shapes) < args.count:
        shape = draw(rng)
        if shape in shapes:
            continue
        shapes.add(shape)
        for kind in ("groupnorm_fwd", "groupnorm_bwd"):
            for dtype in ("fp32", "fp16", "bf16"):
                k = key(kind, *shape, dtype)
                if k not in excluded:
                    keys.append(k)
    with open(OUT, "w") as f:
        f.write(f"# {len(keys)} group-norm keys: tools/make_group_norm_jobs.py\n")
        f.write("\n".join(keys) + "\n")
    print(f"wrote {OUT}: {len(keys)} keys")


if __name__ == "__main__":
    main()
