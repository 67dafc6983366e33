// JSON form of a measurement record (docs/kernel-keys.md, "Measurement
// records"). nlohmann-json stays inside src/perfdb.
#include "dlsim/perfdb/record.h"

#include <cmath>
#include <cstdio>
#include <limits>

#include <nlohmann/json.hpp>

#include "dlsim/kernel/kernel_call.h"
#include "kernel/work.h"

namespace dlsim {
namespace {

using nlohmann::json;

// Field readers: each returns a Status naming the field on a missing or
// mistyped value. `required` false leaves *out untouched when absent.
Status ReadString(const json& j, const char* field, std::string* out) {
  auto it = j.find(field);
  if (it == j.end()) return ParseError(std::string("missing field '") + field + "'");
  if (!it->is_string()) {
    return ParseError(std::string("field '") + field + "' must be a string, got " +
                      it->type_name());
  }
  *out = it->get<std::string>();
  return Status::Ok();
}

Status ReadInt(const json& j, const char* field, bool required, int64_t* out) {
  auto it = j.find(field);
  if (it == j.end()) {
    return required ? ParseError(std::string("missing field '") + field + "'")
                    : Status::Ok();
  }
  if (!it->is_number_integer()) {
    return ParseError(std::string("field '") + field + "' must be an integer, got " +
                      (it->is_number() ? std::string("a fraction") : it->type_name()));
  }
  // 2^63 and above arrive as unsigned; get<int64_t>() would wrap them negative.
  if (it->is_number_unsigned() &&
      it->get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    return ParseError(std::string("field '") + field + "' is out of range (more than 2^63 - 1), got " +
                      it->dump());
  }
  *out = it->get<int64_t>();
  if (*out < 0) {
    return ParseError(std::string("field '") + field + "' must be >= 0, got " +
                      std::to_string(*out));
  }
  return Status::Ok();
}

Status ReadNumber(const json& j, const char* field, bool required, double* out) {
  auto it = j.find(field);
  if (it == j.end() || (!required && it->is_null())) {
    return required ? ParseError(std::string("missing field '") + field + "'")
                    : Status::Ok();
  }
  if (!it->is_number()) {
    return ParseError(std::string("field '") + field + "' must be a number, got " +
                      it->type_name());
  }
  *out = it->get<double>();
  if (!std::isfinite(*out) || *out < 0) {  // 1e999 parses as infinity
    return ParseError(std::string("field '") + field + "' must be a finite number >= 0, got " +
                      it->dump());
  }
  return Status::Ok();
}

Status ReadBool(const json& j, const char* field, bool* out) {
  auto it = j.find(field);
  if (it == j.end()) return ParseError(std::string("missing field '") + field + "'");
  if (!it->is_boolean()) {
    return ParseError(std::string("field '") + field + "' must be true or false, got " +
                      it->type_name());
  }
  *out = it->get<bool>();
  return Status::Ok();
}

Status ReadKernels(const json& j, bool times_required, std::vector<KernelTime>* out) {
  auto it = j.find("kernels");
  if (it == j.end() || it->is_null()) return Status::Ok();
  if (!it->is_array()) return ParseError("field 'kernels' must be an array");
  for (size_t i = 0; i < it->size(); ++i) {
    const json& k = (*it)[i];
    std::string where = "kernels[" + std::to_string(i) + "]";
    if (!k.is_object()) return ParseError("field '" + where + "' must be an object");
    KernelTime kt;
    DLSIM_RETURN_IF_ERROR(ReadString(k, "name", &kt.name).WithContext(where));
    DLSIM_RETURN_IF_ERROR(ReadNumber(k, "ms", times_required, &kt.ms).WithContext(where));
    out->push_back(std::move(kt));
  }
  return Status::Ok();
}

Status ReadGpuAndSoftware(const json& j, MeasurementRecord* r) {
  DLSIM_RETURN_IF_ERROR(ReadString(j, "gpu_name", &r->gpu_name));
  DLSIM_RETURN_IF_ERROR(ReadString(j, "gpu_cc", &r->gpu_cc));
  DLSIM_RETURN_IF_ERROR(ReadInt(j, "gpu_sms", true, &r->gpu_sms));
  DLSIM_RETURN_IF_ERROR(ReadNumber(j, "gpu_clock_mhz", true, &r->gpu_clock_mhz));
  DLSIM_RETURN_IF_ERROR(ReadNumber(j, "gpu_mem_bytes", true, &r->gpu_mem_bytes));
  DLSIM_RETURN_IF_ERROR(ReadString(j, "driver", &r->driver));
  DLSIM_RETURN_IF_ERROR(ReadString(j, "cuda", &r->cuda));
  DLSIM_RETURN_IF_ERROR(ReadString(j, "cudnn", &r->cudnn));
  return ReadString(j, "cublas", &r->cublas);
}

Status ReadTimes(const json& j, MeasurementRecord* r) {
  const bool req = r->has_times();
  DLSIM_RETURN_IF_ERROR(ReadNumber(j, "median_ms", req, &r->median_ms));
  DLSIM_RETURN_IF_ERROR(ReadNumber(j, "min_ms", req, &r->min_ms));
  DLSIM_RETURN_IF_ERROR(ReadNumber(j, "max_ms", req, &r->max_ms));
  DLSIM_RETURN_IF_ERROR(ReadNumber(j, "p10_ms", req, &r->p10_ms));
  DLSIM_RETURN_IF_ERROR(ReadNumber(j, "p90_ms", req, &r->p90_ms));
  DLSIM_RETURN_IF_ERROR(ReadInt(j, "reps", req, &r->reps));
  return ReadNumber(j, "workspace_bytes", req, &r->workspace_bytes);
}

Status ReadRecord(const json& j, MeasurementRecord* r) {
  if (!j.is_object()) return ParseError("a record must be a JSON object");
  int64_t schema = 0;
  DLSIM_RETURN_IF_ERROR(ReadInt(j, "schema", true, &schema));
  if (schema != kRecordSchemaVersion) {
    return Unsupported("field 'schema': record format " + std::to_string(schema) +
                       " is not supported (this dlsim reads " +
                       std::to_string(kRecordSchemaVersion) + ")");
  }
  r->schema = static_cast<int>(schema);
  DLSIM_RETURN_IF_ERROR(ReadGpuAndSoftware(j, r));
  DLSIM_RETURN_IF_ERROR(ReadString(j, "key", &r->key));
  auto parsed = ParseKernelKey(r->key);
  if (!parsed.ok()) return parsed.status().WithContext("field 'key'");
  DLSIM_RETURN_IF_ERROR(ReadString(j, "algo", &r->algo));
  DLSIM_RETURN_IF_ERROR(ReadBool(j, "heuristic", &r->heuristic));
  DLSIM_RETURN_IF_ERROR(ReadBool(j, "fastest", &r->fastest));
  DLSIM_RETURN_IF_ERROR(ReadString(j, "status", &r->status));
  if (r->status != "ok" && r->status != "noisy" && r->status != "unsupported" &&
      r->status != "failed" && r->status != "counted") {
    return ParseError("field 'status': '" + r->status +
                      "' is not ok, noisy, unsupported, failed or counted");
  }
  DLSIM_RETURN_IF_ERROR(ReadTimes(j, r));
  DLSIM_RETURN_IF_ERROR(ReadKernels(j, !r->is_kernel_count(), &r->kernels));
  DLSIM_RETURN_IF_ERROR(CheckRecordValues(*r));
  return ReadString(j, "time_utc", &r->time_utc);
}

std::string FormatMs(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.6g", v);
  return buf;
}

bool SameNumber(double a, double b) {
  return a == b || (std::isnan(a) && std::isnan(b));
}

}  // namespace

Status CheckRecordValues(const MeasurementRecord& r) {
  auto in_range = [](const char* field, double ms) -> Status {
    if (std::isnan(ms)) return Status::Ok();
    if (!(ms >= 0 && ms <= kMaxRecordMs)) {
      return ParseError(std::string("field '") + field + "': " + FormatMs(ms) +
                        " ms is outside [0, " + FormatMs(kMaxRecordMs) + "]");
    }
    return Status::Ok();
  };
  const std::pair<const char*, double> times[] = {{"median_ms", r.median_ms}, {"min_ms", r.min_ms},
                                                  {"max_ms", r.max_ms},       {"p10_ms", r.p10_ms},
                                                  {"p90_ms", r.p90_ms}};
  for (const auto& [field, ms] : times) DLSIM_RETURN_IF_ERROR(in_range(field, ms));
  for (size_t i = 0; i < r.kernels.size(); ++i) {
    const std::string field = "kernels[" + std::to_string(i) + "].ms";
    DLSIM_RETURN_IF_ERROR(in_range(field.c_str(), r.kernels[i].ms));
  }
  if (!r.has_times()) return Status::Ok();
  if (std::isnan(r.median_ms)) return ParseError("field 'median_ms' is missing");
  if (r.reps < 1) {
    return ParseError("field 'reps' must be >= 1 for a record with times, got " +
                      std::to_string(r.reps));
  }
  if (r.min_ms > r.max_ms) {
    return ParseError("field 'min_ms': " + FormatMs(r.min_ms) + " is more than max_ms " +
                      FormatMs(r.max_ms));
  }
  for (const auto& [field, ms] : {times[0], times[3], times[4]}) {
    if (!std::isnan(ms) && (ms < r.min_ms || ms > r.max_ms)) {
      return ParseError(std::string("field '") + field + "': " + FormatMs(ms) +
                        " is outside [min_ms, max_ms] = [" + FormatMs(r.min_ms) + ", " +
                        FormatMs(r.max_ms) + "]");
    }
  }
  if (!std::isnan(r.workspace_bytes) && !(r.workspace_bytes >= 0 && r.workspace_bytes <= 1e15)) {
    return ParseError("field 'workspace_bytes': " + FormatMs(r.workspace_bytes) +
                      " is outside [0, 1e15]");
  }
  // The key's work done in median_ms must be physically possible (keys whose
  // kind has no work formula are not checked here).
  if (r.median_ms > 0) {
    auto parsed = ParseKernelKey(r.key);
    auto work = parsed.ok() ? WorkOfKey(*parsed) : Result<KeyWork>(parsed.status());
    if (work.ok()) {
      const double s = r.median_ms * 1e-3;
      const double tflops = work->flops / s / 1e12;
      const double gbs = work->bytes / s / 1e9;
      if (!(tflops <= kMaxRecordFlopsPerS / 1e12)) {
        return ParseError("field 'key': " + FormatMs(work->flops) + " FLOP in median_ms " +
                          FormatMs(r.median_ms) + " is " + FormatMs(tflops) +
                          " TFLOP/s, more than the limit of " +
                          FormatMs(kMaxRecordFlopsPerS / 1e12) + " (absurd dims?)");
      }
      if (!(gbs <= kMaxRecordBytesPerS / 1e9)) {
        return ParseError("field 'key': " + FormatMs(work->bytes) + " bytes in median_ms " +
                          FormatMs(r.median_ms) + " is " + FormatMs(gbs) +
                          " GB/s, more than the limit of " +
                          FormatMs(kMaxRecordBytesPerS / 1e9) + " (absurd dims?)");
      }
    }
  }
  return Status::Ok();
}

Result<MeasurementRecord> ParseRecordJson(const std::string& line) {
  json j;
  try {
    j = json::parse(line);
  } catch (const json::exception& e) {
    return ParseError(std::string("invalid JSON: ") + e.what());
  }
  MeasurementRecord record;
  DLSIM_RETURN_IF_ERROR(ReadRecord(j, &record));
  return record;
}

std::string RecordToJson(const MeasurementRecord& r) {
  nlohmann::ordered_json j;
  j["schema"] = r.schema;
  j["gpu_name"] = r.gpu_name;
  j["gpu_cc"] = r.gpu_cc;
  j["gpu_sms"] = r.gpu_sms;
  j["gpu_clock_mhz"] = r.gpu_clock_mhz;
  j["gpu_mem_bytes"] = r.gpu_mem_bytes;
  j["driver"] = r.driver;
  j["cuda"] = r.cuda;
  j["cudnn"] = r.cudnn;
  j["cublas"] = r.cublas;
  j["key"] = r.key;
  j["algo"] = r.algo;
  j["heuristic"] = r.heuristic;
  j["fastest"] = r.fastest;
  const std::pair<const char*, double> times[] = {
      {"median_ms", r.median_ms}, {"min_ms", r.min_ms}, {"max_ms", r.max_ms},
      {"p10_ms", r.p10_ms},       {"p90_ms", r.p90_ms}};
  for (const auto& [name, value] : times) {
    if (!std::isnan(value)) j[name] = value;
  }
  if (r.reps > 0 || r.has_times()) j["reps"] = r.reps;
  if (!std::isnan(r.workspace_bytes)) j["workspace_bytes"] = r.workspace_bytes;
  j["status"] = r.status;
  j["kernels"] = nlohmann::ordered_json::array();
  for (const auto& k : r.kernels) {
    nlohmann::ordered_json kernel = {{"name", k.name}};
    if (!std::isnan(k.ms)) kernel["ms"] = k.ms;
    j["kernels"].push_back(std::move(kernel));
  }
  j["time_utc"] = r.time_utc;
  return j.dump();
}

bool SameRecord(const MeasurementRecord& a, const MeasurementRecord& b) {
  return a.schema == b.schema && a.gpu_name == b.gpu_name && a.gpu_cc == b.gpu_cc &&
         a.gpu_sms == b.gpu_sms && a.gpu_clock_mhz == b.gpu_clock_mhz &&
         a.gpu_mem_bytes == b.gpu_mem_bytes && a.driver == b.driver && a.cuda == b.cuda &&
         a.cudnn == b.cudnn && a.cublas == b.cublas && a.key == b.key &&
         a.algo == b.algo && a.heuristic == b.heuristic && a.fastest == b.fastest &&
         SameNumber(a.median_ms, b.median_ms) && SameNumber(a.min_ms, b.min_ms) &&
         SameNumber(a.max_ms, b.max_ms) && SameNumber(a.p10_ms, b.p10_ms) &&
         SameNumber(a.p90_ms, b.p90_ms) && a.reps == b.reps &&
         SameNumber(a.workspace_bytes, b.workspace_bytes) && a.status == b.status &&
         a.kernels == b.kernels && a.time_utc == b.time_utc;
}

}  // namespace dlsim
