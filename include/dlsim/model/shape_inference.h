// dlsim's own shape inference and constant folding over a Graph whose graph
// inputs and initializers have static dims. Folds the integer shape
// subgraphs of PyTorch exports (Shape -> Gather -> Unsqueeze -> Concat ->
// Reshape, Range, Where, Expand, ...) so no tensor is left symbolic.
#ifndef DLSIM_MODEL_SHAPE_INFERENCE_H_
#define DLSIM_MODEL_SHAPE_INFERENCE_H_

#include <string>
#include <vector>

#include "dlsim/model/graph.h"
#include "dlsim/util/status.h"

namespace dlsim {

struct ShapeInferenceReport {
  // Ops that have no dlsim shape rule and were shaped by ONNX's own
  // inference result (or left as they were).
  std::vector<std::string> ops_without_rule;
};

// Infers dims (and small constant values) for every node output, in order.
// Fails naming the node when a shape cannot be made static or is invalid
// (negative dim, element count overflowing int64).
Status InferShapes(Graph& graph, ShapeInferenceReport* report);

}  // namespace dlsim

#endif  // DLSIM_MODEL_SHAPE_INFERENCE_H_
