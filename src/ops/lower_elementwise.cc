// Pointwise ops and reductions -> memory-bound kernels.
#include <algorithm>
#include <cctype>

#include "op_registry.h"

namespace dlsim {
namespace {

std::string Lower(const std::string& s) {
  std::string out = s;
  for (char& ch : out) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return out;
}

// Reads every input (broadcast operands once), writes every output.
Status LowerPointwise(const LowerContext& ctx, const Node& node, std::vector<KernelCall>* calls) {
  if (IsLinearBiasAdd(ctx, node)) return Status::Ok();  // the MatMul's epilogue (lower_matmul.cc)
  const std::string& out = node.outputs.at(0);
  const int64_t elems = ctx.Elems(out);
  double read = 0;
  int arity = 0;
  for (const std::string& in : node.inputs) {
    if (in.empty()) continue;
    read += ctx.Bytes(in);
    if (ctx.Elems(in) == elems) ++arity;
  }
  double written = 0;
  for (const std::string& o : node.outputs) written += ctx.Bytes(o);
  calls->push_back(ElementwiseCall(ctx, Lower(node.op_type), elems, std::max(arity, 1),
                                   read, written));
  if (ctx.options().training) {
    // Gradient w.r.t. each full-size input reads dy (and a saved tensor).
    calls->push_back(ElementwiseBwdCall(ctx, Lower(node.op_type), elems, std::max(arity, 1) + 1));
  }
  return Status::Ok();
}

// A Dropout runs only in training (PyTorch's eval returns its input, and an
// export keeps the node only when made in training mode), and not at ratio
// 0: the fused kernel writes the output and a one-byte mask, the backward
// scales the gradient by the mask.
Status LowerDropout(const LowerContext& ctx, const Node& node, std::vector<KernelCall>* calls) {
  const std::string& out = node.outputs.at(0);
  if (!ctx.options().training || DropoutRatio(ctx, node) <= 0 || !IsFloatDType(ctx.T(out).dtype)) {
    return Status::Ok();
  }
  const int64_t elems = ctx.Elems(out);
  const double mask_bytes = static_cast<double>(elems);
  calls->push_back(ElementwiseCall(ctx, "dropout", elems, 1, ctx.Bytes(node.Input(0)),
                                   ctx.Bytes(out) + mask_bytes));
  KernelCall bwd = ElementwiseCall(ctx, "dropout_bwd", elems, 2, ctx.Bytes(out) + mask_bytes,
                                   ctx.Bytes(node.Input(0)));
  bwd.phase = Phase::kBackward;
  calls->push_back(bwd);
  return Status::Ok();
}

// torch.rand_like, randn_like, bernoulli: one kernel writing the random
// tensor, reading nothing of its input but the shape; no gradient.
Status LowerRandom(const LowerContext& ctx, const Node& node, std::vector<KernelCall>* calls) {
  const std::string& out = node.outputs.at(0);
  calls->push_back(ElementwiseCall(ctx, Lower(node.op_type), ctx.Elems(out), 1, 0, ctx.Bytes(out)));
  return Status::Ok();
}

Status LowerReduce(const LowerContext& ctx, const Node& node, std::vector<KernelCall>* calls) {
  const int64_t in_elems = ctx.Elems(node.Input(0));
  const int64_t out_elems = std::max<int64_t>(ctx.Elems(node.outputs.at(0)), 1);
  std::string op = Lower(node.op_type);
  if (op.rfind("reduce", 0) == 0) op = op.substr(6);
  calls->push_back(ReductionCall(ctx, op, in_elems, out_elems, ctx.Bytes(node.Input(0)),
                                 ctx.Bytes(node.outputs[0])));
  if (ctx.options().training) {
    calls->push_back(ElementwiseBwdCall(ctx, "reduce_" + op, in_elems, 1));
  }
  return Status::Ok();
}

}  // namespace

namespace {
constexpr const char* kPointwiseOps[] = {
    "Add", "Sub", "Mul", "Div", "Pow", "Sqrt", "Relu", "LeakyRelu", "PRelu", "Elu",
        "Selu", "Sigmoid", "HardSigmoid", "HardSwish", "Tanh", "Erf", "Exp", "Log",
        "Abs", "Neg", "Reciprocal", "Clip", "Max", "Min", "Sum", "Mean", "Softplus",
        "Gelu", "Mish", "Sign", "Floor", "Ceil", "Round", "Not", "And", "Or", "Xor",
        "Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual", "Where", "Mod",
        "Cos", "Sin", "IsNaN", "IsInf", "BitShift"};
constexpr const char* kRandomOps[] = {"RandomUniformLike", "RandomNormalLike", "Bernoulli",
                                      "RandomUniform", "RandomNormal"};
}  // namespace

bool IsLinearBiasAdd(const LowerContext& ctx, const Node& node) {
  if (node.op_type != "Add" || node.inputs.size() != 2) return false;
  for (int i = 0; i < 2; ++i) {
    const Tensor& bias = ctx.T(node.inputs[i]);
    const Node* mm = ctx.Producer(node.inputs[1 - i]);
    if (!ctx.IsParameter(node.inputs[i]) || bias.dims.size() != 1 || mm == nullptr) continue;
    if (mm->op_type != "MatMul" || ctx.SoleConsumer(node.inputs[1 - i]) != &node) continue;
    const Tensor& w = ctx.T(mm->Input(1));
    if (ctx.IsParameter(mm->Input(1)) && w.dims.size() == 2 && w.dims[1] == bias.dims[0]) return true;
  }
  return false;
}

double DropoutRatio(const LowerContext& ctx, const Node& node) {
  if (node.inputs.size() > 1 && !node.inputs[1].empty()) {
    const Tensor& ratio = ctx.T(node.inputs[1]);
    if (ratio.value && ratio.value->is_float && ratio.value->size() == 1) return ratio.value->floats[0];
    return 0.5;
  }
  return node.GetFloat("ratio", 0.5);
}

bool IsRandomOp(const std::string& op_type) {
  for (const char* op : kRandomOps) {
    if (op_type == op) return true;
  }
  return false;
}

bool IsPointwiseOp(const std::string& op_type) {
  for (const char* op : kPointwiseOps) {
    if (op_type == op) return true;
  }
  return false;
}

void RegisterElementwiseOps(OpRegistry& registry) {
  for (const char* op : kPointwiseOps) registry.Register(op, LowerPointwise);
  registry.Register("Dropout", LowerDropout);
  for (const char* op : kRandomOps) registry.Register(op, LowerRandom);
  for (const char* op : {"ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd",
                         "ReduceL2", "ReduceL1", "ReduceSumSquare", "ReduceLogSumExp",
                         "ArgMax", "ArgMin", "TopK", "CumSum"}) {
    registry.Register(op, LowerReduce);
  }
}

}  // namespace dlsim
