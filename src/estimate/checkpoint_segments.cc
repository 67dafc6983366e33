#include "checkpoint_segments.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

namespace dlsim {
namespace {

bool LaunchesForward(const LoweredNode& ln) {
  for (const KernelCall& c : ln.calls) {
    if (c.phase == Phase::kForward) return true;
  }
  return false;
}

// Per node, whether one activation dominates what is alive after it: the
// others (masks, rotary tables read by every layer) take at most half its
// bytes. Graph inputs and weights are not counted.
std::vector<bool> OneAliveAfter(const Graph& graph) {
  const long n = static_cast<long>(graph.nodes.size());
  std::map<std::string, long> last_read, produced;
  for (long i = 0; i < n; ++i) {
    for (const std::string& in : graph.nodes[i].inputs) {
      if (produced.count(in) != 0) last_read[in] = i;
    }
    for (const std::string& out : graph.nodes[i].outputs) {
      const Tensor* t = graph.FindTensor(out);
      if (t != nullptr && IsFloatDType(t->dtype) && t->num_elements() > 1) produced[out] = i;
    }
  }
  for (const std::string& out : graph.outputs) {
    if (produced.count(out) != 0) last_read[out] = n;
  }
  std::vector<std::vector<double>> alive(n);  // bytes of each tensor alive after node i
  for (const auto& [name, p] : produced) {
    auto it = last_read.find(name);
    if (it == last_read.end()) continue;
    const double bytes = static_cast<double>(graph.FindTensor(name)->num_elements());
    for (long i = p; i < it->second && i < n; ++i) alive[i].push_back(bytes);
  }
  std::vector<bool> one(n, false);
  for (long i = 0; i < n; ++i) {
    double total = 0, largest = 0;
    for (double b : alive[i]) total += b, largest = std::max(largest, b);
    one[i] = largest > 0 && total - largest <= 0.5 * largest;
  }
  return one;
}

}  // namespace

std::vector<int> CheckpointSegments(const Graph& graph, const LoweredGraph& lowered) {
  const size_t n = graph.nodes.size();
  size_t launching = 0;
  for (size_t i = 0; i < n && i < lowered.nodes.size(); ++i) launching += LaunchesForward(lowered.nodes[i]);
  const size_t min_nodes = static_cast<size_t>(std::ceil(std::sqrt(static_cast<double>(launching))));
  const std::vector<bool> boundary = OneAliveAfter(graph);
  std::vector<int> segment(n, 0);
  int current = 0;
  size_t in_segment = 0;
  for (size_t i = 0; i < n; ++i) {
    segment[i] = current;
    in_segment += i < lowered.nodes.size() && LaunchesForward(lowered.nodes[i]);
    if (boundary[i] && in_segment >= min_nodes && i + 1 < n) {
      ++current;
      in_segment = 0;
    }
  }
  return segment;
}

void AddRecomputeCalls(LoweredGraph* lowered) {
  for (LoweredNode& ln : lowered->nodes) {
    std::vector<KernelCall> again;
    for (const KernelCall& c : ln.calls) {
      if (c.phase != Phase::kForward) continue;
      again.push_back(c);
      again.back().phase = Phase::kBackward;
    }
    ln.calls.insert(ln.calls.end(), again.begin(), again.end());
  }
}

}  // namespace dlsim
