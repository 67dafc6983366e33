#!/usr/bin/env python3
"""Why do corpus CNNs' eager ops cost less than the host calibration's?

Times, interleaved in rounds in one process, with cudnn.benchmark off and on:
isolated ops as calibrate/host_calibrate.py times them, the calibration's
small CNN, and corpus CNNs' eager inference both as host_calibrate.py times
(wall clock) and as measure_eager.py times (CUDA events, "@events"); counts each corpus forward's
top-level aten ops with the profiler. One JSON line per measurement.

Usage: diagnose_host.py --out FILE [--rounds R] NAME[:BATCH] ...
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
import corpus  # noqa: E402
import families  # noqa: E402
import host_calibrate as hc  # noqa: E402
sys.path.insert(0, os.path.join(HERE, "..", "accuracy"))
from reference_runs import time_fn  # noqa: E402  measure_eager.py's timing (CUDA events)


def top_level_ops(fn):
    from torch.profiler import profile, ProfilerActivity
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        fn()
        torch.cuda.synchronize()
    n = {}
    for e in prof.events():
        if not e.name.startswith("aten::"):
            continue
        p = e.cpu_parent
        if p is not None and p.name.startswith("aten::"):
            continue
        n[e.name] = n.get(e.name, 0) + 1
    return n


def load_models(specs, dev):
    """[(name, batch, model in eval mode on dev, fp32 input)] of NAME[:BATCH]
    specs, the batch the corpus spec draws where none is given."""
    models = []
    for m in specs:
        name, _, b = m.partition(":")
        batch = int(b) if b else corpus.spec(name)["batch"]
        models.append((name, batch, families.build(name).to(dev).eval(), families.make_input(name, batch, "fp32")))
    return models


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("models", nargs="+")
    a = ap.parse_args()
    dev = "cuda"
    out = open(a.out, "w")
    ops = hc.forward_ops(dev)
    nets = hc.networks(dev)
    cnn, cnn_x = nets["cnn"][0].eval(), nets["cnn"][1]
    models = load_models(a.models, dev)
    for bench in (False, True):
        torch.backends.cudnn.benchmark = bench
        with torch.no_grad():
            for name, batch, net, x in models:
                net(x)
                counts = top_level_ops(lambda: net(x))
                out.write(json.dumps(dict(what="ops", model=name, batch=batch, benchmark=bench,
                                          ops=counts, total=sum(counts.values()))) + "\n")
            for r in range(a.rounds):
                rec = dict(what="round", round=r, benchmark=bench, t=time.time())
                for k in ("conv2d", "batch_norm", "relu", "add", "linear", "view"):
                    rec[k] = hc.per_call_us(ops[k][1], 500)
                rec["calib_cnn"] = hc.per_call_us(lambda: cnn(cnn_x), 200)
                for name, batch, net, x in models:
                    rec[name] = hc.per_call_us(lambda: net(x), 50)
                    rec[name + "@events"] = 1000 * time_fn(lambda: net(x), target_ms=40, loops=3)[0]
                out.write(json.dumps(rec) + "\n")
                out.flush()
                print(json.dumps({k: (round(v, 1) if isinstance(v, float) else v) for k, v in rec.items()}),
                      flush=True)


if __name__ == "__main__":
    main()
