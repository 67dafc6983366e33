#include "gradient_flow.h"

namespace dlsim {

bool PassesGradient(const LowerContext& ctx, const Node& node) {
  static const std::set<std::string> kNone = {
      "Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual", "Not", "And", "Or", "Xor",
      "ArgMax", "ArgMin", "NonZero", "IsNaN", "IsInf", "Shape", "Size"};
  if (kNone.count(node.op_type) != 0 || IsRandomOp(node.op_type)) return false;
  for (const std::string& out : node.outputs) {
    if (!out.empty() && IsFloatDType(ctx.T(out).dtype)) return true;
  }
  return false;
}

bool IsWeight(const LowerContext& ctx, const std::string& name) {
  const Tensor& t = ctx.T(name);
  return IsFloatDType(t.dtype) && ctx.IsParameter(name) && t.num_elements() > 1;
}

std::set<std::string> TensorsNeedingGradient(const LowerContext& ctx) {
  std::set<std::string> needs;
  if (ctx.options().inputs_need_gradient) {
    for (const std::string& in : ctx.graph().inputs) {
      if (!ctx.IsParameter(in) && IsFloatDType(ctx.T(in).dtype)) needs.insert(in);
    }
  }
  for (const Node& node : ctx.graph().nodes) {
    bool any = false;
    for (const std::string& in : node.inputs) {
      if (in.empty()) continue;
      if (IsWeight(ctx, in)) needs.insert(in);
      any = any || needs.count(in) != 0;
    }
    if (!any || !PassesGradient(ctx, node)) continue;
    for (const std::string& out : node.outputs) {
      if (!out.empty() && IsFloatDType(ctx.T(out).dtype)) needs.insert(out);
    }
  }
  return needs;
}

}  // namespace dlsim
