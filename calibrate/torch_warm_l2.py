#!/usr/bin/env python3
"""How much of a pointwise or row kernel's time is not device-memory time.

The calibration database times every kernel cold in L2 (torch_calibrate.py),
where the time of a large pointwise kernel is about its bytes over the memory
bandwidth on the H100 whatever the op: GELU and ReLU look alike. They are not:
an op that issues many instructions per element (erf, a layer norm's
reductions) is close to its instruction limit too, and a GPU with more
bandwidth but the same SMs speeds it up less. This script separates the two on
one GPU by timing each kernel twice at the same size, with its tensors warm in
L2 (one input set, read and written again by every call of a CUDA graph) and
cold (as torch_calibrate.py does). The warm time bounds the kernel's
non-memory (issue) time from above; docs/cost-model.md says how the estimator
uses it.

Usage: torch_warm_l2.py --out FILE.jsonl [--reps N]
Writes one header line and one line per (kernel, dtype, size).
"""
import argparse
import json
import os
import random
import sqlite3
import statistics
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_calibrate as tc  # noqa: E402

UNARY_OPS = sorted(tc.UNARY)
BINARY_OPS = sorted(tc.BINARY)
ROW_KINDS = ("layernorm_fwd", "softmax_fwd")
ROW_COLS = (64, 96, 128, 192, 256, 384, 512, 768, 1024, 2048, 3072, 4096)
MIB = 1 << 20
# Footprints (inputs + output) timed warm and cold: all well inside a 50 MiB
# L2, several sizes so that the cost per element is a slope, free of the
# fixed start-up time of a kernel.
FOOTPRINTS_MIB = (4, 8, 12, 16, 20, 24)


def elementwise_keys(dtype, esz):
    """(key, elements) for each op at each footprint."""
    variants = [(op, 1) for op in UNARY_OPS] + [("bias_add", 1)]
    variants += [(op, 2) for op in BINARY_OPS] + [(op, 1) for op in ("add", "mul", "div", "pow")]
    for op, arity in variants:
        for mib in FOOTPRINTS_MIB:
            elems = mib * MIB // (esz * (arity + 1))
            yield (f"elementwise op={op} elems={elems} arity={arity} dtype={dtype} math=fp32 layout=-",
                   elems)


def row_keys(dtype, esz):
    for kind in ROW_KINDS:
        for cols in ROW_COLS:
            for mib in FOOTPRINTS_MIB:
                rows = mib * MIB // (2 * cols * esz)
                yield f"{kind} rows={rows} cols={cols} dtype={dtype} math=fp32 layout=-", rows * cols


def database_keys(path, kinds, per_kind):
    """Up to `per_kind` keys of each kind in a calibration database whose
    tensors take 4-24 MiB (warm in a 50 MiB L2), drawn at random (seed 0)."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    picked = []
    for kind in kinds:
        keys = sorted({k for (k,) in db.execute(
            "select key from measurements where kind = ? and status = 'ok'", (kind,))})
        random.Random(0).shuffle(keys)
        n = 0
        for key in keys:
            if n >= per_kind:
                break
            built = tc.build(key)
            if built is not None and 4 * MIB <= built[0] <= 24 * MIB:
                picked.append((key, 0))
                n += 1
    return picked


def timed_ms(key, warm, reps):
    nbytes, make, fn = tc.build(key)[:3]
    sets = 1 if warm else tc.cold_sets(nbytes)
    inputs = [make() for _ in range(sets)]
    samples = tc.time_graph(fn, inputs, reps)
    del inputs
    return statistics.median(samples), nbytes


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--reps", type=int, default=31)
    ap.add_argument("--db", help="also time keys of this calibration database (see --db-kinds)")
    ap.add_argument("--db-kinds", default="batchnorm_infer,copy,pool_fwd,reduction")
    ap.add_argument("--db-per-kind", type=int, default=40)
    args = ap.parse_args()
    tc.L2_BYTES = getattr(torch.cuda.get_device_properties(0), "L2_cache_size", 50 << 20)
    t0 = time.time()
    with open(args.out, "w") as out:
        out.write(json.dumps(dict(tc.header(), mode="environment", l2_bytes=tc.L2_BYTES,
                                  torch=torch.__version__)) + "\n")
        for dtype in ("fp32", "fp16", "bf16"):
            esz = torch.empty(0, dtype=tc.DT[dtype]).element_size()
            keys = list(elementwise_keys(dtype, esz)) + list(row_keys(dtype, esz))
            if args.db and dtype == "fp32":  # the database keys carry their own dtype
                keys += database_keys(args.db, args.db_kinds.split(","), args.db_per_kind)
            for n, (key, elems) in enumerate(keys):
                rec = dict(key=key, elems=elems)
                try:
                    rec["warm_ms"], rec["bytes"] = timed_ms(key, True, args.reps)
                    rec["cold_ms"], _ = timed_ms(key, False, args.reps)
                except Exception as e:  # noqa: BLE001 - record the failure and go on
                    rec["error"] = repr(e)[:200]
                out.write(json.dumps(rec) + "\n")
                out.flush()
                if n % 40 == 0:
                    print(f"# {dtype} {n}/{len(keys)} {time.time() - t0:.0f}s", flush=True)
    print(f"# done in {time.time() - t0:.0f}s", flush=True)


if __name__ == "__main__":
    main()
