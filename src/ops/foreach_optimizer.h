// PyTorch's default optimizer path on CUDA (foreach), as it runs (private to
// src/ops). torch.optim.SGD with momentum calls _foreach_mul_(bufs, momentum),
// _foreach_add_(bufs, grads) and _foreach_add_(params, bufs, alpha=-lr);
// without momentum only the last. Each foreach op is a multi_tensor_apply
// kernel launched over chunks of 65,536 elements of the tensor lists, at most
// 320 chunks and 110 (one list) or 64 (two lists) tensors a launch. A block
// walks its chunk in passes of 512 threads x 4 elements; the key's `chunk`
// is the most elements one block walks (the largest tensor's, at most a
// chunk), which bounds a launch over small tensors (roofline.h).
#ifndef DLSIM_SRC_OPS_FOREACH_OPTIMIZER_H_
#define DLSIM_SRC_OPS_FOREACH_OPTIMIZER_H_

#include <cstdint>
#include <vector>

#include "dlsim/kernel/kernel_call.h"
#include "dlsim/ops/lowering.h"

namespace dlsim {

// The chunks of 65,536 elements multi_tensor_apply cuts `tensor_count`
// tensors of `param_count` elements into: without the tensors' sizes, the
// full chunks plus half a chunk per tensor (its last, partial one), and at
// least one a tensor.
int64_t ForeachChunks(int64_t param_count, int64_t tensor_count);

// The launches of one foreach op over `lists` tensor lists (1 or 2).
int64_t ForeachLaunches(int64_t param_count, int64_t tensor_count, int lists);

// The elements the largest block of a launch walks: a chunk, or the largest
// tensor when it is smaller; 0 when the largest tensor is not known.
int64_t ForeachChunkElements(int64_t largest_tensor_elements);

// The kernels of one foreach SGD step (with or without momentum).
std::vector<KernelCall> ForeachSgdCalls(bool momentum, const ParameterTensors& params);

}  // namespace dlsim

#endif  // DLSIM_SRC_OPS_FOREACH_OPTIMIZER_H_
