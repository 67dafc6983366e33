#include "commands.h"

namespace dlsim::cli {

void RegisterInspectCommand(CLI::App& app, int* exit_code) {
  auto* cmd = app.add_subcommand("inspect", "(not yet implemented)");
  cmd->callback([exit_code] { *exit_code = ReportError(Unsupported("inspect: not yet implemented")); });
}

}  // namespace dlsim::cli
