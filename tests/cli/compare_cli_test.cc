// dlsim compare end to end: the committed PyTorch profiler traces align with
// the ONNX layers, the JSON shape scripts read, and hostile trace files.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "bad_input_util.h"

namespace dlsim::badinput {
namespace {

std::string Compare(const std::string& model, const std::string& trace, const std::string& extra = "") {
  return "compare " + SourcePath("tests/data/zoo/" + model + ".onnx") + " --profile " +
         SourcePath("tests/data/traces/" + trace) + " --machine h100 --batch 16 " + extra;
}

nlohmann::json CompareJson(const std::string& model, const std::string& trace) {
  const std::string cmd = std::string(DLSIM_BINARY) + " " + Compare(model, trace, "--format json") + " 2>/dev/null";
  Outcome r;
  FILE* pipe = popen(cmd.c_str(), "r");
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) r.output.append(buf.data(), n);
  EXPECT_EQ(pclose(pipe), 0) << r.output;
  return nlohmann::json::parse(r.output);
}

// Three profiled forward passes of ResNet-18 (batch 16, fp32, H100): the
// trace's 369 kernels are 3 iterations of 123.
TEST(CompareCli, ResNet18TraceAlignsToTheLayers) {
  const nlohmann::json j = CompareJson("resnet18", "resnet18_b16_fp32.trace.json");
  EXPECT_EQ(j["iterations"], 3);
  EXPECT_EQ(j["kernel_count"], 369);
  EXPECT_NEAR(j["measured_gpu_ms"].get<double>(), j["kernel_time_ms"].get<double>() / 3, 1e-9);
  EXPECT_GE(j["aligned_share"].get<double>(), 0.95);
  // The zoo's export keeps the batch norms, so they are expected calls, not
  // folded ones the framework runs anyway.
  EXPECT_GE(j["expected_share"].get<double>(), 0.95);
  EXPECT_EQ(j["explained_ms"].get<double>(), 0);
  bool conv1 = false;
  for (const auto& l : j["layers"]) {
    if (l["name"] != "/conv1/Conv") continue;
    conv1 = true;
    EXPECT_GT(l["measured_ms"].get<double>(), 0);
    EXPECT_GT(l["estimated_ms"].get<double>(), 0);
  }
  EXPECT_TRUE(conv1);
}

TEST(CompareCli, BertTraceAlignsToTheLayers) {
  const nlohmann::json j = CompareJson("bert_base", "bert_base_b16_fp32.trace.json");
  EXPECT_EQ(j["iterations"], 3);
  EXPECT_GE(j["aligned_share"].get<double>(), 0.95);
  for (const char* key : {"model", "machine", "trace", "device", "measured_gpu_ms", "estimated_gpu_ms",
                          "expected_share", "coverage", "idle_ms", "layers", "findings"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  for (const auto& f : j["findings"]) {
    for (const char* key : {"kind", "title", "time_ms", "layers"}) EXPECT_TRUE(f.contains(key)) << key;
  }
}

TEST(CompareCli, TableAndCsv) {
  const std::string csv = (WorkDir() / "layers.csv").string();
  const Outcome r = RunDlsim(Compare("resnet18", "resnet18_b16_fp32.trace.json", "--top 5 --csv " + csv));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("3 iteration(s), 369 kernels"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("findings (per iteration, largest first)"), std::string::npos);
  const std::string rows = ReadFile(csv);
  EXPECT_EQ(rows.rfind("model,machine,batch,dtype,mode,layer,op_type,estimated_ms,measured_ms,ratio", 0), 0u);
  EXPECT_NE(rows.find("\nresnet18,h100,16,fp32,inference,/conv1/Conv,Conv,"), std::string::npos) << rows.substr(0, 400);
}

std::string TraceAt(const std::string& path) {
  return "compare " + SourcePath("tests/data/zoo/resnet18.onnx") + " --batch 16 --profile " + path;
}

std::string Trace(const std::string& name, const std::string& bytes) { return TraceAt(WriteFile(name, bytes)); }

const std::string kKernel = R"({"ph":"X","cat":"kernel","name":"k","ts":1,"dur":2})";

const BadCase kCases[] = {
    {"TraceMissing", [] { return TraceAt("/nonexistent/none.json"); }, {"none.json"}},
    {"TraceEmpty", [] { return Trace("empty.json", ""); }, {"empty.json", "not valid JSON"}},
    {"TraceTruncated",
     [] { return Trace("cut.json", ReadFile(SourcePath("tests/data/traces/resnet18_b16_fp32.trace.json")).substr(0, 5000)); },
     {"cut.json", "not valid JSON at byte", "truncated"}},
    {"TraceRandom", [] { return Trace("random.json", Noise(4000, 7)); }, {"random.json", "not valid JSON"}},
    {"TraceNotATrace", [] { return Trace("object.json", R"({"a": 1})"); }, {"object.json", "traceEvents"}},
    {"TraceCpuOnly",
     [] { return Trace("cpu.json", R"({"traceEvents":[{"ph":"X","cat":"cpu_op","ts":1,"dur":1}]})"); },
     {"cpu.json", "no GPU kernel", "ProfilerActivity.CUDA"}},
    {"TraceKernelWithoutTime",
     [] { return Trace("nots.json", R"({"traceEvents":[{"ph":"X","cat":"kernel","name":"k","dur":2}]})"); },
     {"nots.json", "traceEvents[0]", "'ts'"}},
    {"TraceNegativeDuration",
     [] { return Trace("neg.json", R"({"traceEvents":[{"ph":"X","cat":"kernel","ts":1,"dur":-1}]})"); },
     {"neg.json", "traceEvents[0]", "negative"}},
    {"TraceDevice", [] { return TraceAt("/dev/zero"); }, {"/dev/zero", "not a regular file"}},
    {"TraceFolder", [] { return TraceAt(WorkDir().string()); }, {"is a folder, not a trace file"}},
    {"IterationsNegative", [] { return Trace("ok.json", "[" + kKernel + "]") + " --iterations -2"; },
     {"--iterations", "-2"}},
    {"SlowerRatioBelowOne", [] { return Trace("ok2.json", "[" + kKernel + "]") + " --slower-ratio 0.5"; },
     {"--slower-ratio"}},
};

class BadTraceTest : public ::testing::TestWithParam<BadCase> {};

TEST_P(BadTraceTest, FailsCleanlyNamingFileAndPlace) { ExpectCleanFailure(GetParam()); }

INSTANTIATE_TEST_SUITE_P(Issue7, BadTraceTest, ::testing::ValuesIn(kCases), CaseName);

}  // namespace
}  // namespace dlsim::badinput
