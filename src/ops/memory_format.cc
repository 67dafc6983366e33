#include "memory_format.h"

#include <map>
#include <vector>

#include "op_registry.h"

namespace dlsim {
namespace {

const std::vector<int64_t> kToNchw = {0, 3, 1, 2};
const std::vector<int64_t> kToNhwc = {0, 2, 3, 1};

bool Is4d(const Graph& graph, const std::string& name) {
  const Tensor* t = graph.FindTensor(name);
  return t != nullptr && t->dims.size() == 4;
}

// Ops whose output takes the memory format of their first full-size input.
bool KeepsFormat(const std::string& op) {
  return IsPointwiseOp(op) || op == "BatchNormalization" || op == "MaxPool" ||
         op == "AveragePool" || op == "GlobalAveragePool" || op == "GlobalMaxPool" ||
         op == "Dropout" || op == "Identity";
}

bool FirstFullSizeInputIs(const Graph& graph, const Node& node,
                          const std::set<std::string>& channels_last) {
  const Tensor* out = graph.FindTensor(node.outputs[0]);
  for (const std::string& in : node.inputs) {
    const Tensor* t = in.empty() ? nullptr : graph.FindTensor(in);
    if (t == nullptr || t->dims != out->dims) continue;
    return channels_last.count(in) != 0;
  }
  // Pooling changes the shape: its one data input decides.
  return !node.inputs.empty() && !IsPointwiseOp(node.op_type) &&
         channels_last.count(node.inputs[0]) != 0;
}

bool OutputChannelsLast(const Graph& graph, const Node& node,
                        const std::set<std::string>& channels_last) {
  if (node.inputs.empty() || node.inputs[0].empty()) return false;
  const std::string& x = node.inputs[0];
  if (node.op_type == "Transpose") {
    return Is4d(graph, x) && node.GetInts("perm", {}) == kToNchw && channels_last.count(x) == 0;
  }
  if (node.op_type == "Conv") return channels_last.count(x) != 0;
  if (KeepsFormat(node.op_type)) return FirstFullSizeInputIs(graph, node, channels_last);
  return false;
}

}  // namespace

MemoryFormats AnalyzeMemoryFormats(const Graph& graph) {
  MemoryFormats f;
  for (const Node& node : graph.nodes) {
    if (node.outputs.empty() || node.outputs[0].empty() || !Is4d(graph, node.outputs[0])) continue;
    if (OutputChannelsLast(graph, node, f.channels_last)) f.channels_last.insert(node.outputs[0]);
  }
  // Whether every reader of a tensor takes channels-last input.
  std::map<std::string, bool> readers_accept;
  for (const Node& reader : graph.nodes) {
    const bool accepts = reader.op_type == "Conv" || KeepsFormat(reader.op_type);
    for (const std::string& in : reader.inputs) {
      auto [it, inserted] = readers_accept.emplace(in, accepts);
      if (!inserted) it->second = it->second && accepts;
    }
  }
  for (const std::string& out : graph.outputs) readers_accept[out] = false;
  for (const Node& node : graph.nodes) {
    if (node.op_type != "Transpose" || node.inputs.empty() || node.outputs.size() != 1) continue;
    const std::vector<int64_t> perm = node.GetInts("perm", {});
    const std::string& out = node.outputs[0];
    auto readers = readers_accept.find(out);
    const bool view =
        perm == kToNhwc ? f.channels_last.count(node.inputs[0]) != 0
                        : perm == kToNchw && f.channels_last.count(out) != 0 &&
                              readers != readers_accept.end() && readers->second;
    if (view) f.views.insert(out);
  }
  return f;
}

}  // namespace dlsim
