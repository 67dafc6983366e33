// calibration.issue_costs: the issue-cost table a scaled machine reads.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "dlsim/machine/machine_io.h"

namespace dlsim {
namespace {

std::string Machine(const std::string& issue_costs) {
  return R"(name: x
device:
  name: Test GPU
  sm_count: 10
  peak_tflops: {fp32_vector: 10}
  memory_gib: 16
  memory_bw_gbs: 500
  l2_mib: 4
calibration:
  issue_costs: )" + issue_costs + "\n";
}

TEST(IssueCosts, AMissingTableNamesTheFieldAndThePath) {
  auto m = LoadMachineFromString(Machine("../cal/none.csv"), "/tmp/machines/x.yaml");
  ASSERT_FALSE(m.ok());
  const std::string text = m.status().ToString();
  EXPECT_NE(text.find("x.yaml: calibration.issue_costs: issue-cost table not found: /tmp/cal/none.csv"), std::string::npos)
      << text;
}

TEST(IssueCosts, BundledH100NamesItsTable) {
  auto m = LoadMachine(std::string(DLSIM_SOURCE_DIR) + "/machines/h100.yaml");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(std::filesystem::path(m->calibration.issue_costs).lexically_normal().string(),
            std::string(DLSIM_SOURCE_DIR) + "/calibration/warm-l2/h100-issue.csv");
}

}  // namespace
}  // namespace dlsim
