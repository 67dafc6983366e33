// The boosted correction of the fitted models, private to src/perfdb
// (docs/perfdb.md, "Boosted correction"): per kernel kind, gradient-boosted
// trees (XGBoost, the one module that links it) learn log(measured / base)
// from what the hardware sees of a key: FLOPs, bytes, arithmetic intensity,
// output tiles, SM waves and the last wave's occupancy, the dtype and math
// mode, and every parameter of the key with its alignment. Unlike the
// neighbour correction it needs no measured key near the query: the trees
// split on features every key has, so a shape between or beyond the measured
// ones still gets the correction of keys that share its tile and alignment
// pattern.
#ifndef DLSIM_SRC_PERFDB_FIT_BOOSTED_H_
#define DLSIM_SRC_PERFDB_FIT_BOOSTED_H_

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "dlsim/kernel/key.h"
#include "dlsim/util/status.h"
#include "fit_neighbours.h"

namespace dlsim::perfdb_internal {

// Training settings (changing one changes stored models' predictions: bump
// the fitted-model format, fit_serialize.cc).
inline constexpr int kBoostRounds = 150;
inline constexpr int kBoostMaxDepth = 5;
inline constexpr double kBoostLearningRate = 0.1;
inline constexpr int kBoostMinRows = 20;  // fewer training keys of a kind: no trees

// The feature layout of one kind: which key parameters are numbers and which
// are categories (with the values seen in training, in sorted order).
class KeyEncoder {
 public:
  static KeyEncoder Build(const std::vector<const ParsedKey*>& keys);
  // One row: the generic hardware features, then per numeric parameter
  // log2(1 + v) and whether v is a multiple of kAlignment, then per category
  // the value's index (NaN where the key lacks a field or has an unseen value).
  std::vector<float> Encode(const ParsedKey& key, const KeyFeatures& f, int64_t sm_count) const;
  size_t width() const;

  const std::vector<std::string>& numeric() const { return numeric_; }
  const std::map<std::string, std::vector<std::string>>& categories() const { return categories_; }
  KeyEncoder(std::vector<std::string> numeric,
             std::map<std::string, std::vector<std::string>> categories)
      : numeric_(std::move(numeric)), categories_(std::move(categories)) {}
  KeyEncoder() = default;

 private:
  std::vector<std::string> numeric_;
  std::map<std::string, std::vector<std::string>> categories_;
};

// One kind's trees. Thread-safe: predictions are serialised per model.
class Booster {
 public:
  // Trains on `rows` (all of width `width`) against `targets`; deterministic
  // (one thread, fixed seed).
  static Result<std::shared_ptr<Booster>> Train(const std::vector<std::vector<float>>& rows,
                                                const std::vector<float>& targets);
  // A model saved by Save(); errors name XGBoost's complaint.
  static Result<std::shared_ptr<Booster>> Load(const std::string& saved);
  ~Booster();
  Booster(const Booster&) = delete;
  Booster& operator=(const Booster&) = delete;

  Result<std::string> Save() const;  // XGBoost's JSON model
  // The trees' input width; Predict needs rows of exactly that width.
  size_t features() const { return features_; }
  double Predict(const std::vector<float>& row) const;

 private:
  Booster(void* handle, size_t features) : handle_(handle), features_(features) {}
  void* handle_;  // BoosterHandle
  size_t features_;
  mutable std::mutex mu_;
};

// A kind's encoder and trees, loaded on first use (XGBoost parses a model in
// milliseconds; most estimates price a handful of kinds).
class LazyBooster {
 public:
  LazyBooster(KeyEncoder encoder, std::string saved)
      : encoder_(std::move(encoder)), saved_(std::move(saved)) {}
  LazyBooster(KeyEncoder encoder, std::shared_ptr<Booster> trained, std::string saved)
      : encoder_(std::move(encoder)), saved_(std::move(saved)), booster_(std::move(trained)) {
    std::call_once(once_, [] {});
  }
  // log(measured / base) predicted for the key; 0 when the model fails to load.
  double LogCorrection(const ParsedKey& key, const KeyFeatures& f, int64_t sm_count) const;
  const KeyEncoder& encoder() const { return encoder_; }
  const std::string& saved() const { return saved_; }

 private:
  KeyEncoder encoder_;
  std::string saved_;
  mutable std::once_flag once_;
  mutable std::shared_ptr<Booster> booster_;
  // Predictions by feature row (its bytes): a model repeats its layers, and
  // one prediction costs tens of microseconds.
  mutable std::mutex cache_mu_;
  mutable std::unordered_map<std::string, double> cache_;
};

}  // namespace dlsim::perfdb_internal

#endif  // DLSIM_SRC_PERFDB_FIT_BOOSTED_H_
