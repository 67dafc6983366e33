// Tensor Cores and precision: the same model re-estimated in TF32, fp16 and
// bf16, layer by layer against the baseline.
#include <algorithm>
#include <cstdio>

#include "analyses.h"

namespace dlsim::analyze {
namespace {

// Lowering options of precision `name`, as the CLI's --dtype reads it.
Status SetPrecision(const std::string& name, LoweringOptions* lo) {
  if (name == "fp32" || name == "tf32") {
    lo->dtype = DType::kFloat32;
    lo->tf32_conv = true;
    lo->tf32_gemm = name == "tf32";
  } else if (name == "fp16") {
    lo->dtype = DType::kFloat16;
  } else if (name == "bf16") {
    lo->dtype = DType::kBFloat16;
  } else {
    return InvalidArgument("precision must be fp32, tf32, fp16 or bf16, got '" + name + "'");
  }
  return Status::Ok();
}

bool SameMath(const LoweringOptions& a, const LoweringOptions& b) {
  if (a.dtype != b.dtype) return false;
  if (a.dtype != DType::kFloat32) return true;
  return a.tf32_conv == b.tf32_conv && a.tf32_gemm == b.tf32_gemm;
}

std::string Title(const std::string& name) {
  if (name == "tf32") return "Allow TF32 tensor cores for GEMMs as well as convolutions (tf32)";
  if (name == "fp16") return "Run in fp16 on tensor cores (mixed precision)";
  if (name == "bf16") return "Run in bf16 on tensor cores (mixed precision)";
  return "Run in " + name;
}

std::string Percent(double share) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%.0f %%", share * 100);
  return buf;
}

}  // namespace

Result<std::vector<PrecisionVariant>> EstimatePrecisions(const Context& ctx) {
  std::vector<PrecisionVariant> variants;
  for (const std::string& name : ctx.analyze.precisions) {
    EstimateOptions o = ctx.options;
    DLSIM_RETURN_IF_ERROR(SetPrecision(name, &o.lowering));
    if (SameMath(o.lowering, ctx.options.lowering)) continue;
    o.dtype_name = name;
    auto e = EstimateModel(ctx.graph, ctx.cost, o);
    if (!e.ok()) return e.status().WithContext("precision " + name);
    variants.push_back({name, std::move(e).value()});
  }
  return variants;
}

void AnalyzePrecision(const Context& ctx, const std::vector<PrecisionVariant>& variants,
                      Analysis* out) {
  const Estimate& base = ctx.baseline;
  for (const PrecisionVariant& v : variants) {
    const double saved = base.gpu_time_s - v.estimate.gpu_time_s;
    if (!(saved > 0)) {
      out->notes.push_back("precision: " + v.name + " is not faster than " + base.dtype + " (" +
                           FormatSeconds(v.estimate.gpu_time_s) + " against " +
                           FormatSeconds(base.gpu_time_s) + ")");
      continue;
    }
    if (!WellMeasured(v.estimate, base)) {
      out->notes.push_back("precision: " + v.name + " estimated at " +
                           FormatSeconds(v.estimate.gpu_time_s) + " but only " +
                           Percent(MeasuredShare(v.estimate)) +
                           " of it priced by measurements (the rest fitted or roofline): "
                           "too little data to advise it");
      continue;
    }
    Advice a;
    a.kind = "precision";
    a.title = Title(v.name);
    a.baseline_s = base.gpu_time_s;
    a.improved_s = v.estimate.gpu_time_s;
    const size_t n = std::min(base.layers.size(), v.estimate.layers.size());
    for (size_t i = 0; i < n; ++i) {
      const LayerEstimate& from = base.layers[i];
      const LayerEstimate& to = v.estimate.layers[i];
      const double d = from.time_s() - to.time_s();
      if (d == 0) continue;
      a.layers.push_back({from.name,
                          base.dtype + " " + FormatSeconds(from.time_s()) + " (" +
                              CostSourceName(from.source()) + ") -> " + v.name + " " +
                              FormatSeconds(to.time_s()) + " (" + CostSourceName(to.source()) + ")",
                          d});
    }
    SortLayers(&a.layers);
    a.note = v.name + " estimate " + Percent(MeasuredShare(v.estimate)) + " priced by measurements (" +
             base.dtype + ": " + Percent(MeasuredShare(base)) + "); check the model's accuracy at " +
             v.name;
    out->advice.push_back(std::move(a));
  }
}

}  // namespace dlsim::analyze
