#include "commands.h"

namespace dlsim::cli {

void RegisterMachinesCommand(CLI::App& app, int* exit_code) {
  auto* cmd = app.add_subcommand("machines", "(not yet implemented)");
  cmd->callback([exit_code] { *exit_code = ReportError(Unsupported("machines: not yet implemented")); });
}

}  // namespace dlsim::cli
