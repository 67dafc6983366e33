#include "gradient_sums.h"

#include <map>
#include <set>
#include <string>

namespace dlsim {
namespace {

// Ops whose outputs carry no gradient back to their inputs.
bool PassesGradient(const LowerContext& ctx, const Node& node) {
  static const std::set<std::string> kNone = {
      "Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual", "Not", "And", "Or", "Xor",
      "ArgMax", "ArgMin", "NonZero", "IsNaN", "IsInf", "Shape", "Size"};
  if (kNone.count(node.op_type) != 0) return false;
  for (const std::string& out : node.outputs) {
    if (!out.empty() && IsFloatDType(ctx.T(out).dtype)) return true;
  }
  return false;
}

bool IsWeight(const LowerContext& ctx, const std::string& name) {
  const Tensor& t = ctx.T(name);
  return IsFloatDType(t.dtype) && ctx.IsParameter(name) && t.num_elements() > 1;
}

// Tensors that need a gradient: weights and what derives from them.
std::set<std::string> NeedingGradient(const LowerContext& ctx) {
  std::set<std::string> needs;
  for (const Node& node : ctx.graph().nodes) {
    if (!PassesGradient(ctx, node)) continue;
    bool any = false;
    for (const std::string& in : node.inputs) {
      any = any || (!in.empty() && (needs.count(in) != 0 || IsWeight(ctx, in)));
    }
    if (!any) continue;
    for (const std::string& out : node.outputs) {
      if (!out.empty() && IsFloatDType(ctx.T(out).dtype)) needs.insert(out);
    }
  }
  return needs;
}

KernelCall SumCall(const LowerContext& ctx, const std::string& name) {
  const Tensor& t = ctx.T(name);
  const DType dtype = ctx.IsParameter(name) ? DType::kFloat32 : ctx.RunDType(t);
  const double bytes = static_cast<double>(t.num_elements()) * DTypeBytes(dtype);
  KernelCall call = ElementwiseCall(ctx, "add", t.num_elements(), 2, 2 * bytes, bytes);
  call.dtype = dtype;
  call.phase = Phase::kBackward;
  // The autograd engine adds in C++, without an op of the framework's own to
  // dispatch: no own_op.
  return call;
}

}  // namespace

std::vector<std::pair<size_t, KernelCall>> GradientSumCalls(const LowerContext& ctx,
                                                            const std::vector<FusedGroup>& groups) {
  const Graph& graph = ctx.graph();
  std::map<const Node*, size_t> group_of;  // node -> index into groups
  for (size_t g = 0; g < groups.size(); ++g) {
    for (size_t n : groups[g].nodes) group_of[&graph.nodes[n]] = g;
  }
  auto group = [&](const Node* node) -> long {
    auto it = group_of.find(node);
    return it == group_of.end() ? -1 : static_cast<long>(it->second);
  };
  const std::set<std::string> needs = NeedingGradient(ctx);
  std::set<std::string> weights;
  for (const Node& node : graph.nodes) {
    for (const std::string& in : node.inputs) {
      if (!in.empty() && IsWeight(ctx, in) && ctx.T(in).dims.size() >= 2) weights.insert(in);
    }
  }
  std::vector<std::pair<size_t, KernelCall>> out;
  auto add = [&](const std::string& name, bool weight) {
    int grads = 0;
    const Node* first = nullptr;
    const long produced_in = weight ? -1 : group(ctx.Producer(name));
    std::set<long> groups_read;
    for (const Node* reader : ctx.Readers(name)) {
      if (!PassesGradient(ctx, *reader)) continue;
      const long g = group(reader);
      if (g >= 0 && g == produced_in) return;  // inside a fused op: no such tensor
      if (g >= 0 && !groups_read.insert(g).second) continue;  // the fused op reads it once
      ++grads;  // a node reading the tensor twice is listed twice
      if (first == nullptr) first = reader;
    }
    if (!graph.outputs.empty() && graph.outputs[0] == name) ++grads;  // the loss
    const Node* owner = weight ? first : ctx.Producer(name);
    if (owner == nullptr || grads < 2) return;
    const size_t index = static_cast<size_t>(owner - graph.nodes.data());
    for (int i = 1; i < grads; ++i) out.emplace_back(index, SumCall(ctx, name));
  };
  for (const std::string& name : needs) {
    if (!ctx.IsParameter(name)) add(name, false);  // an Identity of a weight is the weight
  }
  for (const std::string& name : weights) add(name, true);
  return out;
}

}  // namespace dlsim
