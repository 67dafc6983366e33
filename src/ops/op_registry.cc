#include "op_registry.h"

#include "autocast.h"
#include <algorithm>
#include <utility>

#include "dlsim/model/onnx_import.h"
#include "memory_format.h"

namespace dlsim {

LowerContext::LowerContext(const Graph& graph, const LoweringOptions& options)
    : graph_(graph), options_(options) {
  for (const Node& node : graph.nodes) {
    for (const std::string& out : node.outputs) producer_[out] = &node;
    if (node.op_type == "Shape" || node.op_type == "Size") continue;  // read no data
    for (const std::string& in : node.inputs) {
      if (in.empty()) continue;
      ++consumers_[in];
      readers_[in].push_back(&node);
    }
  }
  for (const std::string& out : graph.outputs) ++consumers_[out];
  MemoryFormats formats = AnalyzeMemoryFormats(graph);
  channels_last_ = std::move(formats.channels_last);
  format_views_ = std::move(formats.views);
}

const Tensor& LowerContext::T(const std::string& name) const {
  const Tensor* t = graph_.FindTensor(name);
  DLSIM_CHECK_MSG(t != nullptr, "tensor '" + name + "' missing after import");
  return *t;
}

DType LowerContext::RunDType(const Tensor& t) const {
  if (autocast_ != nullptr) {
    auto it = autocast_->tensor_dtype.find(t.name);
    if (it != autocast_->tensor_dtype.end()) return it->second;
  }
  if (IsFloatDType(t.dtype) && t.dtype != DType::kFloat64) return options_.dtype;
  return t.dtype;
}

double LowerContext::Bytes(const std::string& name) const {
  if (name.empty()) return 0;
  const Tensor& t = T(name);
  return static_cast<double>(t.num_elements()) * DTypeBytes(RunDType(t));
}

int64_t LowerContext::Elems(const std::string& name) const {
  return name.empty() ? 0 : T(name).num_elements();
}

int LowerContext::ConsumerCount(const std::string& name) const {
  auto it = consumers_.find(name);
  return it == consumers_.end() ? 0 : it->second;
}

const Node* LowerContext::Producer(const std::string& name) const {
  auto it = producer_.find(name);
  return it == producer_.end() ? nullptr : it->second;
}

const Node* LowerContext::SoleConsumer(const std::string& name) const {
  if (ConsumerCount(name) != 1) return nullptr;
  const std::vector<const Node*>& readers = Readers(name);
  return readers.empty() ? nullptr : readers.back();
}

const std::vector<const Node*>& LowerContext::Readers(const std::string& name) const {
  static const std::vector<const Node*> kNone;
  auto it = readers_.find(name);
  return it == readers_.end() ? kNone : it->second;
}

bool LowerContext::IsParameter(const std::string& tensor) const {
  std::string name = tensor;
  for (int depth = 0; depth < 16; ++depth) {  // Identity chains are short
    if (name.empty() || graph_.FindTensor(name) == nullptr) return false;
    if (T(name).is_initializer) return true;
    const Node* producer = Producer(name);
    if (producer == nullptr || producer->op_type != "Identity" || producer->inputs.empty()) return false;
    name = producer->inputs[0];
  }
  return false;
}

KernelCall LowerContext::NewCall(KernelKind kind, const std::string& library_call,
                                 MathMode math) const {
  KernelCall call;
  call.kind = kind;
  call.library_call = library_call;
  call.dtype = options_.dtype;
  call.math = math;
  return call;
}

void OpRegistry::Register(const std::string& op_type, LowerFn fn) {
  fns_[op_type] = std::move(fn);
}

void OpRegistry::RegisterNoKernel(const std::string& op_type) {
  no_kernel_.insert(op_type);
}

const LowerFn* OpRegistry::Find(const std::string& op_type) const {
  auto it = fns_.find(op_type);
  return it == fns_.end() ? nullptr : &it->second;
}

bool OpRegistry::IsNoKernel(const std::string& op_type) const {
  return no_kernel_.count(op_type) != 0;
}

bool OpRegistry::Knows(const std::string& op_type) const {
  return IsNoKernel(op_type) || Find(op_type) != nullptr;
}

namespace {

OpRegistry MakeBuiltinOps() {
  OpRegistry registry;
  RegisterConvOps(registry);
  RegisterMatMulOps(registry);
  RegisterEinsumOps(registry);
  RegisterNormalizationOps(registry);
  RegisterPoolingOps(registry);
  RegisterRnnOps(registry);
  RegisterAttentionOps(registry);
  RegisterElementwiseOps(registry);
  RegisterDataMovementOps(registry);
  for (const char* op : {"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity",
                         "Shape", "Size", "Constant"}) {
    registry.RegisterNoKernel(op);
  }
  return registry;
}

}  // namespace

const OpRegistry& BuiltinOps() {
  static const OpRegistry* registry = new OpRegistry(MakeBuiltinOps());
  return *registry;
}

KernelCall ElementwiseCall(const LowerContext& ctx, const std::string& op,
                           int64_t out_elems, int arity, double bytes_read,
                           double bytes_written) {
  KernelCall call = ctx.NewCall(KernelKind::kElementwise, "elementwise_kernel",
                                MathMode::kFp32);
  call.AddParam("op", op);
  call.AddParam("elems", out_elems);
  call.AddParam("arity", arity);
  call.bytes_read = bytes_read;
  call.bytes_written = bytes_written;
  return call;
}

KernelCall CastCopyCall(int64_t elems, DType from, DType to, Phase phase) {
  KernelCall call;
  call.kind = KernelKind::kCopy;
  call.library_call = "copy_kernel";
  call.phase = phase;
  call.dtype = from;
  call.math = MathMode::kFp32;
  call.AddParam("op", phase == Phase::kBackward ? "cast_bwd" : "cast");
  call.AddParam("elems", elems);
  call.bytes_read = static_cast<double>(elems) * DTypeBytes(from);
  call.bytes_written = static_cast<double>(elems) * DTypeBytes(to);
  return call;
}

const Node* FusedRelu(const LowerContext& ctx, const Node& conv) {
  if (conv.op_type != "Conv" || conv.outputs.empty() ||
      conv.GetInt(kFoldedBatchNormAttr, 0) == 1) {
    return nullptr;
  }
  const Node* next = ctx.SoleConsumer(conv.outputs[0]);
  return next != nullptr && next->op_type == "Relu" && !next->inputs.empty() &&
                 next->inputs[0] == conv.outputs[0]
             ? next
             : nullptr;
}

KernelCall ReductionCall(const LowerContext& ctx, const std::string& op, int64_t in_elems,
                         int64_t out_elems, double bytes_read, double bytes_written) {
  KernelCall call = ctx.NewCall(KernelKind::kReduction, "reduce_kernel", MathMode::kFp32);
  call.AddParam("op", op);
  call.AddParam("rows", out_elems);
  call.AddParam("cols", in_elems / std::max<int64_t>(out_elems, 1));
  call.bytes_read = bytes_read;
  call.bytes_written = bytes_written;
  return call;
}

KernelCall ElementwiseBwdCall(const LowerContext& ctx, const std::string& op,
                              int64_t elems, int arity) {
  double elem_bytes = DTypeBytes(ctx.options().dtype);
  KernelCall call = ElementwiseCall(ctx, op + "_bwd", elems, arity,
                                    elem_bytes * elems * arity, elem_bytes * elems);
  call.phase = Phase::kBackward;
  return call;
}

}  // namespace dlsim
