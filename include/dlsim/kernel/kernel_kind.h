// The kinds of library call a kernel key names (docs/kernel-keys.md), and
// the math modes a call may use. Everything that builds, prices, measures
// or compares kernel calls takes these from here.
#ifndef DLSIM_KERNEL_KERNEL_KIND_H_
#define DLSIM_KERNEL_KERNEL_KIND_H_

#include <string>
#include <vector>

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
  kGroupNormFwd,  // PyTorch group_norm: statistics per (n, group), then the affine
  kGroupNormBwd,
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

// Every kind, in the order above (docs/kernel-keys.md's table order).
const std::vector<KernelKind>& AllKernelKinds();

// "conv_fwd", "gemm", ...; stable strings used in keys and the database.
const char* KernelKindName(KernelKind kind);
Result<KernelKind> KernelKindFromName(const std::string& name);

// Kinds that run on matrix units when the math allows (convolutions, GEMMs,
// RNNs, fused attention): their fitted model has a FLOP term and their
// roofline a wave-quantised matrix peak. The others are memory-bound.
bool IsComputeKind(KernelKind kind);
// rnn_fwd, rnn_bwd_data, rnn_bwd_weights.
bool IsRnnKind(KernelKind kind);

// Which arithmetic units a call uses.
enum class MathMode { kFp32, kTf32, kFp16, kBf16 };
const char* MathModeName(MathMode mode);
Result<MathMode> MathModeFromName(const std::string& name);

}  // namespace dlsim

#endif  // DLSIM_KERNEL_KERNEL_KIND_H_
