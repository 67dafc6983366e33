// The inline-SVG chart builders of the HTML report: escaping, label cutting,
// geometry of bars, and the roofline's handling of points it cannot place.
#include "report/svg_charts.h"

#include <gtest/gtest.h>

#include <string>

namespace dlsim::svg {
namespace {

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(SvgCharts, EscapeCoversMarkupAndQuotes) {
  EXPECT_EQ(Escape("a<b>&\"c\"'d'"), "a&lt;b&gt;&amp;&quot;c&quot;&#39;d&#39;");
  EXPECT_EQ(Escape("plain /layer1/Conv"), "plain /layer1/Conv");
}

TEST(SvgCharts, PaletteCyclesAndColorForIsStable) {
  EXPECT_EQ(PaletteColor(0), "#4e79a7");
  EXPECT_EQ(PaletteColor(10), PaletteColor(0));
  EXPECT_EQ(ColorFor("Conv"), ColorFor("Conv"));
}

TEST(SvgCharts, BarsScaleToTheLargestValue) {
  // width 1000: labels take 380 px, values at least 60, so the longest bar is 560 px.
  const std::string s = BarChart({{"a", 2, "#111", "2 ms"}, {"b", 1, "#222", "1 ms"}}, 1000);
  EXPECT_EQ(Count(s, "<rect "), 2u);
  EXPECT_NE(s.find("<rect x=\"380.0\" y=\"3.0\" width=\"560.0\" height=\"14.0\" fill=\"#111\">"
                   "<title>a: 2 ms</title>"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("width=\"280.0\" height=\"14.0\" fill=\"#222\""), std::string::npos) << s;
  EXPECT_NE(s.find("height=\"40.0\" viewBox=\"0 0 1000 40.0\""), std::string::npos) << s;
}

TEST(SvgCharts, LongLabelsAreCutAtTheFrontOnACharacterBoundary) {
  // 200 px: (76 - 10) / 6.3 = 10 characters, the last 9 after an ellipsis.
  const std::string name = "\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9/conv2";
  const std::string s = BarChart({{name, 1, "#111", "x"}}, 200);
  EXPECT_NE(s.find(">\u2026\u00e9\u00e9\u00e9/conv2</text>"), std::string::npos) << s;
  EXPECT_NE(s.find("<title>" + name + ": x</title>"), std::string::npos) << "tooltip keeps it all";
}

TEST(SvgCharts, StackedBarSharesAndLegend) {
  const std::string s = StackedBar({{"measured", 3, "#0a0"}, {"roofline", 1, "#a00"}}, 400);
  EXPECT_NE(s.find("width=\"300.0\" height=\"22.0\" fill=\"#0a0\"><title>measured 75.0 %"),
            std::string::npos)
      << s;
  // 100 px legend columns hold 12 characters: the name is cut, the percentage kept.
  EXPECT_NE(s.find(">\u2026ured 75.0 %</text>"), std::string::npos) << s;
  const std::string wide = StackedBar({{"measured", 3, "#0a0"}, {"roofline", 1, "#a00"}}, 800);
  EXPECT_NE(wide.find(">roofline 25.0 %</text>"), std::string::npos) << wide;
  const std::string bare = StackedBar({{"a", 1, "#0a0"}, {"b", 0, "#a00"}}, 400, false);
  EXPECT_EQ(Count(bare, "<rect "), 1u) << "no legend, no empty segment";
  EXPECT_EQ(Count(bare, "<text"), 0u);
}

TEST(SvgCharts, RooflineLeavesOutPointsItCannotPlace) {
  const std::string s = Roofline({{"ok", "#111", 10, 1e12, 0.5},
                                  {"zero-flops", "#111", 0, 1e12, 0.1},
                                  {"zero-time", "#111", 10, 0, 0.1},
                                  {"<b>", "#111", 100, 1e13, 0.0}},
                                 1e12, "memory 1 TB/s", {{"FP32 10 TFLOP/s", 1e13}}, 800, 400);
  EXPECT_EQ(Count(s, "<circle "), 2u);
  EXPECT_NE(s.find("<title>&lt;b&gt;</title>"), std::string::npos);
  EXPECT_NE(s.find(">FP32 10 TFLOP/s</text>"), std::string::npos);
  EXPECT_NE(s.find(">memory 1 TB/s</text>"), std::string::npos);
  EXPECT_EQ(s.find("nan"), std::string::npos);
  EXPECT_EQ(s.find("inf"), std::string::npos);
}

TEST(SvgCharts, RooflineSeparatesCloseCeilingLabels) {
  // Two ceilings a few pixels apart: the lower one's label is pushed down a line.
  const std::string s = Roofline({}, 1e12, "mem", {{"A", 1.0e14}, {"B", 0.95e14}}, 800, 400);
  const size_t a = s.find(">A</text>"), b = s.find(">B</text>");
  ASSERT_NE(a, std::string::npos);
  ASSERT_NE(b, std::string::npos);
  auto y_of = [&](size_t at) {
    const size_t y = s.rfind("y=\"", at);
    return std::stod(s.substr(y + 3));
  };
  EXPECT_GE(y_of(b) - y_of(a), 13);
}

}  // namespace
}  // namespace dlsim::svg
