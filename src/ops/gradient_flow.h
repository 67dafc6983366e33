// Which tensors of a training step carry a gradient: the weights (float
// parameters of more than one element) and every float output of a node that
// passes a gradient and reads one of them. Graph inputs and what derives from
// them alone carry none, so PyTorch runs no backward for them: no data
// gradient for a first convolution or linear layer, no backward at all for
// the nodes that prepare an input.
#ifndef DLSIM_SRC_OPS_GRADIENT_FLOW_H_
#define DLSIM_SRC_OPS_GRADIENT_FLOW_H_

#include <set>
#include <string>

#include "op_registry.h"

namespace dlsim {

// False for ops whose outputs carry no gradient back to their inputs
// (comparisons, arg-max, shapes) and for nodes without a float output.
bool PassesGradient(const LowerContext& ctx, const Node& node);

// A float parameter of more than one element.
bool IsWeight(const LowerContext& ctx, const std::string& name);

// The weights and the activations that derive from them.
std::set<std::string> TensorsNeedingGradient(const LowerContext& ctx);

}  // namespace dlsim

#endif  // DLSIM_SRC_OPS_GRADIENT_FLOW_H_
