// Typed access to a kernel key's parameters, private to src/perfdb: the
// work formulas (work.cc) and the RNN algorithm choice (rnn_algo.cc) read
// keys through it, so both report a bad parameter the same way.
#ifndef DLSIM_SRC_PERFDB_KEY_PARAMS_H_
#define DLSIM_SRC_PERFDB_KEY_PARAMS_H_

#include <cstdint>
#include <cstdlib>
#include <string>

#include "dlsim/ops/kernel_call.h"
#include "dlsim/util/status.h"

namespace dlsim::perfdb_internal {

class Params {
 public:
  explicit Params(const ParsedKey& key) : key_(key) {}

  // A positive integer parameter (zero allowed when `allow_zero`).
  Result<int64_t> Int(const std::string& name, bool allow_zero = false) const {
    for (const auto& [n, v] : key_.params) {
      if (n != name) continue;
      char* end = nullptr;
      long long value = std::strtoll(v.c_str(), &end, 10);
      if (v.empty() || *end != '\0' || value < 0 || (value == 0 && !allow_zero)) {
        return InvalidArgument(Where() + ": parameter " + name + "=" + v +
                               " is not a positive integer");
      }
      return static_cast<int64_t>(value);
    }
    return InvalidArgument(Where() + ": missing parameter '" + name + "'");
  }
  std::string Str(const std::string& name) const {
    for (const auto& [n, v] : key_.params) {
      if (n == name) return v;
    }
    return "";
  }
  std::string Where() const { return std::string("kernel key of kind ") + KernelKindName(key_.kind); }

 private:
  const ParsedKey& key_;
};

}  // namespace dlsim::perfdb_internal

#endif  // DLSIM_SRC_PERFDB_KEY_PARAMS_H_
