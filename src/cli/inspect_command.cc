// dlsim inspect MODEL.onnx: ops, shapes, FLOPs and parameters; no machine.
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "dlsim/ops/lowering.h"
#include "dlsim/report/report.h"
#include "model_options.h"

namespace dlsim::cli {
namespace {

struct InspectArgs {
  std::string model;
  std::string format = "table";
  bool nodes = false;
  ModelOptions model_opts;
};

Status RunInspect(const InspectArgs& args) {
  if (args.format != "table" && args.format != "json") {
    return InvalidArgument("--format must be table or json, got '" + args.format + "'");
  }
  DLSIM_ASSIGN_OR_RETURN(EstimateOptions eo, ToEstimateOptions(args.model_opts));
  DLSIM_ASSIGN_OR_RETURN(Graph graph, LoadModel(args.model, args.model_opts));
  DLSIM_ASSIGN_OR_RETURN(LoweredGraph lowered, LowerGraph(graph, eo.lowering));
  std::map<std::string, int> op_counts;
  double flops = 0;
  int64_t kernels = 0;
  nlohmann::json nodes = nlohmann::json::array();
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const Node& node = graph.nodes[i];
    ++op_counts[node.op_type];
    double node_flops = 0;
    for (const KernelCall& c : lowered.nodes[i].calls) node_flops += c.flops;
    flops += node_flops;
    kernels += static_cast<int64_t>(lowered.nodes[i].calls.size());
    std::vector<std::string> shapes;
    for (const std::string& out : node.outputs) {
      const Tensor* t = graph.FindTensor(out);
      shapes.push_back(t ? ShapeToString(t->dims) : "?");
    }
    nodes.push_back({{"name", node.name}, {"op_type", node.op_type}, {"outputs", shapes},
                     {"flops", node_flops}, {"kernels", lowered.nodes[i].calls.size()}});
  }
  nlohmann::json inputs = nlohmann::json::object();
  for (const std::string& in : graph.inputs) inputs[in] = ShapeToString(graph.FindTensor(in)->dims);
  if (args.format == "json") {
    nlohmann::json j = {{"model", graph.name}, {"opset", graph.opset}, {"inputs", inputs},
                        {"nodes", graph.nodes.size()}, {"op_counts", op_counts},
                        {"flops", flops}, {"kernels", kernels},
                        {"parameters", graph.ParameterCount()}, {"warnings", lowered.warnings}};
    if (args.nodes) j["node_list"] = nodes;
    std::cout << j.dump(2) << "\n";
    return Status::Ok();
  }
  std::cout << "model " << graph.name << " (opset " << graph.opset << "), " << graph.nodes.size()
            << " nodes, " << graph.ParameterCount() << " parameters\n";
  for (const auto& [name, shape] : inputs.items()) {
    std::cout << "input " << name << ": " << shape.get<std::string>() << "\n";
  }
  std::cout << "forward " << FormatFlops(flops) << " in " << kernels << " kernel calls\n\nops:\n";
  for (const auto& [op, n] : op_counts) std::cout << "  " << op << " " << n << "\n";
  if (args.nodes) {
    std::cout << "\nnodes:\n";
    for (const auto& n : nodes) {
      std::cout << "  " << n["name"].get<std::string>() << " " << n["op_type"].get<std::string>()
                << " -> " << n["outputs"].dump() << "\n";
    }
  }
  for (const std::string& w : lowered.warnings) ReportWarning(w);
  return Status::Ok();
}

}  // namespace

void RegisterInspectCommand(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<InspectArgs>();
  auto* cmd = app.add_subcommand("inspect", "show a model's ops, shapes, FLOPs and parameters");
  cmd->add_option("model", args->model, "ONNX model file")->required();
  cmd->add_option("--format", args->format, "table or json")->capture_default_str();
  cmd->add_flag("--nodes", args->nodes, "list every node with its output shapes");
  AddModelOptions(cmd, &args->model_opts, false);
  cmd->callback([args, exit_code] {
    Status s = RunInspect(*args);
    *exit_code = s.ok() ? 0 : ReportError(s);
  });
}

}  // namespace dlsim::cli
