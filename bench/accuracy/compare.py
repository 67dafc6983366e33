#!/usr/bin/env python3
"""Compare dlsim's estimates with the committed reference runs.

Runs `dlsim estimate` (no GPU needed) for every reference case in
bench/accuracy/data/reference_<gpu>*.jsonl and writes docs/accuracy-zoo.md with
the metrics of docs/accuracy.md, plus a log-log predicted-vs-measured
plot (docs/accuracy-<gpu>.svg). Held-out models (zoo.py) are reported apart.

Usage: compare.py [--dlsim build/dlsim] [--gpu h100] [--machine h100]
                  [--out docs/accuracy-zoo.md] [--cases-csv FILE]
"""
import argparse
import glob
import json
import math
import os
import statistics
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from zoo import ZOO, held_out  # noqa: E402


def load_reference(gpu):
    cases = {}
    for path in sorted(glob.glob(os.path.join(HERE, "data", f"reference_{gpu}*.jsonl"))):
        for line in open(path):
            r = json.loads(line)
            if r.get("mode") not in ("inference", "training") or "error" in r:
                continue
            cases[(r["model"], r["mode"], r["dtype"], r["batch"])] = r
    use_eager_rounds(cases, os.path.join(HERE, "data", f"eager_rounds_{gpu}.jsonl"))
    use_gpu_rounds(cases, os.path.join(HERE, "data", f"gpu_rounds_{gpu}.jsonl"))
    return cases


def mode_records(path, mode):
    """(case key, record) for each inference record of `mode` in `path` (a
    rounds file of eager_rounds.py or gpu_rounds.py)."""
    if not os.path.exists(path):
        return
    for line in open(path):
        r = json.loads(line)
        if r.get("mode") == mode:
            yield (r.get("model"), "inference", r.get("dtype"), r.get("batch")), r


def rounds_records(cases, path, mode):
    """(case, record) for each record of `mode` in `path` whose inference case
    the reference has."""
    for key, r in mode_records(path, mode):
        if key in cases:
            yield cases[key], r


def use_gpu_rounds(cases, path):
    """GPU times of later sessions (gpu_rounds.py: the median of interleaved
    rounds, one record per case and session) are averaged with the reference
    run's, each session weighing the same: within a session graph replay
    repeats to 0.1 %, but between sessions cudnn.benchmark may settle on other
    algorithms (a few per cent at batch 1), so the mean of the sessions
    estimates what a run takes better than any one. The reference run's own
    figure is kept as gpu_ms_single and every session's as gpu_ms_sessions. A
    case the reference run lacks (a model measured on this GPU by gpu_rounds.py
    alone) gets the mean of its rounds sessions, and no eager time."""
    for key, r in mode_records(path, "gpu_rounds"):
        case = cases.get(key)
        if case is None:
            case = cases[key] = dict(model=key[0], mode=key[1], dtype=key[2], batch=key[3],
                                     gpu_method="graph_rounds", gpu_ms_sessions=[])
        elif "gpu_ms" not in case:
            continue
        elif "gpu_ms_sessions" not in case:
            case["gpu_ms_single"] = case["gpu_ms"]
            case["gpu_ms_sessions"] = [case["gpu_ms"]]
        case["gpu_ms_sessions"].append(r["gpu_ms"])
        case["gpu_ms"] = statistics.fmean(case["gpu_ms_sessions"])


def use_eager_rounds(cases, path):
    """Inference eager times re-measured in interleaved rounds (eager_rounds.py)
    replace the single measurement of the reference run; that one is kept as
    eager_ms_single."""
    for case, r in rounds_records(cases, path, "eager_rounds"):
        case["eager_ms_single"] = case.get("eager_ms")
        case["eager_ms"] = r["eager_ms"]
        case["eager_rounds_ms"] = r["rounds_ms"]


ZOO_DIR = os.path.join(ROOT, "tests", "data", "zoo")


def estimate(dlsim, machine, model, mode, dtype, batch, onnx_dir=ZOO_DIR):
    onnx = os.path.join(onnx_dir, model + ".onnx")
    cmd = [dlsim, "estimate", onnx, "--machine", machine, "--batch", str(batch),
           "--dtype", dtype, "--mode", mode, "--format", "json"]
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    if p.returncode != 0:
        return {"error": p.stderr.strip()[-300:]}
    j = json.loads(p.stdout)
    j.pop("layers", None)
    return j


def metrics(errors):
    if not errors:
        return None
    a = sorted(abs(e) for e in errors)
    p90 = a[min(len(a) - 1, int(math.ceil(0.9 * len(a))) - 1)]
    return dict(n=len(a), median=statistics.median(a), p90=p90,
                within10=sum(1 for e in a if e <= 0.10) / len(a),
                bias=statistics.median(errors))


def fmt_metrics(name, m):
    if m is None:
        return f"| {name} | 0 | – | – | – | – |"
    return (f"| {name} | {m['n']} | {m['median']*100:.1f} % | {m['p90']*100:.1f} % | "
            f"{m['within10']*100:.0f} % | {m['bias']*100:+.1f} % |")


def svg_plot(points, path, title, legend=("tuned-on models", "held-out models")):
    """Log-log scatter: x measured, y predicted (ms); held-out in orange."""
    W, H, M = 560, 560, 60
    vals = [v for p in points for v in p[:2] if v > 0]
    lo = 10 ** math.floor(math.log10(min(vals)))
    hi = 10 ** math.ceil(math.log10(max(vals)))

    def sx(v):
        return M + (math.log10(v) - math.log10(lo)) / (math.log10(hi) - math.log10(lo)) * (W - 2 * M)

    def sy(v):
        return H - M - (math.log10(v) - math.log10(lo)) / (math.log10(hi) - math.log10(lo)) * (H - 2 * M)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="12">',
           f'<rect width="{W}" height="{H}" fill="white"/>',
           f'<text x="{W/2}" y="20" text-anchor="middle" font-size="14">{title}</text>']
    d = lo
    while d <= hi * 1.0001:
        out.append(f'<line x1="{sx(d):.1f}" y1="{sy(lo):.1f}" x2="{sx(d):.1f}" y2="{sy(hi):.1f}" stroke="#ddd"/>')
        out.append(f'<line x1="{sx(lo):.1f}" y1="{sy(d):.1f}" x2="{sx(hi):.1f}" y2="{sy(d):.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{sx(d):.1f}" y="{H-M+16}" text-anchor="middle">{d:g}</text>')
        out.append(f'<text x="{M-6}" y="{sy(d)+4:.1f}" text-anchor="end">{d:g}</text>')
        d *= 10
    out.append(f'<line x1="{sx(lo):.1f}" y1="{sy(lo):.1f}" x2="{sx(hi):.1f}" y2="{sy(hi):.1f}" stroke="#888" stroke-dasharray="4"/>')
    for f in (1.1, 1 / 1.1):
        out.append(f'<line x1="{sx(lo):.1f}" y1="{sy(lo*f):.1f}" x2="{sx(hi/f if f>1 else hi):.1f}" y2="{sy(hi if f>1 else hi*f):.1f}" stroke="#bbb" stroke-dasharray="2"/>')
    for meas, pred, ho in points:
        color = "#e67e22" if ho else "#2c7fb8"
        out.append(f'<circle cx="{sx(meas):.1f}" cy="{sy(pred):.1f}" r="3.5" fill="{color}" fill-opacity="0.75"/>')
    out.append(f'<text x="{W/2}" y="{H-15}" text-anchor="middle">measured (ms)</text>')
    out.append(f'<text x="15" y="{H/2}" transform="rotate(-90 15 {H/2})" text-anchor="middle">predicted (ms)</text>')
    out.append(f'<circle cx="{W-150}" cy="45" r="4" fill="#2c7fb8"/><text x="{W-140}" y="49">{legend[0]}</text>')
    out.append(f'<circle cx="{W-150}" cy="62" r="4" fill="#e67e22"/><text x="{W-140}" y="66">{legend[1]}</text>')
    out.append('</svg>')
    with open(path, "w") as f:
        f.write("\n".join(out))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dlsim", default=os.path.join(ROOT, "build", "dlsim"))
    ap.add_argument("--gpu", default="h100")
    ap.add_argument("--machine", default="h100")
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "accuracy-zoo.md"))
    ap.add_argument("--cases-csv", default=os.path.join(HERE, "data", "comparison_h100.csv"))
    ap.add_argument("--zoo", default=ZOO_DIR, help="folder of the zoo's ONNX files")
    ap.add_argument("--ratio-gpu", default="", help="reference GPU for the cross-GPU ratio check (h100)")
    ap.add_argument("--ratio-machine", default="h100")
    ap.add_argument("--notes", default="",
                    help="hand-written notes appended to the page (default: accuracy_notes_<gpu>.md, "
                         "if it exists)")
    args = ap.parse_args()
    globals()["ZOO_DIR"] = args.zoo
    ref = load_reference(args.gpu)
    keys = sorted(ref)
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        ests = list(pool.map(lambda k: estimate(args.dlsim, args.machine, k[0], k[1], k[2], k[3]), keys))
    rows = []
    for k, est in zip(keys, ests):
        r = ref[k]
        row = dict(model=k[0], mode=k[1], dtype=k[2], batch=k[3], held_out=held_out(k[0]),
                   measured_gpu=r["gpu_ms"],
                   gpu_method=r.get("gpu_method", "graph_replay" if k[1] == "inference" else "kernel_sum"))
        if "eager_ms" in r:
            row["measured_eager"] = r["eager_ms"]
        if "error" in est:
            row["error"] = est["error"]
        else:
            row["pred_gpu"] = est["gpu_time_ms"]
            row["pred_eager"] = est["eager_ms"]
            row["pred_cp"] = est["critical_path_ms"]
            row["share_db"] = est["source_share"].get("measured", 0) + est["source_share"].get("fitted", 0)
            row["err_gpu"] = (row["pred_gpu"] - row["measured_gpu"]) / row["measured_gpu"]
            if "measured_eager" in row:
                row["err_eager"] = (row["pred_eager"] - row["measured_eager"]) / row["measured_eager"]
        rows.append(row)
    if args.ratio_gpu:
        rows = add_ratios(rows, args)
    write_csv(rows, args.cases_csv)
    write_doc(rows, args)


def add_ratios(rows, args):
    """Predicted vs measured time ratio target/reference GPU, per case."""
    base = load_reference(args.ratio_gpu)
    keys = [(r["model"], r["mode"], r["dtype"], r["batch"]) for r in rows]
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        ests = list(pool.map(lambda k: estimate(args.dlsim, args.ratio_machine, *k), keys))
    for r, k, est in zip(rows, keys, ests):
        if k not in base or "error" in est or "pred_gpu" not in r:
            continue
        r["measured_ratio"] = r["measured_gpu"] / base[k]["gpu_ms"]
        r["pred_ratio"] = r["pred_gpu"] / est["gpu_time_ms"]
        r["err_ratio"] = (r["pred_ratio"] - r["measured_ratio"]) / r["measured_ratio"]
        r["err_null"] = (1.0 - r["measured_ratio"]) / r["measured_ratio"]
    return rows


def write_csv(rows, path):
    cols = ["model", "mode", "dtype", "batch", "held_out", "measured_gpu", "pred_gpu", "err_gpu",
            "measured_eager", "pred_eager", "err_eager", "pred_cp", "share_db", "gpu_method",
            "measured_ratio", "pred_ratio", "err_ratio", "err_null"]
    with open(path, "w") as f:
        f.write(",".join(cols) + "\n")
        for r in rows:
            f.write(",".join(str(r.get(c, "")) for c in cols) + "\n")


def write_markdown(path, lines, notes_path):
    """The generated lines, then the hand-written notes file if there is one."""
    if os.path.exists(notes_path):
        lines = lines + [open(notes_path).read()]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def select(rows, mode, ho, key):
    return [r[key] for r in rows if r["mode"] == mode and r["held_out"] == ho and key in r]


def write_doc(rows, args):
    failed = [r for r in rows if "error" in r]
    ok = [r for r in rows if "error" not in r]
    svg = os.path.join(os.path.dirname(args.out), f"accuracy-{args.gpu}.svg")
    pts = [(r["measured_gpu"], r["pred_gpu"], r["held_out"]) for r in ok if r["mode"] == "inference"]
    if pts:
        svg_plot(pts, svg, f"dlsim inference GPU time on {args.gpu.upper()}: predicted vs measured")
    L = []
    L.append(f"# Accuracy on the zoo ({args.gpu.upper()})\n")
    L.append("How close dlsim's estimates come to real PyTorch runs of the accuracy zoo, whose kernels "
             "are in the bundled database ([accuracy.md](accuracy.md) describes the reference run). "
             "Generated by "
             "`python3 bench/accuracy/compare.py` from the "
             "measurements committed in `bench/accuracy/data/` (taken on the GPU by "
             "`bench/accuracy/reference_runs.py`; where `data/` holds them, inference eager times are "
             "the medians of `eager_rounds.py`'s interleaved rounds and GPU times the mean over sessions of "
             "that run and `gpu_rounds.py`'s later ones, or of the latter alone for a model the reference run "
             "did not measure on this GPU); re-run it after any change to the estimator.\n")
    machine_file = args.machine if args.machine.endswith(".yaml") else f"machines/{args.machine}.yaml"
    L.append(f"Machine file: `{machine_file}`. Cases: {len(rows)} "
             f"({len(failed)} could not be estimated). Held-out models were never used to fit or tune "
             "anything: " + ", ".join(sorted(m for m in ZOO if held_out(m))) + ".\n")
    L.append("Error = (estimate − measured) / measured. Bias = median signed error.\n")
    L.append("## Summary\n")
    L.append("| set | cases | median abs error | P90 abs error | within ±10 % | bias |")
    L.append("|---|---|---|---|---|---|")
    for mode, key, label in (("inference", "err_gpu", "inference GPU time"),
                             ("inference", "err_eager", "inference eager time"),
                             ("training", "err_gpu", "training step GPU time"),
                             ("training", "err_eager", "training step eager time")):
        for ho, tag in ((False, "tuned-on"), (True, "held-out")):
            L.append(fmt_metrics(f"{label}, {tag}", metrics(select(ok, mode, ho, key))))
    L.append("")
    if args.ratio_gpu:
        L.append(f"### Cross-GPU: predicted vs measured time ratio {args.gpu.upper()}/{args.ratio_gpu.upper()}\n")
        L.append("Error of the predicted ratio t(target)/t(reference) against the measured ratio, and the "
                 "same for the null predictor (ratio = 1).\n")
        L.append("| set | cases | median abs error | P90 abs error | within ±10 % | bias |")
        L.append("|---|---|---|---|---|---|")
        for ho, tag in ((False, "tuned-on"), (True, "held-out")):
            L.append(fmt_metrics(f"dlsim ratio, {tag}", metrics(select(ok, "inference", ho, "err_ratio"))))
            L.append(fmt_metrics(f"null predictor, {tag}", metrics(select(ok, "inference", ho, "err_null"))))
        L.append("")
    if pts:
        L.append(f"![predicted vs measured](accuracy-{args.gpu}.svg)\n")
    L.append("## Worst cases (inference GPU time)\n")
    L.append("| model | dtype | batch | measured ms | predicted ms | error |")
    L.append("|---|---|---|---|---|---|")
    worst = sorted((r for r in ok if r["mode"] == "inference"), key=lambda r: -abs(r["err_gpu"]))[:10]
    for r in worst:
        L.append(f"| {r['model']} | {r['dtype']} | {r['batch']} | {r['measured_gpu']:.3f} | "
                 f"{r['pred_gpu']:.3f} | {r['err_gpu']*100:+.1f} % |")
    L.append("")
    L.append("## Every case\n")
    L.append("| model | mode | dtype | batch | held out | GPU measured ms | GPU predicted ms | error | "
             "eager measured ms | eager predicted ms | error | priced from DB |")
    L.append("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        if "error" in r:
            L.append(f"| {r['model']} | {r['mode']} | {r['dtype']} | {r['batch']} | {r['held_out']} | "
                     f"{r['measured_gpu']:.3f} | failed: {r['error'][:80]} | | | | | |")
            continue
        eager = (f"{r['measured_eager']:.3f} | {r['pred_eager']:.3f} | {r['err_eager']*100:+.1f} %"
                 if "measured_eager" in r else f"– | {r['pred_eager']:.3f} | –")
        L.append(f"| {r['model']} | {r['mode']} | {r['dtype']} | {r['batch']} | "
                 f"{'yes' if r['held_out'] else ''} | {r['measured_gpu']:.3f} | {r['pred_gpu']:.3f} | "
                 f"{r['err_gpu']*100:+.1f} % | {eager} | {r['share_db']*100:.0f} % |")
    L.append("")
    notes = args.notes or os.path.join(HERE, f"accuracy_notes_{args.gpu}.md")
    write_markdown(args.out, L, notes)
    print(f"wrote {args.out}: {len(ok)} cases")
    for mode, key in (("inference", "err_gpu"), ("inference", "err_eager"), ("training", "err_gpu"),
                      ("inference", "err_ratio"), ("inference", "err_null")):
        for ho in (False, True):
            m = metrics(select(ok, mode, ho, key))
            if m:
                print(f"{mode:9s} {key:9s} held_out={ho!s:5s} n={m['n']:3d} median={m['median']*100:5.1f}% "
                      f"p90={m['p90']*100:5.1f}% within10={m['within10']*100:3.0f}% bias={m['bias']*100:+.1f}%")


if __name__ == "__main__":
    main()
