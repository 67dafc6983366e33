#!/usr/bin/env python3
"""Cross-check of `dlsim-calibrate nccl` through torch.distributed: the same
collectives, sizes and CSV columns, one process per GPU (docs/parallel.md).

Usage: nccl_torch.py --out TABLE.csv --gpus N [--max-bytes B]
"""
import argparse
import os
import statistics
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def bus_factor(op, n):
    return 2.0 * (n - 1) / n if op == "all_reduce" else (n - 1) / n


def timed(fn, iters):
    dist.barrier()
    torch.cuda.synchronize()
    t = time.perf_counter()
    for _ in range(iters):
        fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - t) / iters


def worker(rank, n, args):
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29518")
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", rank=rank, world_size=n, device_id=torch.device("cuda", rank))
    big = torch.full((args.max_bytes // 2,), 1.06, dtype=torch.float16, device="cuda")
    out = torch.empty_like(big)
    rows = []
    for op in ("all_reduce", "reduce_scatter", "all_gather"):
        size = 1024
        while size <= args.max_bytes:
            count = size // 2
            if op == "all_reduce":
                fn = lambda c=count: dist.all_reduce(big[:c])  # noqa: E731
            elif op == "reduce_scatter":
                fn = lambda c=count: dist.reduce_scatter_tensor(out[:c // n], big[:c // n * n])  # noqa: E731
            else:
                fn = lambda c=count: dist.all_gather_into_tensor(out[:c // n * n], big[:c // n])  # noqa: E731
            fn(); fn()
            probe = timed(fn, 1)
            iters = max(5, min(200, int(0.02 / max(probe, 1e-7))))
            t = sorted(timed(fn, iters) for _ in range(5))
            med = t[2]
            algbw = size / med / 1e9
            rows.append(f"{op},{n},{size},{med*1e6:.3f},{t[0]*1e6:.3f},{t[-1]*1e6:.3f},"
                        f"{algbw:.3f},{algbw*bus_factor(op, n):.3f}")
            size *= 4
    if rank == 0:
        with open(args.out, "w") as f:
            f.write(f"# torch.distributed cross-check: NCCL {'.'.join(map(str, torch.cuda.nccl.version()))}, "
                    f"{n} x {torch.cuda.get_device_name(0)}, torch {torch.__version__}\n")
            f.write("collective,gpus,bytes,time_us,min_us,max_us,algbw_gbs,busbw_gbs\n")
            f.write("\n".join(rows) + "\n")
    dist.destroy_process_group()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--gpus", type=int, required=True)
    ap.add_argument("--max-bytes", type=int, default=1 << 30)
    args = ap.parse_args()
    mp.spawn(worker, args=(args.gpus, args), nprocs=args.gpus, join=True)


if __name__ == "__main__":
    main()
