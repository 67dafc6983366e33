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

TEST(ParallelCliTest, ZeroShardsAcrossTheDataParallelGpus) {
  const std::string run = "estimate tests/data/zoo/resnet18.onnx --machine machines/h200.yaml "
                          "--batch 8 --mode training --optimizer adam --gpus 4 --format json";
  CliRun ddp = Dlsim(run + " 2>/dev/null");
  CliRun zero3 = Dlsim(run + " --zero 3 2>/dev/null");
  ASSERT_EQ(ddp.code, 0) << ddp.out;
  ASSERT_EQ(zero3.code, 0) << zero3.out;
  auto a = nlohmann::json::parse(ddp.out);
  auto b = nlohmann::json::parse(zero3.out);
  EXPECT_EQ(b["data_parallel"]["zero_stage"], 3);
  EXPECT_GT(b["data_parallel"]["allgather_ms"].get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(a["data_parallel"]["allgather_ms"].get<double>(), 0.0);
  // Adam's two moments, 4-way sharded
  EXPECT_NEAR(b["memory"]["optimizer_state_bytes"].get<double>(),
              a["memory"]["optimizer_state_bytes"].get<double>() / 4, 512 * 62);
  EXPECT_LT(b["memory"]["weights_bytes"].get<double>(), a["memory"]["weights_bytes"].get<double>());
}

TEST(ParallelCliTest, ZeroNeedsDataParallelGpus) {
  CliRun r = Dlsim("estimate tests/data/zoo/resnet18.onnx --batch 8 --mode training --zero 2");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("--zero 2 shards across data-parallel GPUs: add --gpus N"), std::string::npos)
      << r.out;
  r = Dlsim("estimate tests/data/zoo/resnet18.onnx --batch 8 --mode training --gpus 2 --zero 4");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("--zero must be 0, 1, 2 or 3, got 4"), std::string::npos) << r.out;
}

TEST(ParallelCliTest, RecomputeIsForTrainingAndOneOfThree) {
  const std::string run = "estimate tests/data/zoo/resnet18.onnx --batch 8";
  CliRun r = Dlsim(run + " --recompute selective");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("--recompute is for training: add --mode training"), std::string::npos) << r.out;
  r = Dlsim(run + " --mode training --recompute some");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("--recompute must be none, selective or full, got 'some'"), std::string::npos)
      << r.out;
  r = Dlsim(run + " --mode training --recompute selective --checkpoint-activations");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("--checkpoint-activations is --recompute full: it does not combine with "
                       "--recompute selective"),
            std::string::npos)
      << r.out;
  // a CNN has no attention core: a warning, the step as without
  // (Dlsim() merges stderr, where warnings also go, into the output)
  r = Dlsim(run + " --mode training --recompute selective --format json");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("dlsim: warning: --recompute selective: no attention core"), std::string::npos);
  auto j = nlohmann::json::parse(r.out.substr(r.out.find('{')));
  EXPECT_EQ(j["memory"]["recompute"], "selective");
  EXPECT_NE(j["warnings"].dump().find("no attention core"), std::string::npos) << j["warnings"].dump();
  // --checkpoint-activations is --recompute full
  CliRun full = Dlsim(run + " --mode training --recompute full --format json");
  CliRun flag = Dlsim(run + " --mode training --checkpoint-activations --format json");
  ASSERT_EQ(full.code, 0) << full.out;
  EXPECT_EQ(full.out, flag.out);
  EXPECT_EQ(nlohmann::json::parse(full.out)["memory"]["recompute"], "full");
}

TEST(ParallelCliTest, CommComparesTheModelWithTheTables) {
  CliRun r = Dlsim("comm --machine machines/h200.yaml --format csv");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(r.out.rfind("machine,collective,gpus,bytes,measured_us,alpha_beta_us,method,error_pct\n", 0), 0u);
  EXPECT_NE(r.out.find("\nh200,all_reduce,4,1073741824,4527.059,"), std::string::npos) << r.out;
}

TEST(ParallelCliTest, CommWithoutTablesSaysSo) {
  CliRun r = Dlsim("comm --machine machines/h100.yaml");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("names no collective table"), std::string::npos) << r.out;
}

}  // namespace
