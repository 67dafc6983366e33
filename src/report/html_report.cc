// The HTML report's page: CSS, title, table of contents and the sections
// (html_sections.h), plus the helpers the sections share. No script: the
// collapsible parts use <details>, tooltips are SVG <title> elements.
#include "dlsim/report/html_report.h"

#include <algorithm>
#include <cstdio>
#include <vector>

#include "html_sections.h"
#include "svg_charts.h"

namespace dlsim {
namespace html {

const char kCss[] = R"css(
body{font:14px/1.45 "DejaVu Sans",system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;
  color:#222;margin:24px auto;max-width:1000px;padding:0 16px}
h1{font-size:22px;margin:0 0 2px}
h2{font-size:17px;border-bottom:1px solid #ddd;padding-bottom:3px;margin:30px 0 8px}
h3{font-size:14px;margin:16px 0 4px}
p{margin:6px 0}
nav{font-size:13px;margin:6px 0 0}
nav a{margin-right:12px}
a{color:#2a5d8f}
table{border-collapse:collapse;font-size:13px}
th,td{padding:2px 12px 2px 0;text-align:left;vertical-align:top}
.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
table.kv th{font-weight:normal;color:#555;white-space:nowrap}
table.list{width:100%}
table.list thead th{border-bottom:1px solid #bbb}
table.list tbody tr:nth-child(even){background:#f5f5f5}
td.name,ol.path li{overflow-wrap:anywhere}
table.fixed{table-layout:fixed}
.muted{color:#666}
.key{display:inline-block;margin:0 14px 4px 0;font-size:12px;white-space:nowrap}
.key i{display:inline-block;width:10px;height:10px;margin-right:4px;vertical-align:-1px}
svg{display:block;max-width:100%;height:auto;margin:6px 0}
svg text{font-family:inherit}
.lbl{font-size:11px;fill:#333}
.val{font-size:11px;fill:#555}
.axis{font-size:12px;fill:#222}
.grid{stroke:#e6e6e6;stroke-width:1}
.roof{stroke:#222;stroke-width:1.5;fill:none}
.advice{border-left:3px solid #4e79a7;padding:2px 0 4px 12px;margin:14px 0}
ol.path{columns:3 280px;column-gap:28px;font-size:12px;padding:0;margin:6px 0;
  list-style-position:inside}
ol.path li{break-inside:avoid;padding-left:2.6em;text-indent:-2.6em}
ol.path span{white-space:nowrap}
ul.warn li{color:#8a4b00}
details summary{cursor:pointer;color:#2a5d8f;margin:6px 0}
footer{margin:32px 0 8px;font-size:12px}
)css";

std::string PageHead(const std::string& title) {
  return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
         "<title>dlsim: " +
         svg::Escape(title) + "</title>\n<style>" + kCss + "</style>\n</head>\n<body>\n";
}

namespace {

std::string Nav(bool analysis) {
  std::string s =
      "<nav><a href=\"#summary\">summary</a><a href=\"#breakdown\">time breakdown</a>"
      "<a href=\"#critical-path\">critical path</a><a href=\"#roofline\">roofline</a>";
  if (analysis) s += "<a href=\"#advice\">advice</a>";
  return s + "<a href=\"#sources\">pricing sources</a><a href=\"#warnings\">warnings</a></nav>";
}

// Op types by their total time, largest first (ties by name).
std::vector<std::pair<std::string, double>> OpTypesByTime(const Estimate& e) {
  std::map<std::string, double> by_op;
  for (const LayerEstimate& l : e.layers) {
    if (l.time_s() > 0) by_op[l.op_type] += l.time_s();
  }
  std::vector<std::pair<std::string, double>> ops(by_op.begin(), by_op.end());
  std::stable_sort(ops.begin(), ops.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  return ops;
}

}  // namespace

OpColors ColorOpTypes(const Estimate& e) {
  OpColors colors;
  size_t rank = 0;
  for (const auto& [op, time_s] : OpTypesByTime(e)) {
    if (rank == 9) break;
    colors[op] = svg::PaletteColor(rank++);
  }
  return colors;
}

std::string OpColor(const OpColors& colors, const std::string& op_type) {
  auto it = colors.find(op_type);
  return it == colors.end() ? svg::PaletteColor(9) : it->second;  // grey for the rest
}

std::string OpLegend(const Estimate& e, const OpColors& colors) {
  std::string s = "<div class=\"legend\">";
  bool others = false;
  for (const auto& [op, time_s] : OpTypesByTime(e)) {
    if (colors.count(op) == 0) {
      others = true;
      continue;
    }
    s += "<span class=\"key\"><i style=\"background:" + colors.at(op) + "\"></i>" +
         svg::Escape(op) + "</span>";
  }
  if (others) {
    s += "<span class=\"key\"><i style=\"background:" + svg::PaletteColor(9) +
         "\"></i>other op types</span>";
  }
  return s + "</div>";
}

std::string Name(const std::string& name) {
  std::string s;
  for (char c : svg::Escape(name)) {
    s += c;
    if (c == '/') s += "<wbr>";
  }
  return s;
}

std::string Percent(double part, double whole) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f %%", whole > 0 ? 100 * part / whole : 0.0);
  return buf;
}

std::string Row(const std::string& key, const std::string& value) {
  return "<tr><th>" + svg::Escape(key) + "</th><td>" + svg::Escape(value) + "</td></tr>";
}

std::string Cell(const std::string& text) { return "<td>" + svg::Escape(text) + "</td>"; }

std::string Fixed(double x, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", digits, x);
  return buf;
}

}  // namespace html

std::string EstimateToHtml(const Estimate& e, const Machine& machine, const Analysis* analysis,
                           const HtmlReportOptions& options) {
  const html::OpColors colors = html::ColorOpTypes(e);
  const std::string title = e.model + " on " + e.machine;
  std::string s = html::PageHead(title);
  s += "<h1>" + svg::Escape(title) + "</h1>\n<p class=\"muted\">dlsim " +
       (analysis != nullptr ? "analyze" : "estimate") + ": batch " + std::to_string(e.batch) +
       ", " + svg::Escape(PrecisionName(e.precision)) + ", " + svg::Escape(ModeName(e.mode)) + "</p>\n";
  s += html::Nav(analysis != nullptr) + "\n";
  s += html::SummarySection(e, machine);
  s += html::BreakdownSection(e, colors, options.max_layer_bars);
  s += html::CriticalPathSection(e, colors);
  s += html::RooflineSection(e, machine, colors);
  if (analysis != nullptr) s += html::AdviceSection(*analysis, options.max_advice_layers);
  s += html::SourcesSection(e, machine, analysis != nullptr);
  s += html::WarningsSection(e);
  s += "<footer class=\"muted\">Written by dlsim. Times are estimates: priced per kernel call "
       "as the pricing sources above say, combined over the model's graph.</footer>\n";
  return s + "</body>\n</html>\n";
}

}  // namespace dlsim
