// dlsim's own shape inference and constant folding over a Graph whose graph
// inputs and initializers have static dims. Folds the integer shape
// subgraphs of PyTorch exports (Shape -> Gather -> Unsqueeze -> Concat ->
// Reshape, Range, Where, Expand, ...) so no tensor is left symbolic.
#ifndef DLSIM_MODEL_SHAPE_INFERENCE_H_
#define DLSIM_MODEL_SHAPE_INFERENCE_H_

#include <map>
#include <string>
#include <vector>

#include "dlsim/model/graph.h"
#include "dlsim/util/status.h"

namespace dlsim {

// Folded contents are kept for tensors up to this many elements.
inline constexpr int64_t kMaxFoldedElements = 4096;

struct ShapeInferenceReport {
  // Ops (op_type, each once, in first-seen order) that have no dlsim shape
  // rule and were shaped from the fallback (ONNX's own inference).
  std::vector<std::string> ops_without_rule;
};

// Dtype and static dims by tensor name from another inference (the importer
// passes ONNX's own); consulted only for nodes with no dlsim rule.
using FallbackShapes = std::map<std::string, Tensor>;

// True when dlsim has its own shape rule for this op (default ONNX domain,
// or "ai.onnx").
bool HasShapeRule(const std::string& domain, const std::string& op_type);

// Infers dims (and small constant values) for every node output, in order.
// Fails naming the node when a shape cannot be made static or is invalid
// (negative dim, element count overflowing int64). `report` may be null.
Status InferShapes(Graph& graph, const FallbackShapes& fallback, ShapeInferenceReport* report);
// Same with no fallback: an op without a rule is an error.
Status InferShapes(Graph& graph, ShapeInferenceReport* report);

}  // namespace dlsim

#endif  // DLSIM_MODEL_SHAPE_INFERENCE_H_
