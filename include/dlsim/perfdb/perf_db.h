// The performance database: measurement records from dlsim-calibrate kept in
// a SQLite file (schema in docs/perfdb.md). `dlsim db import` fills it; the
// cost model reads it through LoadTimings (exact keys) and the fitted models.
#ifndef DLSIM_PERFDB_PERF_DB_H_
#define DLSIM_PERFDB_PERF_DB_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "dlsim/kernel/kernel_call.h"
#include "dlsim/perfdb/fit.h"
#include "dlsim/perfdb/record.h"
#include "dlsim/perfdb/timing_table.h"
#include "dlsim/util/status.h"

struct sqlite3;  // the handle stays opaque: sqlite3.h is for src/perfdb only

namespace dlsim {

// The database schema this build writes and reads.
inline constexpr int kPerfDbSchemaVersion = 1;

enum class OpenMode {
  kReadOnly,   // the file must exist and be a dlsim DB (estimation)
  kReadWrite,  // read-write; the file must exist and be a dlsim DB (fit)
  kCreate,     // read-write; creates the file and schema when absent (import)
};

struct GpuInfo {
  std::string name;
  std::string cc;
  int64_t sms = 0;
  double clock_mhz = 0;
  double mem_bytes = 0;
};

struct SoftwareStack {
  std::string driver;
  std::string cuda;
  std::string cudnn;
  std::string cublas;
};

struct ImportStats {
  int64_t files = 0;
  int64_t records = 0;   // records read (= inserted + replaced)
  int64_t inserted = 0;  // new (gpu, stack, key, algo) rows
  int64_t replaced = 0;  // rows that existed and were overwritten
  std::vector<std::string> warnings;  // "file:line: ..." (truncated final lines)
};

struct DbStats {
  int64_t records = 0;
  std::map<std::string, int64_t> per_gpu;     // gpu name -> records
  std::map<std::string, int64_t> per_kind;    // "conv_fwd" -> records
  std::map<std::string, int64_t> per_status;  // "ok", "noisy", "unsupported", "failed"
  std::vector<SoftwareStack> stacks;          // every stack, in insertion order
  std::map<std::string, int64_t> stacks_per_gpu;  // gpu name -> software stacks measured
  int64_t fits = 0;                           // cached fitted-model sets
};

// Stats as one JSON object: {"records", "per_gpu", "per_kind", "per_status",
// "software_stacks": [{driver, cuda, cudnn, cublas}], "fits"} (for
// `dlsim db stats --format json`; keeps nlohmann-json inside src/perfdb).
std::string DbStatsToJson(const DbStats& stats);

// The largest database file dlsim opens (4 GiB; the bundled ones are about
// 20 MiB). Writes that would grow a database past it fail ("database or
// disk is full") and their transaction is rolled back.
inline constexpr int64_t kMaxPerfDbBytes = int64_t{4} << 30;

// A connection to one database file. Movable, not copyable. All methods
// return a Status naming the file on SQLite errors; none prints or throws.
class PerfDb {
 public:
  // Opens `path`. Errors: the file is absent (kReadOnly), is not a SQLite
  // database or is corrupt, is a SQLite file without dlsim's schema, or has
  // a schema version newer than kPerfDbSchemaVersion (both are named), or
  // is larger than kMaxPerfDbBytes.
  static Result<PerfDb> Open(const std::string& path, OpenMode mode);

  PerfDb(PerfDb&&) noexcept;
  PerfDb& operator=(PerfDb&&) noexcept;
  ~PerfDb();

  const std::string& path() const { return path_; }

  // Imports JSON-lines files in ONE transaction: every record of every file
  // lands, or (on any error) none does. A record whose (gpu, software stack,
  // key, algo) exists replaces it, so re-importing a file is idempotent.
  Result<ImportStats> ImportJsonl(const std::string& path);
  Result<ImportStats> ImportJsonl(const std::vector<std::string>& paths);
  // The same for records already in memory (one transaction).
  Result<ImportStats> ImportRecords(const std::vector<MeasurementRecord>& records);

  // Every record, ordered by gpu, software stack, key and algo. Exporting
  // and re-importing yields the same rows.
  Result<std::vector<MeasurementRecord>> AllRecords() const;
  Status ExportJsonl(const std::string& path) const;
  // One header line, then one row per record; `kernels` is a JSON string.
  Status ExportCsv(const std::string& path) const;

  Result<DbStats> Stats() const;
  Result<std::vector<std::string>> GpuNames() const;  // sorted
  Result<GpuInfo> Gpu(const std::string& gpu_name) const;  // NotFound if absent
  // The software stack used for estimation on this GPU: the one with the most
  // recent measurement (largest time_utc; ties go to the later-imported one).
  Result<SoftwareStack> LatestStack(const std::string& gpu_name) const;

  // Status "ok" records of the GPU's latest stack, grouped by key (see
  // TimingTable). NotFound when the GPU has no records.
  Result<TimingTable> LoadTimings(const std::string& gpu_name) const;
  // Every record (all algorithms, all statuses) of the GPU's latest stack,
  // of one kind or of all kinds, ordered by key then algo.
  // Kernels per call of the keys counted on the GPU's latest stack (records
  // with status "counted"): key -> the length of the record's kernel list.
  Result<std::map<std::string, int64_t>> LoadKernelCounts(const std::string& gpu_name) const;
  Result<std::vector<MeasurementRecord>> RecordsOfKind(const std::string& gpu_name,
                                                       KernelKind kind) const;
  Result<std::vector<MeasurementRecord>> RecordsOfGpu(const std::string& gpu_name) const;

  // Removes every record of the keys (every GPU, stack, algorithm and status)
  // in one transaction, and every stored fit; returns the records removed.
  Result<int64_t> DeleteKeys(const std::set<std::string>& keys);

  // Cached fitted models for the GPU's latest stack (table `fits`).
  Status StoreFit(const std::string& gpu_name, const FittedModels& models);
  // nullopt when no fit is stored for the latest stack.
  Result<std::optional<FittedModels>> LoadFit(const std::string& gpu_name) const;

 private:
  struct Closer {
    void operator()(sqlite3* db) const;
  };
  PerfDb(std::string path, sqlite3* db);

  Result<std::vector<MeasurementRecord>> QueryRecords(const std::string& where_sql,
                                                      const std::vector<std::string>& args) const;
  Result<std::pair<int64_t, int64_t>> LatestStackIds(const std::string& gpu_name) const;

  std::string path_;
  std::unique_ptr<sqlite3, Closer> db_;
};

}  // namespace dlsim

#endif  // DLSIM_PERFDB_PERF_DB_H_
