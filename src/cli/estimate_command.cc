// dlsim estimate MODEL.onnx [--machine M] [--batch N] [--dtype D] ...
#include <cstdio>
#include <iostream>
#include <sstream>

#include "commands.h"
#include "dlsim/cost/cost_model.h"
#include "dlsim/estimate/fom.h"
#include "dlsim/estimate/workload_estimate.h"
#include "dlsim/machine/workload_io.h"
#include "dlsim/machine/machine_io.h"
#include "dlsim/report/fom_report.h"
#include "dlsim/report/html_report.h"
#include "dlsim/report/report.h"
#include "format_option.h"
#include "model_options.h"
#include "option_rules.h"
#include "output_file.h"

namespace dlsim::cli {
namespace {

struct EstimateArgs {
  std::string model;
  std::string machine = "h100";
  FormatOption format;
  std::string trace_path;
  std::string csv_path;
  std::string html_path;
  std::string workload;
  int top = 0;
  std::string sort;  // "", "time", "graph"
  bool quiet = false;
  ModelOptions model_opts;
};

// --trace, --csv and --html: the files next to the printed report.
Status WriteReportFiles(const EstimateArgs& args, const Estimate& e, const Machine& machine) {
  if (!args.trace_path.empty()) {
    DLSIM_RETURN_IF_ERROR(WriteTextFile(args.trace_path, EstimateToChromeTrace(e)));
  }
  if (!args.csv_path.empty()) {
    std::ostringstream csv;
    WriteEstimateCsv(csv, e);
    DLSIM_RETURN_IF_ERROR(WriteTextFile(args.csv_path, csv.str()));
  }
  if (!args.html_path.empty()) {
    DLSIM_RETURN_IF_ERROR(WriteTextFile(args.html_path, EstimateToHtml(e, machine, nullptr)));
  }
  return Status::Ok();
}

// --workload: step, epoch, unit time and units/day of each workload, with
// the band, pricing sources and warnings of its estimate.
void PrintWorkloadRate(const WorkloadRate& w) {
  const MachineRate& r = w.rate;
  const double epoch_s = r.step_time_s * static_cast<double>(r.steps_per_epoch);
  std::printf("%s on %s (%s)\n", w.info.name.c_str(), w.machine.c_str(), RateBasisName(r.basis));
  if (r.basis == RateBasis::kEstimated) {
    std::printf("  step %s (P10-P90 %s - %s), %lld steps/epoch, epoch %s\n",
                FormatTime(r.step_time_s).c_str(), FormatTime(r.step.p10_s).c_str(),
                FormatTime(r.step.p90_s).c_str(), static_cast<long long>(r.steps_per_epoch),
                FormatTime(epoch_s).c_str());
  }
  std::printf("  unit of work %.3f h, %lld concurrent units, %.2f units/day\n  %s\n",
              r.unit_time_s / 3600, static_cast<long long>(r.concurrent_units), r.units_per_day,
              RateProvenanceText(r).c_str());
  for (const std::string& text : r.step.warnings) std::printf("  warning: %s\n", text.c_str());
}

Status RunWorkloads(const EstimateArgs& args, OutputFormat format) {
  DLSIM_ASSIGN_OR_RETURN(WorkloadFile wf, LoadWorkloadFile(args.workload));
  DLSIM_ASSIGN_OR_RETURN(Machine machine,
                         LoadMachineWithHost(args.machine, args.model_opts.host_profile));
  StepTimeFn step_time = MakeStepTimeFn();
  std::vector<WorkloadRate> rates;
  for (const Workload& w : wf.workloads) {
    DLSIM_ASSIGN_OR_RETURN(MachineRate r, RateOnMachine(w, machine, step_time));
    rates.push_back({InfoOf(w), machine.name, r});
    if (format == OutputFormat::kTable) PrintWorkloadRate(rates.back());
  }
  if (format == OutputFormat::kJson) std::cout << WorkloadRatesToJson(rates) << "\n";
  if (format == OutputFormat::kCsv) std::cout << WorkloadRatesToCsv(rates);
  return Status::Ok();
}

// --workload: the workload file fixes the model and how it runs; the layer
// table and the one-model files do not exist.
Status CheckWorkloadOptions(const CLI::App& cmd) {
  if (Given(cmd, "model")) {
    return InvalidArgument("give a MODEL.onnx or --workload FILE, not both");
  }
  DLSIM_RETURN_IF_ERROR(RefuseGiven(
      cmd, {"--batch", "--input", "--dim", "--dtype", "--tf32", "--layout", "--strict", "--amp",
            "--fuse", "--mode", "--optimizer", "--checkpoint-activations", "--recompute",
            "--per-tensor-optimizer", "--loss", "--inputs-need-grad", "--gpus", "--zero"},
      "--workload", "the workload file fixes the model, batch, dtype, mode, optimizer and loss"));
  return RefuseGiven(cmd, {"--html", "--trace", "--csv", "--top", "--sort", "--quiet"},
                     "--workload", "it reports one model's layers; --workload prints one row per workload");
}

// One model: --top and --sort order the layer table, which --quiet and the
// other formats do not print.
Status CheckModelReportOptions(const CLI::App& cmd, const EstimateArgs& args, OutputFormat format) {
  DLSIM_RETURN_IF_ERROR(CheckTableOnly(cmd, {"--top", "--sort", "--quiet"}, format));
  if (args.quiet) {
    DLSIM_RETURN_IF_ERROR(RefuseGiven(cmd, {"--top", "--sort"}, "--quiet",
                                      "--quiet prints the headline without the layer table"));
  }
  return CheckModelOptionsApply(cmd, args.model_opts);
}

Status RunEstimate(const CLI::App& cmd, const EstimateArgs& args) {
  DLSIM_ASSIGN_OR_RETURN(const OutputFormat format, args.format.Parse());
  if (!args.workload.empty()) {
    DLSIM_RETURN_IF_ERROR(CheckWorkloadOptions(cmd));
    return RunWorkloads(args, format);
  }
  DLSIM_RETURN_IF_ERROR(CheckModelReportOptions(cmd, args, format));
  if (args.model.empty()) return InvalidArgument("give a MODEL.onnx or --workload FILE");
  DLSIM_ASSIGN_OR_RETURN(EstimateSetup setup, LoadEstimateSetup(args.model, args.model_opts, args.machine));
  const Machine& machine = setup.machine;
  const Graph& graph = setup.graph;
  const CostModel& cost = setup.cost;
  EstimateOptions& eo = setup.options;
  DLSIM_ASSIGN_OR_RETURN(Estimate e, EstimateModel(graph, cost, eo));
  for (const std::string& w : e.warnings) ReportWarning(w);
  ReportOptions ro;
  ro.max_table_rows = args.top;
  // --top lists the slowest layers unless --sort says otherwise.
  ro.sort_by_time = args.sort.empty() ? args.top > 0 : args.sort == "time";
  ro.quiet = args.quiet;
  if (format == OutputFormat::kJson) {
    std::cout << EstimateToJson(e, ro) << "\n";
  } else if (format == OutputFormat::kCsv) {
    WriteEstimateCsv(std::cout, e);
  } else {
    WriteEstimateTable(std::cout, e, ro);
  }
  return WriteReportFiles(args, e, machine);
}

}  // namespace

void RegisterEstimateCommand(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<EstimateArgs>();
  auto* cmd = app.add_subcommand("estimate", "estimate a model's step time on a machine");
  cmd->add_option("model", args->model, "ONNX model file");
  cmd->add_option("--workload", args->workload,
                  "workload YAML: report step, epoch, unit time and units/day instead");
  cmd->add_option("--machine", args->machine, "machine YAML or bundled name (h100, a100, ...)")
      ->capture_default_str();
  AddFormatOption(cmd, &args->format, {OutputFormat::kTable, OutputFormat::kJson, OutputFormat::kCsv}, "(--workload: one row per workload)");
  cmd->add_option("--trace", args->trace_path,
                  "also write the simulated timeline as Chrome-trace JSON")
      ->type_name("FILE");
  cmd->add_option("--csv", args->csv_path, "also write per-layer CSV to FILE")->type_name("FILE");
  cmd->add_option("--html", args->html_path,
                  "also write a self-contained HTML report to FILE: summary, time breakdown, "
                  "critical path, roofline, pricing sources (docs/reports.md)")
      ->type_name("FILE");
  cmd->add_option("--top", args->top, "table: show the this many slowest layers")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--sort", args->sort,
                  "table: layer order, time (slowest first; the default with --top) or graph")
      ->check(CLI::IsMember({"time", "graph"}));
  cmd->add_flag("--quiet", args->quiet, "table: the headline alone (the figure to quote)");
  AddModelOptions(cmd, &args->model_opts, true);
  AddHostOption(cmd, &args->model_opts);
  cmd->callback([cmd, args, exit_code] {
    Status s = RunEstimate(*cmd, *args);
    *exit_code = s.ok() ? 0 : ReportError(s);
  });
}

}  // namespace dlsim::cli
