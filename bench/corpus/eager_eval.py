#!/usr/bin/env python3
"""dlsim's eager time against corpus eager loops timed beside a host calibration.

bench/corpus/run_eager.sh calibrates the host (calibrate/host_calibrate.py)
before and after timing the eager loops of corpus models in one device call.
For every timed case and both exports this runs `dlsim estimate` twice: with
the machine file's own host section, and with `--host` set to the mean of
that run's two calibrations (a host profile written under build/), and
prints the median |error|, P90 and bias of each by side, mode and dtype.

With --drift (runs whose records carry measure_eager.py's host index) a
third estimate scales the calibrated host by the index taken just before the
case over the index taken just after the calibration: the host calibrated as
it was when the case ran.

With --round R only the times of round R are scored (runs whose cases were
timed in several rounds): set beside the median over rounds, it shows how
much of the error is the loop's own variation.

Usage: eager_eval.py [--data DIR] [--dlsim build/dlsim] [--machine h100]
                     [--side test|cal|all] [--jobs N] [--csv FILE] [--drift] [--round R]
"""
import argparse
import collections
import csv
import glob
import json
import os
import statistics
import sys
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
import corpus  # noqa: E402
import evaluate  # noqa: E402

sys.path.insert(0, os.path.join(ROOT, "calibrate"))
from host_calibrate import ORDER  # noqa: E402  the host keys, in the order the calibration writes them



def mean_profile(jsons, out_path, scale=1.0):
    """The mean of the calibrations' per-kind costs (times `scale`), as a host profile file."""
    runs = [json.load(open(p)) for p in jsons]
    kinds = {k: scale * statistics.mean(r["kinds_us"][k] for r in runs) for k in runs[0]["kinds_us"]}
    info = runs[0]["info"]
    lines = ["host:", "  framework: pytorch", f"  framework_version: \"{info['torch']}\"",
             f"  cpu: \"{info['cpu']}\"", "  calibrated: true",
             f"  dispatch_us: {kinds['elementwise']:.2f}", "  dispatch_us_by_kind:"]
    lines += [f"    {k}: {kinds[k]:.2f}" for k in ORDER if k in kinds]
    with open(out_path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return out_path


def cases(data_dir, side, drift=False, only_round=None):
    """(record, host profile path) of every eager case of the side, from each run in DATA.
    With `drift`, the profile is scaled by the case's host index over the run's first.
    With `only_round`, a case timed in several rounds keeps that round's time alone."""
    out = []
    # one folder per data folder: evaluations of two runs can go side by side
    prof_dir = os.path.join(ROOT, "build", "eager-hosts", os.path.basename(os.path.abspath(data_dir)))
    os.makedirs(prof_dir, exist_ok=True)
    for eager in sorted(glob.glob(os.path.join(data_dir, "eager_*.jsonl"))):
        run = os.path.basename(eager)[len("eager_"):-len(".jsonl")]
        jsons = sorted(glob.glob(os.path.join(data_dir, f"host_{run}_*.json")))
        if not jsons:
            sys.exit(f"eager_eval.py: {eager}: no host_{run}_*.json calibration beside it")
        profile = mean_profile(jsons, os.path.join(prof_dir, f"host_{run}.yaml"))
        rounds = collections.defaultdict(list)  # a case timed in several rounds: their median
        start_index = None
        for line in open(eager):
            rec = json.loads(line)
            if rec.get("mode") == "host_index" and start_index is None:
                start_index = rec["host_index_us"]
            if "model" not in rec or "error" in rec:
                continue
            if side != "all" and corpus.spec(rec["model"])["side"] != side:
                continue
            if only_round is not None and rec.get("round", 0) != only_round:
                continue
            rounds[(rec["model"], rec["mode"], rec["dtype"])].append(rec)
        if drift and start_index is None:
            sys.exit(f"eager_eval.py: {eager}: no host index (--drift needs measure_eager.py's host_index_us)")
        for recs in rounds.values():
            rec = dict(recs[0], eager_ms=statistics.median(r["eager_ms"] for r in recs), rounds=len(recs))
            case_profile = profile
            if drift:
                scale = round(statistics.median(r["host_index_us"] for r in recs) / start_index, 2)
                rec["host_drift"] = scale
                case_profile = mean_profile(jsons, os.path.join(prof_dir, f"host_{run}_x{scale:.2f}.yaml"), scale)
            out.append((rec, case_profile))
    return out


def estimate(dlsim, machine, rec, exporter, host):
    s = corpus.spec(rec["model"])
    onnx_path = os.path.join(evaluate.CACHE, "onnx", f"{rec['model']}.{exporter}.onnx")
    shape = "x".join(str(d) for d in corpus.input_shape(s, rec["batch"]))
    cmd = [dlsim, "estimate", onnx_path, "--machine", machine, "--input",
           f"{corpus.input_name(s)}:{shape}", "--format", "json"]
    cmd += evaluate.CASE_ARGS[(rec["mode"], rec["dtype"])]
    if host:
        cmd += ["--host", host]
    j, err = evaluate.run_json(cmd)
    return ((j["eager_ms"], j["eager_p10_ms"], j["eager_p90_ms"]) if j else (None, None, None)), err


def row_of(dlsim, machine, rec, profile, exporter):
    row = dict(model=rec["model"], family=corpus.spec(rec["model"])["family"],
               side=corpus.spec(rec["model"])["side"], exporter=exporter, mode=rec["mode"],
               dtype=rec["dtype"], batch=rec["batch"], measured_eager_ms=rec["eager_ms"],
               host_drift=rec.get("host_drift"))
    (row["bundled_eager_ms"], row["bundled_p10_ms"], row["bundled_p90_ms"]), err1 = \
        estimate(dlsim, machine, rec, exporter, None)
    (row["calibrated_eager_ms"], row["calibrated_p10_ms"], row["calibrated_p90_ms"]), err2 = \
        estimate(dlsim, machine, rec, exporter, profile)
    row["error"] = err1 or err2
    return row


def summary(rows, column):
    errs = [(r[column] - r["measured_eager_ms"]) / r["measured_eager_ms"] for r in rows
            if r.get(column) is not None]
    if not errs:
        return "n = 0"
    a = sorted(abs(e) for e in errs)
    p90 = a[min(len(a) - 1, int(round(0.9 * (len(a) - 1))))]
    prefix = column[:-len("_eager_ms")]
    inside = sum(1 for r in rows if r.get(column) is not None and
                 r[prefix + "_p10_ms"] <= r["measured_eager_ms"] <= r[prefix + "_p90_ms"])
    return (f"{100 * statistics.median(a):5.1f} % median, P90 {100 * p90:5.1f} %, "
            f"bias {100 * statistics.median(errs):+5.1f} % (n = {len(errs)}; "
            f"P10-P90 band holds {inside})")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default=os.path.join(HERE, "data_eager"))
    ap.add_argument("--dlsim", default=os.path.join(ROOT, "build", "dlsim"))
    ap.add_argument("--machine", default="h100")
    ap.add_argument("--side", default="test", choices=["test", "cal", "all"])
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--csv")
    ap.add_argument("--round", type=int, dest="only_round",
                    help="score one round's times (measure_eager.py --rounds) instead of their median")
    ap.add_argument("--drift", action="store_true",
                    help="scale the calibrated host by each case's host index (measure_eager.py)")
    args = ap.parse_args()
    evaluate.unpack()
    work = [(rec, prof, ex) for rec, prof in cases(args.data, args.side, args.drift, args.only_round) for ex in evaluate.EXPORTERS]
    with ThreadPoolExecutor(args.jobs) as pool:
        rows = list(pool.map(lambda w: row_of(args.dlsim, args.machine, *w), work))
    failed = [r for r in rows if r["error"]]
    for r in failed[:10]:
        print(f"# {r['model']} {r['exporter']} {r['mode']} {r['dtype']}: {r['error']}")
    groups = collections.defaultdict(list)
    for r in rows:
        groups[("all", "")].append(r)
        groups[(r["mode"], "")].append(r)
        groups[(r["mode"], r["dtype"])].append(r)
    print(f"eager time, corpus {args.side} side, {len(rows)} estimates ({len(failed)} failed)"
          + (f"; round {args.only_round} alone" if args.only_round is not None else "")
          + ("; calibrated host scaled by each case's host index" if args.drift else ""))
    for (mode, dtype), rs in sorted(groups.items()):
        label = f"{mode} {dtype}".strip()
        print(f"  {label:22s} bundled host:    {summary(rs, 'bundled_eager_ms')}")
        print(f"  {'':22s} calibrated host: {summary(rs, 'calibrated_eager_ms')}")
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
            w.writeheader()
            w.writerows(rows)


if __name__ == "__main__":
    main()
