// dlsim estimate --host FILE end to end: a host profile replaces the machine's host section.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>

#include "bad_input_util.h"

namespace dlsim::badinput {
namespace {

nlohmann::json EstimateJson(const std::string& extra) {
  const Outcome r = RunDlsim("estimate " + SourcePath("tests/data/models/tiny_cnn_opset17.onnx") +
                             " --machine h100 --batch 8 --format json " + extra);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  return nlohmann::json::parse(r.output.substr(r.output.find('{')));
}

TEST(HostCli, AFlatProfileDispatchesEveryNodeAtItsCost) {
  const nlohmann::json j = EstimateJson("--host " + SourcePath("tests/data/hosts/flat.yaml"));
  const double nodes = static_cast<double>(j["layers"].size());
  EXPECT_NEAR(j["host_dispatch_ms"].get<double>(), 0.010 * nodes, 1e-12);
  EXPECT_GE(j["eager_ms"].get<double>(), j["host_dispatch_ms"].get<double>());
}

TEST(HostCli, TheProfileChangesOnlyTheHost) {
  const nlohmann::json bundled = EstimateJson("");
  const nlohmann::json flat = EstimateJson("--host " + SourcePath("tests/data/hosts/flat.yaml"));
  EXPECT_EQ(bundled["gpu_time_ms"], flat["gpu_time_ms"]);
  EXPECT_NE(bundled["host_dispatch_ms"], flat["host_dispatch_ms"]);
}

TEST(HostCli, TheEstimateNamesItsHostAndBandsTheEagerTimeByIt) {
  const std::string path = SourcePath("tests/data/hosts/calibrated_flat.yaml");
  const nlohmann::json j = EstimateJson("--host " + path);
  EXPECT_EQ(j["host"]["cpu"], "Test CPU 9000");
  EXPECT_EQ(j["host"]["framework_version"], "2.11.0+cu130");
  EXPECT_EQ(j["host"]["calibrated"], true);
  EXPECT_EQ(j["host"]["profile"], path);
  EXPECT_EQ(j["host"]["description"], "Test CPU 9000, pytorch 2.11.0+cu130; calibrated on it by "
                                      "dlsim-calibrate host; from " + path);
  const double eager = j["eager_ms"].get<double>();
  EXPECT_DOUBLE_EQ(j["eager_p90_ms"].get<double>(), 1.713 * eager);  // calibrated, inference
  EXPECT_DOUBLE_EQ(j["eager_p10_ms"].get<double>(),
                   std::max(0.689 * eager, j["p10_ms"].get<double>()));
  const nlohmann::json bundled = EstimateJson("");
  EXPECT_EQ(bundled["host"]["calibrated"], false);
  EXPECT_DOUBLE_EQ(bundled["eager_p90_ms"].get<double>(), 1.774 * bundled["eager_ms"].get<double>());
}

TEST(HostCli, ABadProfileIsRefusedNamingTheFileAndField) {
  const std::string bad = SourcePath("tests/data/hosts/bad_kind.yaml");
  const Outcome r = RunDlsim("estimate " + SourcePath("tests/data/models/tiny_cnn_opset17.onnx") +
                             " --machine h100 --host " + bad);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find(bad + ": host.dispatch_us_by_kind.gemmm: unknown kind"), std::string::npos)
      << r.output;
  const Outcome missing = RunDlsim("estimate " + SourcePath("tests/data/models/tiny_cnn_opset17.onnx") +
                                   " --host /no/such/host.yaml");
  EXPECT_NE(missing.exit_code, 0);
  EXPECT_NE(missing.output.find("/no/such/host.yaml"), std::string::npos) << missing.output;
}

}  // namespace
}  // namespace dlsim::badinput
