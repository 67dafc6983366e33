// Kernel calls of a tensor-parallel GPT block (transformer_calls.h).
#include "transformer_calls.h"

#include <string>
#include <utility>

#include "dlsim/util/optimizer.h"
#include "kernel/work.h"

namespace dlsim {

namespace {

struct CallFactory {
  DType dtype;
  MathMode gemm_math;
  Phase phase = Phase::kForward;
  TrainingFramework framework = TrainingFramework::kMegatron;

  KernelCall Make(KernelKind kind, const char* library_call, KeyParamList params,
                  MathMode math) const {
    KernelCall c;
    c.kind = kind;
    c.library_call = library_call;
    c.phase = phase;
    c.dtype = dtype;
    c.math = math;
    c.params = std::move(params);
    auto work = WorkOfKey(KeyOf(c));
    DLSIM_CHECK(work.ok());  // shapes here are positive by ValidatePlan
    c.flops = work->flops;
    c.bytes_read = work->bytes;
    return c;
  }
  static std::string N(int64_t v) { return std::to_string(v); }

  KernelCall Gemm(int64_t m, int64_t n, int64_t k, bool ta, bool tb) const {
    return Make(KernelKind::kGemm, "cublasGemmEx",
                {{"m", N(m)}, {"n", N(n)}, {"k", N(k)}, {"trans_a", ta ? "1" : "0"},
                 {"trans_b", tb ? "1" : "0"}},
                gemm_math);
  }
  KernelCall Batched(int64_t batch, int64_t m, int64_t n, int64_t k, bool ta, bool tb) const {
    return Make(KernelKind::kBatchedGemm, "cublasGemmStridedBatchedEx",
                {{"batch", N(batch)}, {"m", N(m)}, {"n", N(n)}, {"k", N(k)},
                 {"trans_a", ta ? "1" : "0"}, {"trans_b", tb ? "1" : "0"}},
                gemm_math);
  }
  KernelCall Rows(KernelKind kind, const char* lib, int64_t rows, int64_t cols) const {
    return Make(kind, lib, {{"rows", N(rows)}, {"cols", N(cols)}}, MathMode::kFp32);
  }
  // LayerNorm: under torch.autocast it is an fp32 op (fp32 in and out).
  KernelCall Norm(KernelKind kind, const char* lib, int64_t rows, int64_t cols) const {
    CallFactory f32 = *this;
    if (framework == TrainingFramework::kPyTorch) f32.dtype = DType::kFloat32;
    return f32.Rows(kind, lib, rows, cols);
  }
  KernelCall Pointwise(const char* op, int64_t elems, int64_t arity) const {
    return Make(KernelKind::kElementwise, op, {{"op", op}, {"elems", N(elems)}, {"arity", N(arity)}},
                MathMode::kFp32);
  }
  KernelCall Copy(const char* op, int64_t elems) const {
    return Make(KernelKind::kCopy, op, {{"op", op}, {"elems", N(elems)}}, MathMode::kFp32);
  }
  // A dtype conversion; a cast key names its *source* dtype, as
  // calibrate/torch_calibrate.py times it (a tensor of that dtype .to() the other).
  KernelCall Cast(const char* op, int64_t elems, DType source) const {
    CallFactory from = *this;
    from.dtype = source;
    return from.Copy(op, elems);
  }
  KernelCall Reduce(const char* op, int64_t rows, int64_t cols) const {
    return Make(KernelKind::kReduction, op, {{"op", op}, {"rows", N(rows)}, {"cols", N(cols)}},
                MathMode::kFp32);
  }
  KernelCall Attention(KernelKind kind, const char* lib, int64_t batch, int64_t heads, int64_t seq,
                       int64_t head_dim) const {
    return Make(kind, lib,
                {{"batch", N(batch)}, {"heads", N(heads)}, {"seq_q", N(seq)}, {"seq_k", N(seq)},
                 {"head_dim", N(head_dim)}, {"mask", "2"}},  // causal
                gemm_math);
  }
};

CallFactory Factory(const ParallelPlan& plan, Phase phase) {
  CallFactory f;
  f.dtype = plan.dtype;
  f.gemm_math = plan.dtype == DType::kFloat16 ? MathMode::kFp16 : MathMode::kBf16;
  f.phase = phase;
  f.framework = plan.framework;
  return f;
}

// A linear layer y[m,n] = x[m,k] W[k,n]: its backward (dgrad, wgrad) and
// the bias gradient (a column sum).
void LinearBackward(const CallFactory& f, int64_t m, int64_t n, int64_t k, PassCalls* out) {
  out->bwd.push_back(f.Gemm(m, k, n, false, true));
  out->bwd.push_back(f.Gemm(k, n, m, true, false));
  out->bwd.push_back(f.Reduce("sum", n, m));
}

struct LayerDims {
  int64_t tokens;     // b s: rows of the tensor-parallel GEMMs
  int64_t ln_tokens;  // rows of the LayerNorm / dropout regions (/t with SP)
  int64_t h, qkv, ffn_in, ffn, heads, head_dim, batch_heads, seq;
};

LayerDims DimsOf(const TransformerSpec& m, const ParallelPlan& p) {
  LayerDims d;
  const int64_t t = p.tensor;
  d.tokens = p.microbatch * m.seq_len;
  d.ln_tokens = p.sequence_parallel ? (d.tokens + t - 1) / t : d.tokens;
  d.h = m.hidden;
  d.head_dim = m.head_dim();
  d.qkv = (m.hidden + 2 * m.kv_heads * d.head_dim) / t;
  d.ffn = m.ffn_hidden / t;
  d.ffn_in = (m.gated_ffn ? 2 : 1) * d.ffn;
  d.heads = m.heads / t;
  d.batch_heads = p.microbatch * d.heads;
  d.seq = m.seq_len;
  return d;
}

// Attention's core: flash kernel, or QK^T, scale-mask-softmax, dropout, PV.
std::vector<KernelCall> CoreAttentionFwd(const CallFactory& f, const TransformerSpec& m,
                                         const ParallelPlan& p, const LayerDims& d) {
  if (m.attention == AttentionImpl::kFlash) {
    return {f.Attention(KernelKind::kAttentionFwd, "flash_attention", p.microbatch, d.heads, d.seq,
                        d.head_dim)};
  }
  const int64_t scores = d.batch_heads * d.seq * d.seq;
  return {f.Batched(d.batch_heads, d.seq, d.seq, d.head_dim, false, true),
          f.Rows(KernelKind::kSoftmaxFwd, "scaled_masked_softmax", d.batch_heads * d.seq, d.seq),
          f.Pointwise("dropout", scores, 1),
          f.Batched(d.batch_heads, d.seq, d.head_dim, d.seq, false, false)};
}

void CoreAttentionBwd(const CallFactory& f, const TransformerSpec& m, const ParallelPlan& p,
                      const LayerDims& d, PassCalls* out) {
  if (m.attention == AttentionImpl::kFlash) {
    out->bwd.push_back(f.Attention(KernelKind::kAttentionBwd, "flash_attention_backward",
                                   p.microbatch, d.heads, d.seq, d.head_dim));
    return;
  }
  const int64_t scores = d.batch_heads * d.seq * d.seq;
  out->bwd.push_back(f.Batched(d.batch_heads, d.seq, d.seq, d.head_dim, false, true));   // dP
  out->bwd.push_back(f.Batched(d.batch_heads, d.seq, d.head_dim, d.seq, true, false));   // dV
  out->bwd.push_back(f.Pointwise("dropout_grad", scores, 2));
  out->bwd.push_back(
      f.Rows(KernelKind::kSoftmaxBwd, "scaled_masked_softmax_backward", d.batch_heads * d.seq, d.seq));
  out->bwd.push_back(f.Batched(d.batch_heads, d.seq, d.head_dim, d.seq, false, false));  // dQ
  out->bwd.push_back(f.Batched(d.batch_heads, d.seq, d.head_dim, d.seq, true, false));   // dK
}

// PyTorch's autocast runs LayerNorm in fp32 on a 16-bit residual stream: its
// input cast up and its output cast back (`.to(x.dtype)`), and in the
// backward each gradient the other way.
void NormCasts(const CallFactory& f, const CallFactory& b, DType low, int64_t elems,
               PassCalls* out) {
  out->fwd.push_back(f.Cast("cast", elems, low));
  out->fwd.push_back(f.Cast("cast", elems, DType::kFloat32));
  out->bwd.push_back(b.Cast("cast_bwd", elems, DType::kFloat32));
  out->bwd.push_back(b.Cast("cast_bwd", elems, low));
}

}  // namespace

PassCalls TransformerLayerCalls(const TransformerSpec& m, const ParallelPlan& p) {
  const LayerDims d = DimsOf(m, p);
  const CallFactory f = Factory(p, Phase::kForward);
  const CallFactory b = Factory(p, Phase::kBackward);
  PassCalls out;
  // Forward: LN, QKV, core attention, proj, bias-dropout-add, LN, MLP, bias-dropout-add.
  out.fwd.push_back(f.Norm(KernelKind::kLayerNormFwd, "layer_norm", d.ln_tokens, d.h));
  out.fwd.push_back(f.Gemm(d.tokens, d.qkv, d.h, false, false));
  const std::vector<KernelCall> core = CoreAttentionFwd(f, m, p, d);
  out.fwd.insert(out.fwd.end(), core.begin(), core.end());
  out.fwd.push_back(f.Gemm(d.tokens, d.h, d.heads * d.head_dim, false, false));
  out.fwd.push_back(f.Pointwise("bias_dropout_add", d.ln_tokens * d.h, 3));
  out.fwd.push_back(f.Norm(KernelKind::kLayerNormFwd, "layer_norm", d.ln_tokens, d.h));
  out.fwd.push_back(f.Gemm(d.tokens, d.ffn_in, d.h, false, false));
  out.fwd.push_back(m.gated_ffn ? f.Pointwise("silu_mul", d.tokens * d.ffn, 2)
                                : f.Pointwise("bias_gelu", d.tokens * d.ffn, 2));
  out.fwd.push_back(f.Gemm(d.tokens, d.h, d.ffn, false, false));
  out.fwd.push_back(f.Pointwise("bias_dropout_add", d.ln_tokens * d.h, 3));

  // Backward, in reverse.
  out.bwd.push_back(b.Pointwise("dropout_grad", d.ln_tokens * d.h, 2));
  LinearBackward(b, d.tokens, d.h, d.ffn, &out);
  out.bwd.push_back(m.gated_ffn ? b.Pointwise("silu_mul_grad", d.tokens * d.ffn, 3)
                                : b.Pointwise("bias_gelu_grad", d.tokens * d.ffn, 2));
  LinearBackward(b, d.tokens, d.ffn_in, d.h, &out);
  out.bwd.push_back(b.Norm(KernelKind::kLayerNormBwd, "layer_norm_backward", d.ln_tokens, d.h));
  out.bwd.push_back(b.Pointwise("add", d.ln_tokens * d.h, 2));  // residual gradient
  out.bwd.push_back(b.Pointwise("dropout_grad", d.ln_tokens * d.h, 2));
  LinearBackward(b, d.tokens, d.h, d.heads * d.head_dim, &out);
  CoreAttentionBwd(b, m, p, d, &out);
  LinearBackward(b, d.tokens, d.qkv, d.h, &out);
  out.bwd.push_back(b.Norm(KernelKind::kLayerNormBwd, "layer_norm_backward", d.ln_tokens, d.h));
  out.bwd.push_back(b.Pointwise("add", d.ln_tokens * d.h, 2));

  if (p.recompute == Recompute::kFull) {
    out.recompute = out.fwd;
  } else if (p.recompute == Recompute::kSelective && m.attention == AttentionImpl::kUnfused) {
    out.recompute = core;
  }
  for (KernelCall& c : out.recompute) c.phase = Phase::kBackward;
  return out;
}

PassCalls EmbeddingCalls(const TransformerSpec& m, const ParallelPlan& p) {
  const CallFactory f = Factory(p, Phase::kForward);
  const CallFactory b = Factory(p, Phase::kBackward);
  const LayerDims d = DimsOf(m, p);
  const int64_t tokens = d.tokens, ln_tokens = d.ln_tokens;
  PassCalls out;
  out.fwd.push_back(f.Copy("gather", tokens * m.hidden));
  if (!m.gated_ffn) out.fwd.push_back(f.Pointwise("add", tokens * m.hidden, 2));  // positions
  out.fwd.push_back(f.Pointwise("dropout", ln_tokens * m.hidden, 1));
  out.bwd.push_back(b.Pointwise("dropout_grad", ln_tokens * m.hidden, 2));
  out.bwd.push_back(b.Pointwise("embedding_grad", tokens * m.hidden, 2));  // scatter-add
  if (p.framework == TrainingFramework::kPyTorch) {
    // The fp32 token (and position) embeddings cast to the 16-bit residual
    // stream, their gradients cast back.
    const int casts = m.gated_ffn ? 1 : 2;
    for (int i = 0; i < casts; ++i) {
      out.fwd.push_back(f.Cast("cast", tokens * m.hidden, DType::kFloat32));
      out.bwd.push_back(b.Cast("cast_bwd", tokens * m.hidden, p.dtype));
    }
  }
  return out;
}

PassCalls HeadCalls(const TransformerSpec& m, const ParallelPlan& p) {
  const CallFactory f = Factory(p, Phase::kForward);
  const CallFactory b = Factory(p, Phase::kBackward);
  const LayerDims d = DimsOf(m, p);
  const int64_t tokens = d.tokens, ln_tokens = d.ln_tokens;
  const int64_t vocab = (m.vocab + p.tensor - 1) / p.tensor;
  PassCalls out;
  out.fwd.push_back(f.Norm(KernelKind::kLayerNormFwd, "layer_norm", ln_tokens, m.hidden));
  out.fwd.push_back(f.Gemm(tokens, vocab, m.hidden, false, false));
  // Vocabulary-parallel cross-entropy: the logits cast to fp32, and the
  // loss (max, exp-sum) and its gradient computed on them in fp32.
  CallFactory f32 = f, b32 = b;
  f32.dtype = b32.dtype = DType::kFloat32;
  out.fwd.push_back(f.Cast("cast", tokens * vocab, p.dtype));
  out.fwd.push_back(f32.Rows(KernelKind::kSoftmaxFwd, "cross_entropy", tokens, vocab));
  out.bwd.push_back(b32.Pointwise("cross_entropy_grad", tokens * vocab, 2));
  if (p.framework == TrainingFramework::kPyTorch) {
    // The logits' fp32 gradient back to 16 bits; the head weight cast for the
    // GEMM and its gradient cast back (not with FSDP's 16-bit parameters); the
    // final LayerNorm's casts as in a layer.
    out.bwd.push_back(b.Cast("cast_bwd", tokens * vocab, DType::kFloat32));
    if (p.zero_stage < 3) {
      out.fwd.push_back(f.Cast("cast", vocab * m.hidden, DType::kFloat32));
      out.bwd.push_back(b.Cast("cast_bwd", vocab * m.hidden, p.dtype));
    }
    NormCasts(f, b, p.dtype, ln_tokens * m.hidden, &out);
  }
  out.bwd.push_back(b.Gemm(tokens, m.hidden, vocab, false, true));
  out.bwd.push_back(b.Gemm(m.hidden, vocab, tokens, true, false));
  out.bwd.push_back(b.Norm(KernelKind::kLayerNormBwd, "layer_norm_backward", ln_tokens, m.hidden));
  return out;
}

namespace {

KernelCall FusedAdamCall(double params) {
  KernelCall call;
  call.kind = KernelKind::kOptimizer;
  call.library_call = "optimizer_adam";
  call.phase = Phase::kOptimizer;
  call.dtype = DType::kFloat32;
  call.math = MathMode::kFp32;
  const int64_t n = static_cast<int64_t>(params);
  call.AddParam("op", OptimizerName(Optimizer::kAdam));
  call.AddParam("params", n);
  call.AddParam("fused", 1);
  call.bytes_read = 16.0 * n;               // w, g, m, v in fp32
  call.bytes_written = 12.0 * n + 2.0 * n;  // w, m, v, and the 16-bit copy of w
  call.flops = CallFlops(call);
  return call;
}

// The weights of one block that autocast casts: (elements, count).
std::vector<int64_t> CastWeights(const TransformerSpec& m, const ParallelPlan& p) {
  const LayerDims d = DimsOf(m, p);
  return {d.h * d.qkv, d.qkv, d.heads * d.head_dim * d.h, d.h, d.h * d.ffn_in, d.ffn_in,
          d.ffn * d.h, d.h};
}

}  // namespace

std::vector<RepeatedCalls> OptimizerCalls(const ParallelPlan& p, double params) {
  if (p.framework == TrainingFramework::kMegatron) return {{{FusedAdamCall(params)}, 1}};
  // torch.optim.AdamW (foreach): decay, lerp of m, scale of v, addcmul into
  // v, sqrt, divide, add eps, addcdiv into w; arity = fp32 tensors read.
  // multi_tensor_apply launches at most kForeachChunk elements a kernel
  // (320 blocks of 65,536): each pass is that many full launches and the rest.
  constexpr int64_t kForeachChunk = 320 * 65536;
  CallFactory f = Factory(p, Phase::kOptimizer);
  f.dtype = DType::kFloat32;
  const int64_t n = static_cast<int64_t>(params);
  const int64_t full = n / kForeachChunk, rest = n % kForeachChunk;
  std::vector<RepeatedCalls> out(2);
  out[0].times = static_cast<double>(full);
  out[1].times = rest > 0 ? 1 : 0;
  const std::pair<const char*, int64_t> passes[] = {
      {"adamw_decay", 1}, {"adamw_lerp", 2}, {"adamw_scale", 1}, {"adamw_addcmul", 2},
      {"adamw_sqrt", 1},  {"adamw_div", 1},  {"adamw_eps", 1},   {"adamw_addcdiv", 3}};
  for (const auto& [op, arity] : passes) {
    if (full > 0) out[0].calls.push_back(f.Pointwise(op, kForeachChunk, arity));
    if (rest > 0) out[1].calls.push_back(f.Pointwise(op, rest, arity));
  }
  return out;
}

PassCalls FrameworkLayerCalls(const TransformerSpec& m, const ParallelPlan& p) {
  PassCalls out;
  if (p.framework == TrainingFramework::kMegatron) return out;
  CallFactory f = Factory(p, Phase::kForward);
  CallFactory b = Factory(p, Phase::kBackward);
  const bool fsdp = p.zero_stage >= 3 && p.shard_ranks() > 1;
  int64_t layer_params = 0;
  for (int64_t n : CastWeights(m, p)) {
    // Autocast casts each fp32 weight for its GEMM (again every microbatch:
    // its cache lives for one autocast region) and the gradient back; FSDP's
    // mixed precision keeps 16-bit parameters, so it has none.
    if (!fsdp) {
      out.fwd.push_back(f.Cast("cast", n, DType::kFloat32));
      out.bwd.push_back(b.Cast("cast_bwd", n, p.dtype));
    }
    layer_params += n;
  }
  const LayerDims d = DimsOf(m, p);
  for (int norm = 0; norm < 2; ++norm) NormCasts(f, b, p.dtype, d.ln_tokens * d.h, &out);
  // The backward of splitting q, k and v out of one projection: a concat.
  out.bwd.push_back(b.Copy("concat", d.tokens * d.qkv));
  if (p.recompute == Recompute::kFull) out.recompute = out.fwd;
  if (fsdp) {
    // FSDP: the gathered weights split out of the all-gather buffer (forward
    // and backward), the gradients concatenated into the reduce-scatter one.
    out.fwd.push_back(f.Copy("fsdp_split", layer_params));
    out.bwd.push_back(f.Copy("fsdp_split", layer_params));
    CallFactory b32 = b;  // the 16-bit gradients into the fp32 reduce-scatter buffer
    b32.dtype = DType::kFloat32;
    out.bwd.push_back(b32.Copy("fsdp_chunk_cat", layer_params));
  }
  for (KernelCall& c : out.recompute) c.phase = Phase::kBackward;
  return out;
}

RepeatedCalls GradAccumulationCalls(const ParallelPlan& p, double params) {
  RepeatedCalls out;
  if (p.framework != TrainingFramework::kPyTorch || p.microbatches() <= 1) return out;
  CallFactory f = Factory(p, Phase::kBackward);
  f.dtype = DType::kFloat32;
  out.calls.push_back(f.Pointwise("grad_accumulate", static_cast<int64_t>(params), 2));
  out.times = static_cast<double>(p.microbatches() - 1);
  return out;
}

RepeatedCalls DdpStepCalls(const TransformerSpec& m, const ParallelPlan& p) {
  RepeatedCalls out;
  if (p.framework != TrainingFramework::kPyTorch || p.zero_stage != 0 || p.data == 1) return out;
  CallFactory f = Factory(p, Phase::kBackward);
  f.dtype = DType::kFloat32;
  for (int64_t n : CastWeights(m, p)) out.calls.push_back(f.Pointwise("ddp_bucket_copy", n, 1));
  out.times = 2.0 * static_cast<double>(m.layers) / p.pipeline;
  return out;
}

}  // namespace dlsim
