// --format, the same for every sub-command: the text as typed, the formats
// the command prints, and the one parse (dlsim/report/output_format.h) that
// turns it into an OutputFormat or the error every command gives.
#ifndef DLSIM_CLI_FORMAT_OPTION_H_
#define DLSIM_CLI_FORMAT_OPTION_H_

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "dlsim/report/output_format.h"

namespace dlsim::cli {

struct FormatOption {
  std::string text;
  std::vector<OutputFormat> allowed;
  // The format named, or "--format must be table or json, got 'xml'".
  Result<OutputFormat> Parse() const { return ParseOutputFormat(text, allowed); }
};

// Adds --format to `cmd` (help: the allowed formats, then `note`). Its
// default is the first allowed format, or with `no_default` the empty text
// (for a command that infers the format when none is given).
void AddFormatOption(CLI::App* cmd, FormatOption* out, std::vector<OutputFormat> allowed,
                     const std::string& note = "", bool no_default = false);

}  // namespace dlsim::cli

#endif  // DLSIM_CLI_FORMAT_OPTION_H_
