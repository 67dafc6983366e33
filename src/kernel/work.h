// The work a kernel key describes: FLOPs, bytes moved and, for GEMM-like
// calls, the output-tile count that decides SM-wave quantisation (tiles.h).
// Computed from the key's parameters alone (docs/kernel-keys.md); the
// features of the fitted models (docs/perfdb.md, "Fitted models").
#ifndef DLSIM_SRC_KERNEL_WORK_H_
#define DLSIM_SRC_KERNEL_WORK_H_

#include <cstdint>
#include <string>

#include "dlsim/kernel/kernel_call.h"
#include "dlsim/kernel/key.h"
#include "dlsim/util/status.h"
#include "tiles.h"

namespace dlsim {

struct KeyWork {
  double flops = 0;  // floating-point operations (a multiply-add is 2)
  double bytes = 0;  // compulsory DRAM traffic: inputs read + outputs written
  // GEMM view used for wave quantisation; tiles == 0 for other kinds.
  double gemm_m = 0;
  double gemm_n = 0;
  int64_t tiles = 0;  // ceil(M/128) * ceil(N/128) * (batch or groups)
};

// Errors: a parameter the kind needs is missing or not a positive integer,
// an unknown dtype, or a shape whose output is empty (names the key).
Result<KeyWork> WorkOfKey(const ParsedKey& key);

// The FLOPs of a call: WorkOfKey(KeyOf(call)).flops, or 0 when its key has
// no Work (a parameter 0: an empty tensor). The lowering sets every call's
// FLOPs with it.
double CallFlops(const KernelCall& call);

// Output size of a convolution or pooling window along one axis:
// (in + 2 pad - (dilation (filter - 1) + 1)) / stride + 1, the cuDNN and
// PyTorch formula (floor mode). 0 when the window is larger than the padded
// input or stride <= 0.
int64_t ConvOutputSize(int64_t in, int64_t filter, int64_t pad, int64_t stride, int64_t dilation);

// Bytes per element of a key's dtype ("fp32" 4, "fp16"/"bf16" 2, "fp64" 8).
Result<int64_t> DTypeSizeOfName(const std::string& dtype);

// Gates per cell of an RNN key's `cell`: lstm 4, gru 3, rnn_tanh/rnn_relu 1.
int RnnGates(const std::string& cell);

}  // namespace dlsim

#endif  // DLSIM_SRC_KERNEL_WORK_H_
