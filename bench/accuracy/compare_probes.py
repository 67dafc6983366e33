#!/usr/bin/env python3
"""Compares dlsim's estimates with the probe runs (probe_runs.py) and writes
docs/accuracy-probes.md, its plot and a CSV of the cases.

The probes (probes.py) are models and shapes outside the zoo, measured after
all tuning: their figures say how dlsim does on what it was not built on.

Usage: compare_probes.py [--dlsim build/dlsim] [--gpu h100] [--machine h100]
                         [--ratio-gpu h200 --ratio-machine h200]
"""
import argparse
import csv
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from compare import estimate, fmt_metrics, metrics, svg_plot, write_markdown  # noqa: E402
from probes import GROUPS, PROBES  # noqa: E402

PROBE_DIR = os.path.join(ROOT, "tests", "data", "probes")


def load_measured(rounds_path, kernels_path):
    """(environment record, {(probe, dtype, batch): (gpu_ms, method)}): the
    CUDA-graph rounds (probe_runs.py), and for a case that could not be
    captured the summed kernel time of probe_profiles.py, as the reference
    run takes BERT's and GPT-2's."""
    env, cases = {}, {}
    for line in open(rounds_path):
        r = json.loads(line)
        if r.get("mode") == "environment":
            env = r
        elif r.get("mode") == "gpu_rounds":
            cases[(r["model"], r["dtype"], r["batch"])] = (r["gpu_ms"], "graph_rounds")
    if os.path.exists(kernels_path):
        for line in open(kernels_path):
            r = json.loads(line)
            key = (r.get("model"), r.get("dtype"), r.get("batch"))
            if r.get("mode") == "kernel_sum" and key not in cases:
                cases[key] = (r["kernel_sum_ms"], "kernel_sum")
    return env, cases


def compare(args, measured):
    rows = []
    for name, (_, batches, group, _) in PROBES.items():
        for dtype in ("fp32", "fp16"):
            for batch in batches:
                est = estimate(args.dlsim, args.machine, name, "inference", dtype, batch, PROBE_DIR)
                row = dict(probe=name, group=group, dtype=dtype, batch=batch)
                if "error" in est:
                    row["error"] = est["error"]
                else:
                    row["pred_gpu"] = est["gpu_time_ms"]
                meas = measured.get((name, dtype, batch))
                if meas is not None:
                    row["measured_gpu"], row["gpu_method"] = meas
                    if "pred_gpu" in row:
                        row["err_gpu"] = row["pred_gpu"] / row["measured_gpu"] - 1
                rows.append(row)
    return rows


def write_csv(rows, path):
    keys = ["probe", "group", "dtype", "batch", "measured_gpu", "gpu_method", "pred_gpu", "err_gpu",
            "error"]
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys)
        w.writeheader()
        for r in rows:
            w.writerow({k: r.get(k, "") for k in keys})


def summary_lines(rows):
    L = ["| set | cases | median abs error | P90 abs error | within ±10 % | bias |",
         "|---|---|---|---|---|---|"]
    scored = [r for r in rows if "err_gpu" in r]
    L.append(fmt_metrics("all probes", metrics([r["err_gpu"] for r in scored])))
    for group, label in GROUPS.items():
        L.append(fmt_metrics(label, metrics([r["err_gpu"] for r in scored if r["group"] == group])))
    for batch_set, label in (((1,), "batch 1"), ((16, 64), "batch 16 and 64")):
        L.append(fmt_metrics(label, metrics([r["err_gpu"] for r in scored if r["batch"] in batch_set])))
    return L


def case_line(r):
    meas = f"{r['measured_gpu']:.3f}" if "measured_gpu" in r else "not measured"
    if r.get("gpu_method") == "kernel_sum":
        meas += " (kernel sum)"
    if "error" in r:
        return f"| {r['probe']} | {r['dtype']} | {r['batch']} | {meas} | failed: {r['error'][:80]} | |"
    err = f"{r['err_gpu'] * 100:+.1f} %" if "err_gpu" in r else "–"
    return f"| {r['probe']} | {r['dtype']} | {r['batch']} | {meas} | {r['pred_gpu']:.3f} | {err} |"


def cross_gpu_rows(args, rows):
    """The probes measured on the cross-GPU target too (data/probes_<target>.jsonl),
    estimated on its machine file: GPU time and the target/reference ratio."""
    path = os.path.join(HERE, "data", f"probes_{args.ratio_gpu}.jsonl")
    if not args.ratio_gpu or not os.path.exists(path):
        return []
    _, measured = load_measured(path, "")
    out = []
    for r in rows:
        meas = measured.get((r["probe"], r["dtype"], r["batch"]))
        if meas is None or "err_gpu" not in r:
            continue
        est = estimate(args.dlsim, args.ratio_machine, r["probe"], "inference", r["dtype"],
                       r["batch"], PROBE_DIR)
        if "error" in est:
            continue
        ratio = meas[0] / r["measured_gpu"]
        out.append(dict(probe=r["probe"], err_gpu=est["gpu_time_ms"] / meas[0] - 1,
                        err_ratio=est["gpu_time_ms"] / r["pred_gpu"] / ratio - 1,
                        err_null=1 / ratio - 1))
    return out


def cross_gpu_lines(cross, args):
    if not cross:
        return []
    target, ref = args.ratio_gpu.upper(), args.gpu.upper()
    return ["## The same probes on the " + target + f" (`machines/{args.ratio_machine}.yaml`: specs, "
            f"scaled from the {ref} calibration)\n",
            f"Measured on an {target} by `probe_runs.py --skip-export` (the probes that can be "
            f"captured). Ratio error: the predicted {target}/{ref} time ratio against the measured "
            "one; the null predictor says the two GPUs take the same time.\n",
            "| set | cases | median abs error | P90 abs error | within ±10 % | bias |",
            "|---|---|---|---|---|---|",
            fmt_metrics(f"{target} GPU time", metrics([c["err_gpu"] for c in cross])),
            fmt_metrics(f"{target}/{ref} ratio", metrics([c["err_ratio"] for c in cross])),
            fmt_metrics("null predictor (ratio 1)", metrics([c["err_null"] for c in cross])), ""]


def write_doc(rows, env, args):
    svg = os.path.join(os.path.dirname(args.out), f"accuracy-probes-{args.gpu}.svg")
    pts = [(r["measured_gpu"], r["pred_gpu"], r["group"] == "block") for r in rows if "err_gpu" in r]
    svg_plot(pts, svg, f"dlsim on the probes ({args.gpu.upper()}): predicted vs measured",
             legend=("models (outside the zoo or resized)", "blocks around new ops"))
    L = ["# Accuracy on models and shapes outside the zoo (probes)\n",
         "Generated by `python3 bench/accuracy/compare_probes.py` from "
         f"`bench/accuracy/data/probes_{args.gpu}.jsonl`. The probes (`bench/accuracy/probes.py`) were "
         "chosen and measured after all fitting and tuning, and nothing is fitted on them: they "
         "stand in for the independent check, which feeds dlsim models, shapes and GPUs it has not "
         f"seen. Measured on {env.get('gpu', '?')} ({env.get('time', '?')[:10]}, PyTorch "
         f"{env.get('torch', '?')}) by `bench/accuracy/probe_runs.py`: CUDA-graph replay, the median "
         "of interleaved rounds, with the reference run's settings (`bench/accuracy/reference_runs.py`); a probe "
         "that cannot be captured (Hugging Face models copy host tensors while running) is measured "
         "by its summed kernel time (`probe_profiles.py`), as the reference run measures BERT and GPT-2. "
         f"Estimated with `machines/{args.machine}.yaml`, ONNX files in `tests/data/probes/`.\n",
         "Error = (estimate − measured) / measured. Bias = median signed error.\n",
         "## Summary (inference GPU time)\n"]
    L += summary_lines(rows)
    L += ["", f"![predicted vs measured](accuracy-probes-{args.gpu}.svg)\n"]
    L += cross_gpu_lines(cross_gpu_rows(args, rows), args)
    L += ["## The probes\n",
          "| probe | what it probes | batches |", "|---|---|---|"]
    for name, (_, batches, group, what) in PROBES.items():
        L.append(f"| {name} | {GROUPS[group]}: {what} | {', '.join(map(str, batches))} |")
    L += ["", "## Every case\n", "| probe | dtype | batch | measured ms | predicted ms | error |",
          "|---|---|---|---|---|---|"]
    L += [case_line(r) for r in rows]
    L.append("")
    write_markdown(args.out, L, os.path.join(HERE, "probe_notes.md"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dlsim", default=os.path.join(ROOT, "build", "dlsim"))
    ap.add_argument("--gpu", default="h100")
    ap.add_argument("--machine", default="h100")
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "accuracy-probes.md"))
    ap.add_argument("--ratio-gpu", default="h200", help="second GPU the probes were measured on")
    ap.add_argument("--ratio-machine", default="h200", help="its machine file (specs, scaled)")
    args = ap.parse_args()
    env, measured = load_measured(os.path.join(HERE, "data", f"probes_{args.gpu}.jsonl"),
                                  os.path.join(HERE, "data", f"probe_kernels_{args.gpu}.jsonl"))
    rows = compare(args, measured)
    write_csv(rows, os.path.join(HERE, "data", f"comparison_probes_{args.gpu}.csv"))
    write_doc(rows, env, args)
    print(f"wrote {args.out}")
    for line in summary_lines(rows)[2:]:
        print(line)


if __name__ == "__main__":
    main()
