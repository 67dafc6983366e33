// Tensor Cores and precision: the same model re-estimated in TF32, fp16 and
// bf16, layer by layer against the baseline.
#include <algorithm>
#include <cstdio>

#include "analyses.h"

namespace dlsim::analyze {
namespace {

bool SameMath(const LoweringOptions& a, const LoweringOptions& b) {
  if (a.dtype != b.dtype) return false;
  if (a.dtype != DType::kFloat32) return true;
  return a.tf32_conv == b.tf32_conv && a.tf32_gemm == b.tf32_gemm;
}

std::string Title(Precision precision) {
  switch (precision) {
    case Precision::kTf32: return "Allow TF32 tensor cores for GEMMs as well as convolutions (tf32)";
    case Precision::kFp16: return "Run in fp16 on tensor cores (mixed precision)";
    case Precision::kBf16: return "Run in bf16 on tensor cores (mixed precision)";
    case Precision::kFp32: break;
  }
  return std::string("Run in ") + PrecisionName(precision);
}

std::string Percent(double share) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%.0f %%", share * 100);
  return buf;
}

}  // namespace

Result<std::vector<PrecisionVariant>> EstimatePrecisions(const Context& ctx) {
  std::vector<PrecisionVariant> variants;
  for (Precision precision : ctx.analyze.precisions) {
    EstimateOptions o = ctx.options;
    SetPrecision(precision, &o.lowering);
    if (SameMath(o.lowering, ctx.options.lowering)) continue;
    o.precision = precision;
    auto e = EstimateModel(ctx.graph, ctx.cost, o);
    if (!e.ok()) return e.status().WithContext(std::string("precision ") + PrecisionName(precision));
    variants.push_back({precision, std::move(e).value()});
  }
  return variants;
}

void AnalyzePrecision(const Context& ctx, const std::vector<PrecisionVariant>& variants,
                      Analysis* out) {
  const Estimate& base = ctx.baseline;
  const std::string base_name = PrecisionName(base.precision);
  for (const PrecisionVariant& v : variants) {
    const std::string name = PrecisionName(v.precision);
    const double saved = base.gpu_time_s - v.estimate.gpu_time_s;
    if (!(saved > 0)) {
      out->notes.push_back("precision: " + name + " is not faster than " + base_name + " (" +
                           FormatSeconds(v.estimate.gpu_time_s) + " against " +
                           FormatSeconds(base.gpu_time_s) + ")");
      continue;
    }
    if (!WellMeasured(v.estimate, base)) {
      out->notes.push_back("precision: " + name + " estimated at " +
                           FormatSeconds(v.estimate.gpu_time_s) + " but only " +
                           Percent(MeasuredShare(v.estimate)) +
                           " of it priced by measurements (the rest fitted or roofline): "
                           "too little data to advise it");
      continue;
    }
    Advice a;
    a.kind = "precision";
    a.title = Title(v.precision);
    a.baseline_s = base.gpu_time_s;
    a.improved_s = v.estimate.gpu_time_s;
    const size_t n = std::min(base.layers.size(), v.estimate.layers.size());
    for (size_t i = 0; i < n; ++i) {
      const LayerEstimate& from = base.layers[i];
      const LayerEstimate& to = v.estimate.layers[i];
      const double d = from.time_s() - to.time_s();
      if (d == 0) continue;
      a.layers.push_back({from.name,
                          base_name + " " + FormatSeconds(from.time_s()) + " (" +
                              CostSourceName(from.source()) + ") -> " + name + " " +
                              FormatSeconds(to.time_s()) + " (" + CostSourceName(to.source()) + ")",
                          d});
    }
    SortLayers(&a.layers);
    a.note = name + " estimate " + Percent(MeasuredShare(v.estimate)) + " priced by measurements (" +
             base_name + ": " + Percent(MeasuredShare(base)) + "); check the model's accuracy at " +
             name;
    out->advice.push_back(std::move(a));
  }
}

}  // namespace dlsim::analyze
