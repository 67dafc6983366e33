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

// resnet18's export names shared batch-norm statistics twice through 72
// Identity nodes: the eager model reads those tensors, it runs no op.
TEST(HostCli, AnIdentityDispatchesNothing) {
  const Outcome r = RunDlsim("estimate " + SourcePath("tests/data/zoo/resnet18.onnx") +
                             " --machine h100 --batch 8 --format json --host " +
                             SourcePath("tests/data/hosts/flat.yaml"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const nlohmann::json j = nlohmann::json::parse(r.output.substr(r.output.find('{')));
  const auto& layers = j["layers"];
  const auto identities = std::count_if(layers.begin(), layers.end(), [](const nlohmann::json& l) {
    return l["op_type"] == "Identity";
  });
  EXPECT_EQ(identities, 72);
  EXPECT_NEAR(j["host_dispatch_ms"].get<double>(),
              0.010 * static_cast<double>(layers.size() - static_cast<size_t>(identities)), 1e-12);
}

TEST(HostCli, TheProfileChangesOnlyTheHost) {
  const nlohmann::json bundled = EstimateJson("");
  const nlohmann::json flat = EstimateJson("--host " + SourcePath("tests/data/hosts/flat.yaml"));
  EXPECT_EQ(bundled["gpu_time_ms"], flat["gpu_time_ms"]);
  EXPECT_NE(bundled["host_dispatch_ms"], flat["host_dispatch_ms"]);
}

nlohmann::json EstimateLstmJson(const std::string& host, const std::string& mode) {
  const Outcome r = RunDlsim("estimate " + SourcePath("tests/data/zoo/lstm2.onnx") + " --machine h100 " +
                             mode + " --format json --host " + SourcePath("tests/data/hosts/" + host));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  return nlohmann::json::parse(r.output.substr(r.output.find('{')));
}

// The kernels the RNN calls of an estimate launch, by phase.
int64_t RnnKernels(const nlohmann::json& j, const std::string& phase) {
  int64_t n = 0;
  for (const auto& layer : j["layers"]) {
    for (const auto& c : layer["calls"]) {
      if (c["kind"].get<std::string>().rfind("rnn", 0) == 0 && c["phase"] == phase) {
        n += c["kernels"].get<int64_t>();
      }
    }
  }
  return n;
}

TEST(HostCli, AnRnnCallCostsTheHostPerKernelItLaunches) {
  for (const std::string mode : {"--mode inference", "--mode training"}) {
    const nlohmann::json flat = EstimateLstmJson("flat.yaml", mode);
    const nlohmann::json rnn = EstimateLstmJson("flat_rnn.yaml", mode);
    const int64_t kernels = RnnKernels(rnn, "fwd") + RnnKernels(rnn, "bwd");
    EXPECT_GT(RnnKernels(rnn, "fwd"), 100) << mode;  // one kernel set per time step at least
    EXPECT_EQ(RnnKernels(rnn, "bwd") > 0, mode == "--mode training");
    EXPECT_NEAR(rnn["host_dispatch_ms"].get<double>() - flat["host_dispatch_ms"].get<double>(),
                0.002 * static_cast<double>(kernels), 1e-9)
        << mode;
    EXPECT_EQ(rnn["gpu_time_ms"], flat["gpu_time_ms"]) << mode;
  }
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
