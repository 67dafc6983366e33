#!/usr/bin/env python3
"""dlsim's kernel times against NeuSight's per-kernel tables (the fitting side): one ONNX graph per
kernel class holding a sample of the tables' shapes as independent nodes (MatMul for linear, batched
MatMul for bmm, Add, Softmax, LayerNormalization), estimated on every GPU's machine file; prints the
median of dlsim's time over the measured one per GPU and class, for kernels of at least 10 GFLOP
(GEMMs) or 64 MB (the rest). `--before` uses the machine files as evaluate.py --before does.

  python3 bench/generations/kernel_check.py [--before] [--per-gpu-factors]
"""
import argparse, csv, gzip, json, os, random, statistics as st, subprocess, sys, tempfile
from collections import defaultdict

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from evaluate import ROOT, GPU_ORDER, machine_copy  # noqa: E402

F = TensorProto.FLOAT
SAMPLE = 150
UNARY = {"gelu": "Gelu", "tanh": "Tanh", "relu": "Relu", "powu": "Pow", "mulu": "Mul"}  # powu: x ** c


def load_shapes():
    by = defaultdict(dict)  # class -> shape -> gpu -> [ms]
    with gzip.open(os.path.join(ROOT, "bench", "generations", "data", "kernels_neusight.csv.gz"), "rt") as f:
        for r in csv.DictReader(f):
            op = r["op"]
            if op in ("linear", "bmm"):
                b, m, n, k = (int(float(r[x])) for x in "bmnk")
                if 2 * b * m * n * k < 10e9:
                    continue
                key = (b, m, n, k)
            elif op in ("add", "softmax", "ln") or op in UNARY:
                b, h = int(r["b"]), int(r["h"])
                if 4 * b * h * (3 if op == "add" else 2) < 64e6:
                    continue
                key = (b, h)
            else:
                continue
            by[op].setdefault(key, {}).setdefault(r["gpu"], []).append(float(r["latency_ms"]))
    return by


def node_for(op, i, key):
    x, y, out = f"x{i}", f"y{i}", f"{op}_{i}"
    inits, inputs = [], []
    if op == "linear":
        b, m, n, k = key
        inputs.append(helper.make_tensor_value_info(x, F, [1, b * m, k]))
        w = TensorProto(); w.name, w.data_type = y, F; w.dims.extend([k, n]); w.data_location = TensorProto.EXTERNAL
        for kk, v in (("location", "w.bin"), ("offset", "0"), ("length", str(4 * k * n))):
            e = w.external_data.add(); e.key, e.value = kk, v
        inits = [w]
        node = helper.make_node("MatMul", [x, y], [out], name=out)
    elif op == "bmm":
        b, m, n, k = key
        inputs += [helper.make_tensor_value_info(x, F, [1, b, m, k]), helper.make_tensor_value_info(y, F, [1, b, k, n])]
        node = helper.make_node("MatMul", [x, y], [out], name=out)
    elif op == "add":
        b, h = key
        inputs += [helper.make_tensor_value_info(x, F, [1, b, h]), helper.make_tensor_value_info(y, F, [1, b, h])]
        node = helper.make_node("Add", [x, y], [out], name=out)
    elif op in UNARY:
        b, h = key
        inputs.append(helper.make_tensor_value_info(x, F, [1, b, h]))
        ins = [x]
        if op in ("powu", "mulu"):
            inits = [numpy_helper.from_array(np.array(3.0 if op == "powu" else 0.5, np.float32), f"c{i}")]
            ins.append(f"c{i}")
        node = helper.make_node(UNARY[op], ins, [out], name=out)
    elif op == "softmax":
        b, h = key
        inputs.append(helper.make_tensor_value_info(x, F, [1, b, h]))
        node = helper.make_node("Softmax", [x], [out], name=out, axis=-1)
    else:
        b, h = key
        inputs.append(helper.make_tensor_value_info(x, F, [1, b, h]))
        inits = [numpy_helper.from_array(np.ones(h, np.float32), f"s{i}"), numpy_helper.from_array(np.zeros(h, np.float32), f"z{i}")]
        node = helper.make_node("LayerNormalization", [x, f"s{i}", f"z{i}"], [out], name=out, axis=-1)
    return node, inputs, inits, helper.make_tensor_value_info(out, F, None)


def build(op, keys, path):
    nodes, inputs, inits, outputs = [], [], [], []
    for i, key in enumerate(keys):
        n, ins, its, o = node_for(op, i, key)
        nodes.append(n); inputs += ins; inits += its; outputs.append(o)
    g = helper.make_graph(nodes, op, inputs, outputs, inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.save(m, path)


def ratios_by_key(dlsim, op, keys, shapes, machines, tmp):
    """{gpu: {key: dlsim / measured}} for `keys` of class `op` on `machines` {gpu: yaml}."""
    path = os.path.join(tmp, op + ".onnx")
    build(op, keys, path)
    out = {}
    for gpu, machine in machines.items():
        r = subprocess.run(["nice", "-n", "10", dlsim, "estimate", path, "--machine", machine,
                            "--format", "json", "--batch", "1"], capture_output=True, text=True)
        if r.returncode != 0:
            print(r.stderr[-300:], file=sys.stderr)
            continue
        t = {l["name"]: l["time_ms"] for l in json.loads(r.stdout)["layers"]}
        out[gpu] = {k: t[f"{op}_{i}"] / st.median(shapes[k][gpu]) for i, k in enumerate(keys)
                    if gpu in shapes[k] and f"{op}_{i}" in t}
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--before", action="store_true")
    ap.add_argument("--dlsim", default=os.path.join(ROOT, "build", "dlsim"))
    args = ap.parse_args()
    by = load_shapes()
    tmp = tempfile.mkdtemp(prefix="dlsim-kern-")
    rnd = random.Random(1)
    print("| GPU | " + " | ".join(list(by) + ["gemm (linear + bmm)"]) + " |")
    print("|---|" + "---|" * (len(by) + 1))
    raw = {}
    classes = list(by) + ["gemm"]
    for op, shapes in by.items():
        keys = sorted(shapes)
        keys = rnd.sample(keys, min(SAMPLE, len(keys)))
        path = os.path.join(tmp, op + ".onnx")
        build(op, keys, path)
        for gpu in GPU_ORDER:
            machine = machine_copy(gpu, tmp, args.before)
            r = subprocess.run(["nice", "-n", "10", args.dlsim, "estimate", path, "--machine", machine,
                                "--format", "json", "--batch", "1"], capture_output=True, text=True)
            if r.returncode != 0:
                print(r.stderr[-300:], file=sys.stderr)
                continue
            d = json.loads(r.stdout)
            t = {l["name"]: l["time_ms"] for l in d["layers"]}
            ratios = [t[f"{op}_{i}"] / st.median(shapes[k][gpu]) for i, k in enumerate(keys)
                      if gpu in shapes[k] and f"{op}_{i}" in t]
            raw[(gpu, op)] = ratios
    for gpu in GPU_ORDER:
        raw[(gpu, "gemm")] = raw.get((gpu, "linear"), []) + raw.get((gpu, "bmm"), [])
        cells = [("%.3f (%d)" % (st.median(raw[(gpu, op)]), len(raw[(gpu, op)]))) if raw.get((gpu, op)) else "n/a"
                 for op in classes]
        print(f"| {gpu} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
