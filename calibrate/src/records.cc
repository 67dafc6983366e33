#include "records.h"

#include <ctime>

namespace dlcal {

std::string CudaVersionText(int v) {
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

std::string LibVersionText(int v) {
  return std::to_string(v / 10000) + "." + std::to_string((v / 100) % 100) + "." +
         std::to_string(v % 100);
}

std::string UtcNow() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

void AddHeader(const DeviceInfo& info, JsonObject* obj) {
  obj->Int("schema", kRecordSchema)
      .Str("gpu_name", info.name)
      .Str("gpu_cc", info.cc)
      .Int("gpu_sms", info.sms)
      .Num("gpu_clock_mhz", info.clock_mhz)
      .Num("gpu_mem_bytes", info.mem_bytes)
      .Str("driver", info.driver)
      .Str("cuda", info.cuda)
      .Str("cudnn", info.cudnn)
      .Str("cublas", info.cublas);
}

std::string RecordLine(const DeviceInfo& info, const std::string& key, const AlgoResult& r,
                       const std::string& time_utc, int key_records) {
  JsonObject o;
  AddHeader(info, &o);
  o.Str("key", key).Str("algo", r.algo).Bool("heuristic", r.heuristic).Bool("fastest", r.fastest);
  const bool timed = r.status.ok() && r.has_times;
  if (timed) {
    o.Num("median_ms", r.stats.median_ms)
        .Num("min_ms", r.stats.min_ms)
        .Num("max_ms", r.stats.max_ms)
        .Num("p10_ms", r.stats.p10_ms)
        .Num("p90_ms", r.stats.p90_ms)
        .Int("reps", r.reps);
  }
  o.Num("workspace_bytes", r.workspace_bytes);
  std::string status = timed ? (r.noisy ? "noisy" : "ok") : r.status.RecordStatus();
  if (!r.status.ok() || (!timed && status == "ok")) {
    status = r.status.ok() ? "failed" : status;
  }
  o.Str("status", status);
  std::string kernels = "[";
  for (size_t i = 0; i < r.kernels.size(); ++i) {
    if (i) kernels += ", ";
    kernels += "{\"name\": \"" + JsonEscape(r.kernels[i].name) +
               "\", \"ms\": " + JsonNumber(r.kernels[i].ms) + "}";
  }
  o.Raw("kernels", kernels + "]");
  o.Str("time_utc", time_utc);
  if (timed) {
    o.Int("launches_per_rep", r.launches_per_rep).Int("copies", r.copies).Str("timing",
                                                                                r.timing_mode);
  }
  if (!r.status.ok()) o.Str("error", r.status.message());
  if (key_records > 0) o.Int("key_records", key_records);
  return o.Text() + "\n";
}

std::string KeyRecords(const DeviceInfo& info, const std::string& key,
                       const std::vector<AlgoResult>& results, const Status& key_status,
                       const std::string& time_utc) {
  std::string lines;
  const int group = results.empty() ? 1 : static_cast<int>(results.size());
  for (const auto& r : results) lines += RecordLine(info, key, r, time_utc, group);
  if (results.empty()) {
    AlgoResult r;
    r.status = key_status.ok() ? Failed("no result") : key_status;
    lines += RecordLine(info, key, r, time_utc, group);
  }
  return lines;
}

}  // namespace dlcal
