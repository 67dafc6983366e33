// Units of work per day and the harmonic-mean figure of merit (docs/fom.md,
// after the CANDLE method). Pure arithmetic: no YAML, no model loading. Step
// times come from a callback so that any estimator can be plugged in.
#ifndef DLSIM_ESTIMATE_FOM_H_
#define DLSIM_ESTIMATE_FOM_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "dlsim/machine/machine.h"
#include "dlsim/machine/workload.h"
#include "dlsim/util/precision.h"
#include "dlsim/util/status.h"

namespace dlsim {

inline constexpr double kSecondsPerDay = 86400;

// One estimated step and what it stands on (docs/fom.md, "Provenance").
struct StepEstimate {
  double step_time_s = 0;  // the step as run op by op (eager)
  // The step with every kernel at its P10 / P90 price (the calibration's
  // spread); the host's dispatch time as estimated.
  double p10_s = 0;
  double p90_s = 0;
  // Share of the step's kernel time per pricing source, by CostSourceName
  // ("measured", "fitted", "scaled", "roofline"); the shares sum to 1.
  std::map<std::string, double> source_share;
  std::vector<std::string> warnings;  // the estimate's
};

// A step estimate without a band or pricing sources (tests, stand-ins).
StepEstimate PlainStep(double step_time_s);

// Estimated step of `workload` on `machine`: every GPU of one unit processes
// `workload.batch` samples (the callback includes any gradient all-reduce
// across the unit).
using StepTimeFn = std::function<Result<StepEstimate>(const Workload&, const Machine&)>;

// What a report row names about a workload: its model (the ONNX file's
// stem, "" for measured figures only), per-GPU batch, dtype and mode.
struct WorkloadInfo {
  std::string name;
  std::string model;
  int64_t batch = 0;
  Precision precision = Precision::kFp32;
  Mode mode = Mode::kTraining;
};
WorkloadInfo InfoOf(const Workload& workload);

// Samples trained on per epoch: floor(train_samples × (1 − validation_fraction)),
// the split Keras' validation_split makes.
int64_t TrainSamplesPerEpoch(const DatasetSpec& dataset);

// ceil(TrainSamplesPerEpoch / global_batch): a partial last batch is a step.
// global_batch must be > 0.
int64_t StepsPerEpoch(const DatasetSpec& dataset, int64_t global_batch);

// GPUs one unit occupies on `machine`: nodes_per_unit × gpus_per_node, or
// gpus_per_unit.
int64_t GpusPerUnit(const Workload& workload, const Machine& machine);

// Units that run at once: floor(nodes / nodes_per_unit) or
// floor(GPUs / gpus_per_unit). kInvalidArgument when a unit needs more than
// the machine has.
Result<int64_t> ConcurrentUnits(const Workload& workload, const Machine& machine);

// step_time_s × steps_per_epoch × epochs + setup_s.
double UnitTimeS(double step_time_s, int64_t steps_per_epoch, double epochs, double setup_s);

// 86400 / unit_time_s × concurrent_units. unit_time_s must be > 0.
double UnitsPerDay(double unit_time_s, double concurrent_units);

// n / Σ(1/xᵢ). kInvalidArgument for an empty list or a rate that is not a
// positive finite number.
Result<double> HarmonicMean(const std::vector<double>& rates);

// How a machine's rate for one workload was obtained.
enum class RateBasis { kMeasuredUnitTime, kMeasuredRate, kEstimated };
const char* RateBasisName(RateBasis basis);  // "measured unit time", ...

struct MachineRate {
  std::string machine;  // Machine::name
  RateBasis basis = RateBasis::kEstimated;
  double step_time_s = 0;       // estimated only
  int64_t steps_per_epoch = 0;  // estimated only
  int64_t concurrent_units = 0;
  // Wall time of one unit; for a rate given directly, the implied time
  // 86400 × concurrent_units / units_per_day.
  double unit_time_s = 0;
  double units_per_day = 0;  // whole machine
  // Estimated only: the step's band, pricing sources and warnings, and the
  // unit time with the step at its P10 / P90 (measured: both unit_time_s).
  StepEstimate step;
  double unit_time_p10_s = 0;
  double unit_time_p90_s = 0;
};

// The rate of `workload` on `machine`: its measured figure for
// machine.name when there is one, else the estimate from `step_time` (which
// may be empty when every figure is measured). Errors name the workload.
Result<MachineRate> RateOnMachine(const Workload& workload, const Machine& machine,
                                  const StepTimeFn& step_time);

struct FomRow {
  std::string workload;
  WorkloadInfo info;
  double unit_time_target_s = 0;
  double unit_time_baseline_s = 0;
  double rate_target = 0;    // units per day
  double rate_baseline = 0;  // units per day
  double ratio = 0;          // rate_target / rate_baseline
  MachineRate target;        // details (basis, steps, step time)
  MachineRate baseline;
  // The rows' caveats: each machine's estimate warnings (prefixed with its
  // name), and how the two machines were priced when that bounds the ratio
  // ("both machines scaled from h100: ...").
  std::vector<std::string> warnings;
};

struct FomResult {
  std::string target_machine;    // Machine::name
  std::string baseline_machine;
  std::vector<FomRow> rows;      // in workload order
  double h_target = 0;           // harmonic mean of the target's rates
  double h_baseline = 0;
  double fom = 0;                // h_target / h_baseline
  double arithmetic_mean_ratio = 0;  // for contrast: mean of the row ratios
};

// The FOM table of `workloads` on `target` against `baseline`.
Result<FomResult> ComputeFom(const std::vector<Workload>& workloads, const Machine& target,
                             const Machine& baseline, const StepTimeFn& step_time);

}  // namespace dlsim

#endif  // DLSIM_ESTIMATE_FOM_H_
