// GELU chains: Div(x, c) | Mul(x, c) -> Erf -> Add(., c) -> Mul -> Mul, where
// of the two final Muls one multiplies by x and the other by a constant.
// RNN stacks: LSTM -> Squeeze -> LSTM -> ... (bidirectional layers:
// LSTM -> Transpose -> Reshape -> LSTM), every layer's Y read only by the
// views to the next layer.
#include "framework_fusion.h"

#include <map>
#include <set>

namespace dlsim {
namespace {

class GeluMatcher {
 public:
  explicit GeluMatcher(const LowerContext& ctx) : ctx_(ctx) {
    for (size_t i = 0; i < ctx.graph().nodes.size(); ++i) index_[&ctx.graph().nodes[i]] = i;
  }

  bool Match(const Node& erf, FusedGroup* group) const {
    if (erf.op_type != "Erf" || erf.inputs.size() != 1) return false;
    const Node* scale = ctx_.Producer(erf.inputs[0]);
    std::string x;
    if (scale == nullptr || (scale->op_type != "Div" && scale->op_type != "Mul") ||
        ctx_.SoleConsumer(erf.inputs[0]) != &erf || !OtherIsConstant(*scale, &x, /*x_first_only=*/scale->op_type == "Div")) {
      return false;
    }
    const Node* add = Next(erf, "Add");
    std::string unused;
    if (add == nullptr || !OtherIsConstant(*add, &unused, false)) return false;
    const Node* m1 = Next(*add, "Mul");
    const Node* m2 = m1 != nullptr ? Next(*m1, "Mul") : nullptr;
    if (m2 == nullptr || !Multiplies(*m1, *m2, x)) return false;
    group->op = "gelu";
    group->input = x;
    group->nodes = {index_.at(scale), index_.at(&erf), index_.at(add), index_.at(m1), index_.at(m2)};
    return true;
  }

 private:
  // The sole consumer of `node`'s output when it is an `op` node.
  const Node* Next(const Node& node, const char* op) const {
    if (node.outputs.size() != 1) return nullptr;
    const Node* next = ctx_.SoleConsumer(node.outputs[0]);
    return next != nullptr && next->op_type == op && next->inputs.size() == 2 ? next : nullptr;
  }

  bool IsConstant(const std::string& name) const {
    const Tensor* t = ctx_.graph().FindTensor(name);
    return t != nullptr && (t->value.has_value() || ctx_.IsParameter(name)) && t->num_elements() == 1;
  }

  // A binary node with one constant scalar operand; `other` gets the rest.
  bool OtherIsConstant(const Node& node, std::string* other, bool x_first_only) const {
    if (node.inputs.size() != 2) return false;
    for (int i = 0; i < 2; ++i) {
      if (x_first_only && i == 0) continue;
      if (IsConstant(node.inputs[i])) {
        *other = node.inputs[1 - i];
        return true;
      }
    }
    return false;
  }

  // m1 takes the chain's value and m2 takes m1's; between them, one factor
  // is x and the other a constant.
  bool Multiplies(const Node& m1, const Node& m2, const std::string& x) const {
    auto has = [](const Node& n, const std::string& name) { return n.inputs[0] == name || n.inputs[1] == name; };
    auto has_constant = [&](const Node& n) { return IsConstant(n.inputs[0]) || IsConstant(n.inputs[1]); };
    return (has(m1, x) && has_constant(m2)) || (has_constant(m1) && has(m2, x));
  }

  const LowerContext& ctx_;
  std::map<const Node*, size_t> index_;
};

bool IsRecurrent(const Node& node) {
  return node.op_type == "LSTM" || node.op_type == "GRU" || node.op_type == "RNN";
}

class RnnStackMatcher {
 public:
  explicit RnnStackMatcher(const LowerContext& ctx) : ctx_(ctx) {
    for (size_t i = 0; i < ctx.graph().nodes.size(); ++i) index_[&ctx.graph().nodes[i]] = i;
  }

  // A stack that starts at `node` (a layer not already in an earlier stack).
  bool Match(const Node& node, FusedGroup* group) {
    if (!IsRecurrent(node) || stacked_.count(&node) != 0) return false;
    std::vector<size_t> nodes = {index_.at(&node)};
    const Node* layer = &node;
    while (const Node* next = NextLayer(*layer, &nodes)) {
      stacked_.insert(next);
      layer = next;
    }
    if (layer == &node) return false;
    group->op = "rnn_stack";
    group->input = node.Input(0);
    group->nodes = std::move(nodes);
    return true;
  }

 private:
  // The layer that reads `layer`'s Y through view nodes only, each the
  // sole reader of the tensor before it; appends the views and that layer.
  const Node* NextLayer(const Node& layer, std::vector<size_t>* nodes) const {
    if (layer.outputs.empty() || layer.outputs[0].empty()) return nullptr;
    std::vector<size_t> views;
    const Node* next = ctx_.SoleConsumer(layer.outputs[0]);
    while (next != nullptr && IsView(*next)) {
      views.push_back(index_.at(next));
      next = next->outputs.size() == 1 ? ctx_.SoleConsumer(next->outputs[0]) : nullptr;
    }
    if (next == nullptr || !SameStack(layer, *next) || next->Input(0) != LastOutput(layer, views)) {
      return nullptr;
    }
    nodes->insert(nodes->end(), views.begin(), views.end());
    nodes->push_back(index_.at(next));
    return next;
  }

  const std::string& LastOutput(const Node& layer, const std::vector<size_t>& views) const {
    return views.empty() ? layer.outputs[0] : ctx_.graph().nodes[views.back()].outputs[0];
  }

  static bool IsView(const Node& node) {
    return node.op_type == "Squeeze" || node.op_type == "Transpose" || node.op_type == "Reshape";
  }

  static bool SameStack(const Node& a, const Node& b) {
    return a.op_type == b.op_type && a.GetInt("hidden_size", 0) == b.GetInt("hidden_size", 0) &&
           a.GetString("direction", "forward") == b.GetString("direction", "forward") &&
           a.GetInt("layout", 0) == 0 && b.GetInt("layout", 0) == 0;
  }

  const LowerContext& ctx_;
  std::map<const Node*, size_t> index_;
  std::set<const Node*> stacked_;
};

}  // namespace

std::vector<FusedGroup> FindFrameworkFusions(const LowerContext& ctx) {
  GeluMatcher gelu(ctx);
  RnnStackMatcher rnn(ctx);
  std::vector<FusedGroup> groups;
  for (const Node& node : ctx.graph().nodes) {
    FusedGroup g;
    if (gelu.Match(node, &g) || rnn.Match(node, &g)) groups.push_back(std::move(g));
  }
  return groups;
}

Result<std::vector<KernelCall>> LowerFusedGroup(const LowerContext& ctx, const FusedGroup& group) {
  std::vector<KernelCall> calls;
  if (group.op == "rnn_stack") {
    std::vector<const Node*> layers;
    for (size_t n : group.nodes) {
      if (IsRecurrent(ctx.graph().nodes[n])) layers.push_back(&ctx.graph().nodes[n]);
    }
    DLSIM_RETURN_IF_ERROR(LowerRecurrentLayers(ctx, layers, &calls));
    return calls;
  }
  const Node& last = ctx.graph().nodes[group.nodes.back()];
  const std::string& out = last.outputs.at(0);
  const int64_t elems = ctx.Elems(out);
  calls.push_back(ElementwiseCall(ctx, group.op, elems, 1, ctx.Bytes(group.input), ctx.Bytes(out), 10));
  if (ctx.options().training) calls.push_back(ElementwiseBwdCall(ctx, group.op, elems, 2));
  return calls;
}

}  // namespace dlsim
