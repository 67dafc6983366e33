#include "profile.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace dlcal {
namespace {

std::string Fmt(const char* fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

// "12.3" for times: one decimal, or three under 1 ms.
std::string Ms(double ms) { return Fmt(ms < 1 ? "%.3f" : "%.1f", ms); }

// The algorithm's short name: what follows "_ALGO_", else the whole name.
std::string ShortAlgo(const std::string& algo) {
  size_t at = algo.rfind("_ALGO_");
  return at == std::string::npos ? algo : algo.substr(at + 6);
}

}  // namespace

bool ProfileFromEnv() {
  const char* v = std::getenv("DLSIM_CALIBRATE_PROFILE");
  return v != nullptr && *v != '\0' && std::strcmp(v, "0") != 0;
}

std::string AlgoProfileLine(const AlgoResult& r) {
  const PhaseTimes& p = r.phases;
  double known = p.ws_query_ms + p.ws_alloc_ms + p.warmup_ms + p.estimate_ms + p.capture_ms +
                 p.instantiate_ms + p.upload_ms + p.regions_ms + p.trace_ms;
  std::string s = "#   " + ShortAlgo(r.algo) + ": total " + Ms(p.total_ms) + " ms = ws query " +
                  Ms(p.ws_query_ms) + " + alloc " + Ms(p.ws_alloc_ms) + " (" +
                  Fmt("%.3g", r.workspace_bytes) + " B) + warm-up " + Ms(p.warmup_ms) +
                  " (first call " + Ms(p.first_call_ms) + ") + estimate " + Ms(p.estimate_ms) +
                  " (call " + Fmt("%.4g", p.call_ms) + " ms, enqueue " + Ms(p.enqueue_ms) +
                  " ms)";
  if (p.graph_nodes > 0 || p.capture_ms > 0) {
    s += " + capture " + Ms(p.capture_ms) + " (" + std::to_string(p.graph_calls) + " of " +
         std::to_string(p.cycle_calls) + " calls, " + std::to_string(p.graph_nodes) +
         " nodes in " + std::to_string(p.graphs) + " graphs) + instantiate " +
         Ms(p.instantiate_ms) + " + upload " + Ms(p.upload_ms);
  }
  s += " + regions " + Ms(p.regions_ms) + " (" + std::to_string(p.region_passes) + " x " +
       std::to_string(r.reps) + " x " + std::to_string(r.launches_per_rep) + " " +
       (r.timing_mode.empty() ? "-" : r.timing_mode) + ") + trace " + Ms(p.trace_ms) +
       " + other " + Ms(p.total_ms - known) + "; " +
       (r.status.ok() ? (r.noisy ? "noisy" : "ok") : r.status.RecordStatus());
  return s;
}

std::string KeyProfileLine(const std::string& key, const KeyPhases& k, double algos_ms) {
  return "# profile " + key + ": total " + Ms(k.total_ms) + " ms = setup " + Ms(k.setup_ms) +
         " + enumerate " + Ms(k.enumerate_ms) + " + workspace list " + Ms(k.ws_list_ms) +
         " (" + std::to_string(k.candidates) + " algorithms) + buffers " + Ms(k.buffers_ms) +
         " (" + std::to_string(k.copies) + " copies) + algorithms " + Ms(algos_ms);
}

}  // namespace dlcal
