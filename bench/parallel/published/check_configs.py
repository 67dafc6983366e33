#!/usr/bin/python3
"""Checks bench/parallel/published/configs.csv (stdlib only).

  /usr/bin/python3 bench/parallel/published/check_configs.py [-v] [--strict] [configs.csv]

Hard checks (exit 1 on failure): column names, numeric types, tp*pp*dp == gpus,
heads % tp == 0, layers % pp == 0, layers % (pp*virtual_stages) == 0,
global_batch % (dp*microbatch) == 0, recompute / zero / sequence_parallel values.

Consistency report (printed, not fatal unless --strict):
  * rows with both measured_tflops_per_gpu and measured_iteration_s against
    Narayanan et al. (SC21) Eq. 3,
        F = 96 B s l h^2 (1 + s/(6h) + V/(16 l h))   per iteration,
        tflops_per_gpu = F / (iteration_s * gpus * 1e12),
    flagged when they differ by more than 5 %;
  * rows with measured_iteration_s and measured_mfu (or measured_hfu for
    selective recompute) against Korthikanti et al. (2022) Eqs. 7 and 8,
        model FLOPs    = 72 B l s h^2 (1 + s/(6h) + V/(12 h l)),
        hardware FLOPs = 72 B l s h^2 (1 + s/(3h) + V/(12 h l)),
    divided by iteration_s * gpus * peak; flagged beyond 5 %.
  Both formulas assume ffn_hidden = 4*hidden and full multi-head attention.
"""
import csv
import os
import sys

COLUMNS = ["id", "source", "system", "gpu", "gpus", "params_b", "layers", "hidden",
           "heads", "ffn_hidden", "vocab", "seq_len", "tp", "pp", "dp",
           "virtual_stages", "microbatch", "global_batch", "sequence_parallel",
           "recompute", "zero", "measured_tflops_per_gpu", "measured_iteration_s",
           "measured_mfu", "measured_hfu", "measured_memory_gb", "notes"]
INTS = ["gpus", "layers", "hidden", "heads", "ffn_hidden", "vocab", "seq_len", "tp",
        "pp", "dp", "virtual_stages", "microbatch", "global_batch",
        "sequence_parallel", "zero"]
FLOATS = ["params_b", "measured_tflops_per_gpu", "measured_iteration_s",
          "measured_mfu", "measured_hfu", "measured_memory_gb"]
# Dense 16-bit tensor-core peak, TFLOP/s per GPU (vendor datasheets).
PEAK_TFLOPS = {"A100-SXM4-80GB": 312.0, "A100-SXM4-40GB": 312.0,
               "H100-SXM5-80GB": 989.0}
TOL = 0.05


def narayanan_flops(b, s, l, h, v):
    return 96.0 * b * s * l * h * h * (1 + s / (6.0 * h) + v / (16.0 * l * h))


def model_flops(b, s, l, h, v):
    return 72.0 * b * l * s * h * h * (1 + s / (6.0 * h) + v / (12.0 * h * l))


def hardware_flops_selective(b, s, l, h, v):
    return 72.0 * b * l * s * h * h * (1 + s / (3.0 * h) + v / (12.0 * h * l))


def parse(rows):
    errors = []
    parsed = []
    for n, r in enumerate(rows, start=2):
        p = {"_line": n, "id": r["id"]}
        for c in COLUMNS:
            val = (r.get(c) or "").strip()
            if c in INTS:
                if val == "":
                    p[c] = None
                else:
                    try:
                        p[c] = int(val)
                    except ValueError:
                        errors.append(f"line {n} {r['id']}: {c}={val!r} is not an integer")
                        p[c] = None
            elif c in FLOATS:
                if val == "":
                    p[c] = None
                else:
                    try:
                        p[c] = float(val)
                    except ValueError:
                        errors.append(f"line {n} {r['id']}: {c}={val!r} is not a number")
                        p[c] = None
            else:
                p[c] = val
        parsed.append(p)
    return parsed, errors


def structural(p):
    e = []
    rid = f"line {p['_line']} {p['id']}"
    for c in ("id", "source", "system", "gpu", "gpus", "layers", "hidden", "heads",
              "seq_len", "tp", "pp", "dp"):
        if p[c] in (None, ""):
            e.append(f"{rid}: required column {c} is empty")
    if e:
        return e
    if p["tp"] * p["pp"] * p["dp"] != p["gpus"]:
        e.append(f"{rid}: tp*pp*dp = {p['tp']}*{p['pp']}*{p['dp']} != gpus {p['gpus']}")
    if p["heads"] % p["tp"]:
        e.append(f"{rid}: heads {p['heads']} not divisible by tp {p['tp']}")
    if p["layers"] % p["pp"]:
        e.append(f"{rid}: layers {p['layers']} not divisible by pp {p['pp']}")
    v = p["virtual_stages"]
    if v is not None and p["layers"] % (p["pp"] * v):
        e.append(f"{rid}: layers {p['layers']} not divisible by pp*virtual_stages {p['pp'] * v}")
    if p["global_batch"] is not None and p["microbatch"] is not None:
        if p["global_batch"] % (p["dp"] * p["microbatch"]):
            e.append(f"{rid}: global_batch {p['global_batch']} not divisible by dp*microbatch")
    if p["recompute"] not in ("", "none", "selective", "full"):
        e.append(f"{rid}: recompute {p['recompute']!r} not in none/selective/full")
    if p["zero"] is not None and not 0 <= p["zero"] <= 3:
        e.append(f"{rid}: zero {p['zero']} not in 0..3")
    if p["sequence_parallel"] not in (None, 0, 1):
        e.append(f"{rid}: sequence_parallel must be 0 or 1")
    for c in ("measured_mfu", "measured_hfu"):
        if p[c] is not None and not 0 < p[c] <= 1:
            e.append(f"{rid}: {c} {p[c]} should be a fraction in (0, 1]")
    return e


def consistency(p):
    """Returns (messages, flagged) for the formula cross-checks of one row."""
    msgs, flagged = [], False
    b, s, l, h, v = p["global_batch"], p["seq_len"], p["layers"], p["hidden"], p["vocab"]
    if None in (b, s, l, h, v):
        return msgs, flagged
    t, tf = p["measured_iteration_s"], p["measured_tflops_per_gpu"]
    if t is not None and tf is not None:
        est = narayanan_flops(b, s, l, h, v) / (t * p["gpus"] * 1e12)
        rel = est / tf - 1
        bad = abs(rel) > TOL
        flagged |= bad
        msgs.append(f"{'MISMATCH' if bad else 'ok':8s} {p['id']}: Eq.3 TFLOP/s from "
                    f"iteration {est:7.1f} vs listed {tf:7.1f} ({rel:+.1%})")
    peak = PEAK_TFLOPS.get(p["gpu"])
    if t is not None and peak is not None:
        if p["measured_mfu"] is not None:
            est = model_flops(b, s, l, h, v) / (t * p["gpus"] * peak * 1e12)
            rel = est / p["measured_mfu"] - 1
            bad = abs(rel) > TOL
            flagged |= bad
            msgs.append(f"{'MISMATCH' if bad else 'ok':8s} {p['id']}: model-FLOPs MFU from "
                        f"iteration {est:.3f} vs listed {p['measured_mfu']:.3f} ({rel:+.1%})")
        if p["measured_hfu"] is not None and p["recompute"] == "selective":
            est = hardware_flops_selective(b, s, l, h, v) / (t * p["gpus"] * peak * 1e12)
            rel = est / p["measured_hfu"] - 1
            bad = abs(rel) > TOL
            flagged |= bad
            msgs.append(f"{'MISMATCH' if bad else 'ok':8s} {p['id']}: selective HFU from "
                        f"iteration {est:.3f} vs listed {p['measured_hfu']:.3f} ({rel:+.1%})")
    if tf is not None and peak is not None and p["measured_hfu"] is not None \
            and p["recompute"] == "full":
        rel = (tf / peak) / p["measured_hfu"] - 1
        # Percentages are printed to whole percent: allow that rounding.
        bad = abs(tf / peak - p["measured_hfu"]) > 0.006
        flagged |= bad
        msgs.append(f"{'MISMATCH' if bad else 'ok':8s} {p['id']}: TFLOP/s / peak "
                    f"{tf / peak:.3f} vs listed % of peak {p['measured_hfu']:.3f}")
    return msgs, flagged


def main(argv):
    strict = "--strict" in argv
    verbose = "-v" in argv
    args = [a for a in argv[1:] if a not in ("--strict", "-v")]
    path = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                             "configs.csv")
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        if reader.fieldnames != COLUMNS:
            print(f"column names differ from the expected list:\n  got  {reader.fieldnames}"
                  f"\n  want {COLUMNS}")
            return 1
        rows = list(reader)
    parsed, errors = parse(rows)
    ids = [p["id"] for p in parsed]
    for dup in sorted({i for i in ids if ids.count(i) > 1}):
        errors.append(f"duplicate id {dup}")
    for p in parsed:
        errors.extend(structural(p))
    print(f"{path}: {len(parsed)} rows")
    if errors:
        print("STRUCTURAL ERRORS:")
        for e in errors:
            print("  " + e)
    else:
        print("structure: ok (types, tp*pp*dp = gpus, heads % tp, layers % pp, "
              "layers % (pp*v), batch % (dp*mb))")
    nflag = 0
    print("formula cross-checks (5 % tolerance):")
    for p in parsed:
        msgs, flagged = consistency(p)
        nflag += flagged
        for m in msgs:
            if flagged or verbose:
                print("  " + m)
    print(f"rows flagged by the cross-checks: {nflag} (run with -v to list the passing checks)")
    if errors or (strict and nflag):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
