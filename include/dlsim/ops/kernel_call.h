// A kernel call: one library call a framework makes for a node (Benanza's
// layer -> cuDNN/cuBLAS mapping), with its work and its database key.
//
// The key is the contract between `dlsim plan`, dlsim-calibrate and the
// performance database. Its text form is
//   "<kind> k1=v1 k2=v2 ... dtype=<d> math=<m> layout=<l>"
// with the parameters in the fixed order the lowering writes them (see
// docs/kernel-keys.md for every kind's parameters).
#ifndef DLSIM_OPS_KERNEL_CALL_H_
#define DLSIM_OPS_KERNEL_CALL_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "dlsim/model/graph.h"
#include "dlsim/util/status.h"

namespace dlsim {

enum class KernelKind {
  kConvFwd,        // cudnnConvolutionForward (+ separate bias add call)
  kConvBiasAct,    // cudnnConvolutionBiasActivationForward
  kConvBwdData,    // cudnnConvolutionBackwardData
  kConvBwdFilter,  // cudnnConvolutionBackwardFilter
  kGemm,           // cublasGemmEx
  kBatchedGemm,    // cublasGemmStridedBatchedEx
  kBatchNormInfer,
  kBatchNormTrainFwd,
  kBatchNormBwd,
  kPoolFwd,
  kPoolBwd,
  kSoftmaxFwd,
  kSoftmaxBwd,
  kLayerNormFwd,
  kLayerNormBwd,
  kLrnFwd,
  kRnnFwd,
  kRnnBwdData,
  kRnnBwdWeights,
  kAttentionFwd,  // fused scaled-dot-product attention (flash / memory-efficient)
  kAttentionBwd,  // its backward (dQ, dK, dV)
  kElementwise,  // memory-bound pointwise (also activations, casts, bias add)
  kReduction,    // memory-bound reductions (ReduceMean, global pooling, loss)
  kCopy,         // data movement: transpose, concat, slice, gather, pad, expand
  kOptimizer,    // optimizer update over parameters
};

// "conv_fwd", "gemm", ...; stable strings used in keys and the database.
const char* KernelKindName(KernelKind kind);
Result<KernelKind> KernelKindFromName(const std::string& name);

// Which arithmetic units a call uses.
enum class MathMode { kFp32, kTf32, kFp16, kBf16 };
const char* MathModeName(MathMode mode);
Result<MathMode> MathModeFromName(const std::string& name);

struct KernelCall {
  KernelKind kind = KernelKind::kElementwise;
  std::string library_call;  // e.g. "cudnnConvolutionForward"
  std::string phase = "fwd";  // "fwd", "bwd", "optim"
  double flops = 0;
  double bytes_read = 0;
  double bytes_written = 0;
  DType dtype = DType::kFloat32;
  MathMode math = MathMode::kFp32;
  std::string layout = "-";  // "nchw", "nhwc" or "-"
  // Parameters in key order; numeric ones hold decimal integers.
  std::vector<std::pair<std::string, std::string>> params;

  // Bytes of this call's input that the kernel issued just before it wrote
  // (set by the estimator's plan, 0 = none): read from L2 rather than device
  // memory when they fit there. Not part of the key.
  double resident_input_bytes = 0;

  double bytes() const { return bytes_read + bytes_written; }
  // The database key (text form above).
  std::string Key() const;
  // Parameter lookup; `fallback` when absent or not an integer.
  int64_t IntParam(const std::string& name, int64_t fallback) const;
  std::string StrParam(const std::string& name, const std::string& fallback) const;
  void AddParam(const std::string& name, int64_t value);
  void AddParam(const std::string& name, const std::string& value);
};

// Parsed form of a key: kind, params, dtype/math/layout. Used by the
// database and by tools reading job lists.
struct ParsedKey {
  KernelKind kind;
  std::vector<std::pair<std::string, std::string>> params;
  std::string dtype;
  std::string math;
  std::string layout;
};
Result<ParsedKey> ParseKernelKey(const std::string& key);

}  // namespace dlsim

#endif  // DLSIM_OPS_KERNEL_CALL_H_
