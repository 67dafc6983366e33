// Opening a performance database and creating or checking its schema
// (docs/perfdb.md, "Schema").
#include "dlsim/perfdb/perf_db.h"

#include <cstdlib>
#include <set>
#include <utility>
#include <vector>
#include <sys/stat.h>

#include "dlsim/perfdb/fit.h"
#include "sqlite_util.h"

namespace dlsim {
namespace {

using perfdb_internal::Exec;
using perfdb_internal::SqliteError;
using perfdb_internal::Statement;
using perfdb_internal::Transaction;

constexpr const char* kSchemaSql = R"sql(
CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS gpus (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  cc TEXT NOT NULL,
  sms INTEGER NOT NULL,
  clock_mhz REAL NOT NULL,
  mem_bytes REAL NOT NULL);
CREATE TABLE IF NOT EXISTS software_stacks (
  id INTEGER PRIMARY KEY,
  driver TEXT NOT NULL,
  cuda TEXT NOT NULL,
  cudnn TEXT NOT NULL,
  cublas TEXT NOT NULL,
  UNIQUE (driver, cuda, cudnn, cublas));
CREATE TABLE IF NOT EXISTS measurements (
  id INTEGER PRIMARY KEY,
  gpu_id INTEGER NOT NULL REFERENCES gpus(id),
  stack_id INTEGER NOT NULL REFERENCES software_stacks(id),
  key TEXT NOT NULL,
  kind TEXT NOT NULL,
  algo TEXT NOT NULL,
  heuristic INTEGER NOT NULL,
  fastest INTEGER NOT NULL,
  median_ms REAL, min_ms REAL, max_ms REAL, p10_ms REAL, p90_ms REAL,
  reps INTEGER NOT NULL,
  workspace_bytes REAL,
  status TEXT NOT NULL,
  kernels TEXT NOT NULL,
  time_utc TEXT NOT NULL,
  record_schema INTEGER NOT NULL,
  UNIQUE (gpu_id, stack_id, key, algo));
CREATE INDEX IF NOT EXISTS measurements_gpu_key ON measurements (gpu_id, key);
CREATE TABLE IF NOT EXISTS fits (
  gpu_id INTEGER NOT NULL REFERENCES gpus(id),
  stack_id INTEGER NOT NULL REFERENCES software_stacks(id),
  models TEXT NOT NULL,
  PRIMARY KEY (gpu_id, stack_id));
)sql";

// Indexes that speed the estimation queries (the latest stack, one stack's
// timings or kernel counts); added to older files when opened for writing.
constexpr const char* kIndexSql = R"sql(
CREATE INDEX IF NOT EXISTS measurements_gpu_time ON measurements (gpu_id, time_utc, stack_id);
CREATE INDEX IF NOT EXISTS measurements_stack_status ON measurements (gpu_id, stack_id, status);
)sql";

bool FileExists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

Result<std::set<std::string>> TableNames(sqlite3* db, const std::string& path) {
  DLSIM_ASSIGN_OR_RETURN(
      Statement stmt,
      Statement::Prepare(db, path, "SELECT name FROM sqlite_master WHERE type = 'table'"));
  std::set<std::string> names;
  for (;;) {
    DLSIM_ASSIGN_OR_RETURN(bool row, stmt.Step());
    if (!row) break;
    names.insert(stmt.Text(0));
  }
  return names;
}

// Two imports into a database that does not exist yet both find it empty;
// BEGIN IMMEDIATE makes the second wait for the first (busy timeout), and
// IF NOT EXISTS / WHERE NOT EXISTS make its creation a no-op.
Status CreateSchema(sqlite3* db, const std::string& path) {
  Transaction txn(db, path);
  DLSIM_RETURN_IF_ERROR(txn.Begin());
  DLSIM_RETURN_IF_ERROR(Exec(db, path, kSchemaSql));
  DLSIM_RETURN_IF_ERROR(Exec(db, path, kIndexSql));
  DLSIM_RETURN_IF_ERROR(Exec(db, path, "INSERT INTO schema_version (version) SELECT " +
                                           std::to_string(kPerfDbSchemaVersion) +
                                           " WHERE NOT EXISTS (SELECT 1 FROM schema_version)"));
  return txn.Commit();
}

Status CheckVersion(sqlite3* db, const std::string& path) {
  DLSIM_ASSIGN_OR_RETURN(
      Statement stmt, Statement::Prepare(db, path, "SELECT MAX(version) FROM schema_version"));
  DLSIM_ASSIGN_OR_RETURN(bool row, stmt.Step());
  if (!row || stmt.IsNull(0)) {
    return ParseError(path + ": table schema_version is empty: not a dlsim performance database");
  }
  int64_t version = stmt.Int(0);
  if (version > kPerfDbSchemaVersion) {
    return Unsupported(path + ": database schema version " + std::to_string(version) +
                       " is newer than this dlsim supports (version " +
                       std::to_string(kPerfDbSchemaVersion) + "); use a newer dlsim");
  }
  if (version < 1) {
    return Unsupported(path + ": database schema version " + std::to_string(version) +
                       " is not valid (this dlsim reads version " +
                       std::to_string(kPerfDbSchemaVersion) + ")");
  }
  return Status::Ok();
}

// The columns the readers use. A database of the right version but another
// layout (edited by hand, or another program's) is refused naming what is
// missing, not later with SQLite's "no such column" (which exited 2).
Status CheckTables(sqlite3* db, const std::string& path) {
  static const std::vector<std::pair<const char*, std::vector<const char*>>> kTables = {
      {"gpus", {"id", "name", "cc", "sms", "clock_mhz", "mem_bytes"}},
      {"software_stacks", {"id", "driver", "cuda", "cudnn", "cublas"}},
      {"measurements",
       {"id", "gpu_id", "stack_id", "key", "kind", "algo", "heuristic", "fastest", "median_ms",
        "min_ms", "max_ms", "p10_ms", "p90_ms", "reps", "workspace_bytes", "status", "kernels",
        "time_utc", "record_schema"}},
      {"fits", {"gpu_id", "stack_id", "models"}}};
  for (const auto& [table, columns] : kTables) {
    DLSIM_ASSIGN_OR_RETURN(Statement info, Statement::Prepare(db, path, std::string("PRAGMA table_info(") +
                                                                            table + ")"));
    std::set<std::string> have;
    for (;;) {
      DLSIM_ASSIGN_OR_RETURN(bool row, info.Step());
      if (!row) break;
      have.insert(info.Text(1));
    }
    const std::string what = path + ": not a dlsim performance database of schema version " +
                             std::to_string(kPerfDbSchemaVersion) + ": ";
    if (have.empty()) return ParseError(what + "table " + table + " is missing");
    for (const char* column : columns) {
      if (have.count(column) == 0) {
        return ParseError(what + "table " + table + " has no column " + column);
      }
    }
  }
  return Status::Ok();
}

Status PrepareSchema(sqlite3* db, const std::string& path, OpenMode mode) {
  DLSIM_ASSIGN_OR_RETURN(auto tables, TableNames(db, path));
  if (tables.empty()) {
    if (mode != OpenMode::kCreate) {
      return NotFound(path + ": empty database, not a dlsim performance database "
                             "(create one with `dlsim db import`)");
    }
    DLSIM_RETURN_IF_ERROR(CreateSchema(db, path));
    return CheckVersion(db, path);
  }
  if (tables.count("schema_version") == 0) {
    return ParseError(path +
                      ": a SQLite database but not a dlsim performance database "
                      "(no schema_version table)");
  }
  DLSIM_RETURN_IF_ERROR(CheckVersion(db, path));
  DLSIM_RETURN_IF_ERROR(CheckTables(db, path));
  return mode == OpenMode::kReadOnly ? Status::Ok() : Exec(db, path, kIndexSql);
}

}  // namespace

void PerfDb::Closer::operator()(sqlite3* db) const { sqlite3_close(db); }

PerfDb::PerfDb(std::string path, sqlite3* db) : path_(std::move(path)), db_(db) {}
PerfDb::PerfDb(PerfDb&&) noexcept = default;
PerfDb& PerfDb::operator=(PerfDb&&) noexcept = default;
PerfDb::~PerfDb() = default;

Result<PerfDb> PerfDb::Open(const std::string& path, OpenMode mode) {
  if (mode != OpenMode::kCreate && !FileExists(path)) {
    return NotFound(path + ": performance database does not exist");
  }
  const int flags = mode == OpenMode::kReadOnly
                        ? SQLITE_OPEN_READONLY
                        : mode == OpenMode::kReadWrite
                              ? SQLITE_OPEN_READWRITE
                              : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
  struct stat st;
  if (stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > kMaxPerfDbBytes) {
    return InvalidArgument(path + ": " + std::to_string(st.st_size) +
                           " bytes, more than the limit of " + std::to_string(kMaxPerfDbBytes) +
                           " (4 GiB) for a performance database");
  }
  sqlite3* raw = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &raw, flags, nullptr);
  PerfDb db(path, raw);  // closes the handle on every path below
  if (rc != SQLITE_OK) return SqliteError(raw, path, rc, "opening the database");
  sqlite3_busy_timeout(raw, 5000);
  DLSIM_RETURN_IF_ERROR(Exec(raw, path, "PRAGMA foreign_keys = ON"));
  DLSIM_RETURN_IF_ERROR(PrepareSchema(raw, path, mode));
  if (mode == OpenMode::kReadOnly) {
    // Estimation scans the measurements table a few times (timings, kernel
    // counts, fits): map the file and keep its pages cached rather than read
    // each page again per scan.
    DLSIM_RETURN_IF_ERROR(Exec(raw, path, "PRAGMA mmap_size = 268435456"));
    DLSIM_RETURN_IF_ERROR(Exec(raw, path, "PRAGMA cache_size = -131072"));
  }
  // Writes stop at kMaxPerfDbBytes.
  int64_t page_size = 0;
  sqlite3_exec(
      raw, "PRAGMA page_size",
      [](void* out, int n, char** values, char**) {
        if (n > 0 && values[0] != nullptr) *static_cast<int64_t*>(out) = std::atoll(values[0]);
        return 0;
      },
      &page_size, nullptr);
  if (page_size >= 512) {
    DLSIM_RETURN_IF_ERROR(Exec(raw, path, "PRAGMA max_page_count = " +
                                              std::to_string(kMaxPerfDbBytes / page_size)));
  }
  return db;
}

}  // namespace dlsim
