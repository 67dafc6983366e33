#include "dlsim/kernel/kernel_call.h"

namespace dlsim {

ParsedKey KeyOf(const KernelCall& call) {
  return ParsedKey{call.kind, call.params, DTypeName(call.dtype), MathModeName(call.math),
                   LayoutName(call.layout)};
}

std::string KernelCall::Key() const {
  return FormatKernelKey(kind, params, DTypeName(dtype), MathModeName(math), LayoutName(layout));
}

int64_t KernelCall::IntParam(const std::string& name, int64_t fallback) const {
  for (const auto& [n, v] : params) {
    int64_t out = 0;
    if (n == name) return ParseKeyInt(v, &out) ? out : fallback;
  }
  return fallback;
}

std::string KernelCall::StrParam(const std::string& name, const std::string& fallback) const {
  for (const auto& [n, v] : params) {
    if (n == name) return v;
  }
  return fallback;
}

void KernelCall::AddParam(const std::string& name, int64_t value) {
  params.emplace_back(name, std::to_string(value));
}

void KernelCall::AddParam(const std::string& name, const std::string& value) {
  params.emplace_back(name, value);
}

}  // namespace dlsim
