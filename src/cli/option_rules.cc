#include "option_rules.h"

#include <optional>

#include "dlsim/util/mode.h"

namespace dlsim::cli {

bool Given(const CLI::App& cmd, const std::string& name) {
  const CLI::Option* opt = cmd.get_option_no_throw(name);
  return opt != nullptr && opt->count() > 0;
}

Status RefuseGiven(const CLI::App& cmd, std::initializer_list<const char*> options,
                   const std::string& with, const std::string& reason) {
  for (const char* name : options) {
    if (Given(cmd, name)) {
      return InvalidArgument(std::string(name) + " does not apply with " + with + " (" + reason + ")");
    }
  }
  return Status::Ok();
}

Status CheckModelOptionsApply(const CLI::App& cmd, const ModelOptions& opts) {
  if (opts.dtype == "fp16" || opts.dtype == "bf16") {
    DLSIM_RETURN_IF_ERROR(RefuseGiven(
        cmd, {"--tf32"}, "--dtype " + opts.dtype,
        "TF32 is a math mode of fp32 convolutions and GEMMs, which run in " + opts.dtype +
            " here, --amp or not"));
  }
  const std::optional<Mode> mode = ModeFromName(opts.mode);
  if (mode && *mode == Mode::kTraining) return Status::Ok();
  const std::string with = Given(cmd, "--mode") ? "--mode " + opts.mode : "inference (the default --mode)";
  return RefuseGiven(cmd, {"--optimizer", "--per-tensor-optimizer"}, with,
                     "an optimizer runs in training only: add --mode training");
}

Status CheckTableOnly(const CLI::App& cmd, std::initializer_list<const char*> options,
                      OutputFormat format) {
  if (format == OutputFormat::kTable) return Status::Ok();
  return RefuseGiven(cmd, options, std::string("--format ") + OutputFormatName(format),
                     "it shapes the table only");
}

}  // namespace dlsim::cli
