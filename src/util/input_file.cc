#include "dlsim/util/input_file.h"

#include <filesystem>
#include <fstream>
#include <sstream>

namespace dlsim {

namespace fs = std::filesystem;

Status CheckInputFile(const std::string& path, const std::string& what, int64_t max_bytes) {
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (!fs::exists(st)) return NotFound(path + ": no such file");
  if (fs::is_directory(st)) return InvalidArgument(path + ": is a folder, not " + what);
  if (!fs::is_regular_file(st)) {
    return InvalidArgument(path + ": not a regular file (a device, FIFO or socket), not " + what);
  }
  const uintmax_t size = fs::file_size(path, ec);
  if (ec) return IoError(path + ": cannot read the size: " + ec.message());
  if (size > static_cast<uintmax_t>(max_bytes)) {
    return OutOfRange(path + ": " + std::to_string(size) + " bytes is more than the " +
                      std::to_string(max_bytes) + " bytes " + what + " may have");
  }
  return Status::Ok();
}

Result<std::string> ReadInputFile(const std::string& path, const std::string& what,
                                  int64_t max_bytes) {
  DLSIM_RETURN_IF_ERROR(CheckInputFile(path, what, max_bytes));
  std::ifstream in(path, std::ios::binary);
  if (!in) return IoError(path + ": cannot open for reading");
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) return IoError(path + ": read failed");
  return buffer.str();
}

}  // namespace dlsim
