// dlsim compare's JSON on a hand-made comparison: each call says which key
// the estimate priced and where its price came from.
#include "dlsim/report/compare_report.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace dlsim {
namespace {

TEST(CompareReportTest, CallsCarryTheirKeyAndPriceSource) {
  Comparison cmp;
  LayerComparison layer;
  layer.name = "conv1";
  layer.op_type = "Conv";
  CallComparison call;
  call.kind = "conv_fwd";
  call.key = "conv_fwd n=1 c=3 h=8 w=8 k=4 r=3 s=3";
  call.source = "fitted";
  call.estimated_s = 2e-6;
  call.measured_s = 3e-6;
  call.kernels = 1;
  layer.calls.push_back(call);
  cmp.layers.push_back(layer);

  const nlohmann::json j = nlohmann::json::parse(ComparisonToJson(cmp));
  const nlohmann::json& c = j["layers"][0]["calls"][0];
  EXPECT_EQ(c["kind"], "conv_fwd");
  EXPECT_EQ(c["key"], "conv_fwd n=1 c=3 h=8 w=8 k=4 r=3 s=3");
  EXPECT_EQ(c["source"], "fitted");
  EXPECT_DOUBLE_EQ(c["estimated_ms"].get<double>(), 2e-3);
  EXPECT_DOUBLE_EQ(c["measured_ms"].get<double>(), 3e-3);
}

}  // namespace
}  // namespace dlsim
