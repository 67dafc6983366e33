// Node groups the ONNX export spells out and PyTorch runs as one kernel.
#include <gtest/gtest.h>

#include "dlsim/ops/lowering.h"
#include "graph_builder.h"

namespace dlsim {
namespace {

using testing::GraphBuilder;

// y = (x * (1 + erf(x / sqrt2))) * 0.5, as torch.onnx writes nn.GELU; the
// Erf's output also feeds `tap` when `tapped`.
Graph Gelu(bool tapped) {
  GraphBuilder b;
  b.Input("x", {8, 128, 3072}).Weight("sqrt2", {}).Weight("one", {}).Weight("half", {});
  b.Op("Div", "div", {"x", "sqrt2"}, "d", {8, 128, 3072});
  b.Op("Erf", "erf", {"d"}, "e", {8, 128, 3072});
  b.Op("Add", "add", {"e", "one"}, "a", {8, 128, 3072});
  b.Op("Mul", "mul", {"x", "a"}, "m", {8, 128, 3072});
  b.Op("Mul", "mul_1", {"m", "half"}, "y", {8, 128, 3072});
  std::vector<std::string> outputs = {"y"};
  if (tapped) {
    b.Op("Neg", "tap", {"e"}, "t", {8, 128, 3072});
    outputs.push_back("t");
  }
  return b.Build(outputs);
}

TEST(FrameworkFusion, ErfGeluIsOneKernel) {
  auto lowered = LowerGraph(Gelu(false), LoweringOptions{});
  ASSERT_TRUE(lowered.ok());
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(lowered->nodes[i].calls.empty()) << lowered->nodes[i].name;
  ASSERT_EQ(lowered->nodes[4].calls.size(), 1u);
  const KernelCall& gelu = lowered->nodes[4].calls[0];
  EXPECT_EQ(gelu.StrParam("op", ""), "gelu");
  const double bytes = 8.0 * 128 * 3072 * 4;
  EXPECT_DOUBLE_EQ(gelu.bytes_read, bytes);  // x once
  EXPECT_DOUBLE_EQ(gelu.bytes_written, bytes);
}

TEST(FrameworkFusion, TrainingAddsOneBackwardKernel) {
  LoweringOptions o;
  o.training = true;
  auto lowered = LowerGraph(Gelu(false), o);
  ASSERT_TRUE(lowered.ok());
  ASSERT_EQ(lowered->nodes[4].calls.size(), 2u);
  EXPECT_EQ(lowered->nodes[4].calls[1].phase, "bwd");
}

TEST(FrameworkFusion, NotFusedWhenAnIntermediateIsUsedElsewhere) {
  auto lowered = LowerGraph(Gelu(true), LoweringOptions{});
  ASSERT_TRUE(lowered.ok());
  for (int i = 0; i < 5; ++i) EXPECT_EQ(lowered->nodes[i].calls.size(), 1u) << lowered->nodes[i].name;
}

// nn.Linear on a 3-D input, its bias shared through an Identity node (as
// Hugging Face exports do): the bias rides in the GEMM's epilogue.
TEST(FrameworkFusion, LinearBiasThroughIdentityLaunchesNothing) {
  GraphBuilder b;
  b.Input("x", {8, 128, 768}).Weight("w", {768, 768}).Weight("b0", {768});
  b.Op("Identity", "id", {"b0"}, "b", {768});
  b.Op("MatMul", "mm", {"x", "w"}, "h", {8, 128, 768});
  b.Op("Add", "bias", {"b", "h"}, "y", {8, 128, 768});
  auto lowered = LowerGraph(b.Build({"y"}), LoweringOptions{});
  ASSERT_TRUE(lowered.ok());
  EXPECT_EQ(lowered->nodes[1].calls.size(), 1u);
  EXPECT_TRUE(lowered->nodes[2].calls.empty());
}

}  // namespace
}  // namespace dlsim
