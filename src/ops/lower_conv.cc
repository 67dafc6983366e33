// Conv and ConvTranspose -> cuDNN convolution calls.
#include <algorithm>

#include "dlsim/model/onnx_import.h"
#include "op_registry.h"
#include "row_call.h"

namespace dlsim {
namespace {

// Convolution geometry in cuDNN's 2-D terms; 1-D convs have h = r = 1.
struct ConvGeometry {
  int64_t n, c, h, w, k, r, s, pad_h, pad_w, stride_h, stride_w, dil_h, dil_w, groups;
  int64_t out_h, out_w;
  bool channels_last = false;  // the input is in channels-last memory
};

Result<ConvGeometry> Geometry(const LowerContext& ctx, const Node& node,
                              const Shape& x, const Shape& wt, const Shape& y) {
  const size_t spatial = x.size() - 2;
  if (x.size() < 3 || x.size() > 5 || wt.size() != x.size() || y.size() != x.size()) {
    return InvalidArgument("expected 3-D to 5-D input, weight and output, got " +
                           ShapeToString(x) + ", " + ShapeToString(wt) + ", " +
                           ShapeToString(y));
  }
  std::vector<int64_t> strides = node.GetInts("strides", std::vector<int64_t>(spatial, 1));
  std::vector<int64_t> dils = node.GetInts("dilations", std::vector<int64_t>(spatial, 1));
  std::vector<int64_t> pads = node.GetInts("pads", std::vector<int64_t>(2 * spatial, 0));
  if (strides.size() != spatial || dils.size() != spatial || pads.size() != 2 * spatial) {
    return InvalidArgument("strides/dilations/pads do not match the spatial rank");
  }
  ConvGeometry g{};
  g.n = x[0];
  g.c = x[1];
  g.groups = node.GetInt("group", 1);
  // Spatial dims beyond two fold into h (3-D convs priced as 2-D of depth*h).
  auto fold = [&](const Shape& s, size_t from) {
    int64_t v = 1;
    for (size_t i = from; i + 1 < s.size(); ++i) v *= s[i];
    return v;
  };
  g.h = spatial == 1 ? 1 : fold(x, 2);
  g.w = x.back();
  g.out_h = spatial == 1 ? 1 : fold(y, 2);
  g.out_w = y.back();
  g.r = spatial == 1 ? 1 : fold(wt, 2);
  g.s = wt.back();
  const size_t last = spatial - 1;
  g.pad_h = spatial == 1 ? 0 : std::max(pads[0], pads[spatial]);
  g.pad_w = std::max(pads[last], pads[last + spatial]);
  g.stride_h = spatial == 1 ? 1 : strides[0];
  g.stride_w = strides[last];
  g.dil_h = spatial == 1 ? 1 : dils[0];
  g.dil_w = dils[last];
  (void)ctx;
  return g;
}

void AddGeometryParams(const ConvGeometry& g, KernelCall* call) {
  call->AddParam("n", g.n);
  call->AddParam("c", g.c);
  call->AddParam("h", g.h);
  call->AddParam("w", g.w);
  call->AddParam("k", g.k);
  call->AddParam("r", g.r);
  call->AddParam("s", g.s);
  call->AddParam("pad_h", g.pad_h);
  call->AddParam("pad_w", g.pad_w);
  call->AddParam("stride_h", g.stride_h);
  call->AddParam("stride_w", g.stride_w);
  call->AddParam("dil_h", g.dil_h);
  call->AddParam("dil_w", g.dil_w);
  call->AddParam("groups", g.groups);
}

KernelCall ConvCall(const LowerContext& ctx, KernelKind kind, const char* lib,
                    const ConvGeometry& g) {
  KernelCall call = ctx.NewCall(kind, lib, ConvMath(ctx.options()));
  // PyTorch runs a convolution of a channels-last input in NHWC.
  call.layout = g.channels_last ? Layout::kNhwc : ctx.options().layout;
  AddGeometryParams(g, &call);
  return call;
}

Status LowerConv(const LowerContext& ctx, const Node& node, std::vector<KernelCall>* calls) {
  const Tensor& x = ctx.T(node.Input(0));
  const Tensor& wt = ctx.T(node.Input(1));
  const Tensor& y = ctx.T(node.outputs.at(0));
  DLSIM_ASSIGN_OR_RETURN(ConvGeometry g, Geometry(ctx, node, x.dims, wt.dims, y.dims));
  g.channels_last = ctx.ChannelsLast(node.Input(0));
  g.k = wt.dims[0];
  const double bx = ctx.Bytes(node.Input(0)), bw = ctx.Bytes(node.Input(1));
  const double by = ctx.Bytes(node.outputs[0]), bb = ctx.Bytes(node.Input(2));
  // A batch norm the exporter folded in (the dynamo exporter's
  // FuseBatchNormIntoConv) still runs in the framework, after a convolution
  // without bias (the folded bias is the batch norm's shift), as torchvision
  // and most models build a convolution that a batch norm follows.
  const bool folded_bn = node.GetInt(kFoldedBatchNormAttr, 0) == 1;
  const bool has_bias = !node.Input(2).empty() && !folded_bn;
  const bool fuse = ctx.options().fuse_conv_bias_act && FusedRelu(ctx, node) != nullptr;
  if (fuse) {
    KernelCall call = ConvCall(ctx, KernelKind::kConvBiasAct,
                               "cudnnConvolutionBiasActivationForward", g);
    call.AddParam("act", "relu");
    call.bytes_read = bx + bw + bb;
    call.bytes_written = by;
    calls->push_back(std::move(call));
  } else {
    KernelCall call = ConvCall(ctx, KernelKind::kConvFwd, "cudnnConvolutionForward", g);
    call.bytes_read = bx + bw;
    call.bytes_written = by;
    calls->push_back(std::move(call));
    if (has_bias) {  // PyTorch adds the bias in a separate in-place kernel
      calls->push_back(ElementwiseCall(ctx, "bias_add", y.num_elements(), 1, by + bb, by));
    }
  }
  if (folded_bn) {
    const size_t first = calls->size();
    DLSIM_RETURN_IF_ERROR(BatchNormCalls(ctx, node.outputs[0], calls));
    for (size_t i = first; i < calls->size(); ++i) {  // the host dispatches it apart
      (*calls)[i].own_op = (*calls)[i].kind != KernelKind::kElementwise;
    }
  }
  if (ctx.options().training) {
    KernelCall dgrad = ConvCall(ctx, KernelKind::kConvBwdData, "cudnnConvolutionBackwardData", g);
    dgrad.phase = Phase::kBackward;
    dgrad.bytes_read = by + bw;
    dgrad.bytes_written = bx;
    KernelCall wgrad = ConvCall(ctx, KernelKind::kConvBwdFilter, "cudnnConvolutionBackwardFilter", g);
    wgrad.phase = Phase::kBackward;
    wgrad.bytes_read = by + bx;
    wgrad.bytes_written = bw;
    // PyTorch computes no gradient for an input that needs none (the image)
    if (ctx.NeedsGradient(node.inputs[0])) calls->push_back(std::move(dgrad));
    calls->push_back(std::move(wgrad));
    if (has_bias) {
      KernelCall db = ctx.NewCall(KernelKind::kReduction, "reduce_sum", MathMode::kFp32);
      db.phase = Phase::kBackward;
      db.AddParam("op", "sum");
      db.AddParam("rows", g.k);
      db.AddParam("cols", y.num_elements() / std::max<int64_t>(g.k, 1));
      db.bytes_read = by;
      db.bytes_written = bb;
      calls->push_back(std::move(db));
    }
  }
  return Status::Ok();
}

// ConvTranspose runs as cuDNN's backward-data of the mirrored convolution:
// the "input" of that convolution is this node's output.
Status LowerConvTranspose(const LowerContext& ctx, const Node& node,
                          std::vector<KernelCall>* calls) {
  const Tensor& x = ctx.T(node.Input(0));
  const Tensor& wt = ctx.T(node.Input(1));
  const Tensor& y = ctx.T(node.outputs.at(0));
  DLSIM_ASSIGN_OR_RETURN(ConvGeometry g, Geometry(ctx, node, y.dims, wt.dims, x.dims));
  g.channels_last = ctx.ChannelsLast(node.Input(0));
  g.c = y.dims[1];
  g.k = x.dims[1];
  KernelCall call = ConvCall(ctx, KernelKind::kConvBwdData, "cudnnConvolutionBackwardData", g);
  call.bytes_read = ctx.Bytes(node.Input(0)) + ctx.Bytes(node.Input(1));
  call.bytes_written = ctx.Bytes(node.outputs[0]);
  calls->push_back(std::move(call));
  if (!node.Input(2).empty()) {
    double by = ctx.Bytes(node.outputs[0]);
    calls->push_back(ElementwiseCall(ctx, "bias_add", y.num_elements(), 1,
                                     by + ctx.Bytes(node.Input(2)), by));
  }
  return Status::Ok();
}

}  // namespace

void RegisterConvOps(OpRegistry& registry) {
  registry.Register("Conv", LowerConv);
  registry.Register("ConvTranspose", LowerConvTranspose);
}

}  // namespace dlsim
