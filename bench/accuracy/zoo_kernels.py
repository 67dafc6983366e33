#!/usr/bin/env python3
"""Every kernel of a zoo case's forward, in launch order, with its time.
Runs on the GPU machine.

For the H200/H100 ratio check: run on both GPUs, the two files set side by
side show which kernels gain from the H200's bandwidth and which do not, and
whether cudnn.benchmark chose other kernels on the other GPU. Each case is run
with the reference run's settings (cudnn.benchmark on, so a few warm-up
forwards first), then profiled over `--steps` forwards; a kernel's time is the
median over the steps at its position in the launch order.

Writes one JSON line per case: mode "kernels", kernels [[name, us], ...].

Usage: zoo_kernels.py --out FILE [--cases model:dtype:batch,...] [--steps N]
"""
import argparse
import json
import os
import statistics
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reference_runs import case_of_spec, environment, kernel_profile  # noqa: E402
from rounds import set_reference_math  # noqa: E402

DEFAULT_CASES = ("resnet50:fp32:64,resnet18:fp32:64,vgg16:fp32:64,inception_v3:fp32:64,"
                 "vit_b_16:fp16:64,convnext_tiny:fp16:64,shufflenet_v2_x1_0:fp32:64")


def kernels_of(fn, steps):
    for _ in range(4):  # cudnn.benchmark's searches; kernel_profile runs one more
        fn()
    _, _, prof = kernel_profile(fn, steps)
    events = [e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA
              and "Memcpy" not in e.name and "Memset" not in e.name]
    events.sort(key=lambda e: e.time_range.start)
    per_step = len(events) // steps
    rows = []
    for i in range(per_step):
        same = [events[s * per_step + i] for s in range(steps)]
        rows.append([same[0].name[:160], statistics.median(e.device_time for e in same)])
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--cases", default=DEFAULT_CASES)
    ap.add_argument("--steps", type=int, default=5)
    args = ap.parse_args()
    set_reference_math()
    with open(args.out, "w") as out:
        out.write(json.dumps(environment()) + "\n")
        for spec in args.cases.split(","):
            case, net, x = case_of_spec(spec)
            with torch.no_grad():
                rows = kernels_of(lambda: net(x), args.steps)
            rec = dict(case, mode="kernels", kernel_sum_us=sum(r[1] for r in rows), kernels=rows)
            out.write(json.dumps(rec) + "\n")
            out.flush()
            print(f"# {spec}: {len(rows)} kernels, {rec['kernel_sum_us'] / 1000:.3f} ms", flush=True)
            del net
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
