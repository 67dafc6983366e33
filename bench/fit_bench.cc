// Cost of the fitted source (docs/perfdb.md, "Neighbour correction"): the
// time to read a database's stored models, to refit them from the records,
// to build a class's neighbour rows (its first key), and to price one key. The
// figures go to docs/perfdb.md; like every benchmark it never fails on them.
// Usage: fit_bench [--db calibration/h100.sqlite] [--gpu NAME] [--reps N]
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "bench_util.h"
#include "dlsim/perfdb/fit.h"
#include "dlsim/perfdb/perf_db.h"

namespace {

using dlsim::bench::NowS;

int Fail(const dlsim::Status& s) {
  std::fprintf(stderr, "fit_bench: %s\n", s.ToString().c_str());
  return 1;
}

// Mean microseconds per PredictSeconds over `keys`, `reps` passes.
double MicrosPerQuery(const dlsim::FittedModels& models, const std::vector<dlsim::ParsedKey>& keys,
                      int reps, double* checksum) {
  const double t0 = NowS();
  for (int r = 0; r < reps; ++r) {
    for (const dlsim::ParsedKey& k : keys) *checksum += models.PredictSeconds(k).value_or(0);
  }
  return (NowS() - t0) / (double(reps) * keys.size()) * 1e6;
}

}  // namespace

int main(int argc, char** argv) {
  std::string db_path = std::string(DLSIM_BENCH_SOURCE_DIR) + "/calibration/h100.sqlite";
  std::string gpu;
  int reps = 3;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--db")) db_path = argv[i + 1];
    if (!std::strcmp(argv[i], "--gpu")) gpu = argv[i + 1];
    if (!std::strcmp(argv[i], "--reps")) reps = std::atoi(argv[i + 1]);
  }
  auto db = dlsim::PerfDb::Open(db_path, dlsim::OpenMode::kReadOnly);
  if (!db.ok()) return Fail(db.status());
  if (gpu.empty()) gpu = db->GpuNames()->front();

  double t0 = NowS();
  auto table = db->LoadTimings(gpu);
  if (!table.ok()) return Fail(table.status());
  const double timings_s = NowS() - t0;
  t0 = NowS();
  auto stored = db->LoadFit(gpu);
  if (!stored.ok()) return Fail(stored.status());
  const double load_fit_s = NowS() - t0;
  t0 = NowS();
  auto records = db->RecordsOfGpu(gpu);
  if (!records.ok()) return Fail(records.status());
  auto fitted = dlsim::FitModels(*records, db->Gpu(gpu)->sms);
  if (!fitted.ok()) return Fail(fitted.status());
  const double refit_s = NowS() - t0;
  std::printf("%s (%s): %zu measured keys\n", db_path.c_str(), gpu.c_str(), table->size());
  std::printf("load timings      %8.1f ms\n", timings_s * 1e3);
  std::printf("load stored fit   %8.1f ms%s\n", load_fit_s * 1e3,
              stored->has_value() ? "" : " (none stored)");
  std::printf("read records+fit  %8.1f ms\n", refit_s * 1e3);

  // Price every measured key with the fitted models (as if unmeasured): the
  // neighbour search is a pass over the key's class.
  std::map<std::string, std::vector<dlsim::ParsedKey>> by_class;
  for (const auto& [key, timing] : table->timings()) {
    auto parsed = dlsim::ParseKernelKey(key);
    if (parsed.ok()) {
      by_class[std::string(dlsim::KernelKindName(parsed->kind)) + "/" + parsed->math].push_back(
          *parsed);
    }
  }
  // The stored models when there are (their classes are built on first use).
  const dlsim::FittedModels& models = stored->has_value() ? **stored : *fitted;
  double checksum = 0, total_us = 0, first_ms = 0;
  size_t total = 0;
  std::printf("\n%-26s %7s %14s %10s\n", "class", "keys", "first_key_ms", "us/query");
  for (const auto& [name, keys] : by_class) {
    t0 = NowS();
    checksum += models.PredictSeconds(keys.front()).value_or(0);
    const double first = (NowS() - t0) * 1e3;
    const double us = MicrosPerQuery(models, keys, reps, &checksum);
    std::printf("%-26s %7zu %14.2f %10.2f\n", name.c_str(), keys.size(), first, us);
    first_ms += first;
    total_us += us * keys.size();
    total += keys.size();
  }
  std::printf("%-26s %7zu %14.2f %10.2f   (checksum %.6g)\n", "all", total, first_ms,
              total_us / total, checksum);
  return 0;
}
