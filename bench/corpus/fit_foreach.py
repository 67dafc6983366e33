#!/usr/bin/env python3
"""The time a multi_tensor_apply block takes per pass over its chunk, from the
calibration side's training traces (H100).

PyTorch's foreach ops (SGD's _foreach_mul_/_foreach_add_) launch one block per
chunk of at most 65,536 elements of a tensor; a block walks its chunk in
passes of 512 threads x 4 elements, each pass a round trip to memory. A launch
over small tensors takes as long as its largest chunk's walk, whatever its
bytes. This fits the time of one pass: for every optimizer kernel of the
calibration side's traces whose model has under 1e6 parameters (so that
bandwidth does not bound it) and whose largest chunk needs at least 4 passes,
(kernel time - the kernel floor) / passes; the median is
`RooflineParams::foreach_pass_s` (include/dlsim/cost/roofline.h).

Reads the ONNX exports (initializer shapes) and traces in build/corpus-cache
(evaluate.py unpacks them). Usage: fit_foreach.py
"""
import json
import math
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import corpus  # noqa: E402
import evaluate  # noqa: E402

CHUNK = 65536
PASS = 512 * 4
FLOOR_US = 1.5  # RooflineParams::kernel_floor_s
MAX_PARAMS = 1_000_000
MIN_PASSES = 4


def float_initializers(path):
    import onnx
    graph = onnx.load(path, load_external_data=False).graph
    return [math.prod(t.dims) for t in graph.initializer if t.data_type == onnx.TensorProto.FLOAT]


def optimizer_kernels_us(trace):
    with open(trace) as f:
        d = json.load(f)
    events = d["traceEvents"] if isinstance(d, dict) else d
    return [e["dur"] for e in events if e.get("cat") == "kernel" and "multi_tensor_apply" in e["name"]]


def main():
    evaluate.unpack()
    per_pass, models = [], 0
    for model in corpus.names("cal"):
        onnx_path = os.path.join(evaluate.CACHE, "onnx", f"{model}.ts.onnx")
        if not os.path.exists(onnx_path):
            continue
        sizes = float_initializers(onnx_path)
        if not sizes or sum(sizes) >= MAX_PARAMS:
            continue
        passes = math.ceil(min(CHUNK, max(sizes)) / PASS)
        if passes < MIN_PASSES:
            continue
        used = False
        for dtype in ("fp32", "bf16_amp"):
            trace = os.path.join(evaluate.CACHE, "traces", f"{model}_training_{dtype}.trace.json")
            if os.path.exists(trace):
                for us in optimizer_kernels_us(trace):
                    per_pass.append((us - FLOOR_US) / passes)
                    used = True
        models += used
    q = statistics.quantiles(per_pass, n=10)
    print(f"{len(per_pass)} kernels of {models} models: time per pass median "
          f"{statistics.median(per_pass):.3f} us (P10 {q[0]:.3f}, P90 {q[-1]:.3f})")


if __name__ == "__main__":
    main()
