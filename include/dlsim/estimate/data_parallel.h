// Data-parallel training (docs/parallel.md): each of `gpus` GPUs runs the
// step on its own batch, and the gradients are all-reduced in buckets while
// backward runs (PyTorch DistributedDataParallel: buckets of 25 MiB filled in
// backward order, the first 1 MiB, fp32 gradients, one communication stream).
#ifndef DLSIM_ESTIMATE_DATA_PARALLEL_H_
#define DLSIM_ESTIMATE_DATA_PARALLEL_H_

#include <string>
#include <vector>

#include "dlsim/collective/collective.h"

namespace dlsim {

struct DataParallelOptions {
  int gpus = 1;
  // ZeRO sharding across the `gpus` replicas (DeepSpeed ZeRO, PyTorch FSDP):
  // 0 none (DDP), 1 the optimizer state, 2 and the gradients (reduce-scatter
  // instead of all-reduce, then an all-gather of the updated weights), 3 and
  // the weights (FSDP full sharding: gathered for each op's forward and
  // backward, no all-gather after the step).
  int zero_stage = 0;
  double bucket_bytes = 25.0 * (1 << 20);
  double first_bucket_bytes = 1.0 * (1 << 20);
};

// One collective on the communication stream, timed on the step's one-stream
// schedule.
struct CommTransfer {
  Collective collective = Collective::kAllReduce;
  double bytes = 0;
  double start_s = 0;
  double end_s = 0;
};

// What the gradient all-reduce adds to one step.
struct DataParallelStep {
  int gpus = 1;
  int buckets = 0;
  double gradient_bytes = 0;  // per GPU, all-reduced every step
  int zero_stage = 0;
  double allreduce_s = 0;     // communication time of all buckets (reduce-scatter with ZeRO)
  double allgather_s = 0;     // ZeRO: the weights' all-gathers (after the step; 3: forward and backward)
  double exposed_s = 0;       // the part backward does not hide
  std::string method;         // "nccl table", "ring", "tree", "hierarchical"
  // Every collective in issue order: each bucket's when its last gradient is
  // ready and the stream is free (ZeRO-3: its weights' all-gather first);
  // ZeRO-1/2: the weights' all-gather after the optimizer; ZeRO-3: the
  // forward's all-gather from the step's start.
  std::vector<CommTransfer> transfers;
};

}  // namespace dlsim

#endif  // DLSIM_ESTIMATE_DATA_PARALLEL_H_
