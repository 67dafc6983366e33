#!/usr/bin/env python3
"""Exports corpus models to graph-only ONNX, both ways PyTorch offers.

For each NAME it writes OUT/NAME.ts.onnx (TorchScript exporter, dynamo=False,
opset 17) and OUT/NAME.dynamo.onnx (torch.export-based exporter, dynamo=True,
opset 18), with the batch and the named dims of corpus.dim_names dynamic.
Weights are stripped to an absent external-data file (dlsim never reads them).
One JSON line per export goes to stdout: the exporter, whether it worked, how
its dims came out dynamic, the node count and the seconds it took.

Runs on the CPU (CUDA_VISIBLE_DEVICES= is fine), one process per few models.

Usage: export.py --out DIR NAME [NAME ...]
"""
import argparse
import json
import os
import sys
import time

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "accuracy"))
import corpus  # noqa: E402
import families  # noqa: E402


def strip_weights(path):
    """Rewrites PATH graph-only: weights to an external file that is removed."""
    import onnx
    m = onnx.load(path)
    data = os.path.basename(path) + ".data"
    for f in os.listdir(os.path.dirname(path)):
        if f.startswith(os.path.basename(path)) and f != os.path.basename(path):
            os.remove(os.path.join(os.path.dirname(path), f))
    onnx.save_model(m, path, save_as_external_data=True, all_tensors_to_one_file=True, location=data,
                    size_threshold=1024)
    full = os.path.join(os.path.dirname(path), data)
    if os.path.exists(full):
        os.remove(full)
    return len(m.graph.node), m.opset_import[0].version if m.opset_import else 0


def export_ts(model, x, path, iname, dims):
    torch.onnx.export(model, (x,), path, dynamo=False, opset_version=17, input_names=[iname],
                      output_names=["output"], dynamic_axes={iname: dims, "output": {0: "batch"}},
                      do_constant_folding=True, training=torch.onnx.TrainingMode.PRESERVE)
    return "named"


def export_dynamo(model, x, path, iname, dims):
    """Named dims first; then Dim.AUTO on the same axes; then the batch alone; then static."""
    from torch.export import Dim
    # Positional (a tuple of one dict per argument): nn.Sequential names its
    # argument "input", the Hugging Face wrapper "x".
    tries = [("named", ({a: Dim(n) for a, n in dims.items()},)),
             ("auto", ({a: Dim.AUTO for a in dims},)),
             ("batch", ({0: Dim("batch")},)),
             ("static", None)]
    last = None
    for how, shapes in tries:
        try:
            torch.onnx.export(model, (x,), path, dynamo=True, opset_version=18, input_names=[iname],
                              output_names=["output"], dynamic_shapes=shapes, external_data=True)
            return how
        except Exception as e:  # noqa: BLE001 - try the next, weaker form
            last = e
    raise last


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--only", choices=["ts", "dynamo"])
    ap.add_argument("--train", action="store_true",
                    help="export the model in training mode (dropout kept) as NAME.train.EXPORTER.onnx")
    ap.add_argument("--half", action="store_true",
                    help="export the model cast to fp16 (.half(), as the fp16 reference runs it) as "
                         "NAME.half.EXPORTER.onnx, on the GPU when there is one")
    ap.add_argument("names", nargs="+")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    torch.set_num_threads(1)
    try:
        from reference_runs import _register_diff_symbolic
        _register_diff_symbolic()
    except Exception:  # noqa: BLE001
        pass
    for name in args.names:
        s = corpus.spec(name)
        iname = corpus.input_name(s)
        dims = corpus.dim_names(s)
        for exporter, fn in (("ts", export_ts), ("dynamo", export_dynamo)):
            if args.only and exporter != args.only:
                continue
            stem = f"{name}.train" if args.train else f"{name}.half" if args.half else name
            path = os.path.join(args.out, f"{stem}.{exporter}.onnx")
            t0 = time.time()
            rec = dict(mode="export", model=name, exporter=exporter, train=args.train, half=args.half)
            try:
                model = families.build(name).train(args.train)
                dev = "cuda" if args.half and torch.cuda.is_available() else "cpu"
                if args.half:
                    model = model.half()
                model = model.to(dev)
                x = families.make_input(name, batch=2, dtype="fp16" if args.half else "fp32", device=dev)
                with torch.no_grad():
                    rec["dynamic"] = fn(model, x, path, iname, dims)
                rec["nodes"], rec["opset"] = strip_weights(path)
                rec["ok"] = True
            except Exception as e:  # noqa: BLE001 - record and go on
                rec.update(ok=False, error=repr(e)[:400])
                if os.path.exists(path):
                    os.remove(path)
            rec["seconds"] = round(time.time() - t0, 1)
            print(json.dumps(rec), flush=True)


if __name__ == "__main__":
    main()
