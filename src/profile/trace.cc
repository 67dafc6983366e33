// Chrome-trace reading (Kineto layout: kernels are "X" events of category
// "kernel" on the GPU process, the host's cudaLaunchKernel is a "cuda_runtime"
// event carrying the same args.correlation, framework ops are "cpu_op"
// events on the launching thread that enclose the runtime call).
#include "dlsim/profile/trace.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>

#include "dlsim/util/input_file.h"

namespace dlsim {
namespace {

using nlohmann::json;

// Kineto traces of a few model iterations are a few MiB; 1 GiB is far past
// anything the alignment could use.
constexpr int64_t kMaxTraceBytes = int64_t{1} << 30;

bool IsXEvent(const json& e, const char* category) {
  return e.is_object() && e.contains("cat") && e["cat"].is_string() && e["cat"] == category &&
         e.contains("ph") && e["ph"] == "X";
}

bool IsKernelEvent(const json& e) { return IsXEvent(e, "kernel") || IsXEvent(e, "Kernel"); }

bool IsNumber(const json& e, const char* field) { return e.contains(field) && e[field].is_number(); }

// An integer field (ids, streams): `fallback` unless it is an integer JSON
// number (a float such as 4.9e69 does not fit an int64).
int64_t IntField(const json& e, const char* name, int64_t fallback) {
  if (!e.contains(name)) return fallback;
  const json& v = e[name];
  if (v.is_number_unsigned()) return v.get<uint64_t>() > INT64_MAX ? fallback : v.get<int64_t>();
  return v.is_number_integer() ? v.get<int64_t>() : fallback;
}

int64_t IntArg(const json& e, const char* name, int64_t fallback) {
  if (!e.contains("args") || !e["args"].is_object()) return fallback;
  return IntField(e["args"], name, fallback);
}

// A thread key: pid and tid may be numbers or strings in Kineto traces.
std::string ThreadKey(const json& e) {
  return (e.contains("pid") ? e["pid"].dump() : "") + "/" + (e.contains("tid") ? e["tid"].dump() : "");
}

struct HostSpan {
  double ts_us = 0;
  double end_us = 0;
  std::string name;
};

// The innermost cpu_op on the same thread that encloses `ts_us` (ops are
// sorted by start; nested ops start later, so the latest enclosing start wins).
std::string EnclosingOp(const std::vector<HostSpan>& ops, double ts_us) {
  auto it = std::upper_bound(ops.begin(), ops.end(), ts_us,
                             [](double t, const HostSpan& s) { return t < s.ts_us; });
  for (int steps = 0; it != ops.begin() && steps < 64; ++steps) {
    --it;
    if (it->end_us >= ts_us) return it->name;
  }
  return "";
}

struct HostSide {
  std::map<int64_t, double> launch_us;       // correlation -> runtime call start
  std::map<int64_t, std::string> launch_op;  // correlation -> enclosing cpu_op
};

HostSide ReadHostSide(const json& events) {
  std::map<std::string, std::vector<HostSpan>> ops_by_thread;
  for (const json& e : events) {
    if (IsXEvent(e, "cpu_op") && IsNumber(e, "ts") && IsNumber(e, "dur")) {
      const double ts = e["ts"].get<double>();
      const std::string name = e.contains("name") && e["name"].is_string() ? e["name"].get<std::string>() : "";
      ops_by_thread[ThreadKey(e)].push_back({ts, ts + e["dur"].get<double>(), name});
    }
  }
  for (auto& [thread, ops] : ops_by_thread) {
    std::sort(ops.begin(), ops.end(), [](const HostSpan& a, const HostSpan& b) { return a.ts_us < b.ts_us; });
  }
  HostSide host;
  for (const json& e : events) {
    if (!IsXEvent(e, "cuda_runtime") && !IsXEvent(e, "cuda_driver")) continue;
    const int64_t corr = IntArg(e, "correlation", -1);
    if (corr < 0 || !IsNumber(e, "ts")) continue;
    const double ts = e["ts"].get<double>();
    host.launch_us[corr] = ts;
    auto it = ops_by_thread.find(ThreadKey(e));
    if (it != ops_by_thread.end()) host.launch_op[corr] = EnclosingOp(it->second, ts);
  }
  return host;
}

Result<TraceKernel> ReadKernel(const json& e, size_t index, const std::string& origin) {
  const std::string where = origin + ": traceEvents[" + std::to_string(index) + "]";
  if (!IsNumber(e, "ts")) return ParseError(where + ": kernel event without a numeric 'ts'");
  if (!IsNumber(e, "dur")) return ParseError(where + ": kernel event without a numeric 'dur'");
  TraceKernel k;
  k.name = e.contains("name") && e["name"].is_string() ? e["name"].get<std::string>() : "";
  k.start_s = e["ts"].get<double>() * 1e-6;
  k.duration_s = e["dur"].get<double>() * 1e-6;
  if (k.duration_s < 0) return ParseError(where + ": kernel event with a negative 'dur'");
  k.stream = IntArg(e, "stream", IntField(e, "tid", 0));
  k.correlation = IntArg(e, "correlation", -1);
  return k;
}

// Makes times relative to the first kernel's start (Kineto's microsecond
// epochs are large; a table of 4489809.145 s helps nobody).
void Rebase(ProfileTrace* trace) {
  std::stable_sort(trace->kernels.begin(), trace->kernels.end(),
                   [](const TraceKernel& a, const TraceKernel& b) { return a.start_s < b.start_s; });
  if (trace->kernels.empty()) return;
  const double t0 = trace->kernels.front().start_s;
  for (TraceKernel& k : trace->kernels) {
    k.start_s -= t0;
    k.launch_s -= t0;
  }
}

}  // namespace

double ProfileTrace::kernel_time_s() const {
  double total = 0;
  for (const TraceKernel& k : kernels) total += k.duration_s;
  return total;
}

double ProfileTrace::span_s() const {
  double end = 0;
  for (const TraceKernel& k : kernels) end = std::max(end, k.end_s());
  return kernels.empty() ? 0 : end - kernels.front().start_s;
}

Result<ProfileTrace> ParseChromeTrace(const std::string& text, const std::string& origin) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error& e) {
    return ParseError(origin + ": not valid JSON at byte " + std::to_string(e.byte) +
                      " of " + std::to_string(text.size()) + " (a truncated trace?)");
  } catch (const json::exception& e) {  // a number out of range, a bad escape
    return ParseError(origin + ": not a valid trace: " + e.what());
  }
  const json* events = &doc;
  if (doc.is_object()) {
    if (!doc.contains("traceEvents") || !doc["traceEvents"].is_array()) {
      return ParseError(origin + ": not a Chrome trace (no 'traceEvents' array)");
    }
    events = &doc["traceEvents"];
  } else if (!doc.is_array()) {
    return ParseError(origin + ": not a Chrome trace (neither an object nor an event array)");
  }
  ProfileTrace trace;
  trace.origin = origin;
  if (doc.is_object() && doc.contains("deviceProperties") && doc["deviceProperties"].is_array() &&
      !doc["deviceProperties"].empty() && doc["deviceProperties"][0].is_object()) {
    const json& dev = doc["deviceProperties"][0];
    if (dev.contains("name") && dev["name"].is_string()) trace.device = dev["name"].get<std::string>();
  }
  const HostSide host = ReadHostSide(*events);
  for (size_t i = 0; i < events->size(); ++i) {
    const json& e = (*events)[i];
    if (!IsKernelEvent(e)) continue;
    DLSIM_ASSIGN_OR_RETURN(TraceKernel k, ReadKernel(e, i, origin));
    auto launch = host.launch_us.find(k.correlation);
    if (launch != host.launch_us.end()) k.has_launch = true, k.launch_s = launch->second * 1e-6;
    auto op = host.launch_op.find(k.correlation);
    if (op != host.launch_op.end()) k.cpu_op = op->second;
    trace.kernels.push_back(std::move(k));
  }
  if (trace.kernels.empty()) {
    return InvalidArgument(origin + ": " + std::to_string(events->size()) +
                           " trace events but no GPU kernel (cat \"kernel\"); profile with "
                           "activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]");
  }
  Rebase(&trace);
  return trace;
}

Result<ProfileTrace> ReadChromeTrace(const std::string& path) {
  DLSIM_ASSIGN_OR_RETURN(std::string text, ReadInputFile(path, "a trace file", kMaxTraceBytes));
  return ParseChromeTrace(text, path);
}

}  // namespace dlsim
