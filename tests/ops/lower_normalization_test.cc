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

TEST(LowerNormalizationTest, GroupNormRowIsOneGroupOfOneSample) {
  auto lowered = LowerGraph(GroupNorm({8, 64, 56, 56}, 32), LoweringOptions{});
  ASSERT_TRUE(lowered.ok()) << lowered.status().ToString();
  ASSERT_EQ(lowered->nodes[0].calls.size(), 1u);
  const KernelCall& c = lowered->nodes[0].calls[0];
  EXPECT_EQ(c.kind, KernelKind::kLayerNormFwd);
  EXPECT_EQ(c.IntParam("rows", 0), 8 * 32);
  EXPECT_EQ(c.IntParam("cols", 0), 2 * 56 * 56);
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
  EXPECT_EQ(lowered->nodes[0].calls[1].kind, KernelKind::kLayerNormBwd);
  EXPECT_DOUBLE_EQ(lowered->nodes[0].calls[1].bytes_read, 2 * 4.0 * 4 * 32 * 16 * 16);
}

TEST(LowerNormalizationTest, GroupNormWhoseGroupsDoNotDivideChannelsFails) {
  auto lowered = LowerGraph(GroupNorm({2, 30, 8, 8}, 4), LoweringOptions{});
  ASSERT_FALSE(lowered.ok());
  EXPECT_NE(lowered.status().ToString().find("num_groups 4"), std::string::npos)
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
