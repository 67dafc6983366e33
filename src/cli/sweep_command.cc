// dlsim sweep WORKLOADS... --machine BASE --grid FIELD=V1,V2 [--grid ...]
//             [--out results.csv] [--html page.html] [--format table|csv] [--threads N]
#include <cstdio>
#include <fstream>
#include <iostream>

#include "commands.h"
#include "format_option.h"
#include "output_file.h"
#include "dlsim/report/report.h"
#include "dlsim/report/sweep_report.h"
#include "dlsim/estimate/sweep.h"
#include "dlsim/estimate/sweep_files.h"

namespace dlsim::cli {
namespace {

struct SweepArgs {
  std::vector<std::string> files;
  std::string machine;
  std::vector<std::string> grid;
  std::string out;
  std::string html_path;
  FormatOption format;
  int threads = 0;
};

void PrintTable(const SweepGrid& grid, const SweepResult& r) {
  std::printf("sweep of %s: %zu variants x %zu workloads, base H = %.4g units/day\n\n",
              r.base_machine.c_str(), r.variants.size(), r.workloads.size(), r.base.h_rate);
  std::printf("%-48s %14s %21s %8s  %s\n", "variant", "H units/day", "H at P90-P10 times", "FOM",
              "priced by (share of kernel time)");
  for (const SweepVariant& v : r.variants) {
    std::printf("%-48s %14.4g %10.4g-%-10.4g %8.3f  %s\n", v.name.c_str(), v.h_rate,
                v.h_rate_low, v.h_rate_high, v.fom, SourceShareText(v.source_share).c_str());
  }
  std::printf("\nsensitivity (range of mean FOM over each field's values):\n");
  for (const FieldSensitivity& s : r.sensitivity) {
    const SweepAxis* axis = nullptr;
    for (const SweepAxis& a : grid.axes) if (a.field == s.field) axis = &a;
    std::printf("  %-20s range %7.3f   mean FOM:", s.field.c_str(), s.fom_range);
    for (size_t j = 0; j < s.mean_fom_by_value.size(); ++j) {
      std::printf(" %s=%.3f", axis->values[j].text.c_str(), s.mean_fom_by_value[j]);
    }
    std::printf("\n");
  }
}

Status RunSweepCommand(const SweepArgs& args) {
  DLSIM_ASSIGN_OR_RETURN(const OutputFormat format, args.format.Parse());
  SweepOptions options;
  options.threads = args.threads;
  DLSIM_ASSIGN_OR_RETURN(SweepRun run, RunSweepOnFiles(args.files, args.machine, args.grid, options));
  const SweepGrid& grid = run.grid;
  const SweepResult& r = run.result;
  const std::string csv = SweepCsv(grid, r);
  if (!args.out.empty()) {
    DLSIM_RETURN_IF_ERROR(WriteTextFile(args.out, csv));
  }
  if (!args.html_path.empty()) {
    DLSIM_RETURN_IF_ERROR(WriteTextFile(args.html_path, SweepToHtml(grid, r)));
  }
  if (format == OutputFormat::kCsv) {
    std::cout << csv;
  } else {
    PrintTable(grid, r);
  }
  return Status::Ok();
}

}  // namespace

void RegisterSweepCommand(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<SweepArgs>();
  auto* cmd = app.add_subcommand(
      "sweep", "what-if sweep: FOM of variants of a machine over a grid of field values");
  cmd->footer(
      "Each --grid FIELD=V1,V2,... adds an axis; variants are the Cartesian product.\n"
      "A value xF multiplies the base figure by F; a plain number sets it (SI units).\n"
      "Fields: device.memory_bw, device.matrix_peak, device.vector_peak, device.sm_count,\n"
      "node.gpus_per_node, system.nodes, node.nic_bw, host.dispatch (or the part after the dot).\n"
      "Variants are priced from the base machine's calibration, scaled to their specs;\n"
      "FOM = harmonic mean units/day of the variant / that of the base.\n"
      "Example: dlsim sweep workloads/resnet50-imagenet.yaml --machine h100 \\\n"
      "           --grid memory_bw=x1,x1.5,x2 --grid matrix_peak=x1,x2 --grid nodes=1,4");
  cmd->add_option("workloads", args->files, "workload or FOM study YAML files")->required();
  cmd->add_option("--machine", args->machine, "base machine (default: the study's target)");
  cmd->add_option("--grid", args->grid, "FIELD=V1,V2,... (repeatable)")
      ->required()
      ->allow_extra_args(false);
  cmd->add_option("--out", args->out, "also write the CSV rows to this file");
  cmd->add_option("--html", args->html_path,
                  "also write an HTML page (FOM per variant, what moves it, the table) to this file");
  AddFormatOption(cmd, &args->format, {OutputFormat::kTable, OutputFormat::kCsv}, "(stdout)");
  cmd->add_option("--threads", args->threads, "worker threads (0: all cores)")->capture_default_str();
  cmd->callback([args, exit_code] {
    Status s = RunSweepCommand(*args);
    *exit_code = s.ok() ? 0 : ReportError(s);
  });
}

}  // namespace dlsim::cli
