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

bool IsAutocastCast(const KernelCall& call) {
  if (call.kind != KernelKind::kCopy) return false;
  const std::string op = call.StrParam("op", "");
  return op == "cast" || op == "cast_bwd";
}

// A batch norm in a convolution's node: one an exporter folded into the
// convolution, still a framework op of its own.
bool IsFoldedBatchNorm(const KernelCall& call, const KernelCall* first) {
  return first != nullptr && first->kind == KernelKind::kConvFwd &&
         (call.kind == KernelKind::kBatchNormInfer || call.kind == KernelKind::kBatchNormTrainFwd);
}

double NodeForwardDispatchS(const HostSpec& host, const std::vector<KernelCall>& calls) {
  const KernelCall* op = nullptr;
  int casts = 0;
  double folded_s = 0;
  for (const KernelCall& c : calls) {
    if (IsAutocastCast(c)) {
      if (c.phase == Phase::kForward) ++casts;
    } else if (op == nullptr) {
      op = &c;
    } else if (IsFoldedBatchNorm(c, op)) {
      folded_s += ForwardDispatchS(host, &c);
    }
  }
  return ForwardDispatchS(host, op) + folded_s + casts * DispatchS(host, "copy");
}

double NodeBackwardDispatchS(const HostSpec& host, const std::vector<KernelCall>& calls,
                             bool has_backward) {
  const KernelCall* op = nullptr;
  int casts = 0, folded = 0;
  for (const KernelCall& c : calls) {
    if (IsAutocastCast(c)) {
      if (c.phase == Phase::kBackward) ++casts;
    } else if (op == nullptr) {
      op = &c;
    } else if (IsFoldedBatchNorm(c, op)) {
      ++folded;  // its backward is an autograd node of its own
    }
  }
  return ((has_backward ? 1 : 0) + casts + folded) * DispatchS(host, "backward");
}

}  // namespace dlsim
