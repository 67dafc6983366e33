#!/usr/bin/env python3
"""GPU (CUDA-graph replay) reference times measured in interleaved rounds.
Runs on the GPU machine.

The H200/H100 ratio of ../shared/docs/accuracy.md divides two GPU times taken
in different sessions on different machines, each measured once
(reference_runs.py), so each one's noise goes straight into the ratio. This
script times the inference cases of the given models in interleaved rounds
(rounds.py): each visit captures one forward in a CUDA graph and times its
replay as reference_runs.graph_replay_ms does (median of timed loops).
Cases that cannot be captured (host copies inside the forward) are dropped.

Writes one JSON line per case: mode "gpu_rounds", gpu_ms (median of the round
figures), rounds_ms.

Usage: gpu_rounds.py --out FILE [--models a,b] [--max-seconds S] [--max-rounds N]
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reference_runs import graph_replay_ms  # noqa: E402
from rounds import load_cases, parse_args, run_rounds, set_reference_math  # noqa: E402


def main():
    args = parse_args(__doc__, max_rounds=5)
    set_reference_math()
    cases = load_cases(args.models.split(","))
    print(f"# {len(cases)} cases loaded in {time.time() - args.start:.0f}s", flush=True)
    # Round 1 carries cudnn.benchmark's searches: at least two rounds.
    run_rounds(cases, lambda c: graph_replay_ms(c["net"], c["x"])[0], args, "gpu_rounds",
               "gpu_ms", min_rounds=2)


if __name__ == "__main__":
    main()
