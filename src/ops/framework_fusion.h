// Node groups that an ONNX export spells out but PyTorch runs as one kernel
// (private to src/ops). torch.onnx writes nn.GELU / F.gelu as
// x * 0.5 * (1 + erf(x / sqrt(2))): five pointwise nodes where PyTorch
// launches one gelu kernel (and one gelu_backward in training).
#ifndef DLSIM_SRC_OPS_FRAMEWORK_FUSION_H_
#define DLSIM_SRC_OPS_FRAMEWORK_FUSION_H_

#include <string>
#include <vector>

#include "dlsim/ops/op_registry.h"

namespace dlsim {

struct FusedGroup {
  std::string op;            // "gelu"
  std::string input;         // the tensor the fused kernel reads
  std::vector<size_t> nodes; // graph order; the last one launches the kernel
};

// Every erf-form GELU chain whose intermediate results have no other
// consumer.
std::vector<FusedGroup> FindFrameworkFusions(const LowerContext& ctx);

// The calls of a fused group: one pointwise kernel reading `input` and
// writing the last node's output (plus its backward in training).
std::vector<KernelCall> LowerFusedGroup(const LowerContext& ctx, const FusedGroup& group);

}  // namespace dlsim

#endif  // DLSIM_SRC_OPS_FRAMEWORK_FUSION_H_
