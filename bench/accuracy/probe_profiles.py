#!/usr/bin/env python3
"""Kernel profiles of the probes (probes.py). Runs on the GPU machine.

For every (probe, dtype, batch) it runs the forward under torch.profiler and
writes one JSON line: mode "kernel_sum", the kernels per forward and their
summed time (reference_runs.kernel_profile). That is the GPU time of a probe
that cannot be captured in a CUDA graph (host copies inside the forward, as
Hugging Face models make), as the reference run takes it for BERT and GPT-2.
With --traces, the Chrome traces of the listed cases go to a folder, for
`dlsim compare` to set against the estimate layer by layer.

Usage: probe_profiles.py --out FILE [--models a,b] [--traces DIR --trace-cases name:dtype:batch,...]
"""
import argparse
import json
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from probe_runs import BUILDERS, make_input  # noqa: E402
from probes import PROBES  # noqa: E402
from reference_runs import environment, kernel_profile  # noqa: E402
from rounds import set_reference_math  # noqa: E402

DEV = "cuda"


def profile_probe(name, out, traces, trace_cases):
    spec, batches, _, _ = PROBES[name]
    for dtype in ("fp32", "fp16"):
        net = BUILDERS[name]().to(DEV).eval()
        if dtype == "fp16":
            net = net.half()
        for batch in batches:
            x = make_input(spec, batch, dtype)
            with torch.no_grad():
                kernels, ksum, prof = kernel_profile(lambda: net(x))
            case = f"{name}:{dtype}:{batch}"
            if traces and case in trace_cases:
                prof.export_chrome_trace(os.path.join(traces, f"{name}_{dtype}_b{batch}.json"))
            out.write(json.dumps({"model": name, "mode": "kernel_sum", "dtype": dtype,
                                  "batch": batch, "kernels": kernels,
                                  "kernel_sum_ms": ksum}) + "\n")
            out.flush()
        del net
        torch.cuda.empty_cache()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--models", default=",".join(PROBES))
    ap.add_argument("--traces", default="")
    ap.add_argument("--trace-cases", default="")
    args = ap.parse_args()
    set_reference_math()
    if args.traces:
        os.makedirs(args.traces, exist_ok=True)
    trace_cases = set(filter(None, args.trace_cases.split(",")))
    with open(args.out, "w") as out:
        out.write(json.dumps(environment()) + "\n")
        for name in args.models.split(","):
            try:
                profile_probe(name, out, args.traces, trace_cases)
            except Exception as e:  # noqa: BLE001 - report the probe and go on
                print(f"# {name}: left out: {repr(e)[:300]}", flush=True)
            print(f"# {name} done", flush=True)


if __name__ == "__main__":
    main()
