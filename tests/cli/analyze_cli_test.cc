// dlsim analyze end to end: exit codes, the JSON shape scripts read, bad input.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

namespace {

struct CmdResult {
  int exit_code;
  std::string out;
};

CmdResult RunDlsim(const std::string& args) {
  std::string cmd = std::string(DLSIM_BINARY) + " " + args;
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

TEST(AnalyzeCli, JsonRanksAdviceWithLayers) {
  CmdResult r = RunDlsim("analyze " + Zoo("googlenet") +
                    " --machine h100 --batch 16 --format json 2>/dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  auto j = nlohmann::json::parse(r.out);
  for (const char* key : {"model", "machine", "batch", "dtype", "mode", "gpu_time_ms",
                          "critical_path_ms", "advice", "notes"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_EQ(j["batch"], 16);
  ASSERT_FALSE(j["advice"].empty());
  double previous = 1e300;
  bool parallel = false;
  for (const auto& a : j["advice"]) {
    for (const char* key : {"rank", "kind", "title", "note", "baseline_ms", "improved_ms",
                            "saved_ms", "saved_fraction", "layers"}) {
      EXPECT_TRUE(a.contains(key)) << key;
    }
    const double saved = a["saved_ms"].get<double>();
    EXPECT_GT(saved, 0);
    EXPECT_LE(saved, previous);
    previous = saved;
    EXPECT_NEAR(saved, a["baseline_ms"].get<double>() - a["improved_ms"].get<double>(), 1e-9);
    EXPECT_FALSE(a["layers"].empty()) << a["kind"];
    parallel = parallel || a["kind"] == "parallel";
  }
  EXPECT_TRUE(parallel) << "googlenet's inception branches run concurrently";
  EXPECT_EQ(j["advice"][0]["kind"], "joint");
}

TEST(AnalyzeCli, TableNamesTheBaselineAndTheAdvice) {
  CmdResult r = RunDlsim("analyze " + Zoo("resnet18") + " --machine h100 --batch 1 --top 2 2>/dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("baseline: one stream"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1. ["), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[joint] All together"), std::string::npos) << r.out;
}

TEST(AnalyzeCli, BadInputIsAUserError) {
  CmdResult missing = RunDlsim("analyze /nonexistent/model.onnx --machine h100 2>&1");
  EXPECT_EQ(missing.exit_code, 1) << missing.out;
  EXPECT_NE(missing.out.find("/nonexistent/model.onnx"), std::string::npos) << missing.out;

  CmdResult format = RunDlsim("analyze " + Zoo("resnet18") + " --format xml 2>&1");
  EXPECT_EQ(format.exit_code, 1);
  EXPECT_NE(format.out.find("--format must be table or json, got 'xml'"), std::string::npos)
      << format.out;

  CmdResult dtype = RunDlsim("analyze " + Zoo("resnet18") + " --dtype fp8 2>&1");
  EXPECT_EQ(dtype.exit_code, 1);
  EXPECT_NE(dtype.out.find("--dtype must be"), std::string::npos) << dtype.out;
}

}  // namespace
