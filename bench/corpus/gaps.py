#!/usr/bin/env python3
"""Where the lowering and PyTorch part, summed over a side of the corpus.

Runs `dlsim compare` on every measured case of the side (TorchScript exports)
and sums its findings over the corpus by (mode, kind, kernel short name): the
kernels PyTorch ran that no dlsim call expects, and the calls no kernel ran.
The largest rows are the lowering's largest gaps. Use it on the calibration
side only: the test side is never looked at kernel by kernel.

With --by-kind it prints instead, per (dtype, family group, call kind), the
summed estimated and measured time of the calls compare aligned: which
kinds the prices run low or high on.

With --by-kind --share it prints, per (mode, dtype, call kind), the mean
over cases of (estimated - measured) / the case's kernel time: how much
each kind adds to a model's error, small models weighing as much as large
ones (the medians of evaluate.py are per model too); kernels no call
accounts for appear as the kind "(unaligned)".

Usage: gaps.py [--side cal] [--exporter ts] [--top 40] [--by-kind [--share]] [--mode inference|training]
               [--machine h100]
"""
import argparse
import collections
import json
import os
import re
import sys
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import corpus  # noqa: E402
import evaluate  # noqa: E402


def findings(dlsim, machine, key, rec, exporter):
    model, mode, dtype = key
    s = corpus.spec(model)
    trace = os.path.join(evaluate.CACHE, "traces", f"{model}_{mode}_{dtype}.trace.json")
    onnx_path = os.path.join(evaluate.CACHE, "onnx", f"{model}.{exporter}.onnx")
    if "error" in rec or not os.path.exists(trace) or not os.path.exists(onnx_path):
        return key, None
    shape = "x".join(str(d) for d in corpus.input_shape(s, rec["batch"]))
    cmd = [dlsim, "compare", onnx_path, "--profile", trace, "--machine", machine, "--input",
           f"{corpus.input_name(s)}:{shape}", "--format", "json"] + evaluate.CASE_ARGS[(mode, dtype)]
    j, _ = evaluate.run_json(cmd)
    return key, j


def group_of(family):
    if family in ("cnn2d", "cnn1d", "cnn3d", "encdec"):
        return "cnn"
    return family if family in ("mlp", "rnn") else "transformer"


def print_by_kind(results, top):
    agg = collections.defaultdict(lambda: [0.0, 0.0, 0])
    for (model, mode, dtype), j in results:
        if j is None:
            continue
        for layer in j["layers"]:
            for c in layer.get("calls", []):
                a = agg[(mode, dtype, group_of(corpus.family_of(model)), c["kind"])]
                a[0] += c["estimated_ms"]
                a[1] += c["measured_ms"]
                a[2] += 1
    rows = sorted(agg.items(), key=lambda kv: -kv[1][1])[:top]
    for (mode, dtype, group, kind), (est, meas, n) in rows:
        ratio = est / meas if meas else float("nan")
        print(f"{mode:9s} {dtype:8s} {group:11s} {kind:18s} n={n:5d} estimated {est:8.3f} ms "
              f"measured {meas:8.3f} ms  ratio {ratio:5.2f}")


def print_share(results, records, top):
    contrib = collections.defaultdict(lambda: collections.defaultdict(float))
    cases = collections.defaultdict(int)
    skipped = 0
    for key, j in results:
        if j is None or not j["kernel_time_ms"]:
            continue
        mode, dtype = key[1], key[2]
        total = j["kernel_time_ms"] / j["iterations"]  # per iteration, as the calls
        if abs(total / records[key]["kernel_sum_ms"] - 1) > 0.1:
            skipped += 1  # compare split the trace into other iterations than the run had
            continue
        cases[(mode, dtype)] += 1
        for layer in j["layers"]:
            for c in layer.get("calls", []):
                contrib[(mode, dtype)][c["kind"]] += (c["estimated_ms"] - c["measured_ms"]) / total
        contrib[(mode, dtype)]["(unaligned)"] -= 1.0 - j["aligned_share"]
    if skipped:
        print(f"# {skipped} cases left out: compare's iterations do not match the measured kernel sum")
    for (mode, dtype), kinds in sorted(contrib.items()):
        n = cases[(mode, dtype)]
        net = sum(kinds.values()) / n
        print(f"{mode} {dtype}: {n} cases, mean error of the aligned and unaligned time {100 * net:+.1f} %")
        for kind, v in sorted(kinds.items(), key=lambda kv: kv[1])[:top]:
            if abs(v / n) >= 0.001:
                print(f"  {kind:20s} {100 * v / n:+6.1f} %")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--side", default="cal", choices=["cal", "test", "all"])
    ap.add_argument("--exporter", default="ts", choices=evaluate.EXPORTERS)
    ap.add_argument("--dlsim", default=os.path.join(evaluate.ROOT, "build", "dlsim"))
    ap.add_argument("--machine", default="h100")
    ap.add_argument("--top", type=int, default=40)
    ap.add_argument("--by-kind", action="store_true", help="estimated against measured time per call kind")
    ap.add_argument("--share", action="store_true",
                    help="with --by-kind: each kind's mean share of a case's error")
    ap.add_argument("--mode", choices=["inference", "training"], help="only this mode's cases")
    args = ap.parse_args()
    evaluate.unpack()
    wanted = set(corpus.names(args.side))
    cases = {k: r for k, r in evaluate.measured_cases().items()
             if k[0] in wanted and (args.mode is None or k[1] == args.mode)}
    with ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        results = list(pool.map(lambda kr: findings(args.dlsim, args.machine, kr[0], kr[1], args.exporter),
                                sorted(cases.items())))
    if args.by_kind and args.share:
        print_share(results, cases, args.top)
        return
    if args.by_kind:
        print_by_kind(results, args.top)
        return
    total = collections.defaultdict(float)
    gap = collections.defaultdict(lambda: [0.0, 0, set()])
    for (model, mode, dtype), j in results:
        if j is None:
            continue
        total[mode] += j["kernel_time_ms"]
        for f in j["findings"]:
            if f["kind"] not in ("extra_kernels", "missing"):
                continue
            m = re.search(r"does not expect: (.*) \(\d+ layer", f["title"])
            name = m.group(1) if m else "(expected calls never ran)"
            n = re.match(r"(\d+)", f["title"])
            g = gap[(mode, f["kind"], name)]
            g[0] += f["time_ms"]
            g[1] += int(n.group(1)) if n else 0
            g[2].add(f"{corpus.family_of(model)}")
    rows = sorted(gap.items(), key=lambda kv: -kv[1][0])[:args.top]
    print(f"kernel time per iteration summed over the side: " +
          ", ".join(f"{m} {t:.1f} ms" for m, t in total.items()))
    for (mode, kind, name), (ms, n, fams) in rows:
        print(f"{mode:9s} {kind:13s} {ms:8.3f} ms {100 * ms / total[mode]:5.1f} % {n:5d}x  {name[:90]}  "
              f"[{','.join(sorted(fams))[:60]}]")


if __name__ == "__main__":
    main()
