#!/usr/bin/env python3
"""Fit PyTorch's eager per-op host dispatch cost by kernel kind.

Eager time of a host-bound forward (batch 1, where the GPU waits for the
host) is about the sum over nodes of the host cost of dispatching each one.
This fits one cost per class of node (the kind of its first kernel call, or
"none" for views) by non-negative least squares on relative error, using the
reference eager times of the *tuned-on* models only (never the held-out ones),
at batch 1 in fp32 and fp16, and prints the `host.dispatch_us_by_kind` block
for the machine YAML. Batch norm in fp16 is a class of its own
(`batchnorm_infer.fp16`): with fp16 weights PyTorch runs its native
batch-norm kernel instead of cuDNN's, which costs the host more.

The framework's micro-benchmark of single small ops (reference_runs.py
--overhead) is printed beside it for comparison.

With --training it fits the backward side instead, on the host-bound
training steps (batch 32, fp32, SGD with momentum) of the tuned-on models:
eager time minus the forward's dispatch (from the fit above) and the
optimizer's launches is split into a cost per node with a backward
(`backward`) and per parameter tensor (`optimizer_per_tensor`: autograd's
accumulation, zero_grad and the optimizer's Python loop).

Usage: fit_dispatch.py [--dlsim build/dlsim] [--gpu h100] [--training]
"""
import argparse
import json
import os
import subprocess
import sys
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from compare import load_reference  # noqa: E402
from zoo import held_out  # noqa: E402

CLASSES = {  # kernel kind of a node's first call -> dispatch class (few, to avoid overfitting)
    "conv_fwd": "conv_fwd", "conv_bias_act": "conv_fwd", "gemm": "gemm",
    "batched_gemm": "gemm", "rnn_fwd": "rnn", "batchnorm_infer": "batchnorm",
    "attention_fwd": "gemm",
}


def node_classes(dlsim, model, batch, dtype="fp32"):
    onnx = os.path.join(os.environ.get("DLSIM_ZOO", os.path.join(ROOT, "tests", "data", "zoo")), model + ".onnx")
    p = subprocess.run([dlsim, "estimate", onnx, "--batch", str(batch), "--dtype", dtype,
                        "--format", "json"],
                       capture_output=True, text=True, cwd=ROOT)
    if p.returncode != 0:
        return None
    j = json.loads(p.stdout)
    counts = Counter()
    for layer in j["layers"]:
        calls = layer.get("calls", [])
        cls = CLASSES.get(calls[0]["kind"], "elementwise") if calls else "none"
        if cls == "batchnorm" and dtype == "fp16":
            cls = "batchnorm.fp16"
        counts[cls] += 1
    return counts, j["gpu_time_ms"]


def nnls(rows, targets, names, iters=4000):
    """Minimise sum ((x.a - t)/t)^2 with x >= 0 by projected coordinate descent."""
    x = {n: 10.0 for n in names}
    for _ in range(iters):
        for n in names:
            num = den = 0.0
            for a, t in zip(rows, targets):
                if not a.get(n):
                    continue
                rest = sum(x[m] * a.get(m, 0) for m in names if m != n)
                w = 1.0 / (t * t)
                num += w * a[n] * (t - rest)
                den += w * a[n] * a[n]
            if den > 0:
                x[n] = max(0.0, num / den)
    return x


def estimate_json(dlsim, model, *extra):
    onnx = os.path.join(os.environ.get("DLSIM_ZOO", os.path.join(ROOT, "tests", "data", "zoo")), model + ".onnx")
    p = subprocess.run([dlsim, "estimate", onnx, "--format", "json", *extra],
                       capture_output=True, text=True, cwd=ROOT)
    return json.loads(p.stdout) if p.returncode == 0 else None


def float_initializers(model):
    import onnx  # python3-onnx
    path = os.path.join(ROOT, "tests", "data", "zoo", model + ".onnx")
    m = onnx.load(path, load_external_data=False)
    floats = {onnx.TensorProto.FLOAT, onnx.TensorProto.FLOAT16, onnx.TensorProto.BFLOAT16}
    return sum(1 for t in m.graph.initializer if t.data_type in floats)


def fit_training(args, ref):
    rows, targets, labels = [], [], []
    for (model, mode, dtype, batch), r in sorted(ref.items()):
        if mode != "training" or dtype != "fp32" or held_out(model) or "eager_ms" not in r:
            continue
        if r["eager_ms"] < 1.3 * r["gpu_ms"]:
            continue  # not host-bound
        fwd = estimate_json(args.dlsim, model, "--batch", str(batch))
        train = estimate_json(args.dlsim, model, "--batch", str(batch), "--mode", "training")
        if fwd is None or train is None:
            continue
        n_bwd = sum(1 for layer in train["layers"] if layer["bwd_ms"] > 0)
        optimizer_launch_us = 30.0  # host.dispatch_us_by_kind.optimizer, one fused launch
        target = r["eager_ms"] * 1000.0 - fwd["host_dispatch_ms"] * 1000.0 - optimizer_launch_us
        if target <= 0:
            continue
        rows.append({"backward": n_bwd, "optimizer_per_tensor": float_initializers(model)})
        targets.append(target)
        labels.append(f"{model} {dtype}")
    names = ["backward", "optimizer_per_tensor"]
    x = nnls(rows, targets, names)
    print(f"# fitted on {len(rows)} host-bound training steps (batch 32, fp32, tuned-on models): "
          f"{', '.join(labels)}")
    for row, t, lab in zip(rows, targets, labels):
        pred = sum(x[n] * row[n] for n in names)
        print(f"#   {lab:22s} backward+optimizer host {t/1000:7.2f} ms  fitted {pred/1000:7.2f} ms  "
              f"({(pred-t)/t*100:+.1f} %)")
    for n in names:
        print(f"    {n}: {x[n]:.1f}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dlsim", default=os.path.join(ROOT, "build", "dlsim"))
    ap.add_argument("--gpu", default="h100")
    ap.add_argument("--training", action="store_true")
    args = ap.parse_args()
    ref = load_reference(args.gpu)
    if args.training:
        return fit_training(args, ref)
    rows, targets, labels = [], [], []
    for (model, mode, dtype, batch), r in sorted(ref.items()):
        if mode != "inference" or batch != 1 or held_out(model):
            continue
        got = node_classes(args.dlsim, model, batch, dtype)
        if got is None:
            continue
        counts, gpu_ms = got
        if r["eager_ms"] < 1.5 * r["gpu_ms"]:
            continue  # not host-bound: says little about dispatch
        rows.append(dict(counts))
        targets.append(r["eager_ms"] * 1000.0)  # us
        labels.append(f"{model} {dtype}")
    names = sorted({n for row in rows for n in row})
    x = nnls(rows, targets, names)
    print(f"# fitted on {len(rows)} host-bound cases (batch 1, fp32 and fp16, tuned-on models): {', '.join(labels)}")
    for row, t, lab in zip(rows, targets, labels):
        pred = sum(x[n] * row.get(n, 0) for n in names)
        print(f"#   {lab:22s} measured {t/1000:7.2f} ms  fitted {pred/1000:7.2f} ms  ({(pred-t)/t*100:+.1f} %)")
    print("host:")
    print("  framework: pytorch")
    print(f"  dispatch_us: {x.get('elementwise', 10.0):.1f}")
    print("  dispatch_us_by_kind:")
    for n in names:
        print(f"    {n}: {x[n]:.1f}")
    for line in open(os.path.join(HERE, "data", f"reference_{args.gpu}_part1.jsonl")):
        r = json.loads(line)
        if r.get("mode") == "overhead":
            print(f"# micro-benchmark {r['op']:10s} {r['host_us']:.1f} us")


if __name__ == "__main__":
    main()
