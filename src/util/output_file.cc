#include "dlsim/util/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

namespace dlsim {
namespace {

Status Failed(const std::string& path, const std::string& what, int error) {
  return IoError("cannot write " + path + ": " + what + ": " + std::strerror(error));
}

// Writes all of `bytes` to `fd`, retrying short writes and EINTR.
bool WriteAll(int fd, const std::string& bytes, int* error) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      *error = n < 0 ? errno : ENOSPC;
      return false;
    }
    done += static_cast<size_t>(n);
  }
  return true;
}

// A device or FIFO: written in place (renaming would replace it).
Status WriteInPlace(const std::string& path, const std::string& bytes) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (fd < 0) return IoError("cannot write " + path + ": " + std::strerror(errno));
  int error = 0;
  const bool ok = WriteAll(fd, bytes, &error);
  if (::close(fd) != 0 && ok) return Failed(path, "close", errno);
  if (!ok) return Failed(path, "write", error);
  return Status::Ok();
}

mode_t NewFileMode(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) return st.st_mode & 07777;
  const mode_t mask = ::umask(0);  // read the umask: set it back at once
  ::umask(mask);
  return 0666 & ~mask;
}

}  // namespace

Status WriteFileAtomically(const std::string& path, const std::string& bytes) {
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return IoError("cannot write " + path + ": is a folder");
    if (!S_ISREG(st.st_mode)) return WriteInPlace(path, bytes);
  }
  std::string pattern = path + ".tmp.XXXXXX";
  std::vector<char> tmp(pattern.begin(), pattern.end());
  tmp.push_back('\0');
  const int fd = ::mkstemp(tmp.data());
  // As when opening the file itself: "cannot write DIR/x.html: No such file or directory".
  if (fd < 0) return IoError("cannot write " + path + ": " + std::strerror(errno));
  const std::string tmp_path(tmp.data());
  int error = 0;
  std::string step;
  if (::fchmod(fd, NewFileMode(path)) != 0) {
    error = errno;
    step = "chmod";
  } else if (!WriteAll(fd, bytes, &error)) {
    step = "write";
  } else if (::fsync(fd) != 0) {
    error = errno;
    step = "fsync";
  }
  if (::close(fd) != 0 && step.empty()) {
    error = errno;
    step = "close";
  }
  if (step.empty() && ::rename(tmp_path.c_str(), path.c_str()) != 0) {
    error = errno;
    step = "rename into place";
  }
  if (!step.empty()) {
    ::unlink(tmp_path.c_str());
    return Failed(path, step, error);
  }
  return Status::Ok();
}

}  // namespace dlsim
