#!/usr/bin/env python3
"""dlsim scale against published large-model training runs (docs/parallel.md).

Reads bench/parallel/published/configs.csv (Megatron-LM papers, Megatron-LM's
README, MLPerf), writes one job YAML per row, runs `dlsim scale` on it and
compares the step time (or, where only TFLOP/s or MFU were printed, the
equivalent step time) with the published figure.

Rules fixed before any comparison, the same for every row:
- A100 rows run on machines/a100.yaml (DGX A100, kernels scaled from the
  H100), H100 rows on machines/h100.yaml.
- Attention: Megatron-LM 2021-2022 ran it unfused (fused softmax kernel);
  the 2024 README rows and MLPerf's NeMo runs (2023-2024) fused (flash).
- Precision: Narayanan et al. 2021 trained in fp16, the others in bf16.
  MLPerf GPT-3 runs in FP8, which dlsim does not price: those rows are
  listed, not scored.
- What a row does not publish (microbatch, interleaving, recomputation,
  sequence parallelism, ZeRO) is searched: the fastest layout that fits with
  everything published kept fixed (`dlsim scale --search`), as the authors
  tuned theirs. Rows without a global batch are skipped.

Usage: compare_published.py [--dlsim build/dlsim] [--csv OUT.csv] [--markdown OUT.md]
"""
import argparse
import csv
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CONFIGS = os.path.join(ROOT, "bench", "parallel", "published", "configs.csv")


def num(row, key):
    v = (row.get(key) or "").strip()
    return float(v) if v else None


def intval(row, key):
    v = num(row, key)
    return int(v) if v is not None else None


def job_yaml(row):
    a100 = row["gpu"].startswith("A100")
    layers, hidden = intval(row, "layers"), intval(row, "hidden")
    ffn = intval(row, "ffn_hidden") or 4 * hidden
    attention = "flash" if row["id"].startswith(("mlm24", "mlperf")) else "unfused"
    lines = [f"name: {row['id']}", "model:", f"  layers: {layers}", f"  hidden: {hidden}",
             f"  heads: {intval(row, 'heads')}", f"  ffn_hidden: {ffn}",
             f"  vocab: {intval(row, 'vocab') or 51200}", f"  seq_len: {intval(row, 'seq_len')}",
             f"  attention: {attention}", "parallel:",
             f"  global_batch: {intval(row, 'global_batch')}",
             f"  dtype: {'fp16' if row['id'].startswith('nar21') else 'bf16'}"]
    return "\n".join(lines) + "\n", ("a100" if a100 else "h100")


def scale_args(row):
    """Published layout fields pinned; the rest searched."""
    args = ["--tensor", str(intval(row, "tp")), "--pipeline", str(intval(row, "pp"))]
    gpus = intval(row, "gpus")
    args += ["--gpus", str(gpus)]
    for key, flag in (("microbatch", "--microbatch"), ("virtual_stages", "--virtual-stages"),
                      ("zero", "--zero")):
        v = intval(row, key)
        if v is not None:
            args += [flag, str(v)]
    if (row.get("recompute") or "").strip():
        args += ["--recompute", row["recompute"].strip()]
    if (row.get("sequence_parallel") or "").strip():
        args += ["--sequence-parallel", "true" if row["sequence_parallel"].strip() == "1" else "false"]
    return args + ["--search", "--top", "1", "--format", "json"]


def measured_step_s(row, est):
    """The published step time, or the one its TFLOP/s or MFU imply."""
    if num(row, "measured_iteration_s"):
        return num(row, "measured_iteration_s"), "iteration time"
    if num(row, "measured_mfu"):
        return est["step_s"] * est["mfu"] / num(row, "measured_mfu"), "MFU"
    return None, ""


def run_row(dlsim, row):
    if not (row.get("global_batch") or "").strip():
        return {"status": "skipped: no global batch published"}
    text, machine = job_yaml(row)
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
        f.write(text)
        path = f.name
    try:
        out = subprocess.run([dlsim, "scale", path, "--machine", machine] + scale_args(row),
                             capture_output=True, text=True, cwd=ROOT)
    finally:
        os.unlink(path)
    if out.returncode != 0:
        return {"status": "error: " + out.stderr.strip().splitlines()[-1].replace(path, "the job")}
    est = json.loads(out.stdout)["layouts"][0]
    measured, basis = measured_step_s(row, est)
    res = {"status": "ok", "machine": machine, "dlsim_step_s": est["step_s"],
           "dlsim_tflops": est["hardware_tflops_per_gpu"], "dlsim_mfu": est["mfu"],
           "memory_gib": est["memory_gib"]["total"], "layout": est["plan"],
           "measured_step_s": measured, "basis": basis}
    if "FP8" in row.get("notes", "") or row["id"].startswith("mlperf"):
        res["status"] = "not scored: FP8 run, dlsim prices bf16"
    if measured:
        res["error"] = est["step_s"] / measured - 1
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dlsim", default=os.path.join(ROOT, "build", "dlsim"))
    ap.add_argument("--csv", default=os.path.join(ROOT, "bench", "parallel", "data",
                                                  "published_results.csv"))
    ap.add_argument("--markdown", help="also write the table as Markdown")
    args = ap.parse_args()
    rows = list(csv.DictReader(open(CONFIGS)))
    results = []
    for i, row in enumerate(rows):
        r = run_row(args.dlsim, row)
        results.append((row, r))
        err = f"{100 * r['error']:+.1f} %" if "error" in r else ""
        print(f"[{i + 1}/{len(rows)}] {row['id']}: {r['status']} {err}", file=sys.stderr)
    with open(args.csv, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["id", "gpus", "machine", "tp", "pp", "dp", "v", "microbatch", "recompute", "sp",
                    "zero", "measured_step_s", "basis", "dlsim_step_s", "error_pct",
                    "dlsim_tflops_per_gpu", "dlsim_mfu", "memory_gib", "status"])
        for row, r in results:
            lay = r.get("layout", {})
            w.writerow([row["id"], row["gpus"], r.get("machine", ""), lay.get("tensor", ""),
                        lay.get("pipeline", ""), lay.get("data", ""), lay.get("virtual_stages", ""),
                        lay.get("microbatch", ""), lay.get("recompute", ""),
                        int(lay["sequence_parallel"]) if lay else "", lay.get("zero", ""),
                        f"{r['measured_step_s']:.4g}" if r.get("measured_step_s") else "",
                        r.get("basis", ""), f"{r['dlsim_step_s']:.4g}" if "dlsim_step_s" in r else "",
                        f"{100 * r['error']:.1f}" if "error" in r else "",
                        f"{r['dlsim_tflops']:.1f}" if "dlsim_tflops" in r else "",
                        f"{r['dlsim_mfu']:.3f}" if "dlsim_mfu" in r else "",
                        f"{r['memory_gib']:.1f}" if "memory_gib" in r else "", r["status"]])
    scored = [abs(r["error"]) for _, r in results if r["status"] == "ok" and "error" in r]
    bias = [r["error"] for _, r in results if r["status"] == "ok" and "error" in r]
    if scored:
        print(f"scored {len(scored)} configurations: median |error| {100 * statistics.median(scored):.1f} %, "
              f"worst {100 * max(scored):.1f} %, median signed {100 * statistics.median(bias):+.1f} %")
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write("| configuration | GPUs | layout dlsim priced | measured step | dlsim | error |\n")
            f.write("|---|---|---|---|---|---|\n")
            for row, r in results:
                lay = r.get("layout")
                label = (f"tp {lay['tensor']} pp {lay['pipeline']} dp {lay['data']} v {lay['virtual_stages']} "
                         f"mb {lay['microbatch']} {lay['recompute']}{' sp' if lay['sequence_parallel'] else ''}"
                         f" zero {lay['zero']}") if lay else r["status"]
                meas = f"{r['measured_step_s']:.3g} s ({r['basis']})" if r.get("measured_step_s") else "-"
                est = f"{r['dlsim_step_s']:.3g} s" if "dlsim_step_s" in r else "-"
                err = f"{100 * r['error']:+.1f} %" if "error" in r and r["status"] == "ok" else r["status"] if r["status"] != "ok" else "-"
                f.write(f"| {row['id']} | {row['gpus']} | {label} | {meas} | {est} | {err} |\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
