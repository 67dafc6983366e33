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
  recurrent layers: rnn_fwd per call and rnn_per_kernel per kernel it
    launches: a cuDNN RNN issues its time steps' kernels from the host one
    by one, so a long sequence costs the host in proportion to its kernels
    (a one-layer LSTM and GRU of width 256 at batch 1 and 8, 16 and 128 steps, their
    kernels counted by the profiler: the slope and the intercept)
  training:
    backward: autograd's cost per node that has a backward (a chain of
      Linear+ReLU with frozen weights, forward+backward minus forward);
    optimizer_per_tensor: per parameter tensor (AccumulateGrad, zero_grad
      and SGD with momentum), from the same chain with trainable weights;
    optimizer: per launch of the optimizer's step, the step's cost that
      does not grow with the parameters (zero_grad's and the optimizer's
      Python, the backward's start): a chain of 2 and of 16 layers, the
      intercept over SGD with momentum's three launches.

An op costs more inside a network than alone in a loop (the module calls
around it, colder caches): three small networks (a CNN, an MLP and a stack of
transformer encoder layers written as Hugging Face writes them) are timed
too, forward and training step, and the isolated costs are scaled by the
ratio of their measured time to the sum of their ops' isolated costs (one
factor for the forward kinds, one for backward and per-tensor costs).
Some hosts change pace for minutes at a time: the whole calibration runs
three times in a row (--rounds) and each kind keeps its median.

It writes the `host:` block of a machine file (YAML), with the CPU model and
the framework version it was taken with: paste it into a machine file, or
give it to `dlsim estimate --host FILE`.

Usage: host_calibrate.py [--out HOST.yaml] [--json FILE] [--device N] [--quick] [--rounds R]
"""
import argparse
import json
import os
import platform
import statistics
import sys
import time

try:
    import torch
    import torch.nn.functional as F
except ImportError as e:  # --help still works; a run says what is missing
    torch = F = None
    TORCH_ERROR = e

LOOPS = 5
ORDER = ["conv_fwd", "conv_bias_act", "gemm", "batched_gemm", "attention_fwd", "batchnorm_infer",
         "batchnorm_infer.fp16", "layernorm_fwd", "softmax_fwd", "pool_fwd", "reduction", "copy",
         "elementwise", "rnn_fwd", "rnn_per_kernel", "none", "backward", "optimizer",
         "optimizer_per_tensor"]


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
    }


def rnn_costs(dev, calls):
    """{rnn_fwd, rnn_per_kernel} in us, and the runs they come from: a
    one-layer LSTM and GRU of width 256 at batch 1 and 8 (wide enough for
    cuDNN's standard algorithm, which launches every time step's kernels, and
    short kernels, so the host bounds the call) at 16 and 128 steps; per
    kernel, the slope of the time over the kernels the profiler counts; per
    call, what is left at no kernels. Each run records its kernels' summed
    time, and `host_bound` is false where that sum is over half the call:
    the slope comes from host-bound pairs where there are any."""
    from torch.profiler import profile, ProfilerActivity
    runs = []
    for cls in (torch.nn.LSTM, torch.nn.GRU):
        rnn = cls(256, 256, num_layers=1, batch_first=True).to(dev)
        for batch, steps in ((1, 16), (1, 128), (8, 16), (8, 128)):
            x = torch.randn(batch, steps, 256, device=dev)
            us = per_call_us(lambda: rnn(x), calls)
            with profile(activities=[ProfilerActivity.CUDA]) as prof:
                rnn(x)
                torch.cuda.synchronize()
            kernels = [e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]
            kernel_us = sum(e.time_range.elapsed_us() for e in kernels)
            runs.append(dict(rnn=cls.__name__, batch=batch, steps=steps, us=us, kernels=len(kernels),
                             kernel_us=kernel_us, host_bound=kernel_us < 0.5 * us))
    pairs = [(a, b) for a, b in zip(runs[0::2], runs[1::2]) if b["kernels"] > a["kernels"]]
    host_bound = [(a, b) for a, b in pairs if a["host_bound"] and b["host_bound"]]
    slopes = [(b["us"] - a["us"]) / (b["kernels"] - a["kernels"]) for a, b in host_bound or pairs]
    per_kernel = max(statistics.mean(slopes), 0.0) if slopes else 0.0
    per_call = statistics.mean(max(r["us"] - per_kernel * r["kernels"], 0.0) for r in runs)
    return {"rnn_fwd": per_call, "rnn_per_kernel": per_kernel}, runs


def chain(dev, depth, trainable):
    layers = []
    for _ in range(depth):
        layers += [torch.nn.Linear(8, 8), torch.nn.ReLU()]
    net = torch.nn.Sequential(*layers).to(dev)
    for p in net.parameters():
        p.requires_grad_(trainable)
    return net


# dlsim lowers SGD with momentum (the calibration's optimizer) to three
# foreach launches and charges `optimizer` for each.
SGD_MOMENTUM_LAUNCHES = 3


def chain_times_us(dev, depth, calls):
    """(forward, forward + backward, training step) of a chain of `depth`
    Linear+ReLU layers: the first two with frozen weights and an input that
    takes a gradient (every layer runs its backward), the step with trainable
    weights (2 x depth parameter tensors) and SGD with momentum."""
    frozen = chain(dev, depth, trainable=False)
    x = torch.randn(4, 8, device=dev, requires_grad=True)
    net = chain(dev, depth, trainable=True)
    opt = torch.optim.SGD(net.parameters(), lr=1e-3, momentum=0.9)
    xs = torch.randn(4, 8, device=dev)  # no grad for the input: only parameters collect

    def fwd_bwd():
        frozen(x).sum().backward()

    def step():
        opt.zero_grad(set_to_none=True)
        net(xs).sum().backward()
        opt.step()
    with torch.no_grad():
        fwd = per_call_us(lambda: frozen(x), calls)
    return fwd, per_call_us(fwd_bwd, calls), per_call_us(step, calls)


def training_costs(dev, calls):
    """backward per node, optimizer per tensor and per launch, in us. The
    step's cost beyond forward and backward (zero_grad, the weights'
    gradients and AccumulateGrad, SGD with momentum), at two depths, splits
    into a part per parameter tensor (the slope) and a part per step (the
    intercept: the optimizer's and zero_grad's Python, the backward's start),
    which dlsim charges as `optimizer` on each of SGD with momentum's launches."""
    shallow, depth = 2, 16
    times = {d: chain_times_us(dev, d, calls) for d in (shallow, depth)}
    fwd, fwd_bwd, _ = times[depth]
    nodes_with_backward = 2 * depth + 1  # Linear, ReLU per layer, and the sum
    backward = (fwd_bwd - fwd) / nodes_with_backward
    beyond = {d: step - fb for d, (_, fb, step) in times.items()}
    per_tensor = max((beyond[depth] - beyond[shallow]) / (2 * (depth - shallow)), 0.0)
    per_step = max(beyond[shallow] - 2 * shallow * per_tensor, 0.0)
    return {"backward": backward, "optimizer_per_tensor": per_tensor,
            "optimizer": per_step / SGD_MOMENTUM_LAUNCHES}


# Ops of one Encoder by dlsim kind (forward), and how many have a backward.
ENCODER_OPS = {"layernorm_fwd": 2, "gemm": 6, "attention_fwd": 1, "elementwise": 3, "copy": 1,
               "none": 7}
ENCODER_BACKWARD = 13


def networks(dev):
    """name -> (net, input, forward ops by kind, ops with a backward): small networks
    whose eager forward and training step are host-bound, to scale the isolated
    per-op costs to what the same ops cost inside a network on this host."""
    class Encoder(torch.nn.Module):
        """A pre-norm transformer encoder layer written as Hugging Face models write theirs."""

        def __init__(self, d=16, heads=2):
            super().__init__()
            self.heads = heads
            self.ln1, self.ln2 = torch.nn.LayerNorm(d), torch.nn.LayerNorm(d)
            self.q, self.k, self.v, self.o = (torch.nn.Linear(d, d) for _ in range(4))
            self.fc1, self.fc2, self.act = torch.nn.Linear(d, 4 * d), torch.nn.Linear(4 * d, d), torch.nn.GELU()

        def forward(self, x):
            b, s, d = x.shape
            h = self.ln1(x)
            q, k, v = (m(h).view(b, s, self.heads, -1).transpose(1, 2) for m in (self.q, self.k, self.v))
            a = F.scaled_dot_product_attention(q, k, v).transpose(1, 2).reshape(b, s, d)
            x = x + self.o(a)
            return x + self.fc2(self.act(self.fc1(self.ln2(x))))

    cnn = [torch.nn.Conv2d(3, 8, 3, padding=1)]
    for _ in range(5):
        cnn += [torch.nn.BatchNorm2d(8), torch.nn.ReLU(), torch.nn.Conv2d(8, 8, 3, padding=1)]
    cnn += [torch.nn.BatchNorm2d(8), torch.nn.ReLU(), torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(),
            torch.nn.Linear(8, 10)]
    mlp = []
    for _ in range(8):
        mlp += [torch.nn.Linear(16, 16), torch.nn.ReLU()]
    enc_layers = 4
    return {
        "cnn": (torch.nn.Sequential(*cnn).to(dev), torch.randn(2, 3, 16, 16, device=dev),
                {"conv_fwd": 6, "batchnorm_infer": 6, "elementwise": 6, "reduction": 1, "none": 1,
                 "gemm": 1}, 20),
        "mlp": (torch.nn.Sequential(*mlp).to(dev), torch.randn(4, 16, device=dev),
                {"gemm": 8, "elementwise": 8}, 16),
        "encoder": (torch.nn.Sequential(*[Encoder() for _ in range(enc_layers)]).to(dev),
                    torch.randn(2, 16, 16, device=dev),
                    {k: n * enc_layers for k, n in ENCODER_OPS.items()}, ENCODER_BACKWARD * enc_layers),
    }


def in_network_factors(dev, costs, calls):
    """Forward and training factors: measured network time over the isolated ops' sum."""
    nets = networks(dev)
    measured, predicted = {}, {}
    fwd_meas = fwd_pred = train_meas = train_pred = 0.0
    for name, (net, x, ops, backward_ops) in nets.items():
        with torch.no_grad():
            net.eval()
            fwd = per_call_us(lambda: net(x), calls)
        net.train()
        opt = torch.optim.SGD(net.parameters(), lr=1e-3, momentum=0.9)

        def step():
            opt.zero_grad(set_to_none=True)
            net(x).float().mean().backward()
            opt.step()
        train = per_call_us(step, max(calls // 4, 20))
        pred = sum(costs[k] * n for k, n in ops.items())
        tensors = sum(1 for _ in net.parameters())
        measured[name] = dict(forward_us=fwd, train_step_us=train)
        predicted[name] = dict(forward_us=pred, backward_ops=backward_ops, tensors=tensors)
        fwd_meas += fwd
        fwd_pred += pred
        train_meas += train - fwd
        train_pred += costs["backward"] * backward_ops + costs["optimizer_per_tensor"] * tensors
    forward = fwd_meas / fwd_pred
    # the step's time beyond its forward, less the optimizer's per-step part
    training = max(train_meas - costs["optimizer"] * SGD_MOMENTUM_LAUNCHES * len(nets), 0.0) / train_pred
    return dict(forward=forward, training=training, measured=measured, predicted=predicted)


def calibrate_round(dev, ops, calls):
    """One round: every isolated op, the networks' factors, the RNN runs."""
    with torch.no_grad():
        measured = {name: per_call_us(fn, calls) for name, (_, fn) in ops.items()}
    by_kind = {}
    for name, (kind, _) in ops.items():
        by_kind.setdefault(kind, []).append(measured[name])
    isolated = {kind: statistics.mean(v) for kind, v in by_kind.items()}
    isolated["conv_bias_act"] = isolated["conv_fwd"]
    isolated.update(training_costs(dev, max(calls // 10, 50)))
    factors = in_network_factors(dev, isolated, max(calls // 4, 50))
    with torch.no_grad():
        rnn, measured["rnn_runs"] = rnn_costs(dev, max(calls // 20, 15))
    costs = dict(rnn)  # measured inside a module call already: not scaled
    for kind, us in isolated.items():
        if kind in ("backward", "optimizer_per_tensor"):
            costs[kind] = us * factors["training"]
        elif kind == "optimizer":
            costs[kind] = us
        else:
            costs[kind] = us * factors["forward"]
    return dict(ops_us=measured, isolated_us=isolated, factors=factors, kinds_us=costs)


def calibrate(dev, quick, rounds):
    """`rounds` rounds, one after another, each scaling its isolated costs by
    factors taken minutes apart at most; per kind, the median over rounds.
    A host whose pace drifts between states then neither mixes an isolated
    cost of one state with a factor of another nor rests on one round."""
    calls = max((300 if quick else 2000) // rounds, 100)
    ops = forward_ops(dev)
    taken = [calibrate_round(dev, ops, calls) for _ in range(rounds)]
    costs = {k: statistics.median(r["kinds_us"][k] for r in taken) for k in taken[0]["kinds_us"]}
    factors = {k: statistics.median(r["factors"][k] for r in taken) for k in ("forward", "training")}
    return taken, factors, costs


def host_yaml(costs, info, factors):
    order = ORDER
    lines = [
        "# dlsim-calibrate host on " + info["time"] + f" ({info['gpu']})",
        f"# isolated op costs x {factors['forward']:.2f} (forward) and x {factors['training']:.2f}"
        " (backward, per tensor): what they cost inside small networks on this host",
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
    ap.add_argument("--quick", action="store_true", help="fewer calls per loop (about 10 s; noisier)")
    ap.add_argument("--rounds", type=int, default=3,
                    help="calibrate this many times in a row and keep each kind's median (default 3)")
    args = ap.parse_args()
    if args.rounds < 1:
        sys.exit(f"host_calibrate.py: --rounds {args.rounds}: give 1 or more")
    if torch is None:
        sys.exit(f"host_calibrate.py: PyTorch is needed ({TORCH_ERROR}); install it with CUDA support")
    if not torch.cuda.is_available():
        sys.exit("host_calibrate.py: no CUDA device is visible to PyTorch")
    torch.cuda.set_device(args.device)
    dev = f"cuda:{args.device}"
    t0 = time.time()
    taken, factors, costs = calibrate(dev, args.quick, args.rounds)
    info = dict(cpu=cpu_model(), torch=torch.__version__, python=platform.python_version(),
                gpu=torch.cuda.get_device_name(args.device),
                time=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                seconds=round(time.time() - t0, 1))
    text = host_yaml(costs, info, factors)
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
            json.dump(dict(info=info, factors=factors, kinds_us=costs, rounds=taken), f, indent=1)


if __name__ == "__main__":
    main()
