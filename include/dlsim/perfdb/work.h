// The work a kernel key describes: FLOPs, bytes moved and, for GEMM-like
// calls, the output-tile count that decides SM-wave quantisation. Computed
// from the key's parameters alone (docs/kernel-keys.md), the features of the
// fitted models (docs/perfdb.md, "Fitted models").
#ifndef DLSIM_PERFDB_WORK_H_
#define DLSIM_PERFDB_WORK_H_

#include <cstdint>

#include "dlsim/ops/kernel_call.h"
#include "dlsim/util/status.h"

namespace dlsim {

// Output tile edge assumed for GEMM and implicit-GEMM convolution kernels.
inline constexpr int64_t kWaveTileEdge = 128;

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

// tiles / (waves * sm_count) with waves = ceil(tiles / sm_count): the
// fraction of SM slots the last-wave-padded launch keeps busy. 1 when
// tiles == 0 (kinds without a GEMM view) or sm_count <= 0.
double WaveEfficiency(int64_t tiles, int64_t sm_count);

// Bytes per element of a key's dtype ("fp32" 4, "fp16"/"bf16" 2).
Result<int64_t> DTypeSizeOfName(const std::string& dtype);

// Kinds whose fitted model has a FLOP term (convolutions, GEMMs, RNNs);
// the others are modelled as memory-bound.
bool IsComputeKind(KernelKind kind);

}  // namespace dlsim

#endif  // DLSIM_PERFDB_WORK_H_
