#include "key_params.h"

#include <map>

namespace dlsim {
namespace {

bool IsInteger(const std::string& s) {
  int64_t ignored = 0;
  return ParseKeyInt(s, &ignored);
}

using Names = std::vector<std::string>;

const std::map<KernelKind, Names>& RequiredTable() {
  static const Names conv = {"n", "c", "h", "w", "k", "r", "s", "pad_h", "pad_w",
                             "stride_h", "stride_w", "dil_h", "dil_w", "groups"};
  static const Names pool = {"n", "c", "h", "w", "r", "s", "pad_h", "pad_w", "stride_h", "stride_w"};
  static const Names nchw = {"n", "c", "h", "w"};
  static const Names rows_cols = {"rows", "cols"};
  static const Names group_norm = {"n", "c", "groups", "hw"};
  static const Names rnn = {"seq", "batch", "input", "hidden", "layers", "dirs"};
  static const Names attention = {"batch", "heads", "seq_q", "seq_k", "head_dim", "mask"};
  using K = KernelKind;
  static const std::map<KernelKind, Names> table = {
      {K::kConvFwd, conv},
      {K::kConvBiasAct, conv},
      {K::kConvBwdData, conv},
      {K::kConvBwdFilter, conv},
      {K::kGemm, {"m", "n", "k", "trans_a", "trans_b"}},
      {K::kBatchedGemm, {"batch", "m", "n", "k", "trans_a", "trans_b"}},
      {K::kBatchNormInfer, nchw},
      {K::kBatchNormTrainFwd, nchw},
      {K::kBatchNormBwd, nchw},
      {K::kPoolFwd, pool},
      {K::kPoolBwd, pool},
      {K::kSoftmaxFwd, rows_cols},
      {K::kSoftmaxBwd, rows_cols},
      {K::kLayerNormFwd, rows_cols},
      {K::kLayerNormBwd, rows_cols},
      {K::kGroupNormFwd, group_norm},
      {K::kGroupNormBwd, group_norm},
      {K::kLrnFwd, {"n", "c", "h", "w", "size"}},
      {K::kRnnFwd, rnn},
      {K::kRnnBwdData, rnn},
      {K::kRnnBwdWeights, rnn},
      {K::kAttentionFwd, attention},
      {K::kAttentionBwd, attention},
      {K::kElementwise, {"elems", "arity"}},
      {K::kReduction, rows_cols},
      {K::kCopy, {"elems"}},
      {K::kOptimizer, {"params", "fused"}},
  };
  return table;
}

}  // namespace

const std::vector<std::string>& RequiredIntParams(KernelKind kind) {
  const auto& table = RequiredTable();
  auto it = table.find(kind);
  DLSIM_CHECK(it != table.end());
  return it->second;
}

Status CheckRequiredParams(const ParsedKey& key) {
  const KeyParams p(key);
  for (const auto& name : RequiredIntParams(key.kind)) {
    if (!IsInteger(p.Str(name))) {
      return InvalidArgument(p.Where() + ": parameter '" + name +
                             "' is missing or not an integer");
    }
  }
  return Status::Ok();
}

Result<int64_t> KeyParams::Int(const std::string& name, bool allow_zero) const {
  for (const auto& [n, v] : key_.params) {
    if (n != name) continue;
    int64_t value = 0;
    if (!ParseKeyInt(v, &value) || value < 0 || (value == 0 && !allow_zero)) {
      return InvalidArgument(Where() + ": parameter " + name + "=" + v +
                             " is not a positive integer");
    }
    return value;
  }
  return InvalidArgument(Where() + ": missing parameter '" + name + "'");
}

std::string KeyParams::Str(const std::string& name) const {
  for (const auto& [n, v] : key_.params) {
    if (n == name) return v;
  }
  return "";
}

std::string KeyParams::Where() const {
  return "kernel key '" + FormatKernelKey(key_) + "'";
}

}  // namespace dlsim
