// Replays the fuzz seed corpora and every input that once crashed a fuzz
// target (fuzz/regressions/<target>/) through the same entry points
// (fuzz/fuzz_entries.h), in the ordinary and sanitizer builds: a crash found
// by fuzzing stays fixed without clang or libFuzzer.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <string>

#include "../../fuzz/fuzz_entries.h"

namespace dlsim::fuzz {
namespace {

namespace fs = std::filesystem;

const std::map<std::string, std::function<bool(const std::string&)>>& Targets() {
  static const std::map<std::string, std::function<bool(const std::string&)>> targets = {
      {"onnx_import_fuzz", OnnxImport},
      {"machine_yaml_fuzz", MachineYaml},
      {"workload_yaml_fuzz", WorkloadYaml},
      {"training_job_fuzz", TrainingJobYaml},
      {"records_fuzz", Record},
      {"sweep_grid_fuzz", SweepGridSpecs},
      {"trace_fuzz", Trace},
      {"perfdb_file_fuzz", PerfDbFile},
  };
  return targets;
}

// Replays every file under fuzz/<kind>/<target>/; returns how many.
int Replay(const std::string& kind) {
  int count = 0;
  const fs::path root = fs::path(DLSIM_SOURCE_DIR) / "fuzz" / kind;
  if (!fs::exists(root)) return 0;
  for (const auto& dir : fs::directory_iterator(root)) {
    if (!dir.is_directory()) continue;
    auto target = Targets().find(dir.path().filename().string());
    if (target == Targets().end()) {
      ADD_FAILURE() << "no fuzz target named " << dir.path();
      continue;
    }
    for (const auto& file : fs::directory_iterator(dir.path())) {
      std::ifstream in(file.path(), std::ios::binary);
      const std::string bytes((std::istreambuf_iterator<char>(in)),
                              std::istreambuf_iterator<char>());
      EXPECT_TRUE(target->second(bytes)) << file.path();
      ++count;
    }
  }
  return count;
}

TEST(FuzzReplay, SeedCorporaRunClean) { EXPECT_GT(Replay("corpus"), 40); }

TEST(FuzzReplay, CrashRegressionsStayFixed) { Replay("regressions"); }

}  // namespace
}  // namespace dlsim::fuzz
