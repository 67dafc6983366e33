#include "dispatch.h"

namespace dlsim {

double DispatchS(const HostSpec& host, const std::string& key) {
  auto it = host.dispatch_s_by_kind.find(key);
  return it != host.dispatch_s_by_kind.end() ? it->second : host.dispatch_s;
}

double ForwardDispatchS(const HostSpec& host, const KernelCall* first) {
  if (first == nullptr) return DispatchS(host, "none");
  const std::string kind = KernelKindName(first->kind);
  auto it = host.dispatch_s_by_kind.find(kind + "." + DTypeName(first->dtype));
  return it != host.dispatch_s_by_kind.end() ? it->second : DispatchS(host, kind);
}

}  // namespace dlsim
