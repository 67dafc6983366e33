// dlsim analyze MODEL.onnx [--machine M] [--batch N] [--dtype D] ...:
// optimisation advice ranked by the time it saves (docs/analyze.md).
#include <cstdio>
#include <iostream>

#include "commands.h"
#include "dlsim/analyze/analyze.h"
#include "dlsim/machine/machine_io.h"
#include "dlsim/report/analysis_report.h"
#include "dlsim/report/html_report.h"
#include "dlsim/report/report.h"
#include "format_option.h"
#include "model_options.h"
#include "option_rules.h"
#include "output_file.h"

namespace dlsim::cli {
namespace {

struct AnalyzeArgs {
  std::string model;
  std::string machine = "h100";
  FormatOption format;
  std::string algo_db;
  std::string html_path;
  int top = 5;
  ModelOptions model_opts;
};

void PrintTable(const Analysis& a, int top) {
  const Estimate& e = a.baseline;
  std::printf("%s on %s: batch %lld, %s, %s\n", e.model.c_str(), e.machine.c_str(),
              static_cast<long long>(e.batch), PrecisionName(e.precision), ModeName(e.mode));
  std::printf("baseline: one stream %s, critical path %s\n\n", FormatTime(e.gpu_time_s).c_str(),
              FormatTime(e.critical_path_s).c_str());
  if (a.advice.empty()) std::printf("no advice saves time\n");
  int rank = 0;
  for (const Advice& adv : a.advice) {
    const double pct = adv.baseline_s > 0 ? 100 * adv.saved_s() / adv.baseline_s : 0;
    std::printf("%d. [%s] %s\n   saves %s (%.1f %%): %s -> %s\n", ++rank, adv.kind.c_str(),
                adv.title.c_str(), FormatTime(adv.saved_s()).c_str(), pct,
                FormatTime(adv.baseline_s).c_str(), FormatTime(adv.improved_s).c_str());
    if (!adv.note.empty()) std::printf("   %s\n", adv.note.c_str());
    size_t shown = 0;
    for (const LayerAdvice& l : adv.layers) {
      if (top > 0 && shown == static_cast<size_t>(top)) break;
      std::printf("     %10s  %s: %s\n", FormatTime(l.saved_s).c_str(), l.layer.c_str(),
                  l.detail.c_str());
      ++shown;
    }
    if (shown < adv.layers.size()) {
      std::printf("     ... %zu more layers (--top 0 shows all)\n", adv.layers.size() - shown);
    }
    std::printf("\n");
  }
  if (!a.notes.empty()) std::printf("notes:\n");
  for (const std::string& n : a.notes) std::printf("  - %s\n", n.c_str());
}

Status RunAnalyze(const CLI::App& cmd, const AnalyzeArgs& args) {
  DLSIM_ASSIGN_OR_RETURN(const OutputFormat format, args.format.Parse());
  DLSIM_RETURN_IF_ERROR(CheckTableOnly(cmd, {"--top"}, format));
  DLSIM_RETURN_IF_ERROR(CheckModelOptionsApply(cmd, args.model_opts));
  if (args.top < 0) return InvalidArgument("--top must be 0 (all) or more");
  DLSIM_ASSIGN_OR_RETURN(EstimateSetup setup, LoadEstimateSetup(args.model, args.model_opts, args.machine));
  const Machine& machine = setup.machine;
  const Graph& graph = setup.graph;
  const CostModel& cost = setup.cost;
  EstimateOptions& eo = setup.options;
  std::vector<std::string> notes;
  DLSIM_ASSIGN_OR_RETURN(std::optional<TimingTable> algorithms,
                         LoadAlgorithmTable(machine, args.algo_db, &notes));
  AnalyzeOptions ao;
  if (algorithms) ao.algorithms = &*algorithms;
  DLSIM_ASSIGN_OR_RETURN(Analysis analysis, AnalyzeModel(graph, cost, eo, ao));
  for (const std::string& w : analysis.baseline.warnings) ReportWarning(w);
  analysis.notes.insert(analysis.notes.begin(), notes.begin(), notes.end());
  if (format == OutputFormat::kJson) {
    std::cout << AnalysisToJson(analysis) << "\n";
  } else {
    PrintTable(analysis, args.top);
  }
  if (args.html_path.empty()) return Status::Ok();
  return WriteTextFile(args.html_path, EstimateToHtml(analysis.baseline, machine, &analysis));
}

}  // namespace

void RegisterAnalyzeCommand(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<AnalyzeArgs>();
  auto* cmd = app.add_subcommand(
      "analyze", "optimisation advice (streams, algorithms, fusion, precision, layout), ranked");
  cmd->add_option("model", args->model, "ONNX model file")->required();
  cmd->add_option("--machine", args->machine, "machine YAML or bundled name (h100, a100, ...)")
      ->capture_default_str();
  AddFormatOption(cmd, &args->format, {OutputFormat::kTable, OutputFormat::kJson});
  cmd->add_option("--top", args->top, "table: layers shown per advice (0 = all)")
      ->capture_default_str();
  cmd->add_option("--algo-db", args->algo_db,
                  "database with every cuDNN algorithm per convolution (default: the machine's "
                  "calibration.algorithm_db)");
  cmd->add_option("--html", args->html_path,
                  "also write the self-contained HTML report of the estimate, with this advice, "
                  "to FILE (docs/reports.md)")
      ->type_name("FILE");
  AddModelOptions(cmd, &args->model_opts, true);
  AddHostOption(cmd, &args->model_opts);
  cmd->callback([cmd, args, exit_code] {
    Status s = RunAnalyze(*cmd, *args);
    *exit_code = s.ok() ? 0 : ReportError(s);
  });
}

}  // namespace dlsim::cli
