// Node groups that an ONNX export spells out but PyTorch runs as one kernel
// (private to src/ops). torch.onnx writes nn.GELU / F.gelu as
// x * 0.5 * (1 + erf(x / sqrt(2))): five pointwise nodes where PyTorch
// launches one gelu kernel (and one gelu_backward in training). A stacked
// nn.LSTM/nn.GRU exports one ONNX node per layer with Squeeze/Transpose/
// Reshape views between them, where PyTorch makes one multi-layer cuDNN
// call (which overlaps the layers' time steps). F.scaled_dot_product_attention
// (nn.MultiheadAttention, Hugging Face's "sdpa" attention) exports as
// Mul(q, sqrt(scale)), Mul(k^T, sqrt(scale)) -> MatMul -> [Add mask] ->
// Softmax -> [NaN guard] -> MatMul(., v), where PyTorch runs one fused
// attention kernel on strided views of q, k and v.
#ifndef DLSIM_SRC_OPS_FRAMEWORK_FUSION_H_
#define DLSIM_SRC_OPS_FRAMEWORK_FUSION_H_

#include <string>
#include <vector>

#include "op_registry.h"

namespace dlsim {

struct FusedGroup {
  std::string op;            // "gelu", "silu", "rnn_stack", "attention" or "group_norm"
  std::string input;         // the tensor the fused kernel reads
  std::vector<size_t> nodes; // graph order; the last one launches the kernel
  // attention: q, k^T, v and the output; whether a mask is added.
  std::vector<std::string> operands;
  bool masked = false;
  bool dropout = false;      // attention: a Dropout of the probabilities (training-mode export)
};

// Every erf-form GELU chain whose intermediate results have no other
// consumer, every SiLU written as x * Sigmoid(x), and every stack of two or more recurrent layers of one kind,
// hidden size and direction count whose layer outputs feed only the next
// layer (through view nodes), and every attention in the exported form of
// F.scaled_dot_product_attention (with the views around it that PyTorch
// does not materialise).
std::vector<FusedGroup> FindFrameworkFusions(const LowerContext& ctx);

// Whether `grouped` is `x` [n, c, ...] viewed as [n, groups, c / groups * ...]:
// the Reshape both exporters write before GroupNorm's InstanceNormalization
// (the group_norm fusion's and autocast's test for an exported GroupNorm).
bool IsGroupedView(const Graph& graph, const std::string& x, const std::string& grouped);

// The calls of a fused group. gelu, silu: one pointwise kernel reading `input`
// and writing the last node's output (plus its backward in training);
// rnn_stack: one multi-layer RNN call; attention: one fused attention call
// (plus its backward in training).
Result<std::vector<KernelCall>> LowerFusedGroup(const LowerContext& ctx, const FusedGroup& group);

// One cuDNN RNN call (plus its backward in training) for consecutive
// recurrent layers (lower_rnn.cc); `layers` holds one node per layer.
Status LowerRecurrentLayers(const LowerContext& ctx, const std::vector<const Node*>& layers,
                            std::vector<KernelCall>* calls);

}  // namespace dlsim

#endif  // DLSIM_SRC_OPS_FRAMEWORK_FUSION_H_
