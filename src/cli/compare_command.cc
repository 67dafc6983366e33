// dlsim compare MODEL.onnx --profile TRACE.json [--machine M] [--batch N] ...
#include <fstream>
#include <iostream>
#include <sstream>

#include "commands.h"
#include "format_option.h"
#include "output_file.h"
#include "dlsim/cost/cost_model.h"
#include "dlsim/machine/machine_io.h"
#include "dlsim/profile/compare.h"
#include "dlsim/report/compare_report.h"
#include "model_options.h"
#include "option_rules.h"

namespace dlsim::cli {
namespace {

struct CompareArgs {
  std::string model;
  std::string profile;
  std::string machine = "h100";
  FormatOption format;
  std::string csv_path;
  int top = 0;
  double slower_ratio = 1.5;
  int iterations = 0;
  ModelOptions model_opts;
};

Status RunCompare(const CLI::App& cmd, const CompareArgs& args) {
  DLSIM_ASSIGN_OR_RETURN(const OutputFormat format, args.format.Parse());
  DLSIM_RETURN_IF_ERROR(CheckTableOnly(cmd, {"--top"}, format));
  DLSIM_RETURN_IF_ERROR(CheckModelOptionsApply(cmd, args.model_opts));
  if (args.iterations < 0) {
    return InvalidArgument("--iterations must be 0 (detect) or more, got " + std::to_string(args.iterations));
  }
  if (args.slower_ratio <= 1.0) {
    return InvalidArgument("--slower-ratio must be above 1, got " + std::to_string(args.slower_ratio));
  }
  DLSIM_ASSIGN_OR_RETURN(ProfileTrace trace, ReadChromeTrace(args.profile));
  DLSIM_ASSIGN_OR_RETURN(EstimateSetup setup, LoadEstimateSetup(args.model, args.model_opts, args.machine));
  DLSIM_ASSIGN_OR_RETURN(Estimate e, EstimateModel(setup.graph, setup.cost, setup.options));
  CompareOptions co;
  co.slower_ratio = args.slower_ratio;
  co.iterations = args.iterations;
  DLSIM_ASSIGN_OR_RETURN(Comparison cmp, CompareProfile(e, trace, co));
  if (cmp.coverage() < 0.5) {
    ReportWarning("only " + std::to_string(static_cast<int>(100 * cmp.coverage())) +
                  "% of the trace's kernel time aligns with " + args.model +
                  "; is it the same model, batch and dtype?");
  }
  if (format == OutputFormat::kJson) {
    std::cout << ComparisonToJson(cmp) << "\n";
  } else if (format == OutputFormat::kCsv) {
    WriteComparisonCsv(std::cout, cmp);
  } else {
    WriteComparisonTable(std::cout, cmp, args.top);
  }
  if (!args.csv_path.empty()) {
    std::ostringstream csv;
    WriteComparisonCsv(csv, cmp);
    DLSIM_RETURN_IF_ERROR(WriteTextFile(args.csv_path, csv.str()));
  }
  return Status::Ok();
}

}  // namespace

void RegisterCompareCommand(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<CompareArgs>();
  CLI::App* cmd = app.add_subcommand(
      "compare", "compare a measured profile (PyTorch/Kineto Chrome trace) with the estimate, per layer");
  cmd->add_option("model", args->model, "ONNX model file (the model that was profiled)")->required();
  cmd->add_option("--profile", args->profile,
                  "Chrome-trace JSON from torch.profiler (export_chrome_trace) or Kineto")
      ->required();
  cmd->add_option("--machine", args->machine, "machine YAML or bundled name (h100, a100, ...)")
      ->capture_default_str();
  AddFormatOption(cmd, &args->format, {OutputFormat::kTable, OutputFormat::kJson, OutputFormat::kCsv});
  cmd->add_option("--csv", args->csv_path, "also write per-layer CSV to this file");
  cmd->add_option("--top", args->top, "table: show at most this many layers");
  cmd->add_option("--slower-ratio", args->slower_ratio,
                  "flag calls measured over this multiple of the estimate's measured time")
      ->capture_default_str();
  cmd->add_option("--iterations", args->iterations,
                  "model iterations the trace holds (0: detect from the repeating kernel names)")
      ->capture_default_str();
  AddModelOptions(cmd, &args->model_opts, true);
  AddHostOption(cmd, &args->model_opts);
  cmd->callback([cmd, args, exit_code] {
    Status s = RunCompare(*cmd, *args);
    *exit_code = s.ok() ? 0 : ReportError(s);
  });
}

}  // namespace dlsim::cli
