#include "run_loop.h"

#include <cstdio>

#include "progress.h"
#include "sweeps.h"

namespace dlcal {
namespace {

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

std::string JoinLines(const std::vector<std::string>& lines) {
  std::string text;
  for (const auto& line : lines) text += (text.empty() ? "" : "\n") + line;
  return text;
}

}  // namespace

bool CollectKeys(const std::vector<std::string>& job_files,
                 const std::vector<std::string>& key_texts,
                 const std::vector<std::string>& sweeps, std::vector<Key>* keys,
                 std::string* error) {
  std::vector<std::string> bad;
  for (const auto& path : job_files) {
    if (!ReadJobFile(path, keys, &bad, error)) return false;
  }
  AddKeys(key_texts, "--key", keys, &bad);
  for (const auto& name : sweeps) {
    std::vector<std::string> lines;
    if (!SweepKeys(name, &lines)) {
      *error = "unknown sweep '" + name + "' (known: gemm, conv, memory, launch, all)";
      return false;
    }
    AddKeys(lines, "sweep " + name, keys, &bad);
  }
  if (bad.empty()) return true;
  *error = "bad key lines (fix them; nothing was measured):\n" + JoinLines(bad);
  return false;
}

std::vector<const Key*> PendingKeys(const std::vector<Key>& keys, const RecordStore& store) {
  std::vector<const Key*> todo;
  for (const auto& k : keys) {
    if (!store.HasKey(k.text)) todo.push_back(&k);
  }
  return todo;
}

bool MeasureKeys(const std::vector<const Key*>& todo, const MeasureFn& measure,
                 const LoopOptions& options, std::chrono::steady_clock::time_point start,
                 RecordStore* store, LoopTotals* totals, std::string* error) {
  BudgetEstimator budget;
  auto last_progress = std::chrono::steady_clock::now();
  for (const Key* key : todo) {
    if (!budget.Fits(key->kind, Seconds(start), options.max_seconds)) {
      std::fprintf(stderr, "# budget of %.0f s reached: stopping before key %zu of %zu (%s)\n",
                   options.max_seconds, totals->keys + 1, todo.size(), key->text.c_str());
      break;
    }
    const auto key_start = std::chrono::steady_clock::now();
    KeyOutcome outcome = measure(*key);
    // Durable before anything else happens: a kill from here on loses
    // nothing of this key.
    if (!store->Append(outcome.lines, error)) return false;
    ++totals->keys;
    totals->records += outcome.records;
    totals->timed += outcome.timed;
    budget.Add(key->kind, Seconds(key_start));
    if (!outcome.note.empty()) std::fprintf(stderr, "%s\n", outcome.note.c_str());
    if (outcome.stop) {
      totals->stopped = true;
      break;
    }
    if (Seconds(last_progress) >= options.progress_seconds) {
      last_progress = std::chrono::steady_clock::now();
      std::fprintf(stderr, "%s\n", ProgressLine(totals->keys, todo.size(), Seconds(start)).c_str());
    }
  }
  return true;
}

}  // namespace dlcal
