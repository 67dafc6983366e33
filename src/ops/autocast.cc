#include "autocast.h"

#include <set>

#include "framework_fusion.h"

namespace dlsim {
namespace {

enum class AutocastClass { kLow, kFp32, kPromote };

AutocastClass ClassOf(const std::string& op) {
  static const std::set<std::string> kLow = {"MatMul", "Gemm", "Conv", "ConvTranspose", "Einsum",
                                             "LSTM", "GRU", "RNN", "Attention"};
  static const std::set<std::string> kFp32 = {
      "Softmax", "LogSoftmax", "LayerNormalization", "GroupNormalization", "Exp", "Log", "Pow",
      "Reciprocal", "ReduceSum", "ReduceProd", "ReduceLogSumExp", "ReduceL1", "ReduceL2",
      "CumSum", "Softplus"};
  if (kLow.count(op)) return AutocastClass::kLow;
  if (kFp32.count(op)) return AutocastClass::kFp32;
  return AutocastClass::kPromote;
}

class Planner {
 public:
  Planner(const LowerContext& ctx, DType low) : ctx_(ctx), graph_(ctx.graph()), low_(low) {}

  AutocastPlan Run() {
    for (const auto& [name, t] : graph_.tensors) {
      if (IsFloat(t) && (t.is_graph_input || t.is_initializer)) plan_.tensor_dtype[name] = DType::kFloat32;
    }
    plan_.node_dtype.assign(graph_.nodes.size(), DType::kFloat32);
    plan_.casts.resize(graph_.nodes.size());
    plan_.grad_casts.resize(graph_.nodes.size());
    for (size_t i = 0; i < graph_.nodes.size(); ++i) PlanNode(i);
    return std::move(plan_);
  }

 private:
  bool IsFloat(const Tensor& t) const { return IsFloatDType(t.dtype) && t.dtype != DType::kFloat64; }

  const Tensor* FloatTensor(const std::string& name) const {
    if (name.empty()) return nullptr;
    const Tensor* t = graph_.FindTensor(name);
    return t != nullptr && IsFloat(*t) ? t : nullptr;
  }

  // Weights, constants and scalars: they keep their dtype and do not promote.
  bool IsFixed(const Tensor& t) const {
    const Node* p = ctx_.Producer(t.name);
    return t.is_initializer || t.num_elements() <= 1 ||
           (p != nullptr && (p->op_type == "Constant" || p->op_type == "Identity"));
  }

  DType DTypeOf(const std::string& name) const {
    auto it = plan_.tensor_dtype.find(name);
    return it == plan_.tensor_dtype.end() ? DType::kFloat32 : it->second;
  }

  void Cast(size_t node, const Tensor& t, DType to) {
    if (IsFixed(t) && t.num_elements() <= 1) return;  // scalars: no kernel
    if (t.is_initializer) {
      if (to != low_ || !cast_weights_.insert(t.name).second) return;  // cached a forward
    }
    plan_.casts[node].push_back(AutocastCast{t.name, to, !t.is_graph_input});
  }

  // Exporters write GroupNorm as Reshape -> InstanceNormalization ->
  // Reshape -> Mul -> Add; autocast runs group_norm in fp32 (instance_norm
  // itself is not on its lists), so such an InstanceNormalization is fp32.
  AutocastClass ClassOfNode(const Node& node) const {
    if (node.op_type == "InstanceNormalization" && !node.inputs.empty()) {
      const Node* p = ctx_.Producer(node.inputs[0]);
      if (p != nullptr && p->op_type == "Reshape" && !p->inputs.empty() &&
          IsGroupedView(graph_, p->inputs[0], node.inputs[0])) {
        return AutocastClass::kFp32;
      }
    }
    return ClassOf(node.op_type);
  }

  void PlanNode(size_t i) {
    const Node& node = graph_.nodes[i];
    const AutocastClass cls = ClassOfNode(node);
    DType dtype = DType::kFloat32;
    if (cls == AutocastClass::kLow) {
      dtype = low_;
    } else if (node.op_type == "Cast") {
      const Tensor* out = node.outputs.empty() ? nullptr : FloatTensor(node.outputs[0]);
      dtype = out != nullptr && out->dtype != DType::kFloat32 ? low_ : DType::kFloat32;
    } else if (cls == AutocastClass::kPromote) {
      // The widest activation input; batch norm's statistics do not promote.
      const size_t inputs = node.op_type == "BatchNormalization" ? 1 : node.inputs.size();
      bool any_activation = false;
      for (size_t k = 0; k < inputs && k < node.inputs.size(); ++k) {
        const Tensor* t = FloatTensor(node.inputs[k]);
        any_activation = any_activation || (t != nullptr && !IsFixed(*t));
      }
      if (any_activation && !HasFp32Activation(node, inputs)) dtype = low_;
    }
    plan_.node_dtype[i] = dtype;
    if (cls != AutocastClass::kPromote) {
      for (const std::string& in : node.inputs) {
        const Tensor* t = FloatTensor(in);
        if (t != nullptr && DTypeOf(in) != dtype && !(cls == AutocastClass::kFp32 && IsFixed(*t))) {
          Cast(i, *t, dtype);
        }
      }
      if (const Tensor* bias = LinearBias(node)) Cast(i, *bias, dtype);
    } else if (dtype == DType::kFloat32) {
      PlanGradCasts(i);
    }
    for (const std::string& out : node.outputs) {
      if (FloatTensor(out) != nullptr) plan_.tensor_dtype[out] = dtype;
    }
  }

  // The bias of nn.Linear on a 3-D input, MatMul(x, W) -> Add(., b): the Add
  // the GEMM's epilogue takes (IsLinearBiasAdd), which F.linear casts too.
  const Tensor* LinearBias(const Node& mm) const {
    if (mm.op_type != "MatMul" || mm.outputs.empty()) return nullptr;
    const Node* add = ctx_.SoleConsumer(mm.outputs[0]);
    if (add == nullptr || !IsLinearBiasAdd(ctx_, *add)) return nullptr;
    return FloatTensor(add->inputs[0] == mm.outputs[0] ? add->inputs[1] : add->inputs[0]);
  }

  // An fp32 node's full-size activation inputs in the low dtype.
  void PlanGradCasts(size_t i) {
    const Node& node = graph_.nodes[i];
    const Tensor* out = node.outputs.empty() ? nullptr : FloatTensor(node.outputs[0]);
    if (out == nullptr) return;
    std::set<std::string> seen;
    for (const std::string& in : node.inputs) {
      const Tensor* t = FloatTensor(in);
      if (t == nullptr || IsFixed(*t) || t->is_graph_input || DTypeOf(in) != low_ ||
          t->num_elements() != out->num_elements() || !seen.insert(in).second) {
        continue;
      }
      plan_.grad_casts[i].push_back(AutocastCast{in, low_, true});
    }
  }

  bool HasFp32Activation(const Node& node, size_t inputs) const {
    for (size_t k = 0; k < inputs && k < node.inputs.size(); ++k) {
      const Tensor* t = FloatTensor(node.inputs[k]);
      if (t != nullptr && !IsFixed(*t) && DTypeOf(t->name) == DType::kFloat32) return true;
    }
    return false;
  }

  const LowerContext& ctx_;
  const Graph& graph_;
  const DType low_;
  std::set<std::string> cast_weights_;
  AutocastPlan plan_;
};

}  // namespace

AutocastPlan PlanAutocast(const LowerContext& ctx, DType low) { return Planner(ctx, low).Run(); }

}  // namespace dlsim
