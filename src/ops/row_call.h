// The row kernels of softmax and the normalisations (lower_normalization.cc),
// shared with attention's unfused chain (lower_attention.cc), the framework
// fusions (framework_fusion.cc) and folded batch norms (lower_conv.cc).
// Private to src/ops.
#ifndef DLSIM_SRC_OPS_ROW_CALL_H_
#define DLSIM_SRC_OPS_ROW_CALL_H_

#include <cstdint>

#include "op_registry.h"

namespace dlsim {

// Softmax's library call.
inline constexpr const char* kSoftmaxLibraryCall = "cudnnSoftmaxForward";

// A call of `kind` over `rows` independent rows of `cols` elements each
// (key params rows, cols; fp32 math); the caller sets bytes (FLOPs are the
// key's Work, set by LowerGraph).
KernelCall RowCall(const LowerContext& ctx, KernelKind kind, const char* library_call, int64_t rows,
                   int64_t cols);

// PyTorch's group_norm of `x_name` [n, c, spatial...] in `groups` groups
// (key params n, c, groups, hw) and its backward when training; `affine`:
// with its per-channel weight and bias. For GroupNormalization and the
// exported GroupNorm the framework fusion finds (framework_fusion.cc).
Status GroupNormCalls(const LowerContext& ctx, const std::string& x_name, int64_t groups,
                      bool affine, std::vector<KernelCall>* calls);

// PyTorch's batch norm of `x_name` [n, c, spatial...] (key params n, c, h, w):
// the inference kernel, or when training the step counter's one-element add,
// the training forward and the backward. For BatchNormalization and the
// batch norm an exporter folded into a convolution (lower_conv.cc).
Status BatchNormCalls(const LowerContext& ctx, const std::string& x_name, std::vector<KernelCall>* calls);

}  // namespace dlsim

#endif  // DLSIM_SRC_OPS_ROW_CALL_H_
