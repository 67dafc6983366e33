// Lowering: each ONNX node becomes the library calls a framework makes for
// it (Benanza's layer -> cuDNN/cuBLAS table, ../shared/seeds). The default
// policy mirrors PyTorch: no conv-activation fusion, bias added by a separate
// kernel, shape arithmetic on the host.
#ifndef DLSIM_OPS_LOWERING_H_
#define DLSIM_OPS_LOWERING_H_

#include <map>
#include <string>
#include <vector>

#include "dlsim/kernel/kernel_call.h"
#include "dlsim/model/graph.h"
#include "dlsim/util/loss.h"
#include "dlsim/util/optimizer.h"
#include "dlsim/util/precision.h"
#include "dlsim/util/status.h"

namespace dlsim {

struct LoweringOptions {
  DType dtype = DType::kFloat32;  // storage type of float tensors
  bool tf32_conv = true;   // fp32 convolutions may use TF32 (PyTorch default)
  bool tf32_gemm = false;  // fp32 GEMMs may use TF32 (PyTorch default: no)
  bool tf32_given = false;  // --tf32 was given (a warning when no call can use it)
  bool training = false;   // add backward calls (the optimizer is separate)
  // Training: the graph's float inputs carry gradients, as those of a block
  // exported alone from a larger model do. A whole model's inputs carry none,
  // and PyTorch computes no gradient for them (src/ops/gradient_flow.h).
  bool inputs_need_gradient = false;
  // Training: the loss over the graph's first output, its calls on the node
  // that writes it (src/ops/loss_calls.h).
  Loss loss = Loss::kNone;
  // Mixed precision as torch.autocast: `dtype` (fp16 or bf16) is the matrix
  // ops' dtype; weights, inputs and autocast's fp32 ops stay fp32, with the
  // casts between them (src/ops/autocast.h).
  bool autocast = false;
  // Fuse Conv(+bias)+Relu into cudnnConvolutionBiasActivationForward
  // (what Benanza's fused mode and inference engines do; PyTorch does not).
  bool fuse_conv_bias_act = false;
  Layout layout = Layout::kNchw;  // of image tensors, unless a node is channels_last
  bool strict = false;  // an unknown op is an error instead of a warning
};

// Sets `options` for a run in `precision`: its float storage type and, for
// fp32 and tf32, TF32 convolutions and (tf32 only) TF32 GEMMs; fp16 and bf16
// leave the TF32 flags as they are.
void SetPrecision(Precision precision, LoweringOptions* options);

// The math mode a float op of `dtype` runs in under `options`.
MathMode ConvMath(const LoweringOptions& options);
MathMode GemmMath(const LoweringOptions& options);

// A group of nodes that PyTorch runs as one op (src/ops/framework_fusion.h).
enum class FusedOp { kNone, kGelu, kSilu, kRnnStack, kAttention, kGroupNorm };

// An input that autocast casts before the node reads it.
struct InputCast {
  std::string tensor;
  DType to = DType::kFloat32;
};

struct LoweredNode {
  size_t node_index = 0;  // into Graph::nodes
  std::string name;
  std::string op_type;
  std::vector<KernelCall> calls;  // forward then backward calls
  bool known_op = true;           // false: priced by bytes moved, with a warning
  // On the node that launches a fused group's kernel: the group's op, the
  // tensors its kernel reads (gelu, silu: the input; attention: q, k^T, v)
  // and the group's nodes. The group's other nodes launch nothing.
  FusedOp fused_op = FusedOp::kNone;
  std::vector<std::string> fused_inputs;
  std::vector<size_t> fused_nodes;
  std::vector<InputCast> casts;  // autocast: inputs cast first
};

struct LoweredGraph {
  std::vector<LoweredNode> nodes;  // parallel to Graph::nodes
  std::vector<std::string> warnings;
  // Autocast: the run dtype of every float tensor (empty without autocast:
  // float tensors are in LoweringOptions::dtype).
  std::map<std::string, DType> autocast_dtype;
};

Result<LoweredGraph> LowerGraph(const Graph& graph, const LoweringOptions& options);

// The parameters an optimizer updates: their elements, their tensors, and
// the elements of the largest tensor (0: not known).
struct ParameterTensors {
  int64_t elements = 0;
  int64_t tensors = 0;
  int64_t largest_elements = 0;
};

// The optimizer update of `params`. With `fused`, PyTorch's multi-tensor
// path: SGD as its foreach ops run (a launch per op and batch of chunks),
// Adam as one launch over all parameters; otherwise a launch per tensor.
std::vector<KernelCall> LowerOptimizer(Optimizer optimizer, const ParameterTensors& params,
                                       bool fused, const LoweringOptions& options);

}  // namespace dlsim

#endif  // DLSIM_OPS_LOWERING_H_
