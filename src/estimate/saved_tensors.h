// What autograd keeps of one op for its backward (private to src/estimate):
// the rules of PyTorch's derivatives.yaml for the ops an ONNX graph holds.
#ifndef DLSIM_SRC_ESTIMATE_SAVED_TENSORS_H_
#define DLSIM_SRC_ESTIMATE_SAVED_TENSORS_H_

#include <functional>
#include <string>
#include <vector>

#include "dlsim/model/graph.h"
#include "dlsim/ops/lowering.h"

namespace dlsim {

struct SavedForBackward {
  std::vector<std::string> tensors;  // names of the node's inputs or outputs
  // Buffers written only for the backward (max-pool indices, the RNN reserve).
  double extra_bytes = 0;
};

// What the node saves when its output needs a gradient. `requires_grad`
// says which tensors need one; `float_bytes` is the node's float element size.
SavedForBackward SavedTensors(const Graph& graph, const Node& node, const LoweredNode& lowered,
                              const std::function<bool(const std::string&)>& requires_grad,
                              double float_bytes);

}  // namespace dlsim

#endif  // DLSIM_SRC_ESTIMATE_SAVED_TENSORS_H_
