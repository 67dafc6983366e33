// Recurrent layers through cuDNN's v8 RNN API (CUDNN_RNN_ALGO_STANDARD,
// packed sequence-major data, every sequence full length). rnn_fwd runs in
// inference mode; the backward kinds run a training-mode forward once to
// fill the reserve space, then time the backward call alone.
#include <vector>

#include "cuda_util.h"
#include "cudnn_util.h"
#include "families.h"

namespace dlcal {
namespace {

struct Bufs {
  DeviceBuffer x, y, dy, dx, hx, cx, hy, cy, dhy, dcy, dhx, dcx, w, dw, work, reserve, seq,
      states;
};

Status Alloc(DeviceBuffer* b, size_t bytes, DType t, cudaStream_t s, float lo = -1,
             float hi = 1) {
  CAL_RETURN_IF_ERROR(b->Allocate(bytes));
  return FillRandom(b->get(), b->bytes(), t, lo, hi, s);
}

}  // namespace

Status MeasureRnn(const Key& key, Context& ctx, std::vector<AlgoResult>* out) {
  DType t;
  if (!DTypeFromName(key.dtype, &t)) return Unsupported("dtype " + key.dtype);
  const std::string cell_name = key.Str("cell", "lstm");
  cudnnRNNMode_t cell;
  if (cell_name == "lstm") cell = CUDNN_LSTM;
  else if (cell_name == "gru") cell = CUDNN_GRU;
  else if (cell_name == "rnn_tanh") cell = CUDNN_RNN_TANH;
  else if (cell_name == "rnn_relu") cell = CUDNN_RNN_RELU;
  else return Unsupported("cell '" + cell_name + "' (want lstm, gru, rnn_tanh, rnn_relu)");
  const int seq = int(key.Int("seq")), batch = int(key.Int("batch"));
  const int input = int(key.Int("input")), hidden = int(key.Int("hidden"));
  const int layers = int(key.Int("layers")), dirs = int(key.Int("dirs"));
  if (seq < 1 || batch < 1 || input < 1 || hidden < 1 || layers < 1 || (dirs != 1 && dirs != 2)) {
    return Unsupported("bad RNN shape");
  }
  cudnnMathType_t math = CUDNN_TENSOR_OP_MATH;
  if (t == DType::kF32) {
    if (key.math == "fp32") math = CUDNN_FMA_MATH;
    else if (key.math == "tf32") math = CUDNN_DEFAULT_MATH;
    else return Unsupported("math " + key.math + " on fp32 data");
  }
  const bool fwd = key.kind == "rnn_fwd";
  const cudnnForwardMode_t mode = fwd ? CUDNN_FWD_MODE_INFERENCE : CUDNN_FWD_MODE_TRAINING;

  RnnDesc rnn;
  DropoutDesc drop;
  RnnDataDesc xd, yd;
  TensorDesc hd;
  if (!rnn.ok() || !drop.ok() || !xd.ok() || !yd.ok() || !hd.ok()) {
    return Failed("cannot create cuDNN descriptors");
  }
  Bufs b;
  size_t state_bytes = 0;
  CAL_CUDNN(cudnnDropoutGetStatesSize(ctx.cudnn, &state_bytes));
  CAL_RETURN_IF_ERROR(b.states.Allocate(state_bytes));
  CAL_CUDNN(cudnnSetDropoutDescriptor(drop, ctx.cudnn, 0.f, b.states.get(), state_bytes, 1234));
  CAL_CUDNN(cudnnSetRNNDescriptor_v8(
      rnn, CUDNN_RNN_ALGO_STANDARD, cell, CUDNN_RNN_DOUBLE_BIAS,
      dirs == 2 ? CUDNN_BIDIRECTIONAL : CUDNN_UNIDIRECTIONAL, CUDNN_LINEAR_INPUT, CudnnType(t),
      CUDNN_DATA_FLOAT, math, input, hidden, hidden, layers, drop, CUDNN_RNN_PADDED_IO_DISABLED));
  std::vector<int> lens(size_t(batch), seq);
  CAL_CUDNN(cudnnSetRNNDataDescriptor(xd, CudnnType(t), CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED,
                                      seq, batch, input, lens.data(), nullptr));
  CAL_CUDNN(cudnnSetRNNDataDescriptor(yd, CudnnType(t), CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED,
                                      seq, batch, hidden * dirs, lens.data(), nullptr));
  int dims[3] = {layers * dirs, batch, hidden};
  int strides[3] = {batch * hidden, hidden, 1};
  CAL_CUDNN(cudnnSetTensorNdDescriptor(hd, CudnnType(t), 3, dims, strides));

  size_t wbytes = 0, work = 0, reserve = 0;
  CAL_CUDNN(cudnnGetRNNWeightSpaceSize(ctx.cudnn, rnn, &wbytes));
  CAL_CUDNN(cudnnGetRNNTempSpaceSizes(ctx.cudnn, rnn, mode, xd, &work, &reserve));
  const size_t es = DTypeSize(t);
  const size_t xb = size_t(seq) * batch * input * es;
  const size_t yb = size_t(seq) * batch * hidden * dirs * es;
  const size_t hb = size_t(layers) * dirs * batch * hidden * es;
  cudaStream_t s = ctx.stream;
  for (auto* p : {&b.x, &b.dx}) CAL_RETURN_IF_ERROR(Alloc(p, xb, t, s));
  for (auto* p : {&b.y, &b.dy}) CAL_RETURN_IF_ERROR(Alloc(p, yb, t, s));
  for (auto* p : {&b.hx, &b.cx, &b.hy, &b.cy, &b.dhy, &b.dcy, &b.dhx, &b.dcx}) {
    CAL_RETURN_IF_ERROR(Alloc(p, hb, t, s));
  }
  // Small weights keep a long recurrence finite.
  CAL_RETURN_IF_ERROR(Alloc(&b.w, wbytes, t, s, -0.1f, 0.1f));
  CAL_RETURN_IF_ERROR(Alloc(&b.dw, wbytes, t, s));
  CAL_RETURN_IF_ERROR(b.work.Allocate(work));
  CAL_RETURN_IF_ERROR(b.reserve.Allocate(reserve));
  CAL_RETURN_IF_ERROR(b.seq.Allocate(lens.size() * sizeof(int)));
  CAL_CUDA(cudaMemcpy(b.seq.get(), lens.data(), lens.size() * sizeof(int),
                      cudaMemcpyHostToDevice));
  const bool lstm = cell == CUDNN_LSTM;
  const int32_t* dseq = static_cast<const int32_t*>(b.seq.get());
  auto forward = [&](cudnnForwardMode_t m) {
    return CudnnStatus(cudnnRNNForward(ctx.cudnn, rnn, m, dseq, xd, b.x.get(), yd, b.y.get(), hd,
                                       b.hx.get(), b.hy.get(), hd, lstm ? b.cx.get() : nullptr,
                                       lstm ? b.cy.get() : nullptr, wbytes, b.w.get(), work,
                                       b.work.get(), reserve, b.reserve.get()),
                       "cudnnRNNForward");
  };
  auto bwd_data = [&]() {
    return CudnnStatus(
        cudnnRNNBackwardData_v8(ctx.cudnn, rnn, dseq, yd, b.y.get(), b.dy.get(), xd, b.dx.get(),
                                hd, b.hx.get(), b.dhy.get(), b.dhx.get(), hd,
                                lstm ? b.cx.get() : nullptr, lstm ? b.dcy.get() : nullptr,
                                lstm ? b.dcx.get() : nullptr, wbytes, b.w.get(), work,
                                b.work.get(), reserve, b.reserve.get()),
        "cudnnRNNBackwardData_v8");
  };
  CallFn call;
  if (fwd) {
    call = [&](int) { return forward(CUDNN_FWD_MODE_INFERENCE); };
  } else {
    CAL_RETURN_IF_ERROR(forward(CUDNN_FWD_MODE_TRAINING));
    if (key.kind == "rnn_bwd_data") {
      call = [&](int) { return bwd_data(); };
    } else {
      CAL_RETURN_IF_ERROR(bwd_data());  // cuDNN wants backward data before weights
      call = [&](int) {
        return CudnnStatus(cudnnRNNBackwardWeights_v8(ctx.cudnn, rnn, CUDNN_WGRAD_MODE_ADD, dseq,
                                                      xd, b.x.get(), hd, b.hx.get(), yd,
                                                      b.y.get(), wbytes, b.dw.get(), work,
                                                      b.work.get(), reserve, b.reserve.get()),
                           "cudnnRNNBackwardWeights_v8");
      };
    }
  }
  CAL_CUDA(cudaStreamSynchronize(s));
  AlgoResult res;
  res.algo = "CUDNN_RNN_ALGO_STANDARD";
  res.heuristic = true;
  res.workspace_bytes = double(work + reserve);
  // The RNN's state cannot be rotated cheaply: flush L2 when it would fit.
  const double ws = double(xb + yb + 2 * hb + wbytes);
  MeasureCall(ctx, call, 1, ws < 2 * ctx.l2_bytes, &res);
  out->push_back(std::move(res));
  MarkFastest(out);
  return Status::Ok();
}

}  // namespace dlcal
