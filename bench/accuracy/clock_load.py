#!/usr/bin/env python3
"""SM clock and board power under sustained load, per case. Runs on the GPU
machine.

dlsim scales a calibrated GPU's kernel times to another GPU by the ratio of
their peaks, which assumes both run at the clock their peaks are quoted at.
A board at its power limit lowers its SM clock instead; if the two GPUs do
that by different amounts under the same work, the measured time ratio moves
by the ratio of their clocks. This script replays each case's forward (CUDA
graph, the reference run's settings) back to back for a few seconds while
`nvidia-smi` samples the SM clock, memory clock and power draw every 50 ms,
and writes one JSON line per case: the replay time and the median of the
samples taken while it ran, plus two synthetic loads (a TF32 and an fp16
8192^3 matrix product).

Usage: clock_load.py --out FILE [--cases model:dtype:batch,...] [--seconds S]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reference_runs import capture_graph, case_of_spec, environment  # noqa: E402
from rounds import set_reference_math  # noqa: E402

DEV = "cuda"
FIELDS = ["clocks.sm", "clocks.mem", "power.draw", "temperature.gpu"]
DEFAULT_CASES = ("resnet50:fp32:1,resnet50:fp32:64,resnet18:fp32:64,vgg16:fp32:64,"
                 "inception_v3:fp32:64,resnet50:fp16:64,vit_b_16:fp16:64,"
                 "convnext_tiny:fp16:64,vit_b_16:fp32:64,alexnet:fp32:64")


class Sampler:
    """nvidia-smi sampling FIELDS every 50 ms until stopped."""

    def __enter__(self):
        self.proc = subprocess.Popen(
            ["nvidia-smi", "--query-gpu=" + ",".join(FIELDS), "--format=csv,noheader,nounits",
             "-lms", "50"], stdout=subprocess.PIPE, text=True)
        return self

    def __exit__(self, *exc):
        self.proc.terminate()
        out, _ = self.proc.communicate()
        self.samples = []
        for line in out.splitlines():
            try:
                self.samples.append([float(v) for v in line.split(",")])
            except ValueError:
                pass

    def medians(self, skip):
        rows = self.samples[skip:] or self.samples
        return {f: statistics.median(r[i] for r in rows) for i, f in enumerate(FIELDS)} if rows else {}


def sustained(replay, seconds):
    """Replays back to back for `seconds`; ms per replay over the last half,
    and the sampler's medians over the same half."""
    torch.cuda.synchronize()
    t0 = time.time()
    n = 0
    while time.time() - t0 < 0.3:  # warm-up, and a rough count per second
        replay()
        n += 1
        torch.cuda.synchronize()
    per_s = max(1, int(n / 0.3))
    with Sampler() as sampler:
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        for _ in range(int(per_s * seconds / 2)):
            replay()
        torch.cuda.synchronize()
        start.record()
        count = int(per_s * seconds / 2)
        for _ in range(count):
            replay()
        end.record()
        torch.cuda.synchronize()
    ms = start.elapsed_time(end) / count
    return ms, sampler.medians(skip=len(sampler.samples) // 2)


def model_case(spec):
    case, net, x = case_of_spec(spec)
    return case, capture_graph(lambda: net(x))


def matmul_case(dtype):
    dt = torch.float16 if dtype == "fp16" else torch.float32
    a = torch.randn(8192, 8192, device=DEV, dtype=dt)
    b = torch.randn(8192, 8192, device=DEV, dtype=dt)
    torch.backends.cuda.matmul.allow_tf32 = True  # a TF32 load, unlike the reference's fp32 GEMMs
    g = capture_graph(lambda: a @ b)
    torch.backends.cuda.matmul.allow_tf32 = False
    return dict(model="matmul_8192", dtype=dtype, batch=1), g


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--cases", default=DEFAULT_CASES)
    ap.add_argument("--seconds", type=float, default=4.0)
    args = ap.parse_args()
    set_reference_math()
    with open(args.out, "w") as out:
        out.write(json.dumps(environment()) + "\n")
        makers = [lambda s=s: model_case(s) for s in args.cases.split(",")]
        makers += [lambda: matmul_case("fp32"), lambda: matmul_case("fp16")]
        for make in makers:
            case, g = make()
            ms, med = sustained(g.replay, args.seconds)
            rec = dict(case, mode="clock_load", ms=ms, **{k.replace(".", "_"): v for k, v in med.items()})
            out.write(json.dumps(rec) + "\n")
            out.flush()
            print(json.dumps(rec), flush=True)
            del g
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
