// WriteFileAtomically: all or nothing, every failure an IoError naming the
// path and the reason, the previous file kept, no temporary file left.
#include "dlsim/util/output_file.h"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <string>

#include "scratch_dir.h"

namespace dlsim {
namespace {

namespace fs = std::filesystem;

fs::path FreshDir(const std::string& name) {
  const fs::path dir = testing::ScratchDir() / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string Read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

int EntryCount(const fs::path& dir) {
  int n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++n;
  return n;
}

TEST(WriteFileAtomically, WritesAndReplacesKeepingThePermissions) {
  const fs::path dir = FreshDir("replace");
  const fs::path path = dir / "out.csv";
  ASSERT_TRUE(WriteFileAtomically(path.string(), "first\n").ok());
  EXPECT_EQ(Read(path), "first\n");
  ASSERT_EQ(chmod(path.c_str(), 0640), 0);
  ASSERT_TRUE(WriteFileAtomically(path.string(), "second\n").ok());
  EXPECT_EQ(Read(path), "second\n");
  EXPECT_EQ(fs::status(path).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  EXPECT_EQ(EntryCount(dir), 1);
}

TEST(WriteFileAtomically, FailedWriteKeepsThePreviousFileAndLeavesNoTemporary) {
  const fs::path dir = FreshDir("fail");
  const fs::path path = dir / "report.html";
  ASSERT_TRUE(WriteFileAtomically(path.string(), "previous good file\n").ok());
  // In a child: a 4 KiB file-size limit makes write(2) fail with EFBIG
  // partway through 64 KiB (SIGXFSZ ignored).
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    std::signal(SIGXFSZ, SIG_IGN);
    rlimit limit{4096, 4096};
    setrlimit(RLIMIT_FSIZE, &limit);
    const Status s = WriteFileAtomically(path.string(), std::string(65536, 'x'));
    const bool right = s.code() == StatusCode::kIoError &&
                       s.message() == "cannot write " + path.string() + ": write: File too large";
    _exit(right ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  EXPECT_EQ(Read(path), "previous good file\n");
  EXPECT_EQ(EntryCount(dir), 1);
}

TEST(WriteFileAtomically, DevicesAreWrittenInPlaceAndAFullOneIsAnError) {
  EXPECT_TRUE(WriteFileAtomically("/dev/null", "discarded").ok());
  const Status full = WriteFileAtomically("/dev/full", "lost");
  EXPECT_EQ(full.code(), StatusCode::kIoError);
  EXPECT_EQ(full.message(), "cannot write /dev/full: write: No space left on device");
  EXPECT_FALSE(fs::exists("/dev/full.tmp"));
}

TEST(WriteFileAtomically, FolderAndMissingFolderAreErrors) {
  const fs::path dir = FreshDir("folder");
  EXPECT_EQ(WriteFileAtomically(dir.string(), "x").message(), "cannot write " + dir.string() + ": is a folder");
  const Status missing = WriteFileAtomically((dir / "no" / "out.csv").string(), "x");
  EXPECT_EQ(missing.code(), StatusCode::kIoError);
  EXPECT_EQ(missing.message(),
            "cannot write " + (dir / "no" / "out.csv").string() + ": No such file or directory");
}

}  // namespace
}  // namespace dlsim
