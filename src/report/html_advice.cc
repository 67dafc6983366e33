// The HTML report's advice section: what `dlsim analyze` prints, ranked by
// the one-stream time each piece of advice saves, with a chart of savings.
#include <algorithm>
#include <vector>

#include "dlsim/report/report.h"
#include "html_sections.h"
#include "svg_charts.h"

namespace dlsim::html {
namespace {

// One colour per analysis kind (docs/analyze.md), in the order listed there.
std::string KindColor(const std::string& kind) {
  static const char* const kKinds[] = {"parallel",  "conv_algorithm", "fusion",
                                       "precision", "layout",         "joint"};
  for (size_t i = 0; i < 6; ++i) {
    if (kind == kKinds[i]) return svg::PaletteColor(i);
  }
  return svg::PaletteColor(9);
}

std::string Saving(const Advice& adv) {
  return FormatTime(adv.saved_s()) + " (" + Percent(adv.saved_s(), adv.baseline_s) + ")";
}

std::string LayerRows(const Advice& adv, int max_layers) {
  const size_t shown = std::min(adv.layers.size(), static_cast<size_t>(std::max(max_layers, 0)));
  if (shown == 0) return "";
  std::string s =
      "<table class=\"list fixed\"><colgroup><col style=\"width:80px\">"
      "<col style=\"width:46%\"><col></colgroup><thead><tr><th class=\"num\">saves"
      "</th><th>layer</th><th>detail</th></tr></thead><tbody>";
  for (size_t i = 0; i < shown; ++i) {
    const LayerAdvice& l = adv.layers[i];
    s += "<tr><td class=\"num\">" + FormatTime(l.saved_s) + "</td><td class=\"name\">" +
         Name(l.layer) + "</td><td>" + svg::Escape(l.detail) + "</td></tr>";
  }
  s += "</tbody></table>";
  if (shown < adv.layers.size()) {
    s += "<p class=\"muted\">\u2026 and " + std::to_string(adv.layers.size() - shown) +
         " more layers (dlsim analyze --top 0 lists them all)</p>";
  }
  return s;
}

std::string OneAdvice(const Advice& adv, int rank, int max_layers) {
  std::string s = "<div class=\"advice\" style=\"border-color:" + KindColor(adv.kind) + "\"><h3>" +
                  std::to_string(rank) + ". [" + svg::Escape(adv.kind) + "] " +
                  svg::Escape(adv.title) + "</h3>";
  s += "<p>saves <b>" + Saving(adv) + "</b>: " + FormatTime(adv.baseline_s) + " \u2192 " +
       FormatTime(adv.improved_s) + "</p>";
  if (!adv.note.empty()) s += "<p class=\"muted\">" + svg::Escape(adv.note) + "</p>";
  return s + LayerRows(adv, max_layers) + "</div>";
}

}  // namespace

std::string AdviceSection(const Analysis& analysis, int max_layers) {
  std::string s =
      "<section id=\"advice\"><h2>Advice</h2><p>What would make the model faster "
      "on this machine, ranked by the one-stream time each change saves "
      "(dlsim analyze; docs/analyze.md says how each is computed). Savings of "
      "different advice do not add up; the joint advice takes them together.</p>";
  if (analysis.advice.empty()) {
    s += "<p>No advice saves time.</p>";
  } else {
    std::vector<svg::Bar> bars;
    int rank = 0;
    for (const Advice& adv : analysis.advice) {
      bars.push_back({std::to_string(++rank) + ". [" + adv.kind + "] " + adv.title, adv.saved_s(),
                      KindColor(adv.kind), Saving(adv)});
    }
    s += svg::BarChart(bars, 1000, svg::Cut::kBack);
    rank = 0;
    for (const Advice& adv : analysis.advice) s += OneAdvice(adv, ++rank, max_layers);
  }
  if (!analysis.notes.empty()) {
    s += "<h3>Notes</h3><ul>";
    for (const std::string& n : analysis.notes) s += "<li>" + svg::Escape(n) + "</li>";
    s += "</ul>";
  }
  return s + "</section>\n";
}

}  // namespace dlsim::html
