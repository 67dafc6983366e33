// Joint: every change that saves time, together (Benanza's "how fast could
// this model run on this GPU").
#include <algorithm>
#include <cstdio>

#include "analyses.h"

namespace dlsim::analyze {
namespace {

std::string Join(const std::vector<std::string>& parts) {
  std::string s;
  for (const std::string& p : parts) s += (s.empty() ? "" : ", ") + p;
  return s;
}

// The fastest precision among the well-measured ones.
const Estimate* BestPrecision(const Context& ctx, const std::vector<PrecisionVariant>& variants,
                              std::vector<std::string>* left_out) {
  const Estimate* best = &ctx.baseline;
  for (const PrecisionVariant& v : variants) {
    if (!(v.estimate.gpu_time_s < ctx.baseline.gpu_time_s)) continue;
    if (!WellMeasured(v.estimate, ctx.baseline)) {
      char buf[96];
      std::snprintf(buf, sizeof buf, "%s (%.0f %% measured)", PrecisionName(v.precision),
                    MeasuredShare(v.estimate) * 100);
      left_out->push_back(buf);
      continue;
    }
    if (v.estimate.gpu_time_s < best->gpu_time_s) best = &v.estimate;
  }
  return best;
}

}  // namespace

Status AnalyzeJoint(const Context& ctx, const std::vector<PrecisionVariant>& variants,
                    Analysis* out) {
  std::vector<std::string> left_out;
  const Estimate* best = BestPrecision(ctx, variants, &left_out);
  std::vector<std::string> parts;
  if (best != &ctx.baseline) parts.push_back(PrecisionName(best->precision));
  Estimate e = *best;
  // Layout first: the fused call inherits the convolution's layout and price.
  const LayoutResult layout = FindLayoutChanges(e, ctx.cost, ctx.analyze.algorithms);
  if (layout.saved_s() > 0) {
    ApplyLayout(layout, &e);
    parts.push_back(std::string(LayoutName(layout.to)) + " where measured (" + std::to_string(layout.changes.size()) +
                    " calls)");
  }
  const auto groups = FindFusionGroups(ctx.graph, ctx.options.lowering.training);
  const FusionResult fusion = ApplyFusion(ctx.graph, groups, ctx.cost, &e);
  if (fusion.groups > 0) parts.push_back("fused conv+bias+act (" + std::to_string(fusion.groups) + ")");
  DLSIM_RETURN_IF_ERROR(RescheduleEstimate(ctx.graph, ctx.cost.machine().host, &e));
  const double overlap_s = e.gpu_time_s - e.critical_path_s;
  if (overlap_s > 0) parts.push_back("concurrent streams");
  const Estimate& base = ctx.baseline;
  if (!(base.gpu_time_s - e.critical_path_s > 0)) {
    out->notes.push_back("joint: no change saves time");
    return Status::Ok();
  }
  Advice a;
  a.kind = "joint";
  a.title = "All together (" + Join(parts) + "): the fastest this model could run on " +
            base.machine;
  a.baseline_s = base.gpu_time_s;
  a.improved_s = e.critical_path_s;
  for (size_t i = 0; i < base.layers.size() && i < e.layers.size(); ++i) {
    const double d = base.layers[i].time_s() - e.layers[i].time_s();
    if (d == 0) continue;
    a.layers.push_back({base.layers[i].name,
                        FormatSeconds(base.layers[i].time_s()) + " -> " +
                            FormatSeconds(e.layers[i].time_s()),
                        d});
  }
  SortLayers(&a.layers);
  a.note = "layer figures are one-stream time (" + FormatSeconds(e.gpu_time_s) +
           " in all); concurrent streams hide a further " + FormatSeconds(overlap_s) +
           "; algorithms are the fastest measured, as in the estimate";
  if (!left_out.empty()) {
    a.note += "; left out for want of measurements: " + Join(left_out);
  }
  out->advice.push_back(std::move(a));
  return Status::Ok();
}

}  // namespace dlsim::analyze
