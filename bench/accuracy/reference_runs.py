#!/usr/bin/env python3
"""Reference runs for dlsim's accuracy harness. Runs on the GPU machine.

For each zoo model (bench/accuracy/zoo.py) it
  * exports a graph-only ONNX (opset 17, dynamic batch, weights stripped to an
    absent external-data file) into OUT/zoo/,
  * measures inference at batch 1/16/64 in fp32 and fp16: CUDA-graph replay
    time (GPU time) and eager time, as ../shared/docs/accuracy.md defines them,
  * measures a training step (SGD with momentum, batch 32, fp32): eager time
    and summed kernel time from the profiler,
and appends one JSON line per measurement to OUT/reference.jsonl.

Usage: reference_runs.py --out DIR [--models a,b,...] [--skip-export]
       [--skip-infer] [--skip-train] [--overhead]
"""
import argparse
import json
import os
import statistics
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from zoo import ZOO, INFER_BATCHES, INFER_DTYPES, TRAIN_BATCH  # noqa: E402

DEV = "cuda"


# ---------------------------------------------------------------- models
class RnnModel(torch.nn.Module):
    def __init__(self, cell):
        super().__init__()
        rnn = torch.nn.LSTM if cell == "lstm" else torch.nn.GRU
        self.rnn = rnn(256, 512, num_layers=2, batch_first=True)
        self.head = torch.nn.Linear(512, 10)

    def forward(self, x):
        y, _ = self.rnn(x)
        return self.head(y[:, -1, :])


def p1b2_mlp():
    L = torch.nn.Linear
    return torch.nn.Sequential(L(28204, 1024), torch.nn.ReLU(), L(1024, 512), torch.nn.ReLU(),
                               L(512, 256), torch.nn.ReLU(), L(256, 10))


class Nt3(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.features = torch.nn.Sequential(
            torch.nn.Conv1d(1, 128, 20), torch.nn.ReLU(), torch.nn.MaxPool1d(1),
            torch.nn.Conv1d(128, 128, 10), torch.nn.ReLU(), torch.nn.MaxPool1d(10))
        self.classifier = torch.nn.Sequential(
            torch.nn.Flatten(), torch.nn.Linear(128 * 6045, 200), torch.nn.ReLU(),
            torch.nn.Dropout(0.1), torch.nn.Linear(200, 20), torch.nn.ReLU(),
            torch.nn.Dropout(0.1), torch.nn.Linear(20, 2))

    def forward(self, x):
        return self.classifier(self.features(x))


class P3b1(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.shared = torch.nn.Sequential(torch.nn.Linear(400, 1200), torch.nn.ReLU(),
                                          torch.nn.Linear(1200, 1200), torch.nn.ReLU())
        self.heads = torch.nn.ModuleList([torch.nn.Linear(1200, n) for n in (4, 2, 10)])

    def forward(self, x):
        h = self.shared(x)
        return torch.cat([head(h) for head in self.heads], dim=1)


class HfWrapper(torch.nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, input_ids):
        return self.model(input_ids=input_ids).last_hidden_state


def build(name):
    family = ZOO[name][0]
    if family == "torchvision":
        import torchvision
        kwargs = {"weights": None}
        if name in ("googlenet", "inception_v3"):
            kwargs.update(aux_logits=False, init_weights=True)
        return getattr(torchvision.models, name)(**kwargs)
    if family == "hf":
        import transformers as tf
        if name == "bert_base":
            cfg = tf.BertConfig(attn_implementation="eager")
            return HfWrapper(tf.BertModel(cfg, add_pooling_layer=False))
        cfg = tf.GPT2Config(attn_implementation="eager", use_cache=False)
        return HfWrapper(tf.GPT2Model(cfg))
    if name == "lstm2":
        return RnnModel("lstm")
    if name == "gru2":
        return RnnModel("gru")
    if name == "candle_p1b2_mlp":
        return p1b2_mlp()
    if name == "candle_nt3_conv1d":
        return Nt3()
    if name == "candle_p3b1_mlp":
        return P3b1()
    raise ValueError(name)


def make_input(name, batch, dtype):
    kind = ZOO[name][1]
    fdt = torch.float16 if dtype == "fp16" else torch.float32
    if kind == "image224":
        return torch.randn(batch, 3, 224, 224, device=DEV, dtype=fdt)
    if kind == "image299":
        return torch.randn(batch, 3, 299, 299, device=DEV, dtype=fdt)
    if kind == "tokens128":
        return torch.randint(0, 30000, (batch, 128), device=DEV)
    if kind == "tokens256":
        return torch.randint(0, 50000, (batch, 256), device=DEV)
    if kind == "seq":
        return torch.randn(batch, 64, 256, device=DEV, dtype=fdt)
    if kind == "features":
        return torch.randn(batch, 28204, device=DEV, dtype=fdt)
    if kind == "features_p3b1":
        return torch.randn(batch, 400, device=DEV, dtype=fdt)
    if kind == "signal":
        return torch.randn(batch, 1, 60483, device=DEV, dtype=fdt)
    raise ValueError(kind)


def case_of_spec(spec):
    """(case dict, model on the GPU in the case's dtype, its input) of a
    "model:dtype:batch" spec, for scripts that take a list of zoo cases."""
    name, dtype, batch = spec.split(":")
    net = build(name).to(DEV).eval()
    if dtype == "fp16":
        net = net.half()
    return dict(model=name, dtype=dtype, batch=int(batch)), net, make_input(name, int(batch), dtype)


def input_name(name):
    return "input_ids" if ZOO[name][0] == "hf" else "input"


# ---------------------------------------------------------------- timing
def timed_loop(fn, n):
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(n):
        fn()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) / n


def time_fn(fn, target_ms=150.0, loops=5):
    """Median per-call ms over `loops` timed loops of about target_ms each."""
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    once = max(timed_loop(fn, 3), 1e-3)
    n = int(min(max(target_ms / once, 3), 2000))
    samples = [timed_loop(fn, n) for _ in range(loops)]
    return statistics.median(samples), samples


def capture_graph(fn):
    """A CUDA graph of fn() (no grad), after three warm-up calls on a side stream."""
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s), torch.no_grad():
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g), torch.no_grad():
        fn()
    return g


def graph_replay_ms(model, x):
    return time_fn(capture_graph(lambda: model(x)).replay)


def eager_ms(model, x):
    with torch.no_grad():
        return time_fn(lambda: model(x))


def kernel_profile(fn, steps=3):
    """(kernel count per step, summed kernel ms per step) from the profiler."""
    from torch.profiler import profile, ProfilerActivity
    fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(steps):
            fn()
        torch.cuda.synchronize()
    kernels = [e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]
    total_us = sum(e.device_time for e in kernels if "Memcpy" not in e.name and "Memset" not in e.name)
    return len(kernels) / steps, total_us / 1000.0 / steps, prof


# ---------------------------------------------------------------- export
def _register_diff_symbolic():
    """transformers' GPT-2 mask code calls torch.diff, which the TorchScript
    exporter lacks at opset 17: export it as Slice - Slice (+ Concat)."""
    try:
        from torch.onnx._internal.torchscript_exporter import symbolic_helper as sh
    except ImportError:
        from torch.onnx import symbolic_helper as sh

    def const(g, v):
        return g.op("Constant", value_t=torch.tensor([v], dtype=torch.int64))

    def diff(g, self, n, dim, prepend, append):
        d = sh._get_const(dim, "i", "dim")
        x = self
        if not sh._is_none(prepend):
            x = g.op("Concat", prepend, x, axis_i=d)
        if not sh._is_none(append):
            x = g.op("Concat", x, append, axis_i=d)
        hi = g.op("Slice", x, const(g, 1), const(g, 2**62), const(g, d))
        lo = g.op("Slice", x, const(g, 0), const(g, -1), const(g, d))
        return g.op("Sub", hi, lo)

    torch.onnx.register_custom_op_symbolic("aten::diff", diff, 17)


def export_onnx(name, model, out_dir):
    return export_graph(name, model, make_input(name, 2, "fp32"), input_name(name), out_dir)


def export_graph(name, model, x, iname, out_dir):
    """OUT_DIR/NAME.onnx from MODEL traced on X (fp32, batch axis dynamic),
    weights stripped: (path, node count)."""
    import onnx
    model = model.to(DEV).float().eval()
    path = os.path.join(out_dir, name + ".onnx")
    kwargs = dict(opset_version=17, input_names=[iname], output_names=["output"],
                  dynamic_axes={iname: {0: "batch"}, "output": {0: "batch"}},
                  do_constant_folding=True,
                  # Keep BatchNormalization nodes: in EVAL mode the exporter
                  # folds each into the convolution before it, but PyTorch
                  # runs them as kernels of their own (eval and training
                  # alike), so a folded graph misses their time
                  # (docs/compare.md). PRESERVE exports the eval-mode model
                  # without that folding.
                  training=torch.onnx.TrainingMode.PRESERVE)
    try:
        torch.onnx.export(model, (x,), path, dynamo=False, **kwargs)
    except TypeError:
        torch.onnx.export(model, (x,), path, **kwargs)
    m = onnx.load(path)
    data_name = name + ".onnx.data"
    onnx.save_model(m, path, save_as_external_data=True, all_tensors_to_one_file=True,
                    location=data_name, size_threshold=1024)
    data_path = os.path.join(out_dir, data_name)
    if os.path.exists(data_path):
        os.remove(data_path)  # graph-only: dlsim never reads weights
    return path, len(m.graph.node)


# ---------------------------------------------------------------- main
def emit(out, rec):
    out.write(json.dumps(rec) + "\n")
    out.flush()
    print(json.dumps(rec), flush=True)


def infer_runs(name, out, trace_dir=None):
    for dtype in INFER_DTYPES:
        model = build(name).to(DEV).eval()
        if dtype == "fp16":
            model = model.half()
        for batch in INFER_BATCHES:
            x = make_input(name, batch, dtype)
            try:
                eag, eag_s = eager_ms(model, x)
                with torch.no_grad():
                    nk, ksum, prof = kernel_profile(lambda: model(x))
                try:
                    gpu, gpu_s = graph_replay_ms(model, x)
                    method = "graph_replay"
                except RuntimeError:
                    # Models that copy host tensors while running (HF mask
                    # code) cannot be captured: their GPU time is the summed
                    # kernel time, which graph replay approaches.
                    torch.cuda.synchronize()
                    gpu, gpu_s, method = ksum, [ksum], "kernel_sum"
                if trace_dir and batch == 16 and dtype == "fp32":
                    prof.export_chrome_trace(os.path.join(trace_dir, f"{name}_b16_fp32.trace.json"))
                emit(out, dict(model=name, mode="inference", dtype=dtype, batch=batch,
                               gpu_ms=gpu, eager_ms=eag, kernels=nk, kernel_sum_ms=ksum,
                               gpu_method=method, gpu_samples=gpu_s, eager_samples=eag_s))
            except Exception as e:  # noqa: BLE001 - record and go on
                emit(out, dict(model=name, mode="inference", dtype=dtype, batch=batch,
                               error=repr(e)[:300]))
            torch.cuda.empty_cache()
        del model


def make_train_step(name, batch):
    """One SGD-with-momentum training step of the model on random fp32 input
    (the reference training run of ../shared/docs/accuracy.md)."""
    model = build(name).to(DEV).train()
    opt = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9)
    x = make_input(name, batch, "fp32")

    def step():
        opt.zero_grad(set_to_none=True)
        y = model(x)
        if isinstance(y, tuple):
            y = y[0]
        loss = y.float().mean()
        loss.backward()
        opt.step()
    return step


def train_run(name, out, trace_dir=None):
    step = make_train_step(name, TRAIN_BATCH)
    try:
        eag, eag_s = time_fn(step, target_ms=300, loops=3)
        nk, ksum, prof = kernel_profile(step)
        emit(out, dict(model=name, mode="training", dtype="fp32", batch=TRAIN_BATCH,
                       optimizer="sgd_momentum", gpu_ms=ksum, eager_ms=eag, kernels=nk,
                       eager_samples=eag_s))
    except Exception as e:  # noqa: BLE001
        emit(out, dict(model=name, mode="training", dtype="fp32", batch=TRAIN_BATCH,
                       error=repr(e)[:300]))
    del step
    torch.cuda.empty_cache()


def overhead_runs(out):
    """Eager per-op host dispatch cost of small ops (no GPU work to speak of)."""
    a = torch.randn(8, device=DEV)
    b = torch.randn(8, device=DEV)
    img = torch.randn(1, 8, 8, 8, device=DEV)
    conv = torch.nn.Conv2d(8, 8, 3, padding=1).to(DEV)
    lin = torch.nn.Linear(8, 8).to(DEV)
    bn = torch.nn.BatchNorm2d(8).to(DEV).eval()
    ln = torch.nn.LayerNorm(8).to(DEV)
    ops = {
        "add": lambda: torch.add(a, b),
        "relu": lambda: torch.relu(a),
        "conv2d": lambda: conv(img),
        "linear": lambda: lin(a.view(1, 8)),
        "batch_norm": lambda: bn(img),
        "layer_norm": lambda: ln(a.view(1, 8)),
        "softmax": lambda: torch.softmax(a, 0),
        "cat": lambda: torch.cat([a, b]),
        "view": lambda: a.view(2, 4),
    }
    with torch.no_grad():
        for name, fn in ops.items():
            for _ in range(200):
                fn()
            torch.cuda.synchronize()
            samples = []
            for _ in range(5):
                t0 = time.perf_counter()
                for _ in range(2000):
                    fn()
                torch.cuda.synchronize()
                samples.append((time.perf_counter() - t0) / 2000 * 1e6)
            emit(out, dict(mode="overhead", op=name, host_us=statistics.median(samples),
                           samples_us=samples))


def environment():
    p = torch.cuda.get_device_properties(0)
    return dict(mode="environment", gpu=p.name, sms=p.multi_processor_count,
                mem_bytes=p.total_memory, l2_bytes=getattr(p, "L2_cache_size", 0),
                torch=torch.__version__, cuda=torch.version.cuda,
                cudnn=torch.backends.cudnn.version(), time=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--models", default=",".join(ZOO))
    ap.add_argument("--skip-export", action="store_true")
    ap.add_argument("--skip-infer", action="store_true")
    ap.add_argument("--skip-train", action="store_true")
    ap.add_argument("--overhead", action="store_true")
    ap.add_argument("--tag", default="reference")
    ap.add_argument("--traces", default="", help="write b16 fp32 profiler traces here")
    args = ap.parse_args()
    torch.backends.cudnn.benchmark = True
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = True
    try:
        _register_diff_symbolic()
    except Exception as e:  # noqa: BLE001
        print("# could not register aten::diff:", e)
    os.makedirs(args.out, exist_ok=True)
    zoo_dir = os.path.join(args.out, "zoo")
    os.makedirs(zoo_dir, exist_ok=True)
    with open(os.path.join(args.out, args.tag + ".jsonl"), "a") as out:
        emit(out, environment())
        if args.overhead:
            overhead_runs(out)
        for name in args.models.split(","):
            t0 = time.time()
            if not args.skip_export:
                try:
                    path, nodes = export_onnx(name, build(name), zoo_dir)
                    emit(out, dict(mode="export", model=name, nodes=nodes))
                except Exception as e:  # noqa: BLE001
                    emit(out, dict(mode="export", model=name, error=repr(e)[:300]))
            if not args.skip_infer:
                infer_runs(name, out, args.traces or None)
            if not args.skip_train:
                train_run(name, out)
            print(f"# {name} done in {time.time() - t0:.1f}s", flush=True)


if __name__ == "__main__":
    main()
