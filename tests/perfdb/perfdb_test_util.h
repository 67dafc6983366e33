// Helpers shared by the perfdb tests: fixture paths and fresh temp files.
#ifndef DLSIM_TESTS_PERFDB_PERFDB_TEST_UTIL_H_
#define DLSIM_TESTS_PERFDB_PERFDB_TEST_UTIL_H_

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "dlsim/perfdb/record.h"
#include "scratch_dir.h"

namespace dlsim::testing {

// An ok record of `key` at `seconds` on a synthetic GPU of `sms` SMs.
inline MeasurementRecord SyntheticRecord(const std::string& key, double seconds, int64_t sms,
                                         const std::string& algo = "-") {
  MeasurementRecord r;
  r.gpu_name = "Synthetic GPU";
  r.gpu_sms = sms;
  r.key = key;
  r.algo = algo;
  r.status = "ok";
  r.median_ms = seconds * 1e3;
  return r;
}

inline std::string Fixture(const std::string& name) {
  return std::string(DLSIM_TEST_DATA_DIR) + "/perfdb/" + name;
}

// A path in the test temp dir, unique per test and process, removed first.
inline std::string TempPath(const std::string& suffix) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string path = ScratchPath(std::string(info->test_suite_name()) + "_" + info->name() + "_" + suffix);
  std::remove(path.c_str());
  return path;
}

inline std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void WriteAll(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

}  // namespace dlsim::testing

#endif  // DLSIM_TESTS_PERFDB_PERFDB_TEST_UTIL_H_
