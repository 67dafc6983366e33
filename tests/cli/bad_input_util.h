// Shared helpers of the bad-input suites (issue 7): run the dlsim binary on
// generated hostile files and check it fails cleanly.
#ifndef DLSIM_TESTS_CLI_BAD_INPUT_UTIL_H_
#define DLSIM_TESTS_CLI_BAD_INPUT_UTIL_H_

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "scratch_dir.h"

namespace dlsim::badinput {

struct Outcome {
  int exit_code = -1;   // -1: killed by a signal (a crash)
  std::string output;   // stdout and stderr together
};

inline Outcome RunDlsim(const std::string& args) {
  const std::string cmd = std::string(DLSIM_BINARY) + " " + args + " 2>&1";
  Outcome r;
  FILE* pipe = popen(cmd.c_str(), "r");
  if (pipe == nullptr) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) r.output.append(buf.data(), n);
  const int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

// A fresh folder per test process for generated inputs, removed at exit.
inline std::filesystem::path WorkDir() { return dlsim::testing::ScratchDir(); }

inline std::string WriteFile(const std::string& name, const std::string& bytes) {
  const std::filesystem::path path = WorkDir() / name;
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << bytes;
  return path.string();
}

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

inline std::string SourcePath(const std::string& relative) {
  return std::string(DLSIM_SOURCE_DIR) + "/" + relative;
}

// Deterministic noise (an LCG), so a failure reproduces.
inline std::string Noise(size_t size, uint32_t seed) {
  std::string s(size, '\0');
  for (char& c : s) {
    seed = seed * 1664525u + 1013904223u;
    c = static_cast<char>(seed >> 24);
  }
  return s;
}

// One row of a bad-input table: `make` writes the inputs and returns the
// dlsim arguments; the run must exit with 1 ("dlsim: error: ...") and
// print every word of `words`.
struct BadCase {
  std::string name;  // gtest parameter name: [A-Za-z0-9_]
  std::function<std::string()> make;
  std::vector<std::string> words;
};

inline void PrintTo(const BadCase& c, std::ostream* os) { *os << c.name; }

inline std::string CaseName(const ::testing::TestParamInfo<BadCase>& info) {
  return info.param.name;
}

inline void ExpectCleanFailure(const BadCase& c) {
  const std::string args = c.make();
  const Outcome r = RunDlsim(args);
  // DLSIM_PRINT_MESSAGES=1 prints each case's message (docs/reliability.md).
  if (std::getenv("DLSIM_PRINT_MESSAGES") != nullptr) {
    std::printf("| %s | %d | `%s` |\n", c.name.c_str(), r.exit_code,
                r.output.substr(0, r.output.find('\n')).c_str());
  }
  EXPECT_EQ(r.exit_code, 1) << "dlsim " << args << "\n" << r.output;
  EXPECT_NE(r.output.find("dlsim: error: "), std::string::npos) << r.output;
  for (const std::string& word : c.words) {
    EXPECT_NE(r.output.find(word), std::string::npos)
        << "'" << word << "' not in the message of dlsim " << args << ":\n" << r.output;
  }
  for (const char* crash : {"check failed", "terminate called", "Sanitizer", "runtime error"}) {
    EXPECT_EQ(r.output.find(crash), std::string::npos) << r.output;
  }
}

}  // namespace dlsim::badinput

#endif  // DLSIM_TESTS_CLI_BAD_INPUT_UTIL_H_
