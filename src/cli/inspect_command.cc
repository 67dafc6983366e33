// dlsim inspect MODEL.onnx: ops, shapes, FLOPs and parameters; no machine.
#include <iostream>

#include "commands.h"
#include "dlsim/ops/lowering.h"
#include "dlsim/report/model_summary.h"
#include "format_option.h"
#include "model_options.h"

namespace dlsim::cli {
namespace {

struct InspectArgs {
  std::string model;
  FormatOption format;
  bool nodes = false;
  ModelOptions model_opts;
};

Status RunInspect(const InspectArgs& args) {
  DLSIM_ASSIGN_OR_RETURN(const OutputFormat format, args.format.Parse());
  DLSIM_ASSIGN_OR_RETURN(EstimateOptions eo, ToEstimateOptions(args.model_opts));
  DLSIM_ASSIGN_OR_RETURN(Graph graph, LoadModel(args.model, args.model_opts));
  DLSIM_ASSIGN_OR_RETURN(LoweredGraph lowered, LowerGraph(graph, eo.lowering));
  const ModelSummary summary = SummariseModel(graph, lowered);
  if (format == OutputFormat::kJson) {
    std::cout << ModelSummaryToJson(summary, args.nodes) << "\n";
    return Status::Ok();
  }
  WriteModelSummaryTable(std::cout, summary, args.nodes);
  for (const std::string& w : lowered.warnings) ReportWarning(w);
  return Status::Ok();
}

}  // namespace

void RegisterInspectCommand(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<InspectArgs>();
  auto* cmd = app.add_subcommand("inspect", "show a model's ops, shapes, FLOPs and parameters");
  cmd->add_option("model", args->model, "ONNX model file")->required();
  AddFormatOption(cmd, &args->format, {OutputFormat::kTable, OutputFormat::kJson});
  cmd->add_flag("--nodes", args->nodes, "list every node with its output shapes");
  AddModelOptions(cmd, &args->model_opts, false);
  cmd->callback([args, exit_code] {
    Status s = RunInspect(*args);
    *exit_code = s.ok() ? 0 : ReportError(s);
  });
}

}  // namespace dlsim::cli
