// The parameters each kernel kind requires, and typed access to a key's
// parameters. Work formulas, the RNN algorithm choice and dlsim-calibrate
// read keys through these, so all report a bad parameter the same way.
#ifndef DLSIM_SRC_KERNEL_KEY_PARAMS_H_
#define DLSIM_SRC_KERNEL_KEY_PARAMS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "dlsim/kernel/key.h"
#include "dlsim/util/status.h"

namespace dlsim {

// The integer parameters `kind` requires, in key order (docs/kernel-keys.md).
// String parameters (`op`, `mode`, `cell`, `act`) are checked where they are
// read.
const std::vector<std::string>& RequiredIntParams(KernelKind kind);

// Each of RequiredIntParams(key.kind) is present and a decimal integer.
// Errors name the key and the parameter.
Status CheckRequiredParams(const ParsedKey& key);

class KeyParams {
 public:
  explicit KeyParams(const ParsedKey& key) : key_(key) {}

  // A positive integer parameter (zero allowed when `allow_zero`). Errors:
  // missing, or not such an integer (names the key and the parameter).
  Result<int64_t> Int(const std::string& name, bool allow_zero = false) const;
  // A parameter's text; "" when absent.
  std::string Str(const std::string& name) const;
  // "kernel key '<key>'", the context of every error.
  std::string Where() const;

 private:
  const ParsedKey& key_;
};

}  // namespace dlsim

#endif  // DLSIM_SRC_KERNEL_KEY_PARAMS_H_
