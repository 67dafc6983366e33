// dlsim compare (placeholder until the command lands).
#include "commands.h"

namespace dlsim::cli {

void RegisterCompareCommand(CLI::App& app, int* exit_code) {
  CLI::App* cmd = app.add_subcommand("compare", "(not yet available)");
  cmd->callback([exit_code] {
    *exit_code = ReportError(Unsupported("dlsim compare is not built yet"));
  });
}

}  // namespace dlsim::cli
