#!/usr/bin/env python3
"""Peak allocated memory of corpus models, and nothing else, on the GPU machine: the memory half of
measure.py (the same four cases: inference fp32 and fp16 under no_grad, a training step with SGD
and momentum in fp32 and under bf16 autocast; max_memory_allocated over three steps after two
warm-up steps, less what was allocated before the model was built).

measure.py's base is what the process had allocated before each case, so a library workspace that
is allocated once per process and kept (cuBLAS's and cuBLASLt's, 32 MiB each on Hopper) lands in the
first case that needs it and in none after. With --prewarm, fp32, fp16 and bf16 GEMMs with bias run
forward and backward (plain and under autocast) before any case, so that every case's peak leaves
those workspaces out alike; dlsim does not count them.

  measure_memory.py --out FILE [--prewarm] [--max-seconds S] NAME [NAME ...]
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
from measure import peak_bytes, sgd_step  # noqa: E402  (the reference runs' peak and step)
from rounds import set_reference_math  # noqa: E402

DEV = "cuda"


def prewarm():
    """Runs the GEMM paths that allocate the per-process library workspaces."""
    for dtype in (torch.float32, torch.float16, torch.bfloat16):
        lin = torch.nn.Linear(64, 64).to(DEV, dtype)
        x = torch.randn(8, 16, 64, device=DEV, dtype=dtype, requires_grad=True)
        lin(x).float().sum().backward()
        with torch.no_grad():
            lin(x)
            torch.bmm(x, x.transpose(1, 2))
    lin = torch.nn.Linear(64, 64).to(DEV)
    x = torch.randn(8, 16, 64, device=DEV, requires_grad=True)
    with torch.autocast("cuda", dtype=torch.bfloat16):
        y = lin(x) @ x.transpose(1, 2).to(torch.bfloat16)
    y.float().sum().backward()
    torch.cuda.synchronize()


def inference(name, dtype, batch, base):
    model = families.build(name).to(DEV).eval()
    if dtype == "fp16":
        model = model.half()
    x = families.make_input(name, batch, dtype)
    with torch.no_grad():
        return peak_bytes(lambda: model(x), base)


def training(name, dtype, batch, base):
    model = families.build(name).to(DEV).train()
    opt = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9)
    x = families.make_input(name, batch, "fp32")
    return peak_bytes(sgd_step(model, opt, x, dtype), base)


CASES = (("inference", "fp32", inference), ("inference", "fp16", inference),
         ("training", "fp32", training), ("training", "bf16_amp", training))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--prewarm", action="store_true")
    ap.add_argument("--max-seconds", type=float, default=1e9)
    ap.add_argument("names", nargs="+")
    args = ap.parse_args()
    start = time.time()
    set_reference_math()
    if args.prewarm:
        prewarm()
    with open(args.out, "a") as out:
        for i, name in enumerate(args.names):
            if time.time() - start > args.max_seconds:
                print(f"# out of time: {len(args.names) - i} models left", flush=True)
                break
            batch = corpus.spec(name)["batch"]
            for mode, dtype, fn in CASES:
                gc.collect()
                torch.cuda.empty_cache()
                base = torch.cuda.memory_allocated()
                rec = dict(model=name, mode=mode, dtype=dtype, batch=batch, prewarm=args.prewarm)
                try:
                    rec["peak_bytes"] = fn(name, dtype, batch, base)
                except Exception as e:  # noqa: BLE001 - record and go on
                    torch.cuda.synchronize()
                    rec["error"] = repr(e)[:300]
                out.write(json.dumps(rec) + "\n")
                out.flush()
            print(f"# {i + 1}/{len(args.names)} {name} {time.time() - start:.0f}s", flush=True)


if __name__ == "__main__":
    main()
