#!/usr/bin/env python3
"""Row kernels (softmax, layer norm) on scaled GPUs, on NeuSight's kernel tables only: would a
bandwidth factor for row kernels (their achieved bandwidth relative to the GPU's measured one, as a
multiple of the H100's) generalise? Not used by dlsim: an analysis (docs/accuracy-generations.md).

dlsim prices the tables' softmax and layer-norm kernels (>= 64 MB) on the H100 and on each scaled
GPU (kernel_check.py's graphs). The script then re-prices the scaled GPUs the way ScaleCost does
(src/cost/roofline.cc: the H100's time, its explained part scaled by the bound term of issue time,
from calibration/warm-l2/h100-issue.csv, and memory time overlapping with p = 3), first exactly as
dlsim does (a check: it must reproduce dlsim's own scaled times), then with the target's memory
bandwidth for these kernels times a factor f, and reports held-out figures:

  - per GPU, f fitted on NeuSight's train tables and checked on its test tables (the A100 80 GB and
    the L4 have test tables only: their shapes are split in two halves by a seeded shuffle);
  - leave one GPU out: f from a rule fitted on the other six GPUs (one constant; by memory type;
    pre-Ada only), checked on the GPU left out.

  python3 bench/generations/row_kernels.py      # needs build/dlsim
"""
import argparse, csv, gzip, json, math, os, random, statistics as st, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from evaluate import ROOT, machine_copy  # noqa: E402
from kernel_check import build  # noqa: E402

GPUS = ["a100-pcie-80gb", "a100-pcie-40gb", "v100-pcie-32gb", "p100-pcie-16gb", "l4", "t4", "p4"]
HBM = {"a100-pcie-80gb", "a100-pcie-40gb", "v100-pcie-32gb", "p100-pcie-16gb"}
PRE_ADA = {"a100-pcie-80gb", "a100-pcie-40gb", "v100-pcie-32gb", "p100-pcie-16gb", "t4", "p4"}
OPS = {"ln": "layernorm_fwd", "softmax": "softmax_fwd"}
P = 3.0           # kIssueMemoryOverlapP (include/dlsim/cost/roofline.h)
MEM_EFF = 0.9     # RooflineParams::memory_efficiency
FLOOR_S = 1.5e-6  # RooflineParams::kernel_floor_s


def device(gpu):
    import yaml
    d = yaml.safe_load(open(os.path.join(ROOT, "machines", gpu + ".yaml")))["device"]
    return dict(sms=d["sm_count"], clock=d.get("sustained_clock_mhz", d["boost_clock_mhz"]),
                bw=d.get("measured_memory_bw_gbs", d["memory_bw_gbs"]) * 1e9)


def issue_table():
    t = {}
    with open(os.path.join(ROOT, "calibration", "warm-l2", "h100-issue.csv")) as f:
        for r in csv.DictReader(l for l in f if not l.startswith("#")):
            if r["dtype"] == "fp32" and r["kind"] in OPS.values():
                t.setdefault(r["kind"], {})[int(r["cols"])] = float(r["issue_ps_per_elem"])
    return t


def interp_log(pts, x):
    xs = sorted(pts)
    if x <= xs[0]:
        return pts[xs[0]]
    if x >= xs[-1]:
        return pts[xs[-1]]
    for lo, hi in zip(xs, xs[1:]):
        if lo <= x <= hi:
            return pts[lo] + math.log(x / lo) / math.log(hi / lo) * (pts[hi] - pts[lo])


def load():
    """[(op, (b, h), gpu, table part, measured s)] for fp32 softmax / layer norm moving >= 64 MB."""
    meas = {}
    with gzip.open(os.path.join(ROOT, "bench", "generations", "data", "kernels_neusight.csv.gz"), "rt") as f:
        for r in csv.DictReader(f):
            if r["op"] in OPS and 8 * int(r["b"]) * int(r["h"]) >= 64e6:
                k = (r["op"], (int(r["b"]), int(r["h"])), r["gpu"])
                meas.setdefault(k, ([], set()))[0].append(float(r["latency_ms"]) * 1e-3)
                meas[k][1].add(r["table"].split("/")[0])
    return meas


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dlsim", default=os.path.join(ROOT, "build", "dlsim"))
    args = ap.parse_args()
    meas = load()
    dev = {g: device(g) for g in GPUS + ["h100"]}
    issue = issue_table()
    tmp = tempfile.mkdtemp(prefix="dlsim-rows-")
    times = {}  # (op, key, gpu) -> dlsim seconds
    for op in OPS:
        keys = sorted({k for (o, k, g) in meas if o == op})
        path = os.path.join(tmp, op + ".onnx")
        build(op, keys, path)
        for gpu in ["h100"] + GPUS:
            r = subprocess.run(["nice", "-n", "10", args.dlsim, "estimate", path, "--machine", machine_copy(gpu, tmp, False),
                                "--format", "json", "--batch", "1"], capture_output=True, text=True, check=True)
            t = {l["name"]: l["time_ms"] * 1e-3 for l in json.loads(r.stdout)["layers"]}
            for i, k in enumerate(keys):
                if f"{op}_{i}" in t:
                    times[(op, k, gpu)] = t[f"{op}_{i}"]

    def scaled(op, key, gpu, f):
        b, h = key
        t_ref = times[(op, key, "h100")]
        nbytes, iss = 8.0 * b * h, b * h * interp_log(issue[OPS[op]], h) * 1e-12
        ratio = dev["h100"]["sms"] * dev["h100"]["clock"] / (dev[gpu]["sms"] * dev[gpu]["clock"])
        bound = lambda c, m: (c ** P + m ** P) ** (1 / P)
        rb = bound(iss, nbytes / (dev["h100"]["bw"] * MEM_EFF))
        tb = bound(iss * ratio, nbytes / (dev[gpu]["bw"] * MEM_EFF * f))
        explained = min(max(t_ref - FLOOR_S, 0.0), rb)
        return t_ref - explained + explained * tb / rb

    rows = [(op, key, gpu, parts, st.median(ts)) for (op, key, gpu), (ts, parts) in meas.items()
            if gpu in GPUS and (op, key, gpu) in times and (op, key, "h100") in times]
    worst = max(abs(scaled(op, k, g, 1.0) / times[(op, k, g)] - 1) for op, k, g, _, _ in rows)
    print(f"check: the re-pricing reproduces dlsim's scaled times within {100 * worst:.4f} % ({len(rows)} kernels)")

    def ratios(sel, f):
        return [scaled(op, k, g, f) / m for op, k, g, parts, m in rows if sel(op, k, g, parts)]

    def fit(sel):
        lo, hi = 0.1, 4.0
        for _ in range(60):
            f = math.sqrt(lo * hi)
            lo, hi = (f, hi) if st.median(ratios(sel, f)) > 1 else (lo, f)
        return f

    def mae(r):
        return 100 * st.median(abs(x - 1) for x in r)

    rnd = random.Random(1)
    half = {}
    for op, k, g, parts, m in sorted(rows):
        half[(op, k, g)] = rnd.random() < 0.5
    print("\nPer GPU: f fitted on the train side, checked on the test side (median dlsim/measured, median |error|)")
    print("| GPU | kernels fitted / checked | f | checked, f = 1 (as dlsim) | checked, with f | f on all |")
    print("|---|---|---|---|---|---|")
    before, after = [], []
    for gpu in GPUS:
        only_test = not any("train" in parts for op, k, g, parts, m in rows if g == gpu)
        side = (lambda op, k, g, parts, want: half[(op, k, g)] == (want == "train")) if only_test else \
               (lambda op, k, g, parts, want: want in parts)
        tr = lambda op, k, g, parts, gpu=gpu, side=side: g == gpu and side(op, k, g, parts, "train")
        te = lambda op, k, g, parts, gpu=gpu, side=side: g == gpu and side(op, k, g, parts, "test")
        f = fit(tr)
        r1, rf = ratios(te, 1.0), ratios(te, f)
        before.append(mae(r1)); after.append(mae(rf))
        print(f"| {gpu}{' (halves)' if only_test else ''} | {len(ratios(tr, 1.0))} / {len(r1)} | {f:.3f} | "
              f"{st.median(r1):.2f} ({mae(r1):.1f} %) | {st.median(rf):.2f} ({mae(rf):.1f} %) | "
              f"{fit(lambda op, k, g, parts, gpu=gpu: g == gpu):.3f} |")
    print(f"median over GPUs of the checked |error|: {st.median(before):.1f} % as dlsim, {st.median(after):.1f} % with f")

    rules = {"as dlsim (f = 1)": lambda g: None,
             "one constant": lambda g: [x for x in GPUS if x != g],
             "by memory type (HBM, GDDR)": lambda g: [x for x in GPUS if x != g and (x in HBM) == (g in HBM)],
             "pre-Ada constant, Ada 1": lambda g: [x for x in PRE_ADA if x != g] if g in PRE_ADA else None}
    print("\nLeave one GPU out: f from the rule fitted on the other GPUs (median dlsim/measured, median |error|)")
    print("| rule | " + " | ".join(GPUS) + " | median |error| over GPUs |")
    print("|---|" + "---|" * (len(GPUS) + 1))
    for name, train in rules.items():
        cells, errs = [], []
        for gpu in GPUS:
            others = train(gpu)
            f = fit(lambda op, k, g, parts, others=others: g in others) if others else 1.0
            r = ratios(lambda op, k, g, parts, gpu=gpu: g == gpu, f)
            cells.append(f"{st.median(r):.2f} ({mae(r):.0f} %)")
            errs.append(mae(r))
        print(f"| {name} | " + " | ".join(cells) + f" | {st.median(errs):.1f} % |")


if __name__ == "__main__":
    main()
