#include "gradient_sums.h"

#include <map>
#include <set>
#include <string>

#include "gradient_flow.h"

namespace dlsim {
namespace {

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
  const std::set<std::string>& needs = ctx.TensorsNeedingGradient();  // set by LowerGraph
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
