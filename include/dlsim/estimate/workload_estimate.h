// Estimating a workload's step on a machine: loads its model with the
// workload's shapes, lowers it with its dtype/mode/optimizer and prices it
// with the machine's cost model. The step time used for units of work is the
// eager time (what a PyTorch training loop takes, host dispatch included).
#ifndef DLSIM_ESTIMATE_WORKLOAD_ESTIMATE_H_
#define DLSIM_ESTIMATE_WORKLOAD_ESTIMATE_H_

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "dlsim/estimate/estimator.h"
#include "dlsim/estimate/fom.h"
#include "dlsim/machine/machine.h"
#include "dlsim/machine/workload.h"

namespace dlsim {

// EstimateOptions for a workload's dtype, mode and optimizer.
Result<EstimateOptions> WorkloadEstimateOptions(const Workload& workload);

// The step of `e` for units of work: its eager time, that time with every
// kernel at its P10 / P90 price, the share of kernel time per pricing
// source, and e.warnings plus "step N % priced by ..." when one source other
// than measurement priced half the kernel time or more.
StepEstimate StepOfEstimate(const Estimate& e);

Result<Estimate> EstimateWorkloadStep(const Workload& workload, const Machine& machine);

// A StepTimeFn for ComputeFom that caches loaded models and cost models.
StepTimeFn MakeStepTimeFn();

// The same step times for many variants of one machine (dlsim sweep): for a
// machine without a database of its own (PricedAsVariant), each workload is
// lowered once and each call priced on the calibration.scale_from reference
// once (VariantPricing); a variant then costs the scaling of those prices
// and the schedule. Other machines go through MakeStepTimeFn.
StepTimeFn MakeSweepStepTimeFn();

}  // namespace dlsim

#endif  // DLSIM_ESTIMATE_WORKLOAD_ESTIMATE_H_
