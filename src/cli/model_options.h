// Options shared by commands that load and lower a model (estimate, plan,
// inspect): --batch, --input, --dtype, --tf32, --mode, --strict. The options
// themselves and their checks are the library's (dlsim/estimate/estimate_setup.h,
// shared with the Python module); this adds them to a CLI11 command.
#ifndef DLSIM_CLI_MODEL_OPTIONS_H_
#define DLSIM_CLI_MODEL_OPTIONS_H_

#include <CLI/CLI.hpp>

#include "dlsim/estimate/estimate_setup.h"

namespace dlsim::cli {

// Adds the options to `cmd`; `with_training` adds --mode and --optimizer.
void AddModelOptions(CLI::App* cmd, ModelOptions* opts, bool with_training);
// Adds --host FILE (commands that price on a machine: estimate, analyze, compare).
void AddHostOption(CLI::App* cmd, ModelOptions* opts);

}  // namespace dlsim::cli

#endif  // DLSIM_CLI_MODEL_OPTIONS_H_
