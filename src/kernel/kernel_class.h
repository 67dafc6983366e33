// What a measured kernel is, judged from its name alone: the class of work
// (convolution, GEMM, batch norm, ...) and a short name for people. The
// aligner uses the class to decide which of the lowering's calls a kernel
// can belong to (docs/compare.md lists the name patterns).
#ifndef DLSIM_SRC_KERNEL_KERNEL_CLASS_H_
#define DLSIM_SRC_KERNEL_KERNEL_CLASS_H_

#include <string>

#include "dlsim/kernel/kernel_kind.h"

namespace dlsim {

enum class KernelClass {
  kConv,         // cuDNN/CUTLASS convolution (fprop, dgrad, wgrad, implicit GEMM)
  kLayout,       // cuDNN's NCHW<->NHWC conversions inside a convolution call
  kGemm,         // cuBLAS/cuBLASLt/CUTLASS GEMM
  kGemmAux,      // split-K reductions and other GEMM epilogue kernels
  kAttention,    // fused attention (flash, SDPA, FMHA): two GEMMs and a softmax
  kBatchNorm,
  kLayerNorm,
  kSoftmax,
  kPool,
  kReduction,
  kRnn,
  kCopy,         // copies, gathers, scatters, concatenation, padding, transposes
  kElementwise,  // pointwise math, activations, casts
  kOptimizer,    // multi-tensor optimizer updates
  kOther,        // unrecognised
};

const char* KernelClassName(KernelClass c);  // "conv", "layout", "gemm", ...

KernelClass ClassifyKernel(const std::string& kernel_name);

// Whether a kernel of class `c` can be one of the kernels a call of `kind`
// launches (a cuDNN convolution launches layout conversions, a cuBLAS GEMM
// a split-K reduction, a framework softmax a reduction, ...).
bool ClassCanImplement(KernelClass c, KernelKind kind);

// Whether a kernel of class `c` can be a further kernel of a call of `kind`
// that already has one: a convolution's layout conversions, a GEMM's split-K
// reduction, an RNN's per-step kernels, a batch norm's second pass. A GEMM
// call launches one GEMM kernel and a pointwise or copy call one kernel, so
// a second one belongs to another call.
bool ClassCanExtend(KernelClass c, KernelKind kind);

// "cudnn::bn_fw_inf_1C11_kernel_NCHW", "vectorized_elementwise_kernel[CUDAFunctor_add]":
// the name without return type, parameters and most template arguments.
std::string ShortKernelName(const std::string& kernel_name);

}  // namespace dlsim

#endif  // DLSIM_SRC_KERNEL_KERNEL_CLASS_H_
