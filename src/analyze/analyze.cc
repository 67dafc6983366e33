// AnalyzeModel: the baseline estimate, then every analysis against it,
// ranked by the time each saves.
#include "dlsim/analyze/analyze.h"

#include <algorithm>
#include <cstdio>

#include "analyses.h"

namespace dlsim {
namespace analyze {

std::string FormatSeconds(double s) {
  char buf[48];
  const double a = s < 0 ? -s : s;
  if (a == 0) return "0";
  if (a < 1e-3) {
    std::snprintf(buf, sizeof buf, "%.1f us", s * 1e6);
  } else {
    std::snprintf(buf, sizeof buf, "%.3f ms", s * 1e3);
  }
  return buf;
}

std::string ShortAlgo(const std::string& algo) {
  const std::string marker = "_ALGO_";
  const size_t at = algo.find(marker);
  return at == std::string::npos ? algo : algo.substr(at + marker.size());
}

void RetotalLayer(LayerEstimate* layer) {
  layer->fwd_s = layer->bwd_s = layer->flops = layer->bytes = 0;
  for (size_t i = 0; i < layer->calls.size(); ++i) {
    const KernelCall& call = layer->calls[i];
    (call.phase == Phase::kForward ? layer->fwd_s : layer->bwd_s) += layer->costs[i].time_s;
    layer->flops += call.flops;
    layer->bytes += call.bytes();
  }
}

void SortLayers(std::vector<LayerAdvice>* layers) {
  std::stable_sort(layers->begin(), layers->end(), [](const LayerAdvice& a, const LayerAdvice& b) {
    if (a.saved_s != b.saved_s) return a.saved_s > b.saved_s;
    return a.layer < b.layer;
  });
}

double MeasuredShare(const Estimate& e) {
  double measured = 0, total = 0;
  for (const LayerEstimate& layer : e.layers) {
    for (const CallCost& c : layer.costs) {
      total += c.time_s;
      if (c.source == CostSource::kMeasured) measured += c.time_s;
    }
  }
  return total > 0 ? measured / total : 0;
}

bool WellMeasured(const Estimate& variant, const Estimate& baseline) {
  return MeasuredShare(variant) >= std::min(0.9, MeasuredShare(baseline));
}

}  // namespace analyze

Result<Analysis> AnalyzeModel(const Graph& graph, const CostModel& cost,
                              const EstimateOptions& options, const AnalyzeOptions& analyze) {
  Analysis out;
  DLSIM_ASSIGN_OR_RETURN(out.baseline, EstimateModel(graph, cost, options));
  const analyze::Context ctx{graph, cost, options, analyze, out.baseline};
  analyze::AnalyzeStreams(ctx, &out);
  analyze::AnalyzeConvAlgorithms(ctx, &out);
  analyze::AnalyzeFusion(ctx, &out);
  analyze::AnalyzeLayout(ctx, &out);
  DLSIM_ASSIGN_OR_RETURN(std::vector<analyze::PrecisionVariant> variants,
                         analyze::EstimatePrecisions(ctx));
  analyze::AnalyzePrecision(ctx, variants, &out);
  DLSIM_RETURN_IF_ERROR(analyze::AnalyzeJoint(ctx, variants, &out));
  std::stable_sort(out.advice.begin(), out.advice.end(),
                   [](const Advice& a, const Advice& b) { return a.saved_s() > b.saved_s(); });
  return out;
}

}  // namespace dlsim
