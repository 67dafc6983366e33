#include "dlsim/kernel/kernel_kind.h"

namespace dlsim {
namespace {

struct KindInfo {
  KernelKind kind;
  const char* name;
  bool compute;
};

constexpr KindInfo kKinds[] = {
    {KernelKind::kConvFwd, "conv_fwd", true},
    {KernelKind::kConvBiasAct, "conv_bias_act", true},
    {KernelKind::kConvBwdData, "conv_bwd_data", true},
    {KernelKind::kConvBwdFilter, "conv_bwd_filter", true},
    {KernelKind::kGemm, "gemm", true},
    {KernelKind::kBatchedGemm, "batched_gemm", true},
    {KernelKind::kBatchNormInfer, "batchnorm_infer", false},
    {KernelKind::kBatchNormTrainFwd, "batchnorm_train_fwd", false},
    {KernelKind::kBatchNormBwd, "batchnorm_bwd", false},
    {KernelKind::kPoolFwd, "pool_fwd", false},
    {KernelKind::kPoolBwd, "pool_bwd", false},
    {KernelKind::kSoftmaxFwd, "softmax_fwd", false},
    {KernelKind::kSoftmaxBwd, "softmax_bwd", false},
    {KernelKind::kLayerNormFwd, "layernorm_fwd", false},
    {KernelKind::kLayerNormBwd, "layernorm_bwd", false},
    {KernelKind::kGroupNormFwd, "groupnorm_fwd", false},
    {KernelKind::kGroupNormBwd, "groupnorm_bwd", false},
    {KernelKind::kLrnFwd, "lrn_fwd", false},
    {KernelKind::kRnnFwd, "rnn_fwd", true},
    {KernelKind::kRnnBwdData, "rnn_bwd_data", true},
    {KernelKind::kRnnBwdWeights, "rnn_bwd_weights", true},
    {KernelKind::kAttentionFwd, "attention_fwd", true},
    {KernelKind::kAttentionBwd, "attention_bwd", true},
    {KernelKind::kElementwise, "elementwise", false},
    {KernelKind::kReduction, "reduction", false},
    {KernelKind::kCopy, "copy", false},
    {KernelKind::kOptimizer, "optimizer", false},
};

const KindInfo* Find(KernelKind kind) {
  for (const auto& info : kKinds) {
    if (info.kind == kind) return &info;
  }
  return nullptr;
}

}  // namespace

const std::vector<KernelKind>& AllKernelKinds() {
  static const std::vector<KernelKind> kinds = [] {
    std::vector<KernelKind> out;
    for (const auto& info : kKinds) out.push_back(info.kind);
    return out;
  }();
  return kinds;
}

const char* KernelKindName(KernelKind kind) {
  const KindInfo* info = Find(kind);
  return info != nullptr ? info->name : "unknown";
}

Result<KernelKind> KernelKindFromName(const std::string& name) {
  for (const auto& info : kKinds) {
    if (name == info.name) return info.kind;
  }
  return InvalidArgument("unknown kernel kind '" + name + "'");
}

bool IsComputeKind(KernelKind kind) {
  const KindInfo* info = Find(kind);
  return info != nullptr && info->compute;
}

bool IsRnnKind(KernelKind kind) {
  return kind == KernelKind::kRnnFwd || kind == KernelKind::kRnnBwdData ||
         kind == KernelKind::kRnnBwdWeights;
}

const char* MathModeName(MathMode mode) {
  switch (mode) {
    case MathMode::kFp32: return "fp32";
    case MathMode::kTf32: return "tf32";
    case MathMode::kFp16: return "fp16";
    case MathMode::kBf16: return "bf16";
  }
  return "fp32";
}

Result<MathMode> MathModeFromName(const std::string& name) {
  if (name == "fp32") return MathMode::kFp32;
  if (name == "tf32") return MathMode::kTf32;
  if (name == "fp16") return MathMode::kFp16;
  if (name == "bf16") return MathMode::kBf16;
  return InvalidArgument("unknown math mode '" + name + "'");
}

}  // namespace dlsim
