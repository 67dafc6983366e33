// Channels-last propagation (src/ops/memory_format.h) and what the lowering
// makes of it, on a ConvNeXt-like block.
#include "ops/memory_format.h"

#include <gtest/gtest.h>

#include "dlsim/ops/lowering.h"
#include "graph_builder.h"

namespace dlsim {
namespace {

using testing::GraphBuilder;

Node& Permute(GraphBuilder& b, const std::string& name, const std::string& in,
              const std::string& out, Shape dims, std::vector<int64_t> perm) {
  Node& n = b.Op("Transpose", name, {in}, out, std::move(dims));
  GraphBuilder::SetInts(n, "perm", std::move(perm));
  return n;
}

Node& DepthwiseConv(GraphBuilder& b, const std::string& name, const std::string& in,
                    const std::string& w, const std::string& out) {
  Node& n = b.Op("Conv", name, {in, w}, out, {8, 96, 56, 56});
  GraphBuilder::SetInts(n, "kernel_shape", {7, 7});
  GraphBuilder::SetInts(n, "pads", {3, 3, 3, 3});
  GraphBuilder::SetInt(n, "group", 96);
  return n;
}

// stem conv (contiguous input) -> permute to NHWC -> LayerNorm -> permute
// back (channels-last) -> depthwise conv -> permute to NHWC -> LayerNorm ->
// permute back -> layer scale -> residual add -> depthwise conv.
Graph Block() {
  GraphBuilder b;
  b.Input("x", {8, 96, 56, 56}).Weight("w1", {96, 1, 7, 7}).Weight("w2", {96, 1, 7, 7});
  b.Weight("w3", {96, 1, 7, 7}).Weight("g", {96}).Weight("scale", {96, 1, 1});
  DepthwiseConv(b, "conv1", "x", "w1", "c1");
  Permute(b, "to_nhwc1", "c1", "p1", {8, 56, 56, 96}, {0, 2, 3, 1});
  GraphBuilder::SetInt(b.Op("LayerNormalization", "ln1", {"p1", "g"}, "n1", {8, 56, 56, 96}),
                       "axis", -1);
  Permute(b, "to_nchw1", "n1", "q1", {8, 96, 56, 56}, {0, 3, 1, 2});
  DepthwiseConv(b, "conv2", "q1", "w2", "c2");
  Permute(b, "to_nhwc2", "c2", "p2", {8, 56, 56, 96}, {0, 2, 3, 1});
  GraphBuilder::SetInt(b.Op("LayerNormalization", "ln2", {"p2", "g"}, "n2", {8, 56, 56, 96}),
                       "axis", -1);
  Permute(b, "to_nchw2", "n2", "q2", {8, 96, 56, 56}, {0, 3, 1, 2});
  b.Op("Mul", "layer_scale", {"scale", "q2"}, "m", {8, 96, 56, 56});
  b.Op("Add", "residual", {"m", "q1"}, "r", {8, 96, 56, 56});
  DepthwiseConv(b, "conv3", "r", "w3", "y");
  return b.Build({"y"});
}

TEST(MemoryFormat, PermutesAndConvsPropagateChannelsLast) {
  const std::set<std::string> cl = AnalyzeMemoryFormats(Block()).channels_last;
  EXPECT_EQ(cl, (std::set<std::string>{"q1", "c2", "q2", "m", "r", "y"}));
}

TEST(MemoryFormat, ConvOfChannelsLastRunsNhwcAndItsPermuteIsAView) {
  auto lowered = LowerGraph(Block(), LoweringOptions{});
  ASSERT_TRUE(lowered.ok()) << lowered.status().ToString();
  const auto& n = lowered->nodes;
  EXPECT_EQ(n[0].calls.at(0).layout, Layout::kNchw);  // conv1 reads the contiguous input
  EXPECT_EQ(n[1].calls.size(), 1u);            // its output permuted: a copy for LayerNorm
  EXPECT_EQ(n[3].calls.size(), 0u);            // to_nchw1: a view
  EXPECT_EQ(n[4].calls.at(0).layout, Layout::kNhwc);  // conv2 reads channels-last q1
  EXPECT_EQ(n[5].calls.size(), 0u);            // to_nhwc2 of channels-last c2: a view
  EXPECT_EQ(n[10].calls.at(0).layout, Layout::kNhwc);  // conv3 after the residual add
}

}  // namespace
}  // namespace dlsim
