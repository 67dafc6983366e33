#include "runner.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>

#include "cuda_util.h"
#include "families.h"
#include "key.h"
#include "profile.h"
#include "record_store.h"
#include "records.h"
#include "run_loop.h"
#include "session.h"
#include "sweeps.h"

namespace dlcal {
namespace {

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

bool CollectOrReport(const RunOptions& opts, std::vector<Key>* keys) {
  std::string error;
  if (CollectKeys(opts.job_files, opts.keys, opts.sweeps, keys, &error)) return true;
  std::fprintf(stderr, "dlsim-calibrate: %s\n", error.c_str());
  return false;
}

// Measures one key on the GPU and turns the results into its records.
KeyOutcome MeasureOnGpu(const Key& key, Session& session) {
  Stopwatch sw;
  std::vector<AlgoResult> results;
  Status key_status = MeasureKey(key, session.ctx(), &results);
  // The convolutions print their own breakdown (conv.cc); other kinds and
  // keys that failed before any algorithm get their total here.
  if (session.ctx().profile && (key.kind.rfind("conv_", 0) != 0 || results.empty())) {
    std::fprintf(stderr, "# profile %s: total %.1f ms (%zu algorithms)\n", key.text.c_str(),
                 sw.Ms(), results.size());
  }
  KeyOutcome out;
  bool fatal = key_status.code() == Code::kFatal;
  for (const auto& r : results) {
    fatal = fatal || r.status.code() == Code::kFatal;
    out.timed += r.status.ok() && r.has_times;
  }
  out.records = results.empty() ? 1 : results.size();
  out.lines = KeyRecords(session.info(), key.text, results, key_status, UtcNow());
  if (!key_status.ok() && results.empty()) {
    out.note = "# " + key.text + ": " + key_status.RecordStatus() + ": " + key_status.message();
  }
  if (fatal || !ContextHealthy()) {
    out.stop = true;
    out.note += (out.note.empty() ? "" : "\n") + std::string("dlsim-calibrate: the CUDA context ") +
                "is broken after '" + key.text + "'; exiting with code " +
                std::to_string(kExitCudaBroken) + ": run again to resume";
  }
  return out;
}

}  // namespace

int KeysCommand(const RunOptions& opts) {
  std::vector<Key> keys;
  if (!CollectOrReport(opts, &keys)) return kExitError;
  for (const auto& k : keys) std::printf("%s\n", k.text.c_str());
  return kExitOk;
}

int RunCommand(const RunOptions& opts) {
  const auto start = std::chrono::steady_clock::now();
  std::vector<Key> keys;
  if (!CollectOrReport(opts, &keys)) return kExitError;
  RecordStore store;
  std::string error;
  if (!store.Open(opts.out, &error)) {
    std::fprintf(stderr, "dlsim-calibrate: %s\n", error.c_str());
    return kExitError;
  }
  if (store.truncated_bytes() > 0) {
    std::fprintf(stderr, "# %s: cut %zu bytes a killed run left half written (%zu whole "
                         "records of its last key among them): that key is measured again\n",
                 opts.out.c_str(), store.truncated_bytes(), store.dropped_records());
  }
  std::vector<const Key*> todo = PendingKeys(keys, store);
  std::fprintf(stderr, "# %zu keys, %zu already in %s (%zu records), %zu to measure\n",
               keys.size(), keys.size() - todo.size(), opts.out.c_str(),
               store.existing_records(), todo.size());
  if (todo.empty()) return kExitOk;
  if (opts.shuffle) {  // spread a time-limited run over every kind of key
    std::mt19937 rng(12345);
    std::shuffle(todo.begin(), todo.end(), rng);
  }
  Session session;
  Status st = session.Open(opts.device, opts.cupti, opts.timing);
  if (!st.ok()) {
    std::fprintf(stderr, "dlsim-calibrate: %s\n", st.message().c_str());
    return kExitError;
  }
  session.ctx().profile = opts.profile || ProfileFromEnv();
  session.ctx().conv_engines = opts.conv_engines;
  if (opts.cupti && !session.cupti_error().empty()) {
    std::fprintf(stderr, "# CUPTI unavailable (%s): records carry no kernel names\n",
                 session.cupti_error().c_str());
  }
  const DeviceInfo& info = session.info();
  std::fprintf(stderr, "# %s (cc %s, %d SMs, L2 %.0f MiB), driver %s, CUDA %s, cuDNN %s, "
                       "cuBLAS %s\n",
               info.name.c_str(), info.cc.c_str(), info.sms, info.l2_bytes / (1 << 20),
               info.driver.c_str(), info.cuda.c_str(), info.cudnn.c_str(), info.cublas.c_str());
  LoopOptions loop;
  loop.max_seconds = opts.max_seconds;
  loop.progress_seconds = opts.progress_seconds;
  LoopTotals totals;
  auto measure = [&session](const Key& key) { return MeasureOnGpu(key, session); };
  if (!MeasureKeys(todo, measure, loop, start, &store, &totals, &error)) {
    std::fprintf(stderr, "dlsim-calibrate: %s\n", error.c_str());
    return kExitError;
  }
  std::fprintf(stderr, "# done: %zu of %zu keys measured in %.0f s, %zu records (%zu timed)\n",
               totals.keys, todo.size(), Seconds(start), totals.records, totals.timed);
  return totals.stopped ? kExitCudaBroken : kExitOk;
}

}  // namespace dlcal
