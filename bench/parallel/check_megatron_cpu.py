#!/usr/bin/env python3
"""CPU check of megatron_torch.py's parallel math, without a GPU.

Runs 2 and 4 processes on gloo with a tiny GPT (fp32: the bf16 casts are
turned off) and checks against the same model on one process:
  - TP and TP+SP (with and without recompute): loss and every gradient
    (sharded ones against the matching slice) equal the unsplit model's;
  - the hand-written 1F1B pipeline over M microbatches: the accumulated
    gradients equal the unsplit model's (and the schedule does not hang);
  - run_config() itself (timing, gathers, records) on a TP+SP and a PP config.
It stubs what CPU torch lacks (torch.cuda.*, scaled_dot_product_attention on
torch < 2.0, all_gather_into_tensor / reduce_scatter_tensor on gloo). It does
not exercise NCCL, flash attention, autocast, DDP, FSDP or the profiler.

Usage: python3 bench/parallel/check_megatron_cpu.py   (any torch >= 1.13; on the
Debian dev machine: apt-get install python3-torch, then /usr/bin/python3; ~1 min)
"""
import math
import os
import sys
import traceback

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import megatron_torch as mt  # noqa: E402

MI = dict(layers=4, hidden=32, heads=4, ffn_hidden=128, vocab=64, seq_len=16, params=0)


def _sdpa(q, k, v, is_causal=False):
    s = q.shape[-2]
    a = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])
    if is_causal:
        a = a.masked_fill(torch.ones(s, s, dtype=torch.bool).triu(1), float("-inf"))
    return a.softmax(-1) @ v


def _all_gather_into_tensor(out, x, group=None):
    n = out.shape[0] // x.shape[0]
    parts = list(out.chunk(n, 0))
    tmp = [torch.empty_like(x) for _ in range(n)]
    dist.all_gather(tmp, x.contiguous(), group=group)
    for p, t in zip(parts, tmp):
        p.copy_(t)


def _reduce_scatter_tensor(out, x, group=None):
    y = x.clone()
    dist.all_reduce(y, group=group)
    r = dist.get_rank(group) if group is not None else dist.get_rank()
    out.copy_(y.chunk(y.shape[0] // out.shape[0], 0)[r])


class _Null:
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


def patch():
    mt.DEV = "cpu"
    mt.BF16 = torch.float32
    mt.SEQ, mt.VOCAB = MI["seq_len"], MI["vocab"]
    mt.model_info = lambda key: dict(MI)
    if not hasattr(F, "scaled_dot_product_attention"):
        F.scaled_dot_product_attention = _sdpa
    dist.all_gather_into_tensor = _all_gather_into_tensor
    dist.reduce_scatter_tensor = _reduce_scatter_tensor
    torch.autocast = lambda *a, **k: _Null()
    for name, fn in dict(synchronize=lambda *a: None, empty_cache=lambda: None,
                         reset_peak_memory_stats=lambda *a: None,
                         max_memory_allocated=lambda *a: 0, max_memory_reserved=lambda *a: 0).items():
        setattr(torch.cuda, name, fn)


def reference(recompute=False):
    torch.manual_seed(0)
    return mt.GPT(MI, mt.Par(), recompute, MI["layers"])


def shard_from(full, tp_model, t, r):
    """Copies the unsplit weights into the TP model (Megatron's split)."""
    def rows(x):
        return x.chunk(t, 0)[r]

    def cols(x):
        return x.chunk(t, 1)[r]

    with torch.no_grad():
        for name, p in tp_model.named_parameters():
            src = dict(full.named_parameters())[name]
            if p.shape == src.shape:
                p.copy_(src)
            elif p.shape[0] * t == src.shape[0]:
                p.copy_(rows(src))
            else:
                p.copy_(cols(src))


def grads_match(full, part, t, r, what):
    fp = dict(full.named_parameters())
    worst = 0.0
    for name, p in part.named_parameters():
        g_full = fp[name].grad
        if p.shape == g_full.shape:
            ref = g_full
        elif p.shape[0] * t == g_full.shape[0]:
            ref = g_full.chunk(t, 0)[r]
        else:
            ref = g_full.chunk(t, 1)[r]
        err = (p.grad - ref).abs().max().item() / (ref.abs().max().item() + 1e-12)
        worst = max(worst, err)
        if err > 1e-4:
            raise AssertionError(f"{what}: rank {r} grad {name} rel err {err:.2e}")
    return worst


def check_tp(r, t, sp, recompute):
    what = f"tp{t}{'_sp' if sp else ''}{'_rc' if recompute else ''}"
    g = torch.Generator().manual_seed(5)
    tok = torch.randint(0, MI["vocab"], (3, MI["seq_len"]), generator=g)
    tgt = torch.randint(0, MI["vocab"], (3, MI["seq_len"]), generator=g)
    full = reference(recompute)
    loss_ref = full(tok, tgt)
    loss_ref.backward()
    par = mt.Par(None, t, r, sp)
    part = mt.GPT(MI, par, recompute, MI["layers"])
    shard_from(full, part, t, r)
    loss = part(tok, tgt)
    loss.backward()
    sp_params = [p for p in part.parameters() if getattr(p, "sequence_parallel", False)]
    for p in sp_params:
        dist.all_reduce(p.grad)
    assert abs(loss.item() - loss_ref.item()) < 1e-5 * abs(loss_ref.item()), (what, loss, loss_ref)
    worst = grads_match(full, part, t, r, what)
    if r == 0:
        print(f"ok {what}: loss {loss.item():.6f} = {loss_ref.item():.6f}, worst grad rel err "
              f"{worst:.1e}, {len(sp_params)} SP params", flush=True)


class _Opt:
    def __init__(self, model):
        self.model = model

    def zero_grad(self, set_to_none=True):
        self.model.zero_grad(set_to_none=set_to_none)

    def step(self):
        pass


def check_pp(r, P, M, mbs, recompute):
    g = torch.Generator().manual_seed(9)
    toks = torch.randint(0, MI["vocab"], (M, mbs, MI["seq_len"]), generator=g)
    tgts = torch.randint(0, MI["vocab"], (M, mbs, MI["seq_len"]), generator=g)
    full = reference(recompute)
    for i in range(M):
        (full(toks[i], tgts[i]) / M).backward()
    n = MI["layers"] // P
    stage = mt.GPT(MI, mt.Par(), recompute, n, first=(r == 0), last=(r == P - 1))
    fp = dict(full.named_parameters())
    with torch.no_grad():
        for name, p in stage.named_parameters():
            if name.startswith("blocks."):
                _, i, rest = name.split(".", 2)
                src = fp[f"blocks.{int(i) + r * n}.{rest}"]
            else:
                src = fp[name]
            p.copy_(src)
    ctx = mt.Ctx(r, P)
    cfg = dict(pp=P, num_microbatches=M, microbatch_size=mbs)
    step = mt.make_pp_step(stage, _Opt(stage), ctx, cfg, MI, toks, tgts)
    step()
    worst = 0.0
    for name, p in stage.named_parameters():
        if name.startswith("blocks."):
            _, i, rest = name.split(".", 2)
            ref = fp[f"blocks.{int(i) + r * n}.{rest}"].grad
        else:
            ref = fp[name].grad
        err = (p.grad - ref).abs().max().item() / (ref.abs().max().item() + 1e-12)
        worst = max(worst, err)
        assert err < 1e-4, (f"pp{P} stage {r}", name, err)
    w = torch.tensor([worst])
    dist.all_reduce(w, op=dist.ReduceOp.MAX)
    if r == 0:
        print(f"ok pp{P} 1F1B M={M} mbs={mbs}{' rc' if recompute else ''}: grads match, "
              f"worst rel err {w.item():.1e}", flush=True)


def check_run_config(r, W, out):
    from megatron_suite import _c
    args = dict(warmup=1, steps=2, profile_steps=0, out=out)
    ctx = mt.Ctx(r, W)
    for cfg in (_c(f"tp{W}_sp", W, tp=W, sp=True, recompute="full", mbs=2),
                _c(f"pp{W}", W, pp=W, mbs=1, nmb=2 * W)):
        rec = mt.run_config(cfg, ctx, args)
        assert rec["step_ms_median"] > 0 and len(rec["params_per_rank"]) == W, rec
        if r == 0:
            print(f"ok run_config {cfg['name']}: {rec['step_ms_median']:.1f} ms, params/rank "
                  f"{rec['params_per_rank']}", flush=True)


def check_worker_loop(r, W, out):
    """mt.worker itself on gloo: an ok TP+SP config, a config that fails on every
    rank (DDP with device_ids on CPU), an ok PP config; then all skipped by budget."""
    import json
    import time
    from megatron_suite import CONFIGS
    dist.barrier()
    real_init = dist.init_process_group
    dist.init_process_group = lambda backend, **kw: None  # already initialised (gloo)
    dist.destroy_process_group, real_destroy = (lambda *a: None), dist.destroy_process_group
    torch.cuda.set_device = lambda *a: None
    torch.cuda.get_device_name = lambda *a: "cpu"
    torch.cuda.device_count = lambda: 0

    class _Props:
        total_memory = 0
    torch.cuda.get_device_properties = lambda *a: _Props()
    by = {c["name"]: c for c in CONFIGS}
    names = [f"tp{W}_sp_1.3b", f"ddp{W}_1.3b", "pp2_mb2x8_1.3b" if W == 2 else "pp4_mb1x16_1.3b"]
    cfgs = [dict(by[n], prof=False) for n in names]
    args = dict(warmup=1, steps=2, profile_steps=0, out=out, nccl_timeout=60)
    if r == 0 and os.path.exists(out):
        os.remove(out)
    dist.barrier()
    try:
        mt.worker(r, W, cfgs, args, time.time() + 600)
        mt.worker(r, W, cfgs[:1], args, time.time() - 1)
    finally:
        dist.init_process_group, dist.destroy_process_group = real_init, real_destroy
    dist.barrier()
    if r == 0:
        recs = [json.loads(line) for line in open(out)]
        got = [(x["name"], x["status"]) for x in recs]
        want = [("_env", "env"), (names[0], "ok"), (names[1], "error"), (names[2], "ok"),
                ("_env", "env"), (names[0], "skipped")]
        assert got == want, got
        assert recs[2]["failed_ranks"] == list(range(W)), recs[2]
        print(f"ok worker loop on {W}: {got[1:4]}, then skipped by budget", flush=True)


def worker(r, W, port):
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    dist.init_process_group("gloo", rank=r, world_size=W)
    patch()
    try:
        for sp in (False, True):
            for rc in (False, True):
                check_tp(r, W, sp, rc)
        check_pp(r, W, M=2 * W, mbs=2, recompute=False)
        check_pp(r, W, M=W + 1, mbs=1, recompute=True)
        check_run_config(r, W, os.devnull)
        check_worker_loop(r, W, f"/tmp/check_megatron_cpu_{W}.jsonl")
    except Exception:
        traceback.print_exc()
        raise
    dist.destroy_process_group()


def main():
    torch.set_num_threads(1)
    bad = 0
    for W, port in ((2, 29741), (4, 29742)):
        try:
            mp.spawn(worker, args=(W, port), nprocs=W, join=True)
        except Exception as e:
            print(f"FAILED with {W} processes: {e}", flush=True)
            bad += 1
    print(f"{2 - bad} passed, {bad} failed")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
