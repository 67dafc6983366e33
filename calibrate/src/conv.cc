// Convolutions through cuDNN's legacy API: every algorithm cuDNN supports
// for the configuration is timed (workspace <= 4 GiB), the heuristic's first
// choice (cudnnGet*Algorithm_v7) is flagged, and so is the fastest.
#include <algorithm>
#include <cstdio>
#include <set>

#include "cuda_util.h"
#include "cudnn_util.h"
#include "families.h"
#include "profile.h"

namespace dlcal {
namespace {

constexpr double kMaxWorkspace = 4.0 * (1ull << 30);

const char* const kFwdNames[] = {"IMPLICIT_GEMM", "IMPLICIT_PRECOMP_GEMM", "GEMM", "DIRECT",
                                 "FFT", "FFT_TILING", "WINOGRAD", "WINOGRAD_NONFUSED"};
const char* const kBwdDataNames[] = {"0", "1", "FFT", "FFT_TILING", "WINOGRAD",
                                     "WINOGRAD_NONFUSED"};
const char* const kBwdFilterNames[] = {"0", "1", "FFT", "3", "WINOGRAD", "WINOGRAD_NONFUSED",
                                       "FFT_TILING"};

enum class Dir { kFwd, kBiasAct, kBwdData, kBwdFilter };

std::string AlgoName(Dir d, int a) {
  auto pick = [a](const char* const* names, int n) {
    return a >= 0 && a < n ? std::string(names[a]) : std::to_string(a);
  };
  switch (d) {
    case Dir::kBwdData: return "CUDNN_CONVOLUTION_BWD_DATA_ALGO_" + pick(kBwdDataNames, 6);
    case Dir::kBwdFilter: return "CUDNN_CONVOLUTION_BWD_FILTER_ALGO_" + pick(kBwdFilterNames, 7);
    default: return "CUDNN_CONVOLUTION_FWD_ALGO_" + pick(kFwdNames, 8);
  }
}

struct Conv {
  DType t;
  cudnnTensorFormat_t fmt;
  int n, c, h, w, k, r, s, groups, oh = 0, ow = 0;
  TensorDesc x, y, bias;
  FilterDesc wd;
  ConvDesc conv;
  ActDesc act;

  size_t XBytes() const { return size_t(n) * c * h * w * DTypeSize(t); }
  size_t YBytes() const { return size_t(n) * k * oh * ow * DTypeSize(t); }
  size_t WBytes() const { return size_t(k) * (c / groups) * r * s * DTypeSize(t); }
};

Status Setup(const Key& key, Dir dir, Conv* cv) {
  CAL_RETURN_IF_ERROR(KeyTypeAndFormat(key, &cv->t, &cv->fmt));
  cv->n = int(key.Int("n")), cv->c = int(key.Int("c")), cv->h = int(key.Int("h"));
  cv->w = int(key.Int("w")), cv->k = int(key.Int("k")), cv->r = int(key.Int("r"));
  cv->s = int(key.Int("s")), cv->groups = int(key.Int("groups"));
  if (cv->groups < 1 || cv->c % cv->groups != 0 || cv->k % cv->groups != 0) {
    return Unsupported("groups must divide c and k");
  }
  cudnnMathType_t math = CUDNN_TENSOR_OP_MATH;
  if (cv->t == DType::kF32) {
    if (key.math == "fp32") math = CUDNN_FMA_MATH;          // no TF32
    else if (key.math == "tf32") math = CUDNN_DEFAULT_MATH;  // TF32 allowed (as PyTorch)
    else return Unsupported("math " + key.math + " on fp32 data");
  }
  if (!cv->x.ok() || !cv->y.ok() || !cv->wd.ok() || !cv->conv.ok() || !cv->bias.ok() ||
      !cv->act.ok()) {
    return Failed("cannot create cuDNN descriptors");
  }
  CAL_RETURN_IF_ERROR(Set4d(cv->x, cv->fmt, cv->t, cv->n, cv->c, cv->h, cv->w));
  CAL_CUDNN(cudnnSetFilter4dDescriptor(cv->wd, CudnnType(cv->t), cv->fmt, cv->k,
                                       cv->c / cv->groups, cv->r, cv->s));
  CAL_CUDNN(cudnnSetConvolution2dDescriptor(
      cv->conv, int(key.Int("pad_h")), int(key.Int("pad_w")), int(key.Int("stride_h")),
      int(key.Int("stride_w")), int(key.Int("dil_h")), int(key.Int("dil_w")),
      CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
  CAL_CUDNN(cudnnSetConvolutionGroupCount(cv->conv, cv->groups));
  CAL_CUDNN(cudnnSetConvolutionMathType(cv->conv, math));
  int on = 0, oc = 0;
  CAL_CUDNN(cudnnGetConvolution2dForwardOutputDim(cv->conv, cv->x, cv->wd, &on, &oc, &cv->oh,
                                                  &cv->ow));
  CAL_RETURN_IF_ERROR(Set4d(cv->y, cv->fmt, cv->t, on, oc, cv->oh, cv->ow));
  if (dir == Dir::kBiasAct) {
    CAL_RETURN_IF_ERROR(Set4d(cv->bias, CUDNN_TENSOR_NCHW, cv->t, 1, cv->k, 1, 1));
    std::string act = key.Str("act", "relu");
    cudnnActivationMode_t mode;
    if (act == "relu") mode = CUDNN_ACTIVATION_RELU;
    else if (act == "identity") mode = CUDNN_ACTIVATION_IDENTITY;
    else return Unsupported("act '" + act + "' (want relu or identity)");
    CAL_CUDNN(cudnnSetActivationDescriptor(cv->act, mode, CUDNN_NOT_PROPAGATE_NAN, 0.0));
  }
  return Status::Ok();
}

struct Candidate {
  int algo;
  bool heuristic;
};

// The heuristic's supported algorithms in its order, then any other
// algorithm whose workspace query succeeds.
template <typename Perf, typename GetMax, typename GetV7, typename Wsize>
Status ListCandidates(int algo_count, GetMax get_max, GetV7 get_v7, Wsize wsize,
                      std::vector<Candidate>* out, KeyPhases* phases) {
  Stopwatch sw;
  int max = 0;
  CAL_CUDNN(get_max(&max));
  std::vector<Perf> perf(std::max(max, 1));
  int returned = 0;
  CAL_CUDNN(get_v7(max, &returned, perf.data()));
  phases->enumerate_ms = sw.Lap();
  std::set<int> seen;
  for (int i = 0; i < returned; ++i) {
    if (perf[i].status != CUDNN_STATUS_SUCCESS) continue;
    int a = static_cast<int>(perf[i].algo);
    if (seen.insert(a).second) out->push_back({a, out->empty()});
  }
  for (int a = 0; a < algo_count; ++a) {
    size_t ws = 0;
    if (!seen.count(a) && wsize(a, &ws) == CUDNN_STATUS_SUCCESS) {
      seen.insert(a);
      out->push_back({a, false});
    }
  }
  phases->ws_list_ms = sw.Ms();
  return Status::Ok();
}

Status Candidates(Context& ctx, Dir dir, Conv& cv, std::vector<Candidate>* out,
                  KeyPhases* phases) {
  cudnnHandle_t h = ctx.cudnn;
  switch (dir) {
    case Dir::kFwd:
    case Dir::kBiasAct:
      CAL_RETURN_IF_ERROR(ListCandidates<cudnnConvolutionFwdAlgoPerf_t>(
          CUDNN_CONVOLUTION_FWD_ALGO_COUNT,
          [&](int* m) { return cudnnGetConvolutionForwardAlgorithmMaxCount(h, m); },
          [&](int m, int* n, cudnnConvolutionFwdAlgoPerf_t* p) {
            return cudnnGetConvolutionForwardAlgorithm_v7(h, cv.x, cv.wd, cv.conv, cv.y, m, n, p);
          },
          [&](int a, size_t* ws) {
            return cudnnGetConvolutionForwardWorkspaceSize(
                h, cv.x, cv.wd, cv.conv, cv.y, static_cast<cudnnConvolutionFwdAlgo_t>(a), ws);
          },
          out, phases));
      break;
    case Dir::kBwdData:
      CAL_RETURN_IF_ERROR(ListCandidates<cudnnConvolutionBwdDataAlgoPerf_t>(
          CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT,
          [&](int* m) { return cudnnGetConvolutionBackwardDataAlgorithmMaxCount(h, m); },
          [&](int m, int* n, cudnnConvolutionBwdDataAlgoPerf_t* p) {
            return cudnnGetConvolutionBackwardDataAlgorithm_v7(h, cv.wd, cv.y, cv.conv, cv.x, m,
                                                               n, p);
          },
          [&](int a, size_t* ws) {
            return cudnnGetConvolutionBackwardDataWorkspaceSize(
                h, cv.wd, cv.y, cv.conv, cv.x, static_cast<cudnnConvolutionBwdDataAlgo_t>(a),
                ws);
          },
          out, phases));
      break;
    case Dir::kBwdFilter:
      CAL_RETURN_IF_ERROR(ListCandidates<cudnnConvolutionBwdFilterAlgoPerf_t>(
          CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT,
          [&](int* m) { return cudnnGetConvolutionBackwardFilterAlgorithmMaxCount(h, m); },
          [&](int m, int* n, cudnnConvolutionBwdFilterAlgoPerf_t* p) {
            return cudnnGetConvolutionBackwardFilterAlgorithm_v7(h, cv.x, cv.y, cv.conv, cv.wd,
                                                                 m, n, p);
          },
          [&](int a, size_t* ws) {
            return cudnnGetConvolutionBackwardFilterWorkspaceSize(
                h, cv.x, cv.y, cv.conv, cv.wd, static_cast<cudnnConvolutionBwdFilterAlgo_t>(a),
                ws);
          },
          out, phases));
      break;
  }
  if (dir == Dir::kBiasAct) {
    // cuDNN runs identity activation only with IMPLICIT_PRECOMP_GEMM.
    bool identity = false;
    {
      cudnnActivationMode_t mode;
      cudnnNanPropagation_t nan;
      double coef;
      identity = cudnnGetActivationDescriptor(cv.act, &mode, &nan, &coef) ==
                     CUDNN_STATUS_SUCCESS &&
                 mode == CUDNN_ACTIVATION_IDENTITY;
    }
    if (identity) {
      std::vector<Candidate> kept;
      for (const auto& c : *out) {
        if (c.algo == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM) kept.push_back(c);
      }
      if (kept.empty()) kept.push_back({CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, true});
      kept[0].heuristic = true;
      *out = kept;
    }
  }
  return Status::Ok();
}

Status WorkspaceBytes(Context& ctx, Dir dir, Conv& cv, int a, size_t* ws) {
  cudnnHandle_t h = ctx.cudnn;
  switch (dir) {
    case Dir::kBwdData:
      return CudnnStatus(cudnnGetConvolutionBackwardDataWorkspaceSize(
                             h, cv.wd, cv.y, cv.conv, cv.x,
                             static_cast<cudnnConvolutionBwdDataAlgo_t>(a), ws),
                         "cudnnGetConvolutionBackwardDataWorkspaceSize");
    case Dir::kBwdFilter:
      return CudnnStatus(cudnnGetConvolutionBackwardFilterWorkspaceSize(
                             h, cv.x, cv.y, cv.conv, cv.wd,
                             static_cast<cudnnConvolutionBwdFilterAlgo_t>(a), ws),
                         "cudnnGetConvolutionBackwardFilterWorkspaceSize");
    default:
      return CudnnStatus(cudnnGetConvolutionForwardWorkspaceSize(
                             h, cv.x, cv.wd, cv.conv, cv.y,
                             static_cast<cudnnConvolutionFwdAlgo_t>(a), ws),
                         "cudnnGetConvolutionForwardWorkspaceSize");
  }
}

// Buffer indices in the rotating set: 0 x (or dx), 1 w (or dw), 2 y (or
// dy), 3 bias.
CallFn MakeCall(Context& ctx, Dir dir, Conv& cv, RotatingBuffers& buf, int a, void* ws,
                size_t ws_bytes) {
  return [&ctx, dir, &cv, &buf, a, ws, ws_bytes](int i) -> Status {
    const float one = 1.f, zero = 0.f;
    cudnnHandle_t h = ctx.cudnn;
    switch (dir) {
      case Dir::kFwd:
        return CudnnStatus(
            cudnnConvolutionForward(h, &one, cv.x, buf.Get(i, 0), cv.wd, buf.Get(i, 1), cv.conv,
                                    static_cast<cudnnConvolutionFwdAlgo_t>(a), ws, ws_bytes,
                                    &zero, cv.y, buf.Get(i, 2)),
            "cudnnConvolutionForward");
      case Dir::kBiasAct:
        return CudnnStatus(
            cudnnConvolutionBiasActivationForward(
                h, &one, cv.x, buf.Get(i, 0), cv.wd, buf.Get(i, 1), cv.conv,
                static_cast<cudnnConvolutionFwdAlgo_t>(a), ws, ws_bytes, &zero, cv.y,
                buf.Get(i, 2), cv.bias, buf.Get(i, 3), cv.act, cv.y, buf.Get(i, 2)),
            "cudnnConvolutionBiasActivationForward");
      case Dir::kBwdData:
        return CudnnStatus(
            cudnnConvolutionBackwardData(h, &one, cv.wd, buf.Get(i, 1), cv.y, buf.Get(i, 2),
                                         cv.conv, static_cast<cudnnConvolutionBwdDataAlgo_t>(a),
                                         ws, ws_bytes, &zero, cv.x, buf.Get(i, 0)),
            "cudnnConvolutionBackwardData");
      case Dir::kBwdFilter:
        return CudnnStatus(
            cudnnConvolutionBackwardFilter(h, &one, cv.x, buf.Get(i, 0), cv.y, buf.Get(i, 2),
                                           cv.conv,
                                           static_cast<cudnnConvolutionBwdFilterAlgo_t>(a), ws,
                                           ws_bytes, &zero, cv.wd, buf.Get(i, 1)),
            "cudnnConvolutionBackwardFilter");
    }
    return Failed("unknown convolution direction");
  };
}

// Measures one algorithm: its workspace (queried, allocated, freed) and
// the timing of MeasureCall; phases.total_ms covers all of it.
AlgoResult MeasureCandidate(Context& ctx, Dir dir, Conv& cv, RotatingBuffers& buf,
                            const Candidate& cand) {
  Stopwatch total;
  AlgoResult res;
  res.algo = AlgoName(dir, cand.algo);
  res.heuristic = cand.heuristic;
  {
    Stopwatch sw;
    size_t ws_bytes = 0;
    res.status = WorkspaceBytes(ctx, dir, cv, cand.algo, &ws_bytes);
    res.workspace_bytes = static_cast<double>(ws_bytes);
    res.phases.ws_query_ms = sw.Lap();
    if (res.status.ok() && res.workspace_bytes > kMaxWorkspace) {
      res.status = Unsupported("workspace over 4 GiB");
    }
    DeviceBuffer ws;
    if (res.status.ok() && ws_bytes > 0) res.status = ws.Allocate(ws_bytes);
    res.phases.ws_alloc_ms = sw.Ms();
    if (res.status.ok()) {
      MeasureCall(ctx, MakeCall(ctx, dir, cv, buf, cand.algo, ws.get(), ws_bytes),
                  buf.copies(), false, &res);
    }
  }  // frees the workspace
  res.phases.total_ms = total.Ms();
  return res;
}

// Profile lines go out as each algorithm finishes, so a run killed inside
// a key still shows how far it got.
void PrintAlgoProfile(const AlgoResult& r) {
  std::fprintf(stderr, "%s\n", AlgoProfileLine(r).c_str());
  std::fflush(stderr);
}

void PrintKeyProfile(const Key& key, const KeyPhases& k, const std::vector<AlgoResult>& results) {
  double algos_ms = 0;
  for (const auto& r : results) algos_ms += r.phases.total_ms;
  std::fprintf(stderr, "%s\n", KeyProfileLine(key.text, k, algos_ms).c_str());
}

}  // namespace

Status MeasureConv(const Key& key, Context& ctx, std::vector<AlgoResult>* out) {
  Stopwatch total, sw;
  KeyPhases phases;
  Dir dir = key.kind == "conv_bias_act"     ? Dir::kBiasAct
            : key.kind == "conv_bwd_data"   ? Dir::kBwdData
            : key.kind == "conv_bwd_filter" ? Dir::kBwdFilter
                                            : Dir::kFwd;
  Conv cv;
  CAL_RETURN_IF_ERROR(Setup(key, dir, &cv));
  phases.setup_ms = sw.Lap();
  std::vector<Candidate> cands;
  CAL_RETURN_IF_ERROR(Candidates(ctx, dir, cv, &cands, &phases));
  phases.candidates = static_cast<int>(cands.size());
  if (cands.empty()) return Unsupported("cuDNN reports no algorithm for this convolution");
  sw.Restart();
  RotatingBuffers buf;
  CAL_RETURN_IF_ERROR(buf.Init({{cv.XBytes(), cv.t},
                                {cv.WBytes(), cv.t},
                                {cv.YBytes(), cv.t},
                                {size_t(cv.k) * DTypeSize(cv.t), cv.t}},
                               ctx.l2_bytes, ctx.stream));
  phases.buffers_ms = sw.Ms();
  phases.copies = buf.copies();
  if (ctx.profile) {
    std::fprintf(stderr, "# profile %s: %zu algorithms, %d copies\n", key.text.c_str(),
                 cands.size(), buf.copies());
  }
  for (const auto& cand : cands) {
    out->push_back(MeasureCandidate(ctx, dir, cv, buf, cand));
    if (ctx.profile) PrintAlgoProfile(out->back());
    if (out->back().status.code() == Code::kFatal) return out->back().status;
  }
  MarkFastest(out);
  phases.total_ms = total.Ms();
  if (ctx.profile) PrintKeyProfile(key, phases, *out);
  return Status::Ok();
}

}  // namespace dlcal
