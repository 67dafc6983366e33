// Per-GPU memory of a parallel training plan (gpu_memory.h).
#include "gpu_memory.h"

#include <algorithm>

namespace dlsim {

namespace {

// Bytes per parameter held in 16-bit weights, fp32 gradients and fp32
// master weights with Adam's two moments (Megatron-LM's mixed precision).
constexpr double kWeightBytes = 2, kGradBytes = 4, kOptimizerBytes = 12;
// The last stage's logits: bf16, their fp32 copy kept for the loss's
// backward, and the fp32 gradient made from it.
constexpr double kLogitBytesPerElem = 10;

struct StageParams {
  double first = 0, last = 0;
};

StageParams ParamsPerGpu(const TransformerSpec& m, const ParallelPlan& p) {
  const double layers = static_cast<double>(m.layers) / p.pipeline;
  const double body = layers * m.LayerParams();
  const double head = static_cast<double>(m.vocab) * m.hidden;
  StageParams s;
  s.first = (body + m.EmbeddingParams()) / p.tensor;
  // An untied head, or a tied one on another GPU than the embedding (a copy).
  const bool own_head = !m.tied_embeddings || p.pipeline > 1;
  s.last = (body + (own_head ? head : 0) + (p.pipeline == 1 ? m.EmbeddingParams() : 0)) / p.tensor;
  return s;
}

void FillStateBytes(double params, const ParallelPlan& p, GpuMemory* g) {
  const double d = static_cast<double>(p.shard_ranks());
  g->weights_bytes = params * kWeightBytes / (p.zero_stage >= 3 ? d : 1);
  g->gradients_bytes = params * kGradBytes / (p.zero_stage >= 2 ? d : 1);
  g->optimizer_bytes = params * kOptimizerBytes / (p.zero_stage >= 1 ? d : 1);
}

}  // namespace

double StageParamsPerGpu(const TransformerSpec& m, const ParallelPlan& p) {
  const StageParams s = ParamsPerGpu(m, p);
  return std::max(s.first, s.last);
}

double LayerActivationBytes(const TransformerSpec& m, const ParallelPlan& p) {
  const double s = static_cast<double>(m.seq_len), b = static_cast<double>(p.microbatch);
  const double h = static_cast<double>(m.hidden), t = static_cast<double>(p.tensor);
  const double sb = s * b;
  if (p.recompute == Recompute::kFull) return 2 * sb * h / (p.sequence_parallel ? t : 1);
  const double kv = static_cast<double>(m.kv_heads) * m.head_dim();
  const double f = static_cast<double>(m.ffn_hidden);
  const double f_in = (m.gated_ffn ? 2 : 1) * f;
  // LayerNorm inputs, the two column-parallel inputs, two dropout masks:
  // whole on every tensor-parallel rank unless the sequence is split too.
  const double replicated = 4 * sb * h + 2 * sb * h + 2 * sb * h + 2 * sb * h;
  // q, k, v, the projection's input, the MLP's activation and fc2 inputs.
  double split = 2 * sb * h + 4 * sb * kv + 2 * sb * h + 2 * sb * f_in + 2 * sb * f;
  const bool scores_kept =
      m.attention == AttentionImpl::kUnfused && p.recompute == Recompute::kNone;
  if (scores_kept) split += 5 * static_cast<double>(m.heads) * s * s * b;  // softmax, mask, dropout
  return (p.sequence_parallel ? replicated / t : replicated) + split / t;
}

GpuMemory PeakGpuMemory(const TransformerSpec& m, const ParallelPlan& p) {
  const double layers_per_stage = static_cast<double>(m.layers) / p.pipeline;
  const double per_layer = LayerActivationBytes(m, p);
  const double pp = static_cast<double>(p.pipeline), v = static_cast<double>(p.virtual_stages);
  const double in_flight = std::min<double>(static_cast<double>(p.microbatches()), pp);
  // 1F1B: the first stage keeps `pipeline` microbatches of its layers; the
  // interleaved schedule keeps L (1 + (p-1)/(p v)) layers' worth (Korthikanti).
  double layers_kept = layers_per_stage * in_flight;
  if (p.virtual_stages > 1) layers_kept = static_cast<double>(m.layers) * (1 + (pp - 1) / (pp * v));
  double first_act = layers_kept * per_layer;
  double last_act = layers_per_stage * per_layer;
  if (p.recompute == Recompute::kFull) {
    ParallelPlan whole = p;
    whole.recompute = Recompute::kNone;
    const double one_layer = LayerActivationBytes(m, whole);  // rebuilt for its backward
    first_act += one_layer;
    last_act += one_layer;
  }
  const double tokens = static_cast<double>(m.seq_len) * p.microbatch;
  const double sp = p.sequence_parallel ? static_cast<double>(p.tensor) : 1.0;
  first_act += in_flight * tokens * m.hidden / sp;  // embedding dropout mask
  last_act += kLogitBytesPerElem * tokens * m.vocab / p.tensor;

  const StageParams params = ParamsPerGpu(m, p);
  GpuMemory first, last;
  FillStateBytes(params.first, p, &first);
  first.activations_bytes = first_act;
  first.stage = 0;
  FillStateBytes(params.last, p, &last);
  last.activations_bytes = last_act;
  last.stage = static_cast<int>(p.pipeline - 1);
  if (p.pipeline == 1) {  // one stage holds both ends
    first.activations_bytes = std::max(first_act, last_act);
    FillStateBytes(std::max(params.first, params.last), p, &first);
    return first;
  }
  return first.total_bytes() >= last.total_bytes() ? first : last;
}

}  // namespace dlsim
