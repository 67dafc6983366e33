#include "dlsim/estimate/estimator.h"

#include <algorithm>
#include <cmath>

#include "gradient_allreduce.h"

namespace dlsim {
namespace {

double Dispatch(const HostSpec& host, const std::string& key) {
  auto it = host.dispatch_s_by_kind.find(key);
  return it != host.dispatch_s_by_kind.end() ? it->second : host.dispatch_s;
}

LayerEstimate PriceLayer(const LoweredNode& ln, const CostModel& cost) {
  LayerEstimate layer;
  layer.name = ln.name;
  layer.op_type = ln.op_type;
  layer.known_op = ln.known_op;
  layer.calls = ln.calls;
  for (const KernelCall& call : ln.calls) {
    CallCost c = cost.Price(call);
    (call.phase == "fwd" ? layer.fwd_s : layer.bwd_s) += c.time_s;
    layer.flops += call.flops;
    layer.bytes += call.bytes();
    layer.costs.push_back(c);
  }
  return layer;
}

// Producer task of each tensor, for dependencies.
std::map<std::string, size_t> Producers(const Graph& graph) {
  std::map<std::string, size_t> producer;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    for (const std::string& out : graph.nodes[i].outputs) producer[out] = i;
  }
  return producer;
}

// Host cost per parameter tensor of an optimizer step beyond its launches
// (the Python loop over parameters, zero_grad); 0 unless the machine gives it.
double OptimizerPerTensorS(const HostSpec& host) {
  auto it = host.dispatch_s_by_kind.find("optimizer_per_tensor");
  return it != host.dispatch_s_by_kind.end() ? it->second : 0.0;
}

int64_t FloatInitializerCount(const Graph& graph) {
  int64_t n = 0;
  for (const auto& [name, t] : graph.tensors) n += t.is_initializer && IsFloatDType(t.dtype);
  return n;
}

double FwdDispatch(const HostSpec& host, const LayerEstimate& layer) {
  if (layer.calls.empty()) return Dispatch(host, "none");
  return Dispatch(host, KernelKindName(layer.calls.front().kind));
}

// Forward tasks in graph order; for training, backward tasks in reverse
// order (each after its consumers' backward), then the optimizer.
std::vector<Task> BuildTasks(const Graph& graph, const std::vector<LayerEstimate>& layers,
                             bool training, const HostSpec& host) {
  const size_t n = graph.nodes.size();
  auto producer = Producers(graph);
  std::vector<Task> tasks(n);
  std::vector<std::vector<size_t>> consumers(n);
  for (size_t i = 0; i < n; ++i) {
    tasks[i].name = layers[i].name;
    tasks[i].device_s = layers[i].fwd_s;
    tasks[i].dispatch_s = FwdDispatch(host, layers[i]);
    for (const std::string& in : graph.nodes[i].inputs) {
      auto it = producer.find(in);
      if (it == producer.end()) continue;
      tasks[i].deps.push_back(it->second);
      consumers[it->second].push_back(i);
    }
  }
  if (!training) return tasks;
  std::vector<size_t> bwd_index(n);
  for (size_t r = 0; r < n; ++r) {
    const size_t i = n - 1 - r;
    Task t;
    t.name = layers[i].name + ".bwd";
    t.device_s = layers[i].bwd_s;
    t.dispatch_s = layers[i].bwd_s > 0 ? Dispatch(host, "backward") : 0.0;
    t.dispatch_s += BucketCopyDispatchS(host, layers[i].calls);  // data parallel only
    t.deps.push_back(n - 1);  // the loss follows the last forward task
    t.deps.push_back(i);
    for (size_t c : consumers[i]) t.deps.push_back(bwd_index[c]);
    bwd_index[i] = tasks.size();
    tasks.push_back(std::move(t));
  }
  if (layers.size() > n) {  // the optimizer
    Task opt;
    opt.name = layers[n].name;
    opt.device_s = layers[n].fwd_s + layers[n].bwd_s;
    opt.dispatch_s = Dispatch(host, "optimizer") * std::max<size_t>(layers[n].calls.size(), 1) +
                     OptimizerPerTensorS(host) * FloatInitializerCount(graph);
    for (size_t i = n; i < tasks.size(); ++i) opt.deps.push_back(i);
    tasks.push_back(std::move(opt));
  }
  return tasks;
}

MemoryFootprint Footprint(const Graph& graph, const EstimateOptions& options) {
  MemoryFootprint m;
  const double params = static_cast<double>(graph.ParameterCount());
  const double elem = DTypeBytes(options.lowering.dtype);
  const bool mixed = options.lowering.dtype != DType::kFloat32;
  m.weights_bytes = params * (4.0 + (mixed ? elem : 0.0));  // fp32 master (+ low-precision copy)
  if (!options.lowering.training) {
    m.weights_bytes = params * elem;
    return m;
  }
  m.gradients_bytes = params * 4.0;
  const std::string& opt = options.optimizer;
  m.optimizer_state_bytes = params * 4.0 * (opt == "sgd" ? 0 : opt == "sgd_momentum" ? 1 : 2);
  for (const Node& node : graph.nodes) {
    for (const std::string& out : node.outputs) {
      const Tensor* t = graph.FindTensor(out);
      if (t != nullptr && IsFloatDType(t->dtype) && !t->value) {
        m.activations_bytes += static_cast<double>(t->num_elements()) * elem;
      }
    }
  }
  m.workspace_bytes = 256.0 * (1 << 20);  // cuDNN/cuBLAS workspace, typical
  return m;
}

void Summarise(const ScheduleResult& sched, const std::vector<Task>& tasks, Estimate* e) {
  e->gpu_time_s = sched.one_stream_s;
  e->critical_path_s = sched.critical_path_s;
  e->eager_s = sched.eager_s;
  e->host_s = sched.host_s;
  for (size_t t : sched.critical_path) e->critical_path.push_back(tasks[t].name);
  double total = 0;
  for (const LayerEstimate& layer : e->layers) {
    e->flops += layer.flops;
    e->bytes += layer.bytes;
    e->kernel_count += static_cast<int64_t>(layer.calls.size());
    for (const CallCost& c : layer.costs) {
      e->source_share[CostSourceName(c.source)] += c.time_s;
      e->p10_s += c.p10_s;
      e->p90_s += c.p90_s;
      total += c.time_s;
    }
  }
  for (auto& [name, share] : e->source_share) share = total > 0 ? share / total : 0;
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

CostSource LayerEstimate::source() const {
  return Dominant(costs, CostSource::kRoofline, [](const CallCost& c) { return c.source; });
}

Bound LayerEstimate::bound() const {
  return Dominant(costs, Bound::kLatency, [](const CallCost& c) { return c.bound; });
}

Result<Estimate> EstimateModel(const Graph& graph, const CostModel& cost,
                               const EstimateOptions& options) {
  DLSIM_ASSIGN_OR_RETURN(LoweredGraph lowered, LowerGraph(graph, options.lowering));
  if (options.lowering.training && options.data_parallel.gpus > 1) AddBucketCopies(graph, &lowered);
  Estimate e;
  e.model = graph.name;
  e.machine = cost.machine().name;
  e.batch = options.batch;
  e.dtype = options.dtype_name;
  e.mode = options.lowering.training ? "training" : "inference";
  e.parameter_count = graph.ParameterCount();
  e.warnings = lowered.warnings;
  for (const std::string& note : cost.notes()) e.warnings.push_back(note);
  for (const LoweredNode& ln : lowered.nodes) e.layers.push_back(PriceLayer(ln, cost));
  if (options.lowering.training) {
    int64_t tensors = 0;
    for (const auto& [name, t] : graph.tensors) tensors += t.is_initializer && IsFloatDType(t.dtype);
    LoweredNode opt;
    opt.name = "optimizer." + options.optimizer;
    opt.op_type = "Optimizer";
    opt.calls = LowerOptimizer(options.optimizer, e.parameter_count, tensors,
                               options.fused_optimizer, options.lowering);
    e.layers.push_back(PriceLayer(opt, cost));
  }
  std::vector<Task> tasks = BuildTasks(graph, e.layers, options.lowering.training,
                                       cost.machine().host);
  DLSIM_ASSIGN_OR_RETURN(ScheduleResult sched, Schedule(tasks));
  Summarise(sched, tasks, &e);
  if (options.lowering.training && options.data_parallel.gpus > 1) {
    DLSIM_RETURN_IF_ERROR(AddGradientAllReduce(graph, tasks, sched, cost.machine(),
                                               options.data_parallel, &e));
  }
  e.memory = Footprint(graph, options);
  return e;
}

Status RescheduleEstimate(const Graph& graph, const HostSpec& host, Estimate* e) {
  if (e->layers.size() < graph.nodes.size()) {
    return Internal("estimate of " + e->model + " has fewer layers than the graph has nodes");
  }
  std::vector<Task> tasks = BuildTasks(graph, e->layers, e->mode == "training", host);
  DLSIM_ASSIGN_OR_RETURN(ScheduleResult sched, Schedule(tasks));
  e->critical_path.clear();
  e->source_share.clear();
  e->flops = e->bytes = e->p10_s = e->p90_s = 0;
  e->kernel_count = 0;
  Summarise(sched, tasks, e);
  return Status::Ok();
}

int64_t LargestBatchThatFits(const MemoryFootprint& at_batch, int64_t batch,
                             double memory_bytes) {
  const double fixed = at_batch.total_bytes() - at_batch.activations_bytes;
  if (batch <= 0 || at_batch.activations_bytes <= 0) return batch;
  const double per_sample = at_batch.activations_bytes / static_cast<double>(batch);
  if (memory_bytes <= fixed) return 0;
  return static_cast<int64_t>(std::floor((memory_bytes - fixed) / per_sample));
}

}  // namespace dlsim
