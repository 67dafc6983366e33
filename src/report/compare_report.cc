#include "dlsim/report/compare_report.h"

#include <cstdio>
#include <nlohmann/json.hpp>

#include "dlsim/report/report.h"

namespace dlsim {
namespace {

using nlohmann::json;

std::string Join(const std::vector<std::string>& items, const char* sep, size_t max_items) {
  std::string out;
  for (size_t i = 0; i < items.size() && i < max_items; ++i) out += (i ? sep : "") + items[i];
  if (items.size() > max_items) out += std::string(sep) + "+" + std::to_string(items.size() - max_items) + " more";
  return out;
}

std::string Ratio(double measured_s, double estimated_s) {
  if (estimated_s <= 0 || measured_s <= 0) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2fx", measured_s / estimated_s);
  return buf;
}


void WriteSummary(std::ostream& out, const Comparison& c) {
  char buf[512];
  out << "model " << c.model << " on " << c.machine << " vs trace " << c.trace;
  if (!c.device.empty()) out << " (" << c.device << ")";
  out << "\n";
  std::snprintf(buf, sizeof buf,
                "%d iteration(s), %lld kernels; %.1f%% of kernel time aligned to layers "
                "(%.1f%% in calls the lowering expects, %.1f%% batch norm the export folded); "
                "%.1f%% attributed to a neighbouring layer\n",
                c.iterations, static_cast<long long>(c.kernel_count), 100 * c.aligned_share(),
                100 * c.expected_share(), 100 * (c.aligned_share() - c.expected_share()),
                100 * c.coverage());
  out << buf;
  std::snprintf(buf, sizeof buf,
                "measured GPU time %s per iteration, estimated %s (one stream), ratio %s; "
                "device idle %s per iteration\n\n",
                FormatTime(c.measured_gpu_s()).c_str(), FormatTime(c.estimated_gpu_s).c_str(),
                Ratio(c.measured_gpu_s(), c.estimated_gpu_s).c_str(),
                FormatTime(c.idle_s / std::max(c.iterations, 1)).c_str());
  out << buf;
}

void WriteFindings(std::ostream& out, const Comparison& c) {
  out << "\nfindings (per iteration, largest first):\n";
  if (c.findings.empty()) out << "  none\n";
  int i = 0;
  for (const Finding& f : c.findings) {
    char buf[768];
    std::snprintf(buf, sizeof buf, "%3d. %10s  %-13s %s\n", ++i, FormatTime(f.time_s).c_str(),
                  f.kind.c_str(), f.title.c_str());
    out << buf << "                 layers: " << Join(f.layers, ", ", 6) << "\n";
  }
}

}  // namespace

void WriteComparisonTable(std::ostream& out, const Comparison& c, int max_rows) {
  WriteSummary(out, c);
  char buf[512];
  std::snprintf(buf, sizeof buf, "%-40s %-14s %10s %10s %7s %9s %10s %10s  %s\n", "layer", "op",
                "estimated", "measured", "ratio", "kernels", "extra", "gap", "flags");
  out << buf;
  int rows = 0;
  for (const LayerComparison& l : c.layers) {
    if (max_rows > 0 && rows++ >= max_rows) break;
    char kernels[32];
    std::snprintf(kernels, sizeof kernels, "%.0f/%d", l.kernels, l.expected_calls);
    std::snprintf(buf, sizeof buf, "%-40.40s %-14.14s %10s %10s %7s %9s %10s %10s  %s\n",
                  l.name.c_str(), l.op_type.c_str(), FormatTime(l.estimated_s).c_str(),
                  FormatTime(l.measured_s).c_str(), Ratio(l.measured_s, l.estimated_s).c_str(),
                  kernels, FormatTime(l.extra_s).c_str(), FormatTime(l.gap_s).c_str(),
                  Join(l.flags, ",", 8).c_str());
    out << buf;
  }
  WriteFindings(out, c);
}

std::string ComparisonToJson(const Comparison& c) {
  json layers = json::array();
  for (const LayerComparison& l : c.layers) {
    json calls = json::array();
    for (const CallComparison& cc : l.calls) {
      calls.push_back({{"kind", cc.kind}, {"key", cc.key}, {"source", cc.source},
                       {"estimated_ms", cc.estimated_s * 1e3},
                       {"measured_ms", cc.measured_s * 1e3}, {"kernels", cc.kernels},
                       {"algo", cc.algo}, {"resident_input_bytes", cc.resident_input_bytes}});
    }
    layers.push_back({{"name", l.name}, {"op_type", l.op_type},
                      {"estimated_ms", l.estimated_s * 1e3}, {"measured_ms", l.measured_s * 1e3},
                      {"expected_kernel_ms", l.expected_kernel_s * 1e3},
                      {"extra_ms", l.extra_s * 1e3}, {"gap_ms", l.gap_s * 1e3},
                      {"kernels", l.kernels}, {"expected_calls", l.expected_calls},
                      {"missing_calls", l.missing_calls}, {"iterations", l.iterations},
                      {"extra_kernels", l.extra_kernels}, {"flags", l.flags},
                      {"calls", std::move(calls)}});
  }
  json findings = json::array();
  for (const Finding& f : c.findings) {
    findings.push_back({{"kind", f.kind}, {"title", f.title}, {"time_ms", f.time_s * 1e3},
                        {"layers", f.layers}});
  }
  json j = {{"model", c.model}, {"machine", c.machine}, {"trace", c.trace},
            {"device", c.device}, {"iterations", c.iterations},
            {"kernel_count", c.kernel_count}, {"kernel_time_ms", c.kernel_time_s * 1e3},
            {"attributed_ms", c.attributed_s * 1e3}, {"expected_ms", c.expected_s * 1e3},
            {"coverage", c.coverage()}, {"expected_share", c.expected_share()},
            {"explained_ms", c.explained_s * 1e3}, {"aligned_share", c.aligned_share()},
            {"measured_gpu_ms", c.measured_gpu_s() * 1e3},
            {"estimated_gpu_ms", c.estimated_gpu_s * 1e3}, {"idle_ms", c.idle_s * 1e3},
            {"span_ms", c.span_s * 1e3}, {"findings", std::move(findings)},
            {"layers", std::move(layers)}};
  return j.dump(2);
}

void WriteComparisonCsv(std::ostream& out, const Comparison& c) {
  out << "model,machine,batch,dtype,mode,layer,op_type,estimated_ms,measured_ms,ratio,"
         "expected_kernel_ms,extra_ms,gap_ms,kernels,expected_calls,missing_calls,flags\n";
  const std::string head = CsvField(c.model) + "," + CsvField(c.machine) + "," +
                           std::to_string(c.batch) + "," + CsvField(PrecisionName(c.precision)) + "," + ModeName(c.mode) + ",";
  for (const LayerComparison& l : c.layers) {
    char buf[256];
    std::snprintf(buf, sizeof buf, ",%.6f,%.6f,%.4f,%.6f,%.6f,%.6f,%.2f,%d,%d,", l.estimated_s * 1e3,
                  l.measured_s * 1e3, l.estimated_s > 0 ? l.measured_s / l.estimated_s : 0.0,
                  l.expected_kernel_s * 1e3, l.extra_s * 1e3, l.gap_s * 1e3, l.kernels,
                  l.expected_calls, l.missing_calls);
    out << head << CsvField(l.name) << "," << CsvField(l.op_type) << buf
        << CsvField(Join(l.flags, ";", 99)) << "\n";
  }
}

}  // namespace dlsim
