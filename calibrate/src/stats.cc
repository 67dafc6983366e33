#include "stats.h"

#include <algorithm>
#include <cmath>

namespace dlcal {

double Percentile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  double pos = q * static_cast<double>(sorted.size() - 1);
  size_t lo = static_cast<size_t>(std::floor(pos));
  size_t hi = std::min(lo + 1, sorted.size() - 1);
  double f = pos - static_cast<double>(lo);
  return sorted[lo] * (1 - f) + sorted[hi] * f;
}

Stats Summarize(std::vector<double> samples) {
  Stats s;
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  s.n = static_cast<int>(samples.size());
  s.min_ms = samples.front();
  s.max_ms = samples.back();
  s.median_ms = Percentile(samples, 0.5);
  s.p10_ms = Percentile(samples, 0.1);
  s.p90_ms = Percentile(samples, 0.9);
  return s;
}

bool TooWide(const Stats& s, double tolerance) {
  if (!(s.median_ms > 0)) return true;
  return (s.p90_ms - s.p10_ms) / s.median_ms > tolerance;
}

TimingPlan PlanTiming(double call_ms, double target_ms, int reps, int min_reps,
                      double budget_ms) {
  TimingPlan p;
  call_ms = std::max(call_ms, 1e-4);  // 0.1 us: below any real launch
  min_reps = std::max(1, std::min(min_reps, reps));
  double launches = std::ceil(target_ms / call_ms);
  p.launches = static_cast<int>(std::min(std::max(launches, 1.0), 100000.0));
  p.reps = std::max(reps, 1);
  double region_ms = p.launches * call_ms;
  if (p.reps * region_ms > budget_ms) {
    p.reps = std::max(min_reps, static_cast<int>(budget_ms / region_ms));
  }
  if (p.reps * p.launches * call_ms > budget_ms && p.launches > 1) {
    double fit = std::floor(budget_ms / (p.reps * call_ms));
    p.launches = static_cast<int>(std::max(1.0, fit));
  }
  return p;
}

TimingPlan CoverCopies(TimingPlan plan, double call_ms, int copies, int max_launches,
                       int min_reps, double budget_ms) {
  call_ms = std::max(call_ms, 1e-4);
  min_reps = std::max(1, std::min(min_reps, plan.reps));
  plan.launches = std::min(std::max(plan.launches, copies), std::max(max_launches, 1));
  double fit = std::floor(budget_ms / (plan.launches * call_ms));
  if (fit < plan.reps) plan.reps = std::max(min_reps, static_cast<int>(fit));
  return plan;
}

int GraphChunkCalls(double nodes_per_call, int max_nodes) {
  if (!(nodes_per_call >= 1)) nodes_per_call = 1;
  return std::max(1, static_cast<int>(std::floor(max_nodes / nodes_per_call)));
}

int RotationCopies(double working_set_bytes, double l2_bytes, int max_copies) {
  if (working_set_bytes <= 0) return max_copies;
  if (working_set_bytes >= 2 * l2_bytes) return 1;
  double copies = std::ceil(3 * l2_bytes / working_set_bytes);
  return static_cast<int>(std::min(copies, static_cast<double>(max_copies)));
}

}  // namespace dlcal
