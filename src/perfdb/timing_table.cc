// Grouping per-algorithm records into per-key timings.
#include "dlsim/perfdb/timing_table.h"

#include <cmath>

namespace dlsim {

TimingTable TimingTable::FromRecords(const std::string& gpu_name, int64_t sm_count,
                                     const std::vector<MeasurementRecord>& records) {
  TimingTable table;
  table.gpu_name_ = gpu_name;
  table.sm_count_ = sm_count;
  for (const MeasurementRecord& r : records) {
    if (r.status != "ok" || std::isnan(r.median_ms)) continue;
    auto [it, added] = table.timings_.try_emplace(r.key);
    KeyTiming& t = it->second;
    const bool faster = added || r.median_ms < t.fastest_ms ||
                        (r.median_ms == t.fastest_ms && r.algo < t.fastest_algo);
    if (faster) {
      t.fastest_ms = r.median_ms;
      t.fastest_algo = r.algo;
      t.p10_ms = r.p10_ms;
      t.p90_ms = r.p90_ms;
    }
    if (r.heuristic) {
      t.heuristic_ms = r.median_ms;
      t.heuristic_algo = r.algo;
    }
    ++t.algo_count;
  }
  return table;
}

const KeyTiming* TimingTable::Find(const std::string& key) const {
  auto it = timings_.find(key);
  return it == timings_.end() ? nullptr : &it->second;
}

}  // namespace dlsim
