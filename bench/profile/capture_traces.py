#!/usr/bin/env python3
"""Profiler traces for `dlsim compare`. Runs on the GPU machine.

For each model (bench/accuracy/zoo.py names) it runs `--iters` inference
passes (eval, no_grad, cudnn.benchmark on, warmed up) and, with --train, SGD
momentum training steps, under torch.profiler with CPU and CUDA activities,
and writes a Chrome trace per run. To keep the files small it drops the
events `dlsim compare` does not read (Python frames, flow arrows, memory
instants): only kernels, memcpy/memset, CUDA runtime/driver calls and
cpu_op events stay.

Usage: capture_traces.py --out DIR --models a,b [--batch 16] [--dtype fp32]
       [--iters 3] [--train]
"""
import argparse
import json
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "accuracy"))
from reference_runs import build, make_input, make_train_step  # noqa: E402

KEEP = {"kernel", "gpu_memcpy", "gpu_memset", "cuda_runtime", "cuda_driver", "cpu_op"}


def trim(path):
    with open(path) as f:
        doc = json.load(f)
    doc["traceEvents"] = [e for e in doc["traceEvents"] if e.get("cat") in KEEP]
    with open(path, "w") as f:
        json.dump(doc, f, separators=(",", ":"))
    return os.path.getsize(path)


def profile_to(path, fn, iters):
    from torch.profiler import profile, ProfilerActivity
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _ in range(iters):
            fn()
        torch.cuda.synchronize()
    prof.export_chrome_trace(path)
    return trim(path)


def inference(name, batch, dtype, iters, out):
    model = build(name).to("cuda").eval()
    if dtype == "fp16":
        model = model.half()
    x = make_input(name, batch, dtype)

    def run():
        with torch.no_grad():
            model(x)

    path = os.path.join(out, f"{name}_b{batch}_{dtype}.trace.json")
    return path, profile_to(path, run, iters)


def training(name, batch, iters, out):
    step = make_train_step(name, batch)
    path = os.path.join(out, f"{name}_b{batch}_fp32_train.trace.json")
    return path, profile_to(path, step, iters)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--models", required=True)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--dtype", default="fp32")
    ap.add_argument("--iters", type=int, default=3)
    ap.add_argument("--train", default="", help="models to also trace a training step of")
    args = ap.parse_args()
    torch.backends.cudnn.benchmark = True
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = True
    os.makedirs(args.out, exist_ok=True)
    for name in args.models.split(","):
        try:
            path, size = inference(name, args.batch, args.dtype, args.iters, args.out)
            print(f"{path} {size} bytes", flush=True)
        except Exception as e:  # noqa: BLE001 - report and go on
            print(f"# {name}: {e!r}"[:300], flush=True)
        torch.cuda.empty_cache()
    for name in filter(None, args.train.split(",")):
        try:
            path, size = training(name, 32, 2, args.out)
            print(f"{path} {size} bytes", flush=True)
        except Exception as e:  # noqa: BLE001
            print(f"# {name} training: {e!r}"[:300], flush=True)
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
