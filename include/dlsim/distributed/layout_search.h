// The fastest parallel layouts of a transformer on a given number of GPUs
// (docs/parallel.md, "Layout search"), as Calculon searches: every tensor x
// pipeline x data split, microbatch, interleaving, recomputation, sequence
// parallelism and ZeRO stage that suits the model and fits in memory.
#ifndef DLSIM_DISTRIBUTED_LAYOUT_SEARCH_H_
#define DLSIM_DISTRIBUTED_LAYOUT_SEARCH_H_

#include <cstdint>
#include <vector>

#include "dlsim/distributed/parallel_step.h"

namespace dlsim {

// The values each dimension may take; an empty list means every value that
// suits the model (tensor: powers of two up to a node; pipeline: divisors of
// the layers).
struct LayoutSearchOptions {
  int64_t gpus = 1;
  int64_t global_batch = 1;
  std::vector<int64_t> tensors;
  std::vector<int64_t> pipelines;
  std::vector<int64_t> microbatches = {1, 2, 4, 8};
  std::vector<int64_t> virtual_stages = {1, 2, 3, 4, 6, 8};
  std::vector<Recompute> recomputes = {Recompute::kNone, Recompute::kSelective, Recompute::kFull};
  std::vector<bool> sequence_parallel = {false, true};
  std::vector<int> zero_stages = {0, 1, 3};
  int64_t zero_shard = 0;  // hybrid sharding's group, pinned (0: shard over all replicas)
  size_t keep = 10;  // best layouts returned
};

struct LayoutSearchResult {
  std::vector<ParallelStepEstimate> best;  // fitting layouts, fastest first
  int64_t evaluated = 0;
  int64_t fitting = 0;
};

// `base` gives what is not searched (dtype, overlap of the gradient
// reduction). Errors: no layout of `gpus` suits the model (names why).
Result<LayoutSearchResult> SearchLayouts(const ParallelStepModel& model,
                                         const TransformerSpec& spec, const ParallelPlan& base,
                                         const LayoutSearchOptions& options);

}  // namespace dlsim

#endif  // DLSIM_DISTRIBUTED_LAYOUT_SEARCH_H_
