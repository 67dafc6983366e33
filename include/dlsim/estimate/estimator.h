// The estimator: lowers a model, prices every kernel call and schedules the
// result into a step time (inference forward, or a training step).
#ifndef DLSIM_ESTIMATE_ESTIMATOR_H_
#define DLSIM_ESTIMATE_ESTIMATOR_H_

#include <map>
#include <string>
#include <vector>

#include "dlsim/cost/cost_model.h"
#include "dlsim/estimate/data_parallel.h"
#include "dlsim/engine/schedule.h"
#include "dlsim/estimate/memory_model.h"
#include "dlsim/kernel/phase.h"
#include "dlsim/model/graph.h"
#include "dlsim/ops/lowering.h"
#include "dlsim/util/mode.h"
#include "dlsim/util/optimizer.h"
#include "dlsim/util/precision.h"

namespace dlsim {

struct EstimateOptions {
  LoweringOptions lowering;
  Optimizer optimizer = Optimizer::kSgdMomentum;  // training only
  bool fused_optimizer = true;  // one launch over all parameters (PyTorch foreach default)
  int64_t batch = 0;             // for reports; 0 = as in the graph
  Precision precision = Precision::kFp32;  // --dtype
  DataParallelOptions data_parallel;  // training across GPUs
  // Training: activation recomputation (docs/memory.md): saved activations
  // only at segment boundaries, the segments' forward calls run again in the
  // backward; full: every layer, selective: the attention cores.
  Recompute recompute = Recompute::kNone;
};

struct LayerEstimate {
  std::string name;
  std::string op_type;
  std::vector<KernelCall> calls;
  std::vector<CallCost> costs;  // parallel to calls
  double fwd_s = 0;
  double bwd_s = 0;
  double flops = 0;
  double bytes = 0;
  bool known_op = true;
  double time_s() const { return fwd_s + bwd_s; }
  // GPU kernels the layer's calls launch (CallCost::kernels summed).
  int64_t kernels() const;
  // The source and bound that priced most of this layer's time.
  CostSource source() const;
  Bound bound() const;
};

// One task of the step's schedules: a layer's forward or backward part, or
// the optimizer, with its times in each schedule (engine/schedule.h).
struct TaskTiming {
  std::string name;   // the layer's name; "<layer>.bwd" for a backward
  size_t layer = 0;   // index into Estimate::layers
  Phase phase = Phase::kForward;  // the optimizer's task: kOptimizer
  double device_s = 0;
  double start_s = 0;           // one stream
  double parallel_start_s = 0;  // critical path, on concurrent stream `stream`
  int stream = 0;
  double dispatch_start_s = 0;  // eager: the host dispatches it in
  double dispatch_end_s = 0;    //   [dispatch_start_s, dispatch_end_s)
  double eager_start_s = 0;     //   and the device runs it from eager_start_s
  double eager_end_s = 0;       //   to eager_end_s (later than its device time
                                //   when its kernels wait for per-kernel launches)
};

struct Estimate {
  std::string model;
  std::string machine;
  int64_t batch = 0;
  Precision precision = Precision::kFp32;
  Mode mode = Mode::kInference;
  Optimizer optimizer = Optimizer::kSgdMomentum;  // training only: the last layer updates it
  Recompute recompute = Recompute::kNone;          // training only
  double gpu_time_s = 0;       // one stream
  double critical_path_s = 0;  // concurrent streams
  double eager_s = 0;          // host-dispatched op by op
  double eager_p10_s = 0;      // its band (EagerBand: how far eager estimates
  double eager_p90_s = 0;      //   fell from measured ones, by host and mode)
  double host_s = 0;
  HostSpec host;               // the host whose dispatch costs priced eager_s
  double p10_s = 0;            // one-stream time at every call's P10 / P90
  double p90_s = 0;
  double flops = 0;
  double bytes = 0;
  int64_t kernel_count = 0;  // GPU kernels launched (CallCost::kernels summed)
  int64_t parameter_count = 0;
  std::vector<LayerEstimate> layers;  // in graph order; optimizer last
  std::vector<std::string> critical_path;  // task names
  std::map<std::string, double> source_share;  // source name -> share of time
  MemoryFootprint memory;
  // The largest batch whose footprint fits the machine's memory
  // (LargestBatchThatFits); 0 when none does, -1 when not known (no batch or
  // no memory size).
  int64_t largest_batch = -1;
  std::vector<std::string> warnings;
  DataParallelStep data_parallel;  // gpus 1: none
  // The tasks in issue order (forward by node, backward in reverse, the
  // optimizer), without the exposed communication of data_parallel.
  std::vector<TaskTiming> timeline;
};

Result<Estimate> EstimateModel(const Graph& graph, const CostModel& cost,
                               const EstimateOptions& options);

// EstimateModel in two steps, for one model priced on many machines (dlsim
// sweep). The plan is what depends on the graph and options only: the
// lowered calls (DDP bucket copies when options.data_parallel.gpus > 1, the
// optimizer as a last node in training), the task DAG, the memory footprint.
struct EstimatePlan {
  LoweredGraph lowered;
  TaskDag dag;  // forward, backward and optimizer tasks; times come per machine
  MemoryFootprint memory;
  int64_t float_initializers = 0;     // parameter tensors (optimizer host cost)
  std::vector<double> gradient_bytes;  // per node; data parallel only
};
Result<EstimatePlan> PlanEstimate(const Graph& graph, const EstimateOptions& options);

// The estimate EstimateModel makes with a cost model that prices
// plan.lowered.nodes[i].calls[j] at costs[i][j] on `machine`.
Result<Estimate> EstimatePlanned(const Graph& graph, const EstimatePlan& plan,
                                 const std::vector<std::vector<CallCost>>& costs,
                                 const Machine& machine, const EstimateOptions& options);

// Only its step times (no layers, no summary), for sweeps.
struct PlannedTimes {
  double gpu_time_s = 0;
  double critical_path_s = 0;
  double eager_s = 0;
  double host_s = 0;
  DataParallelStep data_parallel;
};
Result<PlannedTimes> PlannedStepTimes(const Graph& graph, const EstimatePlan& plan,
                                      const std::vector<std::vector<CallCost>>& costs,
                                      const Machine& machine, const EstimateOptions& options);

// Re-combines `e`'s layers after their calls, costs or fwd_s/bwd_s were
// changed (what-if analyses): recomputes the one-stream, critical-path and
// eager times, the critical path and the totals from e->layers, which must
// be parallel to graph.nodes (plus the optimizer in training).
Status RescheduleEstimate(const Graph& graph, const HostSpec& host, Estimate* e);

// Largest batch whose footprint fits in device memory, given the footprint
// at `batch`: the largest activations (activations_max_bytes) scale with the
// batch, the rest of the peak does not.
int64_t LargestBatchThatFits(const MemoryFootprint& at_batch, int64_t batch,
                             double memory_bytes);

// "" when `e`'s footprint fits in `memory_bytes`; otherwise a warning with
// the footprint by part, the largest batch that fits and what would make it
// fit. The estimate itself still stands (a what-if study goes on).
std::string OutOfMemoryWarning(const Estimate& e, double memory_bytes);

}  // namespace dlsim

#endif  // DLSIM_ESTIMATE_ESTIMATOR_H_
