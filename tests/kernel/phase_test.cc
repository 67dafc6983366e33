#include "dlsim/kernel/phase.h"

#include <gtest/gtest.h>

namespace dlsim {
namespace {

TEST(PhaseTest, Names) {
  EXPECT_STREQ(PhaseName(Phase::kForward), "fwd");
  EXPECT_STREQ(PhaseName(Phase::kBackward), "bwd");
  EXPECT_STREQ(PhaseName(Phase::kOptimizer), "optim");
}

}  // namespace
}  // namespace dlsim
