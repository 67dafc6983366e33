// dlsim estimate MODEL.onnx [--machine M] [--batch N] [--dtype D] ...
#include <fstream>
#include <iostream>

#include "commands.h"
#include "dlsim/cost/cost_model.h"
#include "dlsim/machine/machine_io.h"
#include "dlsim/report/report.h"
#include "model_options.h"

namespace dlsim::cli {
namespace {

struct EstimateArgs {
  std::string model;
  std::string machine = "h100";
  std::string format = "table";
  std::string trace_path;
  std::string csv_path;
  int top = 0;
  ModelOptions model_opts;
};

Status WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  if (!out) return IoError("cannot write " + path);
  out << text;
  out.close();
  if (!out) return IoError("writing " + path + " failed");
  return Status::Ok();
}

Status RunEstimate(const EstimateArgs& args) {
  DLSIM_ASSIGN_OR_RETURN(EstimateOptions eo, ToEstimateOptions(args.model_opts));
  if (args.format != "table" && args.format != "json" && args.format != "csv") {
    return InvalidArgument("--format must be table, json or csv, got '" + args.format + "'");
  }
  DLSIM_ASSIGN_OR_RETURN(Machine machine, LoadMachine(ResolveMachinePath(args.machine)));
  DLSIM_ASSIGN_OR_RETURN(Graph graph, LoadModel(args.model, args.model_opts));
  DLSIM_ASSIGN_OR_RETURN(CostModel cost, CostModel::ForMachine(machine));
  if (eo.batch == 0 && !graph.inputs.empty()) {
    const Tensor* in = graph.FindTensor(graph.inputs[0]);
    if (in != nullptr && !in->dims.empty()) eo.batch = in->dims[0];
  }
  DLSIM_ASSIGN_OR_RETURN(Estimate e, EstimateModel(graph, cost, eo));
  for (const std::string& w : e.warnings) ReportWarning(w);
  if (e.mode == "training" && e.memory.total_bytes() > machine.device.memory_bytes) {
    return OutOfRange("training footprint " + FormatBytes(e.memory.total_bytes()) +
                      " exceeds " + machine.name + "'s memory " +
                      FormatBytes(machine.device.memory_bytes) + "; the largest batch that fits is " +
                      std::to_string(LargestBatchThatFits(e.memory, e.batch, machine.device.memory_bytes)));
  }
  ReportOptions ro;
  ro.max_table_rows = args.top;
  if (args.format == "json") {
    std::cout << EstimateToJson(e, ro) << "\n";
  } else if (args.format == "csv") {
    WriteEstimateCsv(std::cout, e);
  } else {
    WriteEstimateTable(std::cout, e, ro);
  }
  if (!args.trace_path.empty()) DLSIM_RETURN_IF_ERROR(WriteFile(args.trace_path, EstimateToChromeTrace(e)));
  if (!args.csv_path.empty()) {
    std::ofstream csv(args.csv_path);
    if (!csv) return IoError("cannot write " + args.csv_path);
    WriteEstimateCsv(csv, e);
  }
  return Status::Ok();
}

}  // namespace

void RegisterEstimateCommand(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<EstimateArgs>();
  auto* cmd = app.add_subcommand("estimate", "estimate a model's step time on a machine");
  cmd->add_option("model", args->model, "ONNX model file")->required();
  cmd->add_option("--machine", args->machine, "machine YAML or bundled name (h100, a100, ...)")
      ->capture_default_str();
  cmd->add_option("--format", args->format, "table, json or csv")->capture_default_str();
  cmd->add_option("--trace", args->trace_path, "write the simulated timeline as Chrome-trace JSON");
  cmd->add_option("--csv", args->csv_path, "also write per-layer CSV to this file");
  cmd->add_option("--top", args->top, "table: show at most this many layers");
  AddModelOptions(cmd, &args->model_opts, true);
  cmd->callback([args, exit_code] {
    Status s = RunEstimate(*args);
    *exit_code = s.ok() ? 0 : ReportError(s);
  });
}

}  // namespace dlsim::cli
