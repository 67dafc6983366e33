// Small inline-SVG chart builders for the HTML report (private to
// src/report). No script, no external resources: each returns one <svg>
// element as text, every label escaped, sized in CSS pixels (the page's CSS
// classes lbl, val, axis, grid and roof style the text and lines).
#ifndef DLSIM_SRC_REPORT_SVG_CHARTS_H_
#define DLSIM_SRC_REPORT_SVG_CHARTS_H_

#include <cstddef>
#include <string>
#include <vector>

namespace dlsim::svg {

// &, <, >, " and ' as entities: safe in HTML and SVG text and in quoted
// attribute values.
std::string Escape(const std::string& text);

// The i-th colour of a ten-colour palette (Tableau 10), cycling.
std::string PaletteColor(size_t index);
// A stable palette colour for a category name (FNV-1a of the name); two
// names may share a colour, so give categories PaletteColor by rank where
// they must differ.
std::string ColorFor(const std::string& category);

struct Bar {
  std::string label;
  double value = 0;        // bar length, in any unit >= 0
  std::string color;       // CSS colour
  std::string value_text;  // printed after the bar
};
// Where a label too long for its column loses characters (for an ellipsis):
// layer names at the front (their end tells them apart), sentences at the back.
enum class Cut { kFront, kBack };
// Horizontal bars, one 18 px row each, scaled to the largest value; the
// labels take 38 % of the width, the value texts what the longest needs.
std::string BarChart(const std::vector<Bar>& bars, int width, Cut cut = Cut::kFront);

struct Share {
  std::string label;
  double value = 0;  // >= 0; shares are value / sum of values
  std::string color;
};
// One 100 % stacked bar, with a legend of label and percentage underneath
// when `legend` (four entries a row).
std::string StackedBar(const std::vector<Share>& shares, int width, bool legend = true);

struct RooflinePoint {
  std::string label;  // tooltip
  std::string color;
  double intensity = 0;    // FLOP per byte; points <= 0 are left out
  double flops_per_s = 0;  // achieved; points <= 0 are left out
  double weight = 0;       // share of time in [0, 1], sets the radius
};
struct Ceiling {
  std::string label;
  double flops_per_s = 0;
};
// Log-log roofline: a memory slope of bw_bytes_per_s (0 = none), labelled
// bw_label, under flat compute ceilings, and the points.
std::string Roofline(const std::vector<RooflinePoint>& points, double bw_bytes_per_s,
                     const std::string& bw_label, const std::vector<Ceiling>& ceilings, int width,
                     int height);

}  // namespace dlsim::svg

#endif  // DLSIM_SRC_REPORT_SVG_CHARTS_H_
