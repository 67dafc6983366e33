// BatchNormalization, LayerNormalization, RMSNormalization, Group- and
// InstanceNormalization, Softmax, LRN.
#include <algorithm>

#include "op_registry.h"
#include "row_call.h"

namespace dlsim {

KernelCall RowCall(const LowerContext& ctx, KernelKind kind, const char* library_call, int64_t rows,
                   int64_t cols) {
  KernelCall call = ctx.NewCall(kind, library_call, MathMode::kFp32);
  call.AddParam("rows", rows);
  call.AddParam("cols", cols);
  return call;
}

namespace {

// n, c and the spatial extent folded into h (w = last spatial dim).
void AddNchwParams(const Shape& x, KernelCall* call) {
  int64_t h = 1, w = 1;
  if (x.size() >= 4) {
    w = x.back();
    for (size_t i = 2; i + 1 < x.size(); ++i) h *= x[i];
  } else if (x.size() == 3) {
    w = x[2];
  }
  call->AddParam("n", x.empty() ? 1 : x[0]);
  call->AddParam("c", x.size() > 1 ? x[1] : 1);
  call->AddParam("h", h);
  call->AddParam("w", w);
}

}  // namespace

Status BatchNormCalls(const LowerContext& ctx, const std::string& x_name, std::vector<KernelCall>* calls) {
  const Tensor& x = ctx.T(x_name);
  const bool training = ctx.options().training;
  const double bx = ctx.Bytes(x_name);
  const double params = 4.0 * 4 * (x.dims.size() > 1 ? x.dims[1] : 1);
  KernelCall fwd = ctx.NewCall(training ? KernelKind::kBatchNormTrainFwd
                                        : KernelKind::kBatchNormInfer,
                               training ? "cudnnBatchNormalizationForwardTraining"
                                        : "cudnnBatchNormalizationForwardInference",
                               MathMode::kFp32);
  fwd.layout = ctx.options().layout;
  AddNchwParams(x.dims, &fwd);
  // Training reads x twice (statistics, then normalisation).
  fwd.bytes_read = (training ? 2 : 1) * bx + params;
  fwd.bytes_written = bx;
  // nn.BatchNorm counts its steps (num_batches_tracked += 1) before the
  // forward kernel: a one-element kernel a step.
  if (training) calls->push_back(ElementwiseCall(ctx, "add", 1, 1, 8, 8));
  calls->push_back(fwd);
  if (training) {
    KernelCall bwd = fwd;
    bwd.kind = KernelKind::kBatchNormBwd;
    bwd.library_call = "cudnnBatchNormalizationBackward";
    bwd.phase = Phase::kBackward;
    bwd.bytes_read = 3 * bx + params;  // x, dy twice (reduce, then apply)
    bwd.bytes_written = bx;
    calls->push_back(bwd);
  }
  return Status::Ok();
}

namespace {

Status LowerBatchNorm(const LowerContext& ctx, const Node& node, std::vector<KernelCall>* calls) {
  return BatchNormCalls(ctx, node.Input(0), calls);
}

// rows x cols with the normalised/softmaxed extent `cols` from `axis` on.
std::pair<int64_t, int64_t> RowsCols(const Shape& x, int64_t axis, bool to_end) {
  const int64_t rank = static_cast<int64_t>(x.size());
  if (axis < 0) axis += rank;
  axis = std::clamp<int64_t>(axis, 0, std::max<int64_t>(rank - 1, 0));
  int64_t rows = 1, cols = 1;
  for (int64_t i = 0; i < rank; ++i) {
    bool in_cols = to_end ? i >= axis : i == axis;
    (in_cols ? cols : rows) *= x[i];
  }
  return {rows, cols};
}

// One kernel over `rows` independent rows of `cols` elements each (and its
// backward when training); the node's inputs 1 and 2 are scale and bias.
Status LowerRows(const LowerContext& ctx, const Node& node, KernelKind fwd_kind,
                 KernelKind bwd_kind, const char* lib, int64_t rows, int64_t cols,
                 std::vector<KernelCall>* calls) {
  const double bx = ctx.Bytes(node.Input(0));
  KernelCall fwd = RowCall(ctx, fwd_kind, lib, rows, cols);
  fwd.bytes_read = bx + ctx.Bytes(node.Input(1)) + ctx.Bytes(node.Input(2));
  fwd.bytes_written = bx;
  calls->push_back(fwd);
  if (ctx.options().training) {
    KernelCall bwd = fwd;
    bwd.kind = bwd_kind;
    bwd.phase = Phase::kBackward;
    bwd.bytes_read = 2 * bx;  // y (or x) and dy
    calls->push_back(bwd);
  }
  return Status::Ok();
}

Status LowerRowOp(const LowerContext& ctx, const Node& node, KernelKind fwd_kind,
                  KernelKind bwd_kind, const char* lib, int64_t axis, bool to_end,
                  std::vector<KernelCall>* calls) {
  auto [rows, cols] = RowsCols(ctx.T(node.Input(0)).dims, axis, to_end);
  return LowerRows(ctx, node, fwd_kind, bwd_kind, lib, rows, cols, calls);
}

Status LowerLayerNorm(const LowerContext& ctx, const Node& node, std::vector<KernelCall>* calls) {
  return LowerRowOp(ctx, node, KernelKind::kLayerNormFwd, KernelKind::kLayerNormBwd,
                    "layer_norm_kernel", node.GetInt("axis", -1), true, calls);
}

Status LowerSoftmax(const LowerContext& ctx, const Node& node, std::vector<KernelCall>* calls) {
  // Opset 13+: softmax over one axis (default -1); older: flattened from axis.
  const bool old = ctx.graph().opset < 13;
  const int64_t axis = node.GetInt("axis", old ? 1 : -1);
  return LowerRowOp(ctx, node, KernelKind::kSoftmaxFwd, KernelKind::kSoftmaxBwd,
                    kSoftmaxLibraryCall, axis, old, calls);
}

Status LowerLrn(const LowerContext& ctx, const Node& node, std::vector<KernelCall>* calls) {
  const Tensor& x = ctx.T(node.Input(0));
  KernelCall call = ctx.NewCall(KernelKind::kLrnFwd, "cudnnLRNCrossChannelForward",
                                MathMode::kFp32);
  call.layout = ctx.options().layout;
  AddNchwParams(x.dims, &call);
  const int64_t size = node.GetInt("size", 5);
  call.AddParam("size", size);
  call.bytes_read = ctx.Bytes(node.Input(0));
  call.bytes_written = call.bytes_read;
  calls->push_back(call);
  if (ctx.options().training) {
    calls->push_back(ElementwiseBwdCall(ctx, "lrn", x.num_elements(), 3));
  }
  return Status::Ok();
}

// Instance/group norm: two passes over the data, like a layer norm per (n, c).
Status LowerInstanceNorm(const LowerContext& ctx, const Node& node,
                         std::vector<KernelCall>* calls) {
  return LowerRowOp(ctx, node, KernelKind::kLayerNormFwd, KernelKind::kLayerNormBwd,
                    "instance_norm_kernel", 2, true, calls);
}

// RMSNormalization (opset 23): a layer norm without the mean.
Status LowerRmsNorm(const LowerContext& ctx, const Node& node, std::vector<KernelCall>* calls) {
  return LowerRowOp(ctx, node, KernelKind::kLayerNormFwd, KernelKind::kLayerNormBwd,
                    "rms_norm_kernel", node.GetInt("axis", -1), true, calls);
}

// GroupNormalization (opset 18): PyTorch's group_norm.
Status LowerGroupNorm(const LowerContext& ctx, const Node& node, std::vector<KernelCall>* calls) {
  return GroupNormCalls(ctx, node.Input(0), node.GetInt("num_groups", 0), true, calls);
}

}  // namespace

Status GroupNormCalls(const LowerContext& ctx, const std::string& x_name, int64_t groups,
                      bool affine, std::vector<KernelCall>* calls) {
  const Shape& x = ctx.T(x_name).dims;
  const int64_t channels = x.size() > 1 ? x[1] : 0;
  if (x.size() < 2 || groups <= 0 || channels % groups != 0) {
    return InvalidArgument("group norm: " + std::to_string(groups) +
                           " groups do not divide the channels of " + ShapeToString(x));
  }
  const double bx = ctx.Bytes(x_name);
  const double bparams = affine ? 2.0 * channels * 4 : 0.0;  // fp32 weight and bias
  KernelCall fwd = ctx.NewCall(KernelKind::kGroupNormFwd, "native_group_norm", MathMode::kFp32);
  fwd.AddParam("n", x[0]);
  fwd.AddParam("c", channels);
  fwd.AddParam("groups", groups);
  fwd.AddParam("hw", x[0] * channels > 0 ? NumElements(x) / (x[0] * channels) : 0);
  fwd.bytes_read = bx + bparams;
  fwd.bytes_written = bx;
  calls->push_back(fwd);
  if (ctx.options().training) {
    KernelCall bwd = fwd;
    bwd.kind = KernelKind::kGroupNormBwd;
    bwd.library_call = "native_group_norm_backward";
    bwd.phase = Phase::kBackward;
    bwd.bytes_read = 2 * bx + bparams / 2;  // x and dy; the weight
    bwd.bytes_written = bx + bparams;       // dx; the weight's and bias's gradients
    calls->push_back(bwd);
  }
  return Status::Ok();
}

void RegisterNormalizationOps(OpRegistry& registry) {
  registry.Register("BatchNormalization", LowerBatchNorm);
  registry.Register("LayerNormalization", LowerLayerNorm);
  registry.Register("Softmax", LowerSoftmax);
  registry.Register("LogSoftmax", LowerSoftmax);
  registry.Register("LRN", LowerLrn);
  registry.Register("InstanceNormalization", LowerInstanceNorm);
  registry.Register("GroupNormalization", LowerGroupNorm);
  registry.Register("RMSNormalization", LowerRmsNorm);
}

}  // namespace dlsim
