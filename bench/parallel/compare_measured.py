#!/usr/bin/env python3
"""dlsim scale against the parallel training runs measured here (issue 27).

Reads the JSONL of bench/parallel/run_megatron.sh (default: data/run2, the
run without profiler passes; data/run1 repeats it with them), writes one job
YAML per configuration and runs `dlsim scale` on the machine the runs were
taken on. Compares the median step time and the peak memory allocated.

Mapping, fixed before any comparison: the suite's GPT (untied head, flash
attention through SDPA, bf16 autocast, AdamW) as a `model:`; DDP as ZeRO 0
with the gradient reduction overlapped (DDP's buckets); FSDP full sharding
as ZeRO 3; recompute "full" as full recomputation. FSDP hybrid sharding (the
suite's 2-D mesh: replicated over 2, sharded over the other half of the
GPUs) as ZeRO 3 with zero_shard = data / 2 (mapped when hybrid sharding was
added, before its first comparison).

Usage: compare_measured.py [--data DIR] [--machine h200] [--csv OUT] [--markdown OUT]
"""
import argparse
import csv
import glob
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def job_yaml(c):
    m = c["model"]
    zero = 3 if c["fsdp"] in ("full", "hybrid") else 0
    shard = [f"  zero_shard: {c['dp'] // 2}"] if c["fsdp"] == "hybrid" else []
    overlap = "true" if (c["ddp"] or c["fsdp"] != "none") else "false"
    return "\n".join([
        f"name: {c['name']}", "model:", f"  layers: {m['layers']}", f"  hidden: {m['hidden']}",
        f"  heads: {m['heads']}", f"  ffn_hidden: {m['ffn_hidden']}", f"  vocab: {m['vocab']}",
        f"  seq_len: {m['seq_len']}", "  tied_embeddings: false", "  attention: flash",
        "parallel:", f"  tensor: {c['tp']}", f"  pipeline: {c['pp']}", f"  data: {c['dp']}",
        f"  microbatch: {c['microbatch_size']}", f"  global_batch: {c['global_batch']}",
        f"  sequence_parallel: {'true' if c['sequence_parallel'] else 'false'}",
        f"  recompute: {c['recompute']}", f"  zero: {zero}", *shard,
        f"  overlap_grad_reduce: {overlap}", "  dtype: bf16", "  framework: pytorch", ""])


def load_configs(folder):
    """The configurations measured ("status": "ok") in the JSONL files of `folder`."""
    configs = []
    for path in sorted(glob.glob(os.path.join(folder, "*.jsonl"))):
        configs += [json.loads(line) for line in open(path) if line.strip()]
    return [c for c in configs if c.get("status") == "ok" and not c["name"].startswith("_")]


def estimate(dlsim, machine, c):
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
        f.write(job_yaml(c))
        path = f.name
    try:
        out = subprocess.run([dlsim, "scale", path, "--machine", machine, "--format", "json"],
                             capture_output=True, text=True, cwd=ROOT)
    finally:
        os.unlink(path)
    if out.returncode != 0:
        raise RuntimeError(out.stderr.strip())
    return json.loads(out.stdout)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dlsim", default=os.path.join(ROOT, "build", "dlsim"))
    ap.add_argument("--data", default=os.path.join(ROOT, "bench", "parallel", "data", "run2"))
    ap.add_argument("--machine", default="h200")
    ap.add_argument("--csv", default=os.path.join(ROOT, "bench", "parallel", "data",
                                                  "measured_results.csv"))
    ap.add_argument("--markdown")
    args = ap.parse_args()
    configs = load_configs(args.data)
    rows = []
    for c in configs:
        r = {"name": c["name"], "gpus": c["gpus"], "measured_ms": c["step_ms_median"],
             "measured_gib": c["peak_alloc_gib"]}
        e = estimate(args.dlsim, args.machine, c)
        r.update(status="ok", dlsim_ms=1e3 * e["step_s"], dlsim_gib=e["memory_gib"]["total"],
                 breakdown=e["breakdown_s"])
        r["time_err"] = r["dlsim_ms"] / r["measured_ms"] - 1
        r["mem_err"] = r["dlsim_gib"] / r["measured_gib"] - 1
        rows.append(r)
        te = f"{100 * r['time_err']:+.1f} %" if "time_err" in r else r["status"]
        me = f"{100 * r['mem_err']:+.1f} %" if "mem_err" in r else ""
        print(f"{c['name']:<22} {r['measured_ms']:8.1f} ms {r.get('dlsim_ms', 0):8.1f} ms {te:>9}   "
              f"{r['measured_gib']:5.1f} GiB {r.get('dlsim_gib', 0):5.1f} GiB {me}", file=sys.stderr)
    with open(args.csv, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["name", "gpus", "measured_ms", "dlsim_ms", "time_error_pct", "measured_gib",
                    "dlsim_gib", "memory_error_pct", "status"])
        for r in rows:
            w.writerow([r["name"], r["gpus"], f"{r['measured_ms']:.2f}",
                        f"{r['dlsim_ms']:.2f}" if "dlsim_ms" in r else "",
                        f"{100 * r['time_err']:.1f}" if "time_err" in r else "",
                        f"{r['measured_gib']:.2f}", f"{r['dlsim_gib']:.2f}" if "dlsim_gib" in r else "",
                        f"{100 * r['mem_err']:.1f}" if "mem_err" in r else "", r["status"]])
    t = [abs(r["time_err"]) for r in rows if "time_err" in r]
    m = [abs(r["mem_err"]) for r in rows if "mem_err" in r]
    b = [r["time_err"] for r in rows if "time_err" in r]
    print(f"step time: {len(t)} configurations, median |error| {100 * statistics.median(t):.1f} %, "
          f"worst {100 * max(t):.1f} %, median signed {100 * statistics.median(b):+.1f} %")
    print(f"peak memory: median |error| {100 * statistics.median(m):.1f} %, worst {100 * max(m):.1f} %")
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write("| configuration | GPUs | measured step | dlsim | error | measured peak | dlsim | error |\n")
            f.write("|---|---|---|---|---|---|---|---|\n")
            for r in rows:
                if "time_err" not in r:
                    f.write(f"| {r['name']} | {r['gpus']} | {r['measured_ms']:.1f} ms | - | {r['status']} "
                            f"| {r['measured_gib']:.1f} GiB | - | - |\n")
                    continue
                f.write(f"| {r['name']} | {r['gpus']} | {r['measured_ms']:.1f} ms | {r['dlsim_ms']:.1f} ms | "
                        f"{100 * r['time_err']:+.1f} % | {r['measured_gib']:.1f} GiB | {r['dlsim_gib']:.1f} GiB | "
                        f"{100 * r['mem_err']:+.1f} % |\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
