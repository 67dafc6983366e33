// The HTML report's per-layer sections: where the time goes (layers and op
// types) and the critical path.
#include <algorithm>
#include <vector>

#include "dlsim/report/report.h"
#include "html_sections.h"
#include "svg_charts.h"

namespace dlsim::html {
namespace {

constexpr int kChartWidth = 1000;
// Critical paths up to this many tasks are listed open; longer ones folded.
constexpr size_t kOpenPathTasks = 60;

std::string TimeAndShare(double time_s, double total_s) {
  return FormatTime(time_s) + " (" + Percent(time_s, total_s) + ")";
}

// Every layer with kernels, in graph order, for the collapsed full table.
std::string LayerTable(const Estimate& e) {
  std::string s =
      "<details><summary>every layer, in graph order</summary><table class=\"list\">"
      "<thead><tr><th>layer</th><th>op</th><th class=\"num\">kernels</th>"
      "<th class=\"num\">FLOPs</th><th class=\"num\">bytes</th>"
      "<th class=\"num\">time</th><th>bound</th><th>source</th></tr></thead><tbody>";
  for (const LayerEstimate& l : e.layers) {
    if (l.calls.empty()) continue;
    s += "<tr><td class=\"name\">" + Name(l.name) + "</td><td>" + svg::Escape(l.op_type) +
         "</td><td class=\"num\">" + std::to_string(l.kernels()) + "</td><td class=\"num\">" +
         FormatFlops(l.flops) + "</td><td class=\"num\">" + FormatBytes(l.bytes) +
         "</td><td class=\"num\">" + FormatTime(l.time_s()) + "</td><td>" + BoundName(l.bound()) +
         "</td><td>" + CostSourceName(l.source()) + "</td></tr>";
  }
  return s + "</tbody></table></details>";
}

std::string OpTypeChart(const Estimate& e, const OpColors& colors) {
  std::map<std::string, std::pair<double, int>> by_op;  // time, layers
  for (const LayerEstimate& l : e.layers) {
    if (l.time_s() <= 0) continue;
    by_op[l.op_type].first += l.time_s();
    ++by_op[l.op_type].second;
  }
  std::vector<std::pair<std::string, std::pair<double, int>>> ops(by_op.begin(), by_op.end());
  std::stable_sort(ops.begin(), ops.end(),
                   [](const auto& a, const auto& b) { return a.second.first > b.second.first; });
  std::vector<svg::Bar> bars;
  for (const auto& [op, time_layers] : ops) {
    const auto [time_s, layers] = time_layers;
    bars.push_back({op, time_s, OpColor(colors, op),
                    TimeAndShare(time_s, e.gpu_time_s) + ", " + std::to_string(layers) +
                        (layers == 1 ? " layer" : " layers")});
  }
  return svg::BarChart(bars, kChartWidth);
}

// The time of one critical-path task: a layer's forward part, its backward
// part ("<layer>.bwd") or the whole optimizer update.
double TaskTime(const std::map<std::string, const LayerEstimate*>& by_name, const std::string& task,
                const LayerEstimate** layer) {
  auto it = by_name.find(task);
  if (it != by_name.end()) {
    *layer = it->second;
    return it->second->op_type == "Optimizer" ? it->second->time_s() : it->second->fwd_s;
  }
  const std::string suffix = ".bwd";
  if (task.size() > suffix.size() &&
      task.compare(task.size() - suffix.size(), suffix.size(), suffix) == 0) {
    it = by_name.find(task.substr(0, task.size() - suffix.size()));
    if (it != by_name.end()) {
      *layer = it->second;
      return it->second->bwd_s;
    }
  }
  *layer = nullptr;
  return 0;
}

}  // namespace

std::string BreakdownSection(const Estimate& e, const OpColors& colors, int max_layers) {
  std::vector<const LayerEstimate*> timed;
  for (const LayerEstimate& l : e.layers) {
    if (l.time_s() > 0) timed.push_back(&l);
  }
  std::stable_sort(timed.begin(), timed.end(), [](const LayerEstimate* a, const LayerEstimate* b) {
    return a->time_s() > b->time_s();
  });
  const size_t shown = std::min(timed.size(), static_cast<size_t>(std::max(max_layers, 0)));
  double shown_s = 0;
  std::vector<svg::Bar> bars;
  for (size_t i = 0; i < shown; ++i) {
    const LayerEstimate& l = *timed[i];
    shown_s += l.time_s();
    bars.push_back(
        {l.name, l.time_s(), OpColor(colors, l.op_type), TimeAndShare(l.time_s(), e.gpu_time_s)});
  }
  std::string s = "<section id=\"breakdown\"><h2>Where the time goes</h2>";
  s += "<p>The " + std::to_string(shown) + " layers with the most GPU time, of " +
       std::to_string(timed.size()) + " layers with kernels; together " +
       TimeAndShare(shown_s, e.gpu_time_s) + " of the one-stream time " + FormatTime(e.gpu_time_s) +
       (e.mode == Mode::kTraining ? " (forward and backward)" : "") + ".</p>";
  s += OpLegend(e, colors) + svg::BarChart(bars, kChartWidth);
  s += "<h3>By op type</h3>" + OpTypeChart(e, colors) + LayerTable(e);
  return s + "</section>\n";
}

std::string CriticalPathSection(const Estimate& e, const OpColors& colors) {
  std::map<std::string, const LayerEstimate*> by_name;
  for (const LayerEstimate& l : e.layers) by_name.emplace(l.name, &l);
  std::vector<svg::Share> strip;
  std::string items;
  double path_s = 0, kernel_s = 0;
  for (const LayerEstimate& l : e.layers) kernel_s += l.time_s();
  for (const std::string& task : e.critical_path) {
    const LayerEstimate* layer = nullptr;
    const double t = TaskTime(by_name, task, &layer);
    if (t <= 0) continue;  // views and shape ops: no kernel
    path_s += t;
    const std::string op = layer != nullptr ? layer->op_type : "";
    strip.push_back({task + " (" + op + "): " + FormatTime(t), t, OpColor(colors, op)});
    items += "<li>" + Name(task) + " <span class=\"muted\">" + FormatTime(t) + "</span></li>";
  }
  std::string s = "<section id=\"critical-path\"><h2>Critical path</h2>";
  s += "<p>With every independent branch on its own stream the step takes at least " +
       FormatTime(e.critical_path_s) + ", " + Percent(e.critical_path_s, e.gpu_time_s) +
       " of the one-stream time " + FormatTime(e.gpu_time_s) + " (Benanza's parallel bound). " +
       std::to_string(strip.size()) + " tasks with kernels lie on the path (" + FormatTime(path_s) +
       "); the rest of the kernel time, " + FormatTime(std::max(kernel_s - path_s, 0.0)) +
       ", could overlap with it. The path from first to last, coloured by op type:</p>";
  s += svg::StackedBar(strip, kChartWidth, false);
  s += std::string(strip.size() <= kOpenPathTasks ? "<details open>" : "<details>") +
       "<summary>the " + std::to_string(strip.size()) +
       " tasks on the path, first to last</summary><ol class=\"path\">" + items + "</ol></details>";
  return s + "</section>\n";
}

}  // namespace dlsim::html
