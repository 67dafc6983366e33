// --html on dlsim estimate and dlsim analyze: the file is written with its
// sections; a path that cannot be written is a user error naming it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "bad_input_util.h"

namespace {

using dlsim::badinput::ReadFile;
using dlsim::badinput::RunDlsim;

std::string Zoo(const std::string& name) {
  return std::string(DLSIM_SOURCE_DIR) + "/tests/data/zoo/" + name + ".onnx";
}

std::string TempPath(const std::string& name) { return dlsim::testing::ScratchPath(name); }

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(HtmlCli, AnalyzeWritesTheReportWithAdvice) {
  const std::string out = TempPath("googlenet.html");
  const auto r =
      RunDlsim("analyze " + Zoo("googlenet") + " --machine h100 --batch 16 --html " + out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("baseline: one stream"), std::string::npos) << "the table still prints";
  const std::string html = ReadFile(out);
  for (const char* id :
       {"summary", "breakdown", "critical-path", "roofline", "advice", "sources", "warnings"}) {
    EXPECT_EQ(Count(html, std::string("<section id=\"") + id + "\">"), 1u) << id;
  }
  EXPECT_NE(html.find("[joint] All together"), std::string::npos);
  EXPECT_NE(html.find("[parallel]"), std::string::npos);
  EXPECT_EQ(Count(html, "<svg "), 6u);
  EXPECT_GT(Count(html, "<circle "), 50u) << "googlenet's convolutions on the roofline";
  EXPECT_NE(html.find("<td>16, fp32, inference</td>"), std::string::npos);
  EXPECT_EQ(Count(html, "<script"), 0u);
  std::filesystem::remove(out);
}

TEST(HtmlCli, EstimateWritesTheReportWithoutAdvice) {
  const std::string out = TempPath("resnet18.html");
  const auto r = RunDlsim("estimate " + Zoo("resnet18") +
                          " --machine h100 --batch 4 --format json --html " + out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string html = ReadFile(out);
  EXPECT_EQ(Count(html, "<section id=\"roofline\">"), 1u);
  EXPECT_EQ(Count(html, "<section id=\"advice\">"), 0u);
  EXPECT_EQ(Count(html, "<svg "), 5u);
  EXPECT_NE(html.find("<td>4, fp32, inference</td>"), std::string::npos);
  std::filesystem::remove(out);
}

TEST(HtmlCli, UnwritablePathIsAUserErrorNamingIt) {
  const std::string bad = "/nonexistent-dlsim-dir/report.html";
  for (const char* command : {"analyze", "estimate"}) {
    const auto r = RunDlsim(std::string(command) + " " + Zoo("resnet18") +
                            " --machine h100 --batch 1 --html " + bad);
    EXPECT_EQ(r.exit_code, 1) << command << ": " << r.output;
    EXPECT_NE(r.output.find("cannot write " + bad + ": No such file or directory"),
              std::string::npos)
        << command << ": " << r.output;
  }
}

TEST(HtmlCli, HtmlDoesNotApplyToWorkloads) {
  const auto r = RunDlsim("estimate --workload " + std::string(DLSIM_SOURCE_DIR) +
                          "/workloads/resnet50-imagenet.yaml --machine h100 --html x.html");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("--html does not apply with --workload"), std::string::npos) << r.output;
}

}  // namespace

namespace {

TEST(HtmlCli, FomWritesThePageWithABarPerWorkload) {
  const std::string out = TempPath("fom.html");
  const auto r = RunDlsim("fom " + std::string(DLSIM_SOURCE_DIR) +
                          "/workloads/candle-fom-example.yaml --html " + out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("FOM = H(target)/H(baseline) = 82.597"), std::string::npos)
      << "the table still prints";
  const std::string html = ReadFile(out);
  for (const char* id : {"summary", "ratios", "workloads", "sources", "warnings"}) {
    EXPECT_EQ(Count(html, std::string("<section id=\"") + id + "\">"), 1u) << id;
  }
  EXPECT_NE(html.find("<th>FOM = H(target) / H(baseline)</th><td>82.597</td>"), std::string::npos);
  EXPECT_EQ(Count(html, "<rect "), 3u);
  EXPECT_NE(html.find("<title>P3: 241.438x</title>"), std::string::npos);
  EXPECT_EQ(Count(html, "<script"), 0u);
}

TEST(HtmlCli, FomHtmlToAnUnwritablePathNamesIt) {
  const auto r = RunDlsim("fom " + std::string(DLSIM_SOURCE_DIR) +
                          "/workloads/candle-fom-example.yaml --html /no/such/dir/fom.html");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("/no/such/dir/fom.html"), std::string::npos) << r.output;
}

}  // namespace
