#!/usr/bin/env python3
"""dlsim against the corpus reference runs (runs anywhere; needs build/dlsim).

For every measured case (model x inference fp32/fp16, training fp32/bf16 AMP)
and both exports of its model (TorchScript and dynamo), it runs
  dlsim estimate MODEL --input NAME:SHAPE --dtype ... [--mode training]
  dlsim compare  MODEL --profile TRACE ...          (the kernel attribution)
and writes one CSV row per (case, exporter): measured and estimated GPU time,
eager time, kernel count, the share of measured kernel time no dlsim call
accounts for (1 - compare's aligned share), peak memory, and the error of a
model that did not load. It prints the summary and, with --markdown, writes
the corpus accuracy report.

Usage: evaluate.py [--side test|cal|all] [--dlsim build/dlsim] [--machine h100]
                   [--csv FILE] [--markdown FILE] [--jobs N] [--memory-only]
"""
import argparse
import csv
import glob
import json
import os
import statistics
import subprocess
import sys
import tarfile
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "accuracy"))
import corpus  # noqa: E402
from compare import svg_plot  # noqa: E402

CACHE = os.path.join(ROOT, "build", "corpus-cache")
DATA = os.path.join(HERE, "data")  # the measured runs; --data picks another GPU's
EXPORTERS = ("ts", "dynamo")
# measured (mode, dtype) -> dlsim options
CASE_ARGS = {
    ("inference", "fp32"): ["--dtype", "fp32"],
    ("inference", "fp16"): ["--dtype", "fp16"],
    ("training", "fp32"): ["--mode", "training", "--dtype", "fp32", "--optimizer", "sgd_momentum"],
    ("training", "bf16_amp"): ["--mode", "training", "--dtype", "bf16", "--amp", "--optimizer", "sgd_momentum"],
}


def unpack():
    """Every run's ONNX files and traces under CACHE (once per tarball)."""
    os.makedirs(CACHE, exist_ok=True)
    for tar in sorted(glob.glob(os.path.join(DATA, "run*", "*.tar.xz"))):
        stamp = os.path.join(CACHE, os.path.relpath(tar, HERE).replace("/", "_") + ".done")
        if os.path.exists(stamp) and os.path.getmtime(stamp) >= os.path.getmtime(tar):
            continue
        with tarfile.open(tar) as t:
            if hasattr(tarfile, "data_filter"):  # Python >= 3.11.4 / 3.12
                t.extractall(CACHE, filter="data")
            else:  # our own tarballs; refuse members that leave CACHE
                for m in t.getmembers():
                    if m.name.startswith("/") or ".." in m.name.split("/") or not (m.isfile() or m.isdir()):
                        raise SystemExit(f"{tar}: unsafe member {m.name}")
                t.extractall(CACHE)
        open(stamp, "w").close()


def measured_cases():
    """{(model, mode, dtype): record} over every run; a later run wins."""
    out = {}
    for path in sorted(glob.glob(os.path.join(DATA, "run*", "measure.jsonl"))):
        for line in open(path):
            r = json.loads(line)
            if r.get("mode") in ("inference", "training") and "model" in r:
                out[(r["model"], r["mode"], r["dtype"])] = r
    return out


def export_path(model, exporter, mode, dtype="fp32"):
    """The export a case is estimated from: the model as the reference run ran
    it. Training steps ran it in training mode, dropout and all, so a training
    case reads the export made in training mode (NAME.train.EXPORTER.onnx,
    export.py --train); fp16 inference ran model.half(), whose upcasts to fp32
    (T5's and Llama's norms) an fp32 export does not show, so it reads the
    export of the half model (NAME.half.EXPORTER.onnx, export.py --half).
    Where that export failed, the eval-mode fp32 export."""
    onnx_dir = os.path.join(CACHE, "onnx")
    variant = "train" if mode == "training" else "half" if dtype == "fp16" else None
    path = os.path.join(onnx_dir, f"{model}.{variant}.{exporter}.onnx")
    if variant is not None and os.path.exists(path):
        return path
    return os.path.join(onnx_dir, f"{model}.{exporter}.onnx")


def run_json(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        return None, (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[-1][:300]
    try:
        return json.loads(p.stdout), None
    except json.JSONDecodeError as e:
        return None, "bad JSON: %s" % e


def evaluate_case(dlsim, machine, key, rec, exporter, memory_only=False):
    model, mode, dtype = key
    s = corpus.spec(model)
    onnx_path = export_path(model, exporter, mode, dtype)
    shape = "x".join(str(d) for d in corpus.input_shape(s, rec["batch"]))
    common = ["--machine", machine, "--input", f"{corpus.input_name(s)}:{shape}", "--format", "json"]
    common += CASE_ARGS[(mode, dtype)]
    row = dict(model=model, family=s["family"], side=s["side"], exporter=exporter, mode=mode, dtype=dtype,
               batch=rec["batch"], measured_gpu_ms=None, estimated_gpu_ms=None)
    if "error" in rec:
        row["measure_error"] = rec["error"][:200]
        return row
    if mode == "inference":
        row["measured_gpu_ms"], row["gpu_method"] = corpus.gpu_time(rec)
    else:
        row["measured_gpu_ms"], row["gpu_method"] = rec["kernel_sum_ms"], "kernel_sum"
    row.update(measured_eager_ms=rec["eager_ms"], measured_kernels=rec["kernels"],
               measured_peak_bytes=rec["peak_bytes"])
    if not os.path.exists(onnx_path):
        row["load_error"] = "not exported"
        return row
    est, err = run_json([dlsim, "estimate", onnx_path] + common)
    if est is None:
        row["load_error"] = err
        return row
    row.update(estimated_gpu_ms=est["gpu_time_ms"], estimated_eager_ms=est["eager_ms"],
               estimated_kernels=est["kernel_count"], p10_ms=est["p10_ms"], p90_ms=est["p90_ms"],
               estimated_peak_bytes=est.get("memory", {}).get("total_bytes"),
               fitted_share=est.get("source_share", {}).get("fitted"))
    trace = os.path.join(CACHE, "traces", f"{model}_{mode}_{dtype}.trace.json")
    if os.path.exists(trace) and not memory_only:
        cmp_, err = run_json([dlsim, "compare", onnx_path, "--profile", trace] + common)
        if cmp_ is not None:
            row["unaccounted_share"] = 1.0 - cmp_["aligned_share"]
        else:
            row["compare_error"] = err
    return row


# ---------------------------------------------------------------- summary
def rel(a, b):
    return (a - b) / b if a is not None and b else None


def stats(values):
    v = sorted(abs(x) for x in values if x is not None)
    if not v:
        return None
    return dict(n=len(v), median=statistics.median(v), p90=v[min(len(v) - 1, int(0.9 * len(v)))],
                within10=sum(1 for x in v if x <= 0.10) / len(v),
                bias=statistics.median([x for x in values if x is not None]))


def fmt(st, pct=True):
    if st is None:
        return "n/a"
    return (f"{100 * st['median']:.1f} % (P90 {100 * st['p90']:.1f} %, bias {100 * st['bias']:+.1f} %, "
            f"n={st['n']})")


def summarise(rows):
    """The figures, as (label, text) lines, and per-family tables."""
    lines = []
    models = sorted({r["model"] for r in rows})
    for exp in EXPORTERS:
        sub = [r for r in rows if r["exporter"] == exp and "measure_error" not in r]
        bad = sorted({r["model"] for r in sub if r.get("load_error")})
        lines.append((f"models that load and estimate ({exp})",
                      f"{len(models) - len(bad)}/{len(models)}" + (f"; failing: {', '.join(bad)}" if bad else "")))
    ok = [r for r in rows if r.get("estimated_gpu_ms") is not None]
    for mode, dtype in CASE_ARGS:
        sub = [r for r in ok if r["mode"] == mode and r["dtype"] == dtype]
        lines.append((f"{mode} {dtype} GPU time", fmt(stats([rel(r["estimated_gpu_ms"], r["measured_gpu_ms"])
                                                            for r in sub]))))
    inf = [r for r in ok if r["mode"] == "inference"]
    lines.append(("inference eager time", fmt(stats([rel(r["estimated_eager_ms"], r["measured_eager_ms"])
                                                    for r in inf]))))
    cov = [r for r in ok if r["mode"] == "inference" and r.get("p10_ms") is not None]
    inside = sum(1 for r in cov if r["p10_ms"] <= r["measured_gpu_ms"] <= r["p90_ms"])
    lines.append(("inference P10-P90 band holds the measured time", f"{inside}/{len(cov)} cases"))
    for mode in ("inference", "training"):
        sub = [r for r in ok if r["mode"] == mode]
        kc = [rel(r["estimated_kernels"], r["measured_kernels"]) for r in sub]
        within = sum(1 for x in kc if abs(x) <= 0.10)
        lines.append((f"{mode}: kernel count within 10 % of the profiler's", f"{within}/{len(kc)} cases"))
        un = [r["unaccounted_share"] for r in sub if r.get("unaccounted_share") is not None]
        within = sum(1 for x in un if x <= 0.05)
        med = statistics.median(un) if un else float("nan")
        lines.append((f"{mode}: kernel time no dlsim call accounts for <= 5 %",
                      f"{within}/{len(un)} cases (median {100 * med:.1f} %)"))
    for mode in ("inference", "training"):
        sub = [r for r in ok if r["mode"] == mode and r.get("estimated_peak_bytes")]
        lines.append((f"{mode} peak memory", fmt(stats([rel(r["estimated_peak_bytes"], r["measured_peak_bytes"])
                                                       for r in sub]))))
    for mode, dtype in CASE_ARGS:
        sub = [r for r in ok if r["mode"] == mode and r["dtype"] == dtype and r.get("estimated_peak_bytes")]
        lines.append((f"{mode} {dtype} peak memory",
                      fmt(stats([rel(r["estimated_peak_bytes"], r["measured_peak_bytes"]) for r in sub]))))
    fams = []
    for fam in corpus.FAMILIES:
        sub = [r for r in ok if r["family"] == fam]
        if not sub:
            continue
        gi = stats([rel(r["estimated_gpu_ms"], r["measured_gpu_ms"]) for r in sub if r["mode"] == "inference"])
        gt = stats([rel(r["estimated_gpu_ms"], r["measured_gpu_ms"]) for r in sub if r["mode"] == "training"])
        kc = [r["estimated_kernels"] / r["measured_kernels"] for r in sub if r["measured_kernels"]]
        un = [r["unaccounted_share"] for r in sub if r.get("unaccounted_share") is not None]
        fams.append((fam, len({r["model"] for r in sub}), gi, gt, statistics.median(kc) if kc else None,
                     statistics.median(un) if un else None))
    return lines, fams


def plot(rows, path, machine):
    """Predicted against measured inference GPU time (TorchScript exports), fp32 and fp16."""
    pts = [(r["measured_gpu_ms"], r["estimated_gpu_ms"], r["dtype"] == "fp16") for r in rows
           if r["mode"] == "inference" and r["exporter"] == "ts" and r.get("estimated_gpu_ms")]
    if pts:
        svg_plot(pts, path, f"corpus inference GPU time on {machine.upper()}: predicted vs measured",
                 legend=("fp32", "fp16"))
    return bool(pts)


def markdown(lines, fams, args, svg=None):
    out = [f"# Corpus accuracy ({args.side} side, {args.machine})", "",
           "Generated by `python3 bench/corpus/evaluate.py "
           f"--side {args.side} --machine {args.machine} --data {os.path.relpath(DATA, ROOT)} "
           f"--markdown ...` from the reference runs under `{os.path.relpath(DATA, ROOT)}/` "
           "(see docs/accuracy.md for how they were taken). Errors are "
           "(estimate - measured) / measured; medians of |error|, bias is the median signed error.", "",
           "| figure | value |", "|---|---|"]
    out += [f"| {a} | {b} |" for a, b in lines]
    if svg:
        out += ["", f"![predicted vs measured]({svg})"]
    out += ["", "## Per family", "",
            "GPU time |error| median (bias); kernel count is dlsim's over the profiler's (median); "
            "unaccounted is the median share of measured kernel time that no dlsim call accounts for.", "",
            "| family | models | inference | training | kernel count ratio | unaccounted |",
            "|---|---:|---|---|---:|---:|"]
    for fam, n, gi, gt, kc, un in fams:
        def short(st):
            return "n/a" if st is None else f"{100 * st['median']:.0f} % ({100 * st['bias']:+.0f} %)"
        out.append(f"| {fam} | {n} | {short(gi)} | {short(gt)} | "
                   f"{'n/a' if kc is None else f'{kc:.2f}'} | {'n/a' if un is None else f'{100 * un:.0f} %'} |")
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--side", choices=["cal", "test", "all"], default="test")
    ap.add_argument("--dlsim", default=os.path.join(ROOT, "build", "dlsim"))
    ap.add_argument("--machine", default="h100")
    ap.add_argument("--csv")
    ap.add_argument("--markdown")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--data", default=os.path.join(HERE, "data"),
                    help="folder of the measured runs (run*/); bench/corpus/data_h200 for the H200")
    ap.add_argument("--from-csv", help="summarise a CSV this script wrote instead of running dlsim")
    ap.add_argument("--memory-only", action="store_true",
                    help="run only dlsim estimate (no compare): the time and memory columns")
    args = ap.parse_args()
    global DATA, CACHE
    DATA = os.path.abspath(args.data)
    if DATA != os.path.join(HERE, "data"):  # another GPU's runs: their own unpacked files
        CACHE = os.path.join(ROOT, "build", "corpus-cache-" + os.path.basename(DATA))
    if args.from_csv:
        report(read_rows(args.from_csv), args)
        return
    unpack()
    wanted = set(corpus.names(args.side))
    cases = {k: r for k, r in measured_cases().items() if k[0] in wanted}
    work = [(k, r, e) for k, r in sorted(cases.items()) for e in EXPORTERS]
    print(f"# {len(cases)} measured cases of {len({k[0] for k in cases})} models, "
          f"{len(work)} estimates", file=sys.stderr)
    with ThreadPoolExecutor(args.jobs) as pool:
        rows = list(pool.map(lambda w: evaluate_case(args.dlsim, args.machine, *w, args.memory_only), work))
    if args.csv:
        fields = sorted({f for r in rows for f in r})
        first = ["model", "family", "side", "exporter", "mode", "dtype", "batch"]
        fields = first + [f for f in fields if f not in first]
        with open(args.csv + ".tmp", "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=fields)
            w.writeheader()
            w.writerows(rows)
        os.replace(args.csv + ".tmp", args.csv)
    report(rows, args)


def read_rows(path):
    """The rows of a --csv file, numbers as numbers and empty cells as None."""
    def value(v):
        if v == "":
            return None
        try:
            f = float(v)
        except ValueError:
            return v
        return int(f) if f.is_integer() and "." not in v and "e" not in v.lower() else f
    with open(path, newline="") as f:
        return [{k: value(v) for k, v in r.items()} for r in csv.DictReader(f)]


def report(rows, args):
    lines, fams = summarise(rows)
    for a, b in lines:
        print(f"{a}: {b}")
    if args.markdown:
        svg = f"accuracy-corpus-{args.machine}.svg"
        if not plot(rows, os.path.join(os.path.dirname(os.path.abspath(args.markdown)), svg), args.machine):
            svg = None
        with open(args.markdown + ".tmp", "w") as f:
            f.write(markdown(lines, fams, args, svg))
        os.replace(args.markdown + ".tmp", args.markdown)


if __name__ == "__main__":
    main()
