// One `dlsim scale` run, shared by the command and the Python module: a
// machine's pricing kept together, and the job priced on it (its own layout,
// or the fastest layouts that fit).
#ifndef DLSIM_DISTRIBUTED_SCALE_RUN_H_
#define DLSIM_DISTRIBUTED_SCALE_RUN_H_

#include <memory>
#include <string>

#include "dlsim/distributed/layout_search.h"
#include "dlsim/distributed/plan_overrides.h"
#include "dlsim/util/option_rules.h"

namespace dlsim {

// A machine with its cost model, collectives and step model (which refers
// to the other two, so they live together).
class PricedMachine {
 public:
  // A bundled name or a machine YAML path; errors name the file.
  static Result<std::unique_ptr<PricedMachine>> Load(const std::string& name);
  const Machine& machine() const { return machine_; }
  const CostModel& cost() const { return cost_; }
  const ParallelStepModel& model() const { return *model_; }

 private:
  PricedMachine(Machine machine, CostModel cost, CollectiveModel comm);
  Machine machine_;
  CostModel cost_;
  CollectiveModel comm_;
  std::unique_ptr<ParallelStepModel> model_;
};

struct ScaleRequest {
  PlanOverrides overrides;  // replace the job's layout; pinned with `search`
  bool search = false;
  int64_t gpus = 0;  // with `search`; 0 = the job's
  size_t top = 10;
};

// --top without --search has no effect: refused (`given` says which options
// were given, dlsim/util/option_rules.h).
Status CheckScaleRequestApplies(const ScaleRequest& request, const OptionGiven& given);

// The job with `overrides` on `m` (one estimate in `best`), or with
// `search` the fastest `top` layouts that fit. Errors name the job file;
// a search with nothing that fits is an error, and so is `gpus` without
// `search` other than the layout's (tensor x pipeline x data).
Result<LayoutSearchResult> RunScaleJob(const TrainingJob& job, const ScaleRequest& request,
                                       const PricedMachine& m);

}  // namespace dlsim

#endif  // DLSIM_DISTRIBUTED_SCALE_RUN_H_
