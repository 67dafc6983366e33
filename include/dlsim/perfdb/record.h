// Measurement records: one JSON object per line, written by dlsim-calibrate
// and read by `dlsim db import` (fields in docs/kernel-keys.md).
#ifndef DLSIM_PERFDB_RECORD_H_
#define DLSIM_PERFDB_RECORD_H_

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "dlsim/util/status.h"

namespace dlsim {

// The record format version this build reads and writes.
inline constexpr int kRecordSchemaVersion = 1;

// One kernel launch of a library call, as CUPTI saw it. A record with
// status "counted" lists its kernels without times (ms NaN).
struct KernelTime {
  std::string name;
  double ms = std::numeric_limits<double>::quiet_NaN();

  bool operator==(const KernelTime& o) const {
    return name == o.name && (ms == o.ms || (ms != ms && o.ms != o.ms));
  }
};

// One measured (key, algorithm) pair on one GPU and software stack.
// Times are NaN, and reps 0, when the record has none (status other than
// "ok"/"noisy": unsupported or failed measurements carry no times).
struct MeasurementRecord {
  int schema = kRecordSchemaVersion;
  std::string gpu_name;
  std::string gpu_cc;
  int64_t gpu_sms = 0;
  double gpu_clock_mhz = 0;
  double gpu_mem_bytes = 0;
  std::string driver;
  std::string cuda;
  std::string cudnn;
  std::string cublas;
  std::string key;
  std::string algo;
  bool heuristic = false;
  bool fastest = false;
  double median_ms = std::numeric_limits<double>::quiet_NaN();
  double min_ms = std::numeric_limits<double>::quiet_NaN();
  double max_ms = std::numeric_limits<double>::quiet_NaN();
  double p10_ms = std::numeric_limits<double>::quiet_NaN();
  double p90_ms = std::numeric_limits<double>::quiet_NaN();
  int64_t reps = 0;
  double workspace_bytes = std::numeric_limits<double>::quiet_NaN();
  // "ok", "noisy", "unsupported", "failed", or "counted": no times, only
  // the kernels one call of the key launches (calibrate/torch_kernel_count.py).
  std::string status;
  std::vector<KernelTime> kernels;
  std::string time_utc;

  // True when the record carries times (status "ok" or "noisy").
  bool has_times() const { return status == "ok" || status == "noisy"; }
  // True when the record lists the kernels one call launches, without times.
  bool is_kernel_count() const { return status == "counted"; }
};

// Parses one JSON line. Errors name the missing or mistyped field. Fields
// median_ms..p90_ms, reps and workspace_bytes are required when status is
// "ok" or "noisy" and optional otherwise; `kernels` is optional (empty),
// and its entries' "ms" is optional when status is "counted".
// The key must parse (ParseKernelKey) and schema must be 1.
Result<MeasurementRecord> ParseRecordJson(const std::string& line);

// The longest time a record may give (1000 s): no single kernel runs longer.
inline constexpr double kMaxRecordMs = 1e6;

// The fastest work rates a record may imply (its key's FLOPs and compulsory
// bytes over median_ms): 1e6 TFLOP/s and 1e6 GB/s, hundreds of times any GPU.
// Dims that each fit int64 can still describe 1e30 FLOP in 0.25 ms.
inline constexpr double kMaxRecordFlopsPerS = 1e18;
inline constexpr double kMaxRecordBytesPerS = 1e15;

// Range checks of a record's numbers, on import and on reading a database:
// times finite in [0, kMaxRecordMs]; with times (ok/noisy), reps >= 1,
// min_ms <= max_ms and median_ms, p10_ms, p90_ms within [min_ms, max_ms];
// workspace_bytes in [0, 1e15]; the key's work over median_ms within
// kMaxRecordFlopsPerS and kMaxRecordBytesPerS. ParseError naming the field.
Status CheckRecordValues(const MeasurementRecord& record);

// One JSON object on one line (no trailing newline), fields in the order of
// docs/kernel-keys.md; absent times (NaN) are left out. Doubles are written
// so that ParseRecordJson(RecordToJson(r)) == r exactly.
std::string RecordToJson(const MeasurementRecord& record);

// Field-by-field equality (NaN equals NaN).
bool SameRecord(const MeasurementRecord& a, const MeasurementRecord& b);

// The records of a JSON-lines file.
struct JsonlContents {
  std::vector<MeasurementRecord> records;
  // "file:line: ..." notes that did not stop the read, e.g. a truncated
  // final line left by a killed calibration run.
  std::vector<std::string> warnings;
};

// Reads a JSON-lines file of records. Blank lines are skipped. A final line
// that does not parse and lacks its closing brace is a truncated write: it
// is dropped with a warning. Any other malformed line is an error naming
// file:line, and nothing is returned.
Result<JsonlContents> ReadRecordsJsonl(const std::string& path);

}  // namespace dlsim

#endif  // DLSIM_PERFDB_RECORD_H_
