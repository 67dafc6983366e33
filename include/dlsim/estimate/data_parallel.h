// Data-parallel training (docs/parallel.md): each of `gpus` GPUs runs the
// step on its own batch, and the gradients are all-reduced in buckets while
// backward runs (PyTorch DistributedDataParallel: buckets of 25 MiB filled in
// backward order, the first 1 MiB, fp32 gradients, one communication stream).
#ifndef DLSIM_ESTIMATE_DATA_PARALLEL_H_
#define DLSIM_ESTIMATE_DATA_PARALLEL_H_

#include <string>

namespace dlsim {

struct DataParallelOptions {
  int gpus = 1;
  double bucket_bytes = 25.0 * (1 << 20);
  double first_bucket_bytes = 1.0 * (1 << 20);
};

// What the gradient all-reduce adds to one step.
struct DataParallelStep {
  int gpus = 1;
  int buckets = 0;
  double gradient_bytes = 0;  // per GPU, all-reduced every step
  double allreduce_s = 0;     // communication time of all buckets
  double exposed_s = 0;       // the part backward does not hide
  std::string method;         // "nccl table", "ring", "tree", "hierarchical"
};

}  // namespace dlsim

#endif  // DLSIM_ESTIMATE_DATA_PARALLEL_H_
