// Autograd sums the gradients of a tensor that several differentiable inputs
// read (a residual branch, x * x, tied embedding weights): one add per extra
// reader, of the tensor's size in its gradient's dtype.
#ifndef DLSIM_SRC_OPS_GRADIENT_SUMS_H_
#define DLSIM_SRC_OPS_GRADIENT_SUMS_H_

#include <cstddef>
#include <utility>
#include <vector>

#include "dlsim/kernel/kernel_call.h"
#include "framework_fusion.h"
#include "op_registry.h"

namespace dlsim {

// The backward adds of a training step, each with the index of the node
// whose calls it joins: an activation's producer (its gradient is complete
// before that node's backward runs), a weight's first reader. Activations
// need a gradient when they derive from a weight (a float initializer of
// more than one element); weights of two or more dimensions are summed when
// read twice. Readers that pass no gradient (comparisons, arg-max, casts to
// integers) do not count; the graph's first output counts once more for the
// loss. The nodes of a framework fusion (a GELU, an attention) run as one op:
// they read a tensor once, and the tensors between them do not exist.
std::vector<std::pair<size_t, KernelCall>> GradientSumCalls(const LowerContext& ctx,
                                                            const std::vector<FusedGroup>& groups);

}  // namespace dlsim

#endif  // DLSIM_SRC_OPS_GRADIENT_SUMS_H_
