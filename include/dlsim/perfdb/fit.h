// Fitted per-op-class models: for one GPU, a small model per (kernel kind,
// math mode) fitted on that GPU's measurements, corrected by the measured
// keys nearest to the query, which prices keys the database has not measured
// (the "fitted" cost source; docs/perfdb.md, "Fitted models"). Eigen stays in
// src/perfdb.
#ifndef DLSIM_PERFDB_FIT_H_
#define DLSIM_PERFDB_FIT_H_

#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "dlsim/kernel/kernel_call.h"
#include "dlsim/perfdb/record.h"
#include "dlsim/util/status.h"

namespace dlsim {
namespace perfdb_internal {
class LazyNeighbourSet;
class LazyBooster;
}

// Which correction of the base model prices a class's keys: the measured keys
// nearest to the query, or the boosted trees of its kind (docs/perfdb.md),
// whichever erred less on the class's held-out keys.
enum class FitCorrection { kNeighbours, kBoosted };
const char* FitCorrectionName(FitCorrection c);  // "neighbours", "boosted"

// One class's model: the base model
//   base_s = t0_s + s_per_flop * flops / wave_efficiency + s_per_byte * bytes
//            + sum_i s_per_term[i] * term_i
// (s_per_flop is 0 for memory-bound kinds; the terms are kind-specific, an
// RNN's serial steps per cuDNN algorithm, src/perfdb/rnn_algo.h) times the neighbour correction, the
// weighted geometric mean of measured / base over the class's measured keys
// nearest to the query (docs/perfdb.md, "Neighbour correction"), and never
// below min_s_per_flop * flops.
// Coefficients and neighbours come from all keys of the class; the errors from
// a fit of the same model on the training keys only, evaluated on the
// held-out keys. Relative errors are |predicted - measured| / measured.
struct FitClassReport {
  std::string kind;  // KernelKindName, e.g. "gemm"
  std::string math;  // "fp32", "tf32", "fp16", "bf16"
  double t0_s = 0;
  double s_per_flop = 0;  // 1 / effective FLOP/s
  double s_per_byte = 0;  // 1 / effective bytes/s
  // Seconds per unit of each kind-specific term (RNNs: RnnSerialTerms, in
  // its order); empty for kinds without such terms.
  std::vector<double> s_per_term;
  // 1 / the fastest FLOP rate measured in the class's math mode by any
  // compute kind (0 for memory-bound kinds): no prediction is faster than
  // min_s_per_flop * flops, so a GEMM far larger than any measured one is not
  // extrapolated past the rate the GPU was seen to reach.
  double min_s_per_flop = 0;
  int n_train = 0;
  int n_test = 0;        // held out (every holdout_every-th key)
  int n_neighbours = 0;  // measured keys the correction draws on (all keys)
  double train_median_rel_err = 0;  // base model on the training keys
  // The model (base x correction) on the held-out keys; NaN when n_test == 0.
  double test_median_rel_err = 0;
  double test_p90_rel_err = 0;
  // The base model alone on the held-out keys; NaN when n_test == 0.
  double base_test_median_rel_err = 0;
  double base_test_p90_rel_err = 0;
  // The base model times the boosted correction of its kind, trained without
  // the held-out keys; NaN when the kind has no trees.
  double boosted_test_median_rel_err = std::nan("");
  double boosted_test_p90_rel_err = std::nan("");
  FitCorrection correction = FitCorrection::kNeighbours;
  // The band of a prediction: P10 and P90 of ln(measured / predicted) over
  // the class's keys of models the fit never saw (FitOptions::band_keys),
  // each predicted by the models fitted without any of them; NaN when fewer
  // than kMinBandKeys of them fell in the class.
  // (Choosing the correction by them instead of the held-out keys was
  // tried: the corpus test side got worse, docs/perfdb.md.)
  int n_band = 0;
  double band_log_p10 = std::nan("");
  double band_log_p90 = std::nan("");
  double band_median_rel_err = std::nan("");  // |relative error| of the correction in use
  // The held-out P90 |relative error| of the correction in use (NaN: none
  // held out): the band of the class's predictions.
  double chosen_test_p90_rel_err() const {
    return correction == FitCorrection::kBoosted ? boosted_test_p90_rel_err : test_p90_rel_err;
  }
};

struct FitReport {
  std::string gpu_name;
  int64_t sm_count = 0;
  std::vector<FitClassReport> classes;  // sorted by kind, then math
  // "kind/math: reason" for classes with too few keys to fit.
  std::vector<std::string> skipped;
};

struct FitOptions {
  int holdout_every = 5;  // every 5th key (sorted order) is held out; 0: none
  int min_train = 4;      // fewer training keys than this: no model
  int neighbours = 4;     // k nearest measured keys in the correction; 0: base only
  bool boosted = true;    // also train each kind's trees, used where they err less
  // Keys measured for models nothing else was measured for (a corpus side's
  // job list): models fitted without them price them, and the spread of the
  // error per class is its band (FitClassReport::band_log_*). Then every
  // record, these included, is fitted as usual.
  std::set<std::string> band_keys;
};
inline constexpr int kMinBandKeys = 10;

class FittedModels {
 public:
  FittedModels() = default;

  // Predicted time of one call of `key` (base model x neighbour correction),
  // or nullopt when there is no model for its (kind, math) or its work
  // cannot be computed.
  std::optional<double> PredictSeconds(const ParsedKey& key) const;
  // The base model alone (no neighbour correction).
  std::optional<double> PredictBaseSeconds(const ParsedKey& key) const;
  // PredictSeconds with the given correction (the neighbours where the kind
  // has no trees).
  std::optional<double> PredictWith(const ParsedKey& key, FitCorrection correction) const;
  // The model used for (kind, math), or nullptr (fp16 and bf16 stand in for
  // each other when one has no class).
  const FitClassReport* Find(KernelKind kind, const std::string& math) const;

  const FitReport& report() const { return report_; }
  int neighbours() const { return neighbours_k_; }  // k of the correction

  // Versioned JSON (for the `fits` table): coefficients, errors, and each
  // class's measured keys and times. FromJson errors name the field; a JSON
  // of another format version is kUnsupported.
  std::string ToJson() const;
  static Result<FittedModels> FromJson(const std::string& json);

 private:
  friend Result<FittedModels> FitModels(const std::vector<MeasurementRecord>&, int64_t,
                                        const FitOptions&);
  using NeighbourPtr = std::shared_ptr<const perfdb_internal::LazyNeighbourSet>;
  using BoosterPtr = std::shared_ptr<const perfdb_internal::LazyBooster>;
  // `neighbours[i]` belongs to report.classes[i]; `boosters` are per kind name.
  FittedModels(FitReport report, int neighbours_k, std::vector<NeighbourPtr> neighbours,
               std::map<std::string, BoosterPtr> boosters);
  std::optional<size_t> ClassIndex(KernelKind kind, const std::string& math) const;

  FitReport report_;
  int neighbours_k_ = 0;
  std::vector<NeighbourPtr> neighbours_;
  std::map<std::string, BoosterPtr> boosters_;  // kind name -> trees
  std::map<std::string, size_t> index_;  // "kind/math" -> report_.classes[i]
};

// Fits one model per (kind, math) from one GPU's records. Uses status "ok"
// records only, and per key the fastest algorithm (min median), which is what
// the measured source returns. Errors: records of more than one GPU, or no
// usable record at all. Coefficients are non-negative; the fit minimises
// the sum of squared relative errors. The held-out errors come from a model
// fitted on the training keys whose neighbours are the training keys only.
Result<FittedModels> FitModels(const std::vector<MeasurementRecord>& records,
                               int64_t sm_count, const FitOptions& options = {});

}  // namespace dlsim

#endif  // DLSIM_PERFDB_FIT_H_
