// Fitting one model per (kernel kind, math mode) on one GPU's measurements
// (docs/perfdb.md, "Fitted models"). The model is a roofline with a launch
// floor and SM-wave quantisation, as in Benanza (Li et al., 2020) and the
// CUTLASS profiler's wave-count reasoning:
//   time_s = t0 + s_per_flop * flops / wave_eff + s_per_byte * bytes
#include <algorithm>
#include <cmath>
#include <map>

#include "dlsim/perfdb/fit.h"
#include "dlsim/perfdb/work.h"
#include "fit_solver.h"

namespace dlsim {
namespace {

struct Sample {
  std::string key;
  double flops_eff = 0;  // flops / wave efficiency
  double bytes = 0;
  double time_s = 0;
};

std::string ClassName(const std::string& kind, const std::string& math) {
  return kind + "/" + math;
}

std::vector<double> Features(bool compute, const Sample& s) {
  if (compute) return {1.0, s.flops_eff, s.bytes};
  return {1.0, s.bytes};
}

double Predict(const FitClassReport& m, double flops_eff, double bytes) {
  return m.t0_s + m.s_per_flop * flops_eff + m.s_per_byte * bytes;
}

// Nearest-rank percentile of |relative error|; NaN for an empty set.
double Percentile(std::vector<double> v, double q) {
  if (v.empty()) return std::nan("");
  std::sort(v.begin(), v.end());
  size_t rank = static_cast<size_t>(std::ceil(q * static_cast<double>(v.size())));
  return v[std::min(v.size() - 1, rank == 0 ? 0 : rank - 1)];
}

std::vector<double> RelErrors(const FitClassReport& m, const std::vector<Sample>& samples) {
  std::vector<double> errs;
  for (const Sample& s : samples) {
    errs.push_back(std::fabs(Predict(m, s.flops_eff, s.bytes) - s.time_s) / s.time_s);
  }
  return errs;
}

// Best algorithm per key, grouped by class; keys sorted within a class.
Result<std::map<std::string, std::vector<Sample>>> CollectSamples(
    const std::vector<MeasurementRecord>& records, int64_t sm_count) {
  std::map<std::string, const MeasurementRecord*> best;  // sorted by key
  for (const MeasurementRecord& r : records) {
    if (r.gpu_name != records.front().gpu_name) {
      return InvalidArgument("FitModels: records of two GPUs ('" + records.front().gpu_name +
                             "' and '" + r.gpu_name + "'); fit one GPU at a time");
    }
    if (r.status != "ok" || !(r.median_ms > 0)) continue;
    auto [it, added] = best.try_emplace(r.key, &r);
    if (!added && r.median_ms < it->second->median_ms) it->second = &r;
  }
  std::map<std::string, std::vector<Sample>> classes;
  for (const auto& [key, r] : best) {
    auto parsed = ParseKernelKey(key);
    if (!parsed.ok()) return parsed.status();
    auto work = WorkOfKey(*parsed);
    if (!work.ok()) return work.status().WithContext("key '" + key + "'");
    Sample s{key, work->flops / WaveEfficiency(work->tiles, sm_count), work->bytes,
             r->median_ms * 1e-3};
    classes[ClassName(KernelKindName(parsed->kind), parsed->math)].push_back(std::move(s));
  }
  return classes;
}

std::optional<FitClassReport> FitClass(const std::string& kind, const std::string& math,
                                       const std::vector<Sample>& samples,
                                       const FitOptions& options, std::string* why_not) {
  std::vector<Sample> train, test;
  for (size_t i = 0; i < samples.size(); ++i) {
    const bool held = options.holdout_every > 0 &&
                      static_cast<int>(i % options.holdout_every) == options.holdout_every - 1;
    (held ? test : train).push_back(samples[i]);
  }
  if (static_cast<int>(train.size()) < options.min_train) {
    *why_not = std::to_string(train.size()) + " training keys, need " +
               std::to_string(options.min_train);
    return std::nullopt;
  }
  const bool compute = IsComputeKind(KernelKindFromName(kind).value());
  std::vector<std::vector<double>> rows;
  std::vector<double> y;
  for (const Sample& s : train) {
    rows.push_back(Features(compute, s));
    y.push_back(s.time_s);
  }
  std::vector<double> c = perfdb_internal::FitNonNegativeRelative(rows, y);
  FitClassReport m;
  m.kind = kind;
  m.math = math;
  m.t0_s = c[0];
  m.s_per_flop = compute ? c[1] : 0.0;
  m.s_per_byte = compute ? c[2] : c[1];
  m.n_train = static_cast<int>(train.size());
  m.n_test = static_cast<int>(test.size());
  m.train_median_rel_err = Percentile(RelErrors(m, train), 0.5);
  std::vector<double> test_errs = RelErrors(m, test);
  m.test_median_rel_err = Percentile(test_errs, 0.5);
  m.test_p90_rel_err = Percentile(test_errs, 0.9);
  return m;
}

}  // namespace

FittedModels::FittedModels(FitReport report) : report_(std::move(report)) {
  for (size_t i = 0; i < report_.classes.size(); ++i) {
    index_[ClassName(report_.classes[i].kind, report_.classes[i].math)] = i;
  }
}

const FitClassReport* FittedModels::Find(KernelKind kind, const std::string& math) const {
  auto it = index_.find(ClassName(KernelKindName(kind), math));
  return it == index_.end() ? nullptr : &report_.classes[it->second];
}

std::optional<double> FittedModels::PredictSeconds(const ParsedKey& key) const {
  const FitClassReport* m = Find(key.kind, key.math);
  if (m == nullptr) return std::nullopt;
  auto work = WorkOfKey(key);
  if (!work.ok()) return std::nullopt;
  return Predict(*m, work->flops / WaveEfficiency(work->tiles, report_.sm_count), work->bytes);
}

Result<FittedModels> FitModels(const std::vector<MeasurementRecord>& records,
                               int64_t sm_count, const FitOptions& options) {
  if (records.empty()) return InvalidArgument("FitModels: no records to fit");
  if (sm_count <= 0) return InvalidArgument("FitModels: sm_count must be positive");
  DLSIM_ASSIGN_OR_RETURN(auto classes, CollectSamples(records, sm_count));
  FitReport report;
  report.gpu_name = records.front().gpu_name;
  report.sm_count = sm_count;
  for (const auto& [name, samples] : classes) {
    const std::string kind = name.substr(0, name.find('/'));
    const std::string math = name.substr(name.find('/') + 1);
    std::string why_not;
    auto model = FitClass(kind, math, samples, options, &why_not);
    if (model) {
      report.classes.push_back(std::move(*model));
    } else {
      report.skipped.push_back(name + ": " + why_not);
    }
  }
  if (classes.empty()) {
    return InvalidArgument("FitModels: no record with status ok and a positive median time");
  }
  return FittedModels(std::move(report));
}

}  // namespace dlsim
