#include "commands.h"

namespace dlsim::cli {

void RegisterPlanCommand(CLI::App& app, int* exit_code) {
  auto* cmd = app.add_subcommand("plan", "(not yet implemented)");
  cmd->callback([exit_code] { *exit_code = ReportError(Unsupported("plan: not yet implemented")); });
}

}  // namespace dlsim::cli
