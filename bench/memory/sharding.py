#!/usr/bin/env python3
"""Peak allocated memory per GPU of data-parallel training with PyTorch's sharding, for
`dlsim estimate --gpus N --zero STAGE` to be checked against (torchrun, one process a GPU).

Models: the Hugging Face shapes of bench/generations/make_models.py (the same graphs dlsim
estimates), fp32, eager attention, untied head, no dropout (eval mode; autograd records), Adam
(foreach), one sequence per GPU. Per model, four runs:
  zero 0: DistributedDataParallel (PyTorch's default: bucket buffers beside the gradients; with
          --bucket-view, gradient_as_bucket_view=True: the buckets are the gradients)
  zero 1: DDP and torch.distributed.optim.ZeroRedundancyOptimizer (the Adam state sharded)
  zero 2: FSDP2 fully_shard per transformer block and the root, reshard_after_forward=False
          (weights gathered from the forward to the end of the backward; gradients and state sharded)
  zero 3: the same with reshard_after_forward=True (FSDP full sharding)
Peak = max over ranks of torch.cuda.max_memory_allocated over three steps after two warm-up
steps, less what was allocated before the model was built. One JSON line per run to --out.

  torchrun --nproc-per-node 2 bench/memory/sharding.py --out FILE
"""
import argparse
import gc
import json
import os
import sys

import torch
import torch.distributed as dist

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from techniques import LLM, hf_llm, steady_peak, training_step  # noqa: E402

BUCKET_VIEW = False
CASES = [("gpt2_large", 1, 1024), ("bert_large", 4, 512), ("opt_13", 1, 2048)]


def blocks(model):
    for path in ("transformer.h", "model.decoder.layers", "encoder.layer"):
        obj = model
        try:
            for part in path.split("."):
                obj = getattr(obj, part)
            return list(obj)
        except AttributeError:
            continue
    raise ValueError("no transformer blocks found")


def fully_shard_fn():
    try:
        from torch.distributed.fsdp import fully_shard
    except ImportError:
        from torch.distributed._composable.fsdp import fully_shard
    return fully_shard


def run(name, batch, seq, zero, rank):
    gc.collect()
    torch.cuda.empty_cache()
    base = torch.cuda.memory_allocated()
    model = opt = x = None
    try:
        torch.manual_seed(0)
        with torch.device("cuda"):
            model = hf_llm(name, seq)
        model.eval()
        if zero >= 2:
            shard = fully_shard_fn()
            for b in blocks(model):
                shard(b, reshard_after_forward=zero == 3)
            shard(model, reshard_after_forward=zero == 3)
            opt = torch.optim.Adam(model.parameters(), lr=1e-4)
            net = model
        else:
            # BERT's pooler is not in the loss (last_hidden_state is): unused parameters
            net = torch.nn.parallel.DistributedDataParallel(model, gradient_as_bucket_view=BUCKET_VIEW,
                                                            find_unused_parameters=name.startswith("bert"))
            if zero == 1:
                from torch.distributed.optim import ZeroRedundancyOptimizer
                opt = ZeroRedundancyOptimizer(model.parameters(), optimizer_class=torch.optim.Adam, lr=1e-4)
            else:
                opt = torch.optim.Adam(model.parameters(), lr=1e-4)
        x = torch.randint(0, LLM[name][5], (batch, seq), device="cuda")
        rec = steady_peak(training_step(net, opt, x), base)
    except torch.cuda.OutOfMemoryError:
        rec = dict(error="out of memory")
    except Exception as e:  # noqa: BLE001 - recorded, the next run goes on
        rec = dict(error=repr(e)[:300])
    finally:
        del model, opt, x
        gc.collect()
        torch.cuda.empty_cache()
    return rec


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--only", nargs="*", default=[], help="MODEL:ZERO runs (default: all)")
    ap.add_argument("--bucket-view", action="store_true", help="DDP with gradient_as_bucket_view=True")
    args = ap.parse_args()
    global BUCKET_VIEW
    BUCKET_VIEW = args.bucket_view
    dist.init_process_group("nccl")
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.cuda.set_device(rank % torch.cuda.device_count())
    for name, batch, seq in CASES:
        for zero in (0, 1, 2, 3):
            if args.only and f"{name}:{zero}" not in args.only:
                continue
            rec = run(name, batch, seq, zero, rank)
            peaks = [None] * world
            dist.all_gather_object(peaks, rec)
            if rank == 0:
                ok = [p["peak_bytes"] for p in peaks if "peak_bytes" in p]
                out = dict(model=name, batch=batch, seq=seq, gpus=world, zero=zero, optimizer="adam",
                           ddp_bucket_view=BUCKET_VIEW if zero < 2 else None,
                           dtype="fp32", gpu=torch.cuda.get_device_name(0))
                if len(ok) == world:
                    out.update(peak_bytes=max(ok), peak_bytes_by_rank=ok,
                               step_ms=round(max(p["step_ms"] for p in peaks), 2))
                else:
                    out["error"] = next(p["error"] for p in peaks if "error" in p)
                with open(args.out, "a") as f:
                    f.write(json.dumps(out) + "\n")
                print(json.dumps(out), flush=True)
            dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
