// Layout values beside a job file (plan_overrides.h).
#include "dlsim/distributed/plan_overrides.h"

namespace dlsim {

namespace {

Result<bool> ParseFlag(const std::string& text) {
  if (text == "true") return true;
  if (text == "false") return false;
  return InvalidArgument("sequence_parallel must be true or false, got '" + text + "'");
}

}  // namespace

Status ApplyOverrides(const PlanOverrides& o, ParallelPlan* p) {
  if (o.tensor > 0) p->tensor = o.tensor;
  if (o.pipeline > 0) p->pipeline = o.pipeline;
  if (o.data > 0) p->data = o.data;
  if (o.virtual_stages > 0) p->virtual_stages = o.virtual_stages;
  if (o.microbatch > 0) p->microbatch = o.microbatch;
  if (o.global_batch > 0) p->global_batch = o.global_batch;
  if (o.zero >= 0) p->zero_stage = o.zero;
  if (o.zero_shard > 0) p->zero_shard = o.zero_shard;
  if (!o.recompute.empty()) {
    DLSIM_ASSIGN_OR_RETURN(p->recompute, ParseRecompute(o.recompute));
  }
  if (!o.sequence_parallel.empty()) {
    DLSIM_ASSIGN_OR_RETURN(p->sequence_parallel, ParseFlag(o.sequence_parallel));
  }
  if (o.overlap_grad_reduce) p->overlap_grad_reduce = true;
  return Status::Ok();
}

Result<LayoutSearchOptions> SearchOptionsOf(const PlanOverrides& o, const TrainingJob& job,
                                            int64_t gpus, size_t keep) {
  LayoutSearchOptions s;
  s.gpus = gpus > 0 ? gpus : job.plan.gpus();
  s.global_batch = o.global_batch > 0 ? o.global_batch : job.plan.global_batch;
  s.keep = keep;
  if (o.data > 0) {
    return InvalidArgument("data parallelism is what a search leaves over: give the GPUs instead");
  }
  if (o.tensor > 0) s.tensors = {o.tensor};
  if (o.pipeline > 0) s.pipelines = {o.pipeline};
  if (o.microbatch > 0) s.microbatches = {o.microbatch};
  if (o.virtual_stages > 0) s.virtual_stages = {o.virtual_stages};
  if (!o.recompute.empty()) {
    DLSIM_ASSIGN_OR_RETURN(Recompute r, ParseRecompute(o.recompute));
    s.recomputes = {r};
  }
  if (!o.sequence_parallel.empty()) {
    DLSIM_ASSIGN_OR_RETURN(bool sp, ParseFlag(o.sequence_parallel));
    s.sequence_parallel = {sp};
  }
  if (o.zero >= 0) s.zero_stages = {o.zero};
  s.zero_shard = o.zero_shard;
  return s;
}

}  // namespace dlsim
