// GELU chains: Div(x, c) | Mul(x, c) -> Erf -> Add(., c) -> Mul -> Mul, where
// of the two final Muls one multiplies by x and the other by a constant.
// SiLU: Sigmoid(x) read only by Mul(x, Sigmoid(x)).
// RNN stacks: LSTM -> Squeeze -> LSTM -> ... (bidirectional layers:
// LSTM -> Transpose -> Reshape -> LSTM), every layer's Y read only by the
// views to the next layer.
// Attention: Mul(q, s) and Mul(k^T, s) -> MatMul -> [Add(mask)] -> Softmax
// -> [Where(IsNaN(p), 0, p)] -> [Dropout] -> MatMul(., v) (the scores and v
// possibly through float Casts, as a 16-bit model's export writes them), with s a scalar, k^T a
// Transpose of k or views ending in one, and the mask Where(m, 0, -inf) of a
// boolean m part of the group when the Add alone reads it; the view nodes that make q, k
// and v (Reshape, Transpose, Squeeze, Unsqueeze, a Gather of one slice, and
// in inference a Split of the packed projection)
// and, in inference, those that turn the output back into [batch, seq,
// embed] are part of the group (PyTorch's fused kernels read strided q, k, v
// and write [batch, seq, heads, dim]; its training path copies the output).
#include "framework_fusion.h"

#include <algorithm>
#include <set>

#include "attention_call.h"
#include "row_call.h"

namespace dlsim {
namespace {

// A node's position in the graph (nodes live in one vector).
size_t IndexOf(const LowerContext& ctx, const Node* node) {
  return static_cast<size_t>(node - ctx.graph().nodes.data());
}

class GeluMatcher {
 public:
  explicit GeluMatcher(const LowerContext& ctx) : ctx_(ctx) {}

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
    group->nodes = {IndexOf(ctx_, scale), IndexOf(ctx_, &erf), IndexOf(ctx_, add),
                    IndexOf(ctx_, m1), IndexOf(ctx_, m2)};
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
};

bool IsRecurrent(const Node& node) {
  return node.op_type == "LSTM" || node.op_type == "GRU" || node.op_type == "RNN";
}

class RnnStackMatcher {
 public:
  explicit RnnStackMatcher(const LowerContext& ctx) : ctx_(ctx) {}

  // A stack that starts at `node` (a layer not already in an earlier stack).
  bool Match(const Node& node, FusedGroup* group) {
    if (!IsRecurrent(node) || stacked_.count(&node) != 0) return false;
    std::vector<size_t> nodes = {IndexOf(ctx_, &node)};
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
      views.push_back(IndexOf(ctx_, next));
      next = next->outputs.size() == 1 ? ctx_.SoleConsumer(next->outputs[0]) : nullptr;
    }
    if (next == nullptr || !SameStack(layer, *next) || next->Input(0) != LastOutput(layer, views)) {
      return nullptr;
    }
    nodes->insert(nodes->end(), views.begin(), views.end());
    nodes->push_back(IndexOf(ctx_, next));
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
  std::set<const Node*> stacked_;
};

// SiLU (nn.SiLU, F.silu), which the export writes as Mul(x, Sigmoid(x)):
// PyTorch runs one silu kernel (and one silu_backward in training).
class SiluMatcher {
 public:
  explicit SiluMatcher(const LowerContext& ctx) : ctx_(ctx) {}

  bool Match(const Node& sigmoid, FusedGroup* group) const {
    if (sigmoid.op_type != "Sigmoid" || sigmoid.inputs.size() != 1 || sigmoid.outputs.size() != 1) {
      return false;
    }
    const std::string& x = sigmoid.inputs[0];
    const std::string& s = sigmoid.outputs[0];
    const Node* mul = ctx_.SoleConsumer(s);
    if (mul == nullptr || mul->op_type != "Mul" || mul->inputs.size() != 2 ||
        mul->outputs.size() != 1) {
      return false;
    }
    const bool x_times_s = mul->inputs[0] == x && mul->inputs[1] == s;
    const bool s_times_x = mul->inputs[0] == s && mul->inputs[1] == x;
    if (!x_times_s && !s_times_x) return false;
    group->op = "silu";
    group->input = x;
    group->nodes = {IndexOf(ctx_, &sigmoid), IndexOf(ctx_, mul)};
    std::sort(group->nodes.begin(), group->nodes.end());
    return true;
  }

 private:
  const LowerContext& ctx_;
};

// GroupNorm (nn.GroupNorm, F.group_norm), which both exporters write as
// Reshape(x, [N, G, -1]) -> InstanceNormalization -> Reshape(., shape(x))
// [-> Mul(., weight) -> Add(., bias)]: PyTorch runs one group_norm (in fp32
// under autocast) that saves x and the per-group statistics, not the
// normalised tensor the affine Mul reads.
class GroupNormMatcher {
 public:
  explicit GroupNormMatcher(const LowerContext& ctx) : ctx_(ctx) {}

  bool Match(const Node& norm, FusedGroup* group) const {
    if (norm.op_type != "InstanceNormalization" || norm.inputs.empty() || norm.outputs.size() != 1) {
      return false;
    }
    const Node* before = ctx_.Producer(norm.Input(0));
    if (before == nullptr || before->op_type != "Reshape" || ctx_.SoleConsumer(norm.Input(0)) != &norm) {
      return false;
    }
    const Node* after = Next(norm, "Reshape", false);
    if (after == nullptr || !Grouping(before->Input(0), norm.Input(0), after->outputs[0])) return false;
    std::vector<const Node*> nodes = {before, &norm, after};
    const Node* scale = Next(*after, "Mul", true);
    if (scale != nullptr) {
      nodes.push_back(scale);
      if (const Node* shift = Next(*scale, "Add", true)) nodes.push_back(shift);
    }
    group->op = "group_norm";
    group->input = norm.Input(0);
    group->nodes.clear();
    for (const Node* n : nodes) group->nodes.push_back(IndexOf(ctx_, n));
    std::sort(group->nodes.begin(), group->nodes.end());
    return group->nodes.back() == IndexOf(ctx_, nodes.back());
  }

 private:
  // x [n, c, ...] viewed as [n, groups, c / groups * ...] and back.
  bool Grouping(const std::string& x, const std::string& grouped, const std::string& back) const {
    return IsGroupedView(ctx_.graph(), x, grouped) && ctx_.T(back).dims == ctx_.T(x).dims;
  }

  // The sole reader of `node`'s output when it is an `op` node (with a
  // parameter as its other operand when `affine`).
  const Node* Next(const Node& node, const char* op, bool affine) const {
    if (node.outputs.size() != 1) return nullptr;
    const Node* next = ctx_.SoleConsumer(node.outputs[0]);
    if (next == nullptr || next->op_type != op || next->outputs.size() != 1) return nullptr;
    if (!affine) return next->Input(0) == node.outputs[0] ? next : nullptr;
    if (next->inputs.size() != 2) return nullptr;
    const std::string& other = next->inputs[0] == node.outputs[0] ? next->inputs[1] : next->inputs[0];
    return ctx_.IsParameter(other) ? next : nullptr;
  }

  const LowerContext& ctx_;
};

class AttentionMatcher {
 public:
  explicit AttentionMatcher(const LowerContext& ctx) : ctx_(ctx) {}

  // An attention whose softmax is `softmax`.
  bool Match(const Node& softmax, FusedGroup* group) const {
    if (softmax.op_type != "Softmax" || softmax.outputs.size() != 1) return false;
    std::vector<const Node*> nodes = {&softmax};
    std::string probs = NanGuarded(softmax.outputs[0], &nodes);
    const Node* dropout = ctx_.SoleConsumer(probs);
    if (dropout != nullptr && dropout->op_type == "Dropout" && dropout->Input(0) == probs &&
        !dropout->outputs.empty()) {
      nodes.push_back(dropout);
      probs = dropout->outputs[0];
    } else {
      dropout = nullptr;
    }
    const Node* pv = ctx_.SoleConsumer(probs);
    if (pv == nullptr || pv->op_type != "MatMul" || pv->Input(0) != probs) return false;
    nodes.push_back(pv);
    std::string scores = softmax.Input(0);
    const Node* add = ctx_.Producer(scores);
    const Node* reader = &softmax;  // the node that reads the scores
    if (add != nullptr && add->op_type == "Add" && ctx_.SoleConsumer(add->outputs[0]) == &softmax) {
      nodes.push_back(add);
      reader = add;
      const Node* a = ctx_.Producer(Uncast(add->Input(0), nullptr));
      const bool first = a != nullptr && a->op_type == "MatMul";
      AddMaskSelect(add->Input(first ? 1 : 0), &nodes);
      scores = add->Input(first ? 0 : 1);
    }
    const bool masked = reader != &softmax;
    const size_t before_casts = nodes.size();
    scores = Uncast(scores, &nodes);
    const Node* qk = ctx_.Producer(scores);
    const Node* qk_reader = nodes.size() > before_casts ? nodes[before_casts] : reader;
    if (qk == nullptr || qk->op_type != "MatMul" || ctx_.SoleConsumer(qk->outputs[0]) != qk_reader) {
      return false;
    }
    nodes.push_back(qk);
    std::string q, kt;
    if (!ScaledBy(qk->Input(0), &q, &nodes) || !ScaledBy(qk->Input(1), &kt, &nodes)) return false;
    // k^T [.., D, Sk]: Transpose(k), or views of k ending in one (the
    // dynamo exporter writes Reshape(Transpose(Reshape(k)))).
    const Node* kt_view = ctx_.Producer(kt);
    if (kt_view == nullptr || (kt_view->op_type != "Transpose" && kt_view->op_type != "Reshape")) {
      return false;
    }
    const std::string v = Uncast(pv->Input(1), &nodes);
    if (!ShapesAgree(q, kt, v)) return false;
    for (const std::string& operand : {q, kt, v}) AddViewsBefore(operand, &nodes);
    std::string out = pv->outputs[0];
    if (!ctx_.options().training) out = AddViewsAfter(out, &nodes);
    group->op = "attention";
    group->input = q;
    group->operands = {q, kt, v, pv->outputs[0]};
    group->masked = masked;
    group->dropout = dropout != nullptr && DropoutRatio(ctx_, *dropout) > 0;
    group->nodes.clear();
    for (const Node* n : nodes) group->nodes.push_back(IndexOf(ctx_, n));
    std::sort(group->nodes.begin(), group->nodes.end());
    return true;
  }

 private:
  // `name` through the Casts between float types that produce it, each the
  // sole reader of its input, adding them to `nodes` (when given). The
  // TorchScript exporter writes a 16-bit model's SDPA with an fp32 mask as
  // Cast(scores) + mask and Cast(v) to fp32; PyTorch's fused kernel reads
  // q, k, v and the mask as they are.
  std::string Uncast(std::string name, std::vector<const Node*>* nodes) const {
    for (const Node* c = ctx_.Producer(name);
         c != nullptr && c->op_type == "Cast" && !c->inputs.empty() &&
         IsFloatDType(ctx_.T(c->Input(0)).dtype) && IsFloatDType(ctx_.T(name).dtype) &&
         ctx_.SoleConsumer(c->Input(0)) == c;
         c = ctx_.Producer(name)) {
      if (nodes != nullptr) nodes->push_back(c);
      name = c->Input(0);
    }
    return name;
  }

  // The exporters guard fully masked rows: Where(IsNaN(p), 0, p) after the
  // softmax p, which PyTorch's fused kernels do inside. Returns the guarded
  // tensor (or `probs` when there is no guard) and adds the guard's nodes.
  std::string NanGuarded(const std::string& probs, std::vector<const Node*>* nodes) const {
    const Node* isnan = nullptr;
    const Node* where = nullptr;
    for (const Node* c : ctx_.Readers(probs)) {
      if (c->op_type == "IsNaN") isnan = c;
      if (c->op_type == "Where" && c->inputs.size() == 3 && c->Input(2) == probs) where = c;
    }
    if (isnan == nullptr || where == nullptr || ctx_.ConsumerCount(probs) != 2 ||
        where->Input(0) != isnan->outputs[0] || ctx_.SoleConsumer(isnan->outputs[0]) != where) {
      return probs;
    }
    nodes->push_back(isnan);
    nodes->push_back(where);
    return where->outputs[0];
  }

  // The mask the exporters build per attention from a boolean one,
  // Where(mask, 0, -inf), read only by the Add: PyTorch hands the boolean
  // mask to the fused kernel (or drops it when it is causal or all true).
  void AddMaskSelect(const std::string& mask, std::vector<const Node*>* nodes) const {
    const Node* where = ctx_.Producer(mask);
    if (where != nullptr && where->op_type == "Where" && where->inputs.size() == 3 &&
        ctx_.SoleConsumer(mask) != nullptr && IsScalar(where->Input(1)) && IsScalar(where->Input(2))) {
      nodes->push_back(where);
    }
  }

  // `name` = Mul(x, scalar) read only by the MatMul; `x` gets the other factor.
  bool ScaledBy(const std::string& name, std::string* x, std::vector<const Node*>* nodes) const {
    const Node* mul = ctx_.Producer(name);
    if (mul == nullptr || mul->op_type != "Mul" || mul->inputs.size() != 2 ||
        ctx_.SoleConsumer(name) == nullptr) {
      return false;
    }
    for (int i = 0; i < 2; ++i) {
      if (IsScalar(mul->inputs[i]) && !IsScalar(mul->inputs[1 - i])) {
        *x = mul->inputs[1 - i];
        nodes->push_back(mul);
        return true;
      }
    }
    return false;
  }

  bool IsScalar(const std::string& name) const {
    const Tensor* t = ctx_.graph().FindTensor(name);
    return t != nullptr && t->num_elements() == 1;
  }

  // q [.., Sq, D], k^T [.., D, Sk], v [.., Sk, Dv] of rank 3 or 4.
  bool ShapesAgree(const std::string& q, const std::string& kt, const std::string& v) const {
    const Shape& qs = ctx_.T(q).dims;
    const Shape& ks = ctx_.T(kt).dims;
    const Shape& vs = ctx_.T(v).dims;
    const size_t r = qs.size();
    return (r == 3 || r == 4) && ks.size() == r && vs.size() == r && qs[r - 1] == ks[r - 2] &&
           ks[r - 1] == vs[r - 2];
  }

  static bool IsView(const Node& node) {
    return node.op_type == "Reshape" || node.op_type == "Transpose" || node.op_type == "Squeeze" ||
           node.op_type == "Unsqueeze";
  }

  // A Split: torch.split, chunk or unbind (Split, then Squeeze), whose
  // pieces PyTorch hands out as views of the packed projection. In training
  // its backward concatenates the gradients, so it stays a copy there.
  bool IsSplitView(const Node& node) const {
    return node.op_type == "Split" && !node.inputs.empty() && !ctx_.options().training;
  }

  // The views (ending at a one-slice Gather) that produce `name`, each read
  // only by the next; a Split counts as one (IsSplitView).
  void AddViewsBefore(std::string name, std::vector<const Node*>* nodes) const {
    for (const Node* p = ctx_.Producer(name); p != nullptr && ctx_.SoleConsumer(name) != nullptr;
         p = ctx_.Producer(name)) {
      if (!IsView(*p) && !IsSelectGather(ctx_, *p) && !IsSplitView(*p)) return;
      if (std::find(nodes->begin(), nodes->end(), p) != nodes->end()) return;
      nodes->push_back(p);
      if (IsSelectGather(ctx_, *p)) return;
      name = p->Input(0);
    }
  }

  // The views that read the output, each the sole reader; returns the last one's output.
  std::string AddViewsAfter(std::string name, std::vector<const Node*>* nodes) const {
    for (const Node* c = ctx_.SoleConsumer(name); c != nullptr && (c->op_type == "Transpose" || c->op_type == "Reshape") &&
                                                  c->Input(0) == name && c->outputs.size() == 1;
         c = ctx_.SoleConsumer(name)) {
      nodes->push_back(c);
      name = c->outputs[0];
    }
    return name;
  }

  const LowerContext& ctx_;
};

std::vector<KernelCall> LowerAttention(const LowerContext& ctx, const FusedGroup& group) {
  const Shape& q = ctx.T(group.operands[0]).dims;
  const Shape& kt = ctx.T(group.operands[1]).dims;  // k^T
  const Shape& v = ctx.T(group.operands[2]).dims;
  const size_t r = q.size();
  AttentionShape shape;
  shape.batch = q[0];
  shape.heads = r == 4 ? q[1] : 1;
  shape.seq_q = q[r - 2];
  shape.seq_k = kt[r - 1];
  shape.head_dim = q[r - 1];
  shape.v_head_dim = v[r - 1];
  shape.masked = group.masked;
  shape.dropout = group.dropout;
  AttentionBytes bytes;
  bytes.q = ctx.Bytes(group.operands[0]);
  bytes.k = ctx.Bytes(group.operands[1]);
  bytes.v = ctx.Bytes(group.operands[2]);
  bytes.out = ctx.Bytes(group.operands[3]);
  return FusedAttentionCalls(ctx, shape, bytes);
}

}  // namespace

bool IsGroupedView(const Graph& graph, const std::string& x, const std::string& grouped) {
  const Tensor* xt = graph.FindTensor(x);
  const Tensor* gt = graph.FindTensor(grouped);
  if (xt == nullptr || gt == nullptr) return false;
  const Shape& xs = xt->dims;
  const Shape& gs = gt->dims;
  return xs.size() >= 3 && gs.size() == 3 && gs[0] == xs[0] && gs[1] > 0 && xs[1] % gs[1] == 0 &&
         NumElements(gs) == NumElements(xs);
}

std::vector<FusedGroup> FindFrameworkFusions(const LowerContext& ctx) {
  GeluMatcher gelu(ctx);
  SiluMatcher silu(ctx);
  RnnStackMatcher rnn(ctx);
  AttentionMatcher attention(ctx);
  GroupNormMatcher group_norm(ctx);
  std::vector<FusedGroup> groups;
  for (const Node& node : ctx.graph().nodes) {
    FusedGroup g;
    if (gelu.Match(node, &g) || silu.Match(node, &g) || rnn.Match(node, &g) ||
        attention.Match(node, &g) || group_norm.Match(node, &g)) {
      groups.push_back(std::move(g));
    }
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
  if (group.op == "attention") return LowerAttention(ctx, group);
  if (group.op == "group_norm") {
    // the first Reshape's input x [n, c, ...] in the groups of its output
    // [n, groups, -1]; affine when the group ends in the weight's Mul/Add
    const Node& reshape = ctx.graph().nodes[group.nodes.front()];
    const Shape& grouped = ctx.T(group.input).dims;
    const bool affine = ctx.graph().nodes[group.nodes.back()].op_type != "Reshape";
    DLSIM_RETURN_IF_ERROR(GroupNormCalls(ctx, reshape.Input(0), grouped.size() > 1 ? grouped[1] : 0,
                                         affine, &calls));
    return calls;
  }
  const Node& last = ctx.graph().nodes[group.nodes.back()];
  const std::string& out = last.outputs.at(0);
  const int64_t elems = ctx.Elems(out);
  calls.push_back(ElementwiseCall(ctx, group.op, elems, 1, ctx.Bytes(group.input), ctx.Bytes(out)));
  if (ctx.options().training) calls.push_back(ElementwiseBwdCall(ctx, group.op, elems, 2));
  return calls;
}

}  // namespace dlsim
