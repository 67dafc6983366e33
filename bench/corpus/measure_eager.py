#!/usr/bin/env python3
"""Eager times of corpus models, for scoring dlsim's eager estimate against a calibrated host.

The eager loop is as much the host's as the GPU's, so it is scored against a
host section measured on the same machine in the same call
(calibrate/host_calibrate.py, run by bench/corpus/run_eager.sh before and
after this script). For each model at the batch its spec draws: eager
inference in fp32 and fp16, and the eager training step (SGD with momentum;
fp32 and bf16 autocast), timed as measure.py times them. One JSON line per
case goes to --out; a case that fails is recorded with its error.

With --rounds R every case is timed once per round, the rounds one after
another, so that a slow spell of the host falls on one round of each case
rather than on every loop of a few cases; eager_eval.py scores the median
over rounds.

The host drifts over minutes (the same case timed in two rounds differs by
about 20 % on a lent machine). Before each case, and once at the start (just
after run_eager.sh's first host calibration), a tiny-op loop is timed: its
per-op microseconds (`host_index_us`) say how fast the host is at that
moment, and eager_eval.py --drift scales the calibrated host by the case's
index over the start's.

Usage: measure_eager.py --out FILE [--max-seconds S] [--rounds R] NAME [NAME ...]
"""
import argparse
import gc
import json
import os
import sys
import time

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "accuracy"))
import corpus  # noqa: E402
import families  # noqa: E402
from measure import sgd_step  # noqa: E402
from reference_runs import environment, time_fn  # noqa: E402
from rounds import set_reference_math  # noqa: E402

DEV = "cuda"


def inference(name, dtype, batch):
    model = families.build(name).to(DEV).eval()
    if dtype == "fp16":
        model = model.half()
    x = families.make_input(name, batch, dtype)
    with torch.no_grad():
        ms, samples = time_fn(lambda: model(x), target_ms=40, loops=3)
    return dict(eager_ms=ms, samples_ms=samples)


def training(name, dtype, batch):
    model = families.build(name).to(DEV).train()
    opt = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9)
    x = families.make_input(name, batch, "fp32")
    ms, samples = time_fn(sgd_step(model, opt, x, dtype), target_ms=80, loops=3)
    return dict(eager_ms=ms, samples_ms=samples, optimizer="sgd_momentum")


def host_index_us(ops=400, loops=3):
    """Median per-op microseconds of a loop of tiny adds: the host's pace now."""
    x = torch.ones(16, device=DEV)
    torch.add(x, 1.0)
    torch.cuda.synchronize()
    samples = []
    for _ in range(loops):
        t0 = time.perf_counter()
        for _ in range(ops):
            torch.add(x, 1.0)
        torch.cuda.synchronize()
        samples.append((time.perf_counter() - t0) / ops * 1e6)
    samples.sort()
    return samples[len(samples) // 2]


CASES = (("inference", "fp32", inference), ("inference", "fp16", inference),
         ("training", "fp32", training), ("training", "bf16_amp", training))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--max-seconds", type=float, default=1e9)
    ap.add_argument("--rounds", type=int, default=1,
                    help="time every case once per round, rounds interleaved (each record has its round)")
    ap.add_argument("names", nargs="+")
    args = ap.parse_args()
    start = time.time()
    set_reference_math()
    with open(args.out, "a") as out:
        out.write(json.dumps(environment()) + "\n")
        out.write(json.dumps(dict(mode="host_index", host_index_us=host_index_us())) + "\n")
        for rnd in range(args.rounds):
            for i, name in enumerate(args.names):
                if time.time() - start > args.max_seconds:
                    print(f"# out of time in round {rnd + 1}: {len(args.names) - i} models left", flush=True)
                    return
                batch = corpus.spec(name)["batch"]
                for mode, dtype, fn in CASES:
                    gc.collect()
                    torch.cuda.empty_cache()
                    index = host_index_us()
                    try:
                        rec = fn(name, dtype, batch)
                    except Exception as e:  # noqa: BLE001 - record and go on
                        torch.cuda.synchronize()
                        rec = dict(error=repr(e)[:400])
                    rec.update(model=name, mode=mode, dtype=dtype, batch=batch, round=rnd, host_index_us=index)
                    out.write(json.dumps(rec) + "\n")
                    out.flush()
                print(f"# round {rnd + 1}: {i + 1}/{len(args.names)} {name} {time.time() - start:.0f}s",
                      flush=True)

if __name__ == "__main__":
    main()
