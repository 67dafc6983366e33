#include "external_data.h"

#include <cctype>
#include <filesystem>
#include <system_error>

namespace dlsim {
namespace {

namespace fs = std::filesystem;

bool IsAbsoluteLocation(const std::string& loc) {
  if (!loc.empty() && (loc[0] == '/' || loc[0] == '\\')) return true;
  // "C:..." drive letters: absolute on Windows, where the model may come from.
  return loc.size() >= 2 && loc[1] == ':' && std::isalpha(static_cast<unsigned char>(loc[0]));
}

bool HasDotDotComponent(const std::string& loc) {
  size_t start = 0;
  while (start <= loc.size()) {
    size_t end = loc.find_first_of("/\\", start);
    if (end == std::string::npos) end = loc.size();
    if (loc.compare(start, end - start, "..") == 0 && end - start == 2) return true;
    start = end + 1;
  }
  return false;
}

// True when `path` (canonical) is `dir` (canonical) or lies below it.
bool IsWithin(const fs::path& path, const fs::path& dir) {
  auto d = dir.begin();
  auto p = path.begin();
  for (; d != dir.end(); ++d, ++p) {
    if (d->empty()) continue;  // trailing separator
    if (p == path.end() || *p != *d) return false;
  }
  return true;
}

// Resolves `path` through every symlink that exists along it (including a
// dangling symlink as the last component), lexically for the rest.
fs::path Resolve(const fs::path& path, std::error_code& ec) {
  fs::path resolved = fs::weakly_canonical(path, ec);
  if (ec) return resolved;
  for (int hops = 0; hops < 32; ++hops) {
    std::error_code status_ec;  // a missing file is fine: nothing to follow
    if (!fs::is_symlink(fs::symlink_status(resolved, status_ec))) break;
    fs::path target = fs::read_symlink(resolved, ec);
    if (ec) return resolved;
    if (target.is_relative()) target = resolved.parent_path() / target;
    resolved = fs::weakly_canonical(target, ec);
    if (ec) return resolved;
  }
  return resolved.lexically_normal();
}

}  // namespace

Status ValidateExternalLocation(const std::string& model_path, const std::string& tensor_name,
                                const std::string& location) {
  const std::string what =
      model_path + ": tensor '" + tensor_name + "' external data location '" + location + "'";
  if (location.empty()) return ParseError(what + " is empty");
  if (IsAbsoluteLocation(location)) {
    return InvalidArgument(what +
                           " is an absolute path; only paths inside the model folder "
                           "are allowed");
  }
  if (HasDotDotComponent(location)) {
    return InvalidArgument(what +
                           " contains '..'; only paths inside the model folder are "
                           "allowed");
  }
  std::error_code ec;
  fs::path model_dir = fs::path(model_path).parent_path();
  if (model_dir.empty()) model_dir = ".";
  const fs::path dir = fs::weakly_canonical(fs::absolute(model_dir, ec), ec);
  if (ec) return IoError(what + ": cannot resolve the model folder: " + ec.message());
  const fs::path resolved = Resolve(dir / location, ec);
  if (ec) return IoError(what + ": cannot resolve: " + ec.message());
  if (!IsWithin(resolved, dir)) {
    return InvalidArgument(what + " resolves to '" + resolved.string() +
                           "', outside the model folder '" + dir.string() + "'");
  }
  return Status::Ok();
}

}  // namespace dlsim
