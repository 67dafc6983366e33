// ParseInputSpec: the --input NAME:D1xD2... syntax.
#include <cctype>
#include <limits>

#include "dlsim/model/onnx_import.h"

namespace dlsim {
namespace {

Result<int64_t> ParseDim(const std::string& text, const std::string& spec) {
  if (text.empty()) return InvalidArgument("input spec '" + spec + "' has an empty dim");
  int64_t value = 0;
  for (char c : text) {
    if (!std::isdigit(static_cast<unsigned char>(c))) {
      return InvalidArgument("input spec '" + spec + "': dim '" + text +
                             "' is not a positive integer");
    }
    if (value > (std::numeric_limits<int64_t>::max() - (c - '0')) / 10) {
      return InvalidArgument("input spec '" + spec + "': dim '" + text + "' is too large");
    }
    value = value * 10 + (c - '0');
  }
  if (value == 0) return InvalidArgument("input spec '" + spec + "': dims must be positive");
  return value;
}

}  // namespace

Result<std::pair<std::string, Shape>> ParseInputSpec(const std::string& spec) {
  const size_t colon = spec.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == spec.size()) {
    return InvalidArgument("input spec '" + spec +
                           "' is not NAME:D1xD2x... (e.g. "
                           "input_ids:16x128)");
  }
  const std::string name = spec.substr(0, colon);
  const std::string dims = spec.substr(colon + 1);
  Shape shape;
  size_t start = 0;
  while (true) {
    const size_t x = dims.find('x', start);
    DLSIM_ASSIGN_OR_RETURN(int64_t d, ParseDim(dims.substr(start, x - start), spec));
    shape.push_back(d);
    if (x == std::string::npos) break;
    start = x + 1;
  }
  return std::make_pair(name, shape);
}

Result<std::pair<std::string, int64_t>> ParseDimSpec(const std::string& spec) {
  const size_t eq = spec.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size()) {
    return InvalidArgument("dim spec '" + spec + "' is not NAME=N (e.g. seq=2048)");
  }
  DLSIM_ASSIGN_OR_RETURN(int64_t value, ParseDim(spec.substr(eq + 1), spec));
  return std::make_pair(spec.substr(0, eq), value);
}

}  // namespace dlsim
