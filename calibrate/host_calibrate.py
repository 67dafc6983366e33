#!/usr/bin/env python3
"""Host calibration: what PyTorch's eager mode costs the CPU per operation.

Eager (op-by-op) time of a small model is mostly the host's: Python, the
module call, the dispatcher and the launch, for every op, while the GPU
waits. dlsim prices it per node from the machine file's `host` section
(docs/machine-format.md). This script measures that section on the machine
it runs on, with no model: tiny tensors (the GPU finishes each op long before
the host has issued the next), each op issued a few thousand times in a loop,
the median of five loops.

  forward, by the dlsim kernel kind of the node's first call:
    conv_fwd (nn.Conv2d), gemm (nn.Linear), batched_gemm (torch.matmul),
    attention_fwd (F.scaled_dot_product_attention), batchnorm_infer
    (nn.BatchNorm2d in eval; and .fp16 with fp16 weights), layernorm_fwd,
    softmax_fwd, pool_fwd, reduction, copy (cat, contiguous), elementwise
    (add, mul, ReLU, GELU) and none (view, transpose: ops that launch nothing)
  training:
    backward: autograd's cost per node that has a backward (a chain of
      Linear+ReLU with frozen weights, forward+backward minus forward);
    optimizer_per_tensor: per parameter tensor (AccumulateGrad, zero_grad
      and SGD with momentum), from the same chain with trainable weights;
    optimizer: one launch of the optimizer's step.

It writes the `host:` block of a machine file (YAML), with the CPU model and
the framework version it was taken with: paste it into a machine file, or
give it to `dlsim estimate --host FILE`.

Usage: host_calibrate.py [--out HOST.yaml] [--json FILE] [--device N] [--quick]
"""
import argparse
import json
import os
import platform
import statistics
import sys
import time

import torch
import torch.nn.functional as F

LOOPS = 5
ORDER = ["conv_fwd", "conv_bias_act", "gemm", "batched_gemm", "attention_fwd", "batchnorm_infer",
         "batchnorm_infer.fp16", "layernorm_fwd", "softmax_fwd", "pool_fwd", "reduction", "copy",
         "elementwise", "rnn_fwd", "none", "backward", "optimizer", "optimizer_per_tensor"]


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def per_call_us(fn, calls):
    """Median over LOOPS loops of the wall time per call, GPU drained at each end."""
    for _ in range(max(calls // 10, 20)):
        fn()
    torch.cuda.synchronize()
    samples = []
    for _ in range(LOOPS):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        torch.cuda.synchronize()
        samples.append((time.perf_counter() - t0) / calls * 1e6)
    return statistics.median(samples)


def forward_ops(dev):
    """name -> (dlsim kind, callable): one tiny op each."""
    a = torch.randn(8, 8, device=dev)
    b = torch.randn(8, 8, device=dev)
    img = torch.randn(1, 8, 8, 8, device=dev)
    seq = torch.randn(1, 2, 8, 8, device=dev)
    conv = torch.nn.Conv2d(8, 8, 3, padding=1).to(dev)
    lin = torch.nn.Linear(8, 8).to(dev)
    bn = torch.nn.BatchNorm2d(8).to(dev).eval()
    bn16 = torch.nn.BatchNorm2d(8).to(dev).eval().half()
    img16 = img.half()
    ln = torch.nn.LayerNorm(8).to(dev)
    pool = torch.nn.MaxPool2d(2).to(dev)
    relu = torch.nn.ReLU().to(dev)
    gelu = torch.nn.GELU().to(dev)
    at = a.t()
    # a multi-layer cuDNN RNN: one call that launches kernels per layer and step
    lstm = torch.nn.LSTM(8, 8, num_layers=2, batch_first=True).to(dev)
    gru = torch.nn.GRU(8, 8, num_layers=2, batch_first=True).to(dev)
    steps = torch.randn(1, 64, 8, device=dev)
    return {
        "conv2d": ("conv_fwd", lambda: conv(img)),
        "linear": ("gemm", lambda: lin(a)),
        "matmul": ("batched_gemm", lambda: torch.matmul(seq, seq)),
        "sdpa": ("attention_fwd", lambda: F.scaled_dot_product_attention(seq, seq, seq)),
        "batch_norm": ("batchnorm_infer", lambda: bn(img)),
        "batch_norm_fp16": ("batchnorm_infer.fp16", lambda: bn16(img16)),
        "layer_norm": ("layernorm_fwd", lambda: ln(a)),
        "softmax": ("softmax_fwd", lambda: torch.softmax(a, -1)),
        "max_pool": ("pool_fwd", lambda: pool(img)),
        "mean": ("reduction", lambda: a.mean(-1)),
        "cat": ("copy", lambda: torch.cat([a, b])),
        "contiguous": ("copy", lambda: at.contiguous()),
        "add": ("elementwise", lambda: a + b),
        "mul": ("elementwise", lambda: a * 0.5),
        "relu": ("elementwise", lambda: relu(a)),
        "gelu": ("elementwise", lambda: gelu(a)),
        "view": ("none", lambda: a.view(4, 16)),
        "transpose": ("none", lambda: a.transpose(0, 1)),
        "lstm": ("rnn_fwd", lambda: lstm(steps)),
        "gru": ("rnn_fwd", lambda: gru(steps)),
    }


def chain(dev, depth, trainable):
    layers = []
    for _ in range(depth):
        layers += [torch.nn.Linear(8, 8), torch.nn.ReLU()]
    net = torch.nn.Sequential(*layers).to(dev)
    for p in net.parameters():
        p.requires_grad_(trainable)
    return net


def training_costs(dev, calls):
    """backward per node, optimizer per tensor and per launch, in us."""
    depth = 16
    x = torch.randn(4, 8, device=dev, requires_grad=True)
    frozen = chain(dev, depth, trainable=False)
    with torch.no_grad():
        fwd = per_call_us(lambda: frozen(x), calls)

    def fwd_bwd():
        frozen(x).sum().backward()
    nodes_with_backward = 2 * depth + 1  # Linear, ReLU per layer, and the sum
    backward = (per_call_us(fwd_bwd, calls) - fwd) / nodes_with_backward

    net = chain(dev, depth, trainable=True)
    opt = torch.optim.SGD(net.parameters(), lr=1e-3, momentum=0.9)
    xs = torch.randn(4, 8, device=dev)  # no grad for the input: only parameters collect

    def step():
        opt.zero_grad(set_to_none=True)
        net(xs).sum().backward()
        opt.step()

    def fwd_bwd_frozen_like():
        frozen(x).sum().backward()
    step_us = per_call_us(step, calls)
    same_graph_us = per_call_us(fwd_bwd_frozen_like, calls)
    tensors = 2 * depth
    optimizer = 30.0  # one launch; not separable from the per-tensor cost here
    per_tensor = max(step_us - same_graph_us - optimizer, 0.0) / tensors
    return {"backward": backward, "optimizer_per_tensor": per_tensor, "optimizer": optimizer}


def calibrate(dev, quick):
    calls = 300 if quick else 2000
    ops = forward_ops(dev)
    with torch.no_grad():
        measured = {name: per_call_us(fn, calls) for name, (_, fn) in ops.items()}
    by_kind = {}
    for name, (kind, _) in ops.items():
        by_kind.setdefault(kind, []).append(measured[name])
    costs = {kind: statistics.mean(v) for kind, v in by_kind.items()}
    costs["conv_bias_act"] = costs["conv_fwd"]
    costs.update(training_costs(dev, max(calls // 10, 50)))
    return measured, costs


def host_yaml(costs, info):
    order = ORDER
    lines = [
        "# dlsim-calibrate host on " + info["time"],
        "host:",
        "  framework: pytorch",
        f"  framework_version: \"{info['torch']}\"",
        f"  cpu: \"{info['cpu']}\"",
        "  calibrated: true",
        f"  dispatch_us: {costs['elementwise']:.1f}               # every kind not listed",
        "  dispatch_us_by_kind:",
    ]
    lines += [f"    {k}: {costs[k]:.1f}" for k in order if k in costs]
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", help="write the host: block here (default: standard output)")
    ap.add_argument("--json", help="also write every op's measurement as JSON here")
    ap.add_argument("--device", type=int, default=0)
    ap.add_argument("--quick", action="store_true", help="fewer calls per loop (about 5 s)")
    args = ap.parse_args()
    if not torch.cuda.is_available():
        sys.exit("host_calibrate.py: no CUDA device is visible to PyTorch")
    torch.cuda.set_device(args.device)
    dev = f"cuda:{args.device}"
    t0 = time.time()
    measured, costs = calibrate(dev, args.quick)
    info = dict(cpu=cpu_model(), torch=torch.__version__, python=platform.python_version(),
                gpu=torch.cuda.get_device_name(args.device),
                time=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                seconds=round(time.time() - t0, 1))
    text = host_yaml(costs, info)
    if args.out:
        tmp = args.out + ".tmp"
        with open(tmp, "w") as f:
            f.write(text)
        os.replace(tmp, args.out)
        print(f"host_calibrate: wrote {args.out} ({info['seconds']} s)", file=sys.stderr)
    else:
        sys.stdout.write(text)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(dict(info=info, ops_us=measured, kinds_us=costs), f, indent=1)


if __name__ == "__main__":
    main()
