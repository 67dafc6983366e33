#include "saved_tensors.h"

#include <algorithm>
#include <set>

#include "dlsim/model/onnx_import.h"

namespace dlsim {
namespace {

// Ops whose backward needs their output: relu, sigmoid, tanh, softmax, ...
bool SavesOutput(const std::string& op) {
  static const std::set<std::string> kOps = {"Relu",    "Sigmoid", "Tanh", "Softmax",
                                             "LogSoftmax", "Exp",  "Sqrt", "Reciprocal"};
  return kOps.count(op) != 0;
}

// Ops whose backward needs their (first) input: GELU, the norms (with their
// per-row statistics, which are small), pooling, ...
bool SavesInput(const std::string& op) {
  static const std::set<std::string> kOps = {
      "Erf", "Gelu", "LeakyRelu", "HardSwish", "HardSigmoid", "Elu", "Selu", "Celu", "Softplus",
      "Softsign", "Mish", "Log", "Pow", "Abs", "Sin", "Cos", "Atan", "Clip", "PRelu",
      "BatchNormalization", "LayerNormalization", "GroupNormalization", "InstanceNormalization",
      "LpNormalization", "AveragePool", "GlobalAveragePool", "MaxPool", "GlobalMaxPool",
      "ReduceMax", "ReduceMin", "ReduceL2", "Conv", "ConvTranspose", "Where", "Gather",
      "GatherElements", "GatherND", "LSTM", "GRU", "RNN"};
  return kOps.count(op) != 0;
}

// Products (matmul, mul, einsum): each input is saved for the others' gradients.
bool SavesInputsForEachOther(const std::string& op) {
  return op == "MatMul" || op == "Gemm" || op == "Mul" || op == "Einsum";
}

// Ops whose backward needs nothing but shapes: adds, views, copies, sums.
bool SavesNothing(const std::string& op) {
  static const std::set<std::string> kOps = {
      "Add", "Sub", "Neg", "Identity", "Reshape", "Flatten", "Squeeze", "Unsqueeze", "Transpose",
      "Concat", "Split", "Slice", "Expand", "Tile", "Cast", "CastLike", "ReduceMean", "ReduceSum",
      "Pad", "Resize", "Upsample", "Dropout", "Shape", "Size", "Constant", "ConstantOfShape",
      "Range", "Equal", "Less", "Greater", "Not", "And", "Or", "Trilu", "DepthToSpace",
      "SpaceToDepth", "Sign", "Floor", "Ceil", "Round"};
  return kOps.count(op) != 0;
}

// cuDNN's reserve space of recurrent layers in training: the gates and
// states of every time step (per output element: 4 gates + cell for LSTM,
// 3 gates + candidate for GRU, the pre-activation for a plain RNN).
double RecurrentReserveBytes(const Graph& graph, const Node& node, double float_bytes) {
  const Tensor* y = graph.FindTensor(node.outputs.empty() ? "" : node.outputs[0]);
  if (y == nullptr) return 0;
  const double per_elem = node.op_type == "LSTM" ? 5 : node.op_type == "GRU" ? 4 : 1;
  return static_cast<double>(y->num_elements()) * per_elem * float_bytes;
}

SavedForBackward FusedSaved(const Graph& graph, const Node& node, const LoweredNode& ln,
                            double float_bytes) {
  SavedForBackward s;
  s.tensors = ln.fused_inputs;  // gelu, silu: x; attention: q, k^T, v
  if (ln.fused_op == FusedOp::kAttention) {
    s.tensors.push_back(node.outputs[0]);  // flash / memory-efficient: no score matrix
  }
  if (ln.fused_op == FusedOp::kRnnStack) {
    for (size_t i : ln.fused_nodes) {
      const Node& layer = graph.nodes[i];
      if (layer.op_type != "LSTM" && layer.op_type != "GRU" && layer.op_type != "RNN") continue;
      s.extra_bytes += RecurrentReserveBytes(graph, layer, float_bytes);
    }
  }
  return s;
}

}  // namespace

SavedForBackward SavedTensors(const Graph& graph, const Node& node, const LoweredNode& lowered,
                              const std::function<bool(const std::string&)>& requires_grad,
                              double float_bytes) {
  if (lowered.fused_op != FusedOp::kNone) return FusedSaved(graph, node, lowered, float_bytes);
  SavedForBackward s;
  const std::string& op = node.op_type;
  if (SavesOutput(op)) {
    s.tensors.push_back(node.outputs[0]);
  } else if (SavesInputsForEachOther(op)) {
    const size_t n = op == "Gemm" ? std::min<size_t>(2, node.inputs.size()) : node.inputs.size();
    for (size_t i = 0; i < n; ++i) {
      for (size_t j = 0; j < n; ++j) {
        if (j != i && requires_grad(node.inputs[j])) {
          s.tensors.push_back(node.inputs[i]);
          break;
        }
      }
    }
  } else if (op == "Div") {
    if (node.inputs.size() == 2 && requires_grad(node.inputs[1])) s.tensors.push_back(node.inputs[0]);
    if (node.inputs.size() == 2) s.tensors.push_back(node.inputs[1]);
  } else if (SavesInput(op)) {
    s.tensors.push_back(op == "Gather" && node.inputs.size() > 1 ? node.inputs[1] : node.inputs[0]);
    if (op == "LSTM" || op == "GRU" || op == "RNN") {
      for (const std::string& out : node.outputs) s.tensors.push_back(out);
      s.extra_bytes = RecurrentReserveBytes(graph, node, float_bytes);
    }
    if (op == "Conv" && node.GetInt(kFoldedBatchNormAttr, 0) == 1) {
      // the batch norm the exporter folded in: it saves the convolution's
      // output and writes its own (the block the conv's readers read)
      const Tensor* y = graph.FindTensor(node.outputs[0]);
      if (y != nullptr) s.extra_bytes = static_cast<double>(y->num_elements()) * float_bytes;
    }
    if (op == "MaxPool" && node.outputs.size() == 1) {  // the int64 argmax indices
      const Tensor* y = graph.FindTensor(node.outputs[0]);
      if (y != nullptr) s.extra_bytes = static_cast<double>(y->num_elements()) * 8;
    }
  } else if (op == "Dropout") {  // the one-byte mask, when training runs it
    for (const KernelCall& c : lowered.calls) {
      if (c.StrParam("op", "") == "dropout") s.extra_bytes = static_cast<double>(c.IntParam("elems", 0));
    }
  } else if (!SavesNothing(op) && !node.inputs.empty()) {
    s.tensors.push_back(node.inputs[0]);  // an op dlsim has no rule for: its input
  }
  return s;
}

}  // namespace dlsim
