// Units of work per day and the harmonic-mean FOM (docs/fom.md): the CANDLE
// method — a machine's rate over several benchmarks is the harmonic mean of
// its per-benchmark rates, since they are rates; FOM = H(target)/H(baseline).
#include "dlsim/estimate/fom.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <cstdio>

namespace dlsim {

namespace {

std::string Fmt(double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.6g", v);
  return buf;
}

Result<MachineRate> EstimatedRate(const Workload& w, const Machine& m,
                                  const StepTimeFn& step_time, MachineRate rate) {
  const std::string where = w.Where() + " on " + m.name;
  if (!w.model) {
    return InvalidArgument(where + ": no measured figure for machine '" + m.name +
                           "' and no model to estimate");
  }
  if (!step_time) {
    return InvalidArgument(where + ": no measured figure for machine '" + m.name +
                           "' and no estimator was given");
  }
  auto step = step_time(w, m);
  if (!step.ok()) return step.status().WithContext(where);
  const double step_s = step->step_time_s;
  if (!(std::isfinite(step_s) && step_s > 0)) {
    return Internal(where + ": the estimator returned a step time of " + Fmt(step_s) + " s");
  }
  rate.basis = RateBasis::kEstimated;
  rate.step_time_s = step_s;
  rate.steps_per_epoch = StepsPerEpoch(w.dataset, w.batch * GpusPerUnit(w, m));
  rate.unit_time_s = UnitTimeS(step_s, rate.steps_per_epoch, w.epochs, w.setup_s);
  rate.unit_time_p10_s = UnitTimeS(step->p10_s, rate.steps_per_epoch, w.epochs, w.setup_s);
  rate.unit_time_p90_s = UnitTimeS(step->p90_s, rate.steps_per_epoch, w.epochs, w.setup_s);
  rate.step = std::move(*step);
  if (!(std::isfinite(rate.unit_time_s) && rate.unit_time_s > 0)) {
    // The workload reader refuses a split that leaves no step; this guards the rest.
    return InvalidArgument(where + ": a unit of work takes " + Fmt(rate.unit_time_s) +
                           " s (" + std::to_string(rate.steps_per_epoch) +
                           " steps per epoch); check dataset and epochs");
  }
  rate.units_per_day = UnitsPerDay(rate.unit_time_s, rate.concurrent_units);
  return rate;
}

// The warnings of a row: each machine's (prefixed with its name, once each),
// and a ratio of two machines priced from one reference's calibration.
std::vector<std::string> RowWarnings(const FomRow& row, const Machine& target,
                                     const Machine& baseline) {
  std::vector<std::string> out;
  const std::string& ref = target.calibration.scale_from;
  const bool both_estimated = row.target.basis == RateBasis::kEstimated &&
                              row.baseline.basis == RateBasis::kEstimated;
  const bool neither_measured =
      target.calibration.perf_db.empty() && baseline.calibration.perf_db.empty();
  if (both_estimated && neither_measured && !ref.empty() && ref == baseline.calibration.scale_from) {
    out.push_back("both machines scaled from " + std::filesystem::path(ref).stem().string() +
                  ": the ratio reflects their specifications, not a calibration of either");
  }
  for (const MachineRate* r : {&row.target, &row.baseline}) {
    for (const std::string& w : r->step.warnings) {
      const std::string text = r->machine + ": " + w;
      if (std::find(out.begin(), out.end(), text) == out.end()) out.push_back(text);
    }
  }
  return out;
}

}  // namespace

StepEstimate PlainStep(double step_time_s) {
  StepEstimate s;
  s.step_time_s = s.p10_s = s.p90_s = step_time_s;
  return s;
}

WorkloadInfo InfoOf(const Workload& w) {
  WorkloadInfo info;
  info.name = w.name;
  if (w.model) info.model = std::filesystem::path(w.model->onnx_path).stem().string();
  info.batch = w.batch;
  info.precision = w.precision;
  info.mode = w.mode;
  return info;
}

int64_t TrainSamplesPerEpoch(const DatasetSpec& dataset) {
  // The tiny bias keeps 1000 × (1 − 0.1) from flooring to 899 in binary.
  const double kept = static_cast<double>(dataset.train_samples) *
                      (1.0 - dataset.validation_fraction);
  return static_cast<int64_t>(std::floor(kept * (1 + 1e-12)));
}

int64_t StepsPerEpoch(const DatasetSpec& dataset, int64_t global_batch) {
  DLSIM_CHECK_MSG(global_batch > 0, "global batch must be positive");
  const int64_t samples = TrainSamplesPerEpoch(dataset);
  return (samples + global_batch - 1) / global_batch;
}

int64_t GpusPerUnit(const Workload& workload, const Machine& machine) {
  if (workload.OccupiesNodes()) return workload.nodes_per_unit * machine.node.gpus_per_node;
  return workload.gpus_per_unit;
}

Result<int64_t> ConcurrentUnits(const Workload& workload, const Machine& machine) {
  const bool nodes = workload.OccupiesNodes();
  const int64_t have = nodes ? machine.system.nodes : machine.TotalGpus();
  const int64_t need = nodes ? workload.nodes_per_unit : workload.gpus_per_unit;
  DLSIM_CHECK(need > 0);
  if (need > have) {
    return InvalidArgument(workload.Where() + ": one unit needs " + std::to_string(need) +
                           (nodes ? " nodes" : " GPUs") + " but machine " + machine.name +
                           " has " + std::to_string(have));
  }
  return have / need;
}

double UnitTimeS(double step_time_s, int64_t steps_per_epoch, double epochs, double setup_s) {
  return step_time_s * static_cast<double>(steps_per_epoch) * epochs + setup_s;
}

double UnitsPerDay(double unit_time_s, double concurrent_units) {
  DLSIM_CHECK(unit_time_s > 0);
  return kSecondsPerDay / unit_time_s * concurrent_units;
}

Result<double> HarmonicMean(const std::vector<double>& rates) {
  if (rates.empty()) return InvalidArgument("harmonic mean of no rates");
  double inverse_sum = 0;
  for (double r : rates) {
    if (!(std::isfinite(r) && r > 0)) {
      return InvalidArgument("harmonic mean: rate " + Fmt(r) + " is not a positive number");
    }
    inverse_sum += 1.0 / r;
  }
  return static_cast<double>(rates.size()) / inverse_sum;
}

const char* RateBasisName(RateBasis basis) {
  switch (basis) {
    case RateBasis::kMeasuredUnitTime: return "measured unit time";
    case RateBasis::kMeasuredRate: return "measured rate";
    case RateBasis::kEstimated: return "estimated";
  }
  return "estimated";
}

Result<MachineRate> RateOnMachine(const Workload& workload, const Machine& machine,
                                  const StepTimeFn& step_time) {
  MachineRate rate;
  rate.machine = machine.name;
  DLSIM_ASSIGN_OR_RETURN(rate.concurrent_units, ConcurrentUnits(workload, machine));
  const MeasuredFigure* fig = workload.MeasuredOn(machine.name);
  if (fig == nullptr) return EstimatedRate(workload, machine, step_time, rate);
  const double units = static_cast<double>(rate.concurrent_units);
  if (fig->unit_time_s > 0) {
    rate.basis = RateBasis::kMeasuredUnitTime;
    rate.unit_time_s = fig->unit_time_s;
    rate.units_per_day = UnitsPerDay(fig->unit_time_s, units);
  } else {
    DLSIM_CHECK(fig->units_per_day > 0);
    rate.basis = RateBasis::kMeasuredRate;
    rate.units_per_day = fig->units_per_day;
    rate.unit_time_s = kSecondsPerDay * units / fig->units_per_day;
  }
  rate.unit_time_p10_s = rate.unit_time_p90_s = rate.unit_time_s;
  return rate;
}

Result<FomResult> ComputeFom(const std::vector<Workload>& workloads, const Machine& target,
                             const Machine& baseline, const StepTimeFn& step_time) {
  if (workloads.empty()) return InvalidArgument("figure of merit: no workloads");
  FomResult result;
  result.target_machine = target.name;
  result.baseline_machine = baseline.name;
  std::vector<double> target_rates, baseline_rates;
  double ratio_sum = 0;
  for (const Workload& w : workloads) {
    FomRow row;
    row.workload = w.name;
    row.info = InfoOf(w);
    DLSIM_ASSIGN_OR_RETURN(row.target, RateOnMachine(w, target, step_time));
    DLSIM_ASSIGN_OR_RETURN(row.baseline, RateOnMachine(w, baseline, step_time));
    row.unit_time_target_s = row.target.unit_time_s;
    row.unit_time_baseline_s = row.baseline.unit_time_s;
    row.rate_target = row.target.units_per_day;
    row.rate_baseline = row.baseline.units_per_day;
    row.ratio = row.rate_target / row.rate_baseline;
    row.warnings = RowWarnings(row, target, baseline);
    ratio_sum += row.ratio;
    target_rates.push_back(row.rate_target);
    baseline_rates.push_back(row.rate_baseline);
    result.rows.push_back(std::move(row));
  }
  DLSIM_ASSIGN_OR_RETURN(result.h_target, HarmonicMean(target_rates));
  DLSIM_ASSIGN_OR_RETURN(result.h_baseline, HarmonicMean(baseline_rates));
  result.fom = result.h_target / result.h_baseline;
  result.arithmetic_mean_ratio = ratio_sum / static_cast<double>(workloads.size());
  return result;
}

}  // namespace dlsim
