// Batch norm, pooling, softmax and LRN through cuDNN's legacy API (one
// algorithm each, recorded as "-").
#include "cuda_util.h"
#include "cudnn_util.h"
#include "families.h"

namespace dlcal {
namespace {

constexpr double kEps = 1e-5;

Status MeasureBatchNorm(const Key& key, Context& ctx, AlgoResult* res) {
  DType t;
  cudnnTensorFormat_t fmt;
  CAL_RETURN_IF_ERROR(KeyTypeAndFormat(key, &t, &fmt));
  const int n = int(key.Int("n")), c = int(key.Int("c")), h = int(key.Int("h")),
            w = int(key.Int("w"));
  TensorDesc x, bn;
  if (!x.ok() || !bn.ok()) return Failed("cannot create cuDNN descriptors");
  CAL_RETURN_IF_ERROR(Set4d(x, fmt, t, n, c, h, w));
  const cudnnBatchNormMode_t mode = CUDNN_BATCHNORM_SPATIAL;
  CAL_CUDNN(cudnnDeriveBNTensorDescriptor(bn, x, mode));  // fp32 for fp16/bf16 data
  const size_t xb = size_t(n) * c * h * w * DTypeSize(t), pb = size_t(c) * sizeof(float);
  // 0 x, 1 y/dx, 2 dy, 3 scale, 4 bias, 5 mean, 6 var (positive), 7 dscale, 8 dbias
  RotatingBuffers buf;
  CAL_RETURN_IF_ERROR(buf.Init({{xb, t},
                                {xb, t},
                                {xb, t},
                                {pb, DType::kF32},
                                {pb, DType::kF32},
                                {pb, DType::kF32},
                                {pb, DType::kF32, 0.5f, 1.5f},
                                {pb, DType::kF32},
                                {pb, DType::kF32}},
                               ctx.l2_bytes, ctx.stream));
  const std::string kind = key.kind;
  CallFn call = [&, kind](int i) -> Status {
    const float one = 1.f, zero = 0.f;
    if (kind == "batchnorm_infer") {
      return CudnnStatus(cudnnBatchNormalizationForwardInference(
                             ctx.cudnn, mode, &one, &zero, x, buf.Get(i, 0), x, buf.Get(i, 1),
                             bn, buf.Get(i, 3), buf.Get(i, 4), buf.Get(i, 5), buf.Get(i, 6),
                             kEps),
                         "cudnnBatchNormalizationForwardInference");
    }
    if (kind == "batchnorm_train_fwd") {
      // Running mean/var updated in 5/6; saved mean/inv-var written to 7/8.
      return CudnnStatus(cudnnBatchNormalizationForwardTraining(
                             ctx.cudnn, mode, &one, &zero, x, buf.Get(i, 0), x, buf.Get(i, 1),
                             bn, buf.Get(i, 3), buf.Get(i, 4), 0.1, buf.Get(i, 5),
                             buf.Get(i, 6), kEps, buf.Get(i, 7), buf.Get(i, 8)),
                         "cudnnBatchNormalizationForwardTraining");
    }
    // Saved mean and inverse variance: 5 and 6 (positive).
    return CudnnStatus(cudnnBatchNormalizationBackward(
                           ctx.cudnn, mode, &one, &zero, &one, &zero, x, buf.Get(i, 0), x,
                           buf.Get(i, 2), x, buf.Get(i, 1), bn, buf.Get(i, 3), buf.Get(i, 7),
                           buf.Get(i, 8), kEps, buf.Get(i, 5), buf.Get(i, 6)),
                       "cudnnBatchNormalizationBackward");
  };
  MeasureCall(ctx, call, buf.copies(), false, res);
  return Status::Ok();
}

Status MeasurePool(const Key& key, Context& ctx, AlgoResult* res) {
  DType t;
  cudnnTensorFormat_t fmt;
  CAL_RETURN_IF_ERROR(KeyTypeAndFormat(key, &t, &fmt));
  std::string mode_name = key.Str("mode", "max");
  cudnnPoolingMode_t mode;
  if (mode_name == "max") mode = CUDNN_POOLING_MAX;
  else if (mode_name == "avg") mode = CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING;
  else return Unsupported("pooling mode '" + mode_name + "' (want max or avg)");
  TensorDesc x, y;
  PoolDesc pd;
  if (!x.ok() || !y.ok() || !pd.ok()) return Failed("cannot create cuDNN descriptors");
  const int n = int(key.Int("n")), c = int(key.Int("c"));
  CAL_RETURN_IF_ERROR(Set4d(x, fmt, t, n, c, int(key.Int("h")), int(key.Int("w"))));
  CAL_CUDNN(cudnnSetPooling2dDescriptor(pd, mode, CUDNN_NOT_PROPAGATE_NAN, int(key.Int("r")),
                                        int(key.Int("s")), int(key.Int("pad_h")),
                                        int(key.Int("pad_w")), int(key.Int("stride_h")),
                                        int(key.Int("stride_w"))));
  int on, oc, oh, ow;
  CAL_CUDNN(cudnnGetPooling2dForwardOutputDim(pd, x, &on, &oc, &oh, &ow));
  CAL_RETURN_IF_ERROR(Set4d(y, fmt, t, on, oc, oh, ow));
  const size_t xb = size_t(n) * c * key.Int("h") * key.Int("w") * DTypeSize(t);
  const size_t yb = size_t(on) * oc * oh * ow * DTypeSize(t);
  // 0 x, 1 y, 2 dy, 3 dx
  RotatingBuffers buf;
  CAL_RETURN_IF_ERROR(
      buf.Init({{xb, t}, {yb, t}, {yb, t}, {xb, t}}, ctx.l2_bytes, ctx.stream));
  const bool fwd = key.kind == "pool_fwd";
  if (!fwd) {  // y must be the forward result of x for max-pool backward
    for (int i = 0; i < buf.copies(); ++i) {
      const float one = 1.f, zero = 0.f;
      CAL_CUDNN(cudnnPoolingForward(ctx.cudnn, pd, &one, x, buf.Get(i, 0), &zero, y,
                                    buf.Get(i, 1)));
    }
  }
  CallFn call = [&, fwd](int i) -> Status {
    const float one = 1.f, zero = 0.f;
    if (fwd) {
      return CudnnStatus(
          cudnnPoolingForward(ctx.cudnn, pd, &one, x, buf.Get(i, 0), &zero, y, buf.Get(i, 1)),
          "cudnnPoolingForward");
    }
    return CudnnStatus(cudnnPoolingBackward(ctx.cudnn, pd, &one, y, buf.Get(i, 1), y,
                                            buf.Get(i, 2), x, buf.Get(i, 0), &zero, x,
                                            buf.Get(i, 3)),
                       "cudnnPoolingBackward");
  };
  MeasureCall(ctx, call, buf.copies(), false, res);
  return Status::Ok();
}

Status MeasureSoftmax(const Key& key, Context& ctx, AlgoResult* res) {
  DType t;
  if (!DTypeFromName(key.dtype, &t)) return Unsupported("dtype " + key.dtype);
  const int64_t rows = key.Int("rows"), cols = key.Int("cols");
  if (rows < 1 || cols < 1 || rows > INT32_MAX || cols > INT32_MAX) {
    return Unsupported("rows/cols out of range");
  }
  TensorDesc x;
  if (!x.ok()) return Failed("cannot create cuDNN descriptors");
  CAL_RETURN_IF_ERROR(Set4d(x, CUDNN_TENSOR_NCHW, t, int(rows), int(cols), 1, 1));
  const size_t b = size_t(rows * cols) * DTypeSize(t);
  // 0 x, 1 y, 2 dy, 3 dx
  RotatingBuffers buf;
  CAL_RETURN_IF_ERROR(buf.Init({{b, t}, {b, t}, {b, t}, {b, t}}, ctx.l2_bytes, ctx.stream));
  const bool fwd = key.kind == "softmax_fwd";
  CallFn call = [&, fwd](int i) -> Status {
    const float one = 1.f, zero = 0.f;
    if (fwd) {
      return CudnnStatus(cudnnSoftmaxForward(ctx.cudnn, CUDNN_SOFTMAX_ACCURATE,
                                             CUDNN_SOFTMAX_MODE_INSTANCE, &one, x, buf.Get(i, 0),
                                             &zero, x, buf.Get(i, 1)),
                         "cudnnSoftmaxForward");
    }
    return CudnnStatus(cudnnSoftmaxBackward(ctx.cudnn, CUDNN_SOFTMAX_ACCURATE,
                                            CUDNN_SOFTMAX_MODE_INSTANCE, &one, x, buf.Get(i, 1),
                                            x, buf.Get(i, 2), &zero, x, buf.Get(i, 3)),
                       "cudnnSoftmaxBackward");
  };
  MeasureCall(ctx, call, buf.copies(), false, res);
  return Status::Ok();
}

Status MeasureLrn(const Key& key, Context& ctx, AlgoResult* res) {
  DType t;
  cudnnTensorFormat_t fmt;
  CAL_RETURN_IF_ERROR(KeyTypeAndFormat(key, &t, &fmt));
  TensorDesc x;
  LrnDesc lrn;
  if (!x.ok() || !lrn.ok()) return Failed("cannot create cuDNN descriptors");
  const int n = int(key.Int("n")), c = int(key.Int("c")), h = int(key.Int("h")),
            w = int(key.Int("w"));
  CAL_RETURN_IF_ERROR(Set4d(x, fmt, t, n, c, h, w));
  // AlexNet's constants; cuDNN accepts window sizes 1..16.
  CAL_CUDNN(cudnnSetLRNDescriptor(lrn, unsigned(key.Int("size")), 1e-4, 0.75, 2.0));
  const size_t b = size_t(n) * c * h * w * DTypeSize(t);
  RotatingBuffers buf;
  CAL_RETURN_IF_ERROR(buf.Init({{b, t}, {b, t}}, ctx.l2_bytes, ctx.stream));
  CallFn call = [&](int i) -> Status {
    const float one = 1.f, zero = 0.f;
    return CudnnStatus(cudnnLRNCrossChannelForward(ctx.cudnn, lrn, CUDNN_LRN_CROSS_CHANNEL_DIM1,
                                                   &one, x, buf.Get(i, 0), &zero, x,
                                                   buf.Get(i, 1)),
                       "cudnnLRNCrossChannelForward");
  };
  MeasureCall(ctx, call, buf.copies(), false, res);
  return Status::Ok();
}

}  // namespace

Status MeasureNormPool(const Key& key, Context& ctx, std::vector<AlgoResult>* out) {
  AlgoResult res;
  res.heuristic = true;
  Status st;
  if (key.kind.rfind("batchnorm_", 0) == 0) st = MeasureBatchNorm(key, ctx, &res);
  else if (key.kind.rfind("pool_", 0) == 0) st = MeasurePool(key, ctx, &res);
  else if (key.kind.rfind("softmax_", 0) == 0) st = MeasureSoftmax(key, ctx, &res);
  else if (key.kind == "lrn_fwd") st = MeasureLrn(key, ctx, &res);
  else st = Unsupported("not a normalisation/pooling kind: " + key.kind);
  CAL_RETURN_IF_ERROR(st);
  out->push_back(std::move(res));
  MarkFastest(out);
  return Status::Ok();
}

}  // namespace dlcal
