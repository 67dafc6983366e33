// Memory-bound kinds with dlsim-calibrate's own kernels (kernels.cu), plus
// the launch and transfer probes of `--sweep launch`:
//   elementwise op=empty_kernel elems=0 arity=0  -> an empty kernel
//   copy op=d2d|h2d|d2h elems=N                  -> cudaMemcpyAsync of N
//                                                   elements (host side pinned)
#include <cmath>

#include "cuda_util.h"
#include "families.h"
#include "kernels.h"

namespace dlcal {
namespace {

EwOp EwOpFromName(const std::string& op) {
  if (op == "sub") return EwOp::kSub;
  if (op == "mul") return EwOp::kMul;
  if (op == "div") return EwOp::kDiv;
  if (op == "max" || op == "min") return EwOp::kMax;
  if (op == "relu") return EwOp::kRelu;
  if (op == "sigmoid") return EwOp::kSigmoid;
  if (op == "tanh") return EwOp::kTanh;
  if (op == "gelu") return EwOp::kGelu;
  if (op == "silu" || op == "swish") return EwOp::kSilu;
  if (op == "exp") return EwOp::kExp;
  if (op == "cast" || op == "identity" || op == "copy") return EwOp::kIdentity;
  return EwOp::kAdd;  // unknown ops cost what an add costs
}

RedOp RedOpFromName(const std::string& op) {
  if (op == "mean") return RedOp::kMean;
  if (op == "max") return RedOp::kMax;
  if (op == "min") return RedOp::kMin;
  return RedOp::kSum;
}

class PinnedBuffer {
 public:
  ~PinnedBuffer() {
    if (p_) cudaFreeHost(p_);
  }
  Status Allocate(size_t bytes) {
    return CudaStatus(cudaMallocHost(&p_, std::max<size_t>(bytes, 1)), "cudaMallocHost");
  }
  void* get() const { return p_; }

 private:
  void* p_ = nullptr;
};

Status Measure(Context& ctx, const CallFn& call, const RotatingBuffers& buf,
               AlgoResult* res) {
  MeasureCall(ctx, call, buf.copies(), false, res);
  return Status::Ok();
}

Status Elementwise(const Key& key, DType t, Context& ctx, AlgoResult* res) {
  const std::string op = key.Str("op", "add");
  if (op == "empty_kernel") {
    CallFn call = [&](int) { return CudaStatus(LaunchEmpty(ctx.stream), "empty kernel"); };
    MeasureCall(ctx, call, 1, false, res);
    return Status::Ok();
  }
  const int64_t n = key.Int("elems");
  const int arity = int(key.Int("arity"));
  if (n < 0 || arity < 0) return Unsupported("negative elems or arity");
  if (arity > kMaxArity) return Unsupported("arity over " + std::to_string(kMaxArity));
  std::vector<RotatingBuffers::Spec> specs(size_t(arity) + 1, {size_t(n) * DTypeSize(t), t});
  RotatingBuffers buf;
  CAL_RETURN_IF_ERROR(buf.Init(specs, ctx.l2_bytes, ctx.stream));
  const EwOp eop = EwOpFromName(op);
  CallFn call = [&, n, arity, eop](int i) {
    const void* in[kMaxArity];
    for (int a = 0; a < arity; ++a) in[a] = buf.Get(i, a);
    return CudaStatus(LaunchElementwise(eop, t, in, arity, buf.Get(i, arity), size_t(n),
                                        ctx.stream),
                      "elementwise kernel");
  };
  return Measure(ctx, call, buf, res);
}

Status Reduction(const Key& key, DType t, Context& ctx, AlgoResult* res) {
  const int64_t rows = key.Int("rows"), cols = key.Int("cols");
  if (rows < 1 || cols < 1) return Unsupported("empty reduction");
  RotatingBuffers buf;
  CAL_RETURN_IF_ERROR(buf.Init({{size_t(rows * cols) * DTypeSize(t), t},
                                {size_t(rows) * DTypeSize(t), t}},
                               ctx.l2_bytes, ctx.stream));
  const RedOp op = RedOpFromName(key.Str("op", "sum"));
  CallFn call = [&, rows, cols, op](int i) {
    return CudaStatus(LaunchReduction(op, t, buf.Get(i, 0), buf.Get(i, 1), size_t(rows),
                                      size_t(cols), ctx.stream),
                      "reduction kernel");
  };
  return Measure(ctx, call, buf, res);
}

Status Copy(const Key& key, DType t, Context& ctx, AlgoResult* res) {
  const std::string op = key.Str("op", "copy");
  const int64_t n = key.Int("elems");
  if (n < 0) return Unsupported("negative elems");
  const size_t bytes = size_t(n) * DTypeSize(t);
  if (op == "h2d" || op == "d2h") {
    PinnedBuffer host;
    DeviceBuffer dev;
    CAL_RETURN_IF_ERROR(host.Allocate(bytes));
    CAL_RETURN_IF_ERROR(dev.Allocate(bytes));
    const bool h2d = op == "h2d";
    CallFn call = [&, h2d, bytes](int) {
      return CudaStatus(
          h2d ? cudaMemcpyAsync(dev.get(), host.get(), bytes, cudaMemcpyHostToDevice, ctx.stream)
              : cudaMemcpyAsync(host.get(), dev.get(), bytes, cudaMemcpyDeviceToHost, ctx.stream),
          "cudaMemcpyAsync " + std::string(h2d ? "H2D" : "D2H"));
    };
    MeasureCall(ctx, call, 1, false, res);
    return Status::Ok();
  }
  RotatingBuffers buf;
  CAL_RETURN_IF_ERROR(buf.Init({{bytes, t}, {bytes, t}}, ctx.l2_bytes, ctx.stream));
  CallFn call;
  if (op == "d2d") {
    call = [&, bytes](int i) {
      return CudaStatus(cudaMemcpyAsync(buf.Get(i, 1), buf.Get(i, 0), bytes,
                                        cudaMemcpyDeviceToDevice, ctx.stream),
                        "cudaMemcpyAsync D2D");
    };
  } else if (op == "transpose") {
    // A near-square 2-D transpose covering the elements.
    size_t rows = std::max<size_t>(1, size_t(std::floor(std::sqrt(double(n)))));
    size_t cols = std::max<size_t>(1, size_t(n) / rows);
    call = [&, rows, cols](int i) {
      return CudaStatus(LaunchTranspose(t, buf.Get(i, 0), buf.Get(i, 1), rows, cols, ctx.stream),
                        "transpose kernel");
    };
  } else {  // concat, slice, gather, pad, expand, split, cast...: a contiguous copy
    call = [&, bytes](int i) {
      return CudaStatus(LaunchCopy(buf.Get(i, 0), buf.Get(i, 1), bytes, ctx.stream),
                        "copy kernel");
    };
  }
  return Measure(ctx, call, buf, res);
}

Status Optimizer(const Key& key, DType t, Context& ctx, AlgoResult* res) {
  const std::string name = key.Str("op", "sgd");
  OptOp op;
  if (name == "sgd") op = OptOp::kSgd;
  else if (name == "sgd_momentum") op = OptOp::kSgdMomentum;
  else if (name == "adam") op = OptOp::kAdam;
  else if (name == "adamw") op = OptOp::kAdamW;
  else return Unsupported("optimizer '" + name + "' (want sgd, sgd_momentum, adam, adamw)");
  const int64_t n = key.Int("params");
  if (n < 1) return Unsupported("no parameters");
  const size_t b = size_t(n) * DTypeSize(t);
  const bool has_m = op != OptOp::kSgd, has_v = op == OptOp::kAdam || op == OptOp::kAdamW;
  // 0 w, 1 g, 2 m, 3 v (v positive); unused state gets one element.
  RotatingBuffers buf;
  CAL_RETURN_IF_ERROR(buf.Init({{b, t},
                                {b, t},
                                {has_m ? b : DTypeSize(t), t},
                                {has_v ? b : DTypeSize(t), t, 0.f, 1.f}},
                               ctx.l2_bytes, ctx.stream));
  CallFn call = [&, op, n](int i) {
    return CudaStatus(LaunchOptimizer(op, t, buf.Get(i, 0), buf.Get(i, 1), buf.Get(i, 2),
                                      buf.Get(i, 3), size_t(n), ctx.stream),
                      "optimizer kernel");
  };
  return Measure(ctx, call, buf, res);
}

Status LayerNorm(const Key& key, DType t, Context& ctx, AlgoResult* res) {
  const int64_t rows = key.Int("rows"), cols = key.Int("cols");
  if (rows < 1 || cols < 1) return Unsupported("empty layer norm");
  const size_t xb = size_t(rows * cols) * DTypeSize(t), pb = size_t(cols) * DTypeSize(t);
  const size_t sb = size_t(rows) * sizeof(float), gb = size_t(cols) * sizeof(float);
  // 0 x, 1 y/dx, 2 dy, 3 gamma, 4 beta, 5 mean, 6 rstd (positive), 7 dgamma, 8 dbeta
  RotatingBuffers buf;
  CAL_RETURN_IF_ERROR(buf.Init({{xb, t},
                                {xb, t},
                                {xb, t},
                                {pb, t},
                                {pb, t},
                                {sb, DType::kF32},
                                {sb, DType::kF32, 0.5f, 1.5f},
                                {gb, DType::kF32},
                                {gb, DType::kF32}},
                               ctx.l2_bytes, ctx.stream));
  const bool fwd = key.kind == "layernorm_fwd";
  CallFn call = [&, rows, cols, fwd](int i) {
    auto f = [&](int j) { return static_cast<float*>(buf.Get(i, j)); };
    if (fwd) {
      return CudaStatus(LaunchLayerNormFwd(t, buf.Get(i, 0), buf.Get(i, 3), buf.Get(i, 4),
                                           buf.Get(i, 1), f(5), f(6), size_t(rows),
                                           size_t(cols), ctx.stream),
                        "layer-norm forward kernel");
    }
    return CudaStatus(LaunchLayerNormBwd(t, buf.Get(i, 0), buf.Get(i, 2), buf.Get(i, 3), f(5),
                                         f(6), buf.Get(i, 1), f(7), f(8), size_t(rows),
                                         size_t(cols), ctx.stream),
                      "layer-norm backward kernels");
  };
  return Measure(ctx, call, buf, res);
}

}  // namespace

Status MeasureMemory(const Key& key, Context& ctx, std::vector<AlgoResult>* out) {
  DType t;
  if (!DTypeFromName(key.dtype, &t)) return Unsupported("dtype " + key.dtype);
  AlgoResult res;
  res.heuristic = true;
  Status st;
  if (key.kind == "elementwise") st = Elementwise(key, t, ctx, &res);
  else if (key.kind == "reduction") st = Reduction(key, t, ctx, &res);
  else if (key.kind == "copy") st = Copy(key, t, ctx, &res);
  else if (key.kind == "optimizer") st = Optimizer(key, t, ctx, &res);
  else if (key.kind.rfind("layernorm_", 0) == 0) st = LayerNorm(key, t, ctx, &res);
  else st = Unsupported("not a memory-bound kind: " + key.kind);
  CAL_RETURN_IF_ERROR(st);
  out->push_back(std::move(res));
  MarkFastest(out);
  return Status::Ok();
}

Status MeasureKey(const Key& key, Context& ctx, std::vector<AlgoResult>* out) {
  switch (key.family) {
    case Family::kConv:
      return ctx.conv_engines && key.kind != "conv_bias_act" ? MeasureConvEngines(key, ctx, out)
                                                             : MeasureConv(key, ctx, out);
    case Family::kGemm: return MeasureGemm(key, ctx, out);
    case Family::kNormPool: return MeasureNormPool(key, ctx, out);
    case Family::kRnn: return MeasureRnn(key, ctx, out);
    case Family::kMemory: return MeasureMemory(key, ctx, out);
    case Family::kNone: break;
  }
  return Unsupported("kernel kind '" + key.kind + "' has no measuring family here");
}

}  // namespace dlcal
