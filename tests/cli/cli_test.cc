// End-to-end tests of the dlsim binary: exit codes, JSON shape, bad input.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "scratch_dir.h"

namespace {

struct CmdResult {
  int exit_code;
  std::string out;  // stdout and stderr together
};

CmdResult Dlsim(const std::string& args) {
  std::string cmd = std::string(DLSIM_BINARY) + " " + args + " 2>&1";
  CmdResult r{-1, ""};
  FILE* pipe = popen(cmd.c_str(), "r");
  if (pipe == nullptr) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) r.out.append(buf.data(), n);
  int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

std::string Zoo(const std::string& name) {
  return std::string(DLSIM_SOURCE_DIR) + "/tests/data/zoo/" + name + ".onnx";
}

std::string TempFile(const std::string& name, const std::string& contents) {
  std::string path = dlsim::testing::ScratchPath(name);
  std::ofstream(path, std::ios::binary) << contents;
  return path;
}

TEST(CliTest, EstimateJsonHasTheContractFields) {
  CmdResult r = Dlsim("estimate " + Zoo("resnet18") + " --batch 16 --format json 2>/dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  auto j = nlohmann::json::parse(r.out);
  for (const char* key : {"model", "machine", "batch", "dtype", "mode", "gpu_time_ms",
                          "critical_path_ms", "eager_ms", "layers"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_EQ(j["batch"], 16);
  EXPECT_EQ(j["dtype"], "fp32");
  EXPECT_EQ(j["mode"], "inference");
  EXPECT_GT(j["gpu_time_ms"].get<double>(), 0);
  EXPECT_LE(j["critical_path_ms"].get<double>(), j["gpu_time_ms"].get<double>() + 1e-9);
  EXPECT_GE(j["eager_ms"].get<double>(), j["gpu_time_ms"].get<double>() - 1e-9);
  ASSERT_FALSE(j["layers"].empty());
  for (const auto& layer : j["layers"]) {
    for (const char* key : {"name", "op_type", "time_ms", "source"}) {
      EXPECT_TRUE(layer.contains(key)) << key;
    }
    const std::string source = layer["source"];
    EXPECT_TRUE(source == "measured" || source == "fitted" || source == "scaled" ||
                source == "roofline")
        << source;
  }
}

TEST(CliTest, AFootprintOverTheDevicesMemoryIsAWarningNotARefusal) {
  // ResNet-18 training at batch 8192 peaks far above an H100's 80 GiB: the
  // time is still given, and the warning gives the largest batch that fits.
  CmdResult r = Dlsim("estimate " + Zoo("resnet18") +
                      " --batch 8192 --mode training --format json");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  // stderr comes first: the warning also goes there
  EXPECT_NE(r.out.find("dlsim: warning: footprint"), std::string::npos) << r.out;
  auto j = nlohmann::json::parse(r.out.substr(r.out.find('{')));
  EXPECT_GT(j["gpu_time_ms"].get<double>(), 0);
  EXPECT_GT(j["memory"]["total_bytes"].get<double>(), 80.0 * 1073741824);
  bool warned = false;
  for (const auto& w : j["warnings"]) {
    const std::string text = w;
    warned = warned || (text.find("exceeds h100's memory") != std::string::npos &&
                        text.find("The largest batch that fits is") != std::string::npos &&
                        text.find("--recompute selective") != std::string::npos &&
                        text.find("--recompute full") != std::string::npos);
  }
  EXPECT_TRUE(warned) << j["warnings"].dump();
  // memory.largest_batch is the batch the warning names
  const int64_t largest = j["memory"]["largest_batch"].get<int64_t>();
  EXPECT_GT(largest, 0);
  EXPECT_LT(largest, 8192);
  EXPECT_NE(j["warnings"].dump().find("The largest batch that fits is " + std::to_string(largest)),
            std::string::npos);
}

TEST(CliTest, TheTableGivesTheLargestBatchThatFits) {
  CmdResult r = Dlsim("estimate " + Zoo("resnet18") + " --batch 8192 --mode training");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  CmdResult j = Dlsim("estimate " + Zoo("resnet18") + " --batch 8192 --mode training --format json");
  const int64_t largest =
      nlohmann::json::parse(j.out.substr(j.out.find('{')))["memory"]["largest_batch"].get<int64_t>();
  EXPECT_NE(r.out.find("(largest batch that fits: " + std::to_string(largest) + ")"), std::string::npos)
      << r.out;
}

TEST(CliTest, EstimateCsvHasOneRowPerLayer) {
  CmdResult r = Dlsim("estimate " + Zoo("alexnet") + " --batch 1 --format csv 2>/dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(r.out.rfind("model,machine,batch,dtype,mode,layer,op_type,kernels,", 0), 0u) << r.out.substr(0, 200);
}

TEST(CliTest, EstimateLeadsWithTheHeadline) {
  CmdResult r = Dlsim("estimate " + Zoo("resnet50") + " --machine h100 --batch 1 --quiet");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  // the eager band: x 0.787 and x 1.774, a host not calibrated on this machine, inference
  EXPECT_NE(r.out.find("estimate: 4.626 ms per batch run op by op (eager, P10-P90 3.641 ms - 8.207 ms); "
                       "942.7 us captured"),
            std::string::npos) << r.out;
  EXPECT_NE(r.out.find("host-bound: the GPU is busy 20 % of the eager time"), std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("layer "), std::string::npos) << r.out;  // --quiet: no layers
}

TEST(CliTest, TopListsTheSlowestLayers) {
  CmdResult r = Dlsim("estimate " + Zoo("resnet50") + " --machine h100 --batch 1 --top 1");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("/layer4/layer4.0/conv2/Conv"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("/conv1/Conv"), std::string::npos) << r.out;
  r = Dlsim("estimate " + Zoo("resnet50") + " --machine h100 --batch 1 --top 1 --sort graph");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("/conv1/Conv"), std::string::npos) << r.out;
  r = Dlsim("estimate " + Zoo("resnet50") + " --machine h100 --sort slowest");
  EXPECT_NE(r.exit_code, 0) << r.out;
}

TEST(CliTest, EveryCommandHasHelp) {
  for (const char* cmd : {"estimate", "inspect", "machines", "plan", "db", "fom", "sweep",
                          "analyze", "compare", "comm", "scale"}) {
    CmdResult r = Dlsim(std::string(cmd) + " --help");
    EXPECT_EQ(r.exit_code, 0) << cmd;
    EXPECT_NE(r.out.find("Usage"), std::string::npos) << cmd;
  }
}

TEST(CliTest, MissingModelFileIsAClearError) {
  CmdResult r = Dlsim("estimate /nonexistent/model.onnx");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.out.find("/nonexistent/model.onnx"), std::string::npos) << r.out;
}

TEST(CliTest, EmptyAndRandomOnnxFilesAreErrors) {
  std::string empty = TempFile("empty.onnx", "");
  std::string random = TempFile("random.onnx", std::string("\x12\x34\xff\x00garbage\x08\x99", 14));
  for (const std::string& path : {empty, random}) {
    CmdResult r = Dlsim("estimate " + path);
    EXPECT_NE(r.exit_code, 0) << path;
    EXPECT_NE(r.out.find(path), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("check failed"), std::string::npos) << r.out;
  }
}

TEST(CliTest, TruncatedOnnxIsAnError) {
  std::ifstream in(Zoo("resnet18"), std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string path = TempFile("truncated.onnx", bytes.substr(0, bytes.size() / 2));
  CmdResult r = Dlsim("estimate " + path);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.out.find("truncated.onnx"), std::string::npos) << r.out;
}

TEST(CliTest, BadFlagsAreErrors) {
  CmdResult neg = Dlsim("estimate " + Zoo("resnet18") + " --batch -3");
  EXPECT_NE(neg.exit_code, 0);
  EXPECT_NE(neg.out.find("--batch"), std::string::npos) << neg.out;
  CmdResult dtype = Dlsim("estimate " + Zoo("resnet18") + " --dtype fp12");
  EXPECT_NE(dtype.exit_code, 0);
  EXPECT_NE(dtype.out.find("fp12"), std::string::npos) << dtype.out;
}

TEST(CliTest, BrokenMachineYamlNamesTheFile) {
  std::string path = TempFile("broken.yaml", "name: x\ndevice: [unclosed\n");
  CmdResult r = Dlsim("estimate " + Zoo("resnet18") + " --machine " + path);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.out.find("broken.yaml"), std::string::npos) << r.out;
}

TEST(CliTest, NegativeSpecIsAnErrorNamingTheField) {
  std::string path = TempFile("negative.yaml", R"(name: neg
device:
  name: X
  compute_capability: "9.0"
  sm_count: 100
  boost_clock_mhz: 1500
  peak_tflops: {fp32_vector: 10}
  memory_gib: 16
  memory_bw_gbs: -900
  l2_mib: 6
)");
  CmdResult r = Dlsim("estimate " + Zoo("resnet18") + " --machine " + path);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.out.find("memory_bw_gbs"), std::string::npos) << r.out;
}

TEST(CliTest, MachinesValidatesBundledFiles) {
  CmdResult r = Dlsim("machines --format json");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("\"h100\""), std::string::npos);
}

TEST(CliTest, InspectNeedsNoMachine) {
  CmdResult r = Dlsim("inspect " + Zoo("resnet50") + " --batch 1 --format json");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  auto j = nlohmann::json::parse(r.out.substr(r.out.find('{')));
  // torchvision ResNet-50 has 25,557,032 parameters; the export folds the
  // batch-norms into conv weights and biases, which leaves slightly fewer.
  EXPECT_GT(j["parameters"].get<int64_t>(), 25400000);
  EXPECT_LT(j["parameters"].get<int64_t>(), 25557032);
}

TEST(CliTest, FomReproducesTheWorkedExample) {
  CmdResult r = Dlsim("fom " + std::string(DLSIM_SOURCE_DIR) + "/workloads/candle-fom-example.yaml --format json");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_NEAR(j["fom"].get<double>(), 82.597, 5e-4);
  ASSERT_EQ(j["workloads"].size(), 3u);
  EXPECT_TRUE(j["workloads"][0].contains("rate_target"));
  CmdResult rates = Dlsim("fom " + std::string(DLSIM_SOURCE_DIR) +
                    "/workloads/candle-fom-example-rates.yaml --format json");
  ASSERT_EQ(rates.exit_code, 0) << rates.out;
  EXPECT_NEAR(nlohmann::json::parse(rates.out)["fom"].get<double>(), 82.599, 5e-4);
}

TEST(CliTest, EstimateWorkloadReportsUnitsPerDay) {
  CmdResult r = Dlsim("estimate --workload " + std::string(DLSIM_SOURCE_DIR) +
                      "/workloads/resnet50-imagenet.yaml --machine h100 --format json 2>/dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j.size(), 1u);
  EXPECT_EQ(j[0]["steps_per_epoch"], 626);  // ceil(1,281,167 / (256 x 8))
  const double unit_s = j[0]["unit_time_s"].get<double>();
  EXPECT_NEAR(unit_s, j[0]["step_time_s"].get<double>() * 626 * 90, 1e-6 * unit_s);
  EXPECT_NEAR(j[0]["units_per_day"].get<double>(), 86400.0 / unit_s, 1e-9 * 86400.0 / unit_s);
}

}  // namespace
