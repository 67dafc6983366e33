// The eager estimate's band: by whether the host was calibrated on the
// machine, and by mode; none when no host is modelled.
#include "estimate/eager_band.h"

#include <gtest/gtest.h>

namespace dlsim {
namespace {

HostSpec Host(bool calibrated) {
  HostSpec h;
  h.dispatch_s = 20e-6;
  h.calibrated = calibrated;
  return h;
}

TEST(EagerBand, ACalibratedHostsBandIsItsCorpusSpread) {
  EXPECT_DOUBLE_EQ(EagerBand(Host(true), Mode::kInference).p10, 0.689);
  EXPECT_DOUBLE_EQ(EagerBand(Host(true), Mode::kInference).p90, 1.713);
  EXPECT_DOUBLE_EQ(EagerBand(Host(true), Mode::kTraining).p10, 0.976);
  EXPECT_DOUBLE_EQ(EagerBand(Host(true), Mode::kTraining).p90, 1.847);
}

TEST(EagerBand, AnotherHostsCostsHaveTheirOwnSpread) {
  EXPECT_DOUBLE_EQ(EagerBand(Host(false), Mode::kInference).p10, 0.787);
  EXPECT_DOUBLE_EQ(EagerBand(Host(false), Mode::kInference).p90, 1.774);
  EXPECT_DOUBLE_EQ(EagerBand(Host(false), Mode::kTraining).p10, 0.665);
  EXPECT_DOUBLE_EQ(EagerBand(Host(false), Mode::kTraining).p90, 1.336);
}

TEST(EagerBand, NoHostCostsNoBand) {
  HostSpec none;
  EXPECT_DOUBLE_EQ(EagerBand(none, Mode::kInference).p10, 1);
  EXPECT_DOUBLE_EQ(EagerBand(none, Mode::kInference).p90, 1);
  none.dispatch_s_by_kind["gemm"] = 1e-5;  // one kind's cost is a host
  EXPECT_DOUBLE_EQ(EagerBand(none, Mode::kInference).p90, 1.774);
}

}  // namespace
}  // namespace dlsim
