// Internal: the single analyses AnalyzeModel runs, and the what-if edits of
// an Estimate they share (src/analyze only).
#ifndef DLSIM_SRC_ANALYZE_ANALYSES_H_
#define DLSIM_SRC_ANALYZE_ANALYSES_H_

#include <string>
#include <vector>

#include "dlsim/analyze/analyze.h"

namespace dlsim::analyze {

// What every analysis reads.
struct Context {
  const Graph& graph;
  const CostModel& cost;
  const EstimateOptions& options;
  const AnalyzeOptions& analyze;
  const Estimate& baseline;
};

// "0.412 ms" / "12.3 us" for details.
std::string FormatSeconds(double s);
// "IMPLICIT_PRECOMP_GEMM" for "CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM".
std::string ShortAlgo(const std::string& algo);
// Sets fwd_s, bwd_s, flops and bytes of `layer` from its calls and costs.
void RetotalLayer(LayerEstimate* layer);
// Largest saving first; ties by layer name.
void SortLayers(std::vector<LayerAdvice>* layers);
// The share of `e`'s kernel time priced by measurements, in [0, 1].
double MeasuredShare(const Estimate& e);
// True when `variant` is priced by measurements about as much as `baseline`
// (at least 90 %, or the baseline's share when that is lower): a variant
// priced mostly by fitted models or the roofline could win on a fit's error.
bool WellMeasured(const Estimate& variant, const Estimate& baseline);

// Each analysis appends its advice (when it saves time) to out->advice and
// otherwise a line to out->notes.
void AnalyzeStreams(const Context& ctx, Analysis* out);
void AnalyzeConvAlgorithms(const Context& ctx, Analysis* out);

// --- fusion -----------------------------------------------------------------
// Conv followed by per-channel bias Adds and (inference) BatchNormalizations
// and at most one Relu, each intermediate read by the next node only.
struct FusionGroup {
  size_t conv = 0;               // node index of the Conv
  std::vector<size_t> absorbed;  // the nodes folded into it, in order
  std::string act;               // "relu" or "identity"
  int64_t bias_elems = 0;        // channels of the fused bias (0: no bias)
};
std::vector<FusionGroup> FindFusionGroups(const Graph& graph, bool training);

struct FusionResult {
  std::vector<LayerAdvice> layers;  // one per group that saves time
  int groups = 0;                   // groups that save time
  int measured = 0;                 // of those, fused calls priced by measurement
};
// Replaces each group's calls in `e` (layers parallel to graph.nodes) by one
// cudnnConvolutionBiasActivationForward call; the absorbed layers launch
// nothing. A fused call the cost model has not measured is priced as the
// convolution alone (the epilogue taken as free: an upper bound on the
// saving). Groups that would not save time are left as they are.
FusionResult ApplyFusion(const Graph& graph, const std::vector<FusionGroup>& groups,
                         const CostModel& cost, Estimate* e);
void AnalyzeFusion(const Context& ctx, Analysis* out);

// --- layout -----------------------------------------------------------------
struct LayoutChange {
  size_t layer = 0;
  size_t call = 0;
  CallCost cost;  // the call's cost in the other layout
  double saved_s = 0;
  std::string detail;
};
struct LayoutResult {
  Layout from = Layout::kNone, to = Layout::kNone;  // kNone: no layout-dependent call
  std::vector<LayoutChange> changes;  // calls with both layouts measured
  int calls_with_layout = 0;
  double saved_s() const;
};
// Calls of `e` whose key in the other layout is measured as well: in the cost
// model (both keys measured) or else in the algorithm table (both keys there;
// the baseline price is scaled by the table's ratio).
LayoutResult FindLayoutChanges(const Estimate& e, const CostModel& cost,
                               const TimingTable* algorithms);
void ApplyLayout(const LayoutResult& result, Estimate* e);
void AnalyzeLayout(const Context& ctx, Analysis* out);

// --- precision ----------------------------------------------------------------
struct PrecisionVariant {
  Precision precision;
  Estimate estimate;
};
// Re-estimates the model in each named precision that differs from the
// baseline's.
Result<std::vector<PrecisionVariant>> EstimatePrecisions(const Context& ctx);
void AnalyzePrecision(const Context& ctx, const std::vector<PrecisionVariant>& variants,
                      Analysis* out);

// --- joint ------------------------------------------------------------------
// The fastest precision, fusion, the better layout where measured and
// concurrent streams, together.
Status AnalyzeJoint(const Context& ctx, const std::vector<PrecisionVariant>& variants,
                    Analysis* out);

}  // namespace dlsim::analyze

#endif  // DLSIM_SRC_ANALYZE_ANALYSES_H_
