#include "dlsim/perfdb/kernel_counts.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "rnn_algo.h"

namespace dlsim {

KernelCounts::KernelCounts() : mutex_(std::make_unique<std::mutex>()) {}

KernelCounts::KernelCounts(std::map<std::string, int64_t> counts, int64_t sm_count)
    : KernelCounts() {
  exact_ = std::move(counts);
  sm_count_ = sm_count;
}

const std::vector<KernelCounts::Bucket>& KernelCounts::BucketsOf(const std::string& kind) const {
  // Called with mutex_ held.
  auto [it, added] = buckets_.try_emplace(kind);
  if (!added) return it->second;
  std::map<std::string, size_t> bucket_of;  // categories and names -> index in it->second
  // The kind's keys: "<kind> ..." sorts from "<kind> " to before "<kind>!".
  const auto end = exact_.lower_bound(kind + "!");
  size_t rank = 0;
  for (auto k = exact_.lower_bound(kind + " "); k != end; ++k, ++rank) {
    auto key = ParseKernelKey(k->first);
    if (!key.ok()) continue;
    Point p = Encode(*key, k->second);
    std::string shape;
    for (const auto& c : p.categories) shape += c + ' ';
    for (const auto& [name, value] : p.numbers) shape += name + ' ';
    auto [b, fresh] = bucket_of.try_emplace(shape, it->second.size());
    if (fresh) it->second.push_back(Bucket{p, {}, {}, {}});
    Bucket& bucket = it->second[b->second];
    for (const auto& number : p.numbers) bucket.values.push_back(number.second);
    bucket.ranks.push_back(rank);
    bucket.counts.push_back(p.count);
  }
  return it->second;
}

namespace {

constexpr char kAlgoCategory[] = "algo=";
// The category of a key the standard RNN algorithm runs.
const std::string& StandardAlgoCategory() {
  static const std::string category = std::string(kAlgoCategory) + RnnAlgoName(RnnAlgo::kStandard);
  return category;
}

// The "algo=..." category of a recurrent key's point ("" for other keys).
std::string AlgoCategory(const std::vector<std::string>& categories) {
  for (const auto& c : categories) {
    if (c.rfind(kAlgoCategory, 0) == 0) return c;
  }
  return "";
}

}  // namespace

KernelCounts::Point KernelCounts::Encode(const ParsedKey& key, int64_t count) const {
  Point p;
  p.count = count;
  p.categories = {"dtype=" + key.dtype, "math=" + key.math, "layout=" + key.layout};
  for (const auto& [name, value] : key.params) {
    int64_t v = 0;
    if (ParseKeyInt(value, &v)) {
      p.numbers.emplace_back(name, std::log2(static_cast<double>(std::max<int64_t>(v, 0)) + 1));
    } else {
      p.categories.push_back(name + "=" + value);
    }
  }
  if (IsRnnKind(key.kind)) {
    auto algo = RnnAlgoOfKey(key, sm_count_);
    if (algo.ok()) p.categories.push_back(kAlgoCategory + std::string(RnnAlgoName(*algo)));
  }
  std::sort(p.categories.begin(), p.categories.end());
  std::sort(p.numbers.begin(), p.numbers.end());
  return p;
}

double KernelCounts::ShapeDistance(const Point& a, const Point& b) {
  // Categories: each one in a but not b, or in b but not a, is half a
  // mismatch (a differing value appears on both sides).
  size_t only = 0;
  for (size_t i = 0, j = 0; i < a.categories.size() || j < b.categories.size();) {
    if (j == b.categories.size() || (i < a.categories.size() && a.categories[i] < b.categories[j])) {
      ++only, ++i;
    } else if (i == a.categories.size() || b.categories[j] < a.categories[i]) {
      ++only, ++j;
    } else {
      ++i, ++j;
    }
  }
  double d = kCountMismatchDistance * static_cast<double>(only) / 2;
  // A numeric parameter only one side has is a whole mismatch.
  for (size_t i = 0, j = 0; i < a.numbers.size() || j < b.numbers.size();) {
    if (j == b.numbers.size() || (i < a.numbers.size() && a.numbers[i].first < b.numbers[j].first)) {
      d += kCountMismatchDistance, ++i;
    } else if (i == a.numbers.size() || b.numbers[j].first < a.numbers[i].first) {
      d += kCountMismatchDistance, ++j;
    } else {
      ++i, ++j;
    }
  }
  return d;
}

std::optional<int64_t> KernelCounts::Of(const std::string& text) const {
  if (auto it = exact_.find(text); it != exact_.end()) return it->second;
  std::lock_guard<std::mutex> lock(*mutex_);
  if (auto it = nearest_.find(text); it != nearest_.end()) return it->second;
  auto key = ParseKernelKey(text);
  if (!key.ok()) return std::nullopt;
  const Point query = Encode(*key, 0);
  const auto& buckets = BucketsOf(KernelKindName(key->kind));
  // A recurrent key looks among the keys of its own RNN algorithm first.
  const std::string algo = AlgoCategory(query.categories);
  const bool algo_counted =
      !algo.empty() && std::any_of(buckets.begin(), buckets.end(), [&](const Bucket& b) {
        return AlgoCategory(b.shape.categories) == algo;
      });
  std::vector<Neighbour> nearest;  // the kCountNeighbours nearest so far, nearest first
  for (const Bucket& bucket : buckets) {
    if (algo_counted && AlgoCategory(bucket.shape.categories) != algo) continue;
    const double shape_d = ShapeDistance(query, bucket.shape);
    if (nearest.size() == kCountNeighbours && shape_d > nearest.back().distance) continue;
    // The query's value per bucket dimension, NaN where it lacks the name
    // (ShapeDistance counted that).
    const size_t dims = bucket.shape.numbers.size();
    std::vector<double> q(dims, std::numeric_limits<double>::quiet_NaN());
    for (size_t i = 0, j = 0; i < dims && j < query.numbers.size();) {
      if (bucket.shape.numbers[i].first == query.numbers[j].first) {
        q[i++] = query.numbers[j++].second;
      } else if (bucket.shape.numbers[i].first < query.numbers[j].first) {
        ++i;
      } else {
        ++j;
      }
    }
    for (size_t p = 0; p < bucket.counts.size(); ++p) {
      double d = shape_d;
      for (size_t i = 0; i < dims; ++i) {
        if (q[i] == q[i]) d += std::abs(q[i] - bucket.values[p * dims + i]);
      }
      Insert(Neighbour{d, bucket.ranks[p], &bucket, p}, &nearest);
    }
  }
  // The standard RNN algorithm launches its kernels per time step, layer and
  // direction (its backward-weights call a few per layer and direction).
  const bool per_step = algo == StandardAlgoCategory() && key->kind != KernelKind::kRnnBwdWeights;
  std::vector<int64_t> votes;
  for (const Neighbour& n : nearest) {
    const bool same_algo = algo_counted || AlgoCategory(n.bucket->shape.categories) == algo;
    votes.push_back(per_step && same_algo ? CountPerStep(query, n) : n.bucket->counts[n.row]);
  }
  const std::optional<int64_t> count = MostCommon(votes);
  nearest_.emplace(text, count);
  return count;
}

void KernelCounts::Insert(const Neighbour& n, std::vector<Neighbour>* nearest) {
  // Nearer first; equally near, the key that sorts first.
  auto before = [](const Neighbour& a, const Neighbour& b) {
    return a.distance < b.distance || (a.distance == b.distance && a.rank < b.rank);
  };
  if (nearest->size() == kCountNeighbours && !before(n, nearest->back())) return;
  nearest->insert(std::upper_bound(nearest->begin(), nearest->end(), n, before), n);
  if (nearest->size() > kCountNeighbours) nearest->pop_back();
}

int64_t KernelCounts::CountPerStep(const Point& query, const Neighbour& n) {
  const int64_t count = n.bucket->counts[n.row];
  const double steps = RecurrentSteps(query.numbers, nullptr);
  const double their_steps = RecurrentSteps(
      n.bucket->shape.numbers, &n.bucket->values[n.row * n.bucket->shape.numbers.size()]);
  if (!(steps > 0 && their_steps > 0)) return count;
  return std::max<int64_t>(1, std::llround(static_cast<double>(count) * steps / their_steps));
}

std::optional<int64_t> KernelCounts::MostCommon(const std::vector<int64_t>& votes) {
  std::optional<int64_t> best;
  int best_n = 0;
  for (int64_t v : votes) {  // nearest first: a tie goes to the nearer count
    const int n = static_cast<int>(std::count(votes.begin(), votes.end(), v));
    if (n > best_n) best = v, best_n = n;
  }
  return best;
}

double KernelCounts::RecurrentSteps(const std::vector<std::pair<std::string, double>>& numbers,
                                    const double* values) {
  double seq = 0, layers = 1, dirs = 1;
  for (size_t i = 0; i < numbers.size(); ++i) {
    const double v = std::exp2(values ? values[i] : numbers[i].second) - 1;  // Encode's log2(v + 1)
    if (numbers[i].first == "seq") seq = v;
    if (numbers[i].first == "layers") layers = v;
    if (numbers[i].first == "dirs") dirs = v;
  }
  return seq * layers * dirs;
}

}  // namespace dlsim
