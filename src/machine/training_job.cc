// TransformerSpec and ParallelPlan: sizes and checks (training_job.h).
#include "dlsim/machine/training_job.h"

#include <algorithm>
#include <string>
#include <tuple>

namespace dlsim {

const char* AttentionImplName(AttentionImpl impl) {
  return impl == AttentionImpl::kFlash ? "flash" : "unfused";
}

Result<AttentionImpl> ParseAttentionImpl(const std::string& name) {
  if (name == "flash") return AttentionImpl::kFlash;
  if (name == "unfused") return AttentionImpl::kUnfused;
  return InvalidArgument("attention must be flash or unfused, got '" + name + "'");
}

const char* TrainingFrameworkName(TrainingFramework f) {
  return f == TrainingFramework::kPyTorch ? "pytorch" : "megatron";
}

double TransformerSpec::LayerParams() const {
  const double h = static_cast<double>(hidden);
  const double kv = static_cast<double>(kv_heads) * head_dim();
  const double qkv = h * (h + 2 * kv) + (h + 2 * kv);
  const double proj = h * h + h;
  const double ffn_in = (gated_ffn ? 2.0 : 1.0) * (h * ffn_hidden + ffn_hidden);
  const double ffn_out = static_cast<double>(ffn_hidden) * h + h;
  return qkv + proj + ffn_in + ffn_out + 4 * h;  // two LayerNorms
}

double TransformerSpec::EmbeddingParams() const {
  const double h = static_cast<double>(hidden);
  const double positions = gated_ffn ? 0.0 : static_cast<double>(seq_len) * h;  // rotary: none
  return static_cast<double>(vocab) * h + positions;
}

double TransformerSpec::Params() const {
  const double head = tied_embeddings ? 0.0 : static_cast<double>(vocab) * hidden;
  return layers * LayerParams() + EmbeddingParams() + head + 2.0 * hidden;
}

namespace {

Status Need(bool ok, const std::string& field, const std::string& what) {
  return ok ? Status::Ok() : InvalidArgument(field + ": " + what);
}

}  // namespace

// Bounds that keep every count of elements a kernel key holds inside int64
// (docs/parallel.md): far beyond any model trained so far.
constexpr int64_t kMaxLayers = 100000, kMaxWidth = int64_t{1} << 22, kMaxHeads = 1 << 16;
constexpr int64_t kMaxVocab = int64_t{1} << 24, kMaxSeq = int64_t{1} << 22;
constexpr double kMaxElements = 1e18;  // of one kernel's operand

Status ValidateTransformer(const TransformerSpec& s) {
  const std::tuple<const char*, int64_t, int64_t> bounds[] = {
      {"model.layers", s.layers, kMaxLayers},  {"model.hidden", s.hidden, kMaxWidth},
      {"model.heads", s.heads, kMaxHeads},     {"model.kv_heads", s.kv_heads, kMaxHeads},
      {"model.ffn_hidden", s.ffn_hidden, kMaxWidth}, {"model.vocab", s.vocab, kMaxVocab},
      {"model.seq_len", s.seq_len, kMaxSeq}};
  for (const auto& [field, v, most] : bounds) {
    DLSIM_RETURN_IF_ERROR(Need(v <= most, field, std::to_string(v) + " is larger than dlsim "
                                                     "accepts (" + std::to_string(most) + ")"));
  }
  const std::pair<const char*, int64_t> sizes[] = {
      {"model.layers", s.layers}, {"model.hidden", s.hidden},     {"model.heads", s.heads},
      {"model.kv_heads", s.kv_heads}, {"model.ffn_hidden", s.ffn_hidden},
      {"model.vocab", s.vocab},   {"model.seq_len", s.seq_len}};
  for (const auto& [field, v] : sizes) {
    DLSIM_RETURN_IF_ERROR(Need(v > 0, field, "must be a positive integer, got " + std::to_string(v)));
  }
  DLSIM_RETURN_IF_ERROR(Need(s.hidden % s.heads == 0, "model.heads",
                             std::to_string(s.heads) + " heads do not divide hidden " +
                                 std::to_string(s.hidden)));
  return Need(s.heads % s.kv_heads == 0, "model.kv_heads",
              std::to_string(s.kv_heads) + " key/value heads do not divide " +
                  std::to_string(s.heads) + " heads");
}

Status ValidatePlan(const TransformerSpec& s, const ParallelPlan& p) {
  const std::pair<const char*, int64_t> sizes[] = {
      {"parallel.tensor", p.tensor},       {"parallel.pipeline", p.pipeline},
      {"parallel.data", p.data},           {"parallel.virtual_stages", p.virtual_stages},
      {"parallel.microbatch", p.microbatch}, {"parallel.global_batch", p.global_batch}};
  for (const auto& [field, v] : sizes) {
    DLSIM_RETURN_IF_ERROR(Need(v > 0, field, "must be a positive integer, got " + std::to_string(v)));
  }
  const std::string t = std::to_string(p.tensor);
  DLSIM_RETURN_IF_ERROR(Need(s.heads % p.tensor == 0 && s.kv_heads % p.tensor == 0,
                             "parallel.tensor", "tensor parallelism " + t +
                                 " must divide the heads (" + std::to_string(s.heads) +
                                 ") and key/value heads (" + std::to_string(s.kv_heads) + ")"));
  DLSIM_RETURN_IF_ERROR(Need(s.ffn_hidden % p.tensor == 0, "parallel.tensor",
                             "tensor parallelism " + t + " must divide ffn_hidden " +
                                 std::to_string(s.ffn_hidden)));
  const int64_t chunks = p.pipeline * p.virtual_stages;
  DLSIM_RETURN_IF_ERROR(Need(s.layers % chunks == 0, "parallel.pipeline",
                             std::to_string(s.layers) + " layers do not split into " +
                                 std::to_string(p.pipeline) + " stages x " +
                                 std::to_string(p.virtual_stages) + " virtual stages"));
  DLSIM_RETURN_IF_ERROR(Need(p.global_batch % (p.microbatch * p.data) == 0, "parallel.global_batch",
                             "global batch " + std::to_string(p.global_batch) +
                                 " is not a multiple of microbatch x data parallelism (" +
                                 std::to_string(p.microbatch * p.data) + ")"));
  DLSIM_RETURN_IF_ERROR(Need(p.virtual_stages == 1 || p.microbatches() % p.pipeline == 0,
                             "parallel.virtual_stages",
                             "the interleaved schedule needs the microbatches (" +
                                 std::to_string(p.microbatches()) +
                                 ") to be a multiple of the pipeline stages"));
  DLSIM_RETURN_IF_ERROR(Need(p.virtual_stages == 1 || p.pipeline > 1, "parallel.virtual_stages",
                             "virtual stages need pipeline parallelism"));
  DLSIM_RETURN_IF_ERROR(Need(p.zero_stage >= 0 && p.zero_stage <= 3, "parallel.zero",
                             "must be 0, 1, 2 or 3, got " + std::to_string(p.zero_stage)));
  DLSIM_RETURN_IF_ERROR(Need(p.zero_shard >= 0 && p.zero_shard <= p.data &&
                                 (p.zero_shard == 0 || p.data % p.zero_shard == 0),
                             "parallel.zero_shard",
                             "must divide data parallelism " + std::to_string(p.data) + ", got " +
                                 std::to_string(p.zero_shard)));
  DLSIM_RETURN_IF_ERROR(Need(p.zero_shard == 0 || p.zero_stage >= 1, "parallel.zero_shard",
                             "shards the ZeRO state: it needs zero 1, 2 or 3"));
  DLSIM_RETURN_IF_ERROR(Need(!(p.zero_stage >= 2 && p.pipeline > 1), "parallel.zero",
                             "ZeRO stage 2 and 3 shard gradients that the pipeline accumulates "
                             "over microbatches; use 0 or 1 with pipeline parallelism"));
  DLSIM_RETURN_IF_ERROR(Need(p.tensor <= 1024 && p.data <= (int64_t{1} << 24), "parallel",
                             "tensor (at most 1024) or data parallelism (2^24) too large"));
  // The largest operands a microbatch makes: the logits, the MLP activation,
  // unfused attention's scores.
  const double tokens = static_cast<double>(p.microbatch) * s.seq_len;
  const double largest = std::max({tokens * s.vocab, tokens * 2.0 * s.ffn_hidden,
                                   tokens * s.heads * s.seq_len});
  DLSIM_RETURN_IF_ERROR(Need(largest <= kMaxElements, "parallel.microbatch",
                             "microbatch " + std::to_string(p.microbatch) + " x sequence " +
                                 std::to_string(s.seq_len) + " makes operands too large"));
  return Need(p.dtype == DType::kBFloat16 || p.dtype == DType::kFloat16, "parallel.dtype",
              "must be bf16 or fp16 (mixed precision)");
}

}  // namespace dlsim
