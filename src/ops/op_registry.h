// The explicit per-op lowering registry: one table filled by
// RegisterBuiltinOps (no static self-registration).
#ifndef DLSIM_SRC_OPS_OP_REGISTRY_H_
#define DLSIM_SRC_OPS_OP_REGISTRY_H_

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "dlsim/kernel/kernel_call.h"
#include "dlsim/model/graph.h"
#include "dlsim/ops/lowering.h"
#include "dlsim/util/status.h"

namespace dlsim {

struct AutocastPlan;  // src/ops/autocast.h

// What a lowering function sees: the graph, the options and helpers that
// give tensor shapes and sizes at the compute dtype.
class LowerContext {
 public:
  LowerContext(const Graph& graph, const LoweringOptions& options);

  const Graph& graph() const { return graph_; }
  const LoweringOptions& options() const { return options_; }
  // The tensor named `name`; DLSIM_CHECKs that it exists (the importer
  // guarantees every node input and output does).
  const Tensor& T(const std::string& name) const;
  // Storage dtype at run time: float tensors take options.dtype (under
  // autocast, the plan's dtype of the tensor).
  DType RunDType(const Tensor& t) const;
  // Lowering under autocast reads tensor dtypes from `plan` (it must outlive
  // the context).
  void SetAutocast(const AutocastPlan* plan) { autocast_ = plan; }
  double Bytes(const std::string& name) const;  // 0 for "" (absent input)
  int64_t Elems(const std::string& name) const;
  // Number of nodes that read tensor `name`'s data (graph outputs count once;
  // Shape and Size nodes, which read only its shape, do not count).
  int ConsumerCount(const std::string& name) const;
  // The node producing `name`, or nullptr for graph inputs and initializers.
  const Node* Producer(const std::string& name) const;
  // The only node reading `name`, or nullptr when none or several do.
  const Node* SoleConsumer(const std::string& name) const;
  // Every node reading `name`'s data, in graph order (a node reading it
  // twice appears twice; Shape and Size nodes do not appear).
  const std::vector<const Node*>& Readers(const std::string& name) const;
  // True for a model parameter: an initializer, or the output of Identity
  // nodes over one (exporters share weights that way).
  bool IsParameter(const std::string& name) const;
  // A call of `kind` with dtype/math/layout filled from the options.
  KernelCall NewCall(KernelKind kind, const std::string& library_call,
                     MathMode math) const;
  // True when PyTorch holds tensor `name` in channels-last memory
  // (src/ops/memory_format.h).
  bool ChannelsLast(const std::string& name) const {
    return channels_last_.count(name) != 0;
  }
  // True when producing tensor `name` is a change of memory format PyTorch
  // makes without a kernel (a permute view).
  bool MemoryFormatView(const std::string& name) const { return format_views_.count(name) != 0; }
  // Training: whether tensor `name` carries a gradient (gradient_flow.h); the
  // set is given once by LowerGraph. False for every tensor in inference.
  void SetNeedsGradient(std::set<std::string> names) { needs_gradient_ = std::move(names); }
  bool NeedsGradient(const std::string& name) const { return needs_gradient_.count(name) != 0; }
  const std::set<std::string>& TensorsNeedingGradient() const { return needs_gradient_; }

 private:
  const Graph& graph_;
  const LoweringOptions& options_;
  std::map<std::string, int> consumers_;
  std::map<std::string, std::vector<const Node*>> readers_;
  std::map<std::string, const Node*> producer_;
  std::set<std::string> channels_last_;  // src/ops/memory_format.h
  std::set<std::string> format_views_;
  std::set<std::string> needs_gradient_;
  const AutocastPlan* autocast_ = nullptr;
};

// Appends the calls for `node` to `calls`.
using LowerFn = std::function<Status(const LowerContext&, const Node&,
                                     std::vector<KernelCall>*)>;

class OpRegistry {
 public:
  void Register(const std::string& op_type, LowerFn fn);
  // Ops that launch no kernel (views, shape arithmetic, constants).
  void RegisterNoKernel(const std::string& op_type);
  const LowerFn* Find(const std::string& op_type) const;
  bool IsNoKernel(const std::string& op_type) const;
  bool Knows(const std::string& op_type) const;

 private:
  std::map<std::string, LowerFn> fns_;
  std::set<std::string> no_kernel_;
};

// The registry with every built-in op family.
const OpRegistry& BuiltinOps();

// Family registration (one per src/ops/lower_<family>.cc).
void RegisterConvOps(OpRegistry& registry);
void RegisterMatMulOps(OpRegistry& registry);
void RegisterEinsumOps(OpRegistry& registry);
void RegisterNormalizationOps(OpRegistry& registry);
void RegisterPoolingOps(OpRegistry& registry);
void RegisterRnnOps(OpRegistry& registry);
void RegisterAttentionOps(OpRegistry& registry);

// Ops lowered to one pointwise kernel (Add, Mul, Relu, ...), which in
// PyTorch read inputs of any strides.
bool IsPointwiseOp(const std::string& op_type);

// True for Add(MatMul(x, W), b) with W and b parameters, b 1-D: nn.Linear
// exported on a 3-D+ input. PyTorch runs it as one GEMM with the bias in its
// epilogue (addmm), so the Add launches nothing; in training the MatMul's
// backward sums the bias gradient after its GEMMs, as addmm's does.
bool IsLinearBiasAdd(const LowerContext& ctx, const Node& node);

// Ops that make a random tensor (RandomUniformLike, Bernoulli, ...): one
// kernel each, no gradient.
bool IsRandomOp(const std::string& op_type);

// The probability a Dropout node drops: its ratio input (opset 12 on), else
// its attribute; 0.5, ONNX's default, when neither says.
double DropoutRatio(const LowerContext& ctx, const Node& node);

// A Gather of one slice along an axis (a rank-0 index: x[i]), which PyTorch
// returns as a view.
bool IsSelectGather(const LowerContext& ctx, const Node& node);
void RegisterElementwiseOps(OpRegistry& registry);
void RegisterDataMovementOps(OpRegistry& registry);

// Shared helpers for lowering functions.
KernelCall ElementwiseCall(const LowerContext& ctx, const std::string& op,
                           int64_t out_elems, int arity, double bytes_read,
                           double bytes_written);
// A backward pointwise call reading the output gradient (+ saved inputs).
KernelCall ElementwiseBwdCall(const LowerContext& ctx, const std::string& op,
                              int64_t elems, int arity);
// A copy of `elems` elements converting `from` to `to`: "cast" in the
// forward, "cast_bwd" (a gradient cast back) in the backward. Its key names
// the source dtype, as calibrate/torch_calibrate.py times a tensor of that
// dtype .to() the other.
KernelCall CastCopyCall(int64_t elems, DType from, DType to, Phase phase);
// The Relu that `conv` fuses with under fuse_conv_bias_act
// (cudnnConvolutionBiasActivationForward): the only reader of its output,
// unless a batch norm the exporter folded into the Conv runs between them;
// nullptr when none.
const Node* FusedRelu(const LowerContext& ctx, const Node& conv);
// A reduction ("sum", "max", ...) of `in_elems` elements to `out_elems`
// rows (rows = out_elems, cols = in_elems / out_elems).
KernelCall ReductionCall(const LowerContext& ctx, const std::string& op, int64_t in_elems,
                         int64_t out_elems, double bytes_read, double bytes_written);

}  // namespace dlsim

#endif  // DLSIM_SRC_OPS_OP_REGISTRY_H_
