#include "dlsim/ops/lowering.h"

#include <algorithm>

#include "op_registry.h"
#include "autocast.h"
#include "kernel/work.h"
#include "foreach_optimizer.h"
#include "framework_fusion.h"
#include "gradient_flow.h"
#include "gradient_sums.h"
#include "loss_calls.h"

namespace dlsim {
namespace {

// True when every output of `node` has contents known at import time: the
// node is shape arithmetic that a framework does on the host.
bool FoldedOnHost(const Graph& graph, const Node& node) {
  if (node.outputs.empty()) return false;
  for (const std::string& out : node.outputs) {
    if (out.empty()) continue;
    const Tensor* t = graph.FindTensor(out);
    if (t == nullptr || !t->value.has_value()) return false;
  }
  return true;
}

// Unknown op: priced by bytes moved (read inputs, write outputs).
KernelCall UnknownOpCall(const LowerContext& ctx, const Node& node) {
  KernelCall call = ctx.NewCall(KernelKind::kCopy, "unknown:" + node.op_type,
                                MathMode::kFp32);
  double read = 0, written = 0;
  int64_t elems = 0;
  for (const std::string& in : node.inputs) read += ctx.Bytes(in);
  for (const std::string& out : node.outputs) {
    written += ctx.Bytes(out);
    elems += ctx.Elems(out);
  }
  call.AddParam("op", "unknown_" + node.op_type);
  call.AddParam("elems", elems);
  call.bytes_read = read;
  call.bytes_written = written;
  return call;
}

// Indices of the Relu nodes a Conv absorbs with fusion on (FusedRelu).
std::vector<bool> FusedActivations(const Graph& graph, const LowerContext& ctx) {
  std::vector<bool> fused(graph.nodes.size(), false);
  for (const Node& node : graph.nodes) {
    if (const Node* relu = FusedRelu(ctx, node)) fused[static_cast<size_t>(relu - graph.nodes.data())] = true;
  }
  return fused;
}

}  // namespace

void SetPrecision(Precision precision, LoweringOptions* options) {
  options->dtype = PrecisionDType(precision);
  if (options->dtype != DType::kFloat32) return;
  options->tf32_conv = true;
  options->tf32_gemm = precision == Precision::kTf32;
}

MathMode ConvMath(const LoweringOptions& options) {
  switch (options.dtype) {
    case DType::kFloat16: return MathMode::kFp16;
    case DType::kBFloat16: return MathMode::kBf16;
    default: return options.tf32_conv ? MathMode::kTf32 : MathMode::kFp32;
  }
}

MathMode GemmMath(const LoweringOptions& options) {
  switch (options.dtype) {
    case DType::kFloat16: return MathMode::kFp16;
    case DType::kBFloat16: return MathMode::kBf16;
    default: return options.tf32_gemm ? MathMode::kTf32 : MathMode::kFp32;
  }
}

namespace {

// A node whose data input or any output has no elements launches nothing
// (frameworks skip empty tensors); lowering it would divide by zero sizes
// (found by fuzz/onnx_graph_fuzz).
bool OnEmptyTensors(const Graph& graph, const Node& node) {
  auto empty = [&](const std::string& name) {
    const Tensor* t = graph.FindTensor(name);
    return t != nullptr && !name.empty() && t->num_elements() == 0;
  };
  if (!node.inputs.empty() && empty(node.inputs[0])) return true;
  for (const std::string& out : node.outputs) {
    if (empty(out)) return true;
  }
  return false;
}

}  // namespace

namespace {

// A cast autocast makes before node's kernels (and, in training, the cast of
// the gradient back).
KernelCall CastCall(const LowerContext& ctx, const AutocastCast& cast, bool backward) {
  const Tensor& t = ctx.T(cast.tensor);
  const DType from = ctx.RunDType(t);
  return backward ? CastCopyCall(t.num_elements(), cast.to, from, Phase::kBackward)
                  : CastCopyCall(t.num_elements(), from, cast.to, Phase::kForward);
}

// What the memory model needs of a fused group, on the node that launches it.
void NoteFusedGroup(const FusedGroup& g, LoweredNode* ln) {
  static const std::map<std::string, FusedOp> kOps = {{"gelu", FusedOp::kGelu},
                                                      {"silu", FusedOp::kSilu},
                                                      {"rnn_stack", FusedOp::kRnnStack},
                                                      {"attention", FusedOp::kAttention},
                                                      {"group_norm", FusedOp::kGroupNorm}};
  auto it = kOps.find(g.op);
  ln->fused_op = it != kOps.end() ? it->second : FusedOp::kNone;
  ln->fused_inputs = g.op == "attention" ? std::vector<std::string>(g.operands.begin(),
                                                                   g.operands.begin() + 3)
                                         : std::vector<std::string>{g.input};
  ln->fused_nodes = g.nodes;
}

// Under autocast: node `i`'s kernels run in the plan's dtype, after the
// casts of its inputs (whose gradients are cast back after its backward).
void ApplyAutocast(const LowerContext& ctx, const AutocastPlan& plan, size_t i, LoweredNode* ln) {
  if (plan.node_dtype[i] == DType::kFloat32) {
    for (KernelCall& c : ln->calls) {
      c.dtype = DType::kFloat32;
      if (c.math == MathMode::kBf16 || c.math == MathMode::kFp16) c.math = MathMode::kFp32;
    }
  }
  std::vector<KernelCall> calls;
  for (const AutocastCast& cast : plan.casts[i]) {
    calls.push_back(CastCall(ctx, cast, false));
    ln->casts.push_back(InputCast{cast.tensor, cast.to});
  }
  calls.insert(calls.end(), ln->calls.begin(), ln->calls.end());
  if (ctx.options().training) {
    for (const AutocastCast& cast : plan.casts[i]) {
      if (cast.needs_grad) calls.push_back(CastCall(ctx, cast, true));
    }
    for (const AutocastCast& cast : plan.grad_casts[i]) {
      if (!ctx.NeedsGradient(cast.tensor)) continue;
      const int64_t elems = ctx.T(cast.tensor).num_elements();
      calls.push_back(CastCopyCall(elems, DType::kFloat32, cast.to, Phase::kBackward));
    }
  }
  ln->calls = std::move(calls);
}

// The training loss's calls on the node that writes the graph's first output:
// its forward after that node's forward calls, its backward before the
// node's backward calls. None when that output is a graph input.
void AttachLoss(const LowerContext& ctx, LoweredGraph* lowered) {
  const Graph& graph = ctx.graph();
  if (graph.outputs.empty()) return;
  const Node* writer = ctx.Producer(graph.outputs[0]);
  if (writer == nullptr) return;
  LossCalls loss = LowerLoss(ctx, ctx.options().loss, graph.outputs[0]);
  for (KernelCall& call : loss.forward) call.flops = CallFlops(call);
  for (KernelCall& call : loss.backward) call.flops = CallFlops(call);
  std::vector<KernelCall>& calls = lowered->nodes[static_cast<size_t>(writer - graph.nodes.data())].calls;
  auto backward = std::find_if(calls.begin(), calls.end(),
                               [](const KernelCall& c) { return c.phase == Phase::kBackward; });
  loss.forward.insert(loss.forward.end(), loss.backward.begin(), loss.backward.end());
  calls.insert(backward, loss.forward.begin(), loss.forward.end());
}

// Autograd's sums of gradients (gradient_sums.h), each before the backward
// calls of the node it joins.
void AttachGradientSums(const LowerContext& ctx, const std::vector<FusedGroup>& groups,
                        LoweredGraph* lowered) {
  for (auto& [index, call] : GradientSumCalls(ctx, groups)) {
    call.flops = CallFlops(call);
    std::vector<KernelCall>& calls = lowered->nodes[index].calls;
    auto backward = std::find_if(calls.begin(), calls.end(),
                                 [](const KernelCall& c) { return c.phase == Phase::kBackward; });
    calls.insert(backward, std::move(call));
  }
}

// A node none of whose outputs carries a gradient (it prepares a graph
// input) runs no backward.
void DropBackwardWithoutGradient(const LowerContext& ctx, const Node& node, LoweredNode* ln) {
  for (const std::string& out : node.outputs) {
    if (!out.empty() && ctx.NeedsGradient(out)) return;
  }
  ln->calls.erase(std::remove_if(ln->calls.begin(), ln->calls.end(),
                                 [](const KernelCall& c) { return c.phase == Phase::kBackward; }),
                  ln->calls.end());
}

}  // namespace

Result<LoweredGraph> LowerGraph(const Graph& graph, const LoweringOptions& options) {
  const OpRegistry& registry = BuiltinOps();
  LowerContext ctx(graph, options);
  if (options.training) ctx.SetNeedsGradient(TensorsNeedingGradient(ctx));
  AutocastPlan autocast;
  if (options.autocast) {
    autocast = PlanAutocast(ctx, options.dtype);
    ctx.SetAutocast(&autocast);
  }
  std::vector<bool> fused;
  if (options.fuse_conv_bias_act) fused = FusedActivations(graph, ctx);
  // Framework fusions: every node of a group but the last launches nothing;
  // the last launches the group's kernel.
  std::map<size_t, const FusedGroup*> group_end;
  std::vector<bool> in_group(graph.nodes.size(), false);
  const std::vector<FusedGroup> groups = FindFrameworkFusions(ctx);
  for (const FusedGroup& g : groups) {
    for (size_t n : g.nodes) in_group[n] = true;
    group_end[g.nodes.back()] = &g;
  }
  LoweredGraph lowered;
  lowered.nodes.reserve(graph.nodes.size());
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const Node& node = graph.nodes[i];
    LoweredNode ln;
    ln.node_index = i;
    ln.name = node.name;
    ln.op_type = node.op_type;
    bool skip = registry.IsNoKernel(node.op_type) || FoldedOnHost(graph, node) ||
                (!fused.empty() && fused[i]) || OnEmptyTensors(graph, node) || in_group[i];
    if (group_end.count(i) != 0 && !OnEmptyTensors(graph, node)) {
      Result<std::vector<KernelCall>> calls = LowerFusedGroup(ctx, *group_end[i]);
      if (!calls.ok()) {
        return calls.status().WithContext("node '" + node.name + "' (" + node.op_type + ")");
      }
      ln.calls = std::move(calls).value();
      NoteFusedGroup(*group_end[i], &ln);
    } else if (!skip) {
      const LowerFn* fn = registry.Find(node.op_type);
      if (fn != nullptr && (node.outputs.empty() || node.outputs[0].empty())) {
        return InvalidArgument("node '" + node.name + "' (" + node.op_type + ") has no output");
      }
      if (fn != nullptr) {
        Status s = (*fn)(ctx, node, &ln.calls);
        if (!s.ok()) return s.WithContext("node '" + node.name + "' (" + node.op_type + ")");
      } else if (options.strict) {
        return Unsupported("node '" + node.name + "': op " + node.op_type +
                           " is not known to dlsim (--strict)");
      } else {
        ln.known_op = false;
        ln.calls.push_back(UnknownOpCall(ctx, node));
        lowered.warnings.push_back("node '" + node.name + "': unknown op " +
                                   node.op_type + " priced by bytes moved");
      }
    }
    if (options.autocast) ApplyAutocast(ctx, autocast, i, &ln);
    if (options.training) DropBackwardWithoutGradient(ctx, node, &ln);
    // Every call's FLOPs are its key's Work (src/kernel/work.cc), the one
    // formula per kind, also after autocast changed its dtype.
    for (KernelCall& call : ln.calls) call.flops = CallFlops(call);
    lowered.nodes.push_back(std::move(ln));
  }
  if (options.training) {
    AttachLoss(ctx, &lowered);
    AttachGradientSums(ctx, groups, &lowered);
  }
  lowered.autocast_dtype = std::move(autocast.tensor_dtype);
  return lowered;
}

std::vector<KernelCall> LowerOptimizer(Optimizer optimizer, const ParameterTensors& params,
                                       bool fused, const LoweringOptions& options) {
  const int64_t param_count = params.elements, tensor_count = params.tensors;
  // Bytes per parameter (fp32 master state): SGD reads w,g writes w; momentum
  // adds the buffer (read+write); Adam/AdamW read w,g,m,v and write w,m,v.
  // SGD's multi-tensor path is PyTorch's foreach ops, a launch per op and
  // chunk batch (foreach_optimizer.h).
  if (fused && (optimizer == Optimizer::kSgd || optimizer == Optimizer::kSgdMomentum)) {
    return ForeachSgdCalls(optimizer == Optimizer::kSgdMomentum, params);
  }
  const int states = OptimizerStates(optimizer);
  const int reads = 2 + states, writes = 1 + states;
  const int64_t launches = fused ? 1 : std::max<int64_t>(tensor_count, 1);
  std::vector<KernelCall> calls;
  for (int64_t i = 0; i < launches; ++i) {
    int64_t n = param_count / launches + (i < param_count % launches ? 1 : 0);
    KernelCall call;
    call.kind = KernelKind::kOptimizer;
    call.library_call = std::string("optimizer_") + OptimizerName(optimizer);
    call.phase = Phase::kOptimizer;
    call.dtype = DType::kFloat32;
    call.math = MathMode::kFp32;
    call.AddParam("op", OptimizerName(optimizer));
    call.AddParam("params", n);
    call.AddParam("fused", fused ? 1 : 0);
    call.bytes_read = 4.0 * reads * n;
    call.bytes_written = 4.0 * writes * n;
    call.flops = CallFlops(call);
    calls.push_back(std::move(call));
  }
  (void)options;
  return calls;
}

}  // namespace dlsim
