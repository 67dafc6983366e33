#!/usr/bin/env python3
"""Counts the GPU kernels one framework call of each kernel key launches.

A convolution in fp16 on NCHW tensors runs cuDNN's layout transforms around
its GEMM, a recurrent layer launches kernels per time step, a LayerNorm
backward runs two kernels: one dlsim call, several kernels. This script
builds each key's PyTorch call exactly as calibrate/torch_calibrate.py times
it (cudnn.benchmark on, the same warm-up), captures one call in a CUDA graph
and lists the graph's kernel nodes by name. Keys torch_calibrate times as the
difference from a baseline sequence are counted the same way: the call's
kernels less the baseline's.

Writes one record per key, in the measurement record format of
docs/kernel-keys.md
with status "counted", algo "torch-kernels" and `kernels`
holding the names without times; `dlsim db import` stores them beside the
key's timed records, and the cost model reads the counts from there
(include/dlsim/perfdb/kernel_counts.h).

Usage: torch_kernel_count.py --jobs FILE [--jobs FILE ...] --out RECORDS.jsonl
                             [--max-seconds S]
       torch_kernel_count.py --refilter RAW.jsonl[.gz] --out RECORDS.jsonl
Resumes: keys already in --out are skipped; every record is flushed before
the next key.
"""
import argparse
import ctypes
import json
import os
import sys
import time

torch = tc = _CU = None  # loaded by _load_gpu_modules: --refilter needs no GPU


def _load_gpu_modules():
    global torch, tc, _CU
    import torch as torch_module
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import torch_calibrate
    torch, tc, _CU = torch_module, torch_calibrate, ctypes.CDLL("libcuda.so.1")


_KERNEL_NODE = 0  # CU_GRAPH_NODE_TYPE_KERNEL


class _KernelNodeParams(ctypes.Structure):  # CUDA_KERNEL_NODE_PARAMS_v2
    _fields_ = [("func", ctypes.c_void_p), ("grid", ctypes.c_uint * 3), ("block", ctypes.c_uint * 3),
                ("shared_mem_bytes", ctypes.c_uint), ("kernel_params", ctypes.c_void_p),
                ("extra", ctypes.c_void_p), ("kern", ctypes.c_void_p), ("ctx", ctypes.c_void_p)]


def _check(rc, what):
    if rc != 0:
        raise RuntimeError(f"{what} failed: CUresult {rc}")


def _node_name(node):
    params = _KernelNodeParams()
    _check(_CU.cuGraphKernelNodeGetParams_v2(ctypes.c_void_p(node), ctypes.byref(params)),
           "cuGraphKernelNodeGetParams")
    name = ctypes.c_char_p()
    if params.func and _CU.cuFuncGetName(ctypes.byref(name), ctypes.c_void_p(params.func)) == 0:
        return name.value.decode(errors="replace")
    if params.kern and _CU.cuKernelGetName(ctypes.byref(name), ctypes.c_void_p(params.kern)) == 0:
        return name.value.decode(errors="replace")
    return "?"


def graph_kernels(graph_handle):
    """The names of the kernel nodes of a cudaGraph_t, in node order."""
    count = ctypes.c_size_t(0)
    _check(_CU.cuGraphGetNodes(ctypes.c_void_p(graph_handle), None, ctypes.byref(count)), "cuGraphGetNodes")
    nodes = (ctypes.c_void_p * max(count.value, 1))()
    _check(_CU.cuGraphGetNodes(ctypes.c_void_p(graph_handle), nodes, ctypes.byref(count)), "cuGraphGetNodes")
    names = []
    for i in range(count.value):
        kind = ctypes.c_int(-1)
        _check(_CU.cuGraphNodeGetType(ctypes.c_void_p(nodes[i]), ctypes.byref(kind)), "cuGraphNodeGetType")
        if kind.value == _KERNEL_NODE:
            names.append(_node_name(nodes[i]))
    return names


def call_kernels(fn, inputs):
    """The kernels one call of `fn` launches, after torch_calibrate's warm-up."""
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):  # cudnn.benchmark picks the algorithm here
            fn(inputs)
    torch.cuda.current_stream().wait_stream(s)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph(keep_graph=True)
    with torch.cuda.graph(g):
        fn(inputs)
    names = graph_kernels(g.raw_cuda_graph())
    del g
    return names


# Kernels torch_calibrate's builders launch around the op itself, which a
# model's call of the op does not: the mean and rstd a LayerNorm backward
# builder fills, the fp32 casts of a batch norm's statistics, the cast around
# a softmax backward. Found by setting the counts beside the kernels the
# corpus calibration side's models ran per layer (bench/corpus/gaps.py's
# compare runs).
BUILDER_EXTRAS = {
    "layernorm_bwd": ("FillFunctor",),
    "batchnorm_bwd": ("direct_copy_kernel",),
    "softmax_bwd": ("elementwise_kernel",),
}


NAME_CHARS = 64  # names are cut to this length: the counts matter, the names only identify


def without_builder_extras(key, names):
    extras = BUILDER_EXTRAS.get(key.split()[0], ())
    return [n[:NAME_CHARS] for n in names if not any(e in n for e in extras)]


def count(key):
    built = tc.build(key)
    if built is None:
        return None
    _, make, fn = built[:3]
    inputs = make()
    names = call_kernels(fn, inputs)
    if len(built) > 3:  # timed as the difference from a baseline: count it the same way
        base = call_kernels(built[3], inputs)
        for name in base:
            if name in names:
                names.remove(name)
    return without_builder_extras(key, names)


def refilter(raw, out_path):
    import gzip
    opener = gzip.open if raw.endswith(".gz") else open
    with opener(raw, "rt") as src, open(out_path + ".tmp", "w") as out:
        for line in src:
            rec = json.loads(line)
            if rec.get("status") == "counted":
                names = without_builder_extras(rec["key"], [k["name"] for k in rec["kernels"]])
                rec["kernels"] = [{"name": n} for n in names]
            out.write(json.dumps(rec) + "\n")
    os.replace(out_path + ".tmp", out_path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--jobs", action="append")
    ap.add_argument("--out", required=True)
    ap.add_argument("--max-seconds", type=float, default=1e9)
    ap.add_argument("--refilter", metavar="RAW",
                    help="no GPU: write RAW's records to --out with the builder extras removed")
    args = ap.parse_args()
    if args.refilter:
        refilter(args.refilter, args.out)
        return
    if not args.jobs:
        ap.error("--jobs is required")
    _load_gpu_modules()
    torch.backends.cudnn.benchmark = True
    done = tc.keys_done(args.out)
    todo = [k for k in tc.read_jobs(args.jobs) if k not in done]
    hdr = tc.header()
    t0 = time.time()
    with open(args.out, "a") as out:
        for n, key in enumerate(todo):
            if time.time() - t0 > args.max_seconds:
                print(f"# budget reached after {n} of {len(todo)} keys", flush=True)
                break
            rec = dict(hdr, key=key, algo="torch-kernels", heuristic=False, fastest=False, status="unsupported",
                       time_utc=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
            try:
                names = count(key)
                if names is not None:
                    rec["kernels"] = [{"name": name} for name in names]
                    rec["status"] = "counted"
            except Exception as e:  # noqa: BLE001 - record the failure and go on
                rec["status"] = "failed"
                rec["error"] = repr(e)[:200]
                try:
                    torch.cuda.synchronize()
                except Exception:  # noqa: BLE001 - a broken context: let the caller restart us
                    out.write(json.dumps(rec) + "\n")
                    out.flush()
                    sys.exit(3)
            out.write(json.dumps(rec) + "\n")
            out.flush()
            if n % 1000 == 0:
                print(f"# {n} of {len(todo)} keys, {time.time() - t0:.0f} s", flush=True)
    print(f"# done in {time.time() - t0:.0f} s", flush=True)


if __name__ == "__main__":
    main()
