#include "option_rules.h"

namespace dlsim::cli {

bool Given(const CLI::App& cmd, const std::string& name) {
  const CLI::Option* opt = cmd.get_option_no_throw(name);
  return opt != nullptr && opt->count() > 0;
}

OptionGiven GivenOn(const CLI::App& cmd) {
  return [&cmd](const std::string& name) { return Given(cmd, name); };
}

Status RefuseGiven(const CLI::App& cmd, std::initializer_list<const char*> options,
                   const std::string& with, const std::string& reason) {
  return RefuseGivenOptions(GivenOn(cmd), options, with, reason);
}

Status CheckModelOptionsApply(const CLI::App& cmd, const ModelOptions& opts) {
  return dlsim::CheckModelOptionsApply(opts, GivenOn(cmd));
}

Status CheckTableOnly(const CLI::App& cmd, std::initializer_list<const char*> options,
                      OutputFormat format) {
  if (format == OutputFormat::kTable) return Status::Ok();
  return RefuseGiven(cmd, options, std::string("--format ") + OutputFormatName(format),
                     "it shapes the table only");
}

}  // namespace dlsim::cli
