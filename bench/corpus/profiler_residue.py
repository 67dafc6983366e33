#!/usr/bin/env python3
"""Does the profiler leave a process's eager launches slower once it has run?

In one fresh process: times isolated ops as calibrate/host_calibrate.py
times them, the calibration's small CNN and corpus models' eager inference
as measure_eager.py times them (CUDA events), `--rounds` times; then runs
torch.profiler with CUDA activity over one forward of the first model (as
host_calibrate.py's RNN kernel count and diagnose_host.py's op count did
within their timed rounds), and times everything again. One JSON line per
round, phase "clean" or "after_profiler". Run it as several processes to
see the spread between them.

Usage: profiler_residue.py --out FILE [--rounds R] NAME[:BATCH] ...
"""
import argparse
import json
import os
import sys
import time

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "calibrate"))
sys.path.insert(0, os.path.join(HERE, "..", "accuracy"))
import host_calibrate as hc  # noqa: E402
from diagnose_host import load_models  # noqa: E402
from reference_runs import time_fn  # noqa: E402  measure_eager.py's timing
from rounds import set_reference_math  # noqa: E402


def timed_round(ops, cnn, cnn_x, models):
    rec = {}
    for k in ("conv2d", "batch_norm", "relu", "add", "linear"):
        rec[k] = hc.per_call_us(ops[k][1], 500)
    rec["calib_cnn"] = hc.per_call_us(lambda: cnn(cnn_x), 200)
    for name, _, net, x in models:
        rec[name] = 1000 * time_fn(lambda: net(x), target_ms=40, loops=3)[0]
    return rec


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("models", nargs="+")
    a = ap.parse_args()
    dev = "cuda"
    set_reference_math()
    ops = hc.forward_ops(dev)
    cnn, cnn_x = hc.networks(dev)["cnn"][:2]
    cnn.eval()
    models = load_models(a.models, dev)
    with open(a.out, "a") as out, torch.no_grad():
        for phase in ("clean", "after_profiler"):
            if phase == "after_profiler":
                from torch.profiler import profile, ProfilerActivity
                net, x = models[0][2], models[0][3]
                with profile(activities=[ProfilerActivity.CUDA]):
                    net(x)
                    torch.cuda.synchronize()
            for r in range(a.rounds):
                rec = dict(phase=phase, round=r, pid=os.getpid(), t=time.time(),
                           teardown_cupti=os.environ.get("TEARDOWN_CUPTI"))
                rec.update(timed_round(ops, cnn, cnn_x, models))
                print(json.dumps(rec), file=out, flush=True)
                print(f"# {phase} round {r}: " + " ".join(f"{n} {rec[n]:.0f} us" for n, *_ in models), flush=True)


if __name__ == "__main__":
    main()
