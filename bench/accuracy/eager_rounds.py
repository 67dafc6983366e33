#!/usr/bin/env python3
"""Eager reference times measured in interleaved rounds. Runs on the GPU machine.

A host-bound eager forward is timed by the host's speed at that moment, and
one measurement per case (reference_runs.py) catches whatever the host was
doing then: the same forward of RegNet-Y-400MF measured 9.7 ms at batch 1 and
18.2 ms at batch 16, with identical host work. This script keeps every
inference case of the zoo (model x dtype x batch) resident and times them in
rounds, each round visiting all cases in a fresh random order, so that a slow
spell of the host lands on different cases in different rounds. Each round's
figure is reference_runs.time_fn's median of timed loops; the reference is the
median over rounds, and the spread across rounds is the noise floor.

Writes one JSON line per case: mode "eager_rounds", eager_ms (median of
the round figures), rounds_ms (every round's figure).

Usage: eager_rounds.py --out FILE [--models a,b] [--max-seconds S] [--max-rounds N]
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
from reference_runs import build, make_input, time_fn, environment
from zoo import ZOO, INFER_BATCHES, INFER_DTYPES

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
        with torch.no_grad():
            ms, _ = time_fn(lambda: c["net"](c["x"]), target_ms=100.0, loops=5)
        c["rounds"].append(ms)
        torch.cuda.empty_cache()


def write(path, cases):
    with open(path, "w") as out:
        out.write(json.dumps(environment()) + "\n")
        for c in cases:
            out.write(json.dumps(dict(model=c["model"], mode="eager_rounds", dtype=c["dtype"],
                                      batch=c["batch"], eager_ms=statistics.median(c["rounds"]),
                                      rounds_ms=c["rounds"])) + "\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--models", default=",".join(ZOO))
    ap.add_argument("--max-seconds", type=float, default=480)
    ap.add_argument("--max-rounds", type=int, default=7)
    args = ap.parse_args()
    torch.backends.cudnn.benchmark = True
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = True
    t0 = time.time()
    cases = load_cases(args.models.split(","))
    with torch.no_grad():  # cudnn.benchmark's search and lazy inits, outside the rounds
        for c in cases:
            for _ in range(2):
                c["net"](c["x"])
            torch.cuda.synchronize()
            torch.cuda.empty_cache()
    print(f"# {len(cases)} cases loaded and warmed in {time.time() - t0:.0f}s", flush=True)
    last = 0.0
    for r in range(args.max_rounds):
        left = args.max_seconds - (time.time() - t0)
        if r >= 1 and left < 1.2 * last:
            break
        t1 = time.time()
        run_round(cases, seed=r)
        last = time.time() - t1
        print(f"# round {r + 1} took {last:.0f}s", flush=True)
        write(args.out, cases)  # after every round: a killed run keeps what it finished
    print(f"# wrote {len(cases)} cases, {len(cases[0]['rounds'])} rounds, {time.time() - t0:.0f}s",
          flush=True)


if __name__ == "__main__":
    main()
