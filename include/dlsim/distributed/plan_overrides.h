// Layout values given beside a job file (dlsim scale's options, the Python
// module's keywords): they replace the file's, or pin the dimensions of a
// layout search.
#ifndef DLSIM_DISTRIBUTED_PLAN_OVERRIDES_H_
#define DLSIM_DISTRIBUTED_PLAN_OVERRIDES_H_

#include <cstdint>
#include <string>

#include "dlsim/distributed/layout_search.h"
#include "dlsim/machine/training_job.h"

namespace dlsim {

// 0, -1 or "" = not given.
struct PlanOverrides {
  int64_t tensor = 0, pipeline = 0, data = 0, virtual_stages = 0, microbatch = 0;
  int64_t global_batch = 0;
  int zero = -1;
  int64_t zero_shard = 0;
  std::string recompute;          // none, selective, full
  std::string sequence_parallel;  // true, false
  bool overlap_grad_reduce = false;
};

// Errors: an unknown recompute or sequence_parallel value.
Status ApplyOverrides(const PlanOverrides& o, ParallelPlan* plan);
// What is given is pinned, the rest searched over `gpus` GPUs (the job's
// layout is not a constraint; its global batch is). Errors: `data`, which a
// search derives.
Result<LayoutSearchOptions> SearchOptionsOf(const PlanOverrides& o, const TrainingJob& job,
                                            int64_t gpus, size_t keep);

}  // namespace dlsim

#endif  // DLSIM_DISTRIBUTED_PLAN_OVERRIDES_H_
