// Parallel execution: one stream against the critical path, independent
// branches on concurrent streams (Benanza's parallel lower bound).
#include <set>

#include "analyses.h"

namespace dlsim::analyze {
namespace {

// Device time of the task named `name` when it is off the critical path.
void AddOffPath(const std::set<std::string>& on_path, const std::string& name,
                double device_s, std::vector<LayerAdvice>* layers) {
  if (device_s <= 0 || on_path.count(name) != 0) return;
  layers->push_back({name, "beside the critical path: overlaps on another stream", device_s});
}

}  // namespace

void AnalyzeStreams(const Context& ctx, Analysis* out) {
  const Estimate& e = ctx.baseline;
  const double saved = e.gpu_time_s - e.critical_path_s;
  if (!(saved > 0)) {
    out->notes.push_back("parallel: one chain of layers, nothing for concurrent streams to overlap");
    return;
  }
  // One stream is the sum of every task; the critical path the sum of its
  // tasks: the tasks off the path are exactly the time saved.
  const std::set<std::string> on_path(e.critical_path.begin(), e.critical_path.end());
  Advice a;
  a.kind = "parallel";
  a.baseline_s = e.gpu_time_s;
  a.improved_s = e.critical_path_s;
  for (const LayerEstimate& layer : e.layers) {
    if (layer.op_type == "Optimizer") {
      AddOffPath(on_path, layer.name, layer.time_s(), &a.layers);
      continue;
    }
    AddOffPath(on_path, layer.name, layer.fwd_s, &a.layers);
    AddOffPath(on_path, layer.name + ".bwd", layer.bwd_s, &a.layers);
  }
  SortLayers(&a.layers);
  a.title = "Run independent branches on concurrent CUDA streams (" +
            std::to_string(a.layers.size()) +
            (a.layers.size() == 1 ? " layer" : " layers") + " off the critical path)";
  a.note = "critical path with unlimited streams and no slowdown when kernels share the GPU: "
           "a lower bound on what streams can reach";
  out->advice.push_back(std::move(a));
}

}  // namespace dlsim::analyze
