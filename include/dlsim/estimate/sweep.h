// Running a what-if sweep: every grid variant of a base machine against a
// list of workloads, each variant's harmonic-mean FOM against the base, and
// which swept field moves the FOM most. Step times come from a StepTimeFn.
#ifndef DLSIM_ESTIMATE_SWEEP_H_
#define DLSIM_ESTIMATE_SWEEP_H_

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "dlsim/estimate/fom.h"
#include "dlsim/estimate/sweep_grid.h"
#include "dlsim/machine/machine.h"
#include "dlsim/machine/workload.h"
#include "dlsim/util/status.h"

namespace dlsim {

struct SweepVariant {
  std::string name;                 // VariantName(...)
  std::vector<size_t> point;        // value index per grid axis
  std::vector<MachineRate> rates;   // in workload order
  double h_rate = 0;                // harmonic mean units/day
  double fom = 0;                   // h_rate / the base's
  // The harmonic mean with every unit time at its P90 (low) and its P10
  // (high): the band of the variant's rate (docs/fom.md on why not of the FOM).
  double h_rate_low = 0;
  double h_rate_high = 0;
  // Share of kernel time per pricing source over the workloads, each
  // workload's step shares weighted by its unit time.
  std::map<std::string, double> source_share;
};

// How much one field moves the FOM: the mean FOM over all variants holding
// each of its values, and the range (max - min) of those means.
struct FieldSensitivity {
  std::string field;  // SweepAxis::field
  std::vector<double> mean_fom_by_value;
  double fom_range = 0;
};

struct SweepResult {
  std::string base_machine;
  std::vector<std::string> workloads;  // names, in order
  std::vector<WorkloadInfo> workload_info;  // model, batch, dtype, mode, in order
  SweepVariant base;                   // the base priced as a variant (fom 1)
  std::vector<SweepVariant> variants;  // grid order (SweepPoint)
  std::vector<FieldSensitivity> sensitivity;  // largest fom_range first
};

struct SweepOptions {
  int threads = 0;  // 0: std::thread::hardware_concurrency()
};

// Rates of `workloads` on every variant of `base` in `grid`. Every rate is
// estimated with `step_time` (measured figures are dropped: they were taken
// on the unmodified machine), and the base is priced the same way
// (AsSweepReference) so that the all-x1 variant has FOM 1. `step_time` is
// called from several threads at once. The first failing variant in grid
// order decides the error, which names the variant.
Result<SweepResult> RunSweep(const std::vector<Workload>& workloads, const Machine& base,
                             const SweepGrid& grid, const StepTimeFn& step_time,
                             const SweepOptions& options = {});

// Mean FOM per value of each axis, ranked by range (ties: grid order).
std::vector<FieldSensitivity> SweepSensitivity(const SweepGrid& grid,
                                               const std::vector<SweepVariant>& variants);

// One CSV row per variant and workload: variant, one column per grid axis
// (its label), workload, model, machine (the base), batch, dtype, mode,
// step_time_s with step_p10_s and step_p90_s, unit_time_s with its P10 and
// P90, units_per_day, fom, the variant's h_rate_low and h_rate_high, the
// step's share_measured, share_fitted, share_scaled, share_roofline, and its
// warnings ("; "-separated). Fields are quoted as RFC 4180 says.
std::string SweepCsv(const SweepGrid& grid, const SweepResult& result);

}  // namespace dlsim

#endif  // DLSIM_ESTIMATE_SWEEP_H_
