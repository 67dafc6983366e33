#!/usr/bin/env python3
"""The largest batch that fits, measured by bisection on the GPU machine.

For each corpus model and mode (an fp32 SGD-with-momentum training step, or
fp32 inference under no_grad), it doubles the batch from the spec's until a
step runs out of memory, then bisects between the last batch that ran and
the first that did not. A batch "fits" when two steps run; the peak
allocated memory of the largest fitting batch is recorded with it. One
JSON line per (model, mode) to --out.

With --hints FILE (JSON: name -> batch, e.g. dlsim's predicted largest
batch), the search starts at the hint instead and steps by 1.25x up or down
until a batch runs and the next does not, then bisects as above: fewer steps
on the GPU, the same measured answer. A step that fails with another error
than running out of memory (a kernel's index limit at a huge batch) is
recorded as `error` and ends that model's search.

Usage: max_batch.py --out FILE [--mode training|inference] [--limit N] [--hints FILE] NAME [NAME ...]
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
from rounds import set_reference_math  # noqa: E402

DEV = "cuda"


class StepError(Exception):
    pass


def runs(name, batch, mode):
    """(True, peak bytes) when two steps at BATCH run; (False, 0) on OOM."""
    gc.collect()
    torch.cuda.empty_cache()
    base = torch.cuda.memory_allocated()
    model = opt = x = None
    try:
        model = families.build(name).to(DEV)
        x = families.make_input(name, batch)
        torch.cuda.reset_peak_memory_stats()
        if mode == "training":
            model.train()
            opt = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9)
            for _ in range(2):
                opt.zero_grad(set_to_none=True)
                y = model(x)
                (y[0] if isinstance(y, tuple) else y).float().mean().backward()
                opt.step()
        else:
            model.eval()
            with torch.no_grad():
                for _ in range(2):
                    model(x)
        torch.cuda.synchronize()
        return True, torch.cuda.max_memory_allocated() - base
    except torch.cuda.OutOfMemoryError:
        return False, 0
    except RuntimeError as e:  # not memory: an index limit, an unsupported size
        if "out of memory" in str(e).lower():
            return False, 0
        raise StepError(repr(e)[:200])
    finally:
        del model, opt, x
        gc.collect()
        torch.cuda.empty_cache()


def bracket_from_hint(name, mode, hint, limit, deadline):
    """(lo, lo_peak, hi) with lo running and hi not (hi None: limit or time)."""
    ok, peak = runs(name, hint, mode)
    if ok:
        lo, lo_peak, b = hint, peak, max(hint + 1, int(hint * 1.25))
        while b <= limit and time.time() < deadline:
            ok, peak = runs(name, b, mode)
            if not ok:
                return lo, lo_peak, b
            lo, lo_peak, b = b, peak, max(b + 1, int(b * 1.25))
        return lo, lo_peak, None
    hi, b = hint, int(hint / 1.25)
    while b >= 1 and time.time() < deadline:
        ok, peak = runs(name, b, mode)
        if ok:
            return b, peak, hi
        hi, b = b, int(b / 1.25)
    return 0, 0, hi


def largest_batch(name, mode, limit, deadline, hint=None):
    try:
        return search(name, mode, limit, deadline, hint)
    except StepError as e:
        return dict(error=str(e))


def search(name, mode, limit, deadline, hint):
    lo, lo_peak = 0, 0
    hi = None
    b = corpus.spec(name)["batch"]
    if hint:
        lo, lo_peak, hi = bracket_from_hint(name, mode, min(hint, limit), limit, deadline)
        if hi is None:  # the limit (capped), or the time (timed out), ran out
            b = limit + 1 if time.time() < deadline else lo
    while hi is None and b <= limit and time.time() < deadline:
        ok, peak = runs(name, b, mode)
        if ok:
            lo, lo_peak, b = b, peak, b * 2
        else:
            hi = b
    if hi is None:  # no OOM: the limit, or the time, ran out first
        return dict(largest_batch=lo, peak_bytes=lo_peak, capped=b > limit, timed_out=b <= limit)
    while hi - lo > max(1, lo // 16):
        mid = (lo + hi) // 2
        ok, peak = runs(name, mid, mode)
        if ok:
            lo, lo_peak = mid, peak
        else:
            hi = mid
    return dict(largest_batch=lo, first_oom_batch=hi, peak_bytes=lo_peak)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--mode", choices=["training", "inference"], default="training")
    ap.add_argument("--limit", type=int, default=1 << 16, help="stop doubling past this batch")
    ap.add_argument("--max-seconds", type=float, default=1e9)
    ap.add_argument("--hints", default="", help="JSON file: model name -> batch to start the search at")
    ap.add_argument("names", nargs="+")
    args = ap.parse_args()
    set_reference_math()
    deadline = time.time() + args.max_seconds
    hints = json.load(open(args.hints)) if args.hints else {}
    p = torch.cuda.get_device_properties(0)
    with open(args.out, "a") as out:
        for name in args.names:
            if time.time() >= deadline:
                print(f"# out of time: {name} and the rest not measured", flush=True)
                break
            t0 = time.time()
            rec = dict(model=name, mode=args.mode, dtype="fp32", gpu=p.name, mem_bytes=p.total_memory)
            hint = hints.get(name)
            if hint:
                rec["hint"] = hint
            rec.update(largest_batch(name, args.mode, args.limit, deadline, hint))
            rec["seconds"] = round(time.time() - t0, 1)
            out.write(json.dumps(rec) + "\n")
            out.flush()
            print(json.dumps(rec), flush=True)


if __name__ == "__main__":
    main()
