#include <cmath>
#include <cstdio>

#include "dlsim/report/report.h"

namespace dlsim {
namespace {

std::string Scaled(double v, const char* const units[], int n, double step) {
  int i = 0;
  while (std::fabs(v) >= step && i + 1 < n) v /= step, ++i;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f %s", v, units[i]);
  return buf;
}

}  // namespace

std::string FormatFlops(double flops) {
  static const char* const kUnits[] = {"FLOP", "KFLOP", "MFLOP", "GFLOP", "TFLOP", "PFLOP"};
  return Scaled(flops, kUnits, 6, 1000.0);
}

std::string FormatBytes(double bytes) {
  static const char* const kUnits[] = {"B", "KB", "MB", "GB", "TB"};
  return Scaled(bytes, kUnits, 5, 1000.0);
}

std::string FormatTime(double seconds) {
  char buf[64];
  if (seconds < 1e-3) {
    std::snprintf(buf, sizeof buf, "%.1f us", seconds * 1e6);
  } else if (seconds < 1.0) {
    std::snprintf(buf, sizeof buf, "%.3f ms", seconds * 1e3);
  } else {
    std::snprintf(buf, sizeof buf, "%.3f s", seconds);
  }
  return buf;
}

std::string CsvField(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

}  // namespace dlsim

namespace dlsim {

std::string SourceShareText(const std::map<std::string, double>& shares) {
  std::string text;
  for (const auto& [source, share] : shares) {
    if (share <= 0) continue;
    char buf[64];
    if (share < 0.005) {
      std::snprintf(buf, sizeof buf, "%s%s <1 %%", text.empty() ? "" : ", ", source.c_str());
    } else {
      std::snprintf(buf, sizeof buf, "%s%s %.0f %%", text.empty() ? "" : ", ", source.c_str(),
                    100 * share);
    }
    text += buf;
  }
  return text.empty() ? "-" : text;
}

}  // namespace dlsim
