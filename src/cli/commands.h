// Sub-command registration for the dlsim CLI (CLI11 lives in src/cli only).
// Each Register*Command adds one sub-command to `app`; when it runs, its
// callback stores the process exit code in *exit_code.
#ifndef DLSIM_CLI_COMMANDS_H_
#define DLSIM_CLI_COMMANDS_H_

#include <CLI/CLI.hpp>

#include "dlsim/util/status.h"

namespace dlsim::cli {

void RegisterEstimateCommand(CLI::App& app, int* exit_code);
void RegisterInspectCommand(CLI::App& app, int* exit_code);
void RegisterMachinesCommand(CLI::App& app, int* exit_code);
void RegisterPlanCommand(CLI::App& app, int* exit_code);
void RegisterDbCommand(CLI::App& app, int* exit_code);
void RegisterFomCommand(CLI::App& app, int* exit_code);
void RegisterSweepCommand(CLI::App& app, int* exit_code);
void RegisterAnalyzeCommand(CLI::App& app, int* exit_code);
void RegisterCompareCommand(CLI::App& app, int* exit_code);
void RegisterCommCommand(CLI::App& app, int* exit_code);
void RegisterScaleCommand(CLI::App& app, int* exit_code);

// Prints "dlsim: error: <message>" to stderr and returns the exit code for
// the status (1 for user errors, 2 for internal ones).
int ReportError(const Status& status);
// Prints "dlsim: warning: <message>" to stderr.
void ReportWarning(const std::string& message);

}  // namespace dlsim::cli

#endif  // DLSIM_CLI_COMMANDS_H_
