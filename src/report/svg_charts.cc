// Inline SVG bar charts, escaping and colours (the roofline is in
// svg_roofline.cc). Geometry is in CSS pixels; text uses the page's font.
// Every label goes through Escape: layer names come from ONNX files anyone
// can write.
#include "svg_charts.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>

#include "svg_elements.h"

namespace dlsim::svg {
namespace {

// At most `max_chars` characters (code points, never a split one), an
// ellipsis standing for those cut.
std::string Shorten(const std::string& text, size_t max_chars, Cut cut = Cut::kFront) {
  const std::vector<size_t> starts = CodePoints(text);
  if (starts.size() <= max_chars || max_chars < 2) return text;
  if (cut == Cut::kBack) return text.substr(0, starts[max_chars - 1]) + "\u2026";
  return "\u2026" + text.substr(starts[starts.size() - (max_chars - 1)]);
}

}  // namespace

std::string Escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string PaletteColor(size_t index) {
  static const char* const kPalette[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                         "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
  return kPalette[index % 10];
}

std::string ColorFor(const std::string& category) {
  // FNV-1a: stable across runs and platforms, unlike std::hash.
  uint32_t h = 2166136261u;
  for (unsigned char c : category) h = (h ^ c) * 16777619u;
  return PaletteColor(h % 10);
}

std::string BarChart(const std::vector<Bar>& bars, int width, Cut cut) {
  double max_v = 0, value_w = 60;
  for (const Bar& b : bars) {
    max_v = std::max(max_v, b.value);
    value_w = std::max(value_w, CodePoints(b.value_text).size() * kCharPx + 10);
  }
  const double row = 18, label_w = width * 0.38;
  const double plot_w = std::max(width - label_w - value_w, width * 0.2);
  const double scale = max_v > 0 ? plot_w / max_v : 0;
  const size_t label_chars = static_cast<size_t>((label_w - 10) / kCharPx);
  std::string s = Open(width, row * bars.size() + 4, "bar chart");
  for (size_t i = 0; i < bars.size(); ++i) {
    const Bar& b = bars[i];
    const double y = i * row + 2;
    const double w = std::max(b.value, 0.0) * scale;
    s += Text(label_w - 6, y + 12, Shorten(b.label, label_chars, cut), "end", "lbl");
    s += Rect(label_w, y + 1, w, 14, b.color, b.label + ": " + b.value_text);
    s += Text(label_w + w + 4, y + 12, b.value_text, "start", "val");
  }
  return s + "</svg>";
}

std::string StackedBar(const std::vector<Share>& shares, int width, bool legend) {
  double total = 0;
  for (const Share& sh : shares) total += std::max(sh.value, 0.0);
  const int legend_rows = legend ? static_cast<int>((shares.size() + 3) / 4) : 0;
  const double column_w = width / 4.0;
  const size_t legend_chars = static_cast<size_t>((column_w - 24) / kCharPx);
  std::string s = Open(width, 24 + 18.0 * legend_rows + (legend_rows > 0 ? 8 : 0), "shares");
  double x = 0;
  for (size_t i = 0; i < shares.size(); ++i) {
    const double share = total > 0 ? std::max(shares[i].value, 0.0) / total : 0;
    char pct[32];
    std::snprintf(pct, sizeof pct, " %.1f %%", 100 * share);
    if (share > 0) s += Rect(x, 0, width * share, 22, shares[i].color, shares[i].label + pct);
    x += width * share;
    if (!legend) continue;
    const double lx = (i % 4) * column_w, ly = 32 + (i / 4) * 18.0;
    s += Rect(lx, ly, 10, 10, shares[i].color, shares[i].label);
    const size_t pct_chars = std::string(pct).size();
    const std::string label =
        Shorten(shares[i].label, legend_chars > pct_chars ? legend_chars - pct_chars : 2);
    s += Text(lx + 14, ly + 9, label + pct, "start", "lbl");
  }
  return s + "</svg>";
}

}  // namespace dlsim::svg
