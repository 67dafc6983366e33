#include "dlsim/util/optimizer.h"

#include <gtest/gtest.h>

namespace dlsim {
namespace {

TEST(OptimizerTest, NamesRoundTrip) {
  for (Optimizer o : {Optimizer::kSgd, Optimizer::kSgdMomentum, Optimizer::kAdam, Optimizer::kAdamW}) {
    EXPECT_EQ(OptimizerFromName(OptimizerName(o)), o) << OptimizerName(o);
  }
  EXPECT_STREQ(OptimizerName(Optimizer::kSgdMomentum), "sgd_momentum");
  EXPECT_STREQ(OptimizerName(Optimizer::kAdamW), "adamw");
}

TEST(OptimizerTest, OtherTextIsNoOptimizer) {
  EXPECT_EQ(OptimizerFromName("lamb"), std::nullopt);
  EXPECT_EQ(OptimizerFromName("Adam"), std::nullopt);
  EXPECT_EQ(OptimizerFromName(""), std::nullopt);
}

TEST(OptimizerTest, StatesPerParameter) {
  EXPECT_EQ(OptimizerStates(Optimizer::kSgd), 0);
  EXPECT_EQ(OptimizerStates(Optimizer::kSgdMomentum), 1);
  EXPECT_EQ(OptimizerStates(Optimizer::kAdam), 2);
  EXPECT_EQ(OptimizerStates(Optimizer::kAdamW), 2);
}

}  // namespace
}  // namespace dlsim
