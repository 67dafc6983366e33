#!/usr/bin/env python3
"""Leave-model-out: how well dlsim prices a model whose kernels were never measured.

For each zoo model with reference runs, copies the machine's performance
database without any of the model's keys (every key `dlsim plan --fuse` lists
for its reference cases, shared ones included), refits the models
(`dlsim db fit`), and estimates the model's reference cases from that copy:
nearly all of its time is then priced by the fitted source. Prints the GPU-time
error per model and the metrics of ../shared/docs/accuracy.md, like compare.py.
Writes nothing in the repository (copies go to a temporary folder).

Usage: leave_model_out.py [--dlsim build/dlsim] [--gpu h100] [--machine h100]
                          [--models m1,m2] [--json FILE]
"""
import argparse
import json
import os
import re
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from compare import ZOO_DIR, fmt_metrics, load_reference, metrics  # noqa: E402
from zoo import held_out  # noqa: E402


def model_keys(dlsim, model, cases):
    keys = set()
    for (_, mode, dtype, batch) in cases:
        p = subprocess.run([dlsim, "plan", os.path.join(ZOO_DIR, model + ".onnx"), "--batch",
                            str(batch), "--dtype", dtype, "--mode", mode, "--fuse"],
                           capture_output=True, text=True, cwd=ROOT, check=True)
        keys |= {l.strip() for l in p.stdout.splitlines() if l.strip() and not l.startswith("#")}
    return keys


def machine_without(machine_yaml, db_src, keys, tmp, dlsim):
    """A copy of the machine file whose perf_db is db_src less `keys`, refitted."""
    db = os.path.join(tmp, "perf.sqlite")
    shutil.copy(db_src, db)
    con = sqlite3.connect(db)
    con.executemany("DELETE FROM measurements WHERE key = ?", [(k,) for k in keys])
    con.execute("DELETE FROM fits")
    con.commit()
    con.close()
    subprocess.run([dlsim, "db", "fit", "--db", db], capture_output=True, check=True)
    text = open(machine_yaml).read()
    base = os.path.dirname(machine_yaml)
    # Relative paths in the machine file are relative to its folder.
    text = re.sub(r"(perf_db:\s*)(\S+)", lambda m: m.group(1) + db, text)
    text = re.sub(r"(algorithm_db:\s*)(\S+)",
                  lambda m: m.group(1) + os.path.normpath(os.path.join(base, m.group(2))), text)
    path = os.path.join(tmp, "machine.yaml")
    open(path, "w").write(text)
    return path


def perf_db_of(machine_yaml):
    m = re.search(r"perf_db:\s*(\S+)", open(machine_yaml).read())
    return os.path.normpath(os.path.join(os.path.dirname(machine_yaml), m.group(1)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dlsim", default=os.path.join(ROOT, "build", "dlsim"))
    ap.add_argument("--gpu", default="h100")
    ap.add_argument("--machine", default="h100")
    ap.add_argument("--models", default="", help="comma-separated (default: every model with runs)")
    ap.add_argument("--json", default="", help="write the per-case errors here")
    args = ap.parse_args()
    machine_yaml = os.path.join(ROOT, "machines", args.machine + ".yaml")
    ref = load_reference(args.gpu)
    models = sorted({k[0] for k in ref})
    if args.models:
        models = [m for m in models if m in args.models.split(",")]
    rows = []
    for model in models:
        cases = sorted(k for k in ref if k[0] == model)
        keys = model_keys(args.dlsim, model, cases)
        with tempfile.TemporaryDirectory() as tmp:
            machine = machine_without(machine_yaml, perf_db_of(machine_yaml), keys, tmp, args.dlsim)
            for (_, mode, dtype, batch) in cases:
                p = subprocess.run([args.dlsim, "estimate", os.path.join(ZOO_DIR, model + ".onnx"),
                                    "--machine", machine, "--batch", str(batch), "--dtype", dtype,
                                    "--mode", mode, "--format", "json"],
                                   capture_output=True, text=True, cwd=ROOT)
                if p.returncode != 0:
                    print(f"{model} {mode} {dtype} {batch}: {p.stderr.strip()[-200:]}", file=sys.stderr)
                    continue
                j = json.loads(p.stdout)
                measured = ref[(model, mode, dtype, batch)]["gpu_ms"]
                rows.append(dict(model=model, mode=mode, dtype=dtype, batch=batch,
                                 held_out=held_out(model), keys_removed=len(keys),
                                 err=(j["gpu_time_ms"] - measured) / measured,
                                 fitted_share=j["source_share"].get("fitted", 0)))
        errs = [abs(r["err"]) for r in rows if r["model"] == model]
        if errs:
            print(f"{model:22s} {len(keys):5d} keys removed  median |error| "
                  f"{statistics.median(errs) * 100:5.1f} %")
    print("\n| set | cases | median abs error | P90 abs error | within ±10 % | bias |")
    print("|---|---|---|---|---|---|")
    for mode in ("inference", "training"):
        for ho, tag in ((None, "all models"), (False, "tuned-on"), (True, "held-out")):
            sel = [r["err"] for r in rows if r["mode"] == mode and (ho is None or r["held_out"] == ho)]
            print(fmt_metrics(f"{mode} GPU time, {tag}", metrics(sel)))
    share = [r["fitted_share"] for r in rows]
    if share:
        print(f"\nmean share of GPU time priced by the fitted source: {statistics.mean(share) * 100:.0f} %")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
