#include "progress.h"

#include <algorithm>
#include <cstdio>

namespace dlcal {

std::string ProgressLine(size_t done, size_t total, double elapsed_s) {
  char buf[160];
  double pct = total ? 100.0 * double(done) / double(total) : 100.0;
  if (done == 0) {
    std::snprintf(buf, sizeof buf, "# 0/%zu keys, %.0f s elapsed", total, elapsed_s);
  } else {
    double eta = elapsed_s / double(done) * double(total - std::min(done, total));
    std::snprintf(buf, sizeof buf, "# %zu/%zu keys (%.0f%%), %.0f s elapsed, ETA %.0f s", done,
                  total, pct, elapsed_s, eta);
  }
  return buf;
}

void BudgetEstimator::Add(const std::string& kind, double seconds) {
  double& m = max_by_kind_[kind];
  m = std::max(m, seconds);
  total_s_ += seconds;
  ++count_;
}

double BudgetEstimator::Predict(const std::string& kind) const {
  auto it = max_by_kind_.find(kind);
  if (it != max_by_kind_.end()) return it->second;
  if (count_ > 0) return std::max(first_guess_s_, total_s_ / double(count_));
  return first_guess_s_;
}

bool BudgetEstimator::Fits(const std::string& kind, double elapsed_s, double budget_s) const {
  if (budget_s <= 0) return true;
  return elapsed_s + Predict(kind) <= budget_s;
}

}  // namespace dlcal
