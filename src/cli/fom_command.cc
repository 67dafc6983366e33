#include "commands.h"

namespace dlsim::cli {

void RegisterFomCommand(CLI::App& app, int* exit_code) {
  auto* cmd = app.add_subcommand("fom", "(not yet implemented)");
  cmd->callback([exit_code] { *exit_code = ReportError(Unsupported("fom: not yet implemented")); });
}

}  // namespace dlsim::cli
