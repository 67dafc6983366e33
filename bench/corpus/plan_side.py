#!/usr/bin/env python3
"""The calibration job list of a corpus side: every kernel key its measured
cases lower to (`dlsim plan` with each case's input shape, mode and dtype),
less the keys the database already holds and, so that the test side stays
unseen, every key of the other side.

This is what a user who owns the GPU would measure for models like the
calibration side's: `calibrate/torch_calibrate.py --jobs FILE` times the
keys the way PyTorch runs them, and `dlsim db import` adds them.

Usage: plan_side.py [--side cal] [--exclude-side test] [--db calibration/h100.sqlite]
                    [--out calibration/jobs/corpus-cal.txt]
"""
import argparse
import os
import sqlite3
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import corpus  # noqa: E402
import evaluate  # noqa: E402


def plan_args(mode, dtype):
    """evaluate.CASE_ARGS without the options `plan` has no use for."""
    args = evaluate.CASE_ARGS[(mode, dtype)]
    out, skip = [], False
    for a in args:
        if skip:
            skip = False
            continue
        if a == "--optimizer":
            skip = True
            continue
        out.append(a)
    return out


def keys_of_case(dlsim, case, rec, exporter):
    model, mode, dtype = case
    onnx_path = os.path.join(evaluate.CACHE, "onnx", f"{model}.{exporter}.onnx")
    if "error" in rec or not os.path.exists(onnx_path):
        return set()
    s = corpus.spec(model)
    shape = "x".join(str(d) for d in corpus.input_shape(s, rec["batch"]))
    cmd = [dlsim, "plan", onnx_path, "--input", f"{corpus.input_name(s)}:{shape}"] + plan_args(mode, dtype)
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        print(f"plan_side: {model} {mode} {dtype}: {p.stderr.strip()[-200:]}", file=sys.stderr)
        return set()
    return {line for line in p.stdout.splitlines() if line and not line.startswith("#")}


def keys_of_side(dlsim, side):
    wanted = set(corpus.names(side))
    cases = {k: r for k, r in evaluate.measured_cases().items() if k[0] in wanted}
    jobs = [(c, r, e) for c, r in sorted(cases.items()) for e in evaluate.EXPORTERS]
    keys = set()
    with ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        for ks in pool.map(lambda j: keys_of_case(dlsim, *j), jobs):
            keys |= ks
    return keys


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--side", default="cal")
    ap.add_argument("--exclude-side", default="test")
    ap.add_argument("--db", default=os.path.join(evaluate.ROOT, "calibration", "h100.sqlite"))
    ap.add_argument("--dlsim", default=os.path.join(evaluate.ROOT, "build", "dlsim"))
    ap.add_argument("--out", default=os.path.join(evaluate.ROOT, "calibration", "jobs", "corpus-cal.txt"))
    args = ap.parse_args()
    evaluate.unpack()
    keys = keys_of_side(args.dlsim, args.side)
    n_side = len(keys)
    other = keys_of_side(args.dlsim, args.exclude_side) if args.exclude_side else set()
    have = {k for (k,) in sqlite3.connect(args.db).execute("SELECT DISTINCT key FROM measurements")}
    jobs = sorted(keys - other - have)
    with open(args.out, "w") as f:
        f.write(f"# {len(jobs)} keys: bench/corpus/plan_side.py --side {args.side} "
                f"--exclude-side {args.exclude_side} ({n_side} keys of the side, "
                f"{len(keys & other)} shared with the excluded side, {len(keys & have)} already measured)\n")
        for k in jobs:
            f.write(k + "\n")
    print(f"plan_side: {len(jobs)} keys to {args.out} ({n_side} on the side, "
          f"{len(keys & other)} shared with {args.exclude_side}, {len(keys & have)} in the database)")


if __name__ == "__main__":
    main()
