// The neighbour correction of the fitted models, private to src/perfdb
// (docs/perfdb.md, "Neighbour correction"). A class's base model is a
// roofline with three coefficients; it cannot follow algorithm switches,
// tile effects or channel alignment. Measured keys near the query in a
// log-feature space of the key's parameters carry those effects: the
// prediction is base(query) times the weighted geometric mean of
// measured(nb) / base(nb) over the k nearest keys nb.
#ifndef DLSIM_SRC_PERFDB_FIT_NEIGHBOURS_H_
#define DLSIM_SRC_PERFDB_FIT_NEIGHBOURS_H_

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "dlsim/kernel/kernel_call.h"
#include "dlsim/perfdb/fit.h"
#include "dlsim/util/status.h"

namespace dlsim::perfdb_internal {

// One measured key of a class: the fastest algorithm's median time.
struct MeasuredKey {
  std::string key;
  double time_s = 0;
};

// The base model's inputs for one key: FLOPs over SM-wave efficiency, bytes;
// and the FLOPs themselves (for the rate floor).
struct KeyFeatures {
  double flops_eff = 0;
  double bytes = 0;
  double flops = 0;
  int64_t tiles = 0;  // KeyWork::tiles: 128x128 output tiles (0: no GEMM view)
  // Kind-specific terms of the base model, e.g. an RNN's serial steps
  // (RnnSerialTerms); empty for other kinds.
  std::vector<double> terms;
};
// Errors: the key's work cannot be computed (WorkOfKey).
Result<KeyFeatures> FeaturesOfKey(const ParsedKey& key, int64_t sm_count);

// t0 + s_per_flop * flops_eff + s_per_byte * bytes + s_per_term . terms.
double BaseSeconds(const FitClassReport& model, const KeyFeatures& f);

// The prediction: base x `correction`, at least min_s_per_flop * flops.
double PredictedSeconds(const FitClassReport& model, const KeyFeatures& f, double correction);

// Feature-space constants (changing one changes stored models' predictions:
// bump the fitted-model format, fit_serialize.cc).
inline constexpr double kMismatchDistance = 4.0;  // a categorical field differs
inline constexpr double kBatchWeight = 0.5;       // log2 of n / batch: the base scales them
inline constexpr int64_t kAlignment = 8;          // "multiple of 8" indicator per dim
inline constexpr double kDistanceFloor = 0.25;    // weight = 1 / (distance + floor)^2

// The measured keys of one class in feature space, with log(measured/base).
class NeighbourSet {
 public:
  // Keys that do not parse, whose work cannot be computed, or whose measured
  // or base time is not positive are never neighbours (FitModels passes only
  // keys that parse; the JSON holds what FitModels passed).
  static NeighbourSet Build(const std::vector<MeasuredKey>& measured, const FitClassReport& model,
                            int64_t sm_count, int k);

  // exp(sum_i w_i log(measured_i / base_i) / sum_i w_i) over the k nearest
  // keys, w_i = 1 / (distance_i + kDistanceFloor)^2; ties go to the key that
  // sorts first. 1 when k == 0 or there are no neighbours.
  double Correction(const ParsedKey& key, const KeyFeatures& f) const;

  size_t size() const { return log_ratio_.size(); }

 private:
  struct Encoded {  // one key in this set's feature layout
    std::vector<double> num;  // NaN: the key lacks that field
    std::vector<int> cat;     // -1: lacks the field; -2: a value no key had
    int unknown_fields = 0;   // fields of the query no measured key has
  };
  // Points whose categories are all equal, sorted by log2 bytes (column 1):
  // a query visits the buckets in order of their categorical distance, stops
  // at the first one farther than its k-th nearest key so far, and within a
  // bucket walks outwards from its own log2 bytes until that difference
  // alone is farther.
  struct Bucket {
    std::vector<int> cat;
    std::vector<size_t> points;    // by log2 bytes, then index
    std::vector<double> log2_bytes;  // of `points`
  };
  void AddToLayout(const ParsedKey& key);
  Encoded Encode(const ParsedKey& key, const KeyFeatures& f) const;
  double CategoricalDistanceSquared(const Encoded& q, const Bucket& b) const;
  double DistanceSquared(const Encoded& q, size_t point, double d2, double bound) const;
  using Near = std::pair<double, size_t>;  // (squared distance, point)
  void SearchBucket(const Encoded& q, const Bucket& b, double cat_d2, size_t k,
                    std::vector<Near>* best) const;

  int k_ = 0;
  int64_t sm_count_ = 0;  // of the GPU the keys were measured on
  // Numeric columns: log2 FLOPs, log2 bytes, then per integer parameter
  // (param_names_[i]) its log2 at 2 + 2i and its alignment at 3 + 2i.
  std::vector<std::string> param_names_;
  std::vector<std::string> cat_names_;
  std::vector<std::map<std::string, int>> cat_codes_;  // per categorical field
  size_t num_cols_ = 2;
  std::vector<double> num_;        // points x num_cols_ (row-major)
  std::vector<Bucket> buckets_;
  std::vector<double> log_ratio_;  // log(measured / base) per point
};

// A class's measured keys, and their NeighbourSet built on first use: a
// model set read from the database builds only the classes it prices.
// Thread-safe.
class LazyNeighbourSet {
 public:
  LazyNeighbourSet(std::vector<MeasuredKey> measured, const FitClassReport& model,
                   int64_t sm_count, int k)
      : measured_(std::move(measured)), model_(model), sm_count_(sm_count), k_(k) {}

  const NeighbourSet& Get() const;
  const std::vector<MeasuredKey>& measured() const { return measured_; }

 private:
  std::vector<MeasuredKey> measured_;
  FitClassReport model_;
  int64_t sm_count_;
  int k_;
  mutable std::once_flag once_;
  mutable NeighbourSet set_;
};

}  // namespace dlsim::perfdb_internal

#endif  // DLSIM_SRC_PERFDB_FIT_NEIGHBOURS_H_
