#include "dlsim/estimate/estimator.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

#include "checkpoint_segments.h"
#include "dispatch.h"
#include "gradient_allreduce.h"
#include "eager_band.h"
#include "no_op_options.h"

namespace dlsim {
namespace {

// The optimizer's layer and task: "optimizer.adamw".
std::string OptimizerLayerName(Optimizer optimizer) {
  return std::string("optimizer.") + OptimizerName(optimizer);
}

// Host cost per parameter tensor of an optimizer step beyond its launches
// (the Python loop over parameters, zero_grad); 0 unless the machine gives it.
double OptimizerPerTensorS(const HostSpec& host) {
  auto it = host.dispatch_s_by_kind.find("optimizer_per_tensor");
  return it != host.dispatch_s_by_kind.end() ? it->second : 0.0;
}

// The host's time per kernel a cuDNN RNN call launches: eager, it issues
// each time step's kernels from the host, slower than the GPU runs them.
double RnnPerKernelS(const HostSpec& host) {
  auto it = host.dispatch_s_by_kind.find("rnn_per_kernel");
  return it != host.dispatch_s_by_kind.end() ? it->second : 0.0;
}

// The float initializers (the parameters): their elements, how many, the largest.
ParameterTensors FloatInitializers(const Graph& graph) {
  ParameterTensors p;
  p.elements = graph.ParameterCount();
  for (const auto& [name, t] : graph.tensors) {
    if (!t.is_initializer || !IsFloatDType(t.dtype)) continue;
    ++p.tensors;
    p.largest_elements = std::max(p.largest_elements, t.num_elements());
  }
  return p;
}

double RunBytes(const Graph& graph, const std::string& name, DType float_dtype) {
  const Tensor* t = graph.FindTensor(name);
  if (t == nullptr) return 0;
  const DType d = IsFloatDType(t->dtype) && t->dtype != DType::kFloat64 ? float_dtype : t->dtype;
  return static_cast<double>(t->num_elements()) * DTypeBytes(d);
}

// Calls that move no more than this touch no tensor data (batch norm's
// one-element step counter): they neither read a resident input nor evict one.
constexpr double kBookkeepingBytes = 64;

// The node's first call of the phase that moves data.
KernelCall* FirstCall(LoweredNode& node, bool backward) {
  for (KernelCall& c : node.calls) {
    if ((c.phase == Phase::kBackward) == backward && c.bytes() > kBookkeepingBytes) return &c;
  }
  return nullptr;
}

// Marks the inputs each node's first forward call reads straight after the
// previous kernel wrote them (an output of the nearest earlier node that
// launched kernels), and the output gradient each node's first backward
// call reads straight after the backward of the nearest later node that
// consumes it produced it. The cost model decides what that is worth.
void MarkResidentInputs(const Graph& graph, DType float_dtype, LoweredGraph* lowered) {
  const size_t n = graph.nodes.size();
  std::map<std::string, size_t> producer;
  for (size_t i = 0; i < n; ++i) {
    for (const std::string& out : graph.nodes[i].outputs) producer[out] = i;
  }
  // The node whose kernel wrote `name`: through views and nodes folded into
  // a fused group, which launch nothing and pass their first input on.
  auto writer = [&](std::string name) -> long {
    for (auto it = producer.find(name); it != producer.end(); it = producer.find(name)) {
      const size_t p = it->second;
      if (!lowered->nodes[p].calls.empty() || graph.nodes[p].inputs.empty()) return static_cast<long>(p);
      name = graph.nodes[p].inputs[0];
    }
    return -1;
  };
  long previous = -1;
  for (size_t i = 0; i < n; ++i) {
    KernelCall* first = FirstCall(lowered->nodes[i], false);
    if (first == nullptr) continue;
    // a fused group reads the group's inputs, not its last node's
    const std::vector<std::string>& fused = lowered->nodes[i].fused_inputs;
    for (const std::string& in : fused.empty() ? graph.nodes[i].inputs : fused) {
      if (previous >= 0 && writer(in) == previous) {
        first->resident_input_bytes += RunBytes(graph, in, float_dtype);
      }
    }
    previous = static_cast<long>(i);
  }
  long later = -1;
  for (size_t r = 0; r < n; ++r) {
    const size_t i = n - 1 - r;
    KernelCall* first = FirstCall(lowered->nodes[i], true);
    if (first == nullptr) continue;
    if (later >= 0) {
      for (const std::string& out : graph.nodes[i].outputs) {
        const auto& ins = graph.nodes[later].inputs;
        if (std::find(ins.begin(), ins.end(), out) != ins.end()) {
          first->resident_input_bytes += RunBytes(graph, out, float_dtype);
        }
      }
    }
    later = static_cast<long>(i);
  }
}

// The host that priced e->eager_s and the eager time's band, never below
// the GPU time's own.
void SetEagerBand(const HostSpec& host, Estimate* e) {
  e->host = host;
  const EagerBandRatios band = EagerBand(host, e->mode);
  e->eager_p10_s = std::max(band.p10 * e->eager_s, e->p10_s);
  e->eager_p90_s = std::max(band.p90 * e->eager_s, e->p90_s);
}

LayerEstimate MakeLayer(const LoweredNode& ln, const std::vector<CallCost>& costs) {
  LayerEstimate layer;
  layer.name = ln.name;
  layer.op_type = ln.op_type;
  layer.known_op = ln.known_op;
  layer.calls = ln.calls;
  layer.costs = costs;
  for (size_t i = 0; i < ln.calls.size(); ++i) {
    const KernelCall& call = ln.calls[i];
    (call.phase == Phase::kForward ? layer.fwd_s : layer.bwd_s) += costs[i].time_s;
    layer.flops += call.flops;
    layer.bytes += call.bytes();
  }
  return layer;
}

// The task DAG: forward tasks in graph order; for training, backward tasks
// in reverse order (each after its consumers' backward), then the optimizer.
Result<TaskDag> BuildTaskDag(const Graph& graph, bool training, Optimizer optimizer) {
  const size_t n = graph.nodes.size();
  std::map<std::string, size_t> producer;
  for (size_t i = 0; i < n; ++i) {
    for (const std::string& out : graph.nodes[i].outputs) producer[out] = i;
  }
  std::vector<std::string> names(n);
  std::vector<std::vector<size_t>> deps(n), consumers(n);
  for (size_t i = 0; i < n; ++i) {
    names[i] = graph.nodes[i].name;
    for (const std::string& in : graph.nodes[i].inputs) {
      auto it = producer.find(in);
      if (it == producer.end()) continue;
      deps[i].push_back(it->second);
      consumers[it->second].push_back(i);
    }
  }
  if (training) {
    std::vector<size_t> bwd_index(n);
    for (size_t r = 0; r < n; ++r) {
      const size_t i = n - 1 - r;
      std::vector<size_t> d = {n - 1, i};  // after the loss (the last forward task) and its forward
      for (size_t c : consumers[i]) d.push_back(bwd_index[c]);
      bwd_index[i] = names.size();
      names.push_back(graph.nodes[i].name + ".bwd");
      deps.push_back(std::move(d));
    }
    std::vector<size_t> all_backward;
    for (size_t i = n; i < names.size(); ++i) all_backward.push_back(i);
    names.push_back(OptimizerLayerName(optimizer));
    deps.push_back(std::move(all_backward));
  }
  return TaskDag::Build(std::move(names), std::move(deps));
}

// What the task times need of one layer: its calls (for dispatch kinds), its
// forward and backward device time, and the kernels its RNN calls launch.
struct LayerTimes {
  const std::vector<KernelCall>* calls = nullptr;
  double fwd_s = 0;
  double bwd_s = 0;
  int64_t rnn_fwd_kernels = 0;
  int64_t rnn_bwd_kernels = 0;
  bool dispatches = true;  // DispatchesInEager
};

// `t` with the kernels the RNN calls among `costs` (parallel to t.calls) launch.
void CountRnnKernels(const std::vector<CallCost>& costs, LayerTimes* t) {
  for (size_t j = 0; j < costs.size(); ++j) {
    const KernelCall& call = (*t->calls)[j];
    if (!IsRnnKind(call.kind)) continue;
    (call.phase == Phase::kForward ? t->rnn_fwd_kernels : t->rnn_bwd_kernels) += costs[j].kernels;
  }
}

struct TaskTimes {
  std::vector<double> device_s;
  std::vector<double> dispatch_s;
  std::vector<double> streamed_dispatch_s;  // an RNN's per-kernel launches
};

// Device and dispatch time of each task of the DAG: `layers` parallel to the
// graph's nodes, plus the optimizer last in training.
TaskTimes TimeTasks(size_t task_count, size_t graph_nodes, const std::vector<LayerTimes>& layers,
                    int64_t float_initializers, const HostSpec& host) {
  TaskTimes t{std::vector<double>(task_count, 0.0), std::vector<double>(task_count, 0.0),
              std::vector<double>(task_count, 0.0)};
  const size_t n = graph_nodes;
  for (size_t i = 0; i < n; ++i) {
    t.device_s[i] = layers[i].fwd_s;
    t.streamed_dispatch_s[i] = RnnPerKernelS(host) * static_cast<double>(layers[i].rnn_fwd_kernels);
    t.dispatch_s[i] = (layers[i].dispatches ? NodeForwardDispatchS(host, *layers[i].calls) : 0.0) +
                      t.streamed_dispatch_s[i];
  }
  if (task_count == n) return t;
  for (size_t r = 0; r < n; ++r) {
    const size_t i = n - 1 - r;
    t.device_s[n + r] = layers[i].bwd_s;
    t.streamed_dispatch_s[n + r] = RnnPerKernelS(host) * static_cast<double>(layers[i].rnn_bwd_kernels);
    t.dispatch_s[n + r] = NodeBackwardDispatchS(host, *layers[i].calls, layers[i].bwd_s > 0) +
                          BucketCopyDispatchS(host, *layers[i].calls) +  // data parallel only
                          t.streamed_dispatch_s[n + r];
  }
  const LayerTimes& o = layers[n];
  t.device_s.back() = o.fwd_s + o.bwd_s;
  t.dispatch_s.back() = DispatchS(host, "optimizer") * std::max<size_t>(o.calls->size(), 1) +
                        OptimizerPerTensorS(host) * static_cast<double>(float_initializers);
  return t;
}

std::vector<LayerTimes> TimesOfLayers(const std::vector<LayerEstimate>& layers) {
  std::vector<LayerTimes> out;
  out.reserve(layers.size());
  for (const LayerEstimate& l : layers) {
    LayerTimes t{&l.calls, l.fwd_s, l.bwd_s};
    t.dispatches = DispatchesInEager(l.op_type);
    CountRnnKernels(l.costs, &t);
    out.push_back(t);
  }
  return out;
}

std::vector<LayerTimes> TimesOfCosts(const LoweredGraph& lowered,
                                     const std::vector<std::vector<CallCost>>& costs) {
  std::vector<LayerTimes> out;
  out.reserve(lowered.nodes.size());
  for (size_t i = 0; i < lowered.nodes.size(); ++i) {
    LayerTimes t{&lowered.nodes[i].calls};
    t.dispatches = DispatchesInEager(lowered.nodes[i].op_type);
    for (size_t j = 0; j < costs[i].size(); ++j) {
      (lowered.nodes[i].calls[j].phase == Phase::kForward ? t.fwd_s : t.bwd_s) += costs[i][j].time_s;
    }
    CountRnnKernels(costs[i], &t);
    out.push_back(t);
  }
  return out;
}

MemoryFootprint Footprint(const Graph& graph, const LoweredGraph& lowered,
                          const EstimateOptions& options) {
  MemoryOptions m;
  m.training = options.lowering.training;
  m.dtype = options.lowering.dtype;
  m.autocast = options.lowering.autocast;
  m.optimizer = options.optimizer;
  m.recompute = options.recompute;
  m.data_parallel_gpus = options.data_parallel.gpus;
  m.zero_stage = options.data_parallel.zero_stage;
  return PeakMemory(graph, lowered, m);
}

// Task t of the DAG BuildTaskDag makes for `nodes` graph nodes: the layer
// it belongs to and its phase.
std::pair<size_t, Phase> TaskLayer(size_t t, size_t task_count, size_t nodes) {
  if (t < nodes) return {t, Phase::kForward};
  if (t + 1 == task_count && task_count == 2 * nodes + 1) return {nodes, Phase::kOptimizer};
  return {2 * nodes - 1 - t, Phase::kBackward};
}

std::vector<TaskTiming> Timeline(const ScheduleResult& sched, const TaskDag& dag, size_t nodes,
                                 const std::vector<LayerEstimate>& layers) {
  std::vector<TaskTiming> out(dag.size());
  for (size_t t = 0; t < dag.size(); ++t) {
    TaskTiming& x = out[t];
    x.name = dag.name(t);
    std::tie(x.layer, x.phase) = TaskLayer(t, dag.size(), nodes);
    const LayerEstimate& layer = layers[x.layer];
    x.device_s = x.phase == Phase::kForward    ? layer.fwd_s
                 : x.phase == Phase::kBackward ? layer.bwd_s
                                               : layer.time_s();
    x.start_s = sched.start_s[t];
    x.parallel_start_s = sched.parallel_start_s[t];
    x.stream = sched.stream[t];
    x.dispatch_start_s = sched.dispatch_start_s[t];
    x.dispatch_end_s = sched.dispatch_end_s[t];
    x.eager_start_s = sched.eager_start_s[t];
    x.eager_end_s = sched.eager_end_s[t];
  }
  return out;
}

void Summarise(const ScheduleResult& sched, const TaskDag& dag, Estimate* e) {
  e->gpu_time_s = sched.one_stream_s;
  e->critical_path_s = sched.critical_path_s;
  e->eager_s = sched.eager_s;
  e->host_s = sched.host_s;
  for (size_t t : sched.critical_path) e->critical_path.push_back(dag.name(t));
  const size_t nodes = e->mode == Mode::kTraining ? (dag.size() - 1) / 2 : dag.size();
  e->timeline = Timeline(sched, dag, nodes, e->layers);
  double total = 0;
  for (const LayerEstimate& layer : e->layers) {
    e->flops += layer.flops;
    e->bytes += layer.bytes;
    for (const CallCost& c : layer.costs) {
      e->kernel_count += c.kernels;
      e->source_share[CostSourceName(c.source)] += c.time_s;
      e->p10_s += c.p10_s;
      e->p90_s += c.p90_s;
      total += c.time_s;
    }
  }
  for (auto& [name, share] : e->source_share) share = total > 0 ? share / total : 0;
}

Status CheckCosts(const LoweredGraph& lowered, const std::vector<std::vector<CallCost>>& costs) {
  if (costs.size() != lowered.nodes.size()) {
    return Internal(std::to_string(costs.size()) + " cost lists for " +
                    std::to_string(lowered.nodes.size()) + " lowered nodes");
  }
  for (size_t i = 0; i < costs.size(); ++i) {
    if (costs[i].size() != lowered.nodes[i].calls.size()) {
      return Internal("node " + lowered.nodes[i].name + " has " +
                      std::to_string(lowered.nodes[i].calls.size()) + " calls but " +
                      std::to_string(costs[i].size()) + " costs");
    }
  }
  return Status::Ok();
}

// Schedules the plan's tasks with the given times and adds the all-reduce.
Result<PlannedTimes> ScheduleSteps(const Graph& graph, const EstimatePlan& plan,
                                   const std::vector<LayerTimes>& layers, const Machine& machine,
                                   const EstimateOptions& options, ScheduleResult* sched_out) {
  const TaskTimes times = TimeTasks(plan.dag.size(), graph.nodes.size(), layers,
                                    plan.float_initializers, machine.host);
  ScheduleResult sched = ScheduleTimes(plan.dag, times.device_s, times.dispatch_s, times.streamed_dispatch_s);
  PlannedTimes t;
  t.gpu_time_s = sched.one_stream_s;
  t.critical_path_s = sched.critical_path_s;
  t.eager_s = sched.eager_s;
  t.host_s = sched.host_s;
  if (options.lowering.training && options.data_parallel.gpus > 1) {
    DLSIM_ASSIGN_OR_RETURN(t.data_parallel,
                           PriceGradientAllReduceStep(plan.gradient_bytes, times.device_s, sched,
                                                      machine, options.data_parallel));
    t.gpu_time_s += t.data_parallel.exposed_s;
    t.critical_path_s += t.data_parallel.exposed_s;
    t.eager_s += t.data_parallel.exposed_s;
  }
  if (sched_out != nullptr) *sched_out = std::move(sched);
  return t;
}

}  // namespace

namespace {

// The value of `field` that accounts for most of a layer's time.
template <typename T, typename Field>
T Dominant(const std::vector<CallCost>& costs, T fallback, Field field) {
  std::map<T, double> by;
  for (const CallCost& c : costs) by[field(c)] += c.time_s;
  T best = fallback;
  double best_s = -1;
  for (const auto& [value, t] : by) {
    if (t > best_s) best = value, best_s = t;
  }
  return best;
}

}  // namespace

int64_t LayerEstimate::kernels() const {
  int64_t n = 0;
  for (const CallCost& c : costs) n += c.kernels;
  return n;
}

CostSource LayerEstimate::source() const {
  return Dominant(costs, CostSource::kRoofline, [](const CallCost& c) { return c.source; });
}

Bound LayerEstimate::bound() const {
  return Dominant(costs, Bound::kLatency, [](const CallCost& c) { return c.bound; });
}

Result<EstimatePlan> PlanEstimate(const Graph& graph, const EstimateOptions& options) {
  EstimatePlan plan;
  DLSIM_ASSIGN_OR_RETURN(plan.lowered, LowerGraph(graph, options.lowering));
  for (std::string& w : NoOpOptionWarnings(graph, plan.lowered, options.lowering)) {
    plan.lowered.warnings.push_back(std::move(w));
  }
  const bool training = options.lowering.training;
  const bool data_parallel = training && options.data_parallel.gpus > 1;
  if (training && options.recompute != Recompute::kNone) {
    const std::vector<int> segments = CheckpointSegments(graph, plan.lowered, options.recompute);
    AddRecomputeCalls(segments, &plan.lowered);
    if (options.recompute == Recompute::kSelective &&
        std::none_of(segments.begin(), segments.end(), [](int s) { return s >= 0; })) {
      plan.lowered.warnings.push_back(
          "--recompute selective: no attention core (QKᵀ, softmax, ·V) in the graph; nothing is "
          "recomputed");
    }
  }
  MarkResidentInputs(graph, options.lowering.dtype, &plan.lowered);
  if (data_parallel) AddBucketCopies(graph, &plan.lowered);
  if (training) {
    const ParameterTensors all = FloatInitializers(graph);
    plan.float_initializers = all.tensors;
    LoweredNode opt;
    opt.name = OptimizerLayerName(options.optimizer);
    opt.op_type = "Optimizer";
    opt.node_index = graph.nodes.size();
    // ZeRO: each GPU updates its shard of the parameters
    // (rounded up; no overflow at a parameter count near INT64_MAX)
    const int64_t shards = options.data_parallel.zero_stage > 0 ? options.data_parallel.gpus : 1;
    const int64_t shard = all.elements / shards + (all.elements % shards != 0 ? 1 : 0);
    const ParameterTensors updated{shard, all.tensors, std::min(all.largest_elements, shard)};
    opt.calls = LowerOptimizer(options.optimizer, updated, options.fused_optimizer, options.lowering);
    plan.lowered.nodes.push_back(std::move(opt));
  }
  if (data_parallel) plan.gradient_bytes = GradientBytesByNode(graph);
  DLSIM_ASSIGN_OR_RETURN(plan.dag, BuildTaskDag(graph, training, options.optimizer));
  plan.memory = Footprint(graph, plan.lowered, options);
  return plan;
}

Result<PlannedTimes> PlannedStepTimes(const Graph& graph, const EstimatePlan& plan,
                                      const std::vector<std::vector<CallCost>>& costs,
                                      const Machine& machine, const EstimateOptions& options) {
  DLSIM_RETURN_IF_ERROR(CheckCosts(plan.lowered, costs));
  return ScheduleSteps(graph, plan, TimesOfCosts(plan.lowered, costs), machine, options, nullptr);
}

Result<Estimate> EstimatePlanned(const Graph& graph, const EstimatePlan& plan,
                                 const std::vector<std::vector<CallCost>>& costs,
                                 const Machine& machine, const EstimateOptions& options) {
  DLSIM_RETURN_IF_ERROR(CheckCosts(plan.lowered, costs));
  Estimate e;
  e.model = graph.name;
  e.machine = machine.name;
  e.batch = options.batch;
  e.precision = options.precision;
  e.mode = options.lowering.training ? Mode::kTraining : Mode::kInference;
  e.optimizer = options.optimizer;
  e.recompute = options.recompute;
  e.parameter_count = graph.ParameterCount();
  e.warnings = plan.lowered.warnings;
  e.layers.reserve(plan.lowered.nodes.size());
  for (size_t i = 0; i < plan.lowered.nodes.size(); ++i) {
    e.layers.push_back(MakeLayer(plan.lowered.nodes[i], costs[i]));
  }
  ScheduleResult sched;
  DLSIM_ASSIGN_OR_RETURN(PlannedTimes t, ScheduleSteps(graph, plan, TimesOfLayers(e.layers), machine,
                                                       options, &sched));
  Summarise(sched, plan.dag, &e);
  e.gpu_time_s = t.gpu_time_s;
  e.critical_path_s = t.critical_path_s;
  e.eager_s = t.eager_s;
  SetEagerBand(machine.host, &e);
  e.data_parallel = t.data_parallel;
  e.memory = plan.memory;
  if (e.batch > 0 && machine.device.memory_bytes > 0) {
    e.largest_batch = LargestBatchThatFits(e.memory, e.batch, machine.device.memory_bytes);
  }
  const std::string oom = OutOfMemoryWarning(e, machine.device.memory_bytes);
  if (!oom.empty()) e.warnings.push_back(oom);
  return e;
}

Result<Estimate> EstimateModel(const Graph& graph, const CostModel& cost,
                               const EstimateOptions& options) {
  DLSIM_ASSIGN_OR_RETURN(EstimatePlan plan, PlanEstimate(graph, options));
  std::vector<std::vector<CallCost>> costs(plan.lowered.nodes.size());
  for (size_t i = 0; i < plan.lowered.nodes.size(); ++i) {
    for (const KernelCall& call : plan.lowered.nodes[i].calls) costs[i].push_back(cost.Price(call));
  }
  DLSIM_ASSIGN_OR_RETURN(Estimate e, EstimatePlanned(graph, plan, costs, cost.machine(), options));
  for (const std::string& note : cost.notes()) e.warnings.push_back(note);
  const Machine& machine = cost.machine();
  if (!machine.host.taken_from.empty()) {
    e.warnings.push_back(machine.name + " has no host section: eager dispatch costs are those of " +
                         machine.host.taken_from + " (fitted on that machine's host CPU)");
  }
  return e;
}

Status RescheduleEstimate(const Graph& graph, const HostSpec& host, Estimate* e) {
  if (e->layers.size() < graph.nodes.size()) {
    return Internal("estimate of " + e->model + " has fewer layers than the graph has nodes");
  }
  const bool training = e->mode == Mode::kTraining;
  if (training && e->layers.size() != graph.nodes.size() + 1) {
    return Internal("training estimate of " + e->model + " has no optimizer layer");
  }
  DLSIM_ASSIGN_OR_RETURN(TaskDag dag, BuildTaskDag(graph, training, e->optimizer));
  const TaskTimes times = TimeTasks(dag.size(), graph.nodes.size(), TimesOfLayers(e->layers),
                                    FloatInitializers(graph).tensors, host);
  ScheduleResult sched = ScheduleTimes(dag, times.device_s, times.dispatch_s, times.streamed_dispatch_s);
  e->critical_path.clear();
  e->source_share.clear();
  e->flops = e->bytes = e->p10_s = e->p90_s = 0;
  e->kernel_count = 0;
  Summarise(sched, dag, e);
  SetEagerBand(host, e);
  return Status::Ok();
}

int64_t LargestBatchThatFits(const MemoryFootprint& at_batch, int64_t batch,
                             double memory_bytes) {
  // At a larger batch the peak moves to the step where activations and
  // workspaces peak: those scale with the batch, the rest (weights,
  // optimizer state, the gradients of the peak at this batch) is taken as is.
  const double fixed =
      at_batch.weights_bytes + at_batch.optimizer_state_bytes + at_batch.gradients_bytes;
  const double scaling = std::max(at_batch.activations_max_bytes,
                                  at_batch.activations_bytes + at_batch.workspace_bytes);
  if (batch <= 0 || scaling <= 0) return batch;
  const double per_sample = scaling / static_cast<double>(batch);
  if (memory_bytes <= fixed) return 0;
  const double fits = std::floor((memory_bytes - fixed) / per_sample);
  // a batch beyond int64 (a tiny model on a vast memory) is capped, not cast
  if (fits >= 9.2e18) return std::numeric_limits<int64_t>::max();
  return static_cast<int64_t>(fits);
}

}  // namespace dlsim
