// One dlsim scale run (scale_run.h).
#include "dlsim/distributed/scale_run.h"

#include "dlsim/machine/machine_io.h"

namespace dlsim {

PricedMachine::PricedMachine(Machine machine, CostModel cost, CollectiveModel comm)
    : machine_(std::move(machine)), cost_(std::move(cost)), comm_(std::move(comm)),
      model_(std::make_unique<ParallelStepModel>(cost_, comm_)) {}

Result<std::unique_ptr<PricedMachine>> PricedMachine::Load(const std::string& name) {
  DLSIM_ASSIGN_OR_RETURN(Machine machine, LoadMachineByName(name));
  DLSIM_ASSIGN_OR_RETURN(CostModel cost, CostModel::ForMachine(machine));
  DLSIM_ASSIGN_OR_RETURN(CollectiveModel comm, CollectiveModel::ForMachine(machine));
  return std::unique_ptr<PricedMachine>(
      new PricedMachine(std::move(machine), std::move(cost), std::move(comm)));
}

Status CheckScaleRequestApplies(const ScaleRequest& request, const OptionGiven& given) {
  if (request.search) return Status::Ok();
  return RefuseGivenOptions(given, {"--top"}, "no --search",
                            "it is the number of searched layouts to list");
}

namespace {

// What pricing noted about the machine (a database not found, so every
// kernel priced by roofline; a fit made from the records) goes with each
// estimate, as `dlsim estimate` reports it.
LayoutSearchResult WithPricingNotes(LayoutSearchResult r, const PricedMachine& m) {
  for (ParallelStepEstimate& e : r.best) {
    e.warnings.insert(e.warnings.begin(), m.cost().notes().begin(), m.cost().notes().end());
  }
  return r;
}

}  // namespace

Result<LayoutSearchResult> RunScaleJob(const TrainingJob& job, const ScaleRequest& request,
                                       const PricedMachine& m) {
  LayoutSearchResult r;
  ParallelPlan plan = job.plan;  // a search takes what it does not search from it
  DLSIM_RETURN_IF_ERROR(ApplyOverrides(request.overrides, &plan));
  if (!request.search && request.gpus > 0 && request.gpus != plan.gpus()) {
    return InvalidArgument("--gpus " + std::to_string(request.gpus) + " differs from tensor x pipeline"
                           " x data = " + std::to_string(plan.gpus()) +
                           "; give --search to choose a layout of that many GPUs");
  }
  if (!request.search) {
    auto est = m.model().Estimate(job.model, plan);
    if (!est.ok()) return est.status().WithContext(job.source_path);
    r.evaluated = 1;
    r.fitting = est->fits ? 1 : 0;
    r.best.push_back(std::move(*est));
    return WithPricingNotes(std::move(r), m);
  }
  DLSIM_ASSIGN_OR_RETURN(LayoutSearchOptions o,
                         SearchOptionsOf(request.overrides, job, request.gpus, request.top));
  DLSIM_ASSIGN_OR_RETURN(r, SearchLayouts(m.model(), job.model, plan, o));
  if (r.best.empty()) {
    return InvalidArgument(job.source_path + ": none of the " + std::to_string(r.evaluated) +
                           " layouts of " + std::to_string(o.gpus) + " GPUs fits in " +
                           m.machine().name + "'s memory");
  }
  return WithPricingNotes(std::move(r), m);
}

}  // namespace dlsim
