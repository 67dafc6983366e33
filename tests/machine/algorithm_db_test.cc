// calibration.algorithm_db: the all-algorithms database dlsim analyze reads.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "dlsim/machine/machine_io.h"

namespace dlsim {
namespace {

const std::string kMachine = R"(name: x
device:
  name: Test GPU
  sm_count: 10
  peak_tflops: {fp32_vector: 10}
  memory_gib: 16
  memory_bw_gbs: 500
  l2_mib: 4
calibration:
  perf_db: x.sqlite
  algorithm_db: ../cal/x-cudnn.sqlite
)";

TEST(AlgorithmDb, ResolvedAgainstTheMachineFileAndNeedNotExist) {
  auto m = LoadMachineFromString(kMachine, "/tmp/machines/x.yaml");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(std::filesystem::path(m->calibration.algorithm_db).lexically_normal().string(),
            "/tmp/cal/x-cudnn.sqlite");
  EXPECT_EQ(m->calibration.db_gpu, "Test GPU");
}

TEST(AlgorithmDb, AbsentMeansNone) {
  std::string text = kMachine;
  text.erase(text.find("  algorithm_db"));
  auto m = LoadMachineFromString(text, "/tmp/machines/x.yaml");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_TRUE(m->calibration.algorithm_db.empty());
}

TEST(AlgorithmDb, BundledH100NamesTheCudnnDatabase) {
  auto m = LoadMachine(std::string(DLSIM_SOURCE_DIR) + "/machines/h100.yaml");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(std::filesystem::path(m->calibration.algorithm_db).lexically_normal().string(),
            std::string(DLSIM_SOURCE_DIR) + "/calibration/h100-cudnn.sqlite");
}

}  // namespace
}  // namespace dlsim
