// Optimisation analyses of one model on one machine (Benanza's analyses):
// each piece of advice says what to change, the layers it concerns and the
// predicted time it saves, and the list comes ranked by that saving.
// docs/analyze.md says what each analysis computes and where data is missing.
#ifndef DLSIM_ANALYZE_ANALYZE_H_
#define DLSIM_ANALYZE_ANALYZE_H_

#include <optional>
#include <string>
#include <vector>

#include "dlsim/cost/cost_model.h"
#include "dlsim/estimate/estimator.h"
#include "dlsim/machine/machine.h"
#include "dlsim/model/graph.h"
#include "dlsim/perfdb/timing_table.h"
#include "dlsim/util/precision.h"

namespace dlsim {

// One line of advice about one layer (or one group of layers).
struct LayerAdvice {
  std::string layer;   // a layer name, or "Conv_0 + Add_1 + Relu_2" for a group
  std::string detail;  // e.g. "heuristic IMPLICIT_GEMM 0.41 ms, fastest FFT 0.22 ms"
  double saved_s = 0;  // negative where the change makes this layer slower
};

struct Advice {
  std::string kind;   // parallel | conv_algorithm | fusion | precision | layout | joint
  std::string title;  // one line for people
  std::string note;   // coverage and caveats ("3 of 53 convolutions have data"), may be ""
  double baseline_s = 0;  // the time the saving is measured against
  double improved_s = 0;  // the same with this advice taken
  double saved_s() const { return baseline_s - improved_s; }
  std::vector<LayerAdvice> layers;  // the layers concerned, largest saving first
};

struct Analysis {
  Estimate baseline;
  std::vector<Advice> advice;  // saved_s > 0 only, ranked by saved_s, largest first
  // One line per analysis that found no saving or had no data, saying why
  // ("layout: no convolution has both NCHW and NHWC measured").
  std::vector<std::string> notes;
};

struct AnalyzeOptions {
  // Every algorithm of each convolution key with cuDNN's heuristic pick
  // marked (calibration.algorithm_db). Consulted by the algorithm-choice and
  // layout analyses where the cost model itself has no such data; null = none.
  const TimingTable* algorithms = nullptr;
  // Precision variants tried against the baseline.
  std::vector<Precision> precisions = {Precision::kTf32, Precision::kFp16, Precision::kBf16};
};

// Estimates `graph` with `options` (the baseline, as `dlsim estimate` would)
// and runs every analysis against it. Errors are the estimator's.
Result<Analysis> AnalyzeModel(const Graph& graph, const CostModel& cost,
                              const EstimateOptions& options,
                              const AnalyzeOptions& analyze = AnalyzeOptions{});

// The timings of `machine`'s calibration.algorithm_db (or of `path` when not
// empty) for the machine's db_gpu; nullopt when no database is named or the
// file does not exist (a line is appended to `notes`). A file that exists
// but cannot be read is an error naming it.
Result<std::optional<TimingTable>> LoadAlgorithmTable(const Machine& machine,
                                                      const std::string& path,
                                                      std::vector<std::string>* notes);

}  // namespace dlsim

#endif  // DLSIM_ANALYZE_ANALYZE_H_
