#include "output_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

namespace dlsim::cli {

Status WriteTextFile(const std::string& path, const std::string& text) {
  // stdio rather than ofstream: errno then says why ("No such file or directory").
  errno = 0;
  std::unique_ptr<FILE, int (*)(FILE*)> file(std::fopen(path.c_str(), "wb"), &std::fclose);
  if (file == nullptr) return IoError("cannot write " + path + ": " + std::strerror(errno));
  const size_t written = std::fwrite(text.data(), 1, text.size(), file.get());
  const bool flushed = std::fflush(file.get()) == 0;
  if (written != text.size() || !flushed) {
    return IoError("writing " + path + " failed: " + std::strerror(errno));
  }
  if (std::fclose(file.release()) != 0) {
    return IoError("writing " + path + " failed: " + std::strerror(errno));
  }
  return Status::Ok();
}

}  // namespace dlsim::cli
