#!/usr/bin/env python3
"""Reads every CSV that dlsim writes back with Python's csv module.

Each output must parse as RFC 4180 CSV with one header, every row as many
fields as the header, at least one row, the identifying columns where they
apply (model, machine, batch, dtype, mode; docs/reports.md, "CSV columns")
and a number in every column named *_s, *_ms, *_us or share_*.

Usage: tools/check_csv_output.py --dlsim build/dlsim [--root DIR]
Run by ctest as the test `csv_output_readback` (label `docs`).
"""
import argparse
import csv
import io
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ALL = ["model", "machine", "batch", "dtype", "mode"]
TRACE = "tests/data/traces/resnet18_b16_fp32.trace.json"
JOB = "workloads/llm/gpt3-175b.yaml"
STUDY = "workloads/candle-projection.yaml"

# (name, dlsim arguments, the columns it must have, a file the command writes
# instead of stdout or None). Where a column does not apply it is not required:
# comm tables are of a machine's links, db export rows of a GPU's measured keys.
CASES = [
    ("estimate --format csv", ["estimate", "tests/data/zoo/resnet50.onnx", "--machine", "h100",
                               "--batch", "16", "--format", "csv"], ALL, None),
    ("estimate --csv FILE", ["estimate", "tests/data/zoo/gpt2_small.onnx", "--machine", "h100",
                             "--batch", "2", "--mode", "training", "--quiet", "--csv", "{out}"], ALL, "{out}"),
    ("estimate --workload --format csv", ["estimate", "--workload", STUDY, "--machine", "h200",
                                          "--format", "csv"], ALL, None),
    ("fom --format csv", ["fom", STUDY, "--format", "csv"], ALL, None),
    ("fom --format csv, measured", ["fom", "workloads/candle-fom-example.yaml", "--format", "csv"], ALL, None),
    ("sweep --format csv", ["sweep", STUDY, "--grid", "memory_bw=x1,x2", "--format", "csv"], ALL, None),
    ("sweep --out FILE", ["sweep", "workloads/resnet50-imagenet.yaml", "--machine", "h100",
                          "--grid", "matrix_peak=x1,x2", "--out", "{out}"], ALL, "{out}"),
    ("compare --format csv", ["compare", "tests/data/zoo/resnet18.onnx", "--profile", TRACE,
                              "--machine", "h100", "--batch", "16", "--format", "csv"], ALL, None),
    ("scale --format csv", ["scale", JOB, "--machine", "a100", "--search", "--gpus", "512", "--top", "3",
                            "--format", "csv"],
     ["model", "machine", "global_batch", "microbatch", "dtype", "mode"], None),
    ("scale --calls", ["scale", JOB, "--machine", "a100", "--calls"], ALL, None),
    ("comm --format csv", ["comm", "--machine", "h200", "--format", "csv"], ["machine"], None),
    ("db export --format csv", ["db", "export", "--db", "calibration/h200.sqlite", "--out", "{out}",
                                "--format", "csv"], ["gpu_name", "key"], "{out}"),
]


def numeric(column):
    return column.endswith(("_s", "_ms", "_us")) or column.startswith("share_")


def check(name, text, required):
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    rows = list(reader)
    if len(rows) < 2:
        return [f"{name}: no data row"], 0
    header, body = rows[0], rows[1:]
    problems = [f"{name}: no column '{c}'" for c in required if c not in header]
    for i, row in enumerate(body, start=2):
        if len(row) != len(header):
            problems.append(f"{name}: line {i} has {len(row)} fields, the header {len(header)}")
            continue
        timed = "status" not in header or row[header.index("status")] in ("ok", "noisy")
        for column, value in zip(header, row):
            if not numeric(column) or (value == "" and not timed):
                continue  # a failed or counted record has no times
            try:
                float(value)
            except ValueError:
                problems.append(f"{name}: line {i} column {column}: '{value}' is not a number")
    for c in required:
        if c in header and all(r[header.index(c)] == "" for r in body if len(r) == len(header)):
            if c != "model":  # a measured-only workload has no model
                problems.append(f"{name}: column '{c}' is empty in every row")
    return problems[:10], len(body)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dlsim", default=os.path.join(ROOT, "build", "dlsim"))
    ap.add_argument("--root", default=ROOT)
    args = ap.parse_args()
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        for n, (name, argv, required, out) in enumerate(CASES):
            path = os.path.join(tmp, f"out{n}.csv")
            cmd = [args.dlsim] + [a.replace("{out}", path) for a in argv]
            r = subprocess.run(cmd, cwd=args.root, capture_output=True, text=True)
            if r.returncode != 0:
                print(f"FAIL {name}: {' '.join(cmd)} exited {r.returncode}: {r.stderr.strip()[:400]}")
                failures += 1
                continue
            if out is None:
                text = r.stdout
            else:
                with open(path, encoding="utf-8", newline="") as f:
                    text = f.read()
            problems, count = check(name, text, required)
            for p in problems:
                print("FAIL " + p)
            if problems:
                failures += 1
            else:
                print(f"ok   {name}: {count} rows")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
