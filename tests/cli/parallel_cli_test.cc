// dlsim estimate --gpus and dlsim comm (docs/parallel.md).
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

namespace {

struct CliRun {
  int code;
  std::string out;
};

CliRun Dlsim(const std::string& args) {
  const std::string cmd = std::string("cd ") + DLSIM_SOURCE_DIR + " && " + DLSIM_BINARY + " " +
                          args + " 2>&1";
  std::array<char, 4096> buf;
  std::string out;
  FILE* pipe = popen(cmd.c_str(), "r");
  while (size_t n = fread(buf.data(), 1, buf.size(), pipe)) out.append(buf.data(), n);
  const int status = pclose(pipe);
  return {WEXITSTATUS(status), out};
}

TEST(ParallelCliTest, TrainingAcrossGpusReportsTheAllReduce) {
  CliRun r = Dlsim("estimate tests/data/zoo/resnet18.onnx --machine machines/h200.yaml --batch 8 "
                "--mode training --gpus 4 --format json");
  ASSERT_EQ(r.code, 0) << r.out;
  auto j = nlohmann::json::parse(r.out);
  const auto& dp = j["data_parallel"];
  EXPECT_EQ(dp["gpus"], 4);
  EXPECT_EQ(dp["method"], "nccl table");  // machines/h200.yaml names the 4-GPU table
  // resnet18 has about 11.7 million fp32 parameters.
  EXPECT_GT(dp["gradient_bytes"].get<double>(), 4.0 * 11e6);
  EXPECT_GT(dp["buckets"].get<int>(), 1);
  EXPECT_GT(dp["allreduce_ms"].get<double>(), 0.0);
}

TEST(ParallelCliTest, GpusNeedTrainingMode) {
  CliRun r = Dlsim("estimate tests/data/zoo/resnet18.onnx --batch 8 --gpus 2");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("--gpus 2 is for data-parallel training"), std::string::npos) << r.out;
}

TEST(ParallelCliTest, MoreGpusThanTheMachineHasIsAnError) {
  CliRun r = Dlsim("estimate tests/data/zoo/resnet18.onnx --machine machines/h200.yaml --batch 8 "
                "--mode training --gpus 64");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("has 8 (node.gpus_per_node x system.nodes)"), std::string::npos) << r.out;
}

TEST(ParallelCliTest, CommComparesTheModelWithTheTables) {
  CliRun r = Dlsim("comm --machine machines/h200.yaml --format csv");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(r.out.rfind("collective,gpus,bytes,measured_us,alpha_beta_us,method,error_pct\n", 0), 0u);
  EXPECT_NE(r.out.find("all_reduce,4,1073741824,4527.059,"), std::string::npos) << r.out;
}

TEST(ParallelCliTest, CommWithoutTablesSaysSo) {
  CliRun r = Dlsim("comm --machine machines/h100.yaml");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("names no collective table"), std::string::npos) << r.out;
}

}  // namespace
