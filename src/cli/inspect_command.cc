// dlsim inspect MODEL.onnx: ops, shapes, FLOPs and parameters; no machine.
#include <iostream>

#include "commands.h"
#include "dlsim/ops/lowering.h"
#include "dlsim/report/model_summary.h"
#include "format_option.h"
#include "model_options.h"
#include "option_rules.h"

namespace dlsim::cli {
namespace {

struct InspectArgs {
  std::string model;
  FormatOption format;
  bool nodes = false;
  ModelOptions model_opts;
};

// inspect shows ops, shapes, FLOPs and kernel counts: TF32 and the dtype
// change only the calls' math and bytes, which it does not show (with --amp
// the dtype decides where the casts go).
Status CheckInspectOptions(const CLI::App& cmd, const ModelOptions& opts) {
  const std::string reason = "inspect counts ops, FLOPs and kernels, which the math mode and dtype do not change";
  DLSIM_RETURN_IF_ERROR(RefuseGiven(cmd, {"--tf32"}, "inspect", reason));
  if (!opts.amp) DLSIM_RETURN_IF_ERROR(RefuseGiven(cmd, {"--dtype"}, "inspect without --amp", reason));
  return Status::Ok();
}

Status RunInspect(const CLI::App& cmd, const InspectArgs& args) {
  DLSIM_ASSIGN_OR_RETURN(const OutputFormat format, args.format.Parse());
  DLSIM_RETURN_IF_ERROR(CheckInspectOptions(cmd, args.model_opts));
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
  cmd->callback([cmd, args, exit_code] {
    Status s = RunInspect(*cmd, *args);
    *exit_code = s.ok() ? 0 : ReportError(s);
  });
}

}  // namespace dlsim::cli
