#!/usr/bin/env python3
"""Fits, on NeuSight's per-kernel tables only (never on the end-to-end rows), how large FP32 GEMMs
move across GPUs: the FP32 GEMM share of SMs of 64 FP32 lanes and the sustained clock of GPUs held
back by their power limit (machine-format.md, "What a scaled GPU sustains").

Through dlsim: a sample of the H100 table's compute-bound GEMMs (linear and bmm, >= 10 GFLOP, every
dimension >= 256) is estimated on every GPU's machine file, as evaluate.py --before writes it, and
each GPU's FP32 GEMM rate per peak FLOP (relative to the H100's) is rescaled until dlsim's
predicted slowdown against the H100 equals the measured one, at the median over the shapes that
both tables hold (three fixed-point iterations). GPUs are
grouped by FP32 lanes per SM (64: Volta, Turing, GA100, GP100; 128: Hopper, Ada, GP104). The 128-lane
group's rate is the H100's; the 64-lane group's is the median of the group's upper half (the GPUs
not held back by power). A GPU more than 10 % below its group runs at a lower sustained clock:
boost x (its rate / its group's).

Also prints, for reference, the shape-matched ratios of the raw tables (each GPU's GEMM speed over
the H100's on the same shapes, over the FP32 peak ratio) and each GPU's achieved bandwidth (median
of fp32 add/mul kernels moving >= 200 MB, 12 bytes per element), which the machine files carry as
measured_memory_bw_gbs.

  python3 bench/generations/fit_kernels.py      # needs build/dlsim
"""
import argparse, csv, gzip, os, random, statistics as st, sys, tempfile
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

HERE = os.path.dirname(os.path.abspath(__file__))
MIN_GFLOP = 10.0
# Datasheet FP32 peak (TFLOPS), boost clock (MHz), FP32 lanes per SM, datasheet bandwidth (GB/s).
SPECS = {
    "h100": (66.9, 1980, 128, 3350), "a100-pcie-40gb": (19.5, 1410, 64, 1555),
    "a100-pcie-80gb": (19.5, 1410, 64, 1935), "v100-pcie-32gb": (14.0, 1380, 64, 900),
    "p100-pcie-16gb": (9.3, 1303, 64, 732), "t4": (8.1, 1590, 64, 320),
    "p4": (5.5, 1063, 128, 192), "l4": (30.3, 2040, 128, 300),
}
POWER_LIMIT_GAP = 0.10


def load():
    gemm, elem = defaultdict(dict), defaultdict(list)
    with gzip.open(os.path.join(HERE, "data", "kernels_neusight.csv.gz"), "rt") as f:
        for r in csv.DictReader(f):
            t = float(r["latency_ms"]) * 1e-3
            if r["op"] in ("linear", "bmm") and r["m"]:
                b, m, n, k = (int(float(r[x])) for x in "bmnk")
                if 2 * b * m * n * k >= MIN_GFLOP * 1e9:
                    gemm[r["gpu"]].setdefault((r["op"], b, m, n, k), []).append(t)
            elif r["op"] in ("add", "mul") and r["h"]:
                nbytes = 12 * int(r["b"]) * int(r["h"])
                if nbytes >= 200e6:
                    elem[r["gpu"]].append(nbytes / t / 1e9)
    return gemm, elem


def relative_shares(gemm):
    ref = gemm["h100"]
    out = {}
    for gpu, shapes in gemm.items():
        peak_ratio = SPECS[gpu][0] / SPECS["h100"][0]
        r = [st.median(ref[s]) / st.median(ts) / peak_ratio for s, ts in shapes.items() if s in ref]
        out[gpu] = (st.median(r), len(r))
    return out


def through_dlsim(dlsim, iterations=3):
    """Fits, through dlsim itself, each GPU's FP32 GEMM rate relative to the H100 so that dlsim's
    predicted slowdown against the H100 equals the measured one, shape by shape: for every GEMM of
    the sample that both tables hold, (dlsim's scaled time / the GPU's measured time) over (dlsim's
    H100 time / the H100's measured time), whose median the fit brings to 1. Pairing each shape with
    the H100's own measurement of it keeps dlsim's H100 error on that shape (for example its fp32
    bmm of head dimension 64) out of the GPU's rate. The sample: up to 300 linear and 300 bmm
    shapes of the H100's table of at least 10 GFLOP, every dimension at least 256."""
    from evaluate import machine_copy
    from kernel_check import load_shapes, ratios_by_key
    by = load_shapes()
    rnd = random.Random(1)
    sample = {}
    for op in ("linear", "bmm"):
        keys = sorted(k for k in by[op] if min(k[1:]) >= 256 and "h100" in by[op][k])
        sample[op] = rnd.sample(keys, min(300, len(keys)))
    tmp = tempfile.mkdtemp(prefix="dlsim-fit-")
    rate = {gpu: 1.0 for gpu in SPECS}  # relative to the H100's FP32 GEMM rate per peak FLOP
    for it in range(iterations):
        machines = {}
        for gpu in SPECS:
            path = machine_copy(gpu, tmp, before=True)
            if gpu != "h100":
                text = open(path).read().replace("fp32_gemm_share: 0.671", f"fp32_gemm_share: {0.671 * rate[gpu]:.6f}")
                path = path.replace(".yaml", f"-{it}.yaml")
                open(path, "w").write(text)
            machines[gpu] = path
        paired = defaultdict(list)
        for op in sample:
            r = ratios_by_key(dlsim, op, sample[op], by[op], machines, tmp)
            for gpu in SPECS:
                if gpu != "h100":
                    paired[gpu] += [r[gpu][k] / r["h100"][k] for k in r.get(gpu, {}) if k in r["h100"]]
        med = {gpu: st.median(p) for gpu, p in paired.items() if p}
        for gpu, m in med.items():
            rate[gpu] *= m
        print(f"iteration {it + 1}: predicted / measured slowdown " + ", ".join(f"{g} {m:.3f}" for g, m in med.items()), file=sys.stderr)
    return rate, {gpu: len(p) for gpu, p in paired.items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dlsim", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "build", "dlsim"))
    args = ap.parse_args()
    rate, counts = through_dlsim(args.dlsim)
    v = sorted((rate[g] for g in SPECS if SPECS[g][2] == 64), reverse=True)
    g64 = st.median(v[: (len(v) + 1) // 2])
    print(f"FP32 GEMM rate per peak FLOP relative to the H100, fitted through dlsim: 64-lane group {g64:.3f} "
          f"(share {0.671 * g64:.3f}); 128-lane group 1 (the H100, share 0.671)")
    print("| GPU | lanes/SM | GEMMs | rate per peak FLOP vs H100 | sustained clock MHz |")
    print("|---|---|---|---|---|")
    for gpu in SPECS:
        peak, boost, lanes, bw = SPECS[gpu]
        g = g64 if lanes == 64 else 1.0
        r = rate[gpu]
        clock = boost * r / g if r < g * (1 - POWER_LIMIT_GAP) else boost
        print(f"| {gpu} | {lanes} | {counts.get(gpu, 0)} | {r:.3f} | {clock:.0f} |")
    print()
    shape_matched()


def shape_matched():
    gemm, elem = load()
    rel = relative_shares(gemm)
    groups = defaultdict(list)
    for gpu, (share, _) in rel.items():
        groups[SPECS[gpu][2]].append(share)
    # 128 lanes: the H100 itself (the reference every machine here is scaled from); 64 lanes: the
    # median of the group's upper half (the GPUs not held back by their power limit)
    v = sorted(groups[64], reverse=True)
    group_share = {128: 1.0, 64: st.median(v[: (len(v) + 1) // 2])}
    h100_abs = st.median(2 * b * m * n * k / st.median(ts) for (_, b, m, n, k), ts in gemm["h100"].items())
    h100_abs /= SPECS["h100"][0] * 1e12
    print("For reference (not used for scaling): the raw tables, shape-matched against the H100's")
    print(f"H100: large FP32 GEMMs reach {h100_abs:.3f} of the FP32 peak (median of {len(gemm['h100'])} shapes)")
    print("lane-group shares of the FP32 peak:",
          {k: round(v * h100_abs, 3) for k, v in group_share.items()},
          "(relative to the H100:", {k: round(v, 3) for k, v in group_share.items()}, ")")
    print("| GPU | lanes/SM | GEMM shapes | share of peak vs H100 | clock it would imply (MHz) | bandwidth GB/s (share; used) |")
    print("|---|---|---|---|---|---|")
    for gpu in SPECS:
        share, n = rel[gpu]
        peak, boost, lanes, bw = SPECS[gpu]
        g = group_share[lanes]
        clock = boost * share / g if share < g * (1 - POWER_LIMIT_GAP) else boost
        b = st.median(elem[gpu]) if elem.get(gpu) else 0
        bws = f"{b:.0f} ({b / bw:.3f})" if b else "not in the tables"
        print(f"| {gpu} | {lanes} | {n} | {share:.3f} | {clock:.0f} | {bws} |")


if __name__ == "__main__":
    main()
