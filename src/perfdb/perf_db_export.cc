// Writing the database back out: JSON lines (re-importable, the round trip
// gives identical rows) and CSV (for spreadsheets and pandas).
#include <cmath>
#include <cstdio>
#include <fstream>

#include <nlohmann/json.hpp>

#include "dlsim/perfdb/perf_db.h"
#include "dlsim/util/output_file.h"

namespace dlsim {
namespace {

// Shortest text that reads back as the same double; "" for NaN.
std::string NumberText(double v) {
  if (std::isnan(v)) return "";
  char buf[40];
  for (int precision = 15; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

std::string CsvField(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string CsvRow(const MeasurementRecord& r) {
  nlohmann::ordered_json kernels = nlohmann::ordered_json::array();
  for (const auto& k : r.kernels) kernels.push_back({{"name", k.name}, {"ms", k.ms}});
  const std::string fields[] = {
      r.gpu_name, r.gpu_cc, std::to_string(r.gpu_sms), NumberText(r.gpu_clock_mhz),
      NumberText(r.gpu_mem_bytes), r.driver, r.cuda, r.cudnn, r.cublas, r.key, r.algo,
      r.heuristic ? "true" : "false", r.fastest ? "true" : "false", NumberText(r.median_ms),
      NumberText(r.min_ms), NumberText(r.max_ms), NumberText(r.p10_ms), NumberText(r.p90_ms),
      std::to_string(r.reps), NumberText(r.workspace_bytes), r.status, kernels.dump(),
      r.time_utc, std::to_string(r.schema)};
  std::string line;
  for (const std::string& f : fields) {
    if (!line.empty()) line += ',';
    line += CsvField(f);
  }
  return line;
}

constexpr const char* kCsvHeader =
    "gpu_name,gpu_cc,gpu_sms,gpu_clock_mhz,gpu_mem_bytes,driver,cuda,cudnn,cublas,key,algo,"
    "heuristic,fastest,median_ms,min_ms,max_ms,p10_ms,p90_ms,reps,workspace_bytes,status,"
    "kernels,time_utc,schema";

// A failed export never leaves a half-written file, nor a temporary one,
// and keeps the previous file (WriteFileAtomically).
Status WriteLines(const std::string& path, const std::vector<std::string>& lines) {
  size_t size = 0;
  for (const std::string& line : lines) size += line.size() + 1;
  std::string bytes;
  bytes.reserve(size);
  for (const std::string& line : lines) (bytes += line) += '\n';
  return WriteFileAtomically(path, bytes);
}

}  // namespace

Status PerfDb::ExportJsonl(const std::string& path) const {
  auto records = AllRecords();
  if (!records.ok()) return records.status();
  std::vector<std::string> lines;
  lines.reserve(records->size());
  for (const auto& r : *records) lines.push_back(RecordToJson(r));
  return WriteLines(path, lines);
}

Status PerfDb::ExportCsv(const std::string& path) const {
  auto records = AllRecords();
  if (!records.ok()) return records.status();
  std::vector<std::string> lines{kCsvHeader};
  for (const auto& r : *records) lines.push_back(CsvRow(r));
  return WriteLines(path, lines);
}

}  // namespace dlsim
