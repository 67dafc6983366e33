#!/usr/bin/env python3
"""How many neighbours should vote on an uncounted key's kernel count?

dlsim gives a key nobody counted the most common count among the k nearest
counted keys of its kind (include/dlsim/perfdb/kernel_counts.h). This
checks k on keys held out the way a user's model is: the counted keys of
the zoo-blind database (bench/accuracy/blind.py: the H100's database less
every zoo and corpus model's own keys) are the neighbours, and the keys it
lacks are predicted from them. It prints, per kind and over all, the share
predicted within 10 % for each k. Recurrent kinds are left out (their
counts scale with the time steps, not by vote).

The distance is dlsim's: each differing category (dtype, math, layout, a
text parameter) 4, a category one key lacks 2, a numeric parameter one key
lacks 4, and |log2(a + 1) - log2(b + 1)| per shared numeric parameter; equal
distances go to the key that sorts first; a tied vote to the nearer count.

Usage: count_neighbours.py [--full calibration/h100.sqlite]
                           [--blind build/blind/h100-blind.sqlite] [--k 1,3,5,9]
"""
import argparse
import collections
import os
import sqlite3
import sys

import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def counted(path, hint=""):
    """kind -> {key: kernels per call} of a database's counted records."""
    if not os.path.exists(path):
        sys.exit(f"count_neighbours.py: {path}: no such database{hint}")
    out = collections.defaultdict(dict)
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    for key, n in con.execute("SELECT key, json_array_length(kernels) FROM measurements "
                              "WHERE status = 'counted'"):
        out[key.split()[0]][key] = n
    return out


def encode(keys):
    """Per parameter name: log2(v + 1) columns (NaN where absent) or category codes (-1)."""
    params = [dict(p.split("=", 1) for p in k.split()[1:]) for k in keys]
    names = sorted({n for p in params for n in p})
    numbers, categories = {}, {}
    for name in names:
        vals = [p.get(name) for p in params]
        numeric = name not in ("dtype", "math", "layout") and all(
            v is None or v.lstrip("-").isdigit() for v in vals)
        if numeric:
            numbers[name] = np.array([np.log2(max(int(v), 0) + 1) if v is not None else np.nan
                                      for v in vals])
        else:
            codes = {}
            categories[name] = np.array([codes.setdefault(v, len(codes)) if v is not None else -1
                                         for v in vals])
    return numbers, categories


def distances(i, n_train, numbers, categories):
    d = np.zeros(n_train)
    for codes in categories.values():
        a, c = codes[i], codes[:n_train]
        d += np.where((c >= 0) & (a >= 0) & (c != a), 4.0, 0.0) + np.where((c >= 0) != (a >= 0), 2.0, 0.0)
    for col in numbers.values():
        a, x = col[i], col[:n_train]
        present = ~np.isnan(x)
        d += np.where(present, 4.0, 0.0) if np.isnan(a) else np.where(present, np.abs(np.nan_to_num(x) - a), 4.0)
    return d


def vote(counts):
    tally = collections.Counter(counts)
    most = max(tally.values())
    return next(c for c in counts if tally[c] == most)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--full", default=os.path.join(ROOT, "calibration", "h100.sqlite"))
    ap.add_argument("--blind", default=os.path.join(ROOT, "build", "blind", "h100-blind.sqlite"))
    ap.add_argument("--k", default="1,3,5,9")
    a = ap.parse_args()
    ks = [int(k) for k in a.k.split(",")]
    full = counted(a.full)
    blind = counted(a.blind, " (python3 bench/accuracy/blind.py writes it)")
    within = collections.Counter()
    total = 0
    print(f"{'kind':<18} {'neighbours':>10} {'held out':>8}  " + "  ".join(f"k={k:<5}" for k in ks))
    for kind in sorted(full):
        if kind.startswith("rnn"):
            continue
        train = sorted(blind.get(kind, {}).items())
        test = sorted((k, n) for k, n in full[kind].items() if k not in blind.get(kind, {}))
        if not train or not test:
            continue
        numbers, categories = encode([k for k, _ in train + test])
        train_counts = np.array([n for _, n in train])
        hits = collections.Counter()
        for j, (_, truth) in enumerate(test):
            d = distances(len(train) + j, len(train), numbers, categories)
            order = np.lexsort((np.arange(len(train)), d))  # train is in key order: ties to the first
            for k in ks:
                pred = vote(train_counts[order[:k]].tolist())
                hits[k] += abs(pred - truth) <= 0.1 * truth
        for k in ks:
            within[k] += hits[k]
        total += len(test)
        print(f"{kind:<18} {len(train):>10} {len(test):>8}  " +
              "  ".join(f"{hits[k] / len(test):.3f}  " for k in ks))
    print(f"{'all':<18} {'':>10} {total:>8}  " + "  ".join(f"{within[k] / total:.3f}  " for k in ks))


if __name__ == "__main__":
    main()
