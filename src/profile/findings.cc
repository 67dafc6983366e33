// Framework inefficiencies found by a comparison: kernels the lowering does
// not expect, calls slower than the estimate's fastest measured algorithm,
// expected calls that never ran, and device idle time (host gaps).
#include "findings.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "kernel/kernel_class.h"

namespace dlsim {
namespace {

void AddFlag(LayerComparison* l, const char* flag) {
  if (std::find(l->flags.begin(), l->flags.end(), flag) == l->flags.end()) l->flags.push_back(flag);
}

struct ExtraGroup {
  double time_s = 0;
  int64_t count = 0;
  std::vector<std::string> layers;
};

void ExtraKernelFindings(const Estimate& e, const ProfileTrace& trace, Comparison* cmp) {
  std::map<std::string, ExtraGroup> groups;
  for (size_t k = 0; k < trace.kernels.size(); ++k) {
    const KernelAttribution& a = cmp->kernels[k];
    if (a.expected) continue;
    ExtraGroup& g = groups[ShortKernelName(trace.kernels[k].name)];
    g.time_s += trace.kernels[k].duration_s;
    ++g.count;
    const std::string layer = a.layer >= 0 ? e.layers[a.layer].name : "(no layer)";
    if (std::find(g.layers.begin(), g.layers.end(), layer) == g.layers.end()) g.layers.push_back(layer);
  }
  const double iters = std::max(cmp->iterations, 1);
  for (auto& [name, g] : groups) {
    char title[512];
    std::snprintf(title, sizeof title,
                  "%.0f kernel(s) per iteration the lowering does not expect: %s (%zu layer(s))",
                  static_cast<double>(g.count) / iters, name.c_str(), g.layers.size());
    cmp->findings.push_back({"extra_kernels", title, g.time_s / iters, std::move(g.layers)});
  }
  for (LayerComparison& l : cmp->layers) {
    if (l.extra_s > 0) AddFlag(&l, "extra_kernels");
  }
}

void SlowerFindings(const Estimate& e, const CompareOptions& options, Comparison* cmp) {
  std::vector<std::pair<double, std::string>> slow;  // excess, layer
  int calls = 0;
  for (LayerComparison& l : cmp->layers) {
    const LayerEstimate& le = e.layers[l.layer];
    for (size_t c = 0; c < l.calls.size(); ++c) {
      const CallComparison& cc = l.calls[c];
      if (le.costs[c].source != CostSource::kMeasured || cc.kernels <= 0) continue;
      if (cc.measured_s <= options.slower_ratio * cc.estimated_s) continue;
      AddFlag(&l, "slower");
      ++calls;
      slow.push_back({cc.measured_s - cc.estimated_s, l.name});
    }
  }
  if (slow.empty()) return;
  std::sort(slow.rbegin(), slow.rend());
  Finding f{"slower", "", 0, {}};
  for (const auto& [excess, layer] : slow) {
    f.time_s += excess;
    if (std::find(f.layers.begin(), f.layers.end(), layer) == f.layers.end()) f.layers.push_back(layer);
  }
  char title[256];
  std::snprintf(title, sizeof title,
                "%d call(s) measured over %.1fx the estimate's fastest measured algorithm",
                calls, options.slower_ratio);
  f.title = title;
  cmp->findings.push_back(std::move(f));
}

void MissingFindings(Comparison* cmp) {
  Finding f{"missing", "", 0, {}};
  int calls = 0;
  for (LayerComparison& l : cmp->layers) {
    if (l.missing_calls == 0) continue;
    AddFlag(&l, "missing");
    calls += l.missing_calls;
    for (const CallComparison& cc : l.calls) {
      if (cc.kernels == 0) f.time_s += cc.estimated_s;
    }
    f.layers.push_back(l.name);
  }
  if (calls == 0) return;
  f.title = std::to_string(calls) +
            " expected call(s) never ran (fused or skipped by the framework); the estimate "
            "charges them";
  cmp->findings.push_back(std::move(f));
}

void HostGapFinding(const ProfileTrace& trace, const CompareOptions& options, Comparison* cmp) {
  if (cmp->idle_s <= 0) return;
  const std::vector<double> gaps = DeviceGaps(trace, options.min_gap_s);
  double host_late_s = 0, end_s = 0;
  for (size_t k = 0; k < trace.kernels.size(); ++k) {
    const TraceKernel& kernel = trace.kernels[k];
    if (gaps[k] > 0 && kernel.has_launch && kernel.launch_s >= end_s) host_late_s += gaps[k];
    end_s = std::max(end_s, kernel.end_s());
  }
  std::vector<std::pair<double, std::string>> by_layer;
  for (LayerComparison& l : cmp->layers) {
    if (l.gap_s > 0) by_layer.push_back({l.gap_s, l.name});
    if (l.gap_s > l.measured_s && l.gap_s > 0) AddFlag(&l, "host_gap");
  }
  std::sort(by_layer.rbegin(), by_layer.rend());
  Finding f{"host_gap", "", cmp->idle_s / std::max(cmp->iterations, 1), {}};
  for (size_t i = 0; i < by_layer.size() && i < 10; ++i) f.layers.push_back(by_layer[i].second);
  char title[256];
  std::snprintf(title, sizeof title,
                "device idle between kernels, %.0f%% of the measured span; %.0f%% of it "
                "waiting for a launch that came after the device was free",
                cmp->span_s > 0 ? 100 * cmp->idle_s / cmp->span_s : 0.0,
                100 * host_late_s / cmp->idle_s);
  f.title = title;
  cmp->findings.push_back(std::move(f));
}

}  // namespace

std::vector<double> DeviceGaps(const ProfileTrace& trace, double min_gap_s) {
  std::vector<double> gaps(trace.kernels.size(), 0.0);
  double end_s = 0;
  for (size_t k = 0; k < trace.kernels.size(); ++k) {
    const TraceKernel& kernel = trace.kernels[k];
    if (k > 0 && kernel.start_s - end_s >= min_gap_s) gaps[k] = kernel.start_s - end_s;
    end_s = std::max(end_s, kernel.end_s());
  }
  return gaps;
}

void AddFindings(const Estimate& estimate, const ProfileTrace& trace,
                 const CompareOptions& options, Comparison* cmp) {
  ExtraKernelFindings(estimate, trace, cmp);
  SlowerFindings(estimate, options, cmp);
  MissingFindings(cmp);
  HostGapFinding(trace, options, cmp);
  std::stable_sort(cmp->findings.begin(), cmp->findings.end(),
                   [](const Finding& a, const Finding& b) { return a.time_s > b.time_s; });
}

}  // namespace dlsim
