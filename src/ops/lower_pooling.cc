// MaxPool/AveragePool -> cuDNN pooling; global pooling -> a reduction.
#include <algorithm>

#include "op_registry.h"

namespace dlsim {
namespace {

Status LowerPool(const LowerContext& ctx, const Node& node, const char* mode,
                 std::vector<KernelCall>* calls) {
  const Shape& x = ctx.T(node.Input(0)).dims;
  if (x.size() < 3) return InvalidArgument("pooling needs an N,C,spatial input");
  const size_t spatial = x.size() - 2;
  std::vector<int64_t> kernel = node.GetInts("kernel_shape", {});
  if (kernel.size() != spatial) return InvalidArgument("kernel_shape does not match input rank");
  std::vector<int64_t> strides = node.GetInts("strides", std::vector<int64_t>(spatial, 1));
  std::vector<int64_t> pads = node.GetInts("pads", std::vector<int64_t>(2 * spatial, 0));
  if (strides.size() != spatial || pads.size() != 2 * spatial) {
    return InvalidArgument("strides/pads do not match input rank");
  }
  const bool one_d = spatial == 1;
  KernelCall call = ctx.NewCall(KernelKind::kPoolFwd, "cudnnPoolingForward", MathMode::kFp32);
  call.layout = ctx.options().layout;
  call.AddParam("mode", mode);
  call.AddParam("n", x[0]);
  call.AddParam("c", x[1]);
  call.AddParam("h", one_d ? 1 : x[2]);
  call.AddParam("w", x.back());
  call.AddParam("r", one_d ? 1 : kernel[0]);
  call.AddParam("s", kernel.back());
  call.AddParam("pad_h", one_d ? 0 : std::max(pads[0], pads[spatial]));
  call.AddParam("pad_w", std::max(pads[spatial - 1], pads[2 * spatial - 1]));
  call.AddParam("stride_h", one_d ? 1 : strides[0]);
  call.AddParam("stride_w", strides.back());
  call.bytes_read = ctx.Bytes(node.Input(0));
  call.bytes_written = ctx.Bytes(node.outputs[0]);
  calls->push_back(call);
  if (ctx.options().training) {
    KernelCall bwd = call;
    bwd.kind = KernelKind::kPoolBwd;
    bwd.library_call = "cudnnPoolingBackward";
    bwd.phase = Phase::kBackward;
    bwd.bytes_read = call.bytes_read + 2 * call.bytes_written;  // x, y, dy
    bwd.bytes_written = call.bytes_read;                        // dx
    calls->push_back(bwd);
  }
  return Status::Ok();
}

Status LowerGlobalPool(const LowerContext& ctx, const Node& node, const char* op,
                       std::vector<KernelCall>* calls) {
  const Shape& x = ctx.T(node.Input(0)).dims;
  if (x.size() < 3) return InvalidArgument("global pooling needs an N,C,spatial input");
  KernelCall call = ctx.NewCall(KernelKind::kReduction, "reduce_kernel", MathMode::kFp32);
  call.AddParam("op", op);
  call.AddParam("rows", x[0] * x[1]);
  call.AddParam("cols", NumElements(x) / (x[0] * x[1]));
  call.bytes_read = ctx.Bytes(node.Input(0));
  call.bytes_written = ctx.Bytes(node.outputs.at(0));
  calls->push_back(call);
  if (ctx.options().training) {
    calls->push_back(ElementwiseBwdCall(ctx, std::string("global_") + op, NumElements(x), 1));
  }
  return Status::Ok();
}

}  // namespace

void RegisterPoolingOps(OpRegistry& registry) {
  registry.Register("MaxPool", [](const LowerContext& c, const Node& n,
                                  std::vector<KernelCall>* k) { return LowerPool(c, n, "max", k); });
  registry.Register("AveragePool", [](const LowerContext& c, const Node& n,
                                      std::vector<KernelCall>* k) { return LowerPool(c, n, "avg", k); });
  registry.Register("GlobalAveragePool", [](const LowerContext& c, const Node& n,
                                            std::vector<KernelCall>* k) {
    return LowerGlobalPool(c, n, "mean", k);
  });
  registry.Register("GlobalMaxPool", [](const LowerContext& c, const Node& n,
                                        std::vector<KernelCall>* k) {
    return LowerGlobalPool(c, n, "max", k);
  });
}

}  // namespace dlsim
