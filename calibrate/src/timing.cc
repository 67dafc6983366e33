// The timing harness (docs/calibration.md, "How a key is measured"):
// warm-up, a single-call estimate, then `reps` regions of back-to-back calls
// between CUDA events, captured once into a CUDA graph where the call allows
// it (so host launch overhead does not leak into device time), rotating
// among working-set copies so small problems are not served from L2.
#include <algorithm>

#include "context.h"
#include "cuda_util.h"
#include "cupti_tracer.h"

namespace dlcal {
namespace {

constexpr int kMaxGraphLaunches = 2000;

class Events {
 public:
  ~Events() {
    for (auto e : ev_) cudaEventDestroy(e);
  }
  Status Create(size_t n) {
    while (ev_.size() < n) {
      cudaEvent_t e;
      CAL_CUDA(cudaEventCreate(&e));
      ev_.push_back(e);
    }
    return Status::Ok();
  }
  cudaEvent_t operator[](size_t i) const { return ev_[i]; }

 private:
  std::vector<cudaEvent_t> ev_;
};

class Graph {
 public:
  ~Graph() { Reset(); }
  void Reset() {
    if (exec_) cudaGraphExecDestroy(exec_);
    if (graph_) cudaGraphDestroy(graph_);
    exec_ = nullptr;
    graph_ = nullptr;
  }
  // Captures `launches` calls; false (stream restored, errors cleared) when
  // the library call cannot be captured.
  bool Capture(cudaStream_t s, const CallFn& call, int launches, int* idx, int copies) {
    if (cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed) != cudaSuccess) {
      cudaGetLastError();
      return false;
    }
    bool ok = true;
    for (int j = 0; j < launches && ok; ++j) ok = call((*idx)++ % copies).ok();
    cudaGraph_t g = nullptr;
    cudaError_t e = cudaStreamEndCapture(s, &g);
    if (!ok || e != cudaSuccess || g == nullptr) {
      if (g) cudaGraphDestroy(g);
      cudaGetLastError();
      return false;
    }
    graph_ = g;
    if (cudaGraphInstantiate(&exec_, graph_, 0) != cudaSuccess) {
      cudaGetLastError();
      Reset();
      return false;
    }
    return true;
  }
  cudaGraphExec_t exec() const { return exec_; }

 private:
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
};

// A buffer of 2x L2 overwritten before each single timed call (flush mode).
Status FlushL2(Context& ctx, int rep) {
  static DeviceBuffer flush;
  size_t bytes = static_cast<size_t>(2 * ctx.l2_bytes);
  if (flush.bytes() < bytes) CAL_RETURN_IF_ERROR(flush.Allocate(bytes));
  return CudaStatus(cudaMemsetAsync(flush.get(), rep & 0xff, bytes, ctx.stream),
                    "L2 flush memset");
}

struct Run {
  Run(Context& c, const CallFn& f, int n, bool fl) : ctx(c), call(f), copies(n), flush(fl) {}
  Context& ctx;
  const CallFn& call;
  int copies;
  bool flush;
  int idx = 0;
  Events ev;
  Graph graph;

  Status EstimateMs(double* ms) {
    std::vector<double> t;
    CAL_RETURN_IF_ERROR(ev.Create(2));
    for (int i = 0; i < 3; ++i) {
      if (flush) CAL_RETURN_IF_ERROR(FlushL2(ctx, i));
      CAL_CUDA(cudaEventRecord(ev[0], ctx.stream));
      CAL_RETURN_IF_ERROR(call(idx++ % copies));
      CAL_CUDA(cudaEventRecord(ev[1], ctx.stream));
      CAL_CUDA(cudaEventSynchronize(ev[1]));
      float f = 0;
      CAL_CUDA(cudaEventElapsedTime(&f, ev[0], ev[1]));
      t.push_back(f);
    }
    *ms = Summarize(t).median_ms;
    return Status::Ok();
  }

  Status Regions(const TimingPlan& plan, bool use_graph, std::vector<double>* out) {
    CAL_RETURN_IF_ERROR(ev.Create(2 * static_cast<size_t>(plan.reps)));
    for (int r = 0; r < plan.reps; ++r) {
      if (flush) CAL_RETURN_IF_ERROR(FlushL2(ctx, r));
      CAL_CUDA(cudaEventRecord(ev[2 * r], ctx.stream));
      if (use_graph) {
        CAL_CUDA(cudaGraphLaunch(graph.exec(), ctx.stream));
      } else {
        for (int j = 0; j < plan.launches; ++j) CAL_RETURN_IF_ERROR(call(idx++ % copies));
      }
      CAL_CUDA(cudaEventRecord(ev[2 * r + 1], ctx.stream));
    }
    CAL_CUDA(cudaStreamSynchronize(ctx.stream));
    out->clear();
    for (int r = 0; r < plan.reps; ++r) {
      float f = 0;
      CAL_CUDA(cudaEventElapsedTime(&f, ev[2 * r], ev[2 * r + 1]));
      out->push_back(static_cast<double>(f) / plan.launches);
    }
    return Status::Ok();
  }

  Status Measure(AlgoResult* res) {
    const TimingConfig& cfg = ctx.timing;
    for (int i = 0; i < 2; ++i) CAL_RETURN_IF_ERROR(call(idx++ % copies));  // warm-up
    CAL_CUDA(cudaStreamSynchronize(ctx.stream));
    double call_ms = 0;
    CAL_RETURN_IF_ERROR(EstimateMs(&call_ms));
    TimingPlan plan;
    if (flush) {
      plan.launches = 1;
      plan.reps = std::max(cfg.min_reps,
                           std::min(cfg.reps * 3, static_cast<int>(cfg.budget_ms / call_ms)));
    } else {
      plan = PlanTiming(call_ms, cfg.region_ms, cfg.reps, cfg.min_reps, cfg.budget_ms);
    }
    bool use_graph = false;
    if (!flush && plan.launches > 1) {
      // A graph replays the same calls, so one region must visit every
      // working-set copy or later replays would find theirs in L2. Past
      // kMaxGraphLaunches copies (working sets under ~3 L2 / 2000, a few
      // tens of KB, where launch latency dominates anyway) part may stay.
      plan.launches = std::min(std::max(plan.launches, copies), kMaxGraphLaunches);
      use_graph = graph.Capture(ctx.stream, call, plan.launches, &idx, copies);
      if (use_graph) {  // one untimed replay: uploads the graph
        CAL_CUDA(cudaGraphLaunch(graph.exec(), ctx.stream));
        CAL_CUDA(cudaStreamSynchronize(ctx.stream));
      }
    }
    std::vector<double> samples;
    CAL_RETURN_IF_ERROR(Regions(plan, use_graph, &samples));
    Stats s = Summarize(samples);
    if (TooWide(s, cfg.spread_tolerance)) {  // re-measure once
      CAL_RETURN_IF_ERROR(Regions(plan, use_graph, &samples));
      s = Summarize(samples);
      res->noisy = TooWide(s, cfg.spread_tolerance);
    }
    res->stats = s;
    res->reps = plan.reps;
    res->launches_per_rep = plan.launches;
    res->has_times = true;
    res->timing_mode = flush ? "flush" : (use_graph ? "graph" : "stream");
    return Status::Ok();
  }
};

}  // namespace

void MeasureCall(Context& ctx, const CallFn& call, int copies, bool flush_l2,
                 AlgoResult* res) {
  copies = std::max(copies, 1);
  res->copies = copies;
  Run run(ctx, call, copies, flush_l2);
  Status st = run.Measure(res);
  if (st.ok() && ctx.tracer != nullptr) {
    std::vector<KernelTime> k;
    Status t = ctx.tracer->Trace([&] { return call(0); }, &k);
    if (t.ok()) res->kernels = std::move(k);
    else if (t.code() == Code::kFatal) st = t;
  }
  if (!st.ok()) {
    res->has_times = false;
    if (st.code() != Code::kFatal) cudaStreamSynchronize(ctx.stream);
  }
  res->status = st;
}

void MarkFastest(std::vector<AlgoResult>* results) {
  AlgoResult* best = nullptr;
  for (auto& r : *results) {
    r.fastest = false;
    if (r.status.ok() && r.has_times && (!best || r.stats.median_ms < best->stats.median_ms)) {
      best = &r;
    }
  }
  if (best) best->fastest = true;
}

}  // namespace dlcal
