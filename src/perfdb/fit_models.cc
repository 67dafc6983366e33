// Fitting one model per (kernel kind, math mode) on one GPU's measurements
// (docs/perfdb.md, "Fitted models"). The base model is a roofline with a
// launch floor and SM-wave quantisation, as in Benanza (Li et al., 2020) and
// the CUTLASS profiler's wave-count reasoning:
//   base_s = t0 + s_per_flop * flops / wave_eff + s_per_byte * bytes
// and the prediction is base_s times the neighbour correction
// (fit_neighbours.h), never faster than the class's fastest measured rate.
#include <algorithm>
#include <cmath>
#include <map>
#include <memory>

#include "dlsim/perfdb/fit.h"
#include "fit_boosted.h"
#include "fit_neighbours.h"
#include "fit_solver.h"
#include "kernel/work.h"

namespace dlsim {
namespace {

using perfdb_internal::BaseSeconds;
using perfdb_internal::Booster;
using perfdb_internal::KeyEncoder;
using perfdb_internal::LazyBooster;
using perfdb_internal::KeyFeatures;
using perfdb_internal::LazyNeighbourSet;
using perfdb_internal::MeasuredKey;
using perfdb_internal::NeighbourSet;
using perfdb_internal::PredictedSeconds;
using NeighbourPtr = std::shared_ptr<const LazyNeighbourSet>;
using BoosterPtr = std::shared_ptr<const LazyBooster>;

struct Sample {
  std::string key;
  ParsedKey parsed;
  KeyFeatures features;
  double time_s = 0;
};

// A class's model: coefficients and errors, and its neighbours.
struct ClassFit {
  FitClassReport report;
  NeighbourPtr neighbours;
};

std::string ClassName(const std::string& kind, const std::string& math) {
  return kind + "/" + math;
}

std::vector<double> Features(bool compute, const KeyFeatures& f) {
  std::vector<double> row = compute ? std::vector<double>{1.0, f.flops_eff, f.bytes}
                                    : std::vector<double>{1.0, f.bytes};
  row.insert(row.end(), f.terms.begin(), f.terms.end());
  return row;
}

// Nearest-rank percentile (of |relative error|, or of signed log errors);
// NaN for an empty set.
double Percentile(std::vector<double> v, double q) {
  if (v.empty()) return std::nan("");
  std::sort(v.begin(), v.end());
  size_t rank = static_cast<size_t>(std::ceil(q * static_cast<double>(v.size())));
  return v[std::min(v.size() - 1, rank == 0 ? 0 : rank - 1)];
}

// |relative error| of the base model, and of the whole prediction (base x
// correction, at least the rate floor) when `neighbours` is given.
std::vector<double> RelErrors(const FitClassReport& m, const NeighbourSet* neighbours,
                              const std::vector<Sample>& samples) {
  std::vector<double> errs;
  for (const Sample& s : samples) {
    const double predicted =
        neighbours == nullptr
            ? BaseSeconds(m, s.features)
            : PredictedSeconds(m, s.features, neighbours->Correction(s.parsed, s.features));
    errs.push_back(std::fabs(predicted - s.time_s) / s.time_s);
  }
  return errs;
}

// Per math mode, 1 / the fastest FLOP rate measured by any key of a compute
// kind in that mode (GEMMs, convolutions, attention, RNNs): no kernel of the
// mode ran faster on this GPU, so none is predicted to.
std::map<std::string, double> MinSecondsPerFlopByMath(
    const std::map<std::string, std::vector<Sample>>& classes) {
  std::map<std::string, double> min_s;
  for (const auto& [name, samples] : classes) {
    const std::string kind = name.substr(0, name.find('/'));
    if (!IsComputeKind(KernelKindFromName(kind).value())) continue;
    double& m = min_s[name.substr(name.find('/') + 1)];
    for (const Sample& s : samples) {
      if (!(s.features.flops > 0)) continue;
      const double r = s.time_s / s.features.flops;
      if (m == 0 || r < m) m = r;
    }
  }
  return min_s;
}

std::vector<MeasuredKey> MeasuredKeys(const std::vector<Sample>& samples) {
  std::vector<MeasuredKey> out;
  for (const Sample& s : samples) out.push_back({s.key, s.time_s});
  return out;
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
    auto features = perfdb_internal::FeaturesOfKey(*parsed, sm_count);
    if (!features.ok()) return features.status().WithContext("key '" + key + "'");
    const std::string name = ClassName(KernelKindName(parsed->kind), parsed->math);
    classes[name].push_back(Sample{key, std::move(parsed).value(), *features, r->median_ms * 1e-3});
  }
  return classes;
}

// The base model's coefficients fitted on `samples` (non-negative, relative
// least squares).
FitClassReport FitBase(const std::string& kind, const std::string& math,
                       const std::vector<Sample>& samples) {
  const bool compute = IsComputeKind(KernelKindFromName(kind).value());
  std::vector<std::vector<double>> rows;
  std::vector<double> y;
  for (const Sample& s : samples) {
    rows.push_back(Features(compute, s.features));
    y.push_back(s.time_s);
  }
  std::vector<double> c = perfdb_internal::FitNonNegativeRelative(rows, y);
  FitClassReport m;
  m.kind = kind;
  m.math = math;
  m.t0_s = c[0];
  m.s_per_flop = compute ? c[1] : 0.0;
  m.s_per_byte = compute ? c[2] : c[1];
  m.s_per_term.assign(c.begin() + (compute ? 3 : 2), c.end());
  return m;
}

// Held-out errors of the model fitted on `train` alone: its coefficients, and
// its neighbours drawn from `train` only, so no held-out key informs them.
void Evaluate(const std::vector<Sample>& train, const std::vector<Sample>& test,
              int64_t sm_count, int k, FitClassReport* out) {
  FitClassReport m = FitBase(out->kind, out->math, train);
  m.min_s_per_flop = out->min_s_per_flop;
  NeighbourSet nb = NeighbourSet::Build(MeasuredKeys(train), m, sm_count, k);
  out->n_train = static_cast<int>(train.size());
  out->n_test = static_cast<int>(test.size());
  out->train_median_rel_err = Percentile(RelErrors(m, nullptr, train), 0.5);
  std::vector<double> base_errs = RelErrors(m, nullptr, test);
  out->base_test_median_rel_err = Percentile(base_errs, 0.5);
  out->base_test_p90_rel_err = Percentile(base_errs, 0.9);
  std::vector<double> errs = RelErrors(m, &nb, test);
  out->test_median_rel_err = Percentile(errs, 0.5);
  out->test_p90_rel_err = Percentile(errs, 0.9);
}

// Every holdout_every-th key (sorted order) is held out.
void SplitHoldout(const std::vector<Sample>& samples, int holdout_every,
                  std::vector<Sample>* train, std::vector<Sample>* test) {
  for (size_t i = 0; i < samples.size(); ++i) {
    const bool held = holdout_every > 0 &&
                      static_cast<int>(i % holdout_every) == holdout_every - 1;
    (held ? test : train)->push_back(samples[i]);
  }
}

// The model of one class: evaluated on the held-out split, then refitted on
// every key, all of which become its neighbours.
std::optional<ClassFit> FitClass(const std::string& kind, const std::string& math,
                                 const std::vector<Sample>& samples, double min_s_per_flop,
                                 int64_t sm_count, const FitOptions& options,
                                 std::string* why_not) {
  std::vector<Sample> train, test;
  SplitHoldout(samples, options.holdout_every, &train, &test);
  if (static_cast<int>(train.size()) < options.min_train) {
    *why_not = std::to_string(train.size()) + " training keys, need " +
               std::to_string(options.min_train);
    return std::nullopt;
  }
  ClassFit fit;
  fit.report = FitBase(kind, math, samples);
  fit.report.min_s_per_flop = min_s_per_flop;
  Evaluate(train, test, sm_count, options.neighbours, &fit.report);
  fit.report.n_neighbours = static_cast<int>(samples.size());
  fit.neighbours = std::make_shared<const LazyNeighbourSet>(MeasuredKeys(samples), fit.report,
                                                            sm_count, options.neighbours);
  return fit;
}

// One class's keys with the base model that corrects them.
struct ClassSamples {
  FitClassReport* report;
  const std::vector<Sample>* samples;
};

struct TrainingSet {
  std::vector<std::vector<float>> rows;
  std::vector<float> targets;
};

// Rows and log(measured / base) targets of the keys `take` selects.
TrainingSet BoostRows(const std::vector<ClassSamples>& kind, const KeyEncoder& encoder,
                      int64_t sm_count, int holdout_every, bool held_out) {
  TrainingSet set;
  for (const ClassSamples& c : kind) {
    std::vector<Sample> train, test;
    SplitHoldout(*c.samples, holdout_every, &train, &test);
    for (const Sample& s : held_out ? test : train) {
      const double base = BaseSeconds(*c.report, s.features);
      if (!(base > 0)) continue;
      set.rows.push_back(encoder.Encode(s.parsed, s.features, sm_count));
      set.targets.push_back(static_cast<float>(std::log(s.time_s / base)));
    }
  }
  return set;
}

// Held-out errors of trees trained without the held-out keys, per class.
void EvaluateBoosted(const std::vector<ClassSamples>& kind, const KeyEncoder& encoder,
                     int64_t sm_count, int holdout_every) {
  TrainingSet train = BoostRows(kind, encoder, sm_count, holdout_every, false);
  if (static_cast<int>(train.rows.size()) < perfdb_internal::kBoostMinRows) return;
  auto trees = Booster::Train(train.rows, train.targets);
  if (!trees.ok()) return;
  for (const ClassSamples& c : kind) {
    std::vector<Sample> tr, test;
    SplitHoldout(*c.samples, holdout_every, &tr, &test);
    std::vector<double> errs;
    for (const Sample& s : test) {
      const double corr = std::exp((*trees)->Predict(encoder.Encode(s.parsed, s.features, sm_count)));
      errs.push_back(std::fabs(PredictedSeconds(*c.report, s.features, corr) - s.time_s) / s.time_s);
    }
    c.report->boosted_test_median_rel_err = Percentile(errs, 0.5);
    c.report->boosted_test_p90_rel_err = Percentile(errs, 0.9);
  }
}

// The correction that erred less on the held-out keys (median plus P90).
FitCorrection ChooseCorrection(const FitClassReport& m) {
  if (std::isnan(m.boosted_test_median_rel_err) || std::isnan(m.test_median_rel_err)) {
    return FitCorrection::kNeighbours;
  }
  return m.boosted_test_median_rel_err + m.boosted_test_p90_rel_err <
                 m.test_median_rel_err + m.test_p90_rel_err
             ? FitCorrection::kBoosted
             : FitCorrection::kNeighbours;
}

// Trees for one kind trained on every key of its fitted classes, after their
// held-out evaluation; nullptr when the kind has too few keys.
BoosterPtr FitKindBooster(const std::vector<ClassSamples>& kind, int64_t sm_count,
                          int holdout_every) {
  std::vector<const ParsedKey*> keys;
  for (const ClassSamples& c : kind) {
    for (const Sample& s : *c.samples) keys.push_back(&s.parsed);
  }
  KeyEncoder encoder = KeyEncoder::Build(keys);
  EvaluateBoosted(kind, encoder, sm_count, holdout_every);
  TrainingSet all = BoostRows(kind, encoder, sm_count, 0, false);
  if (static_cast<int>(all.rows.size()) < perfdb_internal::kBoostMinRows) return nullptr;
  auto trees = Booster::Train(all.rows, all.targets);
  if (!trees.ok()) return nullptr;
  auto saved = (*trees)->Save();
  if (!saved.ok()) return nullptr;
  for (const ClassSamples& c : kind) c.report->correction = ChooseCorrection(*c.report);
  return std::make_shared<const LazyBooster>(std::move(encoder), *trees, std::move(saved).value());
}

}  // namespace

const char* FitCorrectionName(FitCorrection c) {
  return c == FitCorrection::kBoosted ? "boosted" : "neighbours";
}

FittedModels::FittedModels(FitReport report, int neighbours_k,
                           std::vector<NeighbourPtr> neighbours,
                           std::map<std::string, BoosterPtr> boosters)
    : report_(std::move(report)),
      neighbours_k_(neighbours_k),
      neighbours_(std::move(neighbours)),
      boosters_(std::move(boosters)) {
  DLSIM_CHECK(neighbours_.size() == report_.classes.size());
  for (size_t i = 0; i < report_.classes.size(); ++i) {
    index_[ClassName(report_.classes[i].kind, report_.classes[i].math)] = i;
  }
}

// A 16-bit math mode without a class of its own takes the other 16-bit mode's:
// fp16 and bf16 run on the same tensor cores at the same rate (within 0.5 % at
// the median over the H100's keys measured in both), and a calibration often
// has only one of them for a kind (training's backward kernels are bf16, a
// transposed convolution in fp16 inference is a backward-data kernel).
std::optional<size_t> FittedModels::ClassIndex(KernelKind kind, const std::string& math) const {
  auto it = index_.find(ClassName(KernelKindName(kind), math));
  if (it == index_.end() && (math == "fp16" || math == "bf16")) {
    it = index_.find(ClassName(KernelKindName(kind), math == "fp16" ? "bf16" : "fp16"));
  }
  if (it == index_.end()) return std::nullopt;
  return it->second;
}

const FitClassReport* FittedModels::Find(KernelKind kind, const std::string& math) const {
  std::optional<size_t> i = ClassIndex(kind, math);
  return i ? &report_.classes[*i] : nullptr;
}

std::optional<double> FittedModels::PredictBaseSeconds(const ParsedKey& key) const {
  std::optional<size_t> i = ClassIndex(key.kind, key.math);
  if (!i) return std::nullopt;
  auto f = perfdb_internal::FeaturesOfKey(key, report_.sm_count);
  if (!f.ok()) return std::nullopt;
  return BaseSeconds(report_.classes[*i], *f);
}

std::optional<double> FittedModels::PredictSeconds(const ParsedKey& key) const {
  std::optional<size_t> i = ClassIndex(key.kind, key.math);
  if (!i) return std::nullopt;
  return PredictWith(key, report_.classes[*i].correction);
}

std::optional<double> FittedModels::PredictWith(const ParsedKey& key,
                                                FitCorrection correction) const {
  std::optional<size_t> i = ClassIndex(key.kind, key.math);
  if (!i) return std::nullopt;
  auto f = perfdb_internal::FeaturesOfKey(key, report_.sm_count);
  if (!f.ok()) return std::nullopt;
  const FitClassReport& m = report_.classes[*i];
  auto trees = boosters_.find(m.kind);
  if (correction == FitCorrection::kBoosted && trees != boosters_.end()) {
    return PredictedSeconds(m, *f, std::exp(trees->second->LogCorrection(key, *f, report_.sm_count)));
  }
  return PredictedSeconds(m, *f, neighbours_[*i]->Get().Correction(key, *f));
}

namespace {

// Per class name, ln(measured / predicted) of the band keys, priced by the
// models fitted on every other record with the correction `fitted` (fitted on
// every record) uses for the class.
Result<std::map<std::string, std::vector<double>>> BandErrors(
    const std::vector<MeasurementRecord>& records, int64_t sm_count, const FitOptions& options,
    const FittedModels& fitted) {
  std::vector<MeasurementRecord> others;
  for (const MeasurementRecord& r : records) {
    if (options.band_keys.count(r.key) == 0) others.push_back(r);
  }
  std::map<std::string, std::vector<double>> errs;
  if (others.size() == records.size() || others.empty()) return errs;
  FitOptions plain = options;
  plain.band_keys.clear();
  DLSIM_ASSIGN_OR_RETURN(FittedModels without, FitModels(others, sm_count, plain));
  DLSIM_ASSIGN_OR_RETURN(auto classes, CollectSamples(records, sm_count));
  for (const auto& [name, samples] : classes) {
    for (const Sample& s : samples) {
      const FitClassReport* m = fitted.Find(s.parsed.kind, s.parsed.math);
      if (m == nullptr || options.band_keys.count(s.key) == 0) continue;
      std::optional<double> predicted = without.PredictWith(s.parsed, m->correction);
      if (predicted && *predicted > 0) errs[name].push_back(std::log(s.time_s / *predicted));
    }
  }
  return errs;
}

// The class's band from its band keys' errors (at least kMinBandKeys).
void ApplyBand(const std::vector<double>& log_errs, FitClassReport* m) {
  if (static_cast<int>(log_errs.size()) < kMinBandKeys) return;
  m->n_band = static_cast<int>(log_errs.size());
  m->band_log_p10 = Percentile(log_errs, 0.1);
  m->band_log_p90 = Percentile(log_errs, 0.9);
  std::vector<double> rel;
  for (double x : log_errs) rel.push_back(std::fabs(std::exp(x) - 1));
  m->band_median_rel_err = Percentile(rel, 0.5);
}

}  // namespace

Result<FittedModels> FitModels(const std::vector<MeasurementRecord>& records,
                               int64_t sm_count, const FitOptions& options) {
  if (!options.band_keys.empty()) {
    FitOptions plain = options;
    plain.band_keys.clear();
    DLSIM_ASSIGN_OR_RETURN(FittedModels models, FitModels(records, sm_count, plain));
    DLSIM_ASSIGN_OR_RETURN(auto band, BandErrors(records, sm_count, options, models));
    for (FitClassReport& m : models.report_.classes) {
      auto it = band.find(ClassName(m.kind, m.math));
      if (it != band.end()) ApplyBand(it->second, &m);
    }
    return models;
  }
  if (records.empty()) return InvalidArgument("FitModels: no records to fit");
  if (sm_count <= 0) return InvalidArgument("FitModels: sm_count must be positive");
  if (options.neighbours < 0) return InvalidArgument("FitModels: neighbours must be >= 0");
  DLSIM_ASSIGN_OR_RETURN(auto classes, CollectSamples(records, sm_count));
  if (classes.empty()) {
    return InvalidArgument("FitModels: no record with status ok and a positive median time");
  }
  FitReport report;
  report.gpu_name = records.front().gpu_name;
  report.sm_count = sm_count;
  std::vector<NeighbourPtr> neighbours;
  std::vector<const std::vector<Sample>*> fitted_samples;
  const std::map<std::string, double> min_s_per_flop = MinSecondsPerFlopByMath(classes);
  for (const auto& [name, samples] : classes) {
    const std::string kind = name.substr(0, name.find('/'));
    const std::string math = name.substr(name.find('/') + 1);
    const bool compute = IsComputeKind(KernelKindFromName(kind).value());
    std::string why_not;
    std::optional<ClassFit> fit =
        FitClass(kind, math, samples, compute ? min_s_per_flop.at(math) : 0.0, sm_count,
                 options, &why_not);
    if (fit) {
      report.classes.push_back(std::move(fit->report));
      neighbours.push_back(std::move(fit->neighbours));
      fitted_samples.push_back(&samples);
    } else {
      report.skipped.push_back(name + ": " + why_not);
    }
  }
  std::map<std::string, std::vector<ClassSamples>> by_kind;
  for (size_t i = 0; i < report.classes.size(); ++i) {
    by_kind[report.classes[i].kind].push_back({&report.classes[i], fitted_samples[i]});
  }
  std::map<std::string, BoosterPtr> boosters;
  if (options.boosted) {
    for (const auto& [kind, members] : by_kind) {
      BoosterPtr trees = FitKindBooster(members, sm_count, options.holdout_every);
      if (trees != nullptr) boosters[kind] = std::move(trees);
    }
  }
  return FittedModels(std::move(report), options.neighbours, std::move(neighbours),
                      std::move(boosters));
}

}  // namespace dlsim
