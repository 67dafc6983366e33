// Optimisation analyses of one model on one machine (Benanza's analyses):
// each piece of advice says what to change, the layers it concerns and the
// predicted time it saves, and the list comes ranked by that saving.
#ifndef DLSIM_ANALYZE_ANALYZE_H_
#define DLSIM_ANALYZE_ANALYZE_H_

#include <string>
#include <vector>

#include "dlsim/cost/cost_model.h"
#include "dlsim/estimate/estimator.h"
#include "dlsim/model/graph.h"

namespace dlsim {

// One line of advice about one layer (or one group of layers).
struct LayerAdvice {
  std::string layer;
  std::string detail;  // e.g. "heuristic IMPLICIT_GEMM 0.41 ms, fastest FFT 0.22 ms"
  double saved_s = 0;
};

struct Advice {
  std::string kind;   // parallel | conv_algorithm | fusion | precision | layout | joint
  std::string title;  // one line for people
  double baseline_s = 0;  // the estimate the saving is measured against
  double improved_s = 0;  // the same with this advice taken
  double saved_s() const { return baseline_s - improved_s; }
  std::vector<LayerAdvice> layers;  // the layers concerned, largest saving first
};

struct Analysis {
  Estimate baseline;
  std::vector<Advice> advice;  // ranked by saved_s, largest first
};

Result<Analysis> AnalyzeModel(const Graph& graph, const CostModel& cost,
                              const EstimateOptions& options);

}  // namespace dlsim

#endif  // DLSIM_ANALYZE_ANALYZE_H_
