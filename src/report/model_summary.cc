#include "dlsim/report/model_summary.h"

#include <nlohmann/json.hpp>

#include "dlsim/report/report.h"

namespace dlsim {

ModelSummary SummariseModel(const Graph& graph, const LoweredGraph& lowered) {
  ModelSummary s;
  s.model = graph.name;
  s.opset = graph.opset;
  s.parameters = graph.ParameterCount();
  s.warnings = lowered.warnings;
  for (const std::string& in : graph.inputs) s.inputs[in] = ShapeToString(graph.FindTensor(in)->dims);
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const Node& node = graph.nodes[i];
    ++s.op_counts[node.op_type];
    NodeSummary n;
    n.name = node.name;
    n.op_type = node.op_type;
    for (const KernelCall& c : lowered.nodes[i].calls) n.flops += c.flops;
    n.kernels = static_cast<int64_t>(lowered.nodes[i].calls.size());
    for (const std::string& out : node.outputs) {
      const Tensor* t = graph.FindTensor(out);
      n.output_shapes.push_back(t ? ShapeToString(t->dims) : "?");
    }
    s.flops += n.flops;
    s.kernels += n.kernels;
    s.nodes.push_back(std::move(n));
  }
  return s;
}

std::string ModelSummaryToJson(const ModelSummary& s, bool with_nodes) {
  nlohmann::json j = {{"model", s.model}, {"opset", s.opset}, {"inputs", s.inputs},
                      {"nodes", s.nodes.size()}, {"op_counts", s.op_counts},
                      {"flops", s.flops}, {"kernels", s.kernels},
                      {"parameters", s.parameters}, {"warnings", s.warnings}};
  if (with_nodes) {
    nlohmann::json nodes = nlohmann::json::array();
    for (const NodeSummary& n : s.nodes) {
      nodes.push_back({{"name", n.name}, {"op_type", n.op_type}, {"outputs", n.output_shapes},
                       {"flops", n.flops}, {"kernels", n.kernels}});
    }
    j["node_list"] = nodes;
  }
  return j.dump(2);
}

void WriteModelSummaryTable(std::ostream& out, const ModelSummary& s, bool with_nodes) {
  out << "model " << s.model << " (opset " << s.opset << "), " << s.nodes.size() << " nodes, "
      << s.parameters << " parameters\n";
  for (const auto& [name, shape] : s.inputs) out << "input " << name << ": " << shape << "\n";
  out << "forward " << FormatFlops(s.flops) << " in " << s.kernels << " kernel calls\n\nops:\n";
  for (const auto& [op, n] : s.op_counts) out << "  " << op << " " << n << "\n";
  if (!with_nodes) return;
  out << "\nnodes:\n";
  for (const NodeSummary& n : s.nodes) {
    out << "  " << n.name << " " << n.op_type << " -> " << nlohmann::json(n.output_shapes).dump()
        << "\n";
  }
}

}  // namespace dlsim
