// Nearest measured keys in a log-feature space of the key's parameters, and
// the correction they give the base model (docs/perfdb.md, "Neighbour
// correction"): k-nearest-neighbour regression of the base model's log
// residual, so the analytic model carries the scaling and the measurements
// carry what it misses. An exact search over one class (at most a few
// thousand keys), pruned by category and by log2 bytes (NeighbourSet::Bucket).
#include "fit_neighbours.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "kernel/work.h"
#include "rnn_algo.h"

namespace dlsim::perfdb_internal {
namespace {

// A parameter written as a non-negative decimal integer.
bool IsCount(const std::string& v, int64_t* out) {
  if (v.empty() || v.size() > 18) return false;
  for (char c : v) {
    if (c < '0' || c > '9') return false;
  }
  *out = std::strtoll(v.c_str(), nullptr, 10);
  return true;
}

bool StartsWith(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

bool IsBatch(const std::string& name) { return name == "n" || name == "batch"; }

// Whether a dim's multiple-of-8 alignment is a feature: tensor dims, not the
// batch (the base model scales it) nor padding, dilation or stride.
bool HasAlignment(const std::string& name) {
  return !IsBatch(name) && !StartsWith(name, "pad_") && !StartsWith(name, "dil_") &&
         !StartsWith(name, "stride_");
}

using Params = std::vector<std::pair<std::string, std::string>>;

// The key's parameters, and for a grouped convolution (1 < groups) its
// channels per group in and out, c_per_group and k_per_group: a grouped
// convolution runs other kernels than a dense one (a direct grouped kernel,
// a layout transform around one, or one call per group; 24 channels per
// group take 2-3x the time of 16 or 32 on the H100), so it finds its
// neighbours among grouped keys of similar group width. Dense keys lack the
// two fields, which keeps them apart (kMismatchDistance each). An RNN key
// gets the cuDNN algorithm PyTorch would run it with (rnn_algo.h) as a
// category: a persistent kernel's time follows other laws than the standard
// algorithm's, so a key's neighbours are first those of its own algorithm.
Params FeatureParams(const ParsedKey& key, int64_t sm_count) {
  Params params = key.params;
  if (IsRnnKind(key.kind)) {
    auto algo = RnnAlgoOfKey(key, sm_count);
    if (algo.ok()) params.emplace_back("algo", RnnAlgoName(*algo));
  }
  int64_t c = 0, k = 0, groups = 0;
  for (const auto& [name, value] : key.params) {
    int64_t v = 0;
    if (!IsCount(value, &v)) continue;
    if (name == "c") c = v;
    if (name == "k") k = v;
    if (name == "groups") groups = v;
  }
  if (groups > 1 && c > 0 && k > 0) {
    params.emplace_back("c_per_group", std::to_string(c / groups));
    params.emplace_back("k_per_group", std::to_string(k / groups));
  }
  return params;
}

template <typename T>
int IndexOf(const std::vector<T>& names, const std::string& name) {
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == name) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace

Result<KeyFeatures> FeaturesOfKey(const ParsedKey& key, int64_t sm_count) {
  DLSIM_ASSIGN_OR_RETURN(KeyWork work, WorkOfKey(key));
  KeyFeatures f{work.flops / WaveEfficiency(work.tiles, sm_count), work.bytes, work.flops,
                work.tiles, {}};
  if (IsRnnKind(key.kind)) {
    DLSIM_ASSIGN_OR_RETURN(f.terms, RnnSerialTerms(key, sm_count));
  }
  return f;
}

double BaseSeconds(const FitClassReport& m, const KeyFeatures& f) {
  double s = m.t0_s + m.s_per_flop * f.flops_eff + m.s_per_byte * f.bytes;
  for (size_t i = 0; i < f.terms.size() && i < m.s_per_term.size(); ++i) {
    s += m.s_per_term[i] * f.terms[i];
  }
  return s;
}

double PredictedSeconds(const FitClassReport& m, const KeyFeatures& f, double correction) {
  return std::max(BaseSeconds(m, f) * correction, m.min_s_per_flop * f.flops);
}

NeighbourSet NeighbourSet::Build(const std::vector<MeasuredKey>& measured,
                                 const FitClassReport& model, int64_t sm_count, int k) {
  NeighbourSet set;
  set.k_ = k;
  set.sm_count_ = sm_count;
  std::vector<ParsedKey> keys;
  std::vector<KeyFeatures> features;
  for (const MeasuredKey& m : measured) {
    auto key = ParseKernelKey(m.key);
    if (!key.ok()) continue;
    auto f = FeaturesOfKey(*key, sm_count);
    if (!f.ok() || !(m.time_s > 0) || !(BaseSeconds(model, *f) > 0)) continue;
    set.AddToLayout(*key);
    set.log_ratio_.push_back(std::log(m.time_s / BaseSeconds(model, *f)));
    keys.push_back(std::move(key).value());
    features.push_back(*f);
  }
  set.num_cols_ = 2 + 2 * set.param_names_.size();
  std::map<std::vector<int>, size_t> bucket_of;
  for (size_t i = 0; i < keys.size(); ++i) {
    Encoded e = set.Encode(keys[i], features[i]);
    set.num_.insert(set.num_.end(), e.num.begin(), e.num.end());
    auto [it, added] = bucket_of.emplace(e.cat, set.buckets_.size());
    if (added) set.buckets_.push_back(Bucket{e.cat, {}, {}});
    set.buckets_[it->second].points.push_back(i);
  }
  for (Bucket& b : set.buckets_) {
    const double* num = set.num_.data();
    const size_t cols = set.num_cols_;
    std::stable_sort(b.points.begin(), b.points.end(), [num, cols](size_t x, size_t y) {
      return num[x * cols + 1] < num[y * cols + 1];
    });
    for (size_t i : b.points) b.log2_bytes.push_back(num[i * cols + 1]);
  }
  return set;
}

// Fields in order of first appearance, category codes likewise.
void NeighbourSet::AddToLayout(const ParsedKey& key) {
  auto add_cat = [this](const std::string& name, const std::string& value) {
    int i = IndexOf(cat_names_, name);
    if (i < 0) {
      i = static_cast<int>(cat_names_.size());
      cat_names_.push_back(name);
      cat_codes_.emplace_back();
    }
    cat_codes_[i].emplace(value, static_cast<int>(cat_codes_[i].size()));
  };
  for (const auto& [name, value] : FeatureParams(key, sm_count_)) {
    int64_t v = 0;
    if (!IsCount(value, &v)) {
      add_cat(name, value);
    } else if (IndexOf(param_names_, name) < 0) {
      param_names_.push_back(name);
    }
  }
  add_cat("dtype", key.dtype);
  add_cat("layout", key.layout);
}

// Every integer parameter (FeatureParams) as log2(1 + v) (halved for the batch, whose effect
// the base model already scales), and for the tensor dims whether they are a
// multiple of 8 (tensor-core and vector-load alignment: on the H100 an fp16
// 1x1 convolution with (c, k) = (440, 110) takes 4x the time of one with
// (480, 120)); every other parameter, the
// dtype and layout as categories; log2 of the FLOPs and bytes.
NeighbourSet::Encoded NeighbourSet::Encode(const ParsedKey& key, const KeyFeatures& f) const {
  Encoded e;
  e.num.assign(num_cols_, std::numeric_limits<double>::quiet_NaN());
  e.cat.assign(cat_names_.size(), -1);
  e.num[0] = std::log2(1.0 + f.flops_eff);
  e.num[1] = std::log2(1.0 + f.bytes);
  auto set_cat = [this, &e](const std::string& name, const std::string& value) {
    const int i = IndexOf(cat_names_, name);
    if (i < 0) {
      ++e.unknown_fields;
      return;
    }
    auto it = cat_codes_[i].find(value);
    e.cat[i] = it == cat_codes_[i].end() ? -2 : it->second;
  };
  for (const auto& [name, value] : FeatureParams(key, sm_count_)) {
    int64_t v = 0;
    if (!IsCount(value, &v)) {
      set_cat(name, value);
      continue;
    }
    const int i = IndexOf(param_names_, name);
    if (i < 0) {
      ++e.unknown_fields;
      continue;
    }
    e.num[2 + 2 * i] = (IsBatch(name) ? kBatchWeight : 1.0) * std::log2(1.0 + double(v));
    if (HasAlignment(name)) e.num[3 + 2 * i] = v % kAlignment == 0 ? 1.0 : 0.0;
  }
  set_cat("dtype", key.dtype);
  set_cat("layout", key.layout);
  return e;
}

// A field one side lacks, or a category that differs, counts
// kMismatchDistance in the Euclidean distance.
double NeighbourSet::CategoricalDistanceSquared(const Encoded& q, const Bucket& b) const {
  constexpr double kMismatch2 = kMismatchDistance * kMismatchDistance;
  double d2 = q.unknown_fields * kMismatch2;
  for (size_t j = 0; j < cat_names_.size(); ++j) {
    if (q.cat[j] != b.cat[j]) d2 += kMismatch2;
  }
  return d2;
}

// `d2` (the categorical part) plus the numeric part. Stops early once past
// `bound` (the k-th nearest so far): the partial sum is then returned, which
// is enough to reject the point.
double NeighbourSet::DistanceSquared(const Encoded& q, size_t point, double d2,
                                     double bound) const {
  constexpr double kMismatch2 = kMismatchDistance * kMismatchDistance;
  const double* num = &num_[point * num_cols_];
  for (size_t j = 0; j < num_cols_ && !(d2 > bound); ++j) {
    const bool qa = std::isnan(q.num[j]), pa = std::isnan(num[j]);
    if (!qa && !pa) {
      d2 += (q.num[j] - num[j]) * (q.num[j] - num[j]);
    } else if (qa != pa) {
      d2 += kMismatch2;
    }
  }
  return d2;
}

// Adds the bucket's points nearer than the k-th of `best` to it. Walks from
// the query's log2 bytes outwards, one side then the other, and stops a side
// once the bytes difference alone is past the k-th nearest.
void NeighbourSet::SearchBucket(const Encoded& q, const Bucket& b, double cat_d2, size_t k,
                                std::vector<Near>* best) const {
  auto bound = [best, k] {
    return best->size() == k ? best->back().first : std::numeric_limits<double>::infinity();
  };
  auto visit = [&](size_t pos) {
    const double dx = b.log2_bytes[pos] - q.num[1];
    if (cat_d2 + dx * dx > bound()) return false;
    const Near near{DistanceSquared(q, b.points[pos], cat_d2, bound()), b.points[pos]};
    if (best->size() < k || near < best->back()) {
      best->insert(std::upper_bound(best->begin(), best->end(), near), near);
      if (best->size() > k) best->pop_back();
    }
    return true;
  };
  const size_t start = static_cast<size_t>(
      std::lower_bound(b.log2_bytes.begin(), b.log2_bytes.end(), q.num[1]) - b.log2_bytes.begin());
  for (size_t pos = start; pos < b.points.size() && visit(pos); ++pos) {
  }
  for (size_t pos = start; pos > 0 && visit(pos - 1); --pos) {
  }
}

double NeighbourSet::Correction(const ParsedKey& key, const KeyFeatures& f) const {
  const size_t k = std::min(log_ratio_.size(), static_cast<size_t>(std::max(k_, 0)));
  if (k == 0) return 1.0;
  const Encoded q = Encode(key, f);
  std::vector<Near> order;  // buckets by categorical distance
  for (size_t b = 0; b < buckets_.size(); ++b) {
    order.emplace_back(CategoricalDistanceSquared(q, buckets_[b]), b);
  }
  std::sort(order.begin(), order.end());
  // The k smallest (distance, point) pairs, sorted: a total order, so ties
  // go to the key that sorts first whatever the visiting order.
  std::vector<Near> best;
  best.reserve(k + 1);
  for (const auto& [cat_d2, b] : order) {
    if (best.size() == k && cat_d2 > best.back().first) break;
    SearchBucket(q, buckets_[b], cat_d2, k, &best);
  }
  double sum_w = 0, sum_wr = 0;
  for (const auto& [d2, i] : best) {
    const double w = 1.0 / ((std::sqrt(d2) + kDistanceFloor) * (std::sqrt(d2) + kDistanceFloor));
    sum_w += w;
    sum_wr += w * log_ratio_[i];
  }
  return std::exp(sum_wr / sum_w);
}

const NeighbourSet& LazyNeighbourSet::Get() const {
  std::call_once(once_, [this] { set_ = NeighbourSet::Build(measured_, model_, sm_count_, k_); });
  return set_;
}

}  // namespace dlsim::perfdb_internal
