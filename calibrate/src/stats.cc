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

GraphChainPlan PlanGraphChain(int copies, int region_calls, int max_graph_calls,
                              int max_cycle_calls) {
  GraphChainPlan p;
  copies = std::max(copies, 1);
  region_calls = std::max(region_calls, 1);
  max_graph_calls = std::max(max_graph_calls, 1);
  max_cycle_calls = std::max(max_cycle_calls, 1);
  const int per_region = (region_calls + max_graph_calls - 1) / max_graph_calls;
  p.graph_calls = (region_calls + per_region - 1) / per_region;
  if (copies > max_cycle_calls) {
    p.cycle_calls = max_cycle_calls;
    p.graph_calls = std::min(p.graph_calls, p.cycle_calls);
  } else {
    p.cycle_calls = copies * ((p.graph_calls + copies - 1) / copies);
  }
  for (int done = 0; done < p.cycle_calls; done += p.graphs.back()) {
    p.graphs.push_back(std::min(p.graph_calls, p.cycle_calls - done));
  }
  return p;
}

std::vector<Region> PlanRegions(const std::vector<int>& graph_calls, int* next_graph, int reps,
                                int min_calls) {
  std::vector<Region> regions;
  const int n = static_cast<int>(graph_calls.size());
  long long cycle = 0;
  for (int c : graph_calls) cycle += std::max(c, 0);
  if (n == 0 || cycle == 0) return regions;
  min_calls = std::max(min_calls, 1);
  int g = ((*next_graph % n) + n) % n;
  for (int r = 0; r < reps; ++r) {
    Region region;
    region.first_graph = g;
    while (region.calls < min_calls) {
      region.calls += std::max(graph_calls[g], 0);
      ++region.graphs;
      g = (g + 1) % n;
    }
    regions.push_back(region);
  }
  *next_graph = g;
  return regions;
}

int GraphsNeeded(const std::vector<Region>& regions, int graph_count) {
  if (regions.empty() || graph_count <= 0) return 0;
  long long end = regions.front().first_graph;
  for (const auto& r : regions) end += r.graphs;
  return static_cast<int>(std::min<long long>(end, graph_count));
}

std::vector<double> PerCallMs(const std::vector<double>& region_ms,
                              const std::vector<Region>& regions) {
  std::vector<double> out;
  for (size_t i = 0; i < region_ms.size() && i < regions.size(); ++i) {
    out.push_back(region_ms[i] / std::max(regions[i].calls, 1));
  }
  return out;
}

int MinRegionCalls(const std::vector<Region>& regions) {
  int m = 0;
  for (const auto& r : regions) m = (m == 0) ? r.calls : std::min(m, r.calls);
  return m;
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
