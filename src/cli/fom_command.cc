// dlsim fom WORKLOADS... [--machine T] [--baseline B] [--format table|json]
#include <cstdio>
#include <iostream>

#include "commands.h"
#include "dlsim/estimate/fom.h"
#include "dlsim/estimate/workload_estimate.h"
#include "dlsim/machine/machine_io.h"
#include "dlsim/machine/workload_io.h"
#include "dlsim/report/fom_report.h"
#include "format_option.h"
#include "output_file.h"

namespace dlsim::cli {
namespace {

struct FomArgs {
  std::vector<std::string> files;
  std::string machine;
  std::string baseline;
  FormatOption format;
  std::string html_path;
};

struct FomInputs {
  std::vector<Workload> workloads;
  std::string target;
  std::string baseline;
};

// A study file's target: or baseline: (`path`, from `file`) kept in `*kept`;
// two files naming different machines are refused unless `option` decides.
Status KeepStudyMachine(const std::string& path, const std::string& file, const char* key,
                        const char* option, bool option_given, std::string* kept,
                        std::string* kept_file) {
  if (path.empty() || option_given) return Status::Ok();
  if (kept->empty()) {
    *kept = path;
    *kept_file = file;
    return Status::Ok();
  }
  if (*kept == path) return Status::Ok();
  return InvalidArgument(file + " names " + key + " " + path + " but " + *kept_file + " names " +
                         *kept + "; give " + option + " to choose");
}

Result<FomInputs> Gather(const FomArgs& args) {
  FomInputs in;
  std::string target_file, baseline_file;
  for (const std::string& f : args.files) {
    DLSIM_ASSIGN_OR_RETURN(WorkloadFile wf, LoadWorkloadFile(f));
    DLSIM_RETURN_IF_ERROR(KeepStudyMachine(wf.target_path, f, "target:", "--machine",
                                           !args.machine.empty(), &in.target, &target_file));
    DLSIM_RETURN_IF_ERROR(KeepStudyMachine(wf.baseline_path, f, "baseline:", "--baseline",
                                           !args.baseline.empty(), &in.baseline, &baseline_file));
    for (Workload& w : wf.workloads) in.workloads.push_back(std::move(w));
  }
  if (!args.machine.empty()) in.target = ResolveMachinePath(args.machine);
  if (!args.baseline.empty()) in.baseline = ResolveMachinePath(args.baseline);
  if (in.target.empty()) return InvalidArgument("no target machine: give --machine or a study file with target:");
  if (in.baseline.empty()) return InvalidArgument("no baseline machine: give --baseline or a study file with baseline:");
  return in;
}

void PrintTable(const FomResult& r) {
  std::printf("FOM of %s against %s\n\n", r.target_machine.c_str(), r.baseline_machine.c_str());
  std::printf("%-28s %16s %16s %16s %16s %10s\n", "workload", "unit time tgt", "unit time base",
              "units/day tgt", "units/day base", "ratio");
  for (const FomRow& row : r.rows) {
    std::printf("%-28.28s %14.3f h %14.3f h %16.1f %16.1f %10.3f\n", row.workload.c_str(),
                row.unit_time_target_s / 3600, row.unit_time_baseline_s / 3600, row.rate_target,
                row.rate_baseline, row.ratio);
  }
  std::printf("\nharmonic mean units/day: target %.2f, baseline %.2f\n", r.h_target, r.h_baseline);
  std::printf("FOM = H(target)/H(baseline) = %.3f   (arithmetic mean of ratios %.3f)\n", r.fom,
              r.arithmetic_mean_ratio);
  std::printf("%s", FomProvenanceText(r).c_str());
}

Status RunFom(const FomArgs& args) {
  DLSIM_ASSIGN_OR_RETURN(const OutputFormat format, args.format.Parse());
  DLSIM_ASSIGN_OR_RETURN(FomInputs in, Gather(args));
  DLSIM_ASSIGN_OR_RETURN(Machine target, LoadMachine(in.target));
  DLSIM_ASSIGN_OR_RETURN(Machine baseline, LoadMachine(in.baseline));
  DLSIM_ASSIGN_OR_RETURN(FomResult r, ComputeFom(in.workloads, target, baseline, MakeStepTimeFn()));
  if (format == OutputFormat::kJson) {
    std::cout << FomToJson(r) << "\n";
  } else if (format == OutputFormat::kCsv) {
    std::cout << FomToCsv(r);
  } else {
    PrintTable(r);
  }
  if (!args.html_path.empty()) return WriteTextFile(args.html_path, FomToHtml(r));
  return Status::Ok();
}

}  // namespace

void RegisterFomCommand(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<FomArgs>();
  auto* cmd = app.add_subcommand("fom", "harmonic-mean figure of merit of a machine against a baseline");
  cmd->add_option("workloads", args->files, "workload or FOM study YAML files")->required();
  cmd->add_option("--machine", args->machine, "target machine (default: the study's target)");
  cmd->add_option("--baseline", args->baseline, "baseline machine (default: the study's baseline)");
  AddFormatOption(cmd, &args->format, {OutputFormat::kTable, OutputFormat::kJson, OutputFormat::kCsv});
  cmd->add_option("--html", args->html_path,
                  "also write a self-contained HTML page to FILE: the FOM, a bar per workload, "
                  "the bands, pricing sources and warnings (docs/fom.md)")
      ->type_name("FILE");
  cmd->callback([args, exit_code] {
    Status s = RunFom(*args);
    *exit_code = s.ok() ? 0 : ReportError(s);
  });
}

}  // namespace dlsim::cli
