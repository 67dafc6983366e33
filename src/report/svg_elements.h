// SVG elements as text, shared by the chart builders (private to
// src/report): numbers with one decimal, text and titles escaped.
#ifndef DLSIM_SRC_REPORT_SVG_ELEMENTS_H_
#define DLSIM_SRC_REPORT_SVG_ELEMENTS_H_

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "svg_charts.h"

namespace dlsim::svg {

// Width of one character of the charts' 11-12 px sans-serif text, roughly;
// what label cutting and margins assume.
constexpr double kCharPx = 6.3;

inline std::string Num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

inline std::string Text(double x, double y, const std::string& text, const char* anchor,
                        const char* cls) {
  return "<text x=\"" + Num(x) + "\" y=\"" + Num(y) + "\" text-anchor=\"" + anchor + "\" class=\"" +
         cls + "\">" + Escape(text) + "</text>";
}

inline std::string Rect(double x, double y, double w, double h, const std::string& fill,
                        const std::string& title) {
  return "<rect x=\"" + Num(x) + "\" y=\"" + Num(y) + "\" width=\"" + Num(std::max(w, 0.5)) +
         "\" height=\"" + Num(h) + "\" fill=\"" + Escape(fill) + "\"><title>" + Escape(title) +
         "</title></rect>";
}

inline std::string Line(double x1, double y1, double x2, double y2, const char* cls) {
  return "<line x1=\"" + Num(x1) + "\" y1=\"" + Num(y1) + "\" x2=\"" + Num(x2) + "\" y2=\"" +
         Num(y2) + "\" class=\"" + cls + "\"/>";
}

inline std::string Open(int width, double height, const char* label) {
  return "<svg xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" aria-label=\"" +
         std::string(label) + "\" width=\"" + std::to_string(width) + "\" height=\"" + Num(height) +
         "\" viewBox=\"0 0 " + std::to_string(width) + " " + Num(height) + "\">";
}

// Byte offset of each UTF-8 code point of `text` (its size is the number of
// characters).
inline std::vector<size_t> CodePoints(const std::string& text) {
  std::vector<size_t> starts;
  for (size_t i = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) starts.push_back(i);
  }
  return starts;
}

}  // namespace dlsim::svg

#endif  // DLSIM_SRC_REPORT_SVG_ELEMENTS_H_
