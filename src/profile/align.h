// Attributing measured kernels to the calls a lowering expects (private to
// src/profile): the trace is first cut into model iterations (its kernel
// names repeat with the iteration's period), then each iteration is aligned
// against one copy of the expected call sequence.
#ifndef DLSIM_SRC_PROFILE_ALIGN_H_
#define DLSIM_SRC_PROFILE_ALIGN_H_

#include <cstdint>
#include <string>
#include <vector>

#include "dlsim/kernel/kernel_call.h"
#include "dlsim/util/status.h"
#include "kernel/kernel_class.h"

namespace dlsim {

struct ExpectedCall {
  int layer = 0;  // index into Estimate::layers
  int call = 0;   // index into that layer's calls
  KernelKind kind = KernelKind::kElementwise;
  double estimated_s = 0;  // the call's estimated time; 0 = unknown
  int64_t kernels = 1;     // the kernels one call of its key launches (counted)
};

struct MeasuredKernel {
  KernelClass cls = KernelClass::kOther;
  double duration_s = 0;
};

// The counts of model iterations a sequence of n kernel names may hold,
// largest first: every k >= 2 for which the names repeat with period n/k for
// at least 95 % of the kernels (cuDNN's and cuBLAS's picks do not change
// between iterations of the same shapes) and the period is at least
// `min_period` kernels, then 1, which always qualifies. A model of identical
// layers repeats with the period of a layer and of any run of layers; only
// the estimate tells which is the iteration (compare.cc).
std::vector<int> IterationCandidates(const std::vector<std::string>& kernel_names, size_t min_period);

// Minimum-cost alignment of one iteration's kernels against the expected
// calls: a kernel opening the next expected call it can implement costs 0
// (plus up to 4 when its duration is more than twice off the call's estimate,
// so that of two GEMMs in a row each finds the call of its size), a
// further kernel of the call just opened (a layout conversion, a split-K
// reduction: ClassCanExtend) 1, a kernel no call expects 10, an expected call no kernel
// implements 10. Kernels left over (but copies and pointwise kernels, which
// fit too many calls) then take an unmatched call they can implement within
// 64 calls of where the alignment stood (a layer the
// framework ran out of graph order). GEMM helper kernels (KernelClass::
// kGemmAux) join the nearest GEMM or convolution. A call whose key was
// counted launching several kernels (cuDNN's layout transforms around a
// 16-bit convolution, a batch norm's casts) takes as many of the unmatched
// kernels next to its own. Returns, per kernel, its index into
// `expected` or -1 for a kernel no call expects. Errors: OutOfRange when
// kernels x calls exceeds max_cells.
Result<std::vector<int>> AlignIteration(const std::vector<ExpectedCall>& expected,
                                        const std::vector<MeasuredKernel>& kernels,
                                        int64_t max_cells);

}  // namespace dlsim

#endif  // DLSIM_SRC_PROFILE_ALIGN_H_
