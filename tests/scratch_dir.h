// Scratch files of a test process: one folder under the system temp folder,
// removed with everything in it when the process exits, so that test runs
// leave nothing behind.
#ifndef DLSIM_TESTS_SCRATCH_DIR_H_
#define DLSIM_TESTS_SCRATCH_DIR_H_

#include <unistd.h>

#include <filesystem>
#include <string>
#include <system_error>

namespace dlsim::testing {

class ScratchFolder {
 public:
  ScratchFolder()
      : path_(std::filesystem::temp_directory_path() / ("dlsim_test_" + std::to_string(getpid()))) {
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ScratchFolder() {
    std::error_code ignored;  // a test may have made a file read-only: best effort
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchFolder(const ScratchFolder&) = delete;
  ScratchFolder& operator=(const ScratchFolder&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// This process's scratch folder (made on first use).
inline const std::filesystem::path& ScratchDir() {
  static const ScratchFolder folder;
  return folder.path();
}

// `name` in the scratch folder, as a string; its parent folders are made.
inline std::string ScratchPath(const std::string& name) {
  const std::filesystem::path path = ScratchDir() / name;
  std::filesystem::create_directories(path.parent_path());
  return path.string();
}

}  // namespace dlsim::testing

#endif  // DLSIM_TESTS_SCRATCH_DIR_H_
