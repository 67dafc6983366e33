// Convolution algorithm choice: cuDNN's heuristic pick against the fastest
// measured algorithm, per call (Benanza's algorithm-choice analysis).
#include <map>

#include "analyses.h"

namespace dlsim::analyze {
namespace {

// A heuristic pick within 5 % of the fastest is run-to-run noise (the P10-P90
// spread of one algorithm's repetitions is a few per cent), not advice.
constexpr double kNoise = 0.05;

bool IsConvolution(KernelKind kind) {
  return kind == KernelKind::kConvFwd || kind == KernelKind::kConvBiasAct ||
         kind == KernelKind::kConvBwdData || kind == KernelKind::kConvBwdFilter;
}

struct Pick {
  bool known = false;
  double heuristic_s = 0, fastest_s = 0;
  std::string heuristic_algo, fastest_algo, from;
};

// The heuristic's and the fastest time of one call: from the cost model
// when its database marks the heuristic's pick, else the algorithm table.
Pick HeuristicPick(const KernelCall& call, const CallCost& cost, const TimingTable* table) {
  Pick p;
  if (cost.heuristic_time_s >= 0) {
    p = {true, cost.heuristic_time_s, cost.time_s, cost.heuristic_algo, cost.algo,
         "performance database"};
    return p;
  }
  if (table == nullptr) return p;
  const KeyTiming* t = table->Find(call.Key());
  if (t == nullptr || !t->has_heuristic()) return p;
  return {true, t->heuristic_ms * 1e-3, t->fastest_ms * 1e-3, t->heuristic_algo,
          t->fastest_algo, "algorithm database"};
}

std::string Detail(const KernelCall& call, const Pick& p) {
  return std::string(KernelKindName(call.kind)) + ": heuristic " + ShortAlgo(p.heuristic_algo) +
         " " + FormatSeconds(p.heuristic_s) + ", fastest " + ShortAlgo(p.fastest_algo) + " " +
         FormatSeconds(p.fastest_s);
}

}  // namespace

void AnalyzeConvAlgorithms(const Context& ctx, Analysis* out) {
  const Estimate& e = ctx.baseline;
  int convs = 0, known = 0;
  std::map<std::string, int> sources;
  Advice a;
  a.kind = "conv_algorithm";
  for (const LayerEstimate& layer : e.layers) {
    LayerAdvice la{layer.name, "", 0};
    for (size_t i = 0; i < layer.calls.size(); ++i) {
      const KernelCall& call = layer.calls[i];
      if (!IsConvolution(call.kind)) continue;
      ++convs;
      const Pick p = HeuristicPick(call, layer.costs[i], ctx.analyze.algorithms);
      if (!p.known) continue;
      ++known;
      ++sources[p.from];
      if (!(p.heuristic_s > p.fastest_s * (1 + kNoise))) continue;
      la.saved_s += p.heuristic_s - p.fastest_s;
      la.detail += (la.detail.empty() ? "" : "; ") + Detail(call, p);
    }
    if (la.saved_s > 0) a.layers.push_back(std::move(la));
  }
  if (convs == 0) {
    out->notes.push_back("conv_algorithm: the model has no convolutions");
    return;
  }
  if (known == 0) {
    out->notes.push_back("conv_algorithm: no data: none of the " + std::to_string(convs) +
                         " convolution calls has cuDNN's heuristic pick measured");
    return;
  }
  std::string from;
  for (const auto& [name, n] : sources) from += (from.empty() ? "" : ", ") + name;
  const std::string coverage = std::to_string(known) + " of " + std::to_string(convs) +
                               " convolution calls have the heuristic's pick measured (" + from + ")";
  if (a.layers.empty()) {
    out->notes.push_back("conv_algorithm: cuDNN's heuristic picks the fastest algorithm (within "
                         "5 %); " + coverage);
    return;
  }
  double saved = 0;
  for (const LayerAdvice& la : a.layers) saved += la.saved_s;
  SortLayers(&a.layers);
  a.improved_s = e.gpu_time_s;
  a.baseline_s = e.gpu_time_s + saved;
  a.title = "Benchmark convolution algorithms (cudnn.benchmark = True): cuDNN's heuristic picks a "
            "slower one for " + std::to_string(a.layers.size()) +
            (a.layers.size() == 1 ? " layer" : " layers");
  a.note = coverage + "; picks within 5 % of the fastest are taken as noise; the estimate already prices the fastest algorithm, so the baseline here "
           "is the estimate plus the heuristic's extra time";
  out->advice.push_back(std::move(a));
}

}  // namespace dlsim::analyze
