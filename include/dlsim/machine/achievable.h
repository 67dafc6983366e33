// What a GPU achieves of its datasheet FP32 peak in large GEMMs: its SM
// architecture's share (by FP32 lanes per SM) at its sustained clock. Fitted
// on NeuSight's public per-kernel tables of eight GPUs
// (bench/generations/fit_kernels.py; docs/accuracy-generations.md).
#ifndef DLSIM_MACHINE_ACHIEVABLE_H_
#define DLSIM_MACHINE_ACHIEVABLE_H_

#include <string>

#include "dlsim/machine/machine.h"

namespace dlsim {

// Share of the FP32 peak that large FP32 GEMMs reach, by FP32 lanes per SM:
// the H100 (128 lanes) 0.671 (NeuSight's tables, median over 2,790 GEMMs of
// 10 GFLOP or more); 64-lane SMs (A100, V100, P100) 1.219 times that, the
// rate at which dlsim's predicted slowdown against the H100 matches the
// measured one on the same compute-bound GEMMs of both tables, shape by shape
// (bench/generations/fit_kernels.py).
inline constexpr double kFp32GemmShare128Lanes = 0.671;
inline constexpr double kFp32GemmShare64Lanes = 0.818;

// A figure and where it came from ("machine file", "rule: ...").
struct SourcedFigure {
  double value = 0;
  std::string source;
};

// FP32 lanes per SM: the file's figure, else the FP32 peak over
// 2 x SMs x boost clock rounded to a multiple of 32, else 0 (unknown).
SourcedFigure Fp32LanesPerSm(const DeviceSpec& device);

// The achievable share of the FP32 peak in large GEMMs at the sustained clock:
// the file's fp32_gemm_share, else by lanes per SM (64 or fewer: the 64-lane
// share; more, or unknown: the 128-lane share).
SourcedFigure Fp32GemmShare(const DeviceSpec& device);

// Sustained over boost clock (1 when either is not given).
double ClockFactor(const DeviceSpec& device);

// `device` with the peaks it sustains, for comparing two GPUs (ScaleCost):
// every peak at the sustained clock, and the FP32 vector peak (FP32 GEMMs
// without tensor cores) also at its GEMM share relative to the 128-lane one
// (the roofline's vector efficiency stands for the H100's). A device with no
// sustained clock and 128 lanes per SM or an unknown count keeps its peaks.
DeviceSpec AchievableDevice(const DeviceSpec& device);

// FP32 GEMM FLOP/s the device sustains: FP32 peak x clock factor x GEMM share.
double Fp32GemmFlops(const DeviceSpec& device);

}  // namespace dlsim

#endif  // DLSIM_MACHINE_ACHIEVABLE_H_
