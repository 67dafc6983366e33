// The InferShapes driver: runs each node's rule in topological order, falls
// back to ONNX's inference for ops without one, and validates every output.
#include "dlsim/model/shape_inference.h"

#include <algorithm>

#include "shape_rules.h"

namespace dlsim {
namespace {

const ShapeRuleTable& Rules() {
  static const ShapeRuleTable* table = [] {
    auto* t = new ShapeRuleTable();
    AddElementwiseRules(t);
    AddShapeOpRules(t);
    AddDataMovementRules(t);
    AddIndexingRules(t);
    AddNnRules(t);
    AddReductionRules(t);
    return t;
  }();
  return *table;
}

std::string NodeLabel(const Node& node) {
  return "node '" + node.name + "' (" + node.op_type + ")";
}

bool IsDefaultDomain(const std::string& domain) { return IsDefaultOnnxDomain(domain); }

// Creates (or clears) an entry for every output, and checks every input.
Status PrepareNode(Graph& graph, const Node& node) {
  for (const std::string& in : node.inputs) {
    if (!in.empty() && graph.FindTensor(in) == nullptr) {
      return InvalidArgument(NodeLabel(node) + ": input '" + in + "' is undefined");
    }
  }
  for (const std::string& out : node.outputs) {
    if (out.empty()) continue;
    Tensor& t = graph.tensors[out];
    t = Tensor();
    t.name = out;
  }
  return Status::Ok();
}

Status ApplyFallback(Graph& graph, const Node& node, const FallbackShapes& fallback) {
  for (const std::string& out : node.outputs) {
    if (out.empty()) continue;
    auto it = fallback.find(out);
    if (it == fallback.end() || it->second.dtype == DType::kUndefined) {
      return Unsupported(NodeLabel(node) + ": dlsim has no shape rule for " + node.op_type +
                         (node.domain.empty() ? "" : " (domain " + node.domain + ")") +
                         " and ONNX shape inference gave no static shape for output '" + out + "'");
    }
    Tensor& t = graph.tensors[out];
    t.dtype = it->second.dtype;
    t.dims = it->second.dims;
  }
  return Status::Ok();
}

Status ValidateOutputs(const Graph& graph, const Node& node) {
  for (const std::string& out : node.outputs) {
    if (out.empty()) continue;
    const Tensor& t = graph.tensors.at(out);
    for (int64_t d : t.dims) {
      if (d < 0) {
        return InvalidArgument(NodeLabel(node) + ": output '" + out + "' has negative dim " +
                               std::to_string(d) + " (" + ShapeToString(t.dims) + ")");
      }
    }
    if (CheckedNumElements(t.dims) < 0) {
      return OutOfRange(NodeLabel(node) + ": output '" + out + "' of shape " +
                        ShapeToString(t.dims) + " has more elements than int64 holds");
    }
  }
  return Status::Ok();
}

void Record(ShapeInferenceReport* report, const std::string& op_type) {
  if (report == nullptr) return;
  auto& ops = report->ops_without_rule;
  if (std::find(ops.begin(), ops.end(), op_type) == ops.end()) ops.push_back(op_type);
}

}  // namespace

bool HasShapeRule(const std::string& domain, const std::string& op_type) {
  return IsDefaultDomain(domain) && Rules().count(op_type) != 0;
}

Status InferShapes(Graph& graph, const FallbackShapes& fallback, ShapeInferenceReport* report) {
  for (const Node& node : graph.nodes) {
    DLSIM_RETURN_IF_ERROR(PrepareNode(graph, node));
    auto rule = IsDefaultDomain(node.domain) ? Rules().find(node.op_type) : Rules().end();
    if (rule != Rules().end()) {
      ShapeContext ctx(graph, node);
      DLSIM_RETURN_IF_ERROR(rule->second(ctx));
    } else {
      DLSIM_RETURN_IF_ERROR(ApplyFallback(graph, node, fallback));
      Record(report, node.op_type);
    }
    DLSIM_RETURN_IF_ERROR(ValidateOutputs(graph, node));
  }
  return Status::Ok();
}

Status InferShapes(Graph& graph, ShapeInferenceReport* report) {
  return InferShapes(graph, FallbackShapes(), report);
}

}  // namespace dlsim
