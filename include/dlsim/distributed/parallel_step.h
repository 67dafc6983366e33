// One training step of a transformer under tensor, pipeline and data
// parallelism (docs/parallel.md, "Training at scale"): the kernels of the
// busiest pipeline stage priced on one GPU of the machine, its collectives
// and sends on the machine's network, the pipeline bubble of the 1F1B or
// interleaved schedule, the data-parallel gradient reduction, the optimizer,
// and the memory each GPU holds.
#ifndef DLSIM_DISTRIBUTED_PARALLEL_STEP_H_
#define DLSIM_DISTRIBUTED_PARALLEL_STEP_H_

#include <array>
#include <string>
#include <unordered_map>
#include <vector>

#include "dlsim/cost/cost_model.h"
#include "dlsim/machine/training_job.h"
#include "dlsim/collective/collective.h"

namespace dlsim {

// Seconds of one step, split as they add up: the busiest stage's kernels
// over every microbatch (recomputation apart), the tensor-parallel
// collectives and pipeline sends on its critical path, the bubble, what the
// data-parallel reduction (and ZeRO's gathers) leave exposed, the optimizer.
struct StepTimes {
  double step_s = 0;
  double compute_s = 0;
  double recompute_s = 0;
  double tensor_comm_s = 0;
  double pipeline_comm_s = 0;
  double bubble_s = 0;
  double data_comm_s = 0;
  double optimizer_s = 0;
  double p10_step_s = 0;  // the kernels' P10/P90 bands carried to the step
  double p90_step_s = 0;
};

// Bytes one GPU of the busiest stage holds at its peak.
struct GpuMemory {
  double weights_bytes = 0;    // the 16-bit working copy
  double gradients_bytes = 0;  // fp32 gradients
  double optimizer_bytes = 0;  // fp32 master weights, Adam's two moments
  double activations_bytes = 0;
  int stage = 0;  // the stage this is (first or last, whichever holds more)
  double total_bytes() const {
    return weights_bytes + gradients_bytes + optimizer_bytes + activations_bytes;
  }
};

struct ParallelStepEstimate {
  TransformerSpec model;
  ParallelPlan plan;
  StepTimes time;
  GpuMemory memory;
  bool fits = true;  // memory.total_bytes() within the GPU's memory
  double model_flops = 0;     // per step, all GPUs: 3 x forward matmuls
  double hardware_flops = 0;  // with recomputation
  double model_tflops_per_gpu = 0;
  double hardware_tflops_per_gpu = 0;
  double mfu = 0;  // model FLOPs / (step x GPUs x the GPU's dense 16-bit peak)
  double tokens_per_s = 0;
  // Share of priced kernel time per source (measured, fitted, scaled, roofline).
  std::array<double, 4> source_share{};
  std::vector<std::string> warnings;
};

class ParallelStepModel {
 public:
  ParallelStepModel(const CostModel& cost, const CollectiveModel& comm);
  // Errors: the plan does not suit the model (ValidatePlan) or the machine
  // (tensor parallelism wider than a node).
  Result<ParallelStepEstimate> Estimate(const TransformerSpec& model,
                                        const ParallelPlan& plan) const;
  // Every kernel call of one microbatch on the first and last stage (one
  // layer's, the embedding's, the head's) with its price: what `dlsim scale
  // --calls` lists.
  struct PricedCall {
    std::string part;  // "layer", "embedding", "head"
    KernelCall call;
    CallCost cost;
  };
  std::vector<PricedCall> MicrobatchCalls(const TransformerSpec& model,
                                          const ParallelPlan& plan) const;

 private:
  const CallCost& Price(const KernelCall& call) const;

  const CostModel& cost_;
  const CollectiveModel& comm_;
  mutable std::unordered_map<std::string, CallCost> priced_;
};

// Model FLOPs of one step (3 x the forward's matrix products, Megatron's
// count): 72 B s l h^2 (1 + s/(6h) + V/(12 l h)) for a 4h MLP.
double ModelFlopsPerStep(const TransformerSpec& model, int64_t global_batch);

}  // namespace dlsim

#endif  // DLSIM_DISTRIBUTED_PARALLEL_STEP_H_
