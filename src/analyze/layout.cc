// Memory layout: NHWC against NCHW, call by call, only where a database has
// the call measured in both layouts.
#include <cstdio>
#include <map>

#include "analyses.h"

namespace dlsim::analyze {
namespace {

Layout OtherLayout(Layout layout) { return layout == Layout::kNhwc ? Layout::kNchw : Layout::kNhwc; }

// The call's cost in `twin`'s layout, when measured in both layouts.
bool TwinCost(const KernelCall& call, const KernelCall& twin, const CallCost& base,
              const CostModel& cost, const TimingTable* table, LayoutChange* change) {
  if (base.source == CostSource::kMeasured) {
    CallCost other = cost.Price(twin);
    if (other.source == CostSource::kMeasured) {
      change->cost = other;
      change->saved_s = base.time_s - other.time_s;
      change->detail = LayoutName(call.layout) + (" " + FormatSeconds(base.time_s)) + ", " + LayoutName(twin.layout) + " " +
                       FormatSeconds(other.time_s);
      return true;
    }
  }
  if (table == nullptr) return false;
  const KeyTiming* from = table->Find(call.Key());
  const KeyTiming* to = table->Find(twin.Key());
  if (from == nullptr || to == nullptr || !(from->fastest_ms > 0)) return false;
  // Two databases may time the same call differently (PyTorch-level against
  // cuDNN-level): apply the algorithm database's ratio to the baseline price.
  const double ratio = to->fastest_ms / from->fastest_ms;
  change->cost = base;
  change->cost.time_s = base.time_s * ratio;
  change->cost.p10_s = base.p10_s * ratio;
  change->cost.p90_s = base.p90_s * ratio;
  change->cost.algo = to->fastest_algo;
  change->cost.heuristic_time_s = -1;
  change->cost.heuristic_algo.clear();
  change->saved_s = base.time_s - change->cost.time_s;
  char ratio_text[32];
  std::snprintf(ratio_text, sizeof ratio_text, "x%.2f", ratio);
  change->detail = LayoutName(call.layout) + (" " + FormatSeconds(from->fastest_ms * 1e-3)) + ", " +
                   LayoutName(twin.layout) + " " + FormatSeconds(to->fastest_ms * 1e-3) +
                   " in the algorithm database (" + ratio_text + ")";
  return true;
}

}  // namespace

double LayoutResult::saved_s() const {
  double s = 0;
  for (const LayoutChange& c : changes) s += c.saved_s;
  return s;
}

LayoutResult FindLayoutChanges(const Estimate& e, const CostModel& cost,
                               const TimingTable* algorithms) {
  LayoutResult r;
  for (size_t i = 0; i < e.layers.size(); ++i) {
    const LayerEstimate& layer = e.layers[i];
    for (size_t j = 0; j < layer.calls.size(); ++j) {
      const KernelCall& call = layer.calls[j];
      if (call.layout == Layout::kNone) continue;
      ++r.calls_with_layout;
      if (r.from == Layout::kNone) r.from = call.layout, r.to = OtherLayout(call.layout);
      KernelCall twin = call;
      twin.layout = OtherLayout(call.layout);
      LayoutChange change;
      change.layer = i;
      change.call = j;
      if (TwinCost(call, twin, layer.costs[j], cost, algorithms, &change)) {
        r.changes.push_back(std::move(change));
      }
    }
  }
  return r;
}

void ApplyLayout(const LayoutResult& result, Estimate* e) {
  for (const LayoutChange& c : result.changes) {
    LayerEstimate& layer = e->layers[c.layer];
    layer.calls[c.call].layout = result.to;
    layer.costs[c.call] = c.cost;
  }
  for (const LayoutChange& c : result.changes) RetotalLayer(&e->layers[c.layer]);
}

void AnalyzeLayout(const Context& ctx, Analysis* out) {
  const LayoutResult r = FindLayoutChanges(ctx.baseline, ctx.cost, ctx.analyze.algorithms);
  const std::string n = std::to_string(r.calls_with_layout);
  if (r.calls_with_layout == 0) {
    out->notes.push_back("layout: no layout-dependent calls (convolution, batch norm, pooling)");
    return;
  }
  const std::string dtype = PrecisionName(ctx.baseline.precision);
  if (r.changes.empty()) {
    out->notes.push_back("layout: no data: none of the " + n + " layout-dependent calls has both " +
                         "NCHW and NHWC measured at " + dtype);
    return;
  }
  const std::string coverage = std::to_string(r.changes.size()) + " of " + n +
                               " layout-dependent calls measured in both layouts at " + dtype +
                               "; the others have no data and are left unchanged";
  const double saved = r.saved_s();
  if (!(saved > 0)) {
    out->notes.push_back("layout: " + std::string(LayoutName(r.to)) + " is not faster where measured (" +
                         FormatSeconds(-saved) + " slower; " + coverage + ")");
    return;
  }
  std::map<size_t, LayerAdvice> by_layer;
  for (const LayoutChange& c : r.changes) {
    LayerAdvice& la = by_layer[c.layer];
    la.layer = ctx.baseline.layers[c.layer].name;
    la.saved_s += c.saved_s;
    la.detail += (la.detail.empty() ? "" : "; ") + c.detail;
  }
  Advice a;
  a.kind = "layout";
  a.baseline_s = ctx.baseline.gpu_time_s;
  a.improved_s = a.baseline_s - saved;
  for (auto& [index, la] : by_layer) a.layers.push_back(std::move(la));
  SortLayers(&a.layers);
  a.title = "Switch the layout from " + std::string(LayoutName(r.from)) + " to " + LayoutName(r.to) +
            (r.to == Layout::kNhwc ? " (channels_last)" : "") +
            " where measured";
  a.note = coverage;
  out->advice.push_back(std::move(a));
}

}  // namespace dlsim::analyze
