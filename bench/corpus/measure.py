#!/usr/bin/env python3
"""Reference runs of corpus models on the GPU machine (../../docs/accuracy.md).

For each model, at the batch its spec draws:
  * inference in fp32 and fp16: CUDA-graph replay time, eager time, the
    profiler's kernel count and kernel sum, the peak allocated memory;
  * a training step (SGD with momentum; fp32, and bf16 autocast): eager step
    time, the profiler's kernel count and sum, the steady-state peak memory
    (max_memory_allocated over three steps after two warm-up steps).
Graph replay can be far slower than the kernel sum (some Hugging Face
encoders under capture): both are kept, and gpu_method says which one the
GPU time is.

Every case's kernels (two iterations, CUDA activity only) go to a compact
Chrome trace TRACES/<model>_<mode>_<dtype>.trace.json that `dlsim compare`
reads. One JSON line per case goes to --out; a case that fails is recorded
with its error and the run goes on.

Usage: measure.py --out FILE --traces DIR [--max-seconds S] NAME [NAME ...]
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
from reference_runs import capture_graph, environment, kernel_profile, time_fn  # noqa: E402
from rounds import set_reference_math  # noqa: E402

DEV = "cuda"


def compact_trace(prof, path):
    """Only the device events of PROF, in Chrome-trace form, to PATH."""
    raw = path + ".raw"
    prof.export_chrome_trace(raw)
    with open(raw) as f:
        events = json.load(f).get("traceEvents", [])
    os.remove(raw)
    keep = [dict(ph="X", cat=e["cat"], name=e["name"], ts=e["ts"], dur=e["dur"], pid=0, tid=0)
            for e in events if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset") and "dur" in e]
    with open(path, "w") as f:
        json.dump({"traceEvents": keep}, f, separators=(",", ":"))
    kernels = [e for e in keep if e["cat"] == "kernel"]
    return len(kernels), sum(e["dur"] for e in kernels) / 1000.0


def profile_steps(fn, path, steps=2):
    """(kernels per step, kernel ms per step), writing the compact trace."""
    _, _, prof = kernel_profile(fn, steps)
    n, ms = compact_trace(prof, path)
    return n / steps, ms / steps


def peak_bytes(fn, base, warmup=2, steps=3):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    for _ in range(steps):
        fn()
    torch.cuda.synchronize()
    return torch.cuda.max_memory_allocated() - base


def attn_impl(model):
    cfg = getattr(getattr(model, "model", None), "config", None)
    return getattr(cfg, "_attn_implementation", None) if cfg is not None else None


def inference(name, dtype, batch, base, traces):
    model = families.build(name).to(DEV).eval()
    if dtype == "fp16":
        model = model.half()
    x = families.make_input(name, batch, dtype)
    weights = torch.cuda.memory_allocated() - base
    fwd = lambda: model(x)  # noqa: E731
    rec = dict(mode="inference", dtype=dtype, batch=batch, weights_bytes=weights, attn=attn_impl(model))
    with torch.no_grad():
        rec["peak_bytes"] = peak_bytes(fwd, base)
        rec["eager_ms"], _ = time_fn(fwd, target_ms=40, loops=3)
        rec["kernels"], rec["kernel_sum_ms"] = profile_steps(
            fwd, os.path.join(traces, f"{name}_inference_{dtype}.trace.json"))
    try:
        rec["graph_ms"], _ = time_fn(capture_graph(fwd).replay, target_ms=40, loops=3)
    except Exception as e:  # noqa: BLE001 - some models cannot be captured
        torch.cuda.synchronize()
        rec["graph_error"] = repr(e)[:200]
    rec["gpu_ms"], rec["gpu_method"] = corpus.gpu_time(rec)
    return rec


def sgd_step(model, opt, x, dtype):
    """The reference training step: SGD with momentum, fp32 or under bf16 autocast (bf16_amp)."""
    def step():
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.bfloat16, enabled=dtype == "bf16_amp"):
            y = model(x)
        if isinstance(y, tuple):
            y = y[0]
        y.float().mean().backward()
        opt.step()
    return step


def training(name, dtype, batch, base, traces):
    model = families.build(name).to(DEV).train()
    opt = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9)
    x = families.make_input(name, batch, "fp32")
    weights = torch.cuda.memory_allocated() - base
    step = sgd_step(model, opt, x, dtype)
    rec = dict(mode="training", dtype=dtype, batch=batch, optimizer="sgd_momentum", weights_bytes=weights,
               attn=attn_impl(model))
    rec["peak_bytes"] = peak_bytes(step, base)
    rec["eager_ms"], _ = time_fn(step, target_ms=80, loops=3)
    rec["kernels"], rec["kernel_sum_ms"] = profile_steps(
        step, os.path.join(traces, f"{name}_training_{dtype}.trace.json"))
    rec["gpu_ms"], rec["gpu_method"] = rec["kernel_sum_ms"], "kernel_sum"
    return rec


CASES = (("inference", "fp32", inference), ("inference", "fp16", inference),
         ("training", "fp32", training), ("training", "bf16_amp", training))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--traces", required=True)
    ap.add_argument("--max-seconds", type=float, default=1e9)
    ap.add_argument("names", nargs="+")
    args = ap.parse_args()
    start = time.time()
    set_reference_math()
    os.makedirs(args.traces, exist_ok=True)
    with open(args.out, "a") as out:
        def emit(rec):
            out.write(json.dumps(rec) + "\n")
            out.flush()
        emit(environment())
        for i, name in enumerate(args.names):
            if time.time() - start > args.max_seconds:
                print(f"# out of time: {len(args.names) - i} models left", flush=True)
                break
            t0 = time.time()
            batch = corpus.spec(name)["batch"]
            for mode, dtype, fn in CASES:
                gc.collect()
                torch.cuda.empty_cache()
                base = torch.cuda.memory_allocated()
                try:
                    rec = fn(name, dtype, batch, base, args.traces)
                except Exception as e:  # noqa: BLE001 - record and go on
                    torch.cuda.synchronize()
                    rec = dict(mode=mode, dtype=dtype, batch=batch, error=repr(e)[:400])
                rec["model"] = name
                emit(rec)
            print(f"# {i + 1}/{len(args.names)} {name} {time.time() - t0:.1f}s", flush=True)


if __name__ == "__main__":
    main()
