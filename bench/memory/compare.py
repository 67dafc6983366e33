#!/usr/bin/env python3
"""dlsim's memory estimates against what was measured on the GPU (bench/memory/data):

* techniques_h100.jsonl (bench/memory/techniques.py): the peak of training steps with Adam, AdamW
  and activation checkpointing on corpus test-side models (both ONNX exports), and of the LLM
  shapes NeuSight measured (bench/generations/models), fp32;
* selective_h100.jsonl (techniques.py --recompute selective): the same with every Hugging Face
  attention function under torch.utils.checkpoint, against `--recompute selective`;
* sharding_h200x2.jsonl (bench/memory/sharding.py): the per-GPU peak of GPT-2-large, BERT-large
  and OPT-1.3B (fp32, Adam) on 2 GPUs with DDP, ZeroRedundancyOptimizer and FSDP, against
  `--gpus 2 --zero 0..3` (DDP with PyTorch's default buckets only);
* max_batch_h100_test.jsonl (bench/memory/run_max_batch.sh): the largest fp32 training batch,
  measured by bisection, against the largest batch dlsim predicts from its estimate at the
  spec's batch (`memory.largest_batch` in the JSON).

  python3 bench/corpus/evaluate.py --side test --memory-only   # once: unpacks the corpus' ONNX
  python3 bench/memory/compare.py [--dlsim build/dlsim] [--markdown]
"""
import argparse
import json
import os
import statistics as st
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "bench", "corpus"))
import corpus  # noqa: E402

CACHE = os.path.join(ROOT, "build", "corpus-cache", "onnx")
DATA = os.path.join(HERE, "data")
EXPORTERS = ("ts", "dynamo")


def estimate(dlsim, model, args):
    cmd = [dlsim, "estimate", model, "--machine", "h100", "--mode", "training", "--format", "json"] + args
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        return None, (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[-1][:200]
    return json.loads(p.stdout), None


def corpus_args(name, batch, exporter):
    s = corpus.spec(name)
    shape = "x".join(str(d) for d in corpus.input_shape(s, batch))
    return os.path.join(CACHE, f"{name}.{exporter}.onnx"), ["--input", f"{corpus.input_name(s)}:{shape}",
                                                            "--dtype", "fp32"]


def technique_rows(dlsim):
    rows = []
    lines = [line for f in ("techniques_h100.jsonl", "selective_h100.jsonl") for line in open(os.path.join(DATA, f))]
    for line in lines:
        r = json.loads(line)
        if "peak_bytes" not in r:
            rows.append(dict(r, case=case_name(r), note=r.get("error", "")))
            continue
        extra = ["--optimizer", r["optimizer"]] + (["--checkpoint-activations"] if r["checkpoint"] else [])
        extra += ["--recompute", r["recompute"]] if r.get("recompute") else []
        if r["set"] == "llm":
            model = os.path.join(ROOT, "bench", "generations", "models", f"{r['model']}-{r['seq']}.onnx")
            targets = [("graph", model, ["--batch", str(r["batch"])])]
        else:
            targets = [(e,) + corpus_args(r["model"], r["batch"], e) for e in EXPORTERS]
        for exporter, model, args in targets:
            est, err = estimate(dlsim, model, args + extra)
            row = dict(r, case=case_name(r), exporter=exporter, measured=r["peak_bytes"])
            if est is None:
                row["note"] = err
            else:
                row["estimated"] = est["memory"]["total_bytes"]
                row["error"] = row["estimated"] / row["measured"] - 1
            rows.append(row)
    return rows


def sharding_rows(dlsim, bucket_view=False):
    """The sharding runs with DDP's default buckets (or, with bucket_view, the runs with
    gradient_as_bucket_view=True for DDP and ZeRO-1, whose memory dlsim does not model)."""
    rows = []
    for line in open(os.path.join(DATA, "sharding_h200x2.jsonl")):
        r = json.loads(line)
        if "peak_bytes" not in r or bool(r.get("ddp_bucket_view")) != bucket_view:
            continue
        model = os.path.join(ROOT, "bench", "generations", "models", f"{r['model']}-{r['seq']}.onnx")
        cmd = [dlsim, "estimate", model, "--machine", "h200", "--mode", "training", "--format", "json",
               "--batch", str(r["batch"]), "--optimizer", "adam", "--gpus", str(r["gpus"]),
               "--zero", str(r["zero"])]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        row = dict(r, measured=r["peak_bytes"])
        if p.returncode == 0:
            j = json.loads(p.stdout)
            row["estimated"] = j["memory"]["total_bytes"]
            row["error"] = row["estimated"] / row["measured"] - 1
            row["step_estimated_ms"] = j["eager_ms"]
            row["step_error"] = j["eager_ms"] / r["step_ms"] - 1
        rows.append(row)
    return rows


def case_name(r):
    return r["optimizer"] + (" + checkpointing" if r.get("checkpoint") else "") + \
        (" + selective recomputation" if r.get("recompute") == "selective" else "")


def max_batch_rows(dlsim):
    rows = []
    for line in open(os.path.join(DATA, "max_batch_h100_test.jsonl")):
        r = json.loads(line)
        s = corpus.spec(r["model"])
        for exporter in EXPORTERS:
            model, args = corpus_args(r["model"], s["batch"], exporter)
            est, err = estimate(dlsim, model, args + ["--optimizer", "sgd_momentum"])
            row = dict(model=r["model"], exporter=exporter, measured=r.get("largest_batch"),
                       first_oom=r.get("first_oom_batch"), note=r.get("error", "")[:60] or err or "")
            if est is not None:
                row["predicted"] = est["memory"]["largest_batch"]
            rows.append(row)
    return rows


def summary(errors):
    a = sorted(abs(e) for e in errors)
    p90 = a[min(len(a) - 1, int(round(0.9 * (len(a) - 1))))]
    return f"{100 * st.median(a):.1f} % (P90 {100 * p90:.1f} %, bias {100 * st.median(errors):+.1f} %, n = {len(a)})"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dlsim", default=os.path.join(ROOT, "build", "dlsim"))
    ap.add_argument("--markdown", action="store_true", help="print the tables of docs/memory.md")
    args = ap.parse_args()
    rows = technique_rows(args.dlsim)
    print("| set | model | batch | case | export | measured GB | dlsim GB | error |")
    print("|---|---|---:|---|---|---:|---:|---:|")
    for r in rows:
        if "error" in r and isinstance(r["error"], float):
            print(f"| {r['set']} | {r['model']} | {r['batch']} | {r['case']} | {r['exporter']} | "
                  f"{r['measured'] / 1e9:.2f} | {r['estimated'] / 1e9:.2f} | {100 * r['error']:+.1f} % |")
        else:
            print(f"| {r['set']} | {r['model']} | {r['batch']} | {r['case']} | {r.get('exporter', '')} | "
                  f"{r.get('note', '')} | | |")
    print()
    scored = [r for r in rows if isinstance(r.get("error"), float)]
    selective = lambda r: r.get("recompute") == "selective"  # noqa: E731
    groups = [("LLM shapes, plain SGD", lambda r: r["set"] == "llm" and r["optimizer"] == "sgd" and not selective(r)),
              ("LLM shapes, SGD, selective recomputation", lambda r: r["set"] == "llm" and selective(r)),
              ("LLM shapes, Adam", lambda r: r["set"] == "llm" and r["optimizer"] == "adam"),
              ("corpus, SGD with momentum (reference)", lambda r: r["set"] == "corpus" and r["case"] == "sgd_momentum"),
              ("corpus, selective recomputation", lambda r: r["set"] == "corpus" and selective(r)),
              ("corpus, Adam and AdamW", lambda r: r["set"] == "corpus" and r["optimizer"] in ("adam", "adamw")),
              ("corpus, activation checkpointing", lambda r: r["set"] == "corpus" and r.get("checkpoint"))]
    print("| cases | median abs error |")
    print("|---|---|")
    for label, keep in groups:
        e = [r["error"] for r in scored if keep(r)]
        if e:
            print(f"| {label} | {summary(e)} |")
    print()
    sh = sharding_rows(args.dlsim)
    print("| model | batch | GPUs | ZeRO | measured GB | dlsim GB | error | measured step ms | dlsim step ms | error |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in sh:
        if "error" in r:
            print(f"| {r['model']} | {r['batch']} | {r['gpus']} | {r['zero']} | {r['measured'] / 1e9:.2f} | "
                  f"{r['estimated'] / 1e9:.2f} | {100 * r['error']:+.1f} % | {r['step_ms']:.1f} | "
                  f"{r['step_estimated_ms']:.1f} | {100 * r['step_error']:+.1f} % |")
    for label, keep in (("all", lambda r: True), ("but OPT-1.3B", lambda r: r["model"] != "opt_13")):
        e = [r["error"] for r in sh if "error" in r and keep(r)]
        if e:
            print(f"\nsharding memory, {label}: {summary(e)}")
    # step time: every run (the bucket-view runs time the same step)
    timed = sh + sharding_rows(args.dlsim, bucket_view=True)
    for label, stages in (("DDP and ZeRO-1", (0, 1)), ("FSDP (ZeRO-2, 3)", (2, 3))):
        e = [r["step_error"] for r in timed if "step_error" in r and r["zero"] in stages]
        if e:
            print(f"sharding step time, {label}: {summary(e)}")
    print()
    mb = max_batch_rows(args.dlsim)
    print("| model | export | predicted | measured (first OOM) | predicted / measured |")
    print("|---|---|---:|---:|---:|")
    within = total = 0
    for r in mb:
        if r.get("measured") and r.get("predicted") is not None:
            ratio = r["predicted"] / r["measured"]
            total += 1
            within += 0.5 <= ratio <= 2.0
            print(f"| {r['model']} | {r['exporter']} | {r['predicted']} | {r['measured']} ({r['first_oom']}) | {ratio:.2f} |")
        else:
            print(f"| {r['model']} | {r['exporter']} | {r.get('predicted', '')} | not measured: {r['note']} | |")
    print(f"\nwithin one power-of-two step (0.5-2x): {within} of {total}")


if __name__ == "__main__":
    main()
