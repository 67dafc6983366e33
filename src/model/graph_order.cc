#include "graph_order.h"

#include <functional>
#include <queue>
#include <unordered_map>
#include <unordered_set>

namespace dlsim {
namespace {

std::string NodeLabel(const Node& node) {
  return "node '" + node.name + "' (" + node.op_type + ")";
}

// Maps each value to the index of the node producing it.
Result<std::unordered_map<std::string, size_t>> MapProducers(const Graph& graph,
                                                             const std::string& file) {
  std::unordered_map<std::string, size_t> producer;
  producer.reserve(graph.nodes.size() * 2);
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const Node& node = graph.nodes[i];
    for (const std::string& out : node.outputs) {
      if (out.empty()) continue;
      const Tensor* t = graph.FindTensor(out);
      if (t != nullptr && (t->is_initializer || t->is_graph_input)) {
        return InvalidArgument(file + ": " + NodeLabel(node) + " output '" + out +
                               "' is also a graph " +
                               (t->is_initializer ? "initializer" : "input"));
      }
      auto [it, inserted] = producer.emplace(out, i);
      if (!inserted) {
        return InvalidArgument(file + ": output '" + out + "' is produced twice, by " +
                               NodeLabel(graph.nodes[it->second]) + " and " + NodeLabel(node));
      }
    }
  }
  return producer;
}

// Walks back from an unsorted node through unsorted producers until a node
// repeats: that node lies on a cycle (an unsorted node that is not on one is
// downstream of one).
size_t NodeOnCycle(const Graph& graph, const std::unordered_map<std::string, size_t>& producer,
                   const std::vector<size_t>& pending) {
  size_t i = 0;
  while (pending[i] == 0) ++i;
  std::vector<bool> visited(graph.nodes.size(), false);
  while (!visited[i]) {
    visited[i] = true;
    for (const std::string& in : graph.nodes[i].inputs) {
      auto it = in.empty() ? producer.end() : producer.find(in);
      if (it != producer.end() && pending[it->second] != 0) {
        i = it->second;
        break;
      }
    }
  }
  return i;
}

}  // namespace

void AssignUniqueNodeNames(Graph& graph) {
  std::unordered_set<std::string> used;
  for (const Node& node : graph.nodes) {
    if (!node.name.empty()) used.insert(node.name);
  }
  std::unordered_set<std::string> seen;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    Node& node = graph.nodes[i];
    if (!node.name.empty() && seen.insert(node.name).second) continue;
    const std::string base = node.name.empty() ? node.op_type + "_" + std::to_string(i)
                                               : node.name + "_" + std::to_string(i);
    std::string name = base;
    for (int k = 1; used.count(name) != 0; ++k) name = base + "_" + std::to_string(k);
    node.name = name;
    used.insert(name);
    seen.insert(name);
  }
}

Status SortNodesTopologically(Graph& graph, const std::string& file) {
  DLSIM_ASSIGN_OR_RETURN(auto producer, MapProducers(graph, file));
  const size_t n = graph.nodes.size();
  std::vector<std::vector<size_t>> consumers(n);
  std::vector<size_t> pending(n, 0);
  for (size_t i = 0; i < n; ++i) {
    const Node& node = graph.nodes[i];
    for (const std::string& in : node.inputs) {
      if (in.empty()) continue;
      auto it = producer.find(in);
      if (it != producer.end()) {
        consumers[it->second].push_back(i);
        ++pending[i];
      } else if (graph.FindTensor(in) == nullptr) {
        return InvalidArgument(file + ": " + NodeLabel(node) + " input '" + in +
                               "' is not a graph input, an initializer or any node's output");
      }
    }
  }
  std::priority_queue<size_t, std::vector<size_t>, std::greater<size_t>> ready;
  for (size_t i = 0; i < n; ++i) {
    if (pending[i] == 0) ready.push(i);
  }
  std::vector<size_t> order;
  order.reserve(n);
  while (!ready.empty()) {
    const size_t i = ready.top();
    ready.pop();
    order.push_back(i);
    for (size_t c : consumers[i]) {
      if (--pending[c] == 0) ready.push(c);
    }
  }
  if (order.size() != n) {
    return InvalidArgument(file + ": the graph has a cycle through " +
                           NodeLabel(graph.nodes[NodeOnCycle(graph, producer, pending)]));
  }
  std::vector<Node> sorted;
  sorted.reserve(n);
  for (size_t i : order) sorted.push_back(std::move(graph.nodes[i]));
  graph.nodes = std::move(sorted);
  return Status::Ok();
}

}  // namespace dlsim
