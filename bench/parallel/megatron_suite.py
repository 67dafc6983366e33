#!/usr/bin/env python3
"""Megatron-style parallel training references for dlsim's parallel model (issue 27).
Runs on one host with 2 or 4 GPUs (H100 / H200), PyTorch >= 2.4, NCCL.

It trains a GPT-style decoder with random weights and random tokens and times
whole training steps (forward, backward, optimizer) under tensor, sequence,
pipeline and data parallelism, with and without activation recompute:

  model    pre-LayerNorm decoder; fused QKV projection (with bias), attention by
           F.scaled_dot_product_attention(is_causal=True) (flash backend when
           eligible; _env records a flash probe), GELU (tanh) MLP with
           ffn = 4 x hidden, learned absolute position embedding, final
           LayerNorm, UNTIED output head (no bias); seq 2048, vocab 50304.
           1.3b = 24 layers, hidden 2048, 16 heads (1.42e9 params with the
           untied head); 2.7b = 32 layers, hidden 2560, 32 heads (2.78e9).
  numerics fp32 master weights, torch.autocast(bfloat16); the residual stream
           and everything sent between GPUs is bf16 (embedding output cast
           to bf16, LayerNorm outputs cast back to bf16); loss in fp32.
           FSDP uses MixedPrecisionPolicy(param bf16, reduce fp32).
  optim    torch.optim.AdamW (foreach, fp32 states), lr 1e-4, wd 0.01.
  TP       hand-written Megatron split: column-parallel QKV / fc1 / head,
           row-parallel proj / fc2, vocab-parallel embedding and vocab-parallel
           cross entropy; f/g operators as autograd.Functions (all-reduce in
           backward at the column-parallel input, in forward after the
           row-parallel). SP: LayerNorm regions sharded along the sequence,
           all-gather before column-parallel, reduce-scatter after
           row-parallel, LayerNorm / row-parallel-bias / position-embedding
           gradients all-reduced over the TP group after backward.
  PP       hand-written 1F1B (Megatron's schedule: warm-up, steady 1F1B,
           cool-down) with batch_isend_irecv of [seq, microbatch, hidden]
           bf16 tensors; layers split evenly, embedding on the first stage,
           final LayerNorm + head + loss on the last.
  DP       DDP (25 MiB buckets, fp32 gradients), FSDP2 fully_shard per
           transformer block + root, full (1-D mesh) or hybrid (2-D mesh,
           2 replicas x 2 shards); TP2 x DP2 with DDP over the DP groups.
  recompute  torch.utils.checkpoint(use_reentrant=False) around every
           transformer block ("full").

Every config: warm-up steps, then timed steps (each between a barrier and
torch.cuda.synchronize; a sample is the slowest rank's), peak memory after
reset_peak_memory_stats (max over ranks and per rank), and for the configs
marked 'prof' a torch.profiler pass summing CUDA kernel time per step
('nccl' in the kernel name vs the rest). One JSON line per config is
appended to --out by rank 0 as soon as it is measured; a failing config is
recorded as status "error" and the next one runs.

The processes start once per GPU count (torch.multiprocessing.spawn: the
2-GPU configs on GPUs 0-1, then the 4-GPU configs), NCCL timeout --nccl-timeout
seconds, so a hang ends that group and the next one still runs.

Usage:
  python3 megatron_suite.py --list                     (no torch needed)
  python3 megatron_suite.py --out FILE.jsonl [--gpus 2,4] [--max-seconds 420]
                            [--only NAME[,NAME]] [--profile some|all|none]
or the wrapper:  bash bench/parallel/run_megatron.sh OUTDIR [extra args]
NCCL_NVLS_ENABLE=0, TORCH_SYMM_MEM_DISABLE_MULTICAST=1, NVSHMEM_DISABLE_NVLS=1
are forced here and passed to the workers (NVLink multicast is off-limits).
"""
import argparse
import json
import os
import sys
import time

SEQ = int(os.environ.get("MEGATRON_SUITE_SEQ", "2048"))  # --seq sets it for the workers too
VOCAB = 50304
MODELS = {
    "1.3b": dict(layers=24, hidden=2048, heads=16),
    "2.7b": dict(layers=32, hidden=2560, heads=32),
}
FORCED_ENV = {
    "NCCL_NVLS_ENABLE": "0",
    "TORCH_SYMM_MEM_DISABLE_MULTICAST": "1",
    "NVSHMEM_DISABLE_NVLS": "1",
}


def model_info(key):
    m = MODELS[key]
    h, L = m["hidden"], m["layers"]
    # per block: 2 LayerNorms (4h) + QKV (3h^2+3h) + proj (h^2+h) + fc1 (4h^2+4h) + fc2 (4h^2+h)
    params = VOCAB * h + SEQ * h + L * (12 * h * h + 13 * h) + 2 * h + VOCAB * h
    return dict(name=key, layers=L, hidden=h, heads=m["heads"], ffn_hidden=4 * h,
                vocab=VOCAB, seq_len=SEQ, params=params,
                position_embedding="learned", head="untied", norm="pre-LayerNorm",
                activation="gelu_tanh", qkv="fused, bias")


def _c(name, gpus, model="1.3b", tp=1, pp=1, sp=False, fsdp="none", ddp=False,
       recompute="none", mbs=4, nmb=1, prof=False):
    dp = gpus // (tp * pp)
    assert dp * tp * pp == gpus, name
    return dict(name=name, gpus=gpus, model=model, tp=tp, pp=pp, dp=dp,
                sequence_parallel=sp, fsdp=fsdp, ddp=ddp, recompute=recompute,
                microbatch_size=mbs, num_microbatches=nmb,
                global_batch=mbs * nmb * dp, prof=prof)


# Order inside a GPU count = order of importance (the budget cuts the tail).
CONFIGS = [
    # ---- 2 GPUs
    _c("tp2_1.3b", 2, tp=2, prof=True),
    _c("tp2_sp_1.3b", 2, tp=2, sp=True, prof=True),
    _c("tp2_sp_rc_1.3b", 2, tp=2, sp=True, recompute="full"),
    _c("pp2_mb2x8_1.3b", 2, pp=2, mbs=2, nmb=8, prof=True),
    _c("pp2_mb2x8_rc_1.3b", 2, pp=2, mbs=2, nmb=8, recompute="full"),
    _c("ddp2_1.3b", 2, ddp=True, prof=True),
    _c("ddp2_rc_1.3b", 2, ddp=True, recompute="full"),
    _c("fsdp2_full_1.3b", 2, fsdp="full", prof=True),
    _c("tp2_sp_2.7b", 2, model="2.7b", tp=2, sp=True),
    _c("fsdp2_full_rc_2.7b", 2, model="2.7b", fsdp="full", recompute="full"),
    # ---- 4 GPUs
    _c("tp4_1.3b", 4, tp=4, prof=True),
    _c("tp4_sp_1.3b", 4, tp=4, sp=True, prof=True),
    _c("tp4_sp_rc_1.3b", 4, tp=4, sp=True, recompute="full"),
    _c("pp4_mb1x16_1.3b", 4, pp=4, mbs=1, nmb=16, prof=True),
    _c("pp4_mb2x16_rc_1.3b", 4, pp=4, mbs=2, nmb=16, recompute="full"),
    _c("ddp4_1.3b", 4, ddp=True, prof=True),
    _c("fsdp4_full_1.3b", 4, fsdp="full", prof=True),
    _c("fsdp4_hybrid_1.3b", 4, fsdp="hybrid", prof=True),
    _c("fsdp4_full_rc_1.3b", 4, fsdp="full", recompute="full"),
    _c("tp2dp2_sp_1.3b", 4, tp=2, sp=True, ddp=True, prof=True),
    _c("tp4_sp_2.7b", 4, model="2.7b", tp=4, sp=True),
    _c("pp4_mb1x16_2.7b", 4, model="2.7b", pp=4, mbs=1, nmb=16),
    _c("fsdp4_full_2.7b", 4, model="2.7b", fsdp="full"),
]


def check_configs(cfgs):
    """Divisibility checks that do not need torch (also run by --list)."""
    problems = []
    for c in cfgs:
        m = MODELS[c["model"]]
        t, p = c["tp"], c["pp"]
        if m["heads"] % t or m["hidden"] % m["heads"] or (4 * m["hidden"]) % t or VOCAB % t:
            problems.append(f"{c['name']}: heads/hidden/ffn/vocab not divisible by tp={t}")
        if c["sequence_parallel"] and (SEQ % t or t == 1):
            problems.append(f"{c['name']}: sequence parallel needs tp > 1 dividing seq")
        if m["layers"] % p:
            problems.append(f"{c['name']}: layers not divisible by pp={p}")
        if p > 1 and (t > 1 or c["dp"] > 1 or c["num_microbatches"] < p):
            problems.append(f"{c['name']}: pp only alone, with num_microbatches >= pp")
        if c["fsdp"] == "hybrid" and c["gpus"] != 4:
            problems.append(f"{c['name']}: hybrid FSDP is 2 x 2 on 4 GPUs")
        if c["fsdp"] != "none" and (c["ddp"] or t > 1 or p > 1):
            problems.append(f"{c['name']}: FSDP only alone")
    return problems


def select(args):
    cfgs = list(CONFIGS)
    if args.only:
        want = [w for w in args.only.split(",") if w]
        unknown = [w for w in want if w not in {c["name"] for c in cfgs}]
        if unknown:
            sys.exit(f"unknown config(s): {','.join(unknown)}; see --list")
        cfgs = [c for c in cfgs if c["name"] in want]
    if args.profile == "all":
        cfgs = [dict(c, prof=True) for c in cfgs]
    elif args.profile == "none":
        cfgs = [dict(c, prof=False) for c in cfgs]
    return cfgs


def print_list(cfgs):
    print(f"{'name':22s} gpus tp pp dp sp    fsdp   ddp   rc    mbs x nmb  global  model  prof")
    for c in cfgs:
        print(f"{c['name']:22s} {c['gpus']:4d} {c['tp']:2d} {c['pp']:2d} {c['dp']:2d} "
              f"{str(c['sequence_parallel'])[0]:5s} {c['fsdp']:6s} {str(c['ddp'])[0]:5s} "
              f"{c['recompute']:5s} {c['microbatch_size']:3d} x {c['num_microbatches']:3d} "
              f"{c['global_batch']:6d}  {c['model']:5s}  {'yes' if c['prof'] else '-'}")
    for k in MODELS:
        mi = model_info(k)
        print(f"# model {k}: {mi['layers']} layers, hidden {mi['hidden']}, {mi['heads']} heads, "
              f"ffn {mi['ffn_hidden']}, vocab {VOCAB}, seq {SEQ}, {mi['params'] / 1e9:.3f}e9 params")
    print(f"# {len(cfgs)} configs: " + ", ".join(
        f"{g} GPUs: {sum(1 for c in cfgs if c['gpus'] == g)}" for g in sorted({c['gpus'] for c in cfgs})))


def file_size(path):
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def written_names(path, offset):
    """Names of the records appended to path after byte offset."""
    names = set()
    try:
        with open(path) as f:
            f.seek(offset)
            for line in f:
                try:
                    names.add(json.loads(line).get("name"))
                except ValueError:
                    pass
    except OSError:
        pass
    return names


def main():
    global SEQ
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--list", action="store_true", help="print the configs and exit (no torch)")
    ap.add_argument("--out", help="JSONL file, appended to")
    ap.add_argument("--gpus", default="", help="GPU counts to run, in order (default: 2,4 "
                    "as far as the host has GPUs)")
    ap.add_argument("--only", default="", help="comma-separated config names")
    ap.add_argument("--max-seconds", type=float, default=420.0,
                    help="no config starts after this many seconds from launch")
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--steps", type=int, default=6, help="timed steps per config")
    ap.add_argument("--profile", choices=["some", "all", "none"], default="some",
                    help="profiler pass on the configs marked prof (some), all or none")
    ap.add_argument("--profile-steps", type=int, default=2)
    ap.add_argument("--nccl-timeout", type=int, default=90,
                    help="seconds (process group timeout: a hang ends the GPU group)")
    ap.add_argument("--port", type=int, default=29630)
    ap.add_argument("--seq", type=int, default=SEQ,
                    help="sequence length (default 2048; a short one leaves the host's time per step)")
    ap.add_argument("--trace", default="", help="comma-separated config names whose rank 0 "
                    "writes a Chrome trace (CPU and CUDA) of one step beside --out")
    args = ap.parse_args()
    SEQ = args.seq
    os.environ["MEGATRON_SUITE_SEQ"] = str(args.seq)

    problems = check_configs(CONFIGS)
    cfgs = select(args)
    if args.list:
        print_list(cfgs)
        for p in problems:
            print("# PROBLEM:", p)
        sys.exit(1 if problems else 0)
    if problems:
        sys.exit("config problems: " + "; ".join(problems))
    if not args.out:
        sys.exit("--out is required")

    t_start = time.time()
    deadline = t_start + args.max_seconds
    os.environ.update(FORCED_ENV)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import torch  # noqa: E402  (lazy: --list runs without torch)
    import torch.multiprocessing as mp  # noqa: E402
    import megatron_torch  # noqa: E402

    have = torch.cuda.device_count()
    if args.gpus:
        worlds = [int(g) for g in args.gpus.split(",") if g]
    else:
        worlds = [g for g in (2, 4) if g <= have]
    print(f"# {have} GPUs visible; running GPU counts {worlds}; budget {args.max_seconds:.0f} s; "
          f"{len(cfgs)} configs selected", flush=True)
    for world in worlds:
        group = [c for c in cfgs if c["gpus"] == world]
        if not group:
            continue
        if world > have:
            print(f"# skipping {world}-GPU configs: only {have} GPUs", flush=True)
            continue
        if time.time() >= deadline:
            with open(args.out, "a") as f:
                for c in group:
                    f.write(json.dumps(dict(name=c["name"], status="skipped", gpus=world,
                                            error="--max-seconds budget spent")) + "\n")
            print(f"# {world}-GPU configs skipped: budget spent", flush=True)
            continue
        before = file_size(args.out)
        os.environ["MASTER_ADDR"] = "127.0.0.1"
        os.environ["MASTER_PORT"] = str(args.port + world)
        launch_err = None
        t0 = time.time()
        try:
            mp.spawn(megatron_torch.worker, args=(world, group, vars(args), deadline),
                     nprocs=world, join=True)
        except Exception as e:  # a crashed or timed-out worker ends this group only
            launch_err = f"{type(e).__name__}: {e}"[-2000:]  # the cause is at the end
            print(f"# {world}-GPU group failed: {launch_err}", flush=True)
        done = written_names(args.out, before)
        with open(args.out, "a") as f:
            for c in group:
                if c["name"] not in done:
                    rec = dict(name=c["name"], status="not_run", gpus=world,
                               error=launch_err or "worker group ended before this config")
                    f.write(json.dumps(rec) + "\n")
        print(f"# {world}-GPU group: {time.time() - t0:.1f} s", flush=True)
    print(f"# total {time.time() - t_start:.1f} s", flush=True)


if __name__ == "__main__":
    main()
