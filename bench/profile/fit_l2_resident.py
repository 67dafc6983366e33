#!/usr/bin/env python3
"""Fits calibration.l2_resident_factor of a machine from profiler traces.

The performance database times every kernel call alone with its inputs cold
in L2. Inside a model, a memory-bound call often reads a tensor the kernel
just before it wrote, still in L2, and runs faster. For each memory-bound
kernel kind this script compares, over the traces' calls whose input is
L2-resident (dlsim compare's resident_input_bytes, 0 < bytes <= L2 size),
the measured time with the estimate priced without any factor, and proposes
factor = sum(measured) / sum(estimated).

Fitted on the traces of tuned-on models only; the held-out models' traces
(bench/accuracy/zoo.py) are reported beside, not used. With --corpus cal the
traces are those of the generalisation corpus's calibration side instead
(TorchScript exports, every measured case; after bench/corpus/evaluate.py
has unpacked them): the kinds the zoo has no calls of (group norm) are
fitted there, and the test side is never read.

Usage: fit_l2_resident.py [--machine machines/h100.yaml] [--dlsim build/dlsim]
                          [--min-calls 10] [--corpus cal] [--kinds K,K]
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tarfile
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bench", "accuracy"))
from zoo import held_out  # noqa: E402

KINDS = ["batchnorm_infer", "batchnorm_train_fwd", "batchnorm_bwd", "layernorm_fwd", "layernorm_bwd",
         "groupnorm_fwd", "groupnorm_bwd", "softmax_fwd", "softmax_bwd", "pool_fwd", "pool_bwd",
         "elementwise", "reduction", "copy"]


def traces(work):
    with tarfile.open(os.path.join(HERE, "data", "traces-h100.tar.gz")) as tar:
        tar.extractall(work)
    found = [os.path.join(work, f) for f in sorted(os.listdir(work))]
    tests = os.path.join(ROOT, "tests", "data", "traces")
    found += [os.path.join(tests, f) for f in sorted(os.listdir(tests))]
    return found


def machine_without_factors(path):
    """A copy of the machine file beside it (relative paths keep working)
    with its calibration.l2_resident_factor block removed."""
    lines, skipping = [], False
    for line in open(path):
        if re.match(r"^\s+l2_resident_factor:", line):
            skipping = True
            indent = len(line) - len(line.lstrip())
            continue
        if skipping and line.strip() and (len(line) - len(line.lstrip())) > indent:
            continue
        skipping = False
        lines.append(line)
    fd, copy = tempfile.mkstemp(suffix=".yaml", prefix=".fit-", dir=os.path.dirname(path))
    with os.fdopen(fd, "w") as f:
        f.writelines(lines)
    return copy


def l2_bytes(path):
    m = re.search(r"^\s*l2_mib:\s*([0-9.]+)", open(path).read(), re.M)
    return float(m.group(1)) * 2**20


def compare(dlsim, machine, trace):
    b = os.path.basename(trace).replace(".trace.json", "")
    model, batch, dtype, train = re.match(r"(.+)_b(\d+)_(fp\d+)(_train)?$", b).groups()
    args = [dlsim, "compare", os.path.join(ROOT, "tests", "data", "zoo", model + ".onnx"),
            "--profile", trace, "--machine", machine, "--batch", batch, "--dtype", dtype,
            "--format", "json"]
    if train:
        args += ["--mode", "training"]
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    return model, json.loads(out)


def corpus_cases(side):
    """(model, ONNX file, trace, dlsim options) of every measured case of a
    corpus side with a trace."""
    sys.path.insert(0, os.path.join(ROOT, "bench", "corpus"))
    import corpus  # noqa: E402
    import evaluate  # noqa: E402
    evaluate.unpack()
    out = []
    for (model, mode, dtype), rec in sorted(evaluate.measured_cases().items()):
        if "error" in rec or corpus.spec(model)["side"] != side:
            continue
        onnx_path = os.path.join(evaluate.CACHE, "onnx", f"{model}.ts.onnx")
        trace = os.path.join(evaluate.CACHE, "traces", f"{model}_{mode}_{dtype}.trace.json")
        if not (os.path.exists(onnx_path) and os.path.exists(trace)):
            continue
        s = corpus.spec(model)
        shape = "x".join(str(d) for d in corpus.input_shape(s, rec["batch"]))
        args = ["--input", f"{corpus.input_name(s)}:{shape}"] + evaluate.CASE_ARGS[(mode, dtype)]
        out.append((model, onnx_path, trace, args))
    return out


def compare_corpus(dlsim, machine, case):
    model, onnx_path, trace, args = case
    out = subprocess.run([dlsim, "compare", onnx_path, "--profile", trace, "--machine", machine,
                          "--format", "json"] + args, capture_output=True, text=True, check=True).stdout
    return model, json.loads(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--machine", default=os.path.join(ROOT, "machines", "h100.yaml"))
    ap.add_argument("--dlsim", default=os.path.join(ROOT, "build", "dlsim"))
    ap.add_argument("--min-calls", type=int, default=10)
    ap.add_argument("--corpus", choices=["cal"], help="fit on the corpus's calibration side's traces")
    ap.add_argument("--kinds", help="comma-separated kinds to fit (default: all memory-bound kinds)")
    args = ap.parse_args()
    kinds = args.kinds.split(",") if args.kinds else KINDS
    l2 = l2_bytes(args.machine)
    bare = machine_without_factors(args.machine)
    sums = {}  # (set, kind) -> [calls, estimated, measured]
    try:
        with tempfile.TemporaryDirectory() as work:
            if args.corpus:
                runs = (compare_corpus(args.dlsim, bare, c) for c in corpus_cases(args.corpus))
            else:
                runs = (compare(args.dlsim, bare, t) for t in traces(work))
            for model, d in runs:
                group = "tuned-on" if args.corpus or not held_out(model) else "held-out"
                for layer in d["layers"]:
                    for c in layer["calls"]:
                        if c["kind"] not in kinds or c["kernels"] <= 0:
                            continue
                        if not 0 < c.get("resident_input_bytes", 0) <= l2:
                            continue
                        s = sums.setdefault((group, c["kind"]), [0, 0.0, 0.0])
                        s[0] += 1
                        s[1] += c["estimated_ms"]
                        s[2] += c["measured_ms"]
    finally:
        os.remove(bare)
    print(f"{'kind':22} {'tuned-on calls':>14} {'factor':>7} {'held-out calls':>15} {'ratio':>7}")
    fitted = {}
    for kind in kinds:
        t = sums.get(("tuned-on", kind), [0, 0, 0])
        h = sums.get(("held-out", kind), [0, 0, 0])
        factor = t[2] / t[1] if t[1] > 0 else None
        ratio = h[2] / h[1] if h[1] > 0 else None
        fmt = lambda x: f"{x:7.3f}" if x is not None else "      -"
        print(f"{kind:22} {t[0]:14d} {fmt(factor)} {h[0]:15d} {fmt(ratio)}")
        if factor is not None and t[0] >= args.min_calls:
            fitted[kind] = round(factor, 3)
    where = f"the corpus's {args.corpus} side's traces" if args.corpus else "the tuned-on traces"
    print(f"\n  l2_resident_factor:   # bench/profile/fit_l2_resident.py on {where}")
    for kind, f in fitted.items():
        print(f"    {kind}: {f}")


if __name__ == "__main__":
    main()
