// Layout search (layout_search.h).
#include "dlsim/distributed/layout_search.h"

#include <algorithm>

namespace dlsim {

namespace {

std::vector<int64_t> TensorSizes(const TransformerSpec& m, int64_t gpus, int per_node) {
  std::vector<int64_t> out;
  for (int64_t t = 1; t <= std::min<int64_t>(per_node, gpus); t *= 2) {
    if (gpus % t == 0 && m.heads % t == 0 && m.kv_heads % t == 0 && m.ffn_hidden % t == 0) {
      out.push_back(t);
    }
  }
  return out;
}

bool Faster(const ParallelStepEstimate& a, const ParallelStepEstimate& b) {
  return a.time.step_s < b.time.step_s;
}

}  // namespace

Result<LayoutSearchResult> SearchLayouts(const ParallelStepModel& model,
                                         const TransformerSpec& m, const ParallelPlan& base,
                                         const LayoutSearchOptions& o) {
  DLSIM_RETURN_IF_ERROR(ValidateTransformer(m));
  if (o.gpus < 1) return InvalidArgument("--gpus must be a positive integer");
  const int per_node = 8;  // tensor groups stay inside a node; Estimate checks the machine's
  LayoutSearchResult result;
  ParallelPlan p = base;
  p.global_batch = o.global_batch;
  for (int64_t t : TensorSizes(m, o.gpus, per_node)) {
    for (int64_t pp = 1; pp <= m.layers && t * pp <= o.gpus; ++pp) {
      if (m.layers % pp != 0 || o.gpus % (t * pp) != 0) continue;
      const int64_t dp = o.gpus / (t * pp);
      for (int64_t mb : o.microbatches) {
        if (o.global_batch % (mb * dp) != 0) continue;
        for (int64_t v : o.virtual_stages) {
          if (v > 1 && (pp == 1 || m.layers % (pp * v) != 0)) continue;
          for (Recompute rc : {Recompute::kNone, Recompute::kSelective, Recompute::kFull}) {
            for (bool sp : {false, true}) {
              if (sp && t == 1) continue;
              for (int zero : {0, 1, 3}) {
                if ((zero > 0 && dp == 1) || (zero == 3 && pp > 1)) continue;
                p.tensor = t, p.pipeline = pp, p.data = dp, p.microbatch = mb;
                p.virtual_stages = v, p.recompute = rc, p.sequence_parallel = sp;
                p.zero_stage = zero;
                if (!ValidatePlan(m, p).ok()) continue;
                auto est = model.Estimate(m, p);
                if (!est.ok()) continue;  // e.g. tensor groups wider than the node
                ++result.evaluated;
                if (!est->fits) continue;
                ++result.fitting;
                result.best.push_back(std::move(*est));
                if (result.best.size() > 4 * o.keep) {
                  std::sort(result.best.begin(), result.best.end(), Faster);
                  result.best.resize(o.keep);
                }
              }
            }
          }
        }
      }
    }
  }
  std::sort(result.best.begin(), result.best.end(), Faster);
  if (result.best.size() > o.keep) result.best.resize(o.keep);
  if (result.evaluated == 0) {
    return InvalidArgument("no parallel layout of " + std::to_string(o.gpus) +
                           " GPUs suits the model with global batch " +
                           std::to_string(o.global_batch) +
                           " (tensor x pipeline x data must equal the GPUs, the pipeline divide "
                           "the layers, and microbatch x data divide the global batch)");
  }
  return result;
}

}  // namespace dlsim
