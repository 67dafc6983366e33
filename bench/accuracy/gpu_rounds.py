#!/usr/bin/env python3
"""GPU (CUDA-graph replay) reference times measured in interleaved rounds.
Runs on the GPU machine.

The H200/H100 ratio of ../shared/docs/accuracy.md divides two GPU times taken
in different sessions on different machines, each measured once
(reference_runs.py), so each one's noise goes straight into the ratio. This
script keeps the inference cases of the given models resident and, in each
round, visits every case in a fresh random order: capture one forward in a
CUDA graph, time its replay as reference_runs.graph_replay_ms does (median of
timed loops), free the graph. The reference is the median over rounds.

Writes one JSON line per case: mode "gpu_rounds", gpu_ms (median of the round
figures), rounds_ms. Models that cannot be captured are skipped.

Usage: gpu_rounds.py --out FILE [--models a,b] [--max-seconds S] [--max-rounds N]
"""
import argparse
import json
import os
import random
import statistics
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reference_runs import build, make_input, graph_replay_ms, environment  # noqa: E402
from zoo import ZOO, INFER_BATCHES, INFER_DTYPES  # noqa: E402

DEV = "cuda"


def load_cases(models):
    cases = []
    for name in models:
        for dtype in INFER_DTYPES:
            model = build(name).to(DEV).eval()
            if dtype == "fp16":
                model = model.half()
            for batch in INFER_BATCHES:
                cases.append(dict(model=name, dtype=dtype, batch=batch, net=model,
                                  x=make_input(name, batch, dtype), rounds=[]))
    return cases


def run_round(cases, seed):
    order = list(range(len(cases)))
    random.Random(seed).shuffle(order)
    for i in order:
        c = cases[i]
        if c.get("failed"):
            continue
        try:
            ms, _ = graph_replay_ms(c["net"], c["x"])
            c["rounds"].append(ms)
        except RuntimeError as e:  # host copies inside the forward: not capturable
            c["failed"] = repr(e)[:200]
            torch.cuda.synchronize()
        torch.cuda.empty_cache()


def write(path, cases):
    with open(path, "w") as out:
        out.write(json.dumps(environment()) + "\n")
        for c in cases:
            if c["rounds"]:
                out.write(json.dumps(dict(model=c["model"], mode="gpu_rounds", dtype=c["dtype"],
                                          batch=c["batch"], gpu_ms=statistics.median(c["rounds"]),
                                          rounds_ms=c["rounds"])) + "\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--models", default=",".join(ZOO))
    ap.add_argument("--max-seconds", type=float, default=480)
    ap.add_argument("--max-rounds", type=int, default=5)
    args = ap.parse_args()
    torch.backends.cudnn.benchmark = True
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = True
    t0 = time.time()
    cases = load_cases(args.models.split(","))
    print(f"# {len(cases)} cases loaded in {time.time() - t0:.0f}s", flush=True)
    last = 0.0
    for r in range(args.max_rounds):
        left = args.max_seconds - (time.time() - t0)
        if r >= 2 and left < 1.2 * last:
            break
        t1 = time.time()
        run_round(cases, seed=r)
        last = time.time() - t1
        print(f"# round {r + 1} took {last:.0f}s", flush=True)
        write(args.out, cases)  # after every round: a killed run keeps what it finished
    print(f"# {sum(1 for c in cases if c.get('failed'))} cases not capturable; "
          f"{time.time() - t0:.0f}s", flush=True)


if __name__ == "__main__":
    main()
