#!/usr/bin/env python3
"""The kernels of a CUDA-graph replay, one by one, for corpus inference cases.

measure.py times a graph replay as a whole; its kernel list comes from an
eager run. This script profiles the replay itself: for each case it captures
the forward in a CUDA graph (as measure.py does), times the replay, then
records two profiled replays and writes, per kernel in launch order, its
duration and the idle time before it (its start minus the previous kernel's
end). That is what a graph replay costs beyond its kernel sum, kernel by
kernel, which is what dlsim's graph-replay GPU time has to model.

One JSON line per case: model, dtype, batch, graph_ms (unprofiled),
replay_span_us and kernels: [[short name, grid blocks, dur_us, gap_us], ...]
of the second profiled replay.

Usage: graph_gaps.py --out FILE [--dtypes fp32,fp16] [--max-seconds S] NAME [NAME ...]
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
from reference_runs import capture_graph, environment, time_fn  # noqa: E402
from rounds import set_reference_math  # noqa: E402

DEV = "cuda"


def replay_kernels(graph):
    """[(name, grid blocks, start us, dur us)] of each of two profiled replays."""
    from torch.profiler import profile, ProfilerActivity
    graph.replay()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(2):
            graph.replay()
            torch.cuda.synchronize()
    raw = f"/tmp/graph_gaps_{os.getpid()}.json"
    prof.export_chrome_trace(raw)
    with open(raw) as f:
        events = json.load(f).get("traceEvents", [])
    os.remove(raw)
    ks = sorted((e for e in events if e.get("cat") == "kernel" and "dur" in e), key=lambda e: e["ts"])
    out = []
    for e in ks:
        grid = e.get("args", {}).get("grid", [1, 1, 1])
        blocks = grid[0] * grid[1] * grid[2] if isinstance(grid, list) else 0
        out.append((e["name"][:80], blocks, e["ts"], e["dur"]))
    half = len(out) // 2
    return out[:half], out[half:]


def case(name, dtype, batch):
    model = families.build(name).to(DEV).eval()
    if dtype == "fp16":
        model = model.half()
    x = families.make_input(name, batch, dtype)
    g = capture_graph(lambda: model(x))
    rec = dict(model=name, dtype=dtype, batch=batch)
    rec["graph_ms"], _ = time_fn(g.replay, target_ms=40, loops=3)
    first, second = replay_kernels(g)
    rows, prev_end = [], None
    for n, blocks, ts, dur in second:
        gap = 0.0 if prev_end is None else ts - prev_end
        rows.append([n, blocks, round(dur, 3), round(gap, 3)])
        prev_end = ts + dur
    rec["replay_span_us"] = round(second[-1][2] + second[-1][3] - second[0][2], 3) if second else 0.0
    rec["kernels"] = rows
    del g
    return rec


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--dtypes", default="fp32,fp16")
    ap.add_argument("--max-seconds", type=float, default=1e9)
    ap.add_argument("names", nargs="+")
    args = ap.parse_args()
    start = time.time()
    set_reference_math()
    with open(args.out, "a") as out:
        out.write(json.dumps(environment()) + "\n")
        for i, name in enumerate(args.names):
            if time.time() - start > args.max_seconds:
                print(f"# out of time: {len(args.names) - i} models left", flush=True)
                break
            batch = corpus.spec(name)["batch"]
            for dtype in args.dtypes.split(","):
                gc.collect()
                torch.cuda.empty_cache()
                try:
                    with torch.no_grad():
                        rec = case(name, dtype, batch)
                except Exception as e:  # noqa: BLE001 - record and go on
                    torch.cuda.synchronize()
                    rec = dict(model=name, dtype=dtype, batch=batch, error=repr(e)[:300])
                out.write(json.dumps(rec) + "\n")
                out.flush()
            print(f"# {i + 1}/{len(args.names)} {name}", flush=True)


if __name__ == "__main__":
    main()
