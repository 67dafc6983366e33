// Reading records back: whole-table queries, per-GPU views for estimation
// (latest software stack only), and summary statistics.
#include <cmath>
#include <cstdio>
#include <initializer_list>

#include <nlohmann/json.hpp>

#include "dlsim/perfdb/perf_db.h"
#include "sqlite_util.h"

namespace dlsim {
namespace {

using perfdb_internal::Statement;

constexpr const char* kSelectRecords = R"sql(
  SELECT g.name, g.cc, g.sms, g.clock_mhz, g.mem_bytes,
         s.driver, s.cuda, s.cudnn, s.cublas,
         m.key, m.algo, m.heuristic, m.fastest,
         m.median_ms, m.min_ms, m.max_ms, m.p10_ms, m.p90_ms, m.reps,
         m.workspace_bytes, m.status, m.kernels, m.time_utc, m.record_schema, m.id
  FROM measurements m
  JOIN gpus g ON g.id = m.gpu_id
  JOIN software_stacks s ON s.id = m.stack_id
)sql";

constexpr const char* kOrderRecords =
    " ORDER BY g.name, s.driver, s.cuda, s.cudnn, s.cublas, m.key, m.algo";

Status ParseKernelsColumn(const std::string& text, std::vector<KernelTime>* out) {
  try {
    for (const auto& k : nlohmann::json::parse(text)) {
      KernelTime kt{k.at("name").get<std::string>()};
      if (k.contains("ms") && !k.at("ms").is_null()) kt.ms = k.at("ms").get<double>();  // absent: a counted record
      out->push_back(std::move(kt));
    }
  } catch (const nlohmann::json::exception& e) {
    return ParseError(std::string("column kernels is not valid JSON: ") + e.what());
  }
  return Status::Ok();
}

// A database is a file anyone can edit: a time column holding text (which
// reads as 0) is refused naming the row, never priced.
Status CheckNumberColumns(const Statement& q, std::initializer_list<std::pair<int, const char*>> cols,
                          const std::string& where) {
  for (const auto& [col, name] : cols) {
    if (!q.IsNull(col) && !q.IsNumber(col)) {
      return ParseError(where + ": column " + name + " holds '" + q.Text(col).substr(0, 40) +
                        "', not a number");
    }
  }
  return Status::Ok();
}

std::string RowWhere(const std::string& path, int64_t id, const std::string& key,
                     const std::string& algo) {
  return path + ": measurement " + std::to_string(id) + " (key '" + key + "', algo " + algo + ")";
}

Result<MeasurementRecord> RowToRecord(const Statement& q, const std::string& path) {
  const std::string where = RowWhere(path, q.Int(24), q.Text(9), q.Text(10));
  DLSIM_RETURN_IF_ERROR(CheckNumberColumns(
      q, {{13, "median_ms"}, {14, "min_ms"}, {15, "max_ms"}, {16, "p10_ms"}, {17, "p90_ms"},
          {18, "reps"}, {19, "workspace_bytes"}},
      where));
  MeasurementRecord r;
  r.gpu_name = q.Text(0);
  r.gpu_cc = q.Text(1);
  r.gpu_sms = q.Int(2);
  r.gpu_clock_mhz = q.Double(3);
  r.gpu_mem_bytes = q.Double(4);
  r.driver = q.Text(5);
  r.cuda = q.Text(6);
  r.cudnn = q.Text(7);
  r.cublas = q.Text(8);
  r.key = q.Text(9);
  r.algo = q.Text(10);
  r.heuristic = q.Int(11) != 0;
  r.fastest = q.Int(12) != 0;
  r.median_ms = q.Double(13);
  r.min_ms = q.Double(14);
  r.max_ms = q.Double(15);
  r.p10_ms = q.Double(16);
  r.p90_ms = q.Double(17);
  r.reps = q.Int(18);
  r.workspace_bytes = q.Double(19);
  r.status = q.Text(20);
  Status st = ParseKernelsColumn(q.Text(21), &r.kernels);
  if (!st.ok()) return st.WithContext(path + ": measurement " + std::to_string(q.Int(24)));
  r.time_utc = q.Text(22);
  r.schema = static_cast<int>(q.Int(23));
  Status values = CheckRecordValues(r);
  if (!values.ok()) return values.WithContext(where);
  return r;
}

}  // namespace

Result<std::vector<MeasurementRecord>> PerfDb::QueryRecords(
    const std::string& where_sql, const std::vector<std::string>& args) const {
  std::string sql = std::string(kSelectRecords) + where_sql + kOrderRecords;
  DLSIM_ASSIGN_OR_RETURN(Statement q, Statement::Prepare(db_.get(), path_, sql));
  for (size_t i = 0; i < args.size(); ++i) q.BindText(static_cast<int>(i) + 1, args[i]);
  std::vector<MeasurementRecord> records;
  for (;;) {
    DLSIM_ASSIGN_OR_RETURN(bool row, q.Step());
    if (!row) break;
    DLSIM_ASSIGN_OR_RETURN(MeasurementRecord r, RowToRecord(q, path_));
    records.push_back(std::move(r));
  }
  return records;
}

Result<std::vector<MeasurementRecord>> PerfDb::AllRecords() const {
  return QueryRecords("", {});
}

Result<std::vector<std::string>> PerfDb::GpuNames() const {
  DLSIM_ASSIGN_OR_RETURN(
      Statement q, Statement::Prepare(db_.get(), path_, "SELECT name FROM gpus ORDER BY name"));
  std::vector<std::string> names;
  for (;;) {
    DLSIM_ASSIGN_OR_RETURN(bool row, q.Step());
    if (!row) break;
    names.push_back(q.Text(0));
  }
  return names;
}

Result<GpuInfo> PerfDb::Gpu(const std::string& gpu_name) const {
  DLSIM_ASSIGN_OR_RETURN(
      Statement q,
      Statement::Prepare(db_.get(), path_,
                         "SELECT name, cc, sms, clock_mhz, mem_bytes FROM gpus WHERE name = ?1"));
  q.BindText(1, gpu_name);
  DLSIM_ASSIGN_OR_RETURN(bool row, q.Step());
  if (!row) return NotFound(path_ + ": no GPU named '" + gpu_name + "' in the database");
  return GpuInfo{q.Text(0), q.Text(1), q.Int(2), q.Double(3), q.Double(4)};
}

Result<std::pair<int64_t, int64_t>> PerfDb::LatestStackIds(const std::string& gpu_name) const {
  DLSIM_ASSIGN_OR_RETURN(Statement q, Statement::Prepare(db_.get(), path_, R"sql(
      SELECT m.gpu_id, m.stack_id FROM measurements m JOIN gpus g ON g.id = m.gpu_id
      WHERE g.name = ?1 ORDER BY m.time_utc DESC, m.stack_id DESC LIMIT 1)sql"));
  q.BindText(1, gpu_name);
  DLSIM_ASSIGN_OR_RETURN(bool row, q.Step());
  if (!row) return NotFound(path_ + ": no measurements for GPU '" + gpu_name + "'");
  return std::make_pair(q.Int(0), q.Int(1));
}

Result<SoftwareStack> PerfDb::LatestStack(const std::string& gpu_name) const {
  DLSIM_ASSIGN_OR_RETURN(auto ids, LatestStackIds(gpu_name));
  DLSIM_ASSIGN_OR_RETURN(
      Statement q,
      Statement::Prepare(db_.get(), path_,
                         "SELECT driver, cuda, cudnn, cublas FROM software_stacks WHERE id = ?1"));
  q.BindInt(1, ids.second);
  DLSIM_ASSIGN_OR_RETURN(bool row, q.Step());
  // The schema's foreign key, which a file written by another program (or
  // damaged) need not keep.
  if (!row) {
    return ParseError(path_ + ": measurements of GPU '" + gpu_name + "' name software stack " +
                      std::to_string(ids.second) + ", which table software_stacks lacks");
  }
  return SoftwareStack{q.Text(0), q.Text(1), q.Text(2), q.Text(3)};
}

Result<std::vector<MeasurementRecord>> PerfDb::RecordsOfGpu(const std::string& gpu_name) const {
  DLSIM_ASSIGN_OR_RETURN(auto ids, LatestStackIds(gpu_name));
  return QueryRecords(" WHERE m.gpu_id = CAST(?1 AS INTEGER) AND m.stack_id = CAST(?2 AS INTEGER)",
                      {std::to_string(ids.first), std::to_string(ids.second)});
}

Result<std::vector<MeasurementRecord>> PerfDb::RecordsOfKind(const std::string& gpu_name,
                                                             KernelKind kind) const {
  DLSIM_ASSIGN_OR_RETURN(auto ids, LatestStackIds(gpu_name));
  return QueryRecords(
      " WHERE m.gpu_id = CAST(?1 AS INTEGER) AND m.stack_id = CAST(?2 AS INTEGER)"
      " AND m.kind = ?3",
      {std::to_string(ids.first), std::to_string(ids.second), KernelKindName(kind)});
}

Result<std::map<std::string, int64_t>> PerfDb::LoadKernelCounts(const std::string& gpu_name) const {
  DLSIM_ASSIGN_OR_RETURN(auto ids, LatestStackIds(gpu_name));
  DLSIM_ASSIGN_OR_RETURN(Statement q, Statement::Prepare(db_.get(), path_, R"sql(
      SELECT key, json_array_length(kernels), id FROM measurements WHERE gpu_id = ?1 AND stack_id = ?2 AND status = 'counted')sql"));
  q.BindInt(1, ids.first);
  q.BindInt(2, ids.second);
  std::map<std::string, int64_t> counts;
  for (;;) {
    DLSIM_ASSIGN_OR_RETURN(bool row, q.Step());
    if (!row) break;
    if (q.IsNull(1) || !q.IsNumber(1)) {  // malformed JSON is an error of the query itself
      return ParseError(path_ + ": measurement " + std::to_string(q.Int(2)) +
                        ": column kernels is not a JSON array");
    }
    counts.emplace_hint(counts.end(), q.Text(0), q.Int(1));
  }
  return counts;
}

Result<TimingTable> PerfDb::LoadTimings(const std::string& gpu_name) const {
  DLSIM_ASSIGN_OR_RETURN(GpuInfo gpu, Gpu(gpu_name));
  DLSIM_ASSIGN_OR_RETURN(auto ids, LatestStackIds(gpu_name));
  // Only the columns a timing needs: no joins, no kernels JSON to parse.
  DLSIM_ASSIGN_OR_RETURN(Statement q, Statement::Prepare(db_.get(), path_, R"sql(
      SELECT key, algo, heuristic, median_ms, p10_ms, p90_ms, id FROM measurements
      WHERE gpu_id = ?1 AND stack_id = ?2 AND status = 'ok')sql"));
  q.BindInt(1, ids.first);
  q.BindInt(2, ids.second);
  std::vector<MeasurementRecord> records;
  for (;;) {
    DLSIM_ASSIGN_OR_RETURN(bool row, q.Step());
    if (!row) break;
    MeasurementRecord r;
    r.key = q.Text(0);
    r.algo = q.Text(1);
    r.heuristic = q.Int(2) != 0;
    r.median_ms = q.Double(3);
    r.p10_ms = q.Double(4);
    r.p90_ms = q.Double(5);
    r.status = "ok";
    const std::string where = RowWhere(path_, q.Int(6), r.key, r.algo);
    DLSIM_RETURN_IF_ERROR(
        CheckNumberColumns(q, {{3, "median_ms"}, {4, "p10_ms"}, {5, "p90_ms"}}, where));
    using Named = std::pair<const char*, double>;
    for (const auto& [name, ms] :
         {Named{"median_ms", r.median_ms}, Named{"p10_ms", r.p10_ms}, Named{"p90_ms", r.p90_ms}}) {
      if (!std::isnan(ms) && !(ms >= 0 && ms <= kMaxRecordMs)) {
        char text[32];
        std::snprintf(text, sizeof(text), "%.6g", ms);
        return ParseError(where + ": column " + name + " holds " + text +
                          " ms, outside [0, 1e6]");
      }
    }
    records.push_back(std::move(r));
  }
  return TimingTable::FromRecords(gpu.name, gpu.sms, records);
}

Result<DbStats> PerfDb::Stats() const {
  DbStats stats;
  const std::pair<const char*, std::map<std::string, int64_t>*> groups[] = {
      {"SELECT g.name, COUNT(*) FROM measurements m JOIN gpus g ON g.id = m.gpu_id "
       "GROUP BY g.name", &stats.per_gpu},
      {"SELECT kind, COUNT(*) FROM measurements GROUP BY kind", &stats.per_kind},
      {"SELECT status, COUNT(*) FROM measurements GROUP BY status", &stats.per_status},
      {"SELECT g.name, COUNT(DISTINCT m.stack_id) FROM measurements m JOIN gpus g "
       "ON g.id = m.gpu_id GROUP BY g.name", &stats.stacks_per_gpu},
  };
  for (const auto& [sql, out] : groups) {
    DLSIM_ASSIGN_OR_RETURN(Statement q, Statement::Prepare(db_.get(), path_, sql));
    for (;;) {
      DLSIM_ASSIGN_OR_RETURN(bool row, q.Step());
      if (!row) break;
      (*out)[q.Text(0)] = q.Int(1);
    }
  }
  for (const auto& [name, count] : stats.per_gpu) stats.records += count;
  DLSIM_ASSIGN_OR_RETURN(
      Statement q, Statement::Prepare(db_.get(), path_,
                                      "SELECT driver, cuda, cudnn, cublas FROM software_stacks "
                                      "ORDER BY id"));
  for (;;) {
    DLSIM_ASSIGN_OR_RETURN(bool row, q.Step());
    if (!row) break;
    stats.stacks.push_back({q.Text(0), q.Text(1), q.Text(2), q.Text(3)});
  }
  DLSIM_ASSIGN_OR_RETURN(Statement f,
                         Statement::Prepare(db_.get(), path_, "SELECT COUNT(*) FROM fits"));
  DLSIM_ASSIGN_OR_RETURN(bool row, f.Step());
  stats.fits = row ? f.Int(0) : 0;
  return stats;
}

}  // namespace dlsim
