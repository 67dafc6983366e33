// dlsim estimate --trace end to end: the tracks a user opens in Perfetto.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "bad_input_util.h"

namespace dlsim::badinput {
namespace {

// "process_name: NAME" and "thread_name: NAME" of every metadata event.
std::set<std::string> TrackNames(const std::string& extra) {
  const std::string path = (WorkDir() / "trace.json").string();
  const Outcome r = RunDlsim("estimate " + SourcePath("tests/data/models/tiny_cnn_opset17.onnx") +
                             " --machine h100 --batch 8 --quiet --trace " + path + " " + extra);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  const nlohmann::json j = nlohmann::json::parse(ReadFile(path));
  std::set<std::string> names;
  for (const nlohmann::json& ev : j["traceEvents"]) {
    EXPECT_TRUE(ev.contains("ts") || ev["ph"] == "M") << ev.dump();
    if (ev["ph"] == "M") names.insert(ev["name"].get<std::string>() + ": " + ev["args"]["name"].get<std::string>());
  }
  return names;
}

TEST(TraceCli, InferenceHasOneStreamCriticalPathHostAndEager) {
  const std::set<std::string> names = TrackNames("");
  for (const char* want : {"process_name: GPU (one stream)", "process_name: GPU (critical path)",
                           "process_name: host", "thread_name: dispatch", "process_name: GPU (eager)",
                           "thread_name: stream 0"}) {
    EXPECT_EQ(names.count(want), 1u) << want;
  }
  EXPECT_EQ(names.count("thread_name: all-reduce"), 0u);
}

TEST(TraceCli, DataParallelTrainingHasTheAllReduce) {
  EXPECT_EQ(TrackNames("--mode training --gpus 8").count("thread_name: all-reduce"), 1u);
  EXPECT_EQ(TrackNames("--mode training --gpus 8 --zero 2").count("thread_name: reduce-scatter / all-gather"), 1u);
}

}  // namespace
}  // namespace dlsim::badinput
