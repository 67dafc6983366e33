// The HTML report's roofline: each layer with arithmetic at its achieved
// FLOP/s against its arithmetic intensity, under the machine's memory slope
// and compute ceilings (the peaks src/cost/roofline.cc prices with).
#include <cstdio>
#include <map>
#include <vector>

#include "dlsim/report/report.h"
#include "html_sections.h"
#include "svg_charts.h"

namespace dlsim::html {
namespace {

std::string PerSecond(double flops_per_s) { return FormatFlops(flops_per_s) + "/s"; }

// The peaks the lowering's math modes use: FP32 vector, TF32 and FP16/BF16
// tensor cores (one line when FP16 and BF16 share a peak). FP64 and FP8 are
// left out: no call runs on them.
std::vector<svg::Ceiling> Ceilings(const PeakFlops& pk) {
  std::vector<svg::Ceiling> c;
  if (pk.fp32_vector > 0) c.push_back({"FP32 " + PerSecond(pk.fp32_vector), pk.fp32_vector});
  if (pk.tf32_matrix > 0) c.push_back({"TF32 tensor " + PerSecond(pk.tf32_matrix), pk.tf32_matrix});
  if (pk.fp16_matrix > 0 && pk.fp16_matrix == pk.bf16_matrix) {
    c.push_back({"FP16/BF16 tensor " + PerSecond(pk.fp16_matrix), pk.fp16_matrix});
  } else {
    if (pk.fp16_matrix > 0)
      c.push_back({"FP16 tensor " + PerSecond(pk.fp16_matrix), pk.fp16_matrix});
    if (pk.bf16_matrix > 0)
      c.push_back({"BF16 tensor " + PerSecond(pk.bf16_matrix), pk.bf16_matrix});
  }
  return c;
}

std::string BwLabel(const DeviceSpec& d) {
  return "memory " + FormatBytes(d.EffectiveMemoryBw()) + "/s" +
         (d.measured_memory_bw_bytes_per_s > 0 ? " (measured)" : " (datasheet)");
}

std::string BoundShares(const Estimate& e, double kernel_s) {
  std::map<std::string, double> by_bound;
  for (const LayerEstimate& l : e.layers) {
    if (l.time_s() > 0) by_bound[BoundName(l.bound())] += l.time_s();
  }
  std::string s;
  for (const auto& [bound, t] : by_bound) {
    s += (s.empty() ? "" : ", ") + bound + " " + Percent(t, kernel_s);
  }
  return s;
}

// "; the 2 without FLOPs (...) have no place on it", or "" when none.
std::string NoFlopsClause(int layers, double time_s, double kernel_s) {
  if (layers <= 0) return "";
  return "; the " + std::to_string(layers) +
         " without FLOPs (copies, pure data movement: " + Percent(time_s, kernel_s) +
         " of the time) have no place on it";
}

}  // namespace

std::string RooflineSection(const Estimate& e, const Machine& machine, const OpColors& colors) {
  double kernel_s = 0;
  for (const LayerEstimate& l : e.layers) kernel_s += l.time_s();
  std::vector<svg::RooflinePoint> points;
  int timed = 0;
  double no_flops_s = 0;
  for (const LayerEstimate& l : e.layers) {
    if (l.time_s() <= 0) continue;
    ++timed;
    if (l.flops <= 0 || l.bytes <= 0) {
      no_flops_s += l.time_s();
      continue;
    }
    const double intensity = l.flops / l.bytes, achieved = l.flops / l.time_s();
    char detail[96];
    std::snprintf(detail, sizeof detail, ": %.1f FLOP/byte, ", intensity);
    points.push_back({l.name + " (" + l.op_type + ")" + detail + PerSecond(achieved) + ", " +
                          FormatTime(l.time_s()) + ", " + BoundName(l.bound()) + "-bound, " +
                          CostSourceName(l.source()),
                      OpColor(colors, l.op_type), intensity, achieved,
                      kernel_s > 0 ? l.time_s() / kernel_s : 0});
  }
  const DeviceSpec& d = machine.device;
  std::string s = "<section id=\"roofline\"><h2>Roofline</h2>";
  s += "<p>Each circle is a layer at the FLOP/s it achieves in the estimate against its "
       "arithmetic intensity (FLOPs per byte moved), under " +
       svg::Escape(machine.name) +
       "'s memory slope and compute ceilings; its area is its share of the kernel time. " +
       std::to_string(points.size()) + " of " + std::to_string(timed) +
       " layers with kernels are shown" +
       NoFlopsClause(timed - static_cast<int>(points.size()), no_flops_s, kernel_s) +
       ". Kernel time by bound: " + BoundShares(e, kernel_s) + "." +
       (e.precision == Precision::kFp32 && d.peak_flops.tf32_matrix > 0
            ? " At fp32 cuDNN convolutions may run on TF32 tensor cores "
              "(PyTorch's default), so they can rise above the FP32 ceiling."
            : "") +
       "</p>";
  s += OpLegend(e, colors);
  s += svg::Roofline(points, d.EffectiveMemoryBw(), BwLabel(d), Ceilings(d.peak_flops), 1000, 460);
  return s + "</section>\n";
}

}  // namespace dlsim::html
