#!/usr/bin/env python3
"""dlsim against NeuSight's public end-to-end measurements (bench/generations/data/e2e_neusight.csv),
beside NeuSight's published predictions and its roofline baseline on the same rows.

Every row is estimated with `build/dlsim estimate bench/generations/models/<model>-<seq>.onnx
--machine machines/<gpu>.yaml --batch B [--mode training --optimizer sgd] --format json`; the
prediction is `eager_ms` (plain PyTorch, op by op), less the optimizer's time in training (NeuSight
times forward and backward only). `--before` prices with the machine files as datasheets alone give
them (no sustained clock, no measured bandwidth, every GPU at the H100's FP32 GEMM share), which is
how dlsim scaled before the generation-aware rule.

  python3 bench/generations/make_models.py
  python3 bench/generations/evaluate.py [--before] [--out bench/generations/data/results.csv]
  python3 bench/generations/evaluate.py --doc-table bench/generations/data/results.csv \
      bench/generations/data/results_before.csv     # the table of docs/accuracy-generations.md
"""
import argparse, csv, json, os, re, statistics as st, subprocess, sys, tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
DATA = os.path.join(ROOT, "bench", "generations", "data")
MODELS = os.path.join(ROOT, "bench", "generations", "models")
GPU_ORDER = ["h100", "a100-pcie-80gb", "a100-pcie-40gb", "v100-pcie-32gb", "p100-pcie-16gb", "l4", "t4", "p4"]


def machine_copy(gpu, tmp, before, memory_gib=None):
    """The machine file in `tmp`: with `before`, without the fitted figures and at the H100's FP32
    GEMM share; with `memory_gib`, that much memory (to step over dlsim's training-footprint
    check, which refuses some rows that were measured: a separate issue)."""
    src = os.path.join(ROOT, "machines", gpu + ".yaml")
    if gpu == "h100" and memory_gib is None:
        return src
    text = open(src).read()
    if before and gpu != "h100":
        text = re.sub(r"(?m)^  (sustained_clock_mhz|fp32_lanes_per_sm|measured_memory_bw_gbs):.*\n", "", text)
        text = re.sub(r"(?m)^  device\.(sustained_clock_mhz|fp32_lanes_per_sm|measured_memory_bw_gbs):.*\n(    .*\n)*", "", text)
        text = text.replace("  peak_tflops:", "  fp32_gemm_share: 0.671\n  peak_tflops:", 1)
    if memory_gib:
        text = re.sub(r"(?m)^  memory_gib: .*$", f"  memory_gib: {memory_gib}", text)
    text = re.sub(r"(?m)^(  (?:scale_from|perf_db|issue_costs|algorithm_db): *)([^ #\n]+)",
                  lambda m: m.group(1) + os.path.normpath(os.path.join(ROOT, "machines", m.group(2))), text)
    text = re.sub(r"(?m)^    - \.\./", "    - " + ROOT + "/", text)
    path = os.path.join(tmp, f"{gpu}{'-before' if before else ''}{'-mem' if memory_gib else ''}.yaml")
    open(path, "w").write(text)
    return path


def estimate(dlsim, row, machine):
    model = os.path.join(MODELS, f"{row['model']}-{row['seq']}.onnx")
    cmd = ["nice", "-n", "10", dlsim, "estimate", model, "--machine", machine, "--batch", row["batch"],
           "--format", "json"]
    if row["mode"] == "training":
        cmd += ["--mode", "training", "--optimizer", "sgd"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        return None, r.stderr.strip().splitlines()[-1] if r.stderr.strip() else f"rc {r.returncode}"
    d = json.loads(r.stdout)
    opt = sum(l["time_ms"] for l in d.get("layers", []) if l.get("op_type") == "Optimizer")
    return d["eager_ms"] - opt, ""


def stats(errs):
    if not errs:
        return None
    a = sorted(abs(e) for e in errs)
    p90 = a[min(len(a) - 1, int(round(0.9 * (len(a) - 1))))]
    return st.median(a), p90, st.median(errs), len(errs)


def fmt(s):
    return "n/a" if s is None else f"{100 * s[0]:.1f} % (P90 {100 * s[1]:.1f}, bias {100 * s[2]:+.1f})"


LABELS = {"h100": "H100 SXM (calibrated, not scaled)", "a100-pcie-80gb": "A100 PCIe 80 GB",
          "a100-pcie-40gb": "A100 PCIe 40 GB", "v100-pcie-32gb": "V100 PCIe 32 GB",
          "p100-pcie-16gb": "P100 PCIe 16 GB", "l4": "L4", "t4": "T4", "p4": "P4"}


def doc_table(after_csv, before_csv):
    """The table of docs/accuracy-generations.md from two results files."""
    after = list(csv.DictReader(open(after_csv)))
    before = {(r["gpu"], r["model"], r["mode"], r["batch"]): r for r in csv.DictReader(open(before_csv))}

    def err(rs, col):
        return [float(r[col]) / float(r["measured_ms"]) - 1 for r in rs if r[col]]

    print("| GPU | runs | dlsim | dlsim, datasheet only (before) | NeuSight (published) | roofline (NeuSight's) |")
    print("|---|---|---|---|---|---|")
    groups = [(LABELS[g], [r for r in after if r["gpu"] == g]) for g in GPU_ORDER]
    groups += [("**all but the H100 (scaled)**", [r for r in after if r["gpu"] != "h100"]), ("all", after)]
    for label, rs in groups:
        b = [before[(r["gpu"], r["model"], r["mode"], r["batch"])] for r in rs]
        cells = [fmt(stats(err(rs, "dlsim_ms"))), fmt(stats(err(b, "dlsim_ms"))),
                 fmt(stats(err(rs, "neusight_pred_ms"))), fmt(stats(err(rs, "roofline_pred_ms")))]
        print(f"| {label} | {len(rs)} | " + " | ".join(cells) + " |")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dlsim", default=os.path.join(ROOT, "build", "dlsim"))
    ap.add_argument("--before", action="store_true")
    ap.add_argument("--out", default="")
    ap.add_argument("--doc-table", nargs=2, metavar=("RESULTS", "RESULTS_BEFORE"),
                    help="print the table of docs/accuracy-generations.md from two results files and exit")
    args = ap.parse_args()
    if args.doc_table:
        doc_table(*args.doc_table)
        return
    rows = list(csv.DictReader(open(os.path.join(DATA, "e2e_neusight.csv"))))
    tmp = tempfile.mkdtemp(prefix="dlsim-gen-")
    out_rows = []
    for row in rows:
        pred, err = estimate(args.dlsim, row, machine_copy(row["gpu"], tmp, args.before))
        bypassed = pred is None and "training footprint" in err
        if bypassed:
            pred, err = estimate(args.dlsim, row, machine_copy(row["gpu"], tmp, args.before, 4096))
        m = float(row["measured_ms"])
        rec = dict(row, dlsim_ms="" if pred is None else round(pred, 3), dlsim_error=err,
                   memory_check_bypassed=int(bypassed))
        out_rows.append(rec)
        e = "" if pred is None else f"{100 * (pred / m - 1):+.1f} %"
        print(f"{row['gpu']:15} {row['model']:11} {row['mode']:9} b{row['batch']:>2} s{row['seq']:>4} "
              f"measured {m:9.1f}  dlsim {pred if pred is None else round(pred, 1)} {e} {err}", file=sys.stderr)
    if args.out:
        with open(args.out, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(out_rows[0]))
            w.writeheader()
            w.writerows(out_rows)

    def errors(rs, col):
        return [float(r[col]) / float(r["measured_ms"]) - 1 for r in rs if r[col] not in ("", None)]

    print("| GPU | rows | dlsim median abs error (P90, bias) | NeuSight (published) | roofline (NeuSight's) |")
    print("|---|---|---|---|---|")
    groups = [(g, [r for r in out_rows if r["gpu"] == g]) for g in GPU_ORDER]
    groups += [("all but the H100", [r for r in out_rows if r["gpu"] != "h100"]), ("all", out_rows)]
    for g, rs in groups:
        est = [r for r in rs if r["dlsim_ms"] != ""]
        print(f"| {g} | {len(est)} of {len(rs)} | {fmt(stats(errors(est, 'dlsim_ms')))} | "
              f"{fmt(stats(errors(est, 'neusight_pred_ms')))} | {fmt(stats(errors(est, 'roofline_pred_ms')))} |")


if __name__ == "__main__":
    main()
