// Iteration counting by the period of the kernel names, and a
// Needleman-Wunsch alignment (minimum edit cost) of one iteration's kernels
// against the expected calls. State (i, j): i kernels and j calls consumed.
#include "align.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace dlsim {
namespace {

constexpr int kMatch = 0;
constexpr int kExtend = 1;
constexpr int kExtra = 10;
constexpr int kSkip = 10;
constexpr int kInf = std::numeric_limits<int>::max() / 2;
constexpr double kPeriodAgreement = 0.95;
constexpr size_t kReorderWindow = 64;  // expected calls either side
constexpr double kDurationWeight = 3;   // per e-fold beyond a factor of two
constexpr int kMaxDurationCost = 4;

enum Step : uint8_t { kStart, kMatchStep, kExtendStep, kExtraStep, kSkipStep };

bool RepeatsWithPeriod(const std::vector<std::string>& names, size_t period) {
  const size_t n = names.size();
  const size_t allowed = static_cast<size_t>((1 - kPeriodAgreement) * static_cast<double>(n - period));
  size_t mismatches = 0;
  for (size_t i = 0; i + period < n; ++i) {
    if (names[i] != names[i + period] && ++mismatches > allowed) return false;
  }
  return true;
}

// Extra cost of opening `call` with `kernel`: none within a factor of two of
// the estimate, then kDurationWeight per e-fold, at most kMaxDurationCost.
int DurationCost(const MeasuredKernel& kernel, const ExpectedCall& call) {
  if (call.estimated_s <= 0 || kernel.duration_s <= 0) return 0;
  const double off = std::fabs(std::log(kernel.duration_s / call.estimated_s)) - std::log(2.0);
  if (off <= 0) return 0;
  return std::min(kMaxDurationCost, static_cast<int>(std::lround(kDurationWeight * off)));
}

class Aligner {
 public:
  Aligner(const std::vector<ExpectedCall>& expected, const std::vector<MeasuredKernel>& kernels)
      : e_(expected), k_(kernels), m_(expected.size()), n_(kernels.size()),
        steps_((n_ + 1) * (m_ + 1), kStart) {}

  std::vector<int> Run() {
    std::vector<int> prev(m_ + 1), row(m_ + 1);
    for (size_t j = 0; j <= m_; ++j) prev[j] = static_cast<int>(j) * kSkip, Set(0, j, kSkipStep);
    for (size_t i = 1; i <= n_; ++i) {
      FillRow(i, prev, &row);
      prev.swap(row);
    }
    return Backtrack();
  }

 private:
  void Set(size_t i, size_t j, Step s) { steps_[i * (m_ + 1) + j] = s; }
  Step Get(size_t i, size_t j) const { return steps_[i * (m_ + 1) + j]; }
  bool Fits(size_t kernel, size_t slot) const { return ClassCanImplement(k_[kernel].cls, e_[slot].kind); }
  bool Extends(size_t kernel, size_t slot) const { return ClassCanExtend(k_[kernel].cls, e_[slot].kind); }

  void FillRow(size_t i, const std::vector<int>& prev, std::vector<int>* row) {
    const size_t kernel = i - 1;
    (*row)[0] = prev[0] + kExtra;
    Set(i, 0, kExtraStep);
    for (size_t j = 1; j <= m_; ++j) {
      int best = prev[j] + kExtra;
      Step step = kExtraStep;
      if (Fits(kernel, j - 1)) {
        const int cost = prev[j - 1] + kMatch + DurationCost(k_[kernel], e_[j - 1]);
        if (cost < best) best = cost, step = kMatchStep;
      }
      if (Extends(kernel, j - 1) && prev[j] + kExtend < best) best = prev[j] + kExtend, step = kExtendStep;
      if ((*row)[j - 1] + kSkip < best) best = (*row)[j - 1] + kSkip, step = kSkipStep;
      (*row)[j] = best;
      Set(i, j, step);
    }
  }

  std::vector<int> Backtrack() const {
    std::vector<int> slot(n_, -1);
    size_t i = n_, j = m_;
    while (i > 0) {
      const Step s = Get(i, j);
      if (s == kSkipStep) {
        --j;
        continue;
      }
      if (s == kMatchStep || s == kExtendStep) slot[i - 1] = static_cast<int>(j - 1);
      if (s == kMatchStep) --j;
      --i;
    }
    return slot;
  }

  const std::vector<ExpectedCall>& e_;
  const std::vector<MeasuredKernel>& k_;
  const size_t m_;
  const size_t n_;
  std::vector<Step> steps_;
};

// Kernels the alignment left unmatched take an expected call no kernel
// matched, when the kernel can implement it and the call lies within
// kReorderWindow calls of where the alignment stood: the framework ran that
// layer earlier or later than the graph lists it (Hugging Face BERT computes
// the value projection before the attention scores; the ONNX export lists
// it after them).
void MatchOutOfOrder(const std::vector<ExpectedCall>& expected, const std::vector<MeasuredKernel>& kernels,
                     std::vector<int>* slot) {
  std::vector<bool> taken(expected.size(), false);
  for (int s : *slot) {
    if (s >= 0) taken[s] = true;
  }
  size_t here = 0;  // slot of the last matched kernel
  for (size_t k = 0; k < kernels.size(); ++k) {
    if ((*slot)[k] >= 0) {
      here = static_cast<size_t>((*slot)[k]);
      continue;
    }
    // Copies and pointwise kernels fit too many calls to place by kind alone.
    if (kernels[k].cls == KernelClass::kCopy || kernels[k].cls == KernelClass::kElementwise) continue;
    for (size_t d = 0; d <= kReorderWindow; ++d) {
      auto try_slot = [&](size_t s) {
        if (s >= expected.size() || taken[s] || !ClassCanImplement(kernels[k].cls, expected[s].kind)) return false;
        (*slot)[k] = static_cast<int>(s);
        taken[s] = true;
        return true;
      };
      if (try_slot(here + d) || (d <= here && try_slot(here - d))) break;
    }
  }
}

bool IsGemmKind(KernelKind kind) {
  return kind == KernelKind::kGemm || kind == KernelKind::kBatchedGemm || kind == KernelKind::kConvFwd ||
         kind == KernelKind::kConvBiasAct || kind == KernelKind::kConvBwdData ||
         kind == KernelKind::kConvBwdFilter;
}

// GEMM helper kernels (cuBLAS's beta scaling before, its epilogue or split-K
// reduction after) take no part in the alignment: each joins the nearest
// kernel matched to a GEMM or convolution call, the earlier one on a tie.
void AttachHelpers(const std::vector<ExpectedCall>& expected, const std::vector<bool>& helper,
                   std::vector<int>* slot) {
  const int n = static_cast<int>(slot->size());
  auto gemm_slot = [&](int k) {
    return k >= 0 && k < n && !helper[k] && (*slot)[k] >= 0 && IsGemmKind(expected[(*slot)[k]].kind)
               ? (*slot)[k] : -1;
  };
  for (int k = 0; k < n; ++k) {
    if (!helper[k]) continue;
    for (int d = 1; d < n && (*slot)[k] < 0; ++d) {
      const int before = gemm_slot(k - d), after = gemm_slot(k + d);
      (*slot)[k] = before >= 0 ? before : after;
      if (k - d < 0 && k + d >= n) break;
    }
  }
}

// The kernels a call's key was counted launching, beyond the one the
// alignment matched: unmatched kernels right before or after the call's
// own (copies, layout transforms, casts, fills: not convolutions, GEMMs,
// norms or other compute) join it while it has fewer than its count.
void AbsorbCountedKernels(const std::vector<ExpectedCall>& expected,
                          const std::vector<MeasuredKernel>& kernels, std::vector<int>* slot) {
  std::vector<int64_t> taken(expected.size(), 0);
  for (int s : *slot) {
    if (s >= 0) ++taken[static_cast<size_t>(s)];
  }
  auto joins = [&](size_t k, size_t neighbour) {
    const int s = (*slot)[neighbour];
    if (s < 0 || taken[static_cast<size_t>(s)] >= expected[static_cast<size_t>(s)].kernels) return false;
    const KernelClass c = kernels[k].cls;
    if (c != KernelClass::kCopy && c != KernelClass::kElementwise && c != KernelClass::kLayout &&
        c != KernelClass::kOther) {
      return false;
    }
    (*slot)[k] = s;
    ++taken[static_cast<size_t>(s)];
    return true;
  };
  const size_t n = kernels.size();
  for (size_t k = 1; k < n; ++k) {  // after the call's kernels, in order
    if ((*slot)[k] < 0) joins(k, k - 1);
  }
  for (size_t k = n - 1; k-- > 0;) {  // before them, back from the call
    if ((*slot)[k] < 0) joins(k, k + 1);
  }
}

}  // namespace

std::vector<int> IterationCandidates(const std::vector<std::string>& kernel_names, size_t min_period) {
  const size_t n = kernel_names.size();
  std::vector<int> counts;
  for (size_t count = n / std::max<size_t>(min_period, 1); count >= 2; --count) {
    if (n % count == 0 && RepeatsWithPeriod(kernel_names, n / count)) counts.push_back(static_cast<int>(count));
  }
  counts.push_back(1);
  return counts;
}

Result<std::vector<int>> AlignIteration(const std::vector<ExpectedCall>& expected,
                                        const std::vector<MeasuredKernel>& kernels,
                                        int64_t max_cells) {
  if (expected.empty()) return InvalidArgument("no expected kernel calls to align against");
  const double cells = static_cast<double>(expected.size() + 1) * static_cast<double>(kernels.size() + 1);
  if (cells > static_cast<double>(max_cells)) {
    return OutOfRange(std::to_string(kernels.size()) + " kernels in one iteration x " +
                      std::to_string(expected.size()) +
                      " expected calls is too large to align; profile a smaller model");
  }
  std::vector<bool> helper(kernels.size());
  std::vector<MeasuredKernel> primary;
  std::vector<size_t> primary_index;
  for (size_t k = 0; k < kernels.size(); ++k) {
    helper[k] = kernels[k].cls == KernelClass::kGemmAux;
    if (!helper[k]) primary.push_back(kernels[k]), primary_index.push_back(k);
  }
  std::vector<int> primary_slot = Aligner(expected, primary).Run();
  MatchOutOfOrder(expected, primary, &primary_slot);
  std::vector<int> slot(kernels.size(), -1);
  for (size_t p = 0; p < primary.size(); ++p) slot[primary_index[p]] = primary_slot[p];
  AttachHelpers(expected, helper, &slot);
  AbsorbCountedKernels(expected, kernels, &slot);
  return slot;
}

}  // namespace dlsim
