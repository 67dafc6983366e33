// SM-wave quantisation: a GEMM-like kernel covers its output with 128x128
// tiles, one thread block each, run in waves of one block per SM; the last
// wave may leave SMs idle.
#ifndef DLSIM_SRC_KERNEL_TILES_H_
#define DLSIM_SRC_KERNEL_TILES_H_

#include <cstdint>

#include "dlsim/kernel/kernel_call.h"

namespace dlsim {

// Output tile edge assumed for GEMM and implicit-GEMM convolution kernels.
inline constexpr int64_t kWaveTileEdge = 128;

// ceil(m / 128) * ceil(n / 128): the tiles of an m x n output.
int64_t GemmTiles(double m, double n);

// ceil(tiles / sm_count): the waves the tiles run in (0 when tiles <= 0,
// 1 when sm_count <= 0).
int64_t Waves(int64_t tiles, int64_t sm_count);

// tiles / (waves * sm_count): the fraction of SM slots the last-wave-padded
// launch keeps busy. 1 when tiles <= 0 (kinds without a GEMM view) or
// sm_count <= 0.
double WaveEfficiency(int64_t tiles, int64_t sm_count);

// The roofline's view of a call: its whole output as one M x N matrix, in
// tiles. Convolutions (all three passes): output pixels x output channels;
// GEMM: m x n; batched GEMM: batch*m x n; attention: batch*heads*seq_q x
// head_dim. 0 for other kinds. Absent parameters count as 1. (WorkOfKey's
// `tiles` differ: per pass and per group or batch entry, as the fitted
// models' features.)
int64_t CallOutputTiles(const KernelCall& call);

// A row-parallel reduction pass's view: the thread blocks it launches, one
// per row, and the bytes it reads. PyTorch's group norm reduces each
// (sample, group) in one block in its forward and each (sample, channel) in
// its backward, reading x once; with fewer rows than SMs, the idle SMs'
// share of the bandwidth goes unused. {0, 0} for other kinds.
struct RowPass {
  int64_t blocks = 0;
  double bytes = 0;
};
RowPass CallRowPass(const KernelCall& call);

}  // namespace dlsim

#endif  // DLSIM_SRC_KERNEL_TILES_H_
