#!/usr/bin/env python3
"""dlsim's peak-memory estimates of the corpus against the peaks measured with the per-process
library workspaces warmed first (data/corpus_prewarm_h100.jsonl, bench/corpus/measure_memory.py
--prewarm; bench/memory/run_corpus_memory.sh), beside the same estimates against the reference
runs' peaks (bench/corpus/data), whose first case to run a GEMM also holds cuBLAS's workspaces.

The estimates come from a CSV of bench/corpus/evaluate.py (both exports of every case):

  python3 bench/corpus/evaluate.py --side test --memory-only --csv FILE
  python3 bench/memory/corpus_peaks.py FILE [FILE ...]
"""
import argparse
import csv
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "corpus"))
from evaluate import fmt, rel, stats  # noqa: E402

PREWARM = os.path.join(HERE, "data", "corpus_prewarm_h100.jsonl")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv", nargs="+", help="evaluate.py --csv output")
    args = ap.parse_args()
    warm = {}
    for line in open(PREWARM):
        r = json.loads(line)
        if "peak_bytes" in r:
            warm[(r["model"], r["mode"], r["dtype"])] = r["peak_bytes"]
    rows = [r for f in args.csv for r in csv.DictReader(open(f)) if r["estimated_peak_bytes"]]
    print("| side, cases | against the reference runs' peaks | against the prewarmed peaks |")
    print("|---|---|---|")
    for side in sorted({r["side"] for r in rows}):
        for mode, dtype in (("training", None), ("training", "fp32"), ("training", "bf16_amp"),
                            ("inference", None), ("inference", "fp32"), ("inference", "fp16")):
            sub = [r for r in rows if r["side"] == side and r["mode"] == mode and dtype in (None, r["dtype"])]
            old = [rel(float(r["estimated_peak_bytes"]), float(r["measured_peak_bytes"] or 0)) for r in sub]
            new = [rel(float(r["estimated_peak_bytes"]), warm.get((r["model"], r["mode"], r["dtype"])))
                   for r in sub]
            print(f"| {side}, {mode} {dtype or ''} | {fmt(stats(old))} | {fmt(stats(new))} |")


if __name__ == "__main__":
    main()
