#include "commands.h"

namespace dlsim::cli {

void RegisterDbCommand(CLI::App& app, int* exit_code) {
  auto* cmd = app.add_subcommand("db", "(not yet implemented)");
  cmd->callback([exit_code] { *exit_code = ReportError(Unsupported("db: not yet implemented")); });
}

}  // namespace dlsim::cli
