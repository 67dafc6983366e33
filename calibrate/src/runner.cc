#include "runner.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>

#include "cuda_util.h"
#include "families.h"
#include "key.h"
#include "progress.h"
#include "record_store.h"
#include "records.h"
#include "session.h"
#include "sweeps.h"

namespace dlcal {
namespace {

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

// Job files, then --key keys, then sweeps; duplicates dropped.
bool CollectKeys(const RunOptions& opts, std::vector<Key>* keys) {
  std::vector<std::string> bad;
  for (const auto& path : opts.job_files) {
    std::string error;
    if (!ReadJobFile(path, keys, &bad, &error)) {
      std::fprintf(stderr, "dlsim-calibrate: %s\n", error.c_str());
      return false;
    }
  }
  AddKeys(opts.keys, "--key", keys, &bad);
  for (const auto& name : opts.sweeps) {
    std::vector<std::string> lines;
    if (!SweepKeys(name, &lines)) {
      std::fprintf(stderr, "dlsim-calibrate: unknown sweep '%s' (known: gemm, conv, memory, "
                           "launch, all)\n", name.c_str());
      return false;
    }
    AddKeys(lines, "sweep " + name, keys, &bad);
  }
  for (const auto& b : bad) std::fprintf(stderr, "dlsim-calibrate: skipping bad key: %s\n", b.c_str());
  return true;
}

}  // namespace

int KeysCommand(const RunOptions& opts) {
  std::vector<Key> keys;
  if (!CollectKeys(opts, &keys)) return kExitError;
  for (const auto& k : keys) std::printf("%s\n", k.text.c_str());
  return kExitOk;
}

int RunCommand(const RunOptions& opts) {
  const auto start = std::chrono::steady_clock::now();
  std::vector<Key> keys;
  if (!CollectKeys(opts, &keys)) return kExitError;
  RecordStore store;
  std::string error;
  if (!store.Open(opts.out, &error)) {
    std::fprintf(stderr, "dlsim-calibrate: %s\n", error.c_str());
    return kExitError;
  }
  if (store.truncated_bytes() > 0) {
    std::fprintf(stderr, "# %s: dropped a torn last line (%zu bytes) from a killed run\n",
                 opts.out.c_str(), store.truncated_bytes());
  }
  std::vector<const Key*> todo;
  for (const auto& k : keys) {
    if (!store.HasKey(k.text)) todo.push_back(&k);
  }
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
  if (opts.cupti && !session.cupti_error().empty()) {
    std::fprintf(stderr, "# CUPTI unavailable (%s): records carry no kernel names\n",
                 session.cupti_error().c_str());
  }
  const DeviceInfo& info = session.info();
  std::fprintf(stderr, "# %s (cc %s, %d SMs, L2 %.0f MiB), driver %s, CUDA %s, cuDNN %s, "
                       "cuBLAS %s\n",
               info.name.c_str(), info.cc.c_str(), info.sms, info.l2_bytes / (1 << 20),
               info.driver.c_str(), info.cuda.c_str(), info.cudnn.c_str(), info.cublas.c_str());
  BudgetEstimator budget;
  auto last_progress = std::chrono::steady_clock::now();
  size_t done = 0, records = 0, ok = 0;
  int exit_code = kExitOk;
  for (const Key* key : todo) {
    if (!budget.Fits(key->kind, Seconds(start), opts.max_seconds)) {
      std::fprintf(stderr, "# budget of %.0f s reached: stopping before key %zu of %zu (%s)\n",
                   opts.max_seconds, done + 1, todo.size(), key->text.c_str());
      break;
    }
    const auto key_start = std::chrono::steady_clock::now();
    std::vector<AlgoResult> results;
    Status key_status = MeasureKey(*key, session.ctx(), &results);
    bool fatal = key_status.code() == Code::kFatal;
    for (const auto& r : results) fatal = fatal || r.status.code() == Code::kFatal;
    std::string lines = KeyRecords(info, key->text, results, key_status, UtcNow());
    if (!store.Append(lines, &error)) {
      std::fprintf(stderr, "dlsim-calibrate: %s\n", error.c_str());
      return kExitError;
    }
    ++done;
    for (const auto& r : results) {
      ++records;
      ok += r.status.ok() && r.has_times;
    }
    if (results.empty()) ++records;
    budget.Add(key->kind, Seconds(key_start));
    if (!key_status.ok() && results.empty()) {
      std::fprintf(stderr, "# %s: %s: %s\n", key->text.c_str(), key_status.RecordStatus(),
                   key_status.message().c_str());
    }
    if (fatal || !ContextHealthy()) {
      std::fprintf(stderr, "dlsim-calibrate: the CUDA context is broken after '%s'; exiting "
                           "with code %d: run again to resume\n", key->text.c_str(),
                   kExitCudaBroken);
      exit_code = kExitCudaBroken;
      break;
    }
    if (Seconds(last_progress) >= opts.progress_seconds) {
      last_progress = std::chrono::steady_clock::now();
      std::fprintf(stderr, "%s\n", ProgressLine(done, todo.size(), Seconds(start)).c_str());
    }
  }
  std::fprintf(stderr, "# done: %zu of %zu keys measured in %.0f s, %zu records (%zu timed)\n",
               done, todo.size(), Seconds(start), records, ok);
  return exit_code;
}

}  // namespace dlcal
