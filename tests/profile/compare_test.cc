// Profile comparison on a hand-built estimate and trace: every time is a
// whole number of microseconds so the per-layer figures are exact.
#include "dlsim/profile/compare.h"

#include <gtest/gtest.h>

#include <map>

namespace dlsim {
namespace {

constexpr double kUs = 1e-6;

void AddLayer(Estimate* e, const std::string& name, const std::string& op, KernelKind kind, double us) {
  LayerEstimate l;
  l.name = name;
  l.op_type = op;
  KernelCall call;
  call.kind = kind;
  l.calls.push_back(call);
  CallCost cost;
  cost.time_s = us * kUs;
  cost.source = CostSource::kMeasured;
  l.costs.push_back(cost);
  l.fwd_s = us * kUs;
  e->gpu_time_s += l.fwd_s;
  e->layers.push_back(l);
}

// conv 10 us, relu 2 us, gemm 5 us (all measured).
Estimate ThreeLayers() {
  Estimate e;
  e.model = "m.onnx";
  e.machine = "synthetic";
  AddLayer(&e, "conv", "Conv", KernelKind::kConvFwd, 10);
  AddLayer(&e, "relu", "Relu", KernelKind::kElementwise, 2);
  AddLayer(&e, "fc", "Gemm", KernelKind::kGemm, 5);
  return e;
}

// Two iterations of: conv 10 us, an unfolded batch norm 3 us, relu 2 us,
// gemm 20 us; the second iteration starts after a 100 us host gap.
ProfileTrace TwoIterations() {
  ProfileTrace t;
  t.origin = "t.json";
  double at_us = 0;
  for (int it = 0; it < 2; ++it) {
    if (it == 1) at_us += 100;
    for (const auto& [name, us] : std::vector<std::pair<std::string, double>>{
             {"sm90_xmma_fprop_implicit_gemm", 10}, {"cudnn::bn_fw_inf_1C11_kernel_NCHW", 3},
             {"at::native::vectorized_elementwise_kernel<relu>", 2}, {"sm90_xmma_gemm_f32", 20}}) {
      TraceKernel k;
      k.name = name;
      k.start_s = at_us * kUs;
      k.duration_s = us * kUs;
      t.kernels.push_back(k);
      at_us += us;
    }
  }
  return t;
}

const LayerComparison& Layer(const Comparison& c, const std::string& name) {
  for (const LayerComparison& l : c.layers) {
    if (l.name == name) return l;
  }
  static LayerComparison none;
  ADD_FAILURE() << "no layer " << name;
  return none;
}

TEST(CompareProfile, PerLayerTimesPerIteration) {
  auto c = CompareProfile(ThreeLayers(), TwoIterations());
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->iterations, 2);
  EXPECT_EQ(c->kernel_count, 8);
  EXPECT_NEAR(c->measured_gpu_s(), 35 * kUs, 1e-12);
  EXPECT_NEAR(c->estimated_gpu_s, 17 * kUs, 1e-12);
  const LayerComparison& conv = Layer(*c, "conv");
  EXPECT_NEAR(conv.measured_s, 13 * kUs, 1e-12);  // its kernel and the batch norm after it
  EXPECT_NEAR(conv.expected_kernel_s, 10 * kUs, 1e-12);
  EXPECT_NEAR(conv.extra_s, 3 * kUs, 1e-12);
  EXPECT_DOUBLE_EQ(conv.kernels, 2.0);
  EXPECT_EQ(conv.iterations, 2);
  EXPECT_NEAR(Layer(*c, "relu").measured_s, 2 * kUs, 1e-12);
  EXPECT_NEAR(Layer(*c, "fc").measured_s, 20 * kUs, 1e-12);
}

TEST(CompareProfile, BatchNormTheExportFoldedIsAligned) {
  auto c = CompareProfile(ThreeLayers(), TwoIterations());
  ASSERT_TRUE(c.ok());
  EXPECT_NEAR(c->expected_share(), 64.0 / 70.0, 1e-12);
  EXPECT_NEAR(c->explained_s, 6 * kUs, 1e-12);
  EXPECT_NEAR(c->aligned_share(), 1.0, 1e-12);
  EXPECT_EQ(c->kernels[1].pattern, "folded_batch_norm");
  EXPECT_FALSE(c->kernels[1].expected);
  EXPECT_EQ(c->kernels[1].layer, 0);
}

TEST(CompareProfile, FindingsSlowerExtraAndHostGap) {
  auto c = CompareProfile(ThreeLayers(), TwoIterations());
  ASSERT_TRUE(c.ok());
  std::map<std::string, const Finding*> by_kind;
  for (const Finding& f : c->findings) by_kind[f.kind] = &f;
  ASSERT_TRUE(by_kind.count("slower"));
  EXPECT_NEAR(by_kind["slower"]->time_s, 15 * kUs, 1e-12);  // 20 measured - 5 estimated
  EXPECT_EQ(by_kind["slower"]->layers, std::vector<std::string>{"fc"});
  ASSERT_TRUE(by_kind.count("extra_kernels"));
  EXPECT_NEAR(by_kind["extra_kernels"]->time_s, 3 * kUs, 1e-12);
  ASSERT_TRUE(by_kind.count("host_gap"));
  EXPECT_NEAR(by_kind["host_gap"]->time_s, 50 * kUs, 1e-12);  // 100 us over 2 iterations
  EXPECT_EQ(by_kind.count("missing"), 0u);
  EXPECT_EQ(c->findings.front().kind, "host_gap");  // largest first
}

TEST(CompareProfile, IdenticalLayersAreNotIterations) {
  // Three identical layers (gemm 5 us, relu 2 us), profiled for two
  // iterations: the names repeat every layer, but an iteration launches the
  // six kernels the estimate counts.
  Estimate e;
  e.model = "m.onnx";
  for (int i = 0; i < 3; ++i) {
    AddLayer(&e, "fc" + std::to_string(i), "Gemm", KernelKind::kGemm, 5);
    AddLayer(&e, "relu" + std::to_string(i), "Relu", KernelKind::kElementwise, 2);
  }
  e.kernel_count = 6;
  ProfileTrace t;
  t.origin = "t.json";
  for (int k = 0; k < 12; ++k) {
    TraceKernel kernel;
    kernel.name = k % 2 == 0 ? "sm90_xmma_gemm_f32" : "at::native::vectorized_elementwise_kernel<relu>";
    kernel.start_s = 10 * k * kUs;
    kernel.duration_s = (k % 2 == 0 ? 5 : 2) * kUs;
    t.kernels.push_back(kernel);
  }
  auto c = CompareProfile(e, t);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->iterations, 2);
  EXPECT_NEAR(c->measured_gpu_s(), 21 * kUs, 1e-12);
  EXPECT_NEAR(c->aligned_share(), 1.0, 1e-12);
  for (const LayerComparison& l : c->layers) EXPECT_DOUBLE_EQ(l.kernels, 1.0) << l.name;
}

TEST(CompareProfile, GivenIterationCountOverridesDetection) {
  CompareOptions o;
  o.iterations = 1;
  auto c = CompareProfile(ThreeLayers(), TwoIterations(), o);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->iterations, 1);
  EXPECT_NEAR(c->measured_gpu_s(), 70 * kUs, 1e-12);
}

TEST(CompareProfile, AnEstimateWithoutCallsIsAnError) {
  Estimate empty;
  empty.model = "empty.onnx";
  auto c = CompareProfile(empty, TwoIterations());
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("empty.onnx"), std::string::npos);
}

}  // namespace
}  // namespace dlsim
