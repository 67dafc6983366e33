#!/usr/bin/env python3
"""How much of each measured parallel step is the host's (issue 27).

Reads a run of bench/parallel/run_megatron.sh at the suite's sequence length
and one of the same configs at a short sequence (`--seq 64`): the short run
keeps every operation, collective and Python call but leaves the GPUs almost
nothing to do, so its step is the host's time per step. Prints, per config,
the measured step, the host-only step, the time the host took to issue the
step (before torch.cuda.synchronize), and dlsim's step (`dlsim scale`, which
prices the GPUs and the network, not the host).

Usage: host_bound.py [--data DIR] [--host-only DIR] [--machine h200]
"""
import argparse
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import compare_measured  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=os.path.join(HERE, "data", "run4"))
    ap.add_argument("--host-only", default=os.path.join(HERE, "data", "run4-seq64"))
    ap.add_argument("--machine", default="h200")
    ap.add_argument("--dlsim", default=os.path.join(compare_measured.ROOT, "build", "dlsim"))
    args = ap.parse_args()
    full = {c["name"]: c for c in compare_measured.load_configs(args.data)}
    host = {c["name"]: c for c in compare_measured.load_configs(args.host_only)}
    print(f"{'configuration':22s} {'measured':>9s} {'host only':>9s} {'issued':>8s} {'dlsim':>8s}"
          f" {'error':>7s}  bound")
    bound = []
    for name, rec in full.items():
        if name not in host:
            continue
        est = compare_measured.estimate(args.dlsim, args.machine, rec)["step_s"] * 1e3
        m, h = rec["step_ms_median"], host[name]["step_ms_median"]
        issued = max(rec.get("issue_ms_median_per_rank", [float("nan")]))
        kind = "host" if h > est else "GPU"
        bound.append((kind, abs(est / m - 1)))
        print(f"{name:22s} {m:7.1f}ms {h:7.1f}ms {issued:6.1f}ms {est:6.1f}ms {100 * (est / m - 1):+6.1f}%"
              f"  {kind}")
    for kind in ("GPU", "host"):
        errs = [e for k, e in bound if k == kind]
        if errs:
            print(f"{kind}-bound (host-only step {'below' if kind == 'GPU' else 'above'} dlsim's): "
                  f"{len(errs)} configurations, median |error| {100 * statistics.median(errs):.1f} %, "
                  f"worst {100 * max(errs):.1f} %")


if __name__ == "__main__":
    main()
