#!/usr/bin/env python3
"""Which PyTorch operation launched each kernel of a corpus case (GPU machine).

The reference traces (measure.py) keep the kernels only. This profiles one
case's step again with the CPU side recorded and names, for every kernel, the
innermost aten operations around its launch, so that a kernel the lowering
does not expect can be traced to the PyTorch call that made it.

Writes one JSON line per case: model, mode, dtype and `kernels`, a list of
{op, kernel, count, us} per step (op: the aten ops around the launch, outermost
first, the two outermost and three innermost where there are more; kernel: the kernel's name cut to 90 characters), largest count first.

Usage: attribute.py --out FILE [--cases inference:fp32,training:bf16_amp] NAME ...
"""
import argparse
import collections
import json
import os
import sys
import tempfile

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import corpus  # noqa: E402
import families  # noqa: E402
import measure  # noqa: E402

DEV = "cuda"
STEPS = 2


def step_fn(name, mode, dtype):
    batch = corpus.spec(name)["batch"]
    if mode == "inference":
        model = families.build(name).to(DEV).eval()
        if dtype == "fp16":
            model = model.half()
        x = families.make_input(name, batch, dtype)

        def fwd():
            with torch.no_grad():
                model(x)
        return fwd
    model = families.build(name).to(DEV).train()
    opt = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9)
    return measure.sgd_step(model, opt, families.make_input(name, batch, "fp32"), dtype)


def launch_ops(trace):
    """{correlation id: innermost aten ops around the launch}."""
    ev = trace["traceEvents"]
    ops = collections.defaultdict(list)
    for e in ev:
        if e.get("cat") == "cpu_op" and "dur" in e:
            ops[e["tid"]].append(e)
    for v in ops.values():
        v.sort(key=lambda e: e["ts"])
    out = {}
    for e in ev:
        if e.get("cat") != "cuda_runtime" or "correlation" not in e.get("args", {}):
            continue
        stack = [o["name"] for o in ops[e["tid"]] if o["ts"] <= e["ts"] <= o["ts"] + o["dur"]]
        if len(stack) > 5:
            stack = stack[:2] + ["..."] + stack[-3:]
        out[e["args"]["correlation"]] = " > ".join(stack)
    return out


def attribute(name, mode, dtype):
    fn = step_fn(name, mode, dtype)
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    acts = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
    with torch.profiler.profile(activities=acts) as prof:
        for _ in range(STEPS):
            fn()
        torch.cuda.synchronize()
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        prof.export_chrome_trace(f.name)
        trace = json.load(open(f.name))
    ops = launch_ops(trace)
    agg = collections.defaultdict(lambda: [0, 0.0])
    for e in trace["traceEvents"]:
        if e.get("cat") != "kernel":
            continue
        op = ops.get(e.get("args", {}).get("correlation"), "?")
        a = agg[(op, e["name"][:90])]
        a[0] += 1
        a[1] += e["dur"]
    rows = [dict(op=op, kernel=k, count=c / STEPS, us=round(us / STEPS, 2)) for (op, k), (c, us) in agg.items()]
    rows.sort(key=lambda r: -r["count"])
    return dict(model=name, mode=mode, dtype=dtype, kernels=rows)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--cases", default="training:bf16_amp")
    ap.add_argument("names", nargs="+")
    args = ap.parse_args()
    measure.set_reference_math()
    with open(args.out, "a") as out:
        for name in args.names:
            for case in args.cases.split(","):
                mode, dtype = case.split(":")
                try:
                    rec = attribute(name, mode, dtype)
                except Exception as e:  # noqa: BLE001 - record and go on
                    rec = dict(model=name, mode=mode, dtype=dtype, error=repr(e)[:300])
                out.write(json.dumps(rec) + "\n")
                out.flush()
                print(f"# {name} {case}", flush=True)


if __name__ == "__main__":
    main()
