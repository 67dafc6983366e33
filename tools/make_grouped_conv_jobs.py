#!/usr/bin/env python3
"""Writes calibration/jobs/grouped-conv-sweep.txt: grouped 3x3 convolutions
over channels per group, group count, image size and batch, in fp32 (TF32
math) and fp16, for the fitted conv model to learn grouped convolutions from
(the zoo's grouped keys cover 4-32 channels per group at 32 groups and 8 at
RegNetY's widths, nothing else). A grid, not any model's shapes."""
import itertools
import os

from make_generic_sweep_jobs import conv_key

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "calibration", "jobs", "grouped-conv-sweep.txt")


def key(n, c, hw, groups, stride, dtype, math):
    return conv_key(n, c, hw, hw, c, 3, 3, stride, groups, dtype, math)


def main():
    keys = []
    for cpg, groups, hw, n in itertools.product((4, 8, 16, 24, 32, 64), (2, 8, 32),
                                                (7, 14, 28, 56), (1, 16, 64)):
        stride = 2 if hw == 56 and n != 16 else 1
        for dtype, math in (("fp32", "tf32"), ("fp16", "fp16")):
            keys.append(key(n, cpg * groups, hw, groups, stride, dtype, math))
    with open(OUT, "w") as f:
        f.write(f"# {len(keys)} grouped conv_fwd keys: tools/make_grouped_conv_jobs.py\n")
        f.write("\n".join(keys) + "\n")
    print(f"wrote {OUT}: {len(keys)} keys")


if __name__ == "__main__":
    main()
