// dlsim sweep --html: the sweep as one HTML page, no script, no external
// resources (the page style of html_report.cc).
#include <cstdio>
#include <string>

#include "dlsim/report/report.h"
#include "dlsim/report/sweep_report.h"
#include "html_sections.h"
#include "svg_charts.h"

namespace dlsim {
namespace {

using html::Cell;
using html::Fixed;

std::string SummarySection(const SweepResult& r) {
  std::string workloads;
  for (size_t i = 0; i < r.workloads.size(); ++i) workloads += (i ? ", " : "") + r.workloads[i];
  return "<section id=\"summary\"><h2>Sweep</h2><table class=\"kv\">" +
         html::Row("base machine", r.base_machine) + html::Row("workloads", workloads) +
         html::Row("variants", std::to_string(r.variants.size())) +
         html::Row("base harmonic mean units/day",
                   Fixed(r.base.h_rate, 2) + " (P90-P10 times: " + Fixed(r.base.h_rate_low, 2) +
                       " - " + Fixed(r.base.h_rate_high, 2) + ")") +
         "</table></section>\n";
}

// A bar per variant in grid order: its FOM (blue at or above the base,
// orange below), with the band of its rate over the base's rate.
std::string FomSection(const SweepResult& r) {
  std::vector<svg::Bar> bars;
  const double base = r.base.h_rate > 0 ? r.base.h_rate : 1;
  for (const SweepVariant& v : r.variants) {
    bars.push_back({v.name, v.fom, svg::PaletteColor(v.fom >= 1 ? 0 : 1),
                    Fixed(v.fom, 3) + " (" + Fixed(v.h_rate_low / base, 2) + "-" +
                        Fixed(v.h_rate_high / base, 2) + ")"});
  }
  return "<section id=\"fom\"><h2>FOM of each variant</h2><p class=\"muted\">Harmonic-mean units "
         "per day over the base's; in brackets the variant's rate at every kernel's P90 and P10 "
         "price over the base's rate.</p>\n" +
         svg::BarChart(bars, 900, svg::Cut::kBack) + "</section>\n";
}

std::string SensitivitySection(const SweepGrid& grid, const SweepResult& r) {
  std::vector<svg::Bar> bars;
  std::string rows;
  for (const FieldSensitivity& s : r.sensitivity) {
    bars.push_back({s.field, s.fom_range, svg::PaletteColor(2), Fixed(s.fom_range, 3)});
    const SweepAxis* axis = nullptr;
    for (const SweepAxis& a : grid.axes) {
      if (a.field == s.field) axis = &a;
    }
    std::string means;
    for (size_t j = 0; j < s.mean_fom_by_value.size(); ++j) {
      const std::string value = axis != nullptr && j < axis->values.size() ? axis->values[j].text : "?";
      means += (j ? ", " : "") + value + ": " + Fixed(s.mean_fom_by_value[j], 3);
    }
    rows += html::Row(s.field, means);
  }
  return "<section id=\"sensitivity\"><h2>What moves the FOM</h2><p class=\"muted\">Range of the "
         "mean FOM over each field's values (the mean over every variant holding the value).</p>\n" +
         svg::BarChart(bars, 900, svg::Cut::kBack) + "<table class=\"kv\">" + rows +
         "</table></section>\n";
}

std::string TableSection(const SweepResult& r) {
  std::string s =
      "<section id=\"variants\"><h2>Variants</h2><table class=\"list\"><thead><tr>"
      "<th>variant</th><th>units/day (H)</th><th>H at P90-P10 times</th><th>FOM</th>"
      "<th>priced by</th></tr></thead><tbody>";
  for (const SweepVariant& v : r.variants) {
    s += "<tr>" + Cell(v.name) + Cell(Fixed(v.h_rate, 2)) +
         Cell(Fixed(v.h_rate_low, 2) + " - " + Fixed(v.h_rate_high, 2)) + Cell(Fixed(v.fom, 3)) +
         Cell(SourceShareText(v.source_share)) + "</tr>";
  }
  return s + "</tbody></table></section>\n";
}

}  // namespace

std::string SweepToHtml(const SweepGrid& grid, const SweepResult& r) {
  const std::string title = "Sweep of " + r.base_machine;
  std::string s = html::PageHead(title);
  s += "<h1>" + svg::Escape(title) + "</h1>\n<p class=\"muted\">dlsim sweep: " +
       std::to_string(r.variants.size()) + " variants x " + std::to_string(r.workloads.size()) +
       " workloads</p>\n";
  s += SummarySection(r) + FomSection(r) + SensitivitySection(grid, r) + TableSection(r);
  s += "<footer class=\"muted\">Written by dlsim. Variants are priced from the base machine's "
       "calibration scaled to their specs; docs/fom.md says how the FOM is formed.</footer>\n";
  return s + "</body>\n</html>\n";
}

}  // namespace dlsim
