#!/usr/bin/env python3
"""Peak allocated memory of training steps with the memory techniques a user asks about,
measured on the GPU machine, for dlsim's memory model to be checked against.

Two sets, one JSON line per case to --out:

* corpus models (bench/corpus; the test side by default): a training step in fp32 with SGD and
  momentum (the corpus' own setting, repeated here as the reference), with Adam and AdamW
  (torch.optim, foreach: PyTorch's default on CUDA), and, for Hugging Face models, SGD with
  momentum under `gradient_checkpointing_enable(use_reentrant=False)` (each transformer layer
  recomputed in the backward). As bench/corpus/measure.py: model.train(), loss = mean of the
  output, peak = torch.cuda.max_memory_allocated() over three steps after two warm-up steps, less
  what was allocated before the model was built.
* LLM shapes near an 80 GB GPU's capacity: the Hugging Face models NeuSight measured
  (bench/generations/make_models.py builds the same graphs for dlsim), fp32, eager attention,
  untied LM head (as the graphs have it), no dropout (eval mode; autograd still records), plain
  SGD as NeuSight trained, at the batches NeuSight measured; and Adam where it fits.

With --recompute selective, only selective recomputation is measured, on both sets (Hugging Face
models, SGD as above): the attention function a Hugging Face model calls (its eager QK^T, mask,
softmax, dropout and P.V, or scaled_dot_product_attention) runs under torch.utils.checkpoint
(use_reentrant=False), so its saved tensors are dropped and it runs again in the backward, as
Megatron-LM's selective activation recomputation does. Models whose attention is written inline
(T5, Swin, the hand-written attention family) are recorded with an error.

  python3 bench/memory/techniques.py --out FILE [--max-seconds S] [--corpus NAME ...] [--llm NAME ...]
                                     [--recompute selective]
"""
import argparse
import gc
import json
import os
import sys
import time

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "corpus"))
sys.path.insert(0, os.path.join(HERE, "..", "accuracy"))
sys.path.insert(0, os.path.join(HERE, "..", "generations"))
import corpus  # noqa: E402
import families  # noqa: E402
from make_models import MODELS as LLM  # noqa: E402  (the graphs dlsim estimates)
from rounds import set_reference_math  # noqa: E402

DEV = "cuda"
CORPUS = ["t1_bert_0", "t1_gpt2_0", "t1_llama_0", "t1_t5_0", "t1_vit_0", "t1_swin_0", "t1_roberta_0",
          "t1_gpt_neox_0", "t1_cnn2d_0", "t1_cnn3d_0", "t1_rnn_0", "t1_attn_0", "t1_encdec_0"]
# (model, batch, seq, optimizer) as NeuSight measured on the H100, and Adam where it may fit
LLM_CASES = [("bert_large", 8, 512, "sgd"), ("gpt2_large", 4, 1024, "sgd"), ("gpt3_xl", 1, 2048, "sgd"),
             ("gpt3_27", 1, 2048, "sgd"), ("opt_13", 2, 2048, "sgd"), ("bert_large", 8, 512, "adam"),
             ("gpt2_large", 1, 1024, "adam"), ("opt_13", 1, 2048, "adam")]


def optimizer(kind, params):
    if kind == "sgd":
        return torch.optim.SGD(params, lr=1e-3)
    if kind == "sgd_momentum":
        return torch.optim.SGD(params, lr=1e-3, momentum=0.9)
    if kind == "adam":
        return torch.optim.Adam(params, lr=1e-4)
    if kind == "adamw":
        return torch.optim.AdamW(params, lr=1e-4)
    raise ValueError(kind)


def training_step(net, opt, x):
    """One step: the mean of the output (logits, last hidden state or tensor) as the loss."""
    def step():
        opt.zero_grad(set_to_none=True)
        y = net(x)
        y = y[0] if isinstance(y, tuple) else getattr(y, "logits", getattr(y, "last_hidden_state", y))
        y.float().mean().backward()
        opt.step()
    return step


def steady_peak(step, base):
    """Peak allocated bytes over three steps after two warm-up steps, less `base`, and the step time."""
    for _ in range(2):
        step()
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    t0 = time.time()
    for _ in range(3):
        step()
    torch.cuda.synchronize()
    return dict(peak_bytes=torch.cuda.max_memory_allocated() - base, step_ms=round((time.time() - t0) / 3 * 1e3, 2))


def peak(build, make_input, opt_kind, train_mode=True):
    """Steady-state peak allocated bytes of a training step, or an error string."""
    gc.collect()
    torch.cuda.empty_cache()
    base = torch.cuda.memory_allocated()
    model = opt = x = None
    try:
        with torch.device(DEV):
            model = build()
        model.train(train_mode)
        x = make_input()
        opt = optimizer(opt_kind, model.parameters())
        weights = torch.cuda.memory_allocated() - base
        return dict(steady_peak(training_step(model, opt, x), base), weights_bytes=weights)
    except torch.cuda.OutOfMemoryError:
        return dict(error="out of memory")
    except RuntimeError as e:
        return dict(error=repr(e)[:200])
    finally:
        del model, opt, x
        gc.collect()
        torch.cuda.empty_cache()


class SelectiveRecompute:
    """Within the block, the attention functions of Hugging Face models run under
    torch.utils.checkpoint; `calls` counts how often they ran."""

    def __init__(self):
        self.calls = 0
        self.undo = []

    def wrap(self, fn):
        def checkpointed(*args, **kwargs):
            self.calls += 1
            return torch.utils.checkpoint.checkpoint(fn, *args, use_reentrant=False, **kwargs)
        return checkpointed

    def __enter__(self):
        from transformers.modeling_utils import ALL_ATTENTION_FUNCTIONS
        orig_sdpa = ALL_ATTENTION_FUNCTIONS["sdpa"]
        ALL_ATTENTION_FUNCTIONS["sdpa"] = self.wrap(orig_sdpa)
        self.undo.append(lambda: ALL_ATTENTION_FUNCTIONS.__setitem__("sdpa", orig_sdpa))
        return self

    def patch(self, model):
        """Checkpoints the eager attention function of the modules `model` is built from."""
        for name in {type(m).__module__ for m in model.modules()}:
            mod = sys.modules.get(name)
            orig = getattr(mod, "eager_attention_forward", None)
            if orig is None or getattr(orig, "_selective", False):
                continue
            wrapped = self.wrap(orig)
            wrapped._selective = True
            mod.eager_attention_forward = wrapped
            self.undo.append(lambda mod=mod, orig=orig: setattr(mod, "eager_attention_forward", orig))
        return model

    def __exit__(self, *exc):
        for u in reversed(self.undo):
            u()
        return False


def selective_peak(build, make_input, opt_kind, train_mode=True):
    """peak() with the attention functions checkpointed; an error when none ran."""
    try:
        with SelectiveRecompute() as sel:
            r = peak(lambda: sel.patch(build()), make_input, opt_kind, train_mode)
    except Exception as e:  # noqa: BLE001  (a transformers version without these hooks)
        return dict(error="selective recomputation not set up: " + repr(e)[:160])
    if "error" not in r and sel.calls == 0:
        return dict(error="no Hugging Face attention function ran (attention written inline)")
    return dict(r, checkpointed_calls=sel.calls)


def corpus_cases(name):
    s = corpus.spec(name)
    hf = s["family"] in corpus.HF_FAMILIES
    out = []
    for opt_kind in ("sgd_momentum", "adam", "adamw"):
        out.append((dict(optimizer=opt_kind, checkpoint=False), opt_kind, None))
    if hf:
        def enable(m):
            m.model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
            return m
        out.append((dict(optimizer="sgd_momentum", checkpoint=True), "sgd_momentum", enable))
    return out


def run_corpus(name, emit, recompute="none"):
    s = corpus.spec(name)
    if recompute == "selective":
        r = selective_peak(lambda: families.build(name), lambda: families.make_input(name, s["batch"], "fp32"),
                           "sgd_momentum")
        emit(dict(set="corpus", model=name, mode="training", dtype="fp32", batch=s["batch"],
                  optimizer="sgd_momentum", checkpoint=False, recompute="selective", **r))
        return
    for rec, opt_kind, wrap in corpus_cases(name):
        build = (lambda: families.build(name)) if wrap is None else (lambda: wrap(families.build(name)))
        r = peak(build, lambda: families.make_input(name, s["batch"], "fp32"), opt_kind)
        emit(dict(set="corpus", model=name, mode="training", dtype="fp32", batch=s["batch"], **rec, **r))


def hf_llm(name, seq):
    import transformers as tf
    fam, hidden, heads, layers, ffn, vocab, positions = LLM[name]
    if fam == "bert":
        cfg = tf.BertConfig(vocab_size=vocab, hidden_size=hidden, num_hidden_layers=layers, num_attention_heads=heads,
                            intermediate_size=ffn, max_position_embeddings=positions, attn_implementation="eager")
        return tf.BertModel(cfg)  # with its pooler, as NeuSight's traces show
    if fam == "gpt2":
        cfg = tf.GPT2Config(vocab_size=vocab, n_embd=hidden, n_layer=layers, n_head=heads, n_inner=ffn,
                            n_positions=positions, use_cache=False, tie_word_embeddings=False,
                            attn_implementation="eager")
        return tf.GPT2LMHeadModel(cfg)
    cfg = tf.OPTConfig(vocab_size=vocab, hidden_size=hidden, num_hidden_layers=layers, num_attention_heads=heads,
                       ffn_dim=ffn, max_position_embeddings=positions, use_cache=False, tie_word_embeddings=False,
                       attn_implementation="eager")
    return tf.OPTForCausalLM(cfg)


def run_llm(case, emit, recompute="none"):
    name, batch, seq, opt_kind = case
    vocab = LLM[name][5]
    measure = selective_peak if recompute == "selective" else peak
    r = measure(lambda: hf_llm(name, seq), lambda: torch.randint(0, vocab, (batch, seq), device=DEV), opt_kind,
                train_mode=False)
    extra = dict(recompute="selective") if recompute == "selective" else {}
    emit(dict(set="llm", model=name, seq=seq, mode="training", dtype="fp32", batch=batch, optimizer=opt_kind,
              checkpoint=False, **extra, **r))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--max-seconds", type=float, default=1e9)
    ap.add_argument("--corpus", nargs="*", default=CORPUS)
    ap.add_argument("--llm", nargs="*", default=[f"{m}:{b}:{s}:{o}" for m, b, s, o in LLM_CASES],
                    help="MODEL:BATCH:SEQ:OPTIMIZER")
    ap.add_argument("--recompute", choices=("none", "selective"), default="none",
                    help="selective: only the selective-recomputation cases")
    args = ap.parse_args()
    set_reference_math()
    deadline = time.time() + args.max_seconds
    p = torch.cuda.get_device_properties(0)
    with open(args.out, "a") as out:
        def emit(rec):
            rec.update(gpu=p.name, mem_bytes=p.total_memory)
            out.write(json.dumps(rec) + "\n")
            out.flush()
            print(json.dumps(rec), flush=True)

        for spec in args.llm:
            if time.time() >= deadline:
                print(f"# out of time before {spec}", flush=True)
                break
            m, b, s, o = spec.split(":")
            run_llm((m, int(b), int(s), o), emit, args.recompute)
        for name in args.corpus:
            if time.time() >= deadline:
                print(f"# out of time before {name}", flush=True)
                break
            run_corpus(name, emit, args.recompute)


if __name__ == "__main__":
    main()
