// The HTML report's summary, pricing-source and warning sections.
#include <cstdint>
#include <cstdio>

#include "dlsim/report/report.h"
#include "html_sections.h"
#include "svg_charts.h"

namespace dlsim::html {
namespace {

// 25557032 -> "25,557,032".
std::string Grouped(int64_t n) {
  const uint64_t magnitude = n < 0 ? 0 - static_cast<uint64_t>(n) : static_cast<uint64_t>(n);
  std::string digits = std::to_string(magnitude), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return (n < 0 ? "-" : "") + out;
}

std::string Throughput(const Estimate& e) {
  if (e.batch <= 0 || e.gpu_time_s <= 0) return "";
  char buf[64];
  std::snprintf(buf, sizeof buf, ", %.0f samples/s", static_cast<double>(e.batch) / e.gpu_time_s);
  return buf;
}

std::string MemoryRows(const Estimate& e, const Machine& machine) {
  const MemoryFootprint& m = e.memory;
  std::string total = FormatBytes(m.total_bytes());
  if (machine.device.memory_bytes > 0) {
    total += " of " + FormatBytes(machine.device.memory_bytes) + " device memory (" +
             Percent(m.total_bytes(), machine.device.memory_bytes) + ")";
  }
  return Row("memory footprint (peak)", total) +
         Row("", "weights " + FormatBytes(m.weights_bytes) + ", gradients " +
                     FormatBytes(m.gradients_bytes) + ", optimizer state " +
                     FormatBytes(m.optimizer_state_bytes) + ", activations " +
                     FormatBytes(m.activations_bytes) + ", workspace " +
                     FormatBytes(m.workspace_bytes));
}

std::string SourceColor(const std::string& source) {
  if (source == "measured") return "#59a14f";
  if (source == "fitted") return "#4e79a7";
  if (source == "scaled") return "#f28e2b";
  if (source == "roofline") return "#e15759";
  return "#bab0ac";
}

std::string SourceTable(const Estimate& e) {
  std::map<std::string, int> layers;
  for (const LayerEstimate& l : e.layers) {
    if (!l.costs.empty()) ++layers[CostSourceName(l.source())];
  }
  std::string s =
      "<table class=\"list\" style=\"width:auto\"><thead><tr><th>source</th>"
      "<th class=\"num\">share of kernel time</th><th class=\"num\">layers mostly "
      "priced by it</th></tr></thead><tbody>";
  for (const auto& [source, share] : e.source_share) {
    s += "<tr><td>" + svg::Escape(source) + "</td><td class=\"num\">" + Percent(share, 1) +
         "</td><td class=\"num\">" + std::to_string(layers[source]) + "</td></tr>";
  }
  return s + "</tbody></table>";
}

std::string FileRows(const Machine& machine, bool analysis) {
  const CalibrationSpec& c = machine.calibration;
  std::string s =
      Row("machine file", machine.source_path.empty() ? "(built in)" : machine.source_path);
  s += Row("performance database",
           c.perf_db.empty() ? "none: calls are priced from the specs"
                             : c.perf_db + (c.db_gpu.empty() ? "" : " (GPU " + c.db_gpu + ")"));
  if (!c.scale_from.empty()) {
    s += Row(c.perf_db.empty() ? "scaled from" : "what the database lacks, scaled from", c.scale_from);
  }
  if (analysis) s += Row("algorithm database", c.algorithm_db.empty() ? "none" : c.algorithm_db);
  for (const auto& [field, source] : machine.sources) s += Row(field, source);
  return s;
}

}  // namespace

std::string SummarySection(const Estimate& e, const Machine& machine) {
  std::string s = "<section id=\"summary\"><h2>Summary</h2><table class=\"kv\">";
  s += Row("model", e.model);
  s += Row("machine",
           machine.name + (machine.description.empty() ? "" : ": " + machine.description));
  s += Row("batch, dtype, mode", std::to_string(e.batch) + ", " + PrecisionName(e.precision) + ", " + ModeName(e.mode));
  s += Row("GPU time (one stream)", FormatTime(e.gpu_time_s) + Throughput(e));
  s += Row("P10\u2013P90 band", FormatTime(e.p10_s) + " \u2013 " + FormatTime(e.p90_s));
  s += Row("critical path (concurrent streams)", FormatTime(e.critical_path_s) + " (" +
                                                     Percent(e.critical_path_s, e.gpu_time_s) +
                                                     " of one stream)");
  s += Row("eager (framework, op by op)", FormatTime(e.eager_s) + " (host dispatch " +
                                              FormatTime(e.host_s) +
                                              (e.host_s > e.gpu_time_s ? ": host-bound)" : ")"));
  s += Row("work", FormatFlops(e.flops) + ", " + FormatBytes(e.bytes) + " moved, " +
                       (e.gpu_time_s > 0 ? FormatFlops(e.flops / e.gpu_time_s) + "/s achieved"
                                         : std::string("-")));
  s += Row("kernels, parameters",
           Grouped(e.kernel_count) + " kernels, " + Grouped(e.parameter_count) + " parameters");
  s += MemoryRows(e, machine);
  const DataParallelStep& dp = e.data_parallel;
  if (dp.gpus > 1) {
    s += Row("data parallel", std::to_string(dp.gpus) + " GPUs: " + FormatBytes(dp.gradient_bytes) +
                                  " of gradients in " + std::to_string(dp.buckets) +
                                  " buckets, all-reduce " + FormatTime(dp.allreduce_s) + " (" +
                                  dp.method + "), " + FormatTime(dp.exposed_s) +
                                  " not hidden by backward (included above)");
  }
  return s + "</table></section>\n";
}

std::string SourcesSection(const Estimate& e, const Machine& machine, bool analysis) {
  std::string s =
      "<section id=\"sources\"><h2>Pricing sources</h2><p>Each kernel call is priced "
      "by the first source that can: <b>measured</b> (its exact key in the "
      "performance database for this GPU), <b>fitted</b> (a per-op-class model "
      "fitted to this GPU's measurements), <b>scaled</b> (priced on a calibrated "
      "reference GPU and scaled to this one's specs) or <b>roofline</b> (specs "
      "only). Share of kernel time by source:</p>";
  std::vector<svg::Share> shares;
  for (const auto& [source, share] : e.source_share) {
    shares.push_back({source, share, SourceColor(source)});
  }
  s += svg::StackedBar(shares, 1000) + SourceTable(e);
  s += "<h3>Where the numbers come from</h3><table class=\"kv\">" + FileRows(machine, analysis);
  return s + "</table></section>\n";
}

std::string WarningsSection(const Estimate& e) {
  std::string s = "<section id=\"warnings\"><h2>Warnings</h2>";
  if (e.warnings.empty()) return s + "<p>None.</p></section>\n";
  s += "<ul class=\"warn\">";
  for (const std::string& w : e.warnings) s += "<li>" + svg::Escape(w) + "</li>";
  return s + "</ul></section>\n";
}

}  // namespace dlsim::html
