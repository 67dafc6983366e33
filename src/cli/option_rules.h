// Every option applies or is refused (issue 25): an option given where it
// would have no effect is an error naming it, what it was given with and
// why, e.g. "--batch does not apply with --workload (the workload file fixes
// the model, batch, dtype and mode)". Commands call these before any work.
#ifndef DLSIM_CLI_OPTION_RULES_H_
#define DLSIM_CLI_OPTION_RULES_H_

#include <initializer_list>
#include <string>

#include <CLI/CLI.hpp>

#include "dlsim/estimate/estimate_setup.h"
#include "dlsim/report/output_format.h"
#include "dlsim/util/option_rules.h"
#include "dlsim/util/status.h"

namespace dlsim::cli {

// Whether `name` ("--batch", or a positional's name) was given on `cmd`
// (false for an option `cmd` does not have).
bool Given(const CLI::App& cmd, const std::string& name);
// Given, as the shared rules (dlsim/util/option_rules.h) take it.
OptionGiven GivenOn(const CLI::App& cmd);

// kInvalidArgument "--X does not apply with WITH (REASON)" for the first of
// `options` given on `cmd`; Ok when none was.
Status RefuseGiven(const CLI::App& cmd, std::initializer_list<const char*> options,
                   const std::string& with, const std::string& reason);

// dlsim::CheckModelOptionsApply (estimate_setup.h) with the options given
// on `cmd`.
Status CheckModelOptionsApply(const CLI::App& cmd, const ModelOptions& opts);

// The options of estimate's layer table (--top, --sort, --quiet) and of
// analyze's and compare's (--top) that only the table format prints.
Status CheckTableOnly(const CLI::App& cmd, std::initializer_list<const char*> options,
                      OutputFormat format);

}  // namespace dlsim::cli

#endif  // DLSIM_CLI_OPTION_RULES_H_
