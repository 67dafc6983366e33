#include "dlsim/ops/kernel_call.h"

#include <cerrno>
#include <cstdlib>
#include <sstream>

namespace dlsim {
namespace {

struct KindName {
  KernelKind kind;
  const char* name;
};

constexpr KindName kKindNames[] = {
    {KernelKind::kConvFwd, "conv_fwd"},
    {KernelKind::kConvBiasAct, "conv_bias_act"},
    {KernelKind::kConvBwdData, "conv_bwd_data"},
    {KernelKind::kConvBwdFilter, "conv_bwd_filter"},
    {KernelKind::kGemm, "gemm"},
    {KernelKind::kBatchedGemm, "batched_gemm"},
    {KernelKind::kBatchNormInfer, "batchnorm_infer"},
    {KernelKind::kBatchNormTrainFwd, "batchnorm_train_fwd"},
    {KernelKind::kBatchNormBwd, "batchnorm_bwd"},
    {KernelKind::kPoolFwd, "pool_fwd"},
    {KernelKind::kPoolBwd, "pool_bwd"},
    {KernelKind::kSoftmaxFwd, "softmax_fwd"},
    {KernelKind::kSoftmaxBwd, "softmax_bwd"},
    {KernelKind::kLayerNormFwd, "layernorm_fwd"},
    {KernelKind::kLayerNormBwd, "layernorm_bwd"},
    {KernelKind::kLrnFwd, "lrn_fwd"},
    {KernelKind::kRnnFwd, "rnn_fwd"},
    {KernelKind::kRnnBwdData, "rnn_bwd_data"},
    {KernelKind::kRnnBwdWeights, "rnn_bwd_weights"},
    {KernelKind::kAttentionFwd, "attention_fwd"},
    {KernelKind::kAttentionBwd, "attention_bwd"},
    {KernelKind::kElementwise, "elementwise"},
    {KernelKind::kReduction, "reduction"},
    {KernelKind::kCopy, "copy"},
    {KernelKind::kOptimizer, "optimizer"},
};

bool ParseInt64(const std::string& s, int64_t* out) {
  if (s.empty()) return false;
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(s.c_str(), &end, 10);
  if (end == nullptr || *end != '\0' || errno == ERANGE) return false;
  *out = v;
  return true;
}

}  // namespace

const char* KernelKindName(KernelKind kind) {
  for (const auto& kn : kKindNames) {
    if (kn.kind == kind) return kn.name;
  }
  return "unknown";
}

Result<KernelKind> KernelKindFromName(const std::string& name) {
  for (const auto& kn : kKindNames) {
    if (name == kn.name) return kn.kind;
  }
  return InvalidArgument("unknown kernel kind '" + name + "'");
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

std::string KernelCall::Key() const {
  std::string key = KernelKindName(kind);
  for (const auto& [name, value] : params) key += " " + name + "=" + value;
  key += std::string(" dtype=") + DTypeName(dtype);
  key += std::string(" math=") + MathModeName(math);
  key += " layout=" + layout;
  return key;
}

int64_t KernelCall::IntParam(const std::string& name, int64_t fallback) const {
  for (const auto& [n, v] : params) {
    int64_t out = 0;
    if (n == name) return ParseInt64(v, &out) ? out : fallback;
  }
  return fallback;
}

std::string KernelCall::StrParam(const std::string& name,
                                 const std::string& fallback) const {
  for (const auto& [n, v] : params) {
    if (n == name) return v;
  }
  return fallback;
}

void KernelCall::AddParam(const std::string& name, int64_t value) {
  params.emplace_back(name, std::to_string(value));
}

void KernelCall::AddParam(const std::string& name, const std::string& value) {
  params.emplace_back(name, value);
}

Result<ParsedKey> ParseKernelKey(const std::string& key) {
  std::istringstream in(key);
  std::string kind_name;
  if (!(in >> kind_name)) return ParseError("empty kernel key");
  auto kind = KernelKindFromName(kind_name);
  if (!kind.ok()) return kind.status().WithContext("kernel key '" + key + "'");
  ParsedKey parsed{*kind, {}, "", "", ""};
  std::string token;
  while (in >> token) {
    size_t eq = token.find('=');
    if (eq == std::string::npos || eq == 0) {
      return ParseError("kernel key '" + key + "': token '" + token +
                        "' is not name=value");
    }
    std::string name = token.substr(0, eq), value = token.substr(eq + 1);
    if (name == "dtype") parsed.dtype = value;
    else if (name == "math") parsed.math = value;
    else if (name == "layout") parsed.layout = value;
    else parsed.params.emplace_back(name, value);
    // An integer parameter must fit int64 (strtoll would clamp it silently).
    int64_t ignored = 0;
    const size_t digits = value.size() > 1 && value[0] == '-' ? 1 : 0;
    const bool integral = value.size() > digits &&
                          value.find_first_not_of("0123456789", digits) == std::string::npos;
    if (integral && !ParseInt64(value, &ignored)) {
      return ParseError("kernel key '" + key + "': parameter " + token +
                        " is not an integer in int64 range");
    }
  }
  if (parsed.dtype.empty() || parsed.math.empty() || parsed.layout.empty()) {
    return ParseError("kernel key '" + key + "' lacks dtype, math or layout");
  }
  return parsed;
}

}  // namespace dlsim
