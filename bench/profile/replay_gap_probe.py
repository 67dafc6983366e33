#!/usr/bin/env python3
"""Where a CUDA-graph replay's time goes beyond its kernels' durations.

A model's graph replay takes longer than the sum of its kernels (the device
waits between dependent kernels); the performance database times each key
as a replay of a few independent calls of it, which carries a gap of its
own. This probe measures both on the GPU, so that the gap dlsim adds per
kernel is a measured figure rather than a fitted one:

  * models (corpus calibration side, inference fp32 and fp16 at the spec's
    batch): the replay's time by CUDA events, and one replay under the
    profiler: its kernels' summed durations and the idle time between
    consecutive kernels; beside it the eager kernel sum, as the reference
    run takes it (bench/corpus/measure.py);
  * keys (a sample of calibration/jobs/corpus-cal.txt): the database's
    timing (calibrate/torch_calibrate.time_graph, inputs cold in L2) and a
    profiled replay of the same graph: per call its kernels' durations and
    the idle time between calls.

One JSON line per case or key to --out; --summary prints, from such a file
and without a GPU, the medians bench/profile/data/replay-gap/ is quoted by.

Usage: replay_gap_probe.py --out FILE [--models N] [--keys N] [--max-seconds S]
       replay_gap_probe.py --summary FILE
"""
import argparse
import json
import os
import random
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bench", "corpus"))
sys.path.insert(0, os.path.join(ROOT, "bench", "accuracy"))
sys.path.insert(0, os.path.join(ROOT, "calibrate"))


def device_kernels(prof):
    """(start_us, end_us) of the profiled kernels, in start order."""
    import torch
    ks = [e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA
          and "Memcpy" not in e.name and "Memset" not in e.name]
    spans = sorted((e.time_range.start, e.time_range.end) for e in ks)
    return spans


def replay_profile(replay, replays=3):
    """Per replay: kernels, summed kernel us, idle us between its kernels."""
    import torch
    from torch.profiler import profile, ProfilerActivity
    replay()
    torch.cuda.synchronize()
    out = []
    for _ in range(replays):
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            replay()
            torch.cuda.synchronize()
        spans = device_kernels(prof)
        busy = sum(e - s for s, e in spans)
        idle, reach = 0.0, None
        for s, e in spans:
            if reach is not None and s > reach:
                idle += s - reach
            reach = e if reach is None else max(reach, e)
        out.append(dict(kernels=len(spans), busy_us=busy, idle_us=idle))
    return min(out, key=lambda r: r["busy_us"] + r["idle_us"])


def model_case(name, dtype):
    import torch
    import corpus
    import families
    from reference_runs import capture_graph, kernel_profile, time_fn
    batch = corpus.spec(name)["batch"]
    model = families.build(name).to("cuda").eval()
    if dtype == "fp16":
        model = model.half()
    x = families.make_input(name, batch, dtype)
    fwd = lambda: model(x)  # noqa: E731
    rec = dict(what="model", model=name, dtype=dtype, batch=batch)
    with torch.no_grad():
        rec["eager_kernels"], rec["eager_kernel_sum_ms"], _ = kernel_profile(fwd, 2)
        g = capture_graph(fwd)
    rec["graph_ms"], _ = time_fn(g.replay, target_ms=40, loops=3)
    rec.update(replay_profile(g.replay))
    return rec


def key_case(key, reps):
    import torch_calibrate as tc
    built = tc.build(key)
    if built is None or len(built) > 3:
        return None  # not built, or timed as a difference from a baseline
    nbytes, make, fn = built[:3]
    inputs = [make() for _ in range(tc.cold_sets(nbytes))]
    rec = dict(what="key", key=key)
    rec["record_ms"] = statistics.median(tc.time_graph(fn, inputs, reps))
    g, rec["calls"] = tc.graph_of_calls(fn, inputs)  # the graph time_graph timed, profiled
    rec.update(replay_profile(g.replay))
    del g, inputs
    return rec


def summary(path):
    recs = [json.loads(line) for line in open(path)]
    keys = [r for r in recs if r["what"] == "key" and "error" not in r and r.get("kernels")]
    models = [r for r in recs if r["what"] == "model" and "error" not in r and r.get("kernels")]
    med = statistics.median
    print(f"{len(keys)} keys, {len(models)} model cases, {sum('error' in r for r in recs)} failed")
    print("keys: per kernel, the database's time less the kernels' durations: "
          f"{med((r['record_ms'] * 1000 - r['busy_us'] / r['calls']) * r['calls'] / r['kernels'] for r in keys):.2f} us"
          f"; idle between kernels in the profiled replay: {med(r['idle_us'] / r['kernels'] for r in keys):.2f} us"
          f"; database time / kernel durations: {med(r['record_ms'] * 1000 * r['calls'] / r['busy_us'] for r in keys):.3f}")
    for dtype in sorted({r["dtype"] for r in models}):
        v = [r for r in models if r["dtype"] == dtype]
        print(f"models {dtype} (n={len(v)}): per kernel, replay time less the kernels' durations "
              f"{med((r['graph_ms'] * 1000 - r['busy_us']) / r['kernels'] for r in v):.2f} us; "
              f"replay / eager kernel sum {med(r['graph_ms'] / r['eager_kernel_sum_ms'] for r in v):.3f}; "
              f"replayed kernels' durations / eager kernel sum "
              f"{med(r['busy_us'] / 1000 / r['eager_kernel_sum_ms'] for r in v):.3f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--summary", metavar="FILE", help="print the medians of a probe's output (no GPU)")
    ap.add_argument("--out")
    ap.add_argument("--models", type=int, default=50, help="calibration-side models to run (0: none)")
    ap.add_argument("--keys", type=int, default=300, help="calibration-side keys to sample (0: none)")
    ap.add_argument("--max-seconds", type=float, default=400)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    if args.summary:
        summary(args.summary)
        return
    if not args.out:
        ap.error("--out is required")
    import torch
    import corpus
    import torch_calibrate as tc
    from rounds import set_reference_math
    set_reference_math()
    tc.L2_BYTES = getattr(torch.cuda.get_device_properties(0), "L2_cache_size", 50 << 20)
    start = time.time()
    names = corpus.names("cal")[:args.models]
    keys = [k.strip() for k in open(os.path.join(ROOT, "calibration", "jobs", "corpus-cal.txt"))
            if k.strip() and not k.startswith("#")]
    keys = [k for k in keys if not k.startswith(("rnn", "attention_bwd", "conv_bwd"))]
    random.Random(args.seed).shuffle(keys)
    keys = keys[:args.keys]
    with open(args.out, "a") as out:
        jobs = [("key", k) for k in keys] + [("model", (n, d)) for n in names for d in ("fp32", "fp16")]
        for i, (what, job) in enumerate(jobs):
            if time.time() - start > args.max_seconds:
                print(f"# out of time after {i} of {len(jobs)}", flush=True)
                break
            try:
                rec = key_case(job, 20) if what == "key" else model_case(*job)
            except Exception as e:  # noqa: BLE001 - record and go on
                torch.cuda.synchronize()
                rec = dict(what=what, job=str(job), error=repr(e)[:300])
            if rec is not None:
                out.write(json.dumps(rec) + "\n")
                out.flush()
            if i % 50 == 0:
                print(f"# {i}/{len(jobs)} {time.time() - start:.0f}s", flush=True)
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
