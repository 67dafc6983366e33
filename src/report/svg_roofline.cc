// The roofline chart (Williams, Waterman and Patterson, "Roofline: an
// insightful visual performance model", CACM 2009): achieved FLOP/s against
// arithmetic intensity, log-log, under the memory slope and the compute
// ceilings. Ceiling labels sit right of the plot so they never cover points.
#include <algorithm>
#include <cmath>

#include "svg_charts.h"
#include "svg_elements.h"

namespace dlsim::svg {
namespace {

constexpr double kPi = 3.14159265358979323846;

// Tick label of 10^e: "0.01", "0.1", "1", "10", "100", "1k" ... "100P", else "1e-3".
std::string Decade(int e) {
  static const char* const kSuffix[] = {"", "k", "M", "G", "T", "P"};
  if (e == -1) return "0.1";
  if (e == -2) return "0.01";
  if (e < 0 || e / 3 >= 6) return "1e" + std::to_string(e);
  return (e % 3 == 0 ? "1" : e % 3 == 1 ? "10" : "100") + std::string(kSuffix[e / 3]);
}

// The plot area in pixels and its edges as log10 of the values.
struct Axes {
  double x_lo, x_hi, y_lo, y_hi;
  double left, top, width, height;
  double X(double v) const { return left + (std::log10(v) - x_lo) / (x_hi - x_lo) * width; }
  double Y(double v) const { return top + (y_hi - std::log10(v)) / (y_hi - y_lo) * height; }
};

// Intensity in whole decades: 0.1..1000 at least, the ridge point and every
// point. FLOP/s from a whole decade under the lowest point (four at least
// under the top) to a quarter decade over the highest ceiling or point.
Axes FitAxes(const std::vector<RooflinePoint>& points, double peak, double bw) {
  Axes a{-1, 3, 0, 0, 0, 0, 0, 0};
  double top = peak > 0 ? std::log10(peak) : 12, bottom = top;
  if (bw > 0 && peak > 0) a.x_hi = std::max(a.x_hi, std::ceil(std::log10(peak / bw)));
  for (const RooflinePoint& p : points) {
    a.x_lo = std::min(a.x_lo, std::floor(std::log10(p.intensity)));
    a.x_hi = std::max(a.x_hi, std::ceil(std::log10(p.intensity)));
    top = std::max(top, std::log10(p.flops_per_s));
    bottom = std::min(bottom, std::log10(p.flops_per_s));
  }
  if (a.x_hi <= a.x_lo) a.x_hi = a.x_lo + 1;
  a.y_hi = top + 0.25;
  a.y_lo = std::min(std::floor(a.y_hi) - 4, std::floor(bottom));
  return a;
}

std::string Grid(const Axes& a, int height) {
  std::string s;
  for (int e = static_cast<int>(std::ceil(a.x_lo)); e <= a.x_hi; ++e) {
    const double x = a.X(std::pow(10, e));
    s += Line(x, a.top, x, a.top + a.height, "grid") +
         Text(x, a.top + a.height + 16, Decade(e), "middle", "lbl");
  }
  for (int e = static_cast<int>(std::ceil(a.y_lo)); e <= a.y_hi; ++e) {
    const double y = a.Y(std::pow(10, e));
    s += Line(a.left, y, a.left + a.width, y, "grid") +
         Text(a.left - 6, y + 4, Decade(e), "end", "lbl");
  }
  s += Text(a.left + a.width / 2, height - 6, "arithmetic intensity (FLOP/byte)", "middle", "axis");
  return s + "<text transform=\"translate(16," + Num(a.top + a.height / 2) +
         ") rotate(-90)\" text-anchor=\"middle\" class=\"axis\">achieved FLOP/s</text>";
}

// Flat ceilings from their ridge point on, highest first; each label right
// of the plot at its line's height, pushed down where it would touch the
// label above.
std::string Ceilings(const Axes& a, std::vector<Ceiling> ceilings, double bw) {
  std::sort(ceilings.begin(), ceilings.end(),
            [](const Ceiling& x, const Ceiling& y) { return x.flops_per_s > y.flops_per_s; });
  std::string s;
  double last_label_y = -1e9;
  for (const Ceiling& c : ceilings) {
    if (c.flops_per_s <= 0) continue;
    const double y = a.Y(c.flops_per_s), right = a.left + a.width;
    const double knee = bw > 0 ? std::clamp(a.X(c.flops_per_s / bw), a.left, right) : a.left;
    const double label_y = std::max(y + 4, last_label_y + 13);
    last_label_y = label_y;
    s += Line(knee, y, right, y, "roof") + Text(right + 6, label_y, c.label, "start", "lbl");
  }
  return s;
}

// flops = bw * intensity, from the bottom or left edge up to the ridge
// point of the highest ceiling, labelled along the line halfway up (points
// cluster at the ends: pointwise kernels low, GEMMs near the ridge).
std::string Slope(const Axes& a, double bw, double peak, const std::string& label) {
  if (bw <= 0 || peak <= 0) return "";
  const double x0 = std::max(std::pow(10, a.x_lo), std::pow(10, a.y_lo) / bw), x1 = peak / bw;
  if (x0 >= x1) return "";
  const double ax = a.X(x0), ay = a.Y(bw * x0), bx = a.X(x1), by = a.Y(peak);
  const double angle = std::atan2(by - ay, bx - ax) * 180 / kPi;
  const double lx = ax + 0.5 * (bx - ax), ly = ay + 0.5 * (by - ay);
  return Line(ax, ay, bx, by, "roof") + "<text transform=\"translate(" + Num(lx) + "," + Num(ly) +
         ") rotate(" + Num(angle) + ") translate(0,-7)\" text-anchor=\"middle\" class=\"lbl\">" +
         Escape(label) + "</text>";
}

// Circles of area proportional to weight; large ones first, so small ones
// stay visible (and hoverable) on top.
std::string Points(const Axes& a, std::vector<RooflinePoint> points) {
  std::stable_sort(
      points.begin(), points.end(),
      [](const RooflinePoint& x, const RooflinePoint& y) { return x.weight > y.weight; });
  std::string s;
  for (const RooflinePoint& p : points) {
    const double r = 3 + 18 * std::sqrt(std::clamp(p.weight, 0.0, 1.0));
    s += "<circle cx=\"" + Num(a.X(p.intensity)) + "\" cy=\"" + Num(a.Y(p.flops_per_s)) +
         "\" r=\"" + Num(r) + "\" fill=\"" + Escape(p.color) +
         "\" fill-opacity=\"0.75\" stroke=\"#333\" stroke-width=\"0.5\"><title>" + Escape(p.label) +
         "</title></circle>";
  }
  return s;
}

}  // namespace

std::string Roofline(const std::vector<RooflinePoint>& all_points, double bw,
                     const std::string& bw_label, const std::vector<Ceiling>& ceilings, int width,
                     int height) {
  std::vector<RooflinePoint> points;
  for (const RooflinePoint& p : all_points) {
    if (p.intensity > 0 && p.flops_per_s > 0 && std::isfinite(p.intensity) &&
        std::isfinite(p.flops_per_s)) {
      points.push_back(p);
    }
  }
  double peak = 0, label_chars = 0;
  for (const Ceiling& c : ceilings) {
    peak = std::max(peak, c.flops_per_s);
    label_chars = std::max(label_chars, static_cast<double>(CodePoints(c.label).size()));
  }
  Axes a = FitAxes(points, peak, bw);
  a.left = 62;
  a.top = 12;
  a.width = width - a.left - std::clamp(label_chars * kCharPx + 12, 16.0, width * 0.35);
  a.height = height - a.top - 42;
  return Open(width, height, "roofline") + Grid(a, height) + Ceilings(a, ceilings, bw) +
         Slope(a, bw, peak, bw_label) + Points(a, points) + "</svg>";
}

}  // namespace dlsim::svg
