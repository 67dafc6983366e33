// The timing harness (docs/dlsim-calibrate.md, "How a key is measured"):
// warm-up, a single-call estimate, then `reps` regions of back-to-back calls
// between CUDA events, captured into a cycle of CUDA graphs where the call
// allows it (so host launch overhead does not leak into device time), each
// region launching the next few graphs of the cycle, rotating among
// working-set copies so small problems are not served from L2.
#include <algorithm>

#include "context.h"
#include "cuda_util.h"
#include "cupti_tracer.h"
#include "profile.h"

namespace dlcal {
namespace {

// The most calls of a cycle of graphs: more copies than this (working sets
// under ~3 L2 / 2000, tens of KB) are not all visited, so a replay after the
// first wrap can find part of its inputs in L2.
constexpr int kMaxCycleCalls = 2000;
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
  // Captures `launches` calls on copies first_copy, first_copy + 1, ...
  // (mod copies) and, with `instantiate`, instantiates them; false (stream
  // restored, errors cleared) when the library call cannot be captured.
  // Capturing runs nothing on the GPU.
  bool Capture(cudaStream_t s, const CallFn& call, int launches, int first_copy, int copies,
               bool instantiate, PhaseTimes* phases) {
    Stopwatch sw;
    if (cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed) != cudaSuccess) {
      cudaGetLastError();
      return false;
    }
    bool ok = true;
    for (int j = 0; j < launches && ok; ++j) ok = call((first_copy + j) % copies).ok();
    cudaGraph_t g = nullptr;
    cudaError_t e = cudaStreamEndCapture(s, &g);
    phases->capture_ms += sw.Lap();
    if (!ok || e != cudaSuccess || g == nullptr) {
      if (g) cudaGraphDestroy(g);
      cudaGetLastError();
      return false;
    }
    graph_ = g;
    if (!instantiate) return true;
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

// The timed calls as a cycle of graphs of at most about kGraphChunkNodes
// nodes each (PlanGraphChain; docs/dlsim-calibrate.md). Capturing and
// instantiating one graph of many cuDNN calls costs more than linearly in
// its size (on the H200: 2,000 FFT_TILING calls, 8,000 nodes, 12 s; 256
// calls 0.09 s). Regions launch a contiguous run of the graphs, going on
// where the previous region stopped and wrapping around (PlanRegions).
//
// Only the graphs the regions reach are captured: a pass of R regions of m
// calls needs about R * m calls, often far fewer than the cycle (2,000
// copies of a 0.1 ms call: 100 of 2,000 calls). Coldness does not need the
// whole cycle. Over both passes, the timed calls are one contiguous stretch
// of the rotation, copy (first + k) mod copies (the cycle is a multiple of
// the copies), starting right after an L2 flush (Run::Measure), and nothing
// else touches the copies in between: graphs are uploaded with
// cudaGraphUpload, which runs nothing, and capturing runs nothing either.
// So each timed call reads either a copy that nothing touched since the
// flush, or one last read exactly `copies` calls earlier, every other copy
// having been read in between (all copies span >= 3x L2): the rotation's
// guarantee, the same as for stream timing. The whole cycle is needed, and
// captured, only when a run of regions wraps around it. (Past
// kMaxCycleCalls copies the cycle is that many calls, and a wrap reads a
// copy again kMaxCycleCalls calls later: working sets of tens of KB.)
class GraphChain {
 public:
  // Captures kProbeCalls calls (not instantiated, then dropped) whose node
  // count sizes the graphs, and plans the cycle of calls on copies
  // first_copy, first_copy + 1, ... Nothing else is captured yet. False
  // when the call cannot be captured.
  bool Plan(cudaStream_t s, const CallFn& call, int first_copy, int copies, int region_calls,
            PhaseTimes* phases) {
    graphs_.clear();
    first_copy_ = first_copy;
    copies_ = copies;
    Graph probe;
    if (!probe.Capture(s, call, kProbeCalls, first_copy, copies, false, phases)) return false;
    const int chunk =
        GraphChunkCalls(static_cast<double>(probe.nodes()) / kProbeCalls, kGraphChunkNodes);
    plan_ = PlanGraphChain(copies, region_calls, chunk, kMaxCycleCalls);
    offsets_.clear();
    int at = 0;
    for (int n : plan_.graphs) {
      offsets_.push_back(at);
      at += n;
    }
    phases->cycle_calls = plan_.cycle_calls;
    return true;
  }
  const std::vector<int>& graph_calls() const { return plan_.graphs; }
  int graph_count() const { return static_cast<int>(plan_.graphs.size()); }
  // The copy the cycle's graph g starts on: where stream timing goes on
  // when a later capture fails.
  int CopyAt(int g) const {
    return (first_copy_ + (g < graph_count() ? offsets_[g] : 0)) % copies_;
  }
  // Captures, instantiates and uploads the graphs up to `count` (a prefix of
  // the cycle) not captured yet; *ok false (nothing kept) when one fails.
  Status Ensure(cudaStream_t s, const CallFn& call, int count, bool* ok, PhaseTimes* phases) {
    *ok = true;
    count = std::min(count, graph_count());
    const size_t had = graphs_.size();
    while (static_cast<int>(graphs_.size()) < count) {
      const int g = static_cast<int>(graphs_.size());
      Graph graph;
      if (!graph.Capture(s, call, plan_.graphs[g], CopyAt(g), copies_, true, phases)) {
        graphs_.clear();
        *ok = false;
        return Status::Ok();
      }
      phases->graph_nodes += graph.nodes();
      phases->graph_calls += plan_.graphs[g];
      ++phases->graphs;
      graphs_.push_back(std::move(graph));
    }
    if (graphs_.size() == had) return Status::Ok();
    Stopwatch sw;
    for (size_t g = had; g < graphs_.size(); ++g) {
      CAL_CUDA(cudaGraphUpload(graphs_[g].exec(), s));
    }
    CAL_CUDA(cudaStreamSynchronize(s));
    phases->upload_ms += sw.Ms();
    return Status::Ok();
  }
  // Launches the region's graphs (captured by Ensure).
  Status Launch(cudaStream_t s, const Region& r) const {
    const int n = static_cast<int>(graphs_.size());
    for (int i = 0; i < r.graphs; ++i) {
      CAL_CUDA(cudaGraphLaunch(graphs_[(r.first_graph + i) % n].exec(), s));
    }
    return Status::Ok();
  }

 private:
  static constexpr int kProbeCalls = 4;
  GraphChainPlan plan_;
  std::vector<int> offsets_;  // first call of each graph in the cycle
  int first_copy_ = 0;
  int copies_ = 1;
  std::vector<Graph> graphs_;  // the captured prefix of the cycle
};

// A buffer of `factor` x L2 overwritten on the stream: before each single
// timed call (flush mode, 2x), and once before the regions of rotated
// copies (3x, as many bytes as the copies span).
Status FlushL2(Context& ctx, int rep, int factor) {
  static DeviceBuffer flush;
  size_t bytes = static_cast<size_t>(factor * ctx.l2_bytes);
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
  int idx = 0;        // next copy of stream calls
  int next_graph = 0;  // where the next graph region starts in the cycle
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
      if (flush) CAL_RETURN_IF_ERROR(FlushL2(ctx, i, 2));
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

  // The next pass's regions: plan.reps regions of at least plan.launches
  // calls, graphs going on where the last pass stopped, captured and
  // uploaded here as far as they reach. When a capture fails, stream calls
  // take over (*use_graph false) from the copy the chain would have used
  // next, so the calls keep the same rotation.
  Status NextRegions(const TimingPlan& plan, bool* use_graph, std::vector<Region>* regions) {
    if (*use_graph) {
      int next = next_graph;
      *regions = PlanRegions(graph.graph_calls(), &next, plan.reps, plan.launches);
      bool ok = false;
      CAL_RETURN_IF_ERROR(
          graph.Ensure(ctx.stream, call, GraphsNeeded(*regions, graph.graph_count()), &ok,
                       phases));
      if (ok) {
        next_graph = next;
        return Status::Ok();
      }
      *use_graph = false;
      idx = graph.CopyAt(next_graph);
    }
    int unused = 0;
    *regions = PlanRegions({1}, &unused, plan.reps, plan.launches);
    return Status::Ok();
  }

  // Times the regions between events; per-call times into *out.
  Status TimeRegions(const std::vector<Region>& regions, bool use_graph,
                     std::vector<double>* out) {
    CAL_RETURN_IF_ERROR(ev.Create(2 * regions.size()));
    for (size_t r = 0; r < regions.size(); ++r) {
      if (flush) CAL_RETURN_IF_ERROR(FlushL2(ctx, static_cast<int>(r), 2));
      CAL_CUDA(cudaEventRecord(ev[2 * r], ctx.stream));
      if (use_graph) {
        CAL_RETURN_IF_ERROR(graph.Launch(ctx.stream, regions[r]));
      } else {
        for (int j = 0; j < regions[r].calls; ++j) CAL_RETURN_IF_ERROR(call(idx++ % copies));
      }
      CAL_CUDA(cudaEventRecord(ev[2 * r + 1], ctx.stream));
    }
    CAL_CUDA(cudaStreamSynchronize(ctx.stream));
    std::vector<double> region_ms;
    for (size_t r = 0; r < regions.size(); ++r) {
      float f = 0;
      CAL_CUDA(cudaEventElapsedTime(&f, ev[2 * r], ev[2 * r + 1]));
      region_ms.push_back(f);
    }
    *out = PerCallMs(region_ms, regions);
    return Status::Ok();
  }

  // reps regions of `launches` calls (at least; whole graphs). Flush mode
  // times single calls after overwriting L2.
  TimingPlan Plan(double call_ms) const {
    const TimingConfig& cfg = ctx.timing;
    TimingPlan plan;
    if (flush) {
      plan.launches = 1;
      plan.reps = std::max(cfg.min_reps,
                           std::min(cfg.reps * 3, static_cast<int>(cfg.budget_ms / call_ms)));
      return plan;
    }
    return PlanTiming(call_ms, cfg.region_ms, cfg.reps, cfg.min_reps, cfg.budget_ms);
  }

  Status Measure(AlgoResult* res) {
    const TimingConfig& cfg = ctx.timing;
    CAL_RETURN_IF_ERROR(WarmUp());
    Stopwatch sw;
    double call_ms = 0;
    CAL_RETURN_IF_ERROR(EstimateMs(&call_ms));
    phases->estimate_ms = sw.Ms();
    phases->call_ms = call_ms;
    const TimingPlan plan = Plan(call_ms);
    bool use_graph = !flush && plan.launches > 1 &&
                     graph.Plan(ctx.stream, call, idx % copies, copies, plan.launches, phases);
    std::vector<double> samples;
    std::vector<Region> regions;
    Stats s;
    for (int pass = 1; pass <= 2; ++pass) {  // a second pass re-measures a wide spread
      CAL_RETURN_IF_ERROR(NextRegions(plan, &use_graph, &regions));
      sw.Restart();
      // Rotated copies: evict whatever the calls before (warm-up, estimate,
      // earlier algorithms on the same copies) left in L2; from here on the
      // regions' calls follow the rotation (GraphChain).
      if (pass == 1 && !flush && copies > 1) CAL_RETURN_IF_ERROR(FlushL2(ctx, 0, 3));
      CAL_RETURN_IF_ERROR(TimeRegions(regions, use_graph, &samples));
      phases->regions_ms += sw.Ms();
      phases->region_passes = pass;
      s = Summarize(samples);
      res->noisy = TooWide(s, cfg.spread_tolerance);
      if (!res->noisy) break;
    }
    res->stats = s;
    res->reps = static_cast<int>(regions.size());
    res->launches_per_rep = MinRegionCalls(regions);
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
