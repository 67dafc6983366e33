// dlsim analyze (placeholder until the command lands).
#include "commands.h"

namespace dlsim::cli {

void RegisterAnalyzeCommand(CLI::App& app, int* exit_code) {
  CLI::App* cmd = app.add_subcommand("analyze", "(not yet available)");
  cmd->callback([exit_code] {
    *exit_code = ReportError(Unsupported("dlsim analyze is not built yet"));
  });
}

}  // namespace dlsim::cli
