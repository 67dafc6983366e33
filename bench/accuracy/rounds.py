"""Interleaved-round timing of the zoo's inference cases, shared by
eager_rounds.py and gpu_rounds.py. Runs on the GPU machine.

Every case (model x dtype x batch) stays resident; each round visits all of
them in a fresh random order, so a slow spell of the machine lands on
different cases in different rounds. The reference is the median over rounds.
"""
import argparse
import json
import random
import statistics
import time

import torch

from reference_runs import build, make_input, environment
from zoo import ZOO, INFER_BATCHES, INFER_DTYPES

DEV = "cuda"


def parse_args(doc, max_rounds, models=tuple(ZOO), flags=()):
    """--out, --models (default MODELS), --max-seconds, --max-rounds, and the
    store-true FLAGS ((name, help) pairs); args.start is now."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--models", default=",".join(models))
    ap.add_argument("--max-seconds", type=float, default=480)
    ap.add_argument("--max-rounds", type=int, default=max_rounds)
    for name, help_text in flags:
        ap.add_argument(name, action="store_true", help=help_text)
    args = ap.parse_args()
    args.start = time.time()
    return args


def set_reference_math():
    """PyTorch's settings of the reference run (../shared/docs/accuracy.md)."""
    torch.backends.cudnn.benchmark = True
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = True


def resident_cases(name, build_fn, input_fn, batches, dtypes=INFER_DTYPES):
    """One case per dtype and batch, the model built once per dtype by
    build_fn() and kept on the GPU with its input input_fn(batch, dtype)."""
    cases = []
    for dtype in dtypes:
        model = build_fn().to(DEV).eval()
        if dtype == "fp16":
            model = model.half()
        for batch in batches:
            cases.append(dict(model=name, dtype=dtype, batch=batch, net=model,
                              x=input_fn(batch, dtype), rounds=[]))
    return cases


def load_cases(models):
    cases = []
    for name in models:
        cases += resident_cases(name, lambda: build(name), lambda b, d: make_input(name, b, d),
                                INFER_BATCHES)
    return cases


def run_round(cases, measure, seed):
    """measure(case) -> ms, or raises RuntimeError: the case is then dropped."""
    order = list(range(len(cases)))
    random.Random(seed).shuffle(order)
    for i in order:
        c = cases[i]
        if c.get("failed"):
            continue
        try:
            c["rounds"].append(measure(c))
        except RuntimeError as e:
            c["failed"] = repr(e)[:200]
            torch.cuda.synchronize()
        torch.cuda.empty_cache()


def write(path, cases, mode, field):
    with open(path, "w") as out:
        out.write(json.dumps(environment()) + "\n")
        for c in cases:
            if c["rounds"]:
                out.write(json.dumps({"model": c["model"], "mode": mode, "dtype": c["dtype"],
                                      "batch": c["batch"], field: statistics.median(c["rounds"]),
                                      "rounds_ms": c["rounds"]}) + "\n")


def run_rounds(cases, measure, args, mode, field, min_rounds):
    """Rounds until --max-rounds, or until the next would overrun --max-seconds
    (after at least min_rounds); the output is rewritten after every round, so
    a killed run keeps what it finished."""
    t0 = time.time()
    last = 0.0
    for r in range(args.max_rounds):
        left = args.max_seconds - (time.time() - args.start)
        if r >= min_rounds and left < 1.2 * last:
            break
        t1 = time.time()
        run_round(cases, measure, seed=r)
        last = time.time() - t1
        print(f"# round {r + 1} took {last:.0f}s", flush=True)
        write(args.out, cases, mode, field)
    print(f"# {sum(1 for c in cases if c.get('failed'))} cases dropped; rounds took "
          f"{time.time() - t0:.0f}s", flush=True)
