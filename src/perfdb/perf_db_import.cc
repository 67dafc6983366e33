// Importing measurement records: all files in one transaction, upserting on
// (gpu, software stack, key, algo) so a re-import replaces rather than adds.
#include <cmath>
#include <map>
#include <tuple>

#include <nlohmann/json.hpp>

#include "dlsim/perfdb/perf_db.h"
#include "sqlite_util.h"

namespace dlsim {
namespace {

using perfdb_internal::Statement;
using perfdb_internal::Transaction;

std::string KernelsToJson(const std::vector<KernelTime>& kernels) {
  nlohmann::ordered_json j = nlohmann::ordered_json::array();
  for (const auto& k : kernels) {
    nlohmann::ordered_json kernel = {{"name", k.name}};
    if (!std::isnan(k.ms)) kernel["ms"] = k.ms;  // a counted record's kernels have no times
    j.push_back(std::move(kernel));
  }
  return j.dump();
}

std::string KindOfKey(const std::string& key) { return key.substr(0, key.find(' ')); }

// Prepared statements for one import, with id caches for gpus and stacks.
class Importer {
 public:
  static Result<Importer> Create(sqlite3* db, const std::string& path);
  Status Add(const MeasurementRecord& r, ImportStats* stats);

 private:
  Importer(Statement upsert_gpu, Statement gpu_id, Statement insert_stack,
           Statement stack_id, Statement exists, Statement upsert)
      : upsert_gpu_(std::move(upsert_gpu)), gpu_id_(std::move(gpu_id)),
        insert_stack_(std::move(insert_stack)), stack_id_(std::move(stack_id)),
        exists_(std::move(exists)), upsert_(std::move(upsert)) {}
  Result<int64_t> GpuId(const MeasurementRecord& r);
  Result<int64_t> StackId(const MeasurementRecord& r);
  static Result<int64_t> SingleId(Statement& stmt);

  Statement upsert_gpu_, gpu_id_, insert_stack_, stack_id_, exists_, upsert_;
  std::map<std::string, int64_t> gpu_ids_;
  std::map<std::tuple<std::string, std::string, std::string, std::string>, int64_t> stack_ids_;
};

Result<Importer> Importer::Create(sqlite3* db, const std::string& path) {
  DLSIM_ASSIGN_OR_RETURN(Statement upsert_gpu, Statement::Prepare(db, path, R"sql(
      INSERT INTO gpus (name, cc, sms, clock_mhz, mem_bytes) VALUES (?1, ?2, ?3, ?4, ?5)
      ON CONFLICT (name) DO UPDATE SET cc = excluded.cc, sms = excluded.sms,
        clock_mhz = excluded.clock_mhz, mem_bytes = excluded.mem_bytes)sql"));
  DLSIM_ASSIGN_OR_RETURN(Statement gpu_id,
                         Statement::Prepare(db, path, "SELECT id FROM gpus WHERE name = ?1"));
  DLSIM_ASSIGN_OR_RETURN(Statement insert_stack, Statement::Prepare(db, path, R"sql(
      INSERT OR IGNORE INTO software_stacks (driver, cuda, cudnn, cublas)
      VALUES (?1, ?2, ?3, ?4))sql"));
  DLSIM_ASSIGN_OR_RETURN(Statement stack_id, Statement::Prepare(db, path, R"sql(
      SELECT id FROM software_stacks
      WHERE driver = ?1 AND cuda = ?2 AND cudnn = ?3 AND cublas = ?4)sql"));
  DLSIM_ASSIGN_OR_RETURN(Statement exists, Statement::Prepare(db, path, R"sql(
      SELECT 1 FROM measurements
      WHERE gpu_id = ?1 AND stack_id = ?2 AND key = ?3 AND algo = ?4)sql"));
  DLSIM_ASSIGN_OR_RETURN(Statement upsert, Statement::Prepare(db, path, R"sql(
      INSERT INTO measurements (gpu_id, stack_id, key, kind, algo, heuristic, fastest,
        median_ms, min_ms, max_ms, p10_ms, p90_ms, reps, workspace_bytes, status,
        kernels, time_utc, record_schema)
      VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)
      ON CONFLICT (gpu_id, stack_id, key, algo) DO UPDATE SET
        heuristic = excluded.heuristic, fastest = excluded.fastest,
        median_ms = excluded.median_ms, min_ms = excluded.min_ms, max_ms = excluded.max_ms,
        p10_ms = excluded.p10_ms, p90_ms = excluded.p90_ms, reps = excluded.reps,
        workspace_bytes = excluded.workspace_bytes, status = excluded.status,
        kernels = excluded.kernels, time_utc = excluded.time_utc,
        record_schema = excluded.record_schema)sql"));
  return Importer(std::move(upsert_gpu), std::move(gpu_id), std::move(insert_stack),
                  std::move(stack_id), std::move(exists), std::move(upsert));
}

Result<int64_t> Importer::SingleId(Statement& stmt) {
  DLSIM_ASSIGN_OR_RETURN(bool row, stmt.Step());
  DLSIM_CHECK_MSG(row, "row just inserted is missing");
  int64_t id = stmt.Int(0);
  stmt.Reset();
  return id;
}

Result<int64_t> Importer::GpuId(const MeasurementRecord& r) {
  auto it = gpu_ids_.find(r.gpu_name);
  if (it != gpu_ids_.end()) return it->second;
  // The GPU's specs come from the first record of this import that names it.
  upsert_gpu_.BindText(1, r.gpu_name);
  upsert_gpu_.BindText(2, r.gpu_cc);
  upsert_gpu_.BindInt(3, r.gpu_sms);
  upsert_gpu_.BindDouble(4, r.gpu_clock_mhz);
  upsert_gpu_.BindDouble(5, r.gpu_mem_bytes);
  DLSIM_RETURN_IF_ERROR(upsert_gpu_.Run());
  upsert_gpu_.Reset();
  gpu_id_.BindText(1, r.gpu_name);
  DLSIM_ASSIGN_OR_RETURN(int64_t id, SingleId(gpu_id_));
  gpu_ids_[r.gpu_name] = id;
  return id;
}

Result<int64_t> Importer::StackId(const MeasurementRecord& r) {
  auto tuple = std::make_tuple(r.driver, r.cuda, r.cudnn, r.cublas);
  auto it = stack_ids_.find(tuple);
  if (it != stack_ids_.end()) return it->second;
  for (Statement* stmt : {&insert_stack_, &stack_id_}) {
    stmt->BindText(1, r.driver);
    stmt->BindText(2, r.cuda);
    stmt->BindText(3, r.cudnn);
    stmt->BindText(4, r.cublas);
  }
  DLSIM_RETURN_IF_ERROR(insert_stack_.Run());
  insert_stack_.Reset();
  DLSIM_ASSIGN_OR_RETURN(int64_t id, SingleId(stack_id_));
  stack_ids_[tuple] = id;
  return id;
}

Status Importer::Add(const MeasurementRecord& r, ImportStats* stats) {
  DLSIM_ASSIGN_OR_RETURN(int64_t gpu_id, GpuId(r));
  DLSIM_ASSIGN_OR_RETURN(int64_t stack_id, StackId(r));
  exists_.BindInt(1, gpu_id);
  exists_.BindInt(2, stack_id);
  exists_.BindText(3, r.key);
  exists_.BindText(4, r.algo);
  DLSIM_ASSIGN_OR_RETURN(bool existed, exists_.Step());
  exists_.Reset();
  Statement& u = upsert_;
  u.BindInt(1, gpu_id);
  u.BindInt(2, stack_id);
  u.BindText(3, r.key);
  u.BindText(4, KindOfKey(r.key));
  u.BindText(5, r.algo);
  u.BindInt(6, r.heuristic ? 1 : 0);
  u.BindInt(7, r.fastest ? 1 : 0);
  u.BindDouble(8, r.median_ms);
  u.BindDouble(9, r.min_ms);
  u.BindDouble(10, r.max_ms);
  u.BindDouble(11, r.p10_ms);
  u.BindDouble(12, r.p90_ms);
  u.BindInt(13, r.reps);
  u.BindDouble(14, r.workspace_bytes);
  u.BindText(15, r.status);
  u.BindText(16, KernelsToJson(r.kernels));
  u.BindText(17, r.time_utc);
  u.BindInt(18, r.schema);
  DLSIM_RETURN_IF_ERROR(u.Run());
  u.Reset();
  ++stats->records;
  ++(existed ? stats->replaced : stats->inserted);
  return Status::Ok();
}

}  // namespace

Result<ImportStats> PerfDb::ImportRecords(const std::vector<MeasurementRecord>& records) {
  Transaction txn(db_.get(), path_);
  DLSIM_RETURN_IF_ERROR(txn.Begin());
  DLSIM_ASSIGN_OR_RETURN(Importer importer, Importer::Create(db_.get(), path_));
  ImportStats stats;
  for (const MeasurementRecord& r : records) {
    DLSIM_RETURN_IF_ERROR(importer.Add(r, &stats));
  }
  DLSIM_RETURN_IF_ERROR(txn.Commit());
  return stats;
}

Result<ImportStats> PerfDb::ImportJsonl(const std::string& path) {
  return ImportJsonl(std::vector<std::string>{path});
}

Result<ImportStats> PerfDb::ImportJsonl(const std::vector<std::string>& paths) {
  // Parse everything first: a bad line anywhere leaves the database as it was.
  std::vector<MeasurementRecord> records;
  std::vector<std::string> warnings;
  for (const std::string& file : paths) {
    DLSIM_ASSIGN_OR_RETURN(JsonlContents contents, ReadRecordsJsonl(file));
    records.insert(records.end(), std::make_move_iterator(contents.records.begin()),
                   std::make_move_iterator(contents.records.end()));
    warnings.insert(warnings.end(), contents.warnings.begin(), contents.warnings.end());
  }
  DLSIM_ASSIGN_OR_RETURN(ImportStats stats, ImportRecords(records));
  stats.files = static_cast<int64_t>(paths.size());
  stats.warnings = std::move(warnings);
  return stats;
}

}  // namespace dlsim
