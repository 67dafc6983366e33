// What a GPU sustains of its FP32 peak in large GEMMs (achievable.h) and the
// machine-file fields that set it.
#include "dlsim/machine/achievable.h"

#include <gtest/gtest.h>

#include "dlsim/machine/machine_io.h"

namespace dlsim {
namespace {

DeviceSpec Gpu(int sms, double boost_mhz, double fp32_tflops) {
  DeviceSpec d;
  d.sm_count = sms;
  d.boost_clock_mhz = boost_mhz;
  d.peak_flops.fp32_vector = fp32_tflops * 1e12;
  d.peak_flops.fp16_matrix = 100e12;
  return d;
}

TEST(Achievable, LanesPerSmComeFromTheFileElseFromThePeak) {
  DeviceSpec h100 = Gpu(132, 1980, 67);  // 67e12 / (2 x 132 x 1.98e9) = 128.2
  EXPECT_EQ(Fp32LanesPerSm(h100).value, 128);
  EXPECT_EQ(Fp32LanesPerSm(h100).source, "derived: FP32 peak / (2 x SMs x boost clock)");
  DeviceSpec a100 = Gpu(108, 1410, 19.5);  // 64.0
  EXPECT_EQ(Fp32LanesPerSm(a100).value, 64);
  a100.fp32_lanes_per_sm = 32;
  EXPECT_EQ(Fp32LanesPerSm(a100).value, 32);
  EXPECT_EQ(Fp32LanesPerSm(a100).source, "machine file");
  DeviceSpec no_clock = Gpu(108, 0, 19.5);
  EXPECT_EQ(Fp32LanesPerSm(no_clock).value, 0);
  EXPECT_EQ(Fp32LanesPerSm(no_clock).source, "unknown");
}

TEST(Achievable, GemmShareByLanesPerSmUnlessTheFileGivesOne) {
  EXPECT_EQ(Fp32GemmShare(Gpu(108, 1410, 19.5)).value, 0.818);
  EXPECT_EQ(Fp32GemmShare(Gpu(108, 1410, 19.5)).source, "rule: 64 FP32 lanes per SM");
  EXPECT_EQ(Fp32GemmShare(Gpu(132, 1980, 67)).value, 0.671);
  EXPECT_EQ(Fp32GemmShare(Gpu(132, 1980, 67)).source, "rule: over 64 FP32 lanes per SM");
  EXPECT_EQ(Fp32GemmShare(Gpu(108, 0, 19.5)).value, 0.671);
  EXPECT_EQ(Fp32GemmShare(Gpu(108, 0, 19.5)).source, "rule: lanes per SM unknown, as the H100");
  DeviceSpec given = Gpu(108, 1410, 19.5);
  given.fp32_gemm_share = 0.5;
  EXPECT_EQ(Fp32GemmShare(given).value, 0.5);
  EXPECT_EQ(Fp32GemmShare(given).source, "machine file");
}

TEST(Achievable, PeaksRunAtTheSustainedClockAndFp32AtItsRelativeShare) {
  DeviceSpec t4 = Gpu(40, 1600, 8);  // 62.5 lanes: 64
  t4.sustained_clock_mhz = 800;
  EXPECT_EQ(ClockFactor(t4), 0.5);
  const DeviceSpec a = AchievableDevice(t4);
  EXPECT_DOUBLE_EQ(a.peak_flops.fp32_vector, 8e12 * 0.5 * 0.818 / 0.671);
  EXPECT_DOUBLE_EQ(a.peak_flops.fp16_matrix, 50e12);
  EXPECT_DOUBLE_EQ(Fp32GemmFlops(t4), 8e12 * 0.5 * 0.818);
  // A 128-lane GPU at its boost clock keeps its peaks (the H100 and the H200).
  const DeviceSpec h100 = Gpu(132, 1980, 67);
  EXPECT_EQ(ClockFactor(h100), 1.0);
  EXPECT_DOUBLE_EQ(AchievableDevice(h100).peak_flops.fp32_vector, 67e12);
  EXPECT_DOUBLE_EQ(AchievableDevice(h100).peak_flops.fp16_matrix, 100e12);
}

const std::string kMachine = R"(name: x
device:
  name: Test GPU
  sm_count: 10
  boost_clock_mhz: 1500
  sustained_clock_mhz: 900
  fp32_lanes_per_sm: 64
  fp32_gemm_share: 0.8
  peak_tflops: {fp32_vector: 1.92}
  memory_gib: 16
  memory_bw_gbs: 500
  l2_mib: 4
)";

std::string Replaced(const std::string& from, const std::string& to) {
  std::string text = kMachine;
  text.replace(text.find(from), from.size(), to);
  return text;
}

TEST(Achievable, MachineFileFields) {
  auto m = LoadMachineFromString(kMachine, "machines/x.yaml");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->device.sustained_clock_mhz, 900);
  EXPECT_EQ(m->device.fp32_lanes_per_sm, 64);
  EXPECT_EQ(m->device.fp32_gemm_share, 0.8);
  auto bad = LoadMachineFromString(Replaced("fp32_gemm_share: 0.8", "fp32_gemm_share: 1.5"), "machines/x.yaml");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "machines/x.yaml: device.fp32_gemm_share: must be a fraction in (0, 1], got '1.5'");
  bad = LoadMachineFromString(Replaced("fp32_lanes_per_sm: 64", "fp32_lanes_per_sm: 2048"), "machines/x.yaml");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "machines/x.yaml: device.fp32_lanes_per_sm: absurd value 2048 (the limit is 1024)");
  bad = LoadMachineFromString(Replaced("fp32_lanes_per_sm: 64", "fp32_lanes_per_sm: 64.5"), "machines/x.yaml");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "machines/x.yaml: device.fp32_lanes_per_sm: must be a positive integer, got '64.5'");
}

}  // namespace
}  // namespace dlsim
