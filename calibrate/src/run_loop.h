// The measuring loop of `dlsim-calibrate run` without the GPU: which keys
// to measure, and measuring them one by one with each key's records made
// durable before the next key starts. Host-only, so the kill-and-resume
// test runs it with a fake measurement source (tests/fake_run.cc).
#ifndef DLSIM_CALIBRATE_RUN_LOOP_H_
#define DLSIM_CALIBRATE_RUN_LOOP_H_

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "key.h"
#include "record_store.h"

namespace dlcal {

// Job files, then `key_texts` (--key), then sweeps; duplicates dropped.
// False, with every problem in *error (one per line), when a job file
// cannot be read, a sweep is unknown, or any key line is malformed
// ("FILE:LINE: why: text"): a bad job list stops the run before it spends
// GPU time.
bool CollectKeys(const std::vector<std::string>& job_files,
                 const std::vector<std::string>& key_texts,
                 const std::vector<std::string>& sweeps, std::vector<Key>* keys,
                 std::string* error);

// The keys of `keys` that `store` does not hold yet, in order.
std::vector<const Key*> PendingKeys(const std::vector<Key>& keys, const RecordStore& store);

// What measuring one key produced.
struct KeyOutcome {
  std::string lines;      // its records (records.h KeyRecords), each ending in '\n'
  size_t records = 0;
  size_t timed = 0;       // records with times
  std::string note;       // printed to stderr when not empty
  bool stop = false;      // the device broke: store these records, then stop
};
using MeasureFn = std::function<KeyOutcome(const Key&)>;

struct LoopOptions {
  double max_seconds = 0;       // 0: no budget
  double progress_seconds = 5;  // between progress lines on stderr
};

struct LoopTotals {
  size_t keys = 0, records = 0, timed = 0;
  bool stopped = false;         // a KeyOutcome asked to stop
};

// Measures `todo` in order with `measure`, appending each key's records to
// `store` (one write and an fsync per key) before the next key starts;
// stops before a key the time budget cannot fit (measured from `start`).
// False, with *error, when the store cannot be written.
bool MeasureKeys(const std::vector<const Key*>& todo, const MeasureFn& measure,
                 const LoopOptions& options, std::chrono::steady_clock::time_point start,
                 RecordStore* store, LoopTotals* totals, std::string* error);

}  // namespace dlcal

#endif  // DLSIM_CALIBRATE_RUN_LOOP_H_
