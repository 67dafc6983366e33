// dlsim command-line entry point. The only place that prints and exits.
#include <cstdio>
#include <iostream>

#include "commands.h"

namespace dlsim::cli {

int ReportError(const Status& status) {
  std::cerr << "dlsim: error: " << status.message() << "\n";
  return status.code() == StatusCode::kInternal ? 2 : 1;
}

void ReportWarning(const std::string& message) {
  std::cerr << "dlsim: warning: " << message << "\n";
}

}  // namespace dlsim::cli

int main(int argc, char** argv) {
  CLI::App app{"dlsim: estimate deep-learning run times on GPUs from ONNX models"};
  app.set_version_flag("--version", "dlsim 0.1.0");
  app.require_subcommand(1);
  int exit_code = 0;
  dlsim::cli::RegisterEstimateCommand(app, &exit_code);
  dlsim::cli::RegisterInspectCommand(app, &exit_code);
  dlsim::cli::RegisterMachinesCommand(app, &exit_code);
  dlsim::cli::RegisterPlanCommand(app, &exit_code);
  dlsim::cli::RegisterDbCommand(app, &exit_code);
  dlsim::cli::RegisterFomCommand(app, &exit_code);
  dlsim::cli::RegisterSweepCommand(app, &exit_code);
  dlsim::cli::RegisterAnalyzeCommand(app, &exit_code);
  dlsim::cli::RegisterCompareCommand(app, &exit_code);
  dlsim::cli::RegisterCommCommand(app, &exit_code);
  dlsim::cli::RegisterScaleCommand(app, &exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version are "errors" that exit 0; CLI11 prints those itself.
    if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) return app.exit(e);
    // A bad command line is bad input like any other: same prefix, exit 1
    // (CLI11's own codes, 104 for a conversion error, would read as a crash).
    std::cerr << "dlsim: error: " << e.what() << " (run with --help for the options)\n";
    return 1;
  }
  return exit_code;
}
