// PyTorch's default optimizer path on CUDA (foreach), as it runs (private to
// src/ops). torch.optim.SGD with momentum calls _foreach_mul_(bufs, momentum),
// _foreach_add_(bufs, grads) and _foreach_add_(params, bufs, alpha=-lr);
// without momentum only the last. Each foreach op is a multi_tensor_apply
// kernel launched over chunks of 65,536 elements of the tensor lists, at most
// 320 chunks and 110 (one list) or 64 (two lists) tensors a launch.
#ifndef DLSIM_SRC_OPS_FOREACH_OPTIMIZER_H_
#define DLSIM_SRC_OPS_FOREACH_OPTIMIZER_H_

#include <cstdint>
#include <vector>

#include "dlsim/kernel/kernel_call.h"

namespace dlsim {

// The chunks of 65,536 elements multi_tensor_apply cuts `tensor_count`
// tensors of `param_count` elements into: without the tensors' sizes, the
// full chunks plus half a chunk per tensor (its last, partial one), and at
// least one a tensor.
int64_t ForeachChunks(int64_t param_count, int64_t tensor_count);

// The launches of one foreach op over `lists` tensor lists (1 or 2).
int64_t ForeachLaunches(int64_t param_count, int64_t tensor_count, int lists);

// The kernels of one foreach SGD step (with or without momentum).
std::vector<KernelCall> ForeachSgdCalls(bool momentum, int64_t param_count,
                                        int64_t tensor_count);

}  // namespace dlsim

#endif  // DLSIM_SRC_OPS_FOREACH_OPTIMIZER_H_
