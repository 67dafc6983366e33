// Layout search (layout_search.h).
#include "dlsim/distributed/layout_search.h"

#include <algorithm>

namespace dlsim {

namespace {

std::vector<int64_t> TensorSizes(const TransformerSpec& m, const LayoutSearchOptions& o) {
  if (!o.tensors.empty()) return o.tensors;
  std::vector<int64_t> out;
  for (int64_t t = 1; t <= std::min<int64_t>(8, o.gpus); t *= 2) {
    if (o.gpus % t == 0 && m.heads % t == 0 && m.kv_heads % t == 0 && m.ffn_hidden % t == 0) {
      out.push_back(t);
    }
  }
  return out;
}

std::vector<int64_t> PipelineSizes(const TransformerSpec& m, const LayoutSearchOptions& o) {
  if (!o.pipelines.empty()) return o.pipelines;
  std::vector<int64_t> out;
  for (int64_t pp = 1; pp <= m.layers && pp <= o.gpus; ++pp) {
    if (m.layers % pp == 0) out.push_back(pp);
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
  LayoutSearchResult result;
  ParallelPlan p = base;
  p.global_batch = o.global_batch;
  const std::vector<int64_t> pipelines = PipelineSizes(m, o);
  for (int64_t t : TensorSizes(m, o)) {  // Estimate refuses groups wider than a node
    for (int64_t pp : pipelines) {
      if (o.gpus % (t * pp) != 0) continue;
      const int64_t dp = o.gpus / (t * pp);
      for (int64_t mb : o.microbatches) {
        if (o.global_batch % (mb * dp) != 0) continue;
        for (int64_t v : o.virtual_stages) {
          if (v > 1 && (pp == 1 || m.layers % (pp * v) != 0)) continue;
          for (Recompute rc : o.recomputes) {
            // Fused attention recomputes its scores itself: selective = none.
            if (rc == Recompute::kSelective && m.attention == AttentionImpl::kFlash &&
                o.recomputes.size() > 1) {
              continue;
            }
            for (bool sp : o.sequence_parallel) {
              if (sp && t == 1) continue;
              for (int zero : o.zero_stages) {
                if ((zero > 0 && dp == 1) || (zero == 3 && pp > 1)) continue;
                p.tensor = t, p.pipeline = pp, p.data = dp, p.microbatch = mb;
                p.virtual_stages = v, p.recompute = rc, p.sequence_parallel = sp;
                p.zero_stage = zero, p.zero_shard = o.zero_shard;
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
