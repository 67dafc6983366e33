#include "format_option.h"

#include <utility>

namespace dlsim::cli {

void AddFormatOption(CLI::App* cmd, FormatOption* out, std::vector<OutputFormat> allowed,
                     const std::string& note, bool no_default) {
  out->text = no_default ? "" : OutputFormatName(allowed.front());
  out->allowed = std::move(allowed);
  CLI::Option* opt = cmd->add_option("--format", out->text,
                                     OutputFormatList(out->allowed) + (note.empty() ? "" : " " + note));
  if (!no_default) opt->capture_default_str();
}

}  // namespace dlsim::cli
