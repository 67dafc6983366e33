#!/usr/bin/env python3
"""Writes calibration/jobs/rnn-sweep.txt: recurrent-layer configurations drawn
at random (fixed seed) so that each of cuDNN's three RNN algorithms, as
PyTorch picks them (src/perfdb/rnn_algo.h), has keys across its
whole range (docs/calibration.md, "RNN sweep").

The generic sweep (make_generic_sweep_jobs.py) drew its 120 RNN keys with one
direction, one or two layers and a log-uniform batch, so the persistent
static kernel (fp16, batch a multiple of 8 up to 128, widths multiples of
128) was met by the zoo LSTM's keys alone, and deep or bidirectional stacks
not at all. This list draws:
  - the cell, LSTM or GRU, and forward, backward-data or backward-weights
    (forward three times in four: inference is the common use);
  - layers 1 to 4 and a bidirectional stack one time in four;
  - the batch a multiple of 8 up to 128 half the time, else log-uniform
    1..256 with batch 1 one time in four of those;
  - hidden and input widths from the sizes networks use (multiples of 128
    two times in three), steps log-uniform 1..512;
  - fp32 (TF32 math, PyTorch's default for RNNs) or fp16;
  - and one key in eight drawn where the persistent static kernel runs
    (a one-layer, one-direction fp16 LSTM forward, batch a multiple of 8 up
    to 128, widths multiples of 128), which the draws above reach rarely.

Left out, so that the accuracy checks stay honest: every key a held-out zoo
model or a probe uses, as `dlsim plan` lists them (--exclude-plan), and every
key the database already has (--exclude-db).

Usage: tools/make_rnn_sweep_jobs.py [--exclude-plan FILE]... [--exclude-db DB]
"""
import math
import os
import random

from make_generic_sweep_jobs import write_job_list

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "calibration", "jobs", "rnn-sweep.txt")
SEED = 20261124
KEYS = 360
PRECISION = {"fp32": ("fp32", "tf32"), "fp16": ("fp16", "fp16")}
WIDE = [128, 256, 384, 512, 640, 768, 1024]      # multiples of 128
NARROW = [32, 48, 64, 96, 100, 160, 192, 200, 300]
# Largest work per key (forward FLOPs): keeps one key's timing near 5 ms.
MAX_FLOPS = 1.5e11


def width(rng):
    return rng.choice(WIDE) if rng.random() < 2 / 3 else rng.choice(NARROW)


def log_int(rng, lo, hi):
    return int(round(math.exp(rng.uniform(math.log(lo), math.log(hi)))))


def batch(rng):
    if rng.random() < 0.5:
        return 8 * rng.randint(1, 16)
    return 1 if rng.random() < 0.25 else log_int(rng, 2, 256)


def static_eligible(rng):
    seq, b = log_int(rng, 1, 512), 8 * rng.randint(1, 16)
    return (f"rnn_fwd cell=lstm seq={seq} batch={b} input={rng.choice(WIDE)} "
            f"hidden={rng.choice(WIDE)} layers=1 dirs=1 dtype=fp16 math=fp16 layout=-")


def draw(rng):
    if rng.random() < 1 / 8:
        return static_eligible(rng)
    cell = rng.choice(["lstm", "gru"])
    kind = "rnn_fwd" if rng.random() < 0.75 else rng.choice(["rnn_bwd_data", "rnn_bwd_weights"])
    layers = rng.choice([1, 1, 2, 2, 3, 4])
    dirs = 2 if rng.random() < 0.25 else 1
    seq, b, inp, hidden = log_int(rng, 1, 512), batch(rng), width(rng), width(rng)
    dtype, math_ = PRECISION[rng.choice(["fp32", "fp16"])]
    gates = 4 if cell == "lstm" else 3
    flops = 2 * seq * b * gates * hidden * (inp + hidden * dirs) * layers * dirs
    if kind != "rnn_fwd":
        flops *= 2
    if flops > MAX_FLOPS:
        return None
    return (f"{kind} cell={cell} seq={seq} batch={b} input={inp} hidden={hidden} "
            f"layers={layers} dirs={dirs} dtype={dtype} math={math_} layout=-")


def generate(excluded, count=KEYS):
    rng = random.Random(SEED)
    keys, seen = [], set(excluded)
    for _ in range(100 * count):
        if len(keys) == count:
            break
        key = draw(rng)
        if key is None or key in seen:
            continue
        seen.add(key)
        keys.append(key)
    return keys


def main():
    write_job_list(__doc__, OUT, generate, "make_rnn_sweep_jobs.py", SEED)


if __name__ == "__main__":
    main()
