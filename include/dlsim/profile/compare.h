// Comparing a measured timeline with an estimate: every measured kernel is
// attributed to an ONNX layer of the estimate (the trace is cut into model
// iterations by the period of its kernel names, and each iteration's kernels
// are aligned, by order and by the class of work their names show, against
// the calls the lowering expects), and each layer gets its
// measured time next to its estimated time. Kernels the lowering does not
// expect (a batch norm PyTorch did not fold, a padding kernel before a
// convolution), calls measured much slower than the estimate's fastest
// algorithm and device idle time (host gaps) become findings.
#ifndef DLSIM_PROFILE_COMPARE_H_
#define DLSIM_PROFILE_COMPARE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "dlsim/estimate/estimator.h"
#include "dlsim/profile/trace.h"

namespace dlsim {

struct CompareOptions {
  // A call measured slower than this many times its estimate, where the
  // estimate is a measured database time, is flagged "slower".
  double slower_ratio = 1.5;
  // Device idle gaps shorter than this are launch jitter, not host gaps.
  double min_gap_s = 5e-6;
  // Model iterations in the trace; 0 = detect from the period of the kernel
  // names.
  int iterations = 0;
  // Alignment table size limit (kernels of one iteration x expected calls).
  int64_t max_cells = 200'000'000;
};

// How one measured kernel was attributed.
struct KernelAttribution {
  int layer = -1;  // index into Estimate::layers; -1 when unattributed
  int call = -1;   // index into that layer's calls; -1 for an extra kernel
  bool expected = false;  // part of a call the lowering expects
  // An unexpected kernel a known framework pattern explains (see
  // ExplainExtra in src/profile/compare.cc): "folded_batch_norm".
  std::string pattern;
  int iteration = 0;      // 0-based model iteration in the trace
};

struct CallComparison {
  std::string kind;  // KernelKindName
  std::string key;     // KernelCall::Key(): what the estimate priced
  std::string source;  // CostSourceName of its price ("measured", "fitted", ...)
  double estimated_s = 0;
  double measured_s = 0;  // per iteration
  double kernels = 0;     // measured kernels per iteration
  std::string algo;       // the estimate's algorithm, when known
  double resident_input_bytes = 0;  // KernelCall::resident_input_bytes
};

struct LayerComparison {
  size_t layer = 0;  // index into Estimate::layers
  std::string name;
  std::string op_type;
  double estimated_s = 0;
  double measured_s = 0;        // all kernels attributed to the layer, per iteration
  double expected_kernel_s = 0; // the part from kernels of expected calls
  double extra_s = 0;           // the part from kernels the lowering does not expect
  double gap_s = 0;             // device idle before the layer's kernels, per iteration
  double kernels = 0;           // measured kernels per iteration
  int expected_calls = 0;
  int missing_calls = 0;        // expected calls with no kernel (in its first iteration)
  int iterations = 0;           // iterations the layer appears in
  std::vector<std::string> extra_kernels;  // short names, distinct
  std::vector<CallComparison> calls;
  std::vector<std::string> flags;  // "extra_kernels", "slower", "missing", "host_gap"
};

// A framework inefficiency, summed over the layers it concerns.
struct Finding {
  std::string kind;    // extra_kernels | slower | host_gap | missing
  std::string title;   // one line for people
  double time_s = 0;   // per iteration
  std::vector<std::string> layers;
};

struct Comparison {
  std::string model;
  std::string machine;
  int64_t batch = 0;   // the estimate's
  Precision precision = Precision::kFp32;
  Mode mode = Mode::kInference;
  std::string trace;   // origin
  std::string device;  // from the trace
  int iterations = 0;
  int64_t kernel_count = 0;      // in the whole trace
  double kernel_time_s = 0;      // whole trace
  double attributed_s = 0;       // kernel time attributed to some layer
  double expected_s = 0;         // kernel time in calls the lowering expects
  double explained_s = 0;        // kernel time of extras a known pattern explains
  double idle_s = 0;             // device idle time between kernels (gaps >= min_gap_s)
  double span_s = 0;             // first kernel start to last kernel end
  double estimated_gpu_s = 0;    // the estimate's one-stream time
  double coverage() const { return kernel_time_s > 0 ? attributed_s / kernel_time_s : 0; }
  double expected_share() const { return kernel_time_s > 0 ? expected_s / kernel_time_s : 0; }
  // Kernel time aligned to a layer: in an expected call, or an extra that a
  // known pattern ties to its layer.
  double aligned_share() const {
    return kernel_time_s > 0 ? (expected_s + explained_s) / kernel_time_s : 0;
  }
  double measured_gpu_s() const { return iterations > 0 ? kernel_time_s / iterations : 0; }
  std::vector<LayerComparison> layers;  // graph order; layers with calls or kernels
  std::vector<Finding> findings;        // largest time first
  std::vector<KernelAttribution> kernels;  // parallel to the trace's kernels
};

// Errors: InvalidArgument when the estimate has no kernel calls, OutOfRange
// when the alignment table would exceed options.max_cells.
Result<Comparison> CompareProfile(const Estimate& estimate, const ProfileTrace& trace,
                                  const CompareOptions& options = CompareOptions{});

}  // namespace dlsim

#endif  // DLSIM_PROFILE_COMPARE_H_
