// dlsim comm --machine M [--table FILE.csv]... [--fit FILE.csv] [--format table|csv]
// Collective times of a machine: its NCCL tables beside the alpha-beta model
// of its links, with the error of the model at every measured size.
#include <cmath>
#include <cstdio>

#include "commands.h"
#include "format_option.h"
#include "dlsim/report/report.h"
#include "option_rules.h"
#include "dlsim/machine/machine_io.h"
#include "dlsim/collective/collective.h"

namespace dlsim::cli {
namespace {

struct CommArgs {
  std::string machine = "h100";
  std::vector<std::string> tables;
  std::vector<std::string> fit_tables;
  std::string fit_collective;  // "" = every collective
  FormatOption format;
};

void PrintRows(const CollectiveModel& model, const CollectiveTable& table, bool csv,
               const std::string& machine) {
  if (csv) {
    std::printf("machine,collective,gpus,bytes,measured_us,alpha_beta_us,method,error_pct\n");
  } else {
    std::printf("%-15s %5s %14s %12s %12s %-13s %8s\n", "collective", "gpus", "bytes",
                "measured_us", "model_us", "model", "error");
  }
  for (const auto& [c, gpus] : table.Keys()) {
    for (const CollectiveTable::Point& p : *table.Rows(c, gpus)) {
      const CommTime ab = model.AlphaBetaTime(c, gpus, p.bytes);
      const double err = (ab.time_s / p.time_s - 1) * 100;
      if (csv) std::printf("%s,", CsvField(machine).c_str());
      std::printf(csv ? "%s,%d,%.0f,%.3f,%.3f,%s,%.1f\n" : "%-15s %5d %14.0f %12.3f %12.3f %-13s %+7.1f%%\n",
                  CollectiveName(c), gpus, p.bytes, p.time_s * 1e6, ab.time_s * 1e6,
                  ab.method.c_str(), err);
    }
  }
}

// The rows of the --fit tables, only --fit-collective's when given.
Result<CollectiveTable> FitRows(const CommArgs& args) {
  CollectiveTable rows;
  for (const std::string& path : args.fit_tables) {
    DLSIM_ASSIGN_OR_RETURN(CollectiveTable t, CollectiveTable::Load(path));
    rows.Merge(t);
  }
  if (args.fit_collective.empty()) return rows;
  DLSIM_ASSIGN_OR_RETURN(Collective only, ParseCollective(args.fit_collective));
  CollectiveTable kept;
  for (const auto& [c, gpus] : rows.Keys()) {
    if (c != only) continue;
    for (const CollectiveTable::Point& p : *rows.Rows(c, gpus)) kept.Add(c, gpus, p);
  }
  return kept;
}

size_t FitRowCount(const CollectiveTable& t) {
  size_t n = 0;
  for (const auto& [c, gpus] : t.Keys()) n += t.Rows(c, gpus)->size();
  return n;
}

Status RunComm(const CLI::App& cmd, const CommArgs& args) {
  DLSIM_ASSIGN_OR_RETURN(const OutputFormat format, args.format.Parse());
  if (args.fit_tables.empty()) {
    DLSIM_RETURN_IF_ERROR(RefuseGiven(cmd, {"--fit-collective"}, "no --fit",
                                      "it picks the rows of the --fit tables"));
  }
  DLSIM_ASSIGN_OR_RETURN(Machine machine, LoadMachineByName(args.machine));
  CollectiveTable table;
  for (const std::string& path : args.tables) {
    DLSIM_ASSIGN_OR_RETURN(CollectiveTable t, CollectiveTable::Load(path));
    table.Merge(t);
  }
  if (args.tables.empty()) {
    DLSIM_ASSIGN_OR_RETURN(CollectiveModel own, CollectiveModel::ForMachine(machine));
    table = own.table();
  }
  if (table.Keys().empty()) {
    return NotFound(machine.source_path + " names no collective table (node.collective_tables); "
                    "give one with --table");
  }
  if (!args.fit_tables.empty()) {
    DLSIM_ASSIGN_OR_RETURN(CollectiveTable fit_on, FitRows(args));
    AlphaBeta fit;
    if (!FitRingLink(fit_on, &fit)) {
      return InvalidArgument("--fit: too few rows to fit a link (need 3 or more)");
    }
    const double line = machine.node.scale_up.bw_bytes_per_s;
    std::printf("# ring link fitted on %zu rows (%s): collective_launch_us %.2f, latency_us %.2f, "
                "%.1f GB/s = efficiency %.3f of %.0f GB/s\n",
                FitRowCount(fit_on), args.fit_collective.empty() ? "every collective"
                                                           : args.fit_collective.c_str(),
                fit.launch_s * 1e6, fit.alpha_s * 1e6,
                fit.bw_bytes_per_s / 1e9, line > 0 ? fit.bw_bytes_per_s / line : 0.0, line / 1e9);
    machine.node.collective_launch_s = fit.launch_s;
    machine.node.scale_up.latency_s = fit.alpha_s;
    if (line > 0) machine.node.scale_up.efficiency = std::min(1.0, fit.bw_bytes_per_s / line);
  }
  const CollectiveModel model(machine, CollectiveTable());
  PrintRows(model, table, format == OutputFormat::kCsv, machine.name);
  return Status::Ok();
}

}  // namespace

void RegisterCommCommand(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<CommArgs>();
  CLI::App* cmd = app.add_subcommand(
      "comm", "compare a machine's alpha-beta collective model with measured NCCL tables");
  cmd->add_option("--machine", args->machine, "machine YAML or bundled name")->capture_default_str();
  cmd->add_option("--table", args->tables,
                  "collective table CSV (dlsim-calibrate nccl); default: the machine's own");
  cmd->add_option("--fit", args->fit_tables,
                  "first fit the node's link (launch, latency, efficiency) to these tables");
  cmd->add_option("--fit-collective", args->fit_collective,
                  "fit on this collective's rows only (all_reduce, reduce_scatter, all_gather)");
  AddFormatOption(cmd, &args->format, {OutputFormat::kTable, OutputFormat::kCsv});
  cmd->callback([cmd, args, exit_code] {
    Status s = RunComm(*cmd, *args);
    if (!s.ok()) *exit_code = ReportError(s);
  });
}

}  // namespace dlsim::cli
