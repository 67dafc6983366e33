#!/usr/bin/env python3
"""Data-parallel reference runs for dlsim's all-reduce model (docs/parallel.md).
Runs on a GPU host with several GPUs.

For each model and GPU count it trains with torch DistributedDataParallel
(NCCL, default 25 MiB buckets, SGD with momentum, fp32, batch 32 per GPU) and
records the median eager step time. With --gpus 1 it is the same loop without
DDP. It also times, inside the same process group, a single all-reduce of the
model's whole gradient size, so the table and the model can be compared.

Usage: ddp_reference.py --out FILE.jsonl --gpus N [--models resnet50,bert_base]
Set NCCL_NVLS_ENABLE=0 (the lent hosts' NVLink multicast is off-limits).
"""
import argparse
import json
import os
import statistics
import sys
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "accuracy"))
from reference_runs import build, make_input  # noqa: E402

BATCH = 32


def step_fn(model, opt, x):
    def step():
        opt.zero_grad(set_to_none=True)
        y = model(x)
        if isinstance(y, tuple):
            y = y[0]
        y.float().mean().backward()
        opt.step()
    return step


def median_ms(fn, warm=5, iters=20, reps=3):
    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    samples = []
    for _ in range(reps):
        if dist.is_initialized():
            dist.barrier()
        torch.cuda.synchronize()
        t = time.perf_counter()
        for _ in range(iters):
            fn()
        torch.cuda.synchronize()
        samples.append((time.perf_counter() - t) * 1e3 / iters)
    return statistics.median(samples), samples


def worker(rank, world, args):
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29517")
    torch.cuda.set_device(rank)
    if world > 1:
        dist.init_process_group("nccl", rank=rank, world_size=world,
                                device_id=torch.device("cuda", rank))
    torch.backends.cudnn.benchmark = True
    for name in args.models.split(","):
        model = build(name).cuda().train()
        params = sum(p.numel() for p in model.parameters() if p.requires_grad)
        if world > 1:
            model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[rank])
        opt = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9)
        x = make_input(name, BATCH, "fp32")
        ms, samples = median_ms(step_fn(model, opt, x))
        rec = dict(model=name, gpus=world, batch_per_gpu=BATCH, dtype="fp32",
                   optimizer="sgd_momentum", params=params, step_ms=ms, samples=samples,
                   gpu=torch.cuda.get_device_name(rank), torch=torch.__version__)
        if world > 1:
            grad = torch.randn(params, device="cuda")
            ar_ms, _ = median_ms(lambda: dist.all_reduce(grad), warm=3, iters=10)
            rec["allreduce_fp32_ms"] = ar_ms
            rec["nccl"] = ".".join(map(str, torch.cuda.nccl.version()))
            del grad
        if rank == 0:
            with open(args.out, "a") as f:
                f.write(json.dumps(rec) + "\n")
            print(json.dumps(rec), flush=True)
        del model, opt, x
        torch.cuda.empty_cache()
    if world > 1:
        dist.destroy_process_group()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--gpus", type=int, required=True)
    ap.add_argument("--models", default="resnet50,bert_base,vgg16")
    args = ap.parse_args()
    if args.gpus == 1:
        worker(0, 1, args)
    else:
        mp.spawn(worker, args=(args.gpus, args), nprocs=args.gpus, join=True)


if __name__ == "__main__":
    main()
