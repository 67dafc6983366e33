#include "checkpoint_segments.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
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

// Full recomputation: consecutive segments ending at layer boundaries.
std::vector<int> LayerSegments(const Graph& graph, const LoweredGraph& lowered) {
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

// Where each tensor is written and read, by node index.
struct Edges {
  explicit Edges(const Graph& graph) {
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
      for (const std::string& out : graph.nodes[i].outputs) producer[out] = i;
      for (const std::string& in : graph.nodes[i].inputs) readers[in].push_back(i);
    }
  }
  std::map<std::string, size_t> producer;
  std::map<std::string, std::vector<size_t>> readers;
};

bool IsActivation(const Graph& graph, const std::string& name) {
  const Tensor* t = graph.FindTensor(name);
  return !name.empty() && t != nullptr && !t->is_initializer;
}

// A MatMul of two activations (QKᵀ, P·V), not of an activation and a weight.
bool IsActivationMatMul(const Graph& graph, const Node& node) {
  return node.op_type == "MatMul" && node.inputs.size() == 2 && IsActivation(graph, node.inputs[0]) &&
         IsActivation(graph, node.inputs[1]);
}

// The QKᵀ MatMul whose scores reach `softmax` through elementwise ops (the
// scale, the mask, casts), a few steps back at most.
std::optional<size_t> ScoresMatMul(const Graph& graph, const Edges& e, size_t softmax) {
  static const std::set<std::string> kElementwise = {"Div", "Mul", "Add", "Sub", "Where",
                                                     "Cast", "Clip", "Max", "Min"};
  std::vector<std::string> frontier = {graph.nodes[softmax].Input(0)};
  for (int depth = 0; depth < 6 && !frontier.empty(); ++depth) {
    std::vector<std::string> next;
    for (const std::string& t : frontier) {
      auto p = e.producer.find(t);
      if (p == e.producer.end()) continue;
      const Node& node = graph.nodes[p->second];
      if (IsActivationMatMul(graph, node)) return p->second;
      if (kElementwise.count(node.op_type) == 0) continue;
      for (const std::string& in : node.inputs) {
        if (IsActivation(graph, in)) next.push_back(in);
      }
    }
    frontier = std::move(next);
  }
  return std::nullopt;
}

// The P·V MatMul that reads `softmax`'s probabilities as its first input,
// through a dropout, a cast or a NaN guard at most.
std::optional<size_t> ValuesMatMul(const Graph& graph, const Edges& e, size_t softmax) {
  static const std::set<std::string> kPassThrough = {"Dropout", "Cast", "Where", "Identity"};
  std::vector<std::string> frontier = {graph.nodes[softmax].outputs.empty()
                                           ? std::string() : graph.nodes[softmax].outputs[0]};
  for (int depth = 0; depth < 4 && !frontier.empty(); ++depth) {
    std::vector<std::string> next;
    for (const std::string& t : frontier) {
      auto r = e.readers.find(t);
      if (r == e.readers.end()) continue;
      for (size_t i : r->second) {
        const Node& node = graph.nodes[i];
        if (IsActivationMatMul(graph, node) && node.inputs[0] == t) return i;
        if (kPassThrough.count(node.op_type) == 0 || node.outputs.empty()) continue;
        next.push_back(node.outputs[0]);
      }
    }
    frontier = std::move(next);
  }
  return std::nullopt;
}

// The nodes on a path from node `from` to node `to` (graph order).
std::vector<size_t> NodesBetween(const Graph& graph, size_t from, size_t to) {
  std::set<std::string> reached(graph.nodes[from].outputs.begin(), graph.nodes[from].outputs.end());
  std::vector<bool> after(to + 1, false);
  after[from] = true;
  for (size_t i = from + 1; i <= to; ++i) {
    for (const std::string& in : graph.nodes[i].inputs) after[i] = after[i] || reached.count(in) != 0;
    if (after[i]) reached.insert(graph.nodes[i].outputs.begin(), graph.nodes[i].outputs.end());
  }
  std::set<std::string> needed(graph.nodes[to].inputs.begin(), graph.nodes[to].inputs.end());
  std::vector<size_t> nodes = {to};
  for (size_t i = to; i-- > from;) {
    bool before = false;
    for (const std::string& out : graph.nodes[i].outputs) before = before || needed.count(out) != 0;
    if (!before || !after[i]) continue;
    nodes.push_back(i);
    needed.insert(graph.nodes[i].inputs.begin(), graph.nodes[i].inputs.end());
  }
  return nodes;
}

// Selective recomputation: a segment per attention core.
std::vector<int> AttentionSegments(const Graph& graph, const LoweredGraph& lowered) {
  std::vector<int> segment(graph.nodes.size(), -1);
  int next = 0;
  auto assign = [&](const std::vector<size_t>& nodes) {
    for (size_t i : nodes) {
      if (i < segment.size()) segment[i] = next;
    }
    ++next;
  };
  for (size_t i = 0; i < lowered.nodes.size() && i < graph.nodes.size(); ++i) {
    if (lowered.nodes[i].fused_op == FusedOp::kAttention) assign(lowered.nodes[i].fused_nodes);
    if (graph.nodes[i].op_type == "Attention") assign({i});
  }
  const Edges edges(graph);
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    if (graph.nodes[i].op_type != "Softmax" || segment[i] >= 0) continue;
    const std::optional<size_t> qk = ScoresMatMul(graph, edges, i);
    const std::optional<size_t> pv = ValuesMatMul(graph, edges, i);
    if (qk && pv && *qk < i && i < *pv) assign(NodesBetween(graph, *qk, *pv));
  }
  return segment;
}

}  // namespace

std::vector<int> CheckpointSegments(const Graph& graph, const LoweredGraph& lowered,
                                    Recompute recompute) {
  switch (recompute) {
    case Recompute::kNone: return std::vector<int>(graph.nodes.size(), -1);
    case Recompute::kSelective: return AttentionSegments(graph, lowered);
    case Recompute::kFull: return LayerSegments(graph, lowered);
  }
  return std::vector<int>(graph.nodes.size(), -1);
}

void AddRecomputeCalls(const std::vector<int>& segments, LoweredGraph* lowered) {
  for (size_t i = 0; i < lowered->nodes.size() && i < segments.size(); ++i) {
    if (segments[i] < 0) continue;
    LoweredNode& ln = lowered->nodes[i];
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
