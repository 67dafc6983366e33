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

bool DispatchesInEager(const std::string& op_type) { return op_type != "Identity"; }

bool IsAutocastCast(const KernelCall& call) {
  if (call.kind != KernelKind::kCopy) return false;
  const std::string op = call.StrParam("op", "");
  return op == "cast" || op == "cast_bwd";
}

double NodeForwardDispatchS(const HostSpec& host, const std::vector<KernelCall>& calls) {
  const KernelCall* op = nullptr;
  int casts = 0;
  double own_s = 0;
  for (const KernelCall& c : calls) {
    if (IsAutocastCast(c)) {
      if (c.phase == Phase::kForward) ++casts;
    } else if (c.own_op) {
      if (c.phase == Phase::kForward) own_s += ForwardDispatchS(host, &c);
    } else if (op == nullptr) {
      op = &c;
    }
  }
  return ForwardDispatchS(host, op) + own_s + casts * DispatchS(host, "copy");
}

double NodeBackwardDispatchS(const HostSpec& host, const std::vector<KernelCall>& calls,
                             bool has_backward) {
  int casts = 0, own = 0;
  bool node_backward = false;  // a backward call that is the node's own
  for (const KernelCall& c : calls) {
    if (c.phase != Phase::kBackward) continue;
    if (IsAutocastCast(c)) {
      ++casts;
    } else if (c.own_op) {
      ++own;
    } else {
      node_backward = true;
    }
  }
  // has_backward: the layer's backward takes device time at all
  return ((has_backward && (node_backward || own == 0) ? 1 : 0) + casts + own) *
         DispatchS(host, "backward");
}

}  // namespace dlsim
