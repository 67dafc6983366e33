// The figure of merit as a self-contained HTML page (dlsim fom --html): the
// FOM and its harmonic means, a bar per workload of the target's rate over the
// baseline's, the table, each rate's band and pricing sources, the warnings.
#include <cstdio>
#include <string>

#include "dlsim/report/fom_report.h"
#include "html_sections.h"
#include "svg_charts.h"

namespace dlsim {
namespace {

using html::Cell;
using html::Fixed;

std::string SummarySection(const FomResult& r) {
  return "<section id=\"summary\"><h2>Figure of merit</h2><table class=\"kv\">" +
         html::Row("FOM = H(target) / H(baseline)", Fixed(r.fom, 3)) +
         html::Row("harmonic mean units/day", "target " + Fixed(r.h_target, 2) + ", baseline " +
                                                  Fixed(r.h_baseline, 2)) +
         html::Row("arithmetic mean of the ratios", Fixed(r.arithmetic_mean_ratio, 3)) +
         "</table></section>\n";
}

// One bar per workload: the target's rate over the baseline's (blue faster, orange slower).
std::string RatioSection(const FomResult& r) {
  std::vector<svg::Bar> bars;
  for (const FomRow& row : r.rows) {
    bars.push_back({row.workload, row.ratio, svg::PaletteColor(row.ratio >= 1 ? 0 : 1),
                    Fixed(row.ratio, 3) + "x"});
  }
  return "<section id=\"ratios\"><h2>Units per day, target over baseline</h2>\n" +
         svg::BarChart(bars, 900, svg::Cut::kBack) + "</section>\n";
}

std::string TableSection(const FomResult& r) {
  std::string s =
      "<section id=\"workloads\"><h2>Workloads</h2><table class=\"list\"><thead><tr>"
      "<th>workload</th><th>unit time, target</th><th>unit time, baseline</th>"
      "<th>units/day, target</th><th>units/day, baseline</th><th>ratio</th></tr></thead><tbody>";
  for (const FomRow& row : r.rows) {
    s += "<tr>" + Cell(row.workload) + Cell(Fixed(row.unit_time_target_s / 3600, 3) + " h") +
         Cell(Fixed(row.unit_time_baseline_s / 3600, 3) + " h") + Cell(Fixed(row.rate_target, 1)) +
         Cell(Fixed(row.rate_baseline, 1)) + Cell(Fixed(row.ratio, 3)) + "</tr>";
  }
  return s + "</tbody></table></section>\n";
}

std::string ProvenanceSection(const FomResult& r) {
  std::string s =
      "<section id=\"sources\"><h2>Bands and pricing sources</h2><p class=\"muted\">Unit time "
      "with every kernel at its P10 and P90 price; share of kernel time by pricing source.</p>"
      "<table class=\"kv\">";
  for (const FomRow& row : r.rows) {
    s += html::Row(row.workload + ", target " + row.target.machine, RateProvenanceText(row.target));
    s += html::Row(row.workload + ", baseline " + row.baseline.machine,
                   RateProvenanceText(row.baseline));
  }
  return s + "</table></section>\n";
}

std::string WarningsSection(const FomResult& r) {
  std::string items;
  for (const FomRow& row : r.rows) {
    for (const std::string& w : row.warnings) {
      items += "<li>" + svg::Escape(row.workload + ": " + w) + "</li>";
    }
  }
  if (items.empty()) items = "<li class=\"muted\">none</li>";
  return "<section id=\"warnings\"><h2>Warnings</h2><ul class=\"warn\">" + items +
         "</ul></section>\n";
}

}  // namespace

std::string FomToHtml(const FomResult& r) {
  const std::string title = "FOM of " + r.target_machine + " against " + r.baseline_machine;
  std::string s = html::PageHead(title);
  s += "<h1>" + svg::Escape(title) + "</h1>\n<p class=\"muted\">dlsim fom: " +
       std::to_string(r.rows.size()) + " workloads</p>\n";
  s += SummarySection(r) + RatioSection(r) + TableSection(r) + ProvenanceSection(r) +
       WarningsSection(r);
  s += "<footer class=\"muted\">Written by dlsim. Rates are estimates unless a workload gives "
       "measured figures; docs/fom.md says how the FOM is formed.</footer>\n";
  return s + "</body>\n</html>\n";
}

}  // namespace dlsim
