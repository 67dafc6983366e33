#include "loss_calls.h"

#include <algorithm>

#include "row_call.h"

namespace dlsim {
namespace {

constexpr double kF32 = 4;  // bytes

KernelCall Fp32(KernelCall call, Phase phase) {
  call.dtype = DType::kFloat32;
  call.math = MathMode::kFp32;
  call.phase = phase;
  call.own_op = true;
  return call;
}

KernelCall Pointwise(const LowerContext& ctx, const char* op, int64_t elems, double read,
                     double written) {
  return Fp32(ElementwiseCall(ctx, op, elems, 1, read, written), Phase::kBackward);
}

void MeanCalls(const LowerContext& ctx, int64_t n, LossCalls* out) {
  const double bytes = kF32 * static_cast<double>(n);
  out->forward.push_back(Fp32(ReductionCall(ctx, "mean", n, 1, bytes, kF32), Phase::kForward));
  out->backward.push_back(Pointwise(ctx, "fill", 1, 0, kF32));
  out->backward.push_back(Pointwise(ctx, "reduce_mean_bwd", n, kF32, bytes));
}

void CrossEntropyCalls(const LowerContext& ctx, const Shape& dims, int64_t n, LossCalls* out) {
  const int64_t cols = dims.empty() ? 1 : std::max<int64_t>(dims.back(), 1);
  const int64_t rows = n / cols;
  const double bytes = kF32 * static_cast<double>(n), row_bytes = kF32 * static_cast<double>(rows);
  KernelCall softmax = RowCall(ctx, KernelKind::kSoftmaxFwd, "log_softmax", rows, cols);
  softmax.bytes_read = bytes;
  softmax.bytes_written = bytes;
  out->forward.push_back(Fp32(softmax, Phase::kForward));
  // nll: one log-probability a row (and its int64 target) summed to the loss
  out->forward.push_back(Fp32(ReductionCall(ctx, "sum", rows, 1, 3 * row_bytes, kF32), Phase::kForward));
  out->backward.push_back(Pointwise(ctx, "fill", 1, 0, kF32));
  out->backward.push_back(Pointwise(ctx, "fill", n, 0, bytes));
  out->backward.push_back(Pointwise(ctx, "scatter", rows, 3 * row_bytes, row_bytes));
  KernelCall softmax_bwd = RowCall(ctx, KernelKind::kSoftmaxBwd, "log_softmax_backward", rows, cols);
  softmax_bwd.bytes_read = 2 * bytes;
  softmax_bwd.bytes_written = bytes;
  out->backward.push_back(Fp32(softmax_bwd, Phase::kBackward));
}

}  // namespace

LossCalls LowerLoss(const LowerContext& ctx, Loss loss, const std::string& output) {
  LossCalls out;
  if (loss == Loss::kNone) return out;
  const Tensor& y = ctx.T(output);
  const int64_t n = y.num_elements();
  const DType dtype = ctx.RunDType(y);
  const bool cast = dtype != DType::kFloat32;
  if (cast) out.forward.push_back(CastCopyCall(n, dtype, DType::kFloat32, Phase::kForward));
  if (loss == Loss::kMean) MeanCalls(ctx, n, &out);
  if (loss == Loss::kCrossEntropy) CrossEntropyCalls(ctx, y.dims, n, &out);
  if (cast) out.backward.push_back(CastCopyCall(n, DType::kFloat32, dtype, Phase::kBackward));
  return out;
}

}  // namespace dlsim
