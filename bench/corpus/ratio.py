#!/usr/bin/env python3
"""Cross-GPU check on the corpus: the predicted speed-up of one GPU over another
(estimated time on A / estimated time on B) against the measured one, per case
and export, from two CSVs written by evaluate.py --csv; with the null model
(no speed-up at all) beside it.

  python3 bench/corpus/ratio.py bench/corpus/data_h200/results_h200.csv bench/corpus/data/results_h100.csv
"""
import csv
import statistics
import sys


def load(path):
    return {(r["model"], r["exporter"], r["mode"], r["dtype"]): r for r in csv.DictReader(open(path))}


def times(r):
    return float(r["estimated_gpu_ms"]), float(r["measured_gpu_ms"])


def summary(errs):
    a = sorted(abs(e) for e in errs)
    return (f"median {100 * statistics.median(a):.1f} %, P90 {100 * a[int(0.9 * len(a))]:.1f} %, "
            f"bias {100 * statistics.median(errs):+.1f} %, n={len(errs)}")


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    a, b = load(sys.argv[1]), load(sys.argv[2])
    ratio, null = [], []
    for key, ra in sorted(a.items()):
        rb = b.get(key)
        try:
            ea, ma = times(ra)
            eb, mb = times(rb)
        except (TypeError, ValueError, KeyError):
            continue
        ratio.append((ea / eb) / (ma / mb) - 1)
        null.append(mb / ma - 1)
    print("speed-up, predicted against measured:", summary(ratio))
    print("null model (no speed-up):", summary(null))


if __name__ == "__main__":
    main()
