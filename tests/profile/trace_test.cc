// Chrome-trace reading: kernels, launches, enclosing framework ops, errors.
#include "dlsim/profile/trace.h"

#include <gtest/gtest.h>

#include <string>

namespace dlsim {
namespace {

const char* kTwoKernels = R"({"deviceProperties":[{"name":"NVIDIA H100"}],"traceEvents":[
  {"ph":"X","cat":"cpu_op","name":"aten::conv2d","pid":1,"tid":7,"ts":1000,"dur":50},
  {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":7,"ts":1010,"dur":5,
   "args":{"correlation":11}},
  {"ph":"X","cat":"kernel","name":"k_second","pid":0,"tid":7,"ts":1100,"dur":20,
   "args":{"correlation":12,"stream":7}},
  {"ph":"X","cat":"kernel","name":"k_first","pid":0,"tid":7,"ts":1040,"dur":30,
   "args":{"correlation":11,"stream":7}},
  {"ph":"i","cat":"python_function","name":"ignored","ts":1}
]})";

TEST(ChromeTrace, KernelsSortedAndRebasedToTheFirstStart) {
  auto t = ParseChromeTrace(kTwoKernels, "t.json");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  ASSERT_EQ(t->kernels.size(), 2u);
  EXPECT_EQ(t->device, "NVIDIA H100");
  EXPECT_EQ(t->kernels[0].name, "k_first");
  EXPECT_DOUBLE_EQ(t->kernels[0].start_s, 0.0);
  EXPECT_NEAR(t->kernels[1].start_s, 60e-6, 1e-12);
  EXPECT_NEAR(t->kernel_time_s(), 50e-6, 1e-12);
  EXPECT_NEAR(t->span_s(), 80e-6, 1e-12);
  EXPECT_EQ(t->kernels[0].stream, 7);
}

TEST(ChromeTrace, LaunchAndFrameworkOpFromTheCorrelationId) {
  auto t = ParseChromeTrace(kTwoKernels, "t.json");
  ASSERT_TRUE(t.ok());
  const TraceKernel& k = t->kernels[0];
  EXPECT_TRUE(k.has_launch);
  EXPECT_NEAR(k.launch_s, -30e-6, 1e-12);  // launched 30 us before it started
  EXPECT_EQ(k.cpu_op, "aten::conv2d");
  EXPECT_FALSE(t->kernels[1].has_launch);  // correlation 12 has no runtime call
  EXPECT_EQ(t->kernels[1].cpu_op, "");
}

TEST(ChromeTrace, BareEventArrayIsATrace) {
  auto t = ParseChromeTrace(R"([{"ph":"X","cat":"kernel","name":"k","ts":5,"dur":2}])", "a.json");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->kernels.size(), 1u);
}

TEST(ChromeTrace, ErrorsNameTheFileAndWhatIsWrong) {
  auto truncated = ParseChromeTrace(std::string(kTwoKernels).substr(0, 100), "cut.json");
  ASSERT_FALSE(truncated.ok());
  EXPECT_NE(truncated.status().message().find("cut.json: not valid JSON at byte"), std::string::npos);

  auto no_events = ParseChromeTrace(R"({"schemaVersion":1})", "x.json");
  ASSERT_FALSE(no_events.ok());
  EXPECT_NE(no_events.status().message().find("no 'traceEvents' array"), std::string::npos);

  auto cpu_only = ParseChromeTrace(R"({"traceEvents":[{"ph":"X","cat":"cpu_op","ts":1,"dur":1}]})", "c.json");
  ASSERT_FALSE(cpu_only.ok());
  EXPECT_NE(cpu_only.status().message().find("no GPU kernel"), std::string::npos);

  auto bad_ts = ParseChromeTrace(R"({"traceEvents":[{"ph":"X","cat":"kernel","ts":"x","dur":1}]})", "b.json");
  ASSERT_FALSE(bad_ts.ok());
  EXPECT_NE(bad_ts.status().message().find("b.json: traceEvents[0]: kernel event without a numeric 'ts'"),
            std::string::npos);

  auto negative = ParseChromeTrace(R"({"traceEvents":[{"ph":"X","cat":"kernel","ts":1,"dur":-4}]})", "n.json");
  ASSERT_FALSE(negative.ok());
  EXPECT_NE(negative.status().message().find("negative 'dur'"), std::string::npos);
}

TEST(ChromeTrace, ReadRefusesMissingFilesAndDevices) {
  auto missing = ReadChromeTrace("/nonexistent/trace.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("/nonexistent/trace.json"), std::string::npos);
  auto device = ReadChromeTrace("/dev/zero");
  ASSERT_FALSE(device.ok());
  EXPECT_NE(device.status().message().find("not a regular file"), std::string::npos);
}

}  // namespace
}  // namespace dlsim
