#!/usr/bin/env python3
"""Eager reference times measured in interleaved rounds. Runs on the GPU machine.

A host-bound eager forward is timed by the host's speed at that moment, and
one measurement per case (reference_runs.py) catches whatever the host was
doing then: the same forward of RegNet-Y-400MF measured 9.7 ms at batch 1 and
18.2 ms at batch 16, with identical host work. This script times every
inference case of the zoo in interleaved rounds (rounds.py); each round's
figure is reference_runs.time_fn's median of 5 timed loops of about 100 ms.
The reference is the median over rounds; the spread across rounds is the
noise floor. Every case is run twice first, outside the rounds, so that
cudnn.benchmark's searches do not land in round 1.

Writes one JSON line per case: mode "eager_rounds", eager_ms (median of
the round figures), rounds_ms (every round's figure).

Usage: eager_rounds.py --out FILE [--models a,b] [--max-seconds S] [--max-rounds N]
"""
import os
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reference_runs import time_fn  # noqa: E402
from rounds import load_cases, parse_args, run_rounds, set_reference_math  # noqa: E402


def warm(cases):
    with torch.no_grad():
        for c in cases:
            for _ in range(2):
                c["net"](c["x"])
            torch.cuda.synchronize()
            torch.cuda.empty_cache()


def eager_ms(case):
    with torch.no_grad():
        return time_fn(lambda: case["net"](case["x"]), target_ms=100.0, loops=5)[0]


def main():
    args = parse_args(__doc__, max_rounds=7)
    set_reference_math()
    cases = load_cases(args.models.split(","))
    warm(cases)
    print(f"# {len(cases)} cases loaded and warmed in {time.time() - args.start:.0f}s", flush=True)
    run_rounds(cases, eager_ms, args, "eager_rounds", "eager_ms", min_rounds=1)


if __name__ == "__main__":
    main()
