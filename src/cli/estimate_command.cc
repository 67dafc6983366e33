#include "commands.h"

namespace dlsim::cli {

void RegisterEstimateCommand(CLI::App& app, int* exit_code) {
  auto* cmd = app.add_subcommand("estimate", "(not yet implemented)");
  cmd->callback([exit_code] { *exit_code = ReportError(Unsupported("estimate: not yet implemented")); });
}

}  // namespace dlsim::cli
