#include "dlsim/kernel/key.h"

#include <cerrno>
#include <cstdlib>
#include <sstream>

namespace dlsim {

std::string FormatKernelKey(KernelKind kind, const KeyParamList& params, const std::string& dtype,
                            const std::string& math, const std::string& layout) {
  std::string key = KernelKindName(kind);
  for (const auto& [name, value] : params) key += " " + name + "=" + value;
  key += " dtype=" + dtype;
  key += " math=" + math;
  key += " layout=" + layout;
  return key;
}

std::string FormatKernelKey(const ParsedKey& key) {
  return FormatKernelKey(key.kind, key.params, key.dtype, key.math, key.layout);
}

bool ParseKeyInt(const std::string& text, int64_t* out) {
  if (text.empty()) return false;
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (errno != 0 || end == text.c_str() || *end != '\0') return false;
  *out = v;
  return true;
}

Result<ParsedKey> ParseKernelKey(const std::string& key) {
  std::istringstream in(key);
  std::string kind_name;
  if (!(in >> kind_name)) return ParseError("empty kernel key");
  auto kind = KernelKindFromName(kind_name);
  if (!kind.ok()) return kind.status().WithContext("kernel key '" + key + "'");
  ParsedKey parsed{*kind, {}, "", "", ""};
  std::string token;
  while (in >> token) {
    size_t eq = token.find('=');
    if (eq == std::string::npos || eq == 0) {
      return ParseError("kernel key '" + key + "': token '" + token + "' is not name=value");
    }
    std::string name = token.substr(0, eq), value = token.substr(eq + 1);
    if (name == "dtype") parsed.dtype = value;
    else if (name == "math") parsed.math = value;
    else if (name == "layout") parsed.layout = value;
    else parsed.params.emplace_back(name, value);
    // Written as an integer, it must fit int64.
    const size_t sign = value.size() > 1 && value[0] == '-' ? 1 : 0;
    int64_t ignored = 0;
    if (value.size() > sign && value.find_first_not_of("0123456789", sign) == std::string::npos &&
        !ParseKeyInt(value, &ignored)) {
      return ParseError("kernel key '" + key + "': parameter " + token +
                        " is not an integer in int64 range");
    }
  }
  const std::string where = "kernel key '" + key + "': ";
  if (parsed.dtype.empty()) return ParseError(where + "missing dtype");
  if (parsed.math.empty()) return ParseError(where + "missing math");
  if (parsed.layout.empty()) return ParseError(where + "missing layout");
  return parsed;
}

}  // namespace dlsim
