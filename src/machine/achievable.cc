#include "dlsim/machine/achievable.h"

#include <cmath>

namespace dlsim {

SourcedFigure Fp32LanesPerSm(const DeviceSpec& d) {
  if (d.fp32_lanes_per_sm > 0) return {static_cast<double>(d.fp32_lanes_per_sm), "machine file"};
  if (d.sm_count <= 0 || d.boost_clock_mhz <= 0 || d.peak_flops.fp32_vector <= 0) return {0, "unknown"};
  const double lanes = d.peak_flops.fp32_vector / (2.0 * d.sm_count * d.boost_clock_mhz * 1e6);
  const double rounded = 32.0 * std::round(lanes / 32.0);
  if (rounded <= 0) return {0, "unknown"};
  return {rounded, "derived: FP32 peak / (2 x SMs x boost clock)"};
}

SourcedFigure Fp32GemmShare(const DeviceSpec& d) {
  if (d.fp32_gemm_share > 0) return {d.fp32_gemm_share, "machine file"};
  const double lanes = Fp32LanesPerSm(d).value;
  if (lanes > 0 && lanes <= 64) return {kFp32GemmShare64Lanes, "rule: 64 FP32 lanes per SM"};
  if (lanes > 64) return {kFp32GemmShare128Lanes, "rule: over 64 FP32 lanes per SM"};
  return {kFp32GemmShare128Lanes, "rule: lanes per SM unknown, as the H100"};
}

double ClockFactor(const DeviceSpec& d) {
  if (d.sustained_clock_mhz <= 0 || d.boost_clock_mhz <= 0) return 1.0;
  return d.sustained_clock_mhz / d.boost_clock_mhz;
}

DeviceSpec AchievableDevice(const DeviceSpec& device) {
  DeviceSpec out = device;
  const double clock = ClockFactor(device);
  PeakFlops& p = out.peak_flops;
  for (double* peak : {&p.fp64_vector, &p.fp64_matrix, &p.fp32_vector, &p.fp16_vector,
                       &p.bf16_vector, &p.tf32_matrix, &p.fp16_matrix, &p.bf16_matrix,
                       &p.fp8_matrix}) {
    *peak *= clock;
  }
  p.fp32_vector *= Fp32GemmShare(device).value / kFp32GemmShare128Lanes;
  return out;
}

double Fp32GemmFlops(const DeviceSpec& device) {
  return device.peak_flops.fp32_vector * ClockFactor(device) * Fp32GemmShare(device).value;
}

}  // namespace dlsim
