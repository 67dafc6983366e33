// Options that change no kernel call of the model are said as warnings,
// naming what the model lacks; where they change a call, no warning.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "../ops/graph_builder.h"
#include "dlsim/estimate/estimator.h"

namespace dlsim {
namespace {

using testing::GraphBuilder;

Graph ReluOnly() {
  GraphBuilder b;
  b.Input("x", {8, 16, 32, 32});
  b.Op("Relu", "r", {"x"}, "y", {8, 16, 32, 32});
  Graph g = b.Build({"y"});
  g.name = "relu_only";
  return g;
}

Graph ConvRelu() {
  GraphBuilder b;
  b.Input("x", {1, 8, 8, 8}).Weight("w", {8, 8, 1, 1});
  b.Op("Conv", "conv", {"x", "w"}, "y", {1, 8, 8, 8});
  b.Op("Relu", "relu", {"y"}, "z", {1, 8, 8, 8});
  Graph g = b.Build({"z"});
  g.name = "conv_relu";
  return g;
}

std::vector<std::string> Warnings(const Graph& g, Layout layout, bool fuse) {
  EstimateOptions o;
  o.lowering.layout = layout;
  o.lowering.fuse_conv_bias_act = fuse;
  auto plan = PlanEstimate(g, o);
  EXPECT_TRUE(plan.ok()) << plan.status().ToString();
  return plan.ok() ? plan->lowered.warnings : std::vector<std::string>{};
}

bool Has(const std::vector<std::string>& warnings, const std::string& text) {
  return std::find(warnings.begin(), warnings.end(), text) != warnings.end();
}

TEST(NoOpOptions, NhwcWithoutConvolutionIsSaid) {
  EXPECT_TRUE(Has(Warnings(ReluOnly(), Layout::kNhwc, false),
                  "--layout nhwc changes no kernel call of relu_only: no convolution, pooling or "
                  "normalisation over image tensors"));
  EXPECT_TRUE(Warnings(ConvRelu(), Layout::kNhwc, false).empty());
  EXPECT_TRUE(Warnings(ReluOnly(), Layout::kNchw, false).empty());
}

TEST(NoOpOptions, FuseWithoutConvReluIsSaid) {
  EXPECT_TRUE(Has(Warnings(ReluOnly(), Layout::kNchw, true),
                  "--fuse changes no kernel call of relu_only: no convolution followed by a Relu "
                  "to fuse it with"));
  EXPECT_TRUE(Warnings(ConvRelu(), Layout::kNchw, true).empty());
}

std::vector<std::string> Tf32Warnings(const Graph& g, DType dtype) {
  EstimateOptions o;
  o.lowering.dtype = dtype;
  o.lowering.tf32_given = true;
  o.lowering.tf32_gemm = true;
  auto plan = PlanEstimate(g, o);
  EXPECT_TRUE(plan.ok()) << plan.status().ToString();
  return plan.ok() ? plan->lowered.warnings : std::vector<std::string>{};
}

TEST(NoOpOptions, Tf32WithoutAnFp32MatrixOpIsSaid) {
  EXPECT_TRUE(Has(Tf32Warnings(ReluOnly(), DType::kFloat32),
                  "--tf32 changes no kernel call of relu_only: no fp32 convolution, GEMM or "
                  "recurrent layer"));
  EXPECT_TRUE(Tf32Warnings(ConvRelu(), DType::kFloat32).empty());
}

}  // namespace
}  // namespace dlsim
