#!/usr/bin/env python3
"""How long cuDNN's recurrent layers take when PyTorch launches them op by op
(eager) against the replay of a CUDA graph, which is how dlsim's database
times them.

The corpus's recurrent models train 23-52 % slower (the profiler's kernel
sum of an eager step) than dlsim prices them from database keys measured
for those very layers, and their eager inference kernel sums are 1.4-1.6x
their graph-replay times. This probe times, per layer shape and dtype:

  inference forward (eval, no grad): graph replay, eager wall time per call,
    and the profiler's kernel sum of eager calls;
  training forward + backward (autograd.grad for the input and the weights):
    the same three;
  for a stack of layers, each layer alone replayed, summed (layerwise_*).

Each row goes to a JSON-lines file. The shapes: the recurrent layers of the
corpus's calibration side and of the zoo's lstm2 / gru2, and a few more.

  python3 bench/profile/rnn_eager_probe.py --out rnn_eager.jsonl
"""
import argparse
import json
import os
import statistics
import sys
import time

try:
    import torch
except ImportError:  # --help still works; a run says what is missing
    torch = None

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "accuracy"))

# (cell, seq, batch, input, hidden, layers, dirs)
SHAPES = [
    ("gru", 147, 16, 36, 216, 1, 1), ("gru", 75, 4, 54, 526, 3, 1), ("lstm", 18, 1, 96, 136, 3, 1),
    ("gru", 233, 4, 418, 392, 2, 1), ("lstm", 100, 64, 73, 435, 3, 1),
    ("lstm", 64, 32, 256, 512, 2, 1), ("gru", 64, 32, 256, 512, 2, 1),
    ("lstm", 128, 8, 128, 256, 1, 1), ("lstm", 128, 8, 128, 256, 4, 1), ("lstm", 128, 8, 128, 256, 2, 2),
    ("gru", 50, 128, 300, 1024, 1, 1), ("lstm", 200, 16, 64, 128, 2, 1),
]


def capture(fn, grad):
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s), torch.set_grad_enabled(grad):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g), torch.set_grad_enabled(grad):
        fn()
    return g


def setup(shape, dtype):
    """The layer, its input, and its training forward+backward (input and weight gradients)."""
    cell, seq, batch, inp, hid, layers, dirs = shape
    mod = torch.nn.LSTM if cell == "lstm" else torch.nn.GRU
    rnn = mod(inp, hid, layers, bidirectional=dirs == 2).cuda().to(dtype)
    x = torch.randn(seq, batch, inp, device="cuda", dtype=dtype)
    xg = x.clone().requires_grad_(True)
    gy = torch.randn(seq, batch, hid * dirs, device="cuda", dtype=dtype)
    weights = list(rnn.parameters())
    step = lambda: torch.autograd.grad(rnn(xg)[0], [xg] + weights, gy)  # noqa: E731
    return rnn, x, step


def measure(shape, dtype):
    cell, seq, batch, inp, hid, layers, dirs = shape
    rnn, x, step = setup(shape, dtype)
    out = dict(cell=cell, seq=seq, batch=batch, input=inp, hidden=hid, layers=layers, dirs=dirs,
               dtype=str(dtype).replace("torch.", ""))
    rnn.eval()
    fwd = lambda: rnn(x)[0]  # noqa: E731
    with torch.no_grad():
        out["inf_replay_ms"] = time_fn(capture(fwd, False).replay)[0]
        out["inf_eager_wall_ms"] = time_fn(fwd)[0]
        out["inf_kernels"], out["inf_kernel_sum_ms"], _ = kernel_profile(fwd, 3)
    rnn.train()
    out["train_replay_ms"] = time_fn(capture(step, True).replay)[0]
    out["train_eager_wall_ms"] = time_fn(step)[0]
    out["train_kernels"], out["train_kernel_sum_ms"], _ = kernel_profile(step, 3)
    if layers > 1:  # each layer alone, replayed: the stack timed layer by layer
        inf = train = 0.0
        for i in range(layers):
            one = measure_replay((cell, seq, batch, inp if i == 0 else hid * dirs, hid, 1, dirs), dtype)
            inf, train = inf + one[0], train + one[1]
        out["layerwise_inf_replay_ms"], out["layerwise_train_replay_ms"] = inf, train
    return out


def measure_replay(shape, dtype):
    """(inference, training) graph-replay ms of one layer shape."""
    rnn, x, step = setup(shape, dtype)
    rnn.eval()
    with torch.no_grad():
        inf = time_fn(capture(lambda: rnn(x)[0], False).replay)[0]
    rnn.train()
    return inf, time_fn(capture(step, True).replay)[0]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    if torch is None:
        sys.exit("rnn_eager_probe.py: needs PyTorch with CUDA (run it on the GPU machine)")
    global kernel_profile, time_fn
    from reference_runs import kernel_profile, time_fn
    torch.backends.cudnn.benchmark = True
    t0 = time.time()
    with open(args.out, "w") as f:
        for dtype in (torch.float32, torch.bfloat16):
            for shape in SHAPES:
                try:
                    row = measure(shape, dtype)
                except Exception as e:  # a shape cuDNN refuses: say so and go on
                    row = dict(shape=list(shape), dtype=str(dtype), error=str(e)[:300])
                f.write(json.dumps(row) + "\n")
                f.flush()
                print(json.dumps(row), flush=True)
    ratios = []
    for line in open(args.out):
        r = json.loads(line)
        if "error" not in r:
            ratios.append(r["train_kernel_sum_ms"] / r["train_replay_ms"])
    print(f"{len(ratios)} rows in {time.time() - t0:.0f} s; training kernel sum / replay, median "
          f"{statistics.median(ratios):.2f}")


if __name__ == "__main__":
    main()
