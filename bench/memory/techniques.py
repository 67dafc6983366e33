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

  python3 bench/memory/techniques.py --out FILE [--max-seconds S] [--corpus NAME ...] [--llm NAME ...]
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


def run_corpus(name, emit):
    s = corpus.spec(name)
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


def run_llm(case, emit):
    name, batch, seq, opt_kind = case
    vocab = LLM[name][5]
    r = peak(lambda: hf_llm(name, seq), lambda: torch.randint(0, vocab, (batch, seq), device=DEV), opt_kind,
             train_mode=False)
    emit(dict(set="llm", model=name, seq=seq, mode="training", dtype="fp32", batch=batch, optimizer=opt_kind,
              checkpoint=False, **r))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--max-seconds", type=float, default=1e9)
    ap.add_argument("--corpus", nargs="*", default=CORPUS)
    ap.add_argument("--llm", nargs="*", default=[f"{m}:{b}:{s}:{o}" for m, b, s, o in LLM_CASES],
                    help="MODEL:BATCH:SEQ:OPTIMIZER")
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
            run_llm((m, int(b), int(s), o), emit)
        for name in args.corpus:
            if time.time() >= deadline:
                print(f"# out of time before {name}", flush=True)
                break
            run_corpus(name, emit)


if __name__ == "__main__":
    main()
