// How many GPU kernels one call of a kernel key launches. One dlsim call can
// be several kernels: cuDNN's layout transforms around a convolution on
// NCHW tensors, a split-K GEMM's reduction, a LayerNorm backward's two
// kernels, a recurrent layer's kernels per time step. The counts come from
// records with status "counted" (calibrate/torch_kernel_count.py); a key
// nobody counted takes the count of the nearest counted key of its kind.
#ifndef DLSIM_PERFDB_KERNEL_COUNTS_H_
#define DLSIM_PERFDB_KERNEL_COUNTS_H_

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "dlsim/kernel/key.h"

namespace dlsim {

class KernelCounts {
 public:
  KernelCounts();
  // `counts`: key text -> kernels one call launches. Keys that do not parse
  // are never neighbours. `sm_count`: the GPU's SMs, which decide the cuDNN
  // RNN algorithm of a recurrent key (perfdb/rnn_algo.h).
  explicit KernelCounts(std::map<std::string, int64_t> counts, int64_t sm_count = 0);

  // The kernels one call of `key` launches: its own count when counted;
  // otherwise the most common count among the kCountNeighbours nearest
  // counted keys of the same kind (a tie to the nearer), where each
  // differing dtype, math, layout or text parameter is
  // kCountMismatchDistance and each numeric parameter adds |log2 a - log2 b|
  // (equally near, the key that sorts first). A recurrent key's neighbours are
  // the keys cuDNN runs with the same RNN algorithm, when any was counted: a
  // persistent kernel walks every time step in one launch, the standard
  // algorithm launches kernels per step, layer and direction, so each
  // neighbour's count votes scaled by time steps x layers x directions
  // (forward and backward-data). nullopt when no key of the kind was counted or
  // `key` (a key's text, KernelCall::Key()) does not parse.
  // Thread-safe.
  std::optional<int64_t> Of(const std::string& key) const;

  size_t size() const { return exact_.size(); }

  static constexpr double kCountMismatchDistance = 4.0;
  // Five, by held-out validation (bench/profile/count_neighbours.py): of the
  // counted keys the zoo-blind database lacks, 85.4 % are counted within
  // 10 % from the nearest key alone, 88.1 % by the vote of the five nearest.
  static constexpr size_t kCountNeighbours = 5;

 private:
  struct Point {
    std::vector<std::string> categories;       // dtype, math, layout, then text params by name
    std::vector<std::pair<std::string, double>> numbers;  // log2 of numeric params, by name
    int64_t count = 0;
  };
  // Counted keys with the same categories and parameter names: the shape
  // (values unused) and, per key, its numbers, rank in key order and count.
  struct Bucket {
    Point shape;
    std::vector<double> values;  // row-major, shape.numbers.size() per key
    std::vector<size_t> ranks;
    std::vector<int64_t> counts;
  };
  struct Neighbour {
    double distance;
    size_t rank;
    const Bucket* bucket;
    size_t row;
  };
  // Adds `n` to `nearest` (at most kCountNeighbours, nearest first).
  static void Insert(const Neighbour& n, std::vector<Neighbour>* nearest);
  // Neighbour n's count scaled by the query's time steps over its own (the
  // standard RNN algorithm's per-step launches).
  static int64_t CountPerStep(const Point& query, const Neighbour& n);
  // The most common of `votes` (nearest first), a tie to the nearer.
  static std::optional<int64_t> MostCommon(const std::vector<int64_t>& votes);
  // A recurrent key's categories end with "algo=<its cuDNN RNN algorithm>".
  Point Encode(const ParsedKey& key, int64_t count) const;
  // seq x layers x dirs of a recurrent key's numbers (`values` in their
  // order, else the numbers' own); 0 for keys without `seq`.
  static double RecurrentSteps(const std::vector<std::pair<std::string, double>>& numbers,
                               const double* values);
  // The distance of a and b over categories and parameter names alone.
  static double ShapeDistance(const Point& a, const Point& b);

  // The counted keys of one kind, encoded on the first query of the kind.
  const std::vector<Bucket>& BucketsOf(const std::string& kind) const;

  std::map<std::string, int64_t> exact_;  // sorted: a kind's keys are one range
  int64_t sm_count_ = 0;
  mutable std::unique_ptr<std::mutex> mutex_;
  mutable std::map<std::string, std::vector<Bucket>> buckets_;  // kind -> its keys, encoded
  mutable std::unordered_map<std::string, std::optional<int64_t>> nearest_;  // memo of Of
};

}  // namespace dlsim

#endif  // DLSIM_PERFDB_KERNEL_COUNTS_H_
