"""Torch side of megatron_suite.py (see its docstring): the GPT model with the
Megatron tensor / sequence parallel split, the 1F1B pipeline schedule, DDP and
FSDP2 wrapping, and the per-process loop over configs. Imported only by the
launcher when it runs (the --list mode needs no torch).

Layout: activations are [seq, batch, hidden] as in Megatron, so sequence
parallel shards dim 0 and all-gather / reduce-scatter work on contiguous
dim-0 chunks (all_gather_into_tensor / reduce_scatter_tensor).
"""
import datetime
import gc
import json
import os
import statistics
import sys
import time
import traceback
from collections import deque

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint

from megatron_suite import FORCED_ENV, SEQ, VOCAB, model_info

BF16 = torch.bfloat16
DEV = "cuda"


# ----------------------------------------------------------------- TP context
class Par:
    """Tensor-parallel context of one rank; tp == 1 turns every mapping off."""

    def __init__(self, group=None, size=1, rank=0, sp=False):
        self.group, self.tp, self.rank, self.sp = group, size, rank, sp


def _all_reduce(x, group):
    x = x.contiguous()
    dist.all_reduce(x, group=group)
    return x


def _gather0(x, group, n):
    x = x.contiguous()
    out = torch.empty((n * x.shape[0],) + tuple(x.shape[1:]), dtype=x.dtype, device=x.device)
    dist.all_gather_into_tensor(out, x, group=group)
    return out


def _reduce_scatter0(x, group, n):
    x = x.contiguous()
    out = torch.empty((x.shape[0] // n,) + tuple(x.shape[1:]), dtype=x.dtype, device=x.device)
    dist.reduce_scatter_tensor(out, x, group=group)
    return out


class CopyToTP(torch.autograd.Function):
    """Megatron f: identity forward, all-reduce backward (column-parallel input)."""

    @staticmethod
    def forward(ctx, x, group):
        ctx.group = group
        return x

    @staticmethod
    def backward(ctx, g):
        return _all_reduce(g, ctx.group), None


class ReduceFromTP(torch.autograd.Function):
    """Megatron g: all-reduce forward (row-parallel output), identity backward."""

    @staticmethod
    def forward(ctx, x, group):
        return _all_reduce(x, group)

    @staticmethod
    def backward(ctx, g):
        return g, None


class GatherSeq(torch.autograd.Function):
    """SP: all-gather along the sequence forward, reduce-scatter backward."""

    @staticmethod
    def forward(ctx, x, group, n):
        ctx.group, ctx.n = group, n
        return _gather0(x, group, n)

    @staticmethod
    def backward(ctx, g):
        return _reduce_scatter0(g, ctx.group, ctx.n), None, None


class ReduceScatterSeq(torch.autograd.Function):
    """SP: reduce-scatter along the sequence forward, all-gather backward."""

    @staticmethod
    def forward(ctx, x, group, n):
        ctx.group, ctx.n = group, n
        return _reduce_scatter0(x, group, n)

    @staticmethod
    def backward(ctx, g):
        return _gather0(g, ctx.group, ctx.n), None, None


class VocabParallelCE(torch.autograd.Function):
    """Cross entropy over vocab-sharded fp32 logits [N, V/tp] (Megatron's)."""

    @staticmethod
    def forward(ctx, logits, target, group, vstart):
        lmax = logits.max(dim=-1)[0]
        dist.all_reduce(lmax, op=dist.ReduceOp.MAX, group=group)
        x = logits - lmax.unsqueeze(-1)
        vl = x.shape[-1]
        mask = (target < vstart) | (target >= vstart + vl)
        local_t = (target - vstart).masked_fill(mask, 0)
        pred = x.gather(-1, local_t.unsqueeze(-1)).squeeze(-1).masked_fill(mask, 0.0)
        dist.all_reduce(pred, group=group)
        x.exp_()
        sumexp = x.sum(dim=-1)
        dist.all_reduce(sumexp, group=group)
        loss = torch.log(sumexp) - pred
        x.div_(sumexp.unsqueeze(-1))
        ctx.save_for_backward(x, mask, local_t)
        return loss

    @staticmethod
    def backward(ctx, gl):
        softmax, mask, local_t = ctx.saved_tensors
        grad = softmax.clone()
        rows = torch.arange(grad.shape[0], device=grad.device)
        grad[rows, local_t] -= (~mask).to(grad.dtype)
        grad.mul_(gl.unsqueeze(-1))
        return grad, None, None, None


# ---------------------------------------------------------------------- model
def _w(*shape):
    return nn.Parameter(torch.empty(*shape, device=DEV).normal_(0.0, 0.02))


def _zeros(*shape):
    return nn.Parameter(torch.zeros(*shape, device=DEV))


def _mark_sp(*params):
    for p in params:
        p.sequence_parallel = True


class Block(nn.Module):
    def __init__(self, h, heads, par, recompute):
        super().__init__()
        t = par.tp
        assert heads % t == 0 and h % heads == 0 and (4 * h) % t == 0
        self.par, self.recompute = par, recompute
        self.nh, self.d = heads // t, h // heads
        self.ln1 = nn.LayerNorm(h, device=DEV)
        self.ln2 = nn.LayerNorm(h, device=DEV)
        self.qkv_w, self.qkv_b = _w(3 * h // t, h), _zeros(3 * h // t)   # column-parallel
        self.proj_w, self.proj_b = _w(h, h // t), _zeros(h)              # row-parallel
        self.fc1_w, self.fc1_b = _w(4 * h // t, h), _zeros(4 * h // t)   # column-parallel
        self.fc2_w, self.fc2_b = _w(h, 4 * h // t), _zeros(h)            # row-parallel
        if par.sp:
            _mark_sp(self.ln1.weight, self.ln1.bias, self.ln2.weight, self.ln2.bias,
                     self.proj_b, self.fc2_b)

    def _to_col(self, x):  # before a column-parallel linear
        p = self.par
        if p.tp == 1:
            return x
        return GatherSeq.apply(x, p.group, p.tp) if p.sp else CopyToTP.apply(x, p.group)

    def _from_row(self, y):  # after a row-parallel linear (partial sums)
        p = self.par
        if p.tp == 1:
            return y
        return ReduceScatterSeq.apply(y, p.group, p.tp) if p.sp else ReduceFromTP.apply(y, p.group)

    def _forward(self, x):
        a = self._to_col(self.ln1(x).to(x.dtype))
        s, b = a.shape[0], a.shape[1]
        qkv = F.linear(a, self.qkv_w, self.qkv_b).view(s, b, self.nh, 3, self.d)
        q, k, v = [t.permute(1, 2, 0, 3) for t in qkv.unbind(3)]  # [b, nh, s, d]
        o = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        o = o.permute(2, 0, 1, 3).reshape(s, b, self.nh * self.d)
        y = self._from_row(F.linear(o, self.proj_w))
        x = x + (y + self.proj_b.to(y.dtype))
        m = self._to_col(self.ln2(x).to(x.dtype))
        m = F.gelu(F.linear(m, self.fc1_w, self.fc1_b), approximate="tanh")
        y = self._from_row(F.linear(m, self.fc2_w))
        return x + (y + self.fc2_b.to(y.dtype))

    def forward(self, x):
        if self.recompute:
            return checkpoint(self._forward, x, use_reentrant=False)
        return self._forward(x)


class Embed(nn.Module):
    """Vocab-parallel word embedding + replicated learned position embedding."""

    def __init__(self, h, par):
        super().__init__()
        self.par = par
        self.vl = VOCAB // par.tp
        self.vstart = par.rank * self.vl
        self.wte = _w(self.vl, h)
        self.wpe = _w(SEQ, h)
        if par.sp:
            _mark_sp(self.wpe)

    def forward(self, tok):  # tok [b, s] -> [s(/tp), b, h] bf16
        p = self.par
        s = tok.shape[1]
        if p.tp == 1:
            e = F.embedding(tok, self.wte)
        else:
            mask = (tok < self.vstart) | (tok >= self.vstart + self.vl)
            e = F.embedding((tok - self.vstart).masked_fill(mask, 0), self.wte)
            e = e.masked_fill(mask.unsqueeze(-1), 0.0)
        e = e.transpose(0, 1).to(BF16).contiguous()
        pos = self.wpe[:s]
        if p.tp > 1:
            if p.sp:
                e = ReduceScatterSeq.apply(e, p.group, p.tp)
                sl = s // p.tp
                pos = self.wpe[p.rank * sl:(p.rank + 1) * sl]
            else:
                e = ReduceFromTP.apply(e, p.group)
        return e + pos.to(BF16).unsqueeze(1)


class Head(nn.Module):
    """Final LayerNorm, column-parallel (vocab) untied output layer, loss."""

    def __init__(self, h, par):
        super().__init__()
        self.par = par
        self.ln_f = nn.LayerNorm(h, device=DEV)
        self.w = _w(VOCAB // par.tp, h)
        if par.sp:
            _mark_sp(self.ln_f.weight, self.ln_f.bias)

    def forward(self, x, tgt):  # x [s(/tp), b, h], tgt [b, s]
        p = self.par
        y = self.ln_f(x).to(x.dtype)
        if p.tp > 1:
            y = GatherSeq.apply(y, p.group, p.tp) if p.sp else CopyToTP.apply(y, p.group)
        logits = F.linear(y, self.w)  # [s, b, V/tp]
        logits = logits.float().reshape(-1, logits.shape[-1])
        tgt = tgt.transpose(0, 1).reshape(-1)
        if p.tp == 1:
            return F.cross_entropy(logits, tgt)
        return VocabParallelCE.apply(logits, tgt, p.group, p.rank * (VOCAB // p.tp)).mean()


class GPT(nn.Module):
    """The whole model (first=last=True) or one pipeline stage of it."""

    def __init__(self, mi, par, recompute, n_layers, first=True, last=True):
        super().__init__()
        h = mi["hidden"]
        self.embed = Embed(h, par) if first else None
        self.blocks = nn.ModuleList([Block(h, mi["heads"], par, recompute) for _ in range(n_layers)])
        self.head = Head(h, par) if last else None

    def forward(self, x, tgt=None):
        if self.embed is not None:
            x = self.embed(x)
        for blk in self.blocks:
            x = blk(x)
        if self.head is not None:
            return self.head(x, tgt)
        return x


# ------------------------------------------------------------------- helpers
class Ctx:
    """Per-process state: rank, world, cached process groups and meshes."""

    def __init__(self, rank, world):
        self.rank, self.world = rank, world
        self.groups = {}
        self.meshes = {}

    def tp_dp_groups(self, t):
        """(tp group, dp group) for tp size t: tp = consecutive ranks. Every rank
        creates every group, in the same order (new_group is collective)."""
        if t not in self.groups:
            W = self.world
            tp_g = dp_g = None  # None = the world group (or unused when the size is 1)
            if 1 < t < W:
                for g in range(W // t):
                    ranks = [g * t + i for i in range(t)]
                    pg = dist.new_group(ranks)
                    if self.rank in ranks:
                        tp_g = pg
                for i in range(t):
                    ranks = [i + t * j for j in range(W // t)]
                    pg = dist.new_group(ranks)
                    if self.rank in ranks:
                        dp_g = pg
            self.groups[t] = (tp_g, dp_g)
        return self.groups[t]

    def mesh(self, kind):
        if kind not in self.meshes:
            from torch.distributed.device_mesh import init_device_mesh
            if kind == "full":
                self.meshes[kind] = init_device_mesh("cuda", (self.world,))
            else:  # hybrid: replicate over dim 0, shard over dim 1
                self.meshes[kind] = init_device_mesh("cuda", (2, self.world // 2),
                                                     mesh_dim_names=("replicate", "shard"))
        return self.meshes[kind]


def barrier():
    t = torch.zeros(1, device=DEV)
    dist.all_reduce(t)
    torch.cuda.synchronize()


def gather_rows(ctx, vals):
    """Every rank's list of floats (same length everywhere) -> [world][k] on all ranks."""
    t = torch.zeros(ctx.world, len(vals), dtype=torch.float64, device=DEV)
    t[ctx.rank] = torch.tensor(vals, dtype=torch.float64, device=DEV)
    dist.all_reduce(t)
    return t.tolist()


def fully_shard_fn():
    try:
        from torch.distributed.fsdp import fully_shard, MixedPrecisionPolicy
    except ImportError:  # PyTorch 2.4 / 2.5
        from torch.distributed._composable.fsdp import fully_shard, MixedPrecisionPolicy
    return fully_shard, MixedPrecisionPolicy


def local_numel(p):
    return p.to_local().numel() if hasattr(p, "to_local") else p.numel()


# ------------------------------------------------------------------ pipeline
def make_pp_step(model, opt, ctx, cfg, mi, toks, tgts):
    """One optimizer step of Megatron's non-interleaved 1F1B over M microbatches."""
    r, P, M = ctx.rank, cfg["pp"], cfg["num_microbatches"]
    first, last = r == 0, r == P - 1
    shape = (SEQ, cfg["microbatch_size"], mi["hidden"])

    def p2p(ops):
        if ops:
            for req in dist.batch_isend_irecv(ops):
                req.wait()

    def buf():
        return torch.empty(shape, dtype=BF16, device=DEV)

    def recv_fwd():
        if first:
            return None
        x = buf()
        p2p([dist.P2POp(dist.irecv, x, r - 1)])
        return x.requires_grad_()

    def send_fwd(out):
        if not last:
            p2p([dist.P2POp(dist.isend, out.detach().contiguous(), r + 1)])

    def send_fwd_recv_bwd(out):
        if last:
            return None
        g = buf()
        p2p([dist.P2POp(dist.isend, out.detach().contiguous(), r + 1),
             dist.P2POp(dist.irecv, g, r + 1)])
        return g

    def send_bwd_recv_fwd(gin):
        if first:
            return None
        x = buf()
        p2p([dist.P2POp(dist.isend, gin.contiguous(), r - 1),
             dist.P2POp(dist.irecv, x, r - 1)])
        return x.requires_grad_()

    def recv_bwd():
        if last:
            return None
        g = buf()
        p2p([dist.P2POp(dist.irecv, g, r + 1)])
        return g

    def send_bwd(gin):
        if not first:
            p2p([dist.P2POp(dist.isend, gin.contiguous(), r - 1)])

    def fwd(i, x):
        with torch.autocast("cuda", dtype=BF16):
            if first:
                out = model(toks[i], tgts[i] if last else None)
            else:
                out = model(x, tgts[i] if last else None)
        if last:
            return out / M
        return out.to(BF16)

    def bwd(x, out, g):
        if last:
            torch.autograd.backward(out)
        else:
            torch.autograd.backward(out, grad_tensors=g)
        return None if first else x.grad

    def step():
        opt.zero_grad(set_to_none=True)
        warm = min(P - r - 1, M)
        rest = M - warm
        ins, outs = deque(), deque()
        for i in range(warm):
            x = recv_fwd()
            out = fwd(i, x)
            send_fwd(out)
            ins.append(x)
            outs.append(out)
        x = recv_fwd() if rest > 0 else None
        for i in range(rest):
            out = fwd(warm + i, x)
            g = send_fwd_recv_bwd(out)
            ins.append(x)
            outs.append(out)
            gin = bwd(ins.popleft(), outs.popleft(), g)
            if i == rest - 1:
                send_bwd(gin)
                x = None
            else:
                x = send_bwd_recv_fwd(gin)
        for _ in range(warm):
            g = recv_bwd()
            gin = bwd(ins.popleft(), outs.popleft(), g)
            send_bwd(gin)
        opt.step()

    return step


# -------------------------------------------------------------------- config
def build_and_step(cfg, ctx, args):
    """Builds model + optimizer + data for cfg; returns (step fn, extra record fields, keep)."""
    mi = model_info(cfg["model"])
    t, P, dp = cfg["tp"], cfg["pp"], cfg["dp"]
    rc = cfg["recompute"] == "full"
    mbs = cfg["microbatch_size"]
    r = ctx.rank
    extra = {}
    torch.manual_seed(1234 + r)

    if P > 1:
        if P != ctx.world or t != 1 or dp != 1:
            raise ValueError("pipeline configs are pp = gpus, tp = dp = 1")
        par = Par()
        n = mi["layers"] // P
        model = GPT(mi, par, rc, n, first=(r == 0), last=(r == P - 1))
        opt = torch.optim.AdamW(model.parameters(), lr=1e-4, weight_decay=0.01)
        M = cfg["num_microbatches"]
        g = torch.Generator(device=DEV)
        g.manual_seed(99)  # same data on every stage
        toks = torch.randint(0, VOCAB, (M, mbs, SEQ), device=DEV, generator=g)
        tgts = torch.randint(0, VOCAB, (M, mbs, SEQ), device=DEV, generator=g)
        extra["params_per_rank"] = sum(p.numel() for p in model.parameters())
        extra["layers_per_stage"] = n
        return make_pp_step(model, opt, ctx, cfg, mi, toks, tgts), extra, (model, opt, toks, tgts)

    tp_g, dp_g = ctx.tp_dp_groups(t) if ctx.world > 1 else (None, None)
    tp_rank = r % t
    dp_rank = r // t
    par = Par(tp_g, t, tp_rank, cfg["sequence_parallel"])
    model = GPT(mi, par, rc, mi["layers"])
    sp_params = [p for p in model.parameters() if getattr(p, "sequence_parallel", False)]
    extra["params_per_rank"] = sum(p.numel() for p in model.parameters())
    if t == 1 and cfg["fsdp"] == "none":
        extra["params_check"] = extra["params_per_rank"] == mi["params"]

    if cfg["fsdp"] != "none":
        fully_shard, MixedPrecisionPolicy = fully_shard_fn()
        mesh = ctx.mesh(cfg["fsdp"])
        mp = MixedPrecisionPolicy(param_dtype=BF16, reduce_dtype=torch.float32)
        for blk in model.blocks:
            fully_shard(blk, mesh=mesh, mp_policy=mp)
        fully_shard(model, mesh=mesh, mp_policy=mp)
        extra["fsdp_mixed_precision"] = "param bf16, reduce fp32"
        extra["params_per_rank"] = sum(local_numel(p) for p in model.parameters())
        train = model
    elif cfg["ddp"]:
        train = nn.parallel.DistributedDataParallel(model, device_ids=[r], process_group=dp_g)
        extra["ddp_bucket_mb"] = 25
    else:
        train = model
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, weight_decay=0.01)

    g = torch.Generator(device=DEV)
    g.manual_seed(7 + dp_rank)  # same data within a TP group, different across DP
    tok = torch.randint(0, VOCAB, (mbs, SEQ), device=DEV, generator=g)
    tgt = torch.randint(0, VOCAB, (mbs, SEQ), device=DEV, generator=g)

    def sync_sp_grads():
        grads = [p.grad for p in sp_params if p.grad is not None]
        if len(grads) != len(sp_params):
            raise RuntimeError("sequence-parallel parameter without gradient")
        flat = torch.cat([x.reshape(-1) for x in grads])
        dist.all_reduce(flat, group=tp_g)
        off = 0
        for x in grads:
            x.copy_(flat[off:off + x.numel()].view_as(x))
            off += x.numel()

    def step():
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=BF16):
            loss = train(tok, tgt)
        loss.backward()
        if sp_params:
            sync_sp_grads()
        opt.step()

    extra["sp_grad_allreduce_params"] = len(sp_params)
    return step, extra, (train, model, opt, tok, tgt)


def profile_step(step, n, top=None):
    """(non-NCCL kernel ms, NCCL kernel ms, memcpy/memset ms) per step on this rank;
    `top`, a list, receives the 60 costliest kernel names as [name, ms/step, calls/step]."""
    from torch.profiler import profile, ProfilerActivity
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(n):
            step()
        torch.cuda.synchronize()
    comp = nccl = mem = 0.0
    by_name = {}
    for e in prof.events():
        if e.device_type != torch.autograd.DeviceType.CUDA:
            continue
        name = e.name
        us = e.device_time or e.time_range.elapsed_us()  # the same for a kernel event
        acc = by_name.setdefault(name[:160], [0.0, 0])
        acc[0] += us
        acc[1] += 1
        if "nccl" in name.lower():
            nccl += us
        elif "Memcpy" in name or "Memset" in name:
            mem += us
        else:
            comp += us
    if top is not None:
        rows = sorted(by_name.items(), key=lambda kv: -kv[1][0])[:60]
        top.extend([k, v[0] / 1e3 / n, v[1] / n] for k, v in rows)
    return [comp / 1e3 / n, nccl / 1e3 / n, mem / 1e3 / n]


def write_trace(step, ctx, path):
    """Chrome trace (CPU ops and CUDA kernels) of one step, written by rank 0."""
    from torch.profiler import profile, ProfilerActivity
    barrier()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        step()
        torch.cuda.synchronize()
    if ctx.rank == 0:
        prof.export_chrome_trace(path)
    barrier()


def run_config(cfg, ctx, args):
    step, extra, keep = build_and_step(cfg, ctx, args)
    gc.collect()
    torch.cuda.empty_cache()
    barrier()
    t_build = time.time()
    for _ in range(args["warmup"]):
        step()
    torch.cuda.synchronize()
    barrier()
    torch.cuda.reset_peak_memory_stats()
    samples, issued = [], []
    for _ in range(args["steps"]):
        barrier()
        t0 = time.perf_counter()
        step()
        issued.append((time.perf_counter() - t0) * 1e3)  # the host is done issuing
        torch.cuda.synchronize()
        samples.append((time.perf_counter() - t0) * 1e3)
    peak = [torch.cuda.max_memory_allocated() / 2**30, torch.cuda.max_memory_reserved() / 2**30,
            float(extra.pop("params_per_rank"))]
    rows = gather_rows(ctx, samples + peak + issued)
    k = len(samples)
    step_max = [max(rows[i][j] for i in range(ctx.world)) for j in range(k)]
    med = statistics.median(step_max)
    rec = dict(extra)
    rec.update(
        step_ms_median=med, step_ms_samples=step_max,
        step_ms_median_per_rank=[statistics.median(rw[:k]) for rw in rows],
        peak_alloc_gib=max(rw[k] for rw in rows), peak_reserved_gib=max(rw[k + 1] for rw in rows),
        peak_alloc_gib_per_rank=[rw[k] for rw in rows],
        peak_reserved_gib_per_rank=[rw[k + 1] for rw in rows],
        params_per_rank=[int(rw[k + 2]) for rw in rows],
        issue_ms_median_per_rank=[statistics.median(rw[k + 3:]) for rw in rows],
        tokens_per_s=cfg["global_batch"] * SEQ / (med / 1e3),
        warmup_steps=args["warmup"], timing_s=time.time() - t_build)
    if cfg["prof"] and args["profile_steps"] > 0:
        barrier()
        try:
            top = []
            mine = profile_step(step, args["profile_steps"], top)
            rec["top_kernels"] = top
        except Exception as e:  # keep every rank on the same collective sequence
            print(f"[rank {ctx.rank}] profile failed: {e!r}", file=sys.stderr, flush=True)
            mine = [-1.0, -1.0, -1.0]
        prow = gather_rows(ctx, mine)
        if all(p[0] >= 0 for p in prow):
            rec.update(kernel_ms_per_step=prow[0][0], nccl_ms_per_step=prow[0][1],
                       memcpy_ms_per_step=prow[0][2],
                       kernel_ms_per_step_per_rank=[p[0] for p in prow],
                       nccl_ms_per_step_per_rank=[p[1] for p in prow],
                       profiled_steps=args["profile_steps"])
        else:
            rec["profile_error"] = "profiler failed on some rank (see log)"
    if cfg["name"] in args.get("trace", "").split(","):
        write_trace(step, ctx, os.path.splitext(args["out"])[0] + f"-{cfg['name']}-r0.json.gz")
    del keep, step
    return rec


def base_record(cfg, mi):
    rec = {k: cfg[k] for k in ("name", "gpus", "tp", "pp", "dp", "sequence_parallel", "fsdp", "ddp",
                               "recompute", "microbatch_size", "num_microbatches", "global_batch")}
    rec.update(seq_len=SEQ, model=mi, dtype="autocast bf16, fp32 master weights",
               optimizer="AdamW (foreach, fp32 states)", profiled=bool(cfg["prof"]))
    return rec


def flash_probe():
    """Does the flash backend take our q/k/v layout (permuted views of fused QKV)?"""
    out = {}
    try:
        from torch.nn.attention import sdpa_kernel, SDPBackend
    except ImportError as e:
        return {"error": repr(e)}
    for d, nh in ((128, 16), (80, 32)):
        try:
            qkv = torch.randn(256, 2, nh, 3, d, device=DEV, dtype=BF16, requires_grad=True)
            q, k, v = [t.permute(1, 2, 0, 3) for t in qkv.unbind(3)]
            with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
                F.scaled_dot_product_attention(q, k, v, is_causal=True).sum().backward()
            out[f"head_dim_{d}"] = "flash ok"
        except Exception as e:
            out[f"head_dim_{d}"] = f"flash failed: {e!r}"[:300]
    return out


def env_record(world):
    nccl = None
    try:
        v = torch.cuda.nccl.version()
        nccl = ".".join(map(str, v)) if isinstance(v, (tuple, list)) else str(v)
    except Exception:
        pass
    return dict(name="_env", status="env", gpus=world, torch=torch.__version__,
                cuda=torch.version.cuda, nccl=nccl, gpu=torch.cuda.get_device_name(0),
                gpu_mem_gib=torch.cuda.get_device_properties(0).total_memory / 2**30,
                device_count=torch.cuda.device_count(), flash_probe=flash_probe(),
                env={k: os.environ.get(k) for k in list(FORCED_ENV) + ["PYTORCH_CUDA_ALLOC_CONF",
                                                                       "CUDA_VISIBLE_DEVICES"]},
                time_utc=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))


def write(args, rec):
    with open(args["out"], "a") as f:
        f.write(json.dumps(rec) + "\n")
        f.flush()


# -------------------------------------------------------------------- worker
def worker(rank, world, cfgs, args, deadline):
    os.environ.update(FORCED_ENV)
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", rank=rank, world_size=world,
                            timeout=datetime.timedelta(seconds=args["nccl_timeout"]))
    ctx = Ctx(rank, world)
    barrier()
    if rank == 0:
        write(args, env_record(world))
    for cfg in cfgs:
        mi = model_info(cfg["model"])
        rec = base_record(cfg, mi)
        go = torch.tensor([1.0 if time.time() < deadline else 0.0], device=DEV)
        dist.broadcast(go, src=0)  # every rank takes rank 0's decision
        if go.item() == 0.0:
            if rank == 0:
                rec.update(status="skipped", error="--max-seconds budget spent")
                write(args, rec)
                print(f"[{cfg['name']}] skipped (budget)", flush=True)
            continue
        t0 = time.time()
        err = None
        try:
            rec.update(run_config(cfg, ctx, args))
        except Exception as e:
            err = f"{type(e).__name__}: {e}"[:1500]
            print(f"[rank {rank}] {cfg['name']} failed:\n{traceback.format_exc()}",
                  file=sys.stderr, flush=True)
        gc.collect()
        torch.cuda.empty_cache()
        failed = gather_rows(ctx, [0.0 if err is None else 1.0])
        bad = [i for i, rw in enumerate(failed) if rw[0] > 0]
        if bad:
            rec = base_record(cfg, mi)
            rec.update(status="error", failed_ranks=bad,
                       error=err or f"failed on rank(s) {bad}, see the log")
        else:
            rec["status"] = "ok"
        rec["config_s"] = time.time() - t0
        if rank == 0:
            write(args, rec)
            if rec["status"] == "ok":
                print(f"[{cfg['name']}] {rec['step_ms_median']:.1f} ms/step, "
                      f"{rec['tokens_per_s']:.0f} tok/s, peak {rec['peak_alloc_gib']:.1f} GiB"
                      + (f", kernels {rec['kernel_ms_per_step']:.1f} ms + nccl "
                         f"{rec['nccl_ms_per_step']:.1f} ms" if "nccl_ms_per_step" in rec else "")
                      + f" ({rec['config_s']:.1f} s)", flush=True)
            else:
                print(f"[{cfg['name']}] ERROR {rec['error']}", flush=True)
        barrier()
    dist.destroy_process_group()
