// Profile comparison: align, attribute, total per layer (findings.cc turns
// the totals into flags and findings).
#include "dlsim/profile/compare.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "align.h"
#include "dlsim/cost/cost_model.h"
#include "findings.h"

namespace dlsim {
namespace {

// One iteration in issue order: forward calls by layer, backward calls by
// layer reversed (as the estimator schedules training), optimizer last.
std::vector<ExpectedCall> ExpectedSequence(const Estimate& e) {
  std::vector<ExpectedCall> seq;
  auto add = [&](size_t l, auto keep) {
    for (size_t c = 0; c < e.layers[l].calls.size(); ++c) {
      const KernelCall& call = e.layers[l].calls[c];
      if (keep(call.phase)) {
        const CallCost& cost = e.layers[l].costs[c];
        seq.push_back({static_cast<int>(l), static_cast<int>(c), call.kind, cost.time_s, cost.kernels});
      }
    }
  };
  const size_t n = e.layers.size();
  for (size_t l = 0; l < n; ++l) add(l, [](Phase p) { return p == Phase::kForward; });
  for (size_t r = 0; r < n; ++r) add(n - 1 - r, [](Phase p) { return p == Phase::kBackward; });
  for (size_t l = 0; l < n; ++l) {
    add(l, [](Phase p) { return p == Phase::kOptimizer; });
  }
  return seq;
}

// Kernels the lowering does not expect go to a neighbouring layer of the same
// iteration: copies (padding, contiguous copies) to the layer they prepare
// input for, everything else (an unfolded batch norm, an extra activation)
// to the layer whose output they post-process. In the backward pass layers
// run in reverse, so there the layer a kernel works for comes after it.
void AttributeExtras(const std::vector<KernelClass>& classes, const std::vector<bool>& backward,
                     std::vector<KernelAttribution>* out) {
  const int n = static_cast<int>(out->size());
  std::vector<int> prev(n, -1), next(n, -1);  // nearest expected kernels
  for (int k = 0, last = -1; k < n; ++k) {
    prev[k] = last;
    if ((*out)[k].expected) last = k;
  }
  for (int k = n - 1, first = -1; k >= 0; --k) {
    next[k] = first;
    if ((*out)[k].expected) first = k;
  }
  for (int k = 0; k < n; ++k) {
    KernelAttribution& a = (*out)[k];
    if (a.expected) continue;
    const bool prepares = classes[k] == KernelClass::kCopy || classes[k] == KernelClass::kLayout;
    const bool in_backward = prev[k] >= 0 && backward[prev[k]];
    const int pick = (prepares || in_backward) && next[k] >= 0 ? next[k] : prev[k] >= 0 ? prev[k] : next[k];
    if (pick >= 0) a.layer = (*out)[pick].layer;
  }
}

// Unexpected kernels that a known difference between the ONNX graph and the
// framework explains. The exporter folds an inference batch norm into the
// convolution or GEMM before it (torch.onnx with do_constant_folding), while
// the framework runs the batch norm as its own kernels, in eval and in
// training alike: a batch-norm kernel next to such a layer is that layer's.
std::string ExplainExtra(KernelClass kernel, const LayerEstimate& layer) {
  const std::string& op = layer.op_type;
  const bool folds_bn = op == "Conv" || op == "ConvTranspose" || op == "Gemm" || op == "MatMul";
  if (kernel == KernelClass::kBatchNorm && folds_bn) return "folded_batch_norm";
  return "";
}

// Iteration boundaries: `count` equal runs of kernels (the last takes any
// remainder).
std::vector<size_t> IterationStarts(size_t kernels, int count) {
  std::vector<size_t> starts;
  for (int i = 0; i < count; ++i) starts.push_back(kernels * static_cast<size_t>(i) / static_cast<size_t>(count));
  starts.push_back(kernels);
  return starts;
}

// The trace's iteration count: --iterations, else of the counts the kernel
// names repeat with (IterationCandidates, a period of at least a quarter of
// the expected calls), the one whose iterations come nearest the estimate:
// the least |log| of measured over estimated kernels per iteration plus that
// of kernel time (ties: more iterations). Three identical layers repeat
// every layer; only the estimate tells a layer from the iteration.
int IterationCount(const Estimate& estimate, const ProfileTrace& trace, size_t expected_calls,
                   const CompareOptions& options) {
  if (options.iterations > 0) return static_cast<int>(std::min<size_t>(options.iterations, trace.kernels.size()));
  std::vector<std::string> names;
  double measured_s = 0;
  for (const TraceKernel& k : trace.kernels) names.push_back(k.name), measured_s += k.duration_s;
  auto log_ratio = [](double measured, double estimated) {
    return measured > 0 && estimated > 0 ? std::fabs(std::log(measured / estimated)) : 0.0;
  };
  auto distance = [&](int count) {
    return log_ratio(static_cast<double>(names.size()) / count, static_cast<double>(estimate.kernel_count)) +
           log_ratio(measured_s / count, estimate.gpu_time_s);
  };
  int best = 0;
  double best_distance = 0;
  for (int count : IterationCandidates(names, expected_calls / 4)) {
    const double d = distance(count);
    if (best == 0 || d < best_distance) best = count, best_distance = d;
  }
  return best;
}

Result<std::vector<KernelAttribution>> AttributeKernels(const Estimate& e,
                                                        const std::vector<ExpectedCall>& seq,
                                                        const std::vector<MeasuredKernel>& kernels,
                                                        int iterations, int64_t max_cells) {
  std::vector<KernelClass> classes;
  for (const MeasuredKernel& k : kernels) classes.push_back(k.cls);
  std::vector<KernelAttribution> out(classes.size());
  std::vector<bool> backward(classes.size(), false);
  const std::vector<size_t> starts = IterationStarts(classes.size(), iterations);
  for (int it = 0; it < iterations; ++it) {
    const std::vector<MeasuredKernel> chunk(kernels.begin() + starts[it], kernels.begin() + starts[it + 1]);
    DLSIM_ASSIGN_OR_RETURN(std::vector<int> slots, AlignIteration(seq, chunk, max_cells));
    for (size_t k = 0; k < chunk.size(); ++k) {
      KernelAttribution& a = out[starts[it] + k];
      a.iteration = it;
      if (slots[k] < 0) continue;
      a.layer = seq[slots[k]].layer;
      a.call = seq[slots[k]].call;
      a.expected = true;
      backward[starts[it] + k] = e.layers[a.layer].calls[a.call].phase == Phase::kBackward;
    }
  }
  AttributeExtras(classes, backward, &out);
  for (size_t k = 0; k < out.size(); ++k) {
    if (!out[k].expected && out[k].layer >= 0) out[k].pattern = ExplainExtra(classes[k], e.layers[out[k].layer]);
  }
  return out;
}

struct LayerTotals {
  double measured_s = 0, expected_s = 0, extra_s = 0, gap_s = 0;
  int64_t kernels = 0;
  std::set<int> iterations;
  std::set<std::string> extra_names;
  std::map<int, double> call_s;
  std::map<int, int64_t> call_kernels;
};

LayerComparison Summarise(const LayerEstimate& le, size_t index, const LayerTotals& t) {
  LayerComparison lc;
  lc.layer = index;
  lc.name = le.name;
  lc.op_type = le.op_type;
  lc.estimated_s = le.time_s();
  lc.iterations = static_cast<int>(t.iterations.size());
  const double per = lc.iterations > 0 ? 1.0 / lc.iterations : 0.0;
  lc.measured_s = t.measured_s * per;
  lc.expected_kernel_s = t.expected_s * per;
  lc.extra_s = t.extra_s * per;
  lc.gap_s = t.gap_s * per;
  lc.kernels = static_cast<double>(t.kernels) * per;
  lc.expected_calls = static_cast<int>(le.calls.size());
  lc.extra_kernels.assign(t.extra_names.begin(), t.extra_names.end());
  for (size_t c = 0; c < le.calls.size(); ++c) {
    CallComparison cc;
    cc.kind = KernelKindName(le.calls[c].kind);
    cc.key = le.calls[c].Key();
    cc.source = CostSourceName(le.costs[c].source);
    cc.estimated_s = le.costs[c].time_s;
    cc.algo = le.costs[c].algo;
    cc.resident_input_bytes = le.calls[c].resident_input_bytes;
    auto s = t.call_s.find(static_cast<int>(c));
    if (s != t.call_s.end()) cc.measured_s = s->second * per;
    auto k = t.call_kernels.find(static_cast<int>(c));
    if (k != t.call_kernels.end()) cc.kernels = static_cast<double>(k->second) * per;
    if (k == t.call_kernels.end()) ++lc.missing_calls;
    lc.calls.push_back(std::move(cc));
  }
  return lc;
}

}  // namespace

Result<Comparison> CompareProfile(const Estimate& estimate, const ProfileTrace& trace,
                                  const CompareOptions& options) {
  const std::vector<ExpectedCall> seq = ExpectedSequence(estimate);
  if (seq.empty()) return InvalidArgument(estimate.model + ": the estimate has no kernel calls to compare");
  std::vector<MeasuredKernel> kernels;
  for (const TraceKernel& k : trace.kernels) kernels.push_back({ClassifyKernel(k.name), k.duration_s});
  const int iterations = IterationCount(estimate, trace, seq.size(), options);
  auto attributed = AttributeKernels(estimate, seq, kernels, iterations, options.max_cells);
  if (!attributed.ok()) return attributed.status().WithContext(trace.origin);

  Comparison cmp;
  cmp.model = estimate.model;
  cmp.machine = estimate.machine;
  cmp.batch = estimate.batch;
  cmp.precision = estimate.precision;
  cmp.mode = estimate.mode;
  cmp.trace = trace.origin;
  cmp.device = trace.device;
  cmp.estimated_gpu_s = estimate.gpu_time_s;
  cmp.kernel_count = static_cast<int64_t>(trace.kernels.size());
  cmp.kernel_time_s = trace.kernel_time_s();
  cmp.span_s = trace.span_s();
  cmp.kernels = std::move(*attributed);
  cmp.iterations = iterations;

  const std::vector<double> gaps = DeviceGaps(trace, options.min_gap_s);
  std::map<size_t, LayerTotals> totals;
  for (size_t k = 0; k < trace.kernels.size(); ++k) {
    const KernelAttribution& a = cmp.kernels[k];
    const double d = trace.kernels[k].duration_s;
    cmp.idle_s += gaps[k];
    if (a.layer < 0) continue;
    LayerTotals& t = totals[static_cast<size_t>(a.layer)];
    cmp.attributed_s += d;
    t.measured_s += d;
    t.gap_s += gaps[k];
    ++t.kernels;
    t.iterations.insert(a.iteration);
    if (a.expected) {
      cmp.expected_s += d;
      t.expected_s += d;
      t.call_s[a.call] += d;
      ++t.call_kernels[a.call];
    } else {
      if (!a.pattern.empty()) cmp.explained_s += d;
      t.extra_s += d;
      t.extra_names.insert(ShortKernelName(trace.kernels[k].name));
    }
  }
  for (size_t l = 0; l < estimate.layers.size(); ++l) {
    auto it = totals.find(l);
    if (it == totals.end() && estimate.layers[l].calls.empty()) continue;
    cmp.layers.push_back(Summarise(estimate.layers[l], l, it == totals.end() ? LayerTotals{} : it->second));
  }
  AddFindings(estimate, trace, options, &cmp);
  return cmp;
}

}  // namespace dlsim
