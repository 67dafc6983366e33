// The row kernels of softmax and the normalisations (lower_normalization.cc),
// shared with attention's unfused chain (lower_attention.cc). Private to
// src/ops.
#ifndef DLSIM_SRC_OPS_ROW_CALL_H_
#define DLSIM_SRC_OPS_ROW_CALL_H_

#include <cstdint>

#include "dlsim/ops/op_registry.h"

namespace dlsim {

// Softmax's library call.
inline constexpr const char* kSoftmaxLibraryCall = "cudnnSoftmaxForward";

// A call of `kind` over `rows` independent rows of `cols` elements each
// (key params rows, cols; fp32 math); the caller sets bytes (FLOPs are the
// key's Work, set by LowerGraph).
KernelCall RowCall(const LowerContext& ctx, KernelKind kind, const char* library_call, int64_t rows,
                   int64_t cols);

}  // namespace dlsim

#endif  // DLSIM_SRC_OPS_ROW_CALL_H_
