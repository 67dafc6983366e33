// In-memory timings of one GPU, keyed by kernel key: what the "measured"
// cost source looks up for every call of a model (a hash lookup per call).
#ifndef DLSIM_PERFDB_TIMING_TABLE_H_
#define DLSIM_PERFDB_TIMING_TABLE_H_

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "dlsim/perfdb/record.h"

namespace dlsim {

// Timings of one key over its algorithms with status "ok".
struct KeyTiming {
  double fastest_ms = 0;      // min over algos of the median time
  std::string fastest_algo;
  double heuristic_ms = -1;   // median of the heuristic's algo; < 0 if unknown
  std::string heuristic_algo;  // "" if unknown
  double p10_ms = 0;          // of the fastest algo
  double p90_ms = 0;          // of the fastest algo
  int algo_count = 0;         // algos with status "ok"

  bool has_heuristic() const { return heuristic_ms >= 0; }
};

class TimingTable {
 public:
  TimingTable() = default;
  // Groups records by key, keeping those with status "ok" (others ignored).
  // Ties on the median go to the algo name that sorts first.
  static TimingTable FromRecords(const std::string& gpu_name, int64_t sm_count,
                                 const std::vector<MeasurementRecord>& records);

  // nullptr when the key was not measured (or no algo succeeded).
  const KeyTiming* Find(const std::string& key) const;

  const std::string& gpu_name() const { return gpu_name_; }
  int64_t sm_count() const { return sm_count_; }
  size_t size() const { return timings_.size(); }
  const std::unordered_map<std::string, KeyTiming>& timings() const { return timings_; }

 private:
  std::string gpu_name_;
  int64_t sm_count_ = 0;
  std::unordered_map<std::string, KeyTiming> timings_;
};

}  // namespace dlsim

#endif  // DLSIM_PERFDB_TIMING_TABLE_H_
