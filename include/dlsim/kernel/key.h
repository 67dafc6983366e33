// A kernel key: the text that identifies one kernel configuration in job
// lists, measurement records and the performance database, the contract
// between `dlsim plan`, dlsim-calibrate and `dlsim db import`. Its form is
//   "<kind> k1=v1 k2=v2 ... dtype=<d> math=<m> layout=<l>"
// with the parameters in the fixed order the lowering writes them
// (docs/kernel-keys.md lists every kind's parameters).
#ifndef DLSIM_KERNEL_KEY_H_
#define DLSIM_KERNEL_KEY_H_

#include <string>
#include <utility>
#include <vector>

#include "dlsim/kernel/kernel_kind.h"
#include "dlsim/util/status.h"

namespace dlsim {

using KeyParamList = std::vector<std::pair<std::string, std::string>>;

// Parsed form of a key: kind, params in key order, dtype/math/layout.
struct ParsedKey {
  KernelKind kind;
  KeyParamList params;
  std::string dtype;
  std::string math;
  std::string layout;
};

// The text form of a key (the inverse of ParseKernelKey).
std::string FormatKernelKey(KernelKind kind, const KeyParamList& params, const std::string& dtype,
                            const std::string& math, const std::string& layout);
std::string FormatKernelKey(const ParsedKey& key);

// Errors ("kernel key '<key>': <problem>"): an unknown kind, a token that is
// not name=value, a missing dtype, math or layout; or "empty kernel key". Parameters are not checked here:
// CheckRequiredParams (key_params.h) does that.
Result<ParsedKey> ParseKernelKey(const std::string& key);

// A key parameter's value as a decimal int64: false when empty, followed by
// other text, or out of int64 range (strtoll would clamp it silently).
bool ParseKeyInt(const std::string& text, int64_t* out);

}  // namespace dlsim

#endif  // DLSIM_KERNEL_KEY_H_
