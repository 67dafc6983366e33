// The files a machine's calibration section names besides its database:
// algorithm_db (read by dlsim analyze) and issue_costs (read when scaling).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "dlsim/machine/machine_io.h"

namespace dlsim {
namespace {

std::string MachineWith(const std::string& calibration_lines) {
  return R"(name: x
device:
  name: Test GPU
  sm_count: 10
  peak_tflops: {fp32_vector: 10}
  memory_gib: 16
  memory_bw_gbs: 500
  l2_mib: 4
calibration:
  perf_db: x.sqlite
)" + calibration_lines;
}

std::string Normal(const std::string& path) {
  return std::filesystem::path(path).lexically_normal().string();
}

TEST(AlgorithmDb, ResolvedAgainstTheMachineFileAndNeedNotExist) {
  auto m = LoadMachineFromString(MachineWith("  algorithm_db: ../cal/x-cudnn.sqlite\n"),
                                 "/tmp/machines/x.yaml");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(Normal(m->calibration.algorithm_db), "/tmp/cal/x-cudnn.sqlite");
  EXPECT_EQ(m->calibration.db_gpu, "Test GPU");
}

TEST(CalibrationFiles, AbsentMeansNone) {
  auto m = LoadMachineFromString(MachineWith(""), "/tmp/machines/x.yaml");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_TRUE(m->calibration.algorithm_db.empty());
  EXPECT_TRUE(m->calibration.issue_costs.empty());
}

TEST(IssueCosts, AMissingTableNamesTheFieldAndThePath) {
  auto m = LoadMachineFromString(MachineWith("  issue_costs: ../cal/none.csv\n"), "/tmp/machines/x.yaml");
  ASSERT_FALSE(m.ok());
  const std::string text = m.status().ToString();
  EXPECT_NE(text.find("x.yaml: calibration.issue_costs: issue-cost table not found: /tmp/cal/none.csv"),
            std::string::npos)
      << text;
}

TEST(CalibrationFiles, BundledH100NamesItsCudnnDatabaseAndIssueCosts) {
  auto m = LoadMachine(std::string(DLSIM_SOURCE_DIR) + "/machines/h100.yaml");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(Normal(m->calibration.algorithm_db), std::string(DLSIM_SOURCE_DIR) + "/calibration/h100-cudnn.sqlite");
  EXPECT_EQ(Normal(m->calibration.issue_costs),
            std::string(DLSIM_SOURCE_DIR) + "/calibration/warm-l2/h100-issue.csv");
}

}  // namespace
}  // namespace dlsim
