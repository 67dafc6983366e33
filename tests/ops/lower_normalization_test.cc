// Normalisation lowerings: rows and columns of the row kernel, bytes, FLOPs.
#include <gtest/gtest.h>

#include "dlsim/ops/lowering.h"
#include "graph_builder.h"

namespace dlsim {
namespace {

using testing::GraphBuilder;

// x -> GroupNormalization(num_groups) -> y, scale and bias per channel.
Graph GroupNorm(const Shape& x, int64_t groups) {
  GraphBuilder b;
  b.Input("x", x).Weight("scale", {x[1]}).Weight("bias", {x[1]});
  GraphBuilder::SetInt(b.Op("GroupNormalization", "gn", {"x", "scale", "bias"}, "y", x),
                       "num_groups", groups);
  return b.Build({"y"});
}

TEST(LowerNormalizationTest, GroupNormIsPyTorchsGroupNormOverTheSpatialExtent) {
  auto lowered = LowerGraph(GroupNorm({8, 64, 56, 56}, 32), LoweringOptions{});
  ASSERT_TRUE(lowered.ok()) << lowered.status().ToString();
  ASSERT_EQ(lowered->nodes[0].calls.size(), 1u);
  const KernelCall& c = lowered->nodes[0].calls[0];
  EXPECT_EQ(c.Key(), "groupnorm_fwd n=8 c=64 groups=32 hw=3136 dtype=fp32 math=fp32 layout=-");
  const double x_bytes = 4.0 * 8 * 64 * 56 * 56;
  EXPECT_DOUBLE_EQ(c.bytes_read, x_bytes + 2 * 4.0 * 64);
  EXPECT_DOUBLE_EQ(c.bytes_written, x_bytes);
  EXPECT_DOUBLE_EQ(c.flops, 8.0 * 8 * 64 * 56 * 56);
}

TEST(LowerNormalizationTest, GroupNormTrainingAddsBackward) {
  LoweringOptions o;
  o.training = true;
  auto lowered = LowerGraph(GroupNorm({4, 32, 16, 16}, 8), o);
  ASSERT_TRUE(lowered.ok()) << lowered.status().ToString();
  ASSERT_EQ(lowered->nodes[0].calls.size(), 2u);
  const KernelCall& bwd = lowered->nodes[0].calls[1];
  EXPECT_EQ(bwd.kind, KernelKind::kGroupNormBwd);
  const double x_bytes = 4.0 * 4 * 32 * 16 * 16;
  EXPECT_DOUBLE_EQ(bwd.bytes_read, 2 * x_bytes + 4.0 * 32);     // x, dy; the weight
  EXPECT_DOUBLE_EQ(bwd.bytes_written, x_bytes + 2 * 4.0 * 32);  // dx; two parameter gradients
  EXPECT_DOUBLE_EQ(bwd.flops, 10 * x_bytes / 4);
}

TEST(LowerNormalizationTest, GroupNormWhoseGroupsDoNotDivideChannelsFails) {
  auto lowered = LowerGraph(GroupNorm({2, 30, 8, 8}, 4), LoweringOptions{});
  ASSERT_FALSE(lowered.ok());
  EXPECT_NE(lowered.status().ToString().find("4 groups do not divide the channels of 2x30x8x8"), std::string::npos)
      << lowered.status().ToString();
}

TEST(LowerNormalizationTest, RmsNormNormalisesTheLastAxisWithoutBias) {
  GraphBuilder b;
  b.Input("x", {2, 128, 768}).Weight("scale", {768});
  b.Op("RMSNormalization", "rms", {"x", "scale"}, "y", {2, 128, 768});
  auto lowered = LowerGraph(b.Build({"y"}), LoweringOptions{});
  ASSERT_TRUE(lowered.ok()) << lowered.status().ToString();
  const KernelCall& c = lowered->nodes[0].calls.at(0);
  EXPECT_EQ(c.kind, KernelKind::kLayerNormFwd);
  EXPECT_EQ(c.IntParam("rows", 0), 256);
  EXPECT_EQ(c.IntParam("cols", 0), 768);
  EXPECT_DOUBLE_EQ(c.bytes_read, 4.0 * (256 * 768 + 768));
  // The key is a layer norm's, so its Work counts a layer norm's 8 per element.
  EXPECT_DOUBLE_EQ(c.flops, 8.0 * 256 * 768);
}

}  // namespace
}  // namespace dlsim
