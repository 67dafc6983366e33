#!/usr/bin/env python3
"""Issue cost per element of PyTorch's pointwise and row kernels, from the
warm-L2 timings of calibrate/torch_warm_l2.py, as the CSV a machine file names
under calibration.issue_costs (docs/cost-model.md, "Issue time").

The cost is the slope of warm time over elements (the median of the slopes
between every pair of sizes, over every pass given): the time the kernel takes
per element when no byte comes from device memory, free of its fixed start.

With --db (the same GPU's calibration database) it also prints, for each
overlap exponent p, how well max-free overlap (issue^p + memory^p)^(1/p)
describes that GPU's cold times of the same kernels at 64 MB and more: the
spread (median absolute deviation of log time) after one common scale. The
exponent in src/cost/roofline.cc was chosen by this on the H100 alone.

Usage: fit_issue_costs.py PASS.jsonl [PASS.jsonl ...] --out FILE.csv
                          [--db calibration/h100.sqlite --bandwidth-gbs 3000]
"""
import argparse
import collections
import json
import math
import re
import sqlite3
import statistics

ROW_KINDS = ("layernorm_fwd", "softmax_fwd")


def group_of(key):
    """(kind, op, arity, cols, dtype) of a warm-L2 key, None for other kinds."""
    kind = key.split()[0]
    if kind == "elementwise":
        m = re.search(r"op=(\w+) elems=\d+ arity=(\d+) dtype=(\w+)", key)
        return (kind, m.group(1), int(m.group(2)), 0, m.group(3))
    if kind in ROW_KINDS:
        m = re.search(r"cols=(\d+) dtype=(\w+)", key)
        return (kind, "-", 0, int(m.group(1)), m.group(2))
    return None


def load_points(paths):
    points = collections.defaultdict(list)
    header = None
    for path in paths:
        with open(path) as f:
            for n, line in enumerate(f):
                rec = json.loads(line)
                if n == 0:
                    header = header or rec
                    continue
                g = group_of(rec["key"])
                if g and "warm_ms" in rec and rec["elems"]:
                    points[g].append((rec["elems"], rec["warm_ms"] * 1e9))  # ps
    return header, points


def median_slope(points):
    slopes = [(y2 - y1) / (x2 - x1) for i, (x1, y1) in enumerate(points)
              for (x2, y2) in points[i + 1:] if x2 != x1]
    return max(0.0, statistics.median(slopes)) if slopes else None


def fit(points):
    return {g: median_slope(v) for g, v in sorted(points.items()) if median_slope(v) is not None}


def write_csv(path, costs, header, sources):
    with open(path, "w") as f:
        f.write(f"# issue cost per element, warm in L2: {header.get('gpu_name')}, "
                f"PyTorch {header.get('torch')}, CUDA {header.get('cuda')}\n")
        f.write(f"# fitted by tools/fit_issue_costs.py from {', '.join(sources)}\n")
        f.write("kind,op,arity,cols,dtype,issue_ps_per_elem\n")
        for (kind, op, arity, cols, dtype), ps in costs.items():
            f.write(f"{kind},{op},{arity},{cols},{dtype},{ps:.4f}\n")


def cold_cases(db_path, costs):
    """(issue s, bytes, measured s) of every database key of 64 MB and more
    whose kernel has an issue cost."""
    db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    out = []
    for kind in ("elementwise",) + ROW_KINDS:
        for key, ms in db.execute("select key, median_ms from measurements "
                                  "where kind = ? and status = 'ok'", (kind,)):
            dtype = re.search(r"dtype=(\w+)", key).group(1)
            esz = 4 if dtype == "fp32" else 2
            if kind == "elementwise":
                m = re.search(r"op=(\w+) elems=(\d+) arity=(\d+)", key)
                g, elems, tensors = (kind, m.group(1), int(m.group(3)), 0, dtype), int(m.group(2)), int(m.group(3)) + 1
            else:
                m = re.search(r"rows=(\d+) cols=(\d+)", key)
                g, elems, tensors = (kind, "-", 0, int(m.group(2)), dtype), int(m.group(1)) * int(m.group(2)), 2
            if g in costs and elems * esz * tensors >= 64e6:
                out.append((costs[g] * elems * 1e-12, elems * esz * tensors, ms * 1e-3))
    return out


def report_overlap(cases, bandwidth, memory_efficiency=0.9):
    print(f"# {len(cases)} cold keys of 64 MB and more; memory time = bytes / "
          f"({bandwidth / 1e9:.0f} GB/s x {memory_efficiency})")
    for p in (1.5, 2, 2.5, 3, 4, 6, 8, 30):
        res = [math.log(t / ((c ** p + (b / (bandwidth * memory_efficiency)) ** p) ** (1 / p)))
               for c, b, t in cases]
        mid = statistics.median(res)
        mad = statistics.median(abs(r - mid) for r in res)
        print(f"p {p:4}: scale {math.exp(mid):.3f}, spread (MAD of log time) {mad:.4f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("passes", nargs="+")
    ap.add_argument("--out", required=True)
    ap.add_argument("--db")
    ap.add_argument("--bandwidth-gbs", type=float, default=3000)
    args = ap.parse_args()
    header, points = load_points(args.passes)
    costs = fit(points)
    write_csv(args.out, costs, header, args.passes)
    print(f"# {len(costs)} kernels written to {args.out}")
    if args.db:
        report_overlap(cold_cases(args.db, costs), args.bandwidth_gbs * 1e9)


if __name__ == "__main__":
    main()
