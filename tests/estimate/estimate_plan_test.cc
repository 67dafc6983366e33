// The estimator's plan: which calls read a tensor the kernel just before
// them wrote (KernelCall::resident_input_bytes).
#include <gtest/gtest.h>

#include "../ops/graph_builder.h"
#include "dlsim/estimate/estimator.h"

namespace dlsim {
namespace {

using testing::GraphBuilder;

TEST(EstimatePlan, ForwardReadsOfThePreviousKernelsOutput) {
  GraphBuilder b;
  b.Input("x", {8, 16, 32, 32});
  b.Op("Relu", "r1", {"x"}, "a", {8, 16, 32, 32});
  b.Op("Sigmoid", "s", {"a"}, "y", {8, 16, 32, 32});
  b.Op("Add", "add", {"y", "x"}, "z", {8, 16, 32, 32});
  EstimateOptions o;
  auto plan = PlanEstimate(b.Build({"z"}), o);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  const double tensor = 8.0 * 16 * 32 * 32 * 4;
  EXPECT_EQ(plan->lowered.nodes[0].calls[0].resident_input_bytes, 0);       // x comes from the host
  EXPECT_EQ(plan->lowered.nodes[1].calls[0].resident_input_bytes, tensor);  // a, just written
  EXPECT_EQ(plan->lowered.nodes[2].calls[0].resident_input_bytes, tensor);  // y yes, x no
}

TEST(EstimatePlan, BackwardReadsOfTheGradientJustWritten) {
  GraphBuilder b;
  b.Input("x", {8, 16, 32, 32});
  b.Op("Relu", "r1", {"x"}, "a", {8, 16, 32, 32});
  b.Op("Sigmoid", "s", {"a"}, "y", {8, 16, 32, 32});
  EstimateOptions o;
  o.lowering.training = true;
  o.lowering.inputs_need_gradient = true;  // a block: its input is an activation
  auto plan = PlanEstimate(b.Build({"y"}), o);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  const double tensor = 8.0 * 16 * 32 * 32 * 4;
  auto first_bwd = [&](size_t node) {
    for (const KernelCall& c : plan->lowered.nodes[node].calls) {
      if (c.phase == Phase::kBackward) return c.resident_input_bytes;
    }
    return -1.0;
  };
  EXPECT_EQ(first_bwd(1), 0);       // the last node's gradient comes from the loss
  EXPECT_EQ(first_bwd(0), tensor);  // dA, written by the Sigmoid's backward just before
}

TEST(EstimatePlan, BookkeepingKernelsNeitherReadNorEvictTheResidentInput) {
  // A training batch norm launches its one-element step counter first; the
  // normalisation after it still reads the Relu's output straight from L2.
  GraphBuilder b;
  b.Input("x", {8, 16, 32, 32}).Weight("s", {16}).Weight("bb", {16}).Weight("m", {16}).Weight("v", {16});
  b.Op("Relu", "r1", {"x"}, "a", {8, 16, 32, 32});
  b.Op("BatchNormalization", "bn", {"a", "s", "bb", "m", "v"}, "y", {8, 16, 32, 32});
  EstimateOptions o;
  o.lowering.training = true;
  auto plan = PlanEstimate(b.Build({"y"}), o);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  const auto& bn = plan->lowered.nodes[1].calls;
  ASSERT_GE(bn.size(), 2u);
  EXPECT_EQ(bn[0].resident_input_bytes, 0);                    // the counter
  EXPECT_EQ(bn[1].resident_input_bytes, 8.0 * 16 * 32 * 32 * 4);  // the forward kernel
}

}  // namespace
}  // namespace dlsim
