// The timing harness (docs/calibration.md, "How a key is measured"):
// warm-up, a single-call estimate, then `reps` regions of back-to-back calls
// between CUDA events, captured once into CUDA graphs where the call allows
// it (so host launch overhead does not leak into device time), rotating
// among working-set copies so small problems are not served from L2.
#include <algorithm>

#include "context.h"
#include "cuda_util.h"
#include "cupti_tracer.h"
#include "profile.h"

namespace dlcal {
namespace {

constexpr int kMaxGraphLaunches = 2000;
constexpr int kGraphChunkNodes = 256;  // nodes per captured graph (GraphChain)

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

// One captured graph of consecutive calls.
class Graph {
 public:
  ~Graph() { Reset(); }
  Graph() = default;
  Graph(Graph&& o) noexcept : graph_(o.graph_), exec_(o.exec_) {
    o.graph_ = nullptr;
    o.exec_ = nullptr;
  }
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;
  void Reset() {
    if (exec_) cudaGraphExecDestroy(exec_);
    if (graph_) cudaGraphDestroy(graph_);
    exec_ = nullptr;
    graph_ = nullptr;
  }
  // Captures `launches` calls and instantiates them; false (stream
  // restored, errors cleared) when the library call cannot be captured.
  bool Capture(cudaStream_t s, const CallFn& call, int launches, int* idx, int copies,
               PhaseTimes* phases) {
    Stopwatch sw;
    if (cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed) != cudaSuccess) {
      cudaGetLastError();
      return false;
    }
    bool ok = true;
    for (int j = 0; j < launches && ok; ++j) ok = call((*idx)++ % copies).ok();
    cudaGraph_t g = nullptr;
    cudaError_t e = cudaStreamEndCapture(s, &g);
    phases->capture_ms += sw.Lap();
    if (!ok || e != cudaSuccess || g == nullptr) {
      if (g) cudaGraphDestroy(g);
      cudaGetLastError();
      return false;
    }
    graph_ = g;
    bool inst = cudaGraphInstantiate(&exec_, graph_, 0) == cudaSuccess;
    phases->instantiate_ms += sw.Ms();
    if (!inst) {
      cudaGetLastError();
      Reset();
    }
    return inst;
  }
  cudaGraphExec_t exec() const { return exec_; }
  int nodes() const {
    size_t n = 0;
    if (graph_ == nullptr || cudaGraphGetNodes(graph_, nullptr, &n) != cudaSuccess) return 0;
    return static_cast<int>(n);
  }

 private:
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
};

// The calls of one timed region as a chain of graphs of at most about
// kGraphChunkNodes nodes each, launched back to back. Capturing and
// instantiating one graph of many cuDNN calls costs more than linearly in
// its size (on the H200: 2,000 FFT_TILING calls, 8,000 nodes, 12 s; 256
// calls 0.09 s; docs/calibration.md), while chunks keep every call of the
// region, so the rotation over working-set copies is unchanged.
class GraphChain {
 public:
  // Captures `launches` calls: first kProbeCalls of them, whose node count
  // sizes the chunks of the rest. False (nothing kept) when a capture fails.
  bool Capture(cudaStream_t s, const CallFn& call, int launches, int* idx, int copies,
               PhaseTimes* phases) {
    graphs_.clear();
    int done = 0, nodes = 0, chunk = std::min(launches, kProbeCalls);
    while (done < launches) {
      const int n = std::min(chunk, launches - done);
      Graph g;
      if (!g.Capture(s, call, n, idx, copies, phases)) {
        graphs_.clear();
        return false;
      }
      if (graphs_.empty()) {  // the probe: its nodes per call size the other chunks
        chunk = GraphChunkCalls(static_cast<double>(g.nodes()) / n, kGraphChunkNodes);
      }
      nodes += g.nodes();
      done += n;
      graphs_.push_back(std::move(g));
    }
    phases->graph_nodes = nodes;
    phases->graphs = static_cast<int>(graphs_.size());
    return true;
  }
  Status Launch(cudaStream_t s) const {
    for (const auto& g : graphs_) CAL_CUDA(cudaGraphLaunch(g.exec(), s));
    return Status::Ok();
  }

 private:
  static constexpr int kProbeCalls = 4;
  std::vector<Graph> graphs_;
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
  Run(Context& c, const CallFn& f, int n, bool fl, PhaseTimes* p)
      : ctx(c), call(f), copies(n), flush(fl), phases(p) {}
  Context& ctx;
  const CallFn& call;
  int copies;
  bool flush;
  PhaseTimes* phases;
  int idx = 0;
  Events ev;
  GraphChain graph;

  // Two untimed calls; with profiling the first is synchronised alone, so
  // module loading or JIT compilation on first use shows as first_call_ms.
  Status WarmUp() {
    Stopwatch sw;
    CAL_RETURN_IF_ERROR(call(idx++ % copies));
    if (ctx.profile) {
      CAL_CUDA(cudaStreamSynchronize(ctx.stream));
      phases->first_call_ms = sw.Ms();
    }
    CAL_RETURN_IF_ERROR(call(idx++ % copies));
    CAL_CUDA(cudaStreamSynchronize(ctx.stream));
    phases->warmup_ms = sw.Ms();
    return Status::Ok();
  }

  Status EstimateMs(double* ms) {
    std::vector<double> t, enqueue;
    CAL_RETURN_IF_ERROR(ev.Create(2));
    for (int i = 0; i < 3; ++i) {
      if (flush) CAL_RETURN_IF_ERROR(FlushL2(ctx, i));
      CAL_CUDA(cudaEventRecord(ev[0], ctx.stream));
      Stopwatch sw;
      CAL_RETURN_IF_ERROR(call(idx++ % copies));
      enqueue.push_back(sw.Ms());
      CAL_CUDA(cudaEventRecord(ev[1], ctx.stream));
      CAL_CUDA(cudaEventSynchronize(ev[1]));
      float f = 0;
      CAL_CUDA(cudaEventElapsedTime(&f, ev[0], ev[1]));
      t.push_back(f);
    }
    *ms = Summarize(t).median_ms;
    phases->enqueue_ms = Summarize(enqueue).median_ms;
    return Status::Ok();
  }

  Status Regions(const TimingPlan& plan, bool use_graph, std::vector<double>* out) {
    CAL_RETURN_IF_ERROR(ev.Create(2 * static_cast<size_t>(plan.reps)));
    for (int r = 0; r < plan.reps; ++r) {
      if (flush) CAL_RETURN_IF_ERROR(FlushL2(ctx, r));
      CAL_CUDA(cudaEventRecord(ev[2 * r], ctx.stream));
      if (use_graph) {
        CAL_RETURN_IF_ERROR(graph.Launch(ctx.stream));
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

  TimingPlan Plan(double call_ms) const {
    const TimingConfig& cfg = ctx.timing;
    TimingPlan plan;
    if (flush) {
      plan.launches = 1;
      plan.reps = std::max(cfg.min_reps,
                           std::min(cfg.reps * 3, static_cast<int>(cfg.budget_ms / call_ms)));
      return plan;
    }
    plan = PlanTiming(call_ms, cfg.region_ms, cfg.reps, cfg.min_reps, cfg.budget_ms);
    if (plan.launches > 1) {
      // A graph replays the same calls, so one region must visit every
      // working-set copy or later replays would find theirs in L2. Past
      // kMaxGraphLaunches copies (working sets under ~3 L2 / 2000, a few
      // tens of KB, where launch latency dominates anyway) part may stay.
      // Raising launches must not lift the budget: reps shrink instead.
      plan = CoverCopies(plan, call_ms, copies, kMaxGraphLaunches, cfg.min_reps,
                         cfg.budget_ms);
    }
    return plan;
  }

  // Captures plan.launches calls into graphs and replays them once untimed
  // (uploads them); *use_graph false when the call cannot be captured.
  Status CaptureGraph(const TimingPlan& plan, bool* use_graph) {
    *use_graph = graph.Capture(ctx.stream, call, plan.launches, &idx, copies, phases);
    if (!*use_graph) return Status::Ok();
    Stopwatch sw;
    CAL_RETURN_IF_ERROR(graph.Launch(ctx.stream));
    CAL_CUDA(cudaStreamSynchronize(ctx.stream));
    phases->upload_ms = sw.Ms();
    return Status::Ok();
  }

  Status Measure(AlgoResult* res) {
    const TimingConfig& cfg = ctx.timing;
    CAL_RETURN_IF_ERROR(WarmUp());
    Stopwatch sw;
    double call_ms = 0;
    CAL_RETURN_IF_ERROR(EstimateMs(&call_ms));
    phases->estimate_ms = sw.Ms();
    phases->call_ms = call_ms;
    TimingPlan plan = Plan(call_ms);
    bool use_graph = false;
    if (!flush && plan.launches > 1) CAL_RETURN_IF_ERROR(CaptureGraph(plan, &use_graph));
    sw.Restart();
    std::vector<double> samples;
    CAL_RETURN_IF_ERROR(Regions(plan, use_graph, &samples));
    phases->region_passes = 1;
    Stats s = Summarize(samples);
    if (TooWide(s, cfg.spread_tolerance)) {  // re-measure once
      CAL_RETURN_IF_ERROR(Regions(plan, use_graph, &samples));
      phases->region_passes = 2;
      s = Summarize(samples);
      res->noisy = TooWide(s, cfg.spread_tolerance);
    }
    phases->regions_ms = sw.Ms();
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
  Stopwatch total;
  copies = std::max(copies, 1);
  res->copies = copies;
  Run run(ctx, call, copies, flush_l2, &res->phases);
  Status st = run.Measure(res);
  if (st.ok() && ctx.tracer != nullptr) {
    Stopwatch sw;
    std::vector<KernelTime> k;
    Status t = ctx.tracer->Trace([&] { return call(0); }, &k);
    res->phases.trace_ms = sw.Ms();
    if (t.ok()) res->kernels = std::move(k);
    else if (t.code() == Code::kFatal) st = t;
  }
  res->phases.total_ms = total.Ms();
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
