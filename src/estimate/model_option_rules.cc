// CheckModelOptionsApply (estimate_setup.h): shared by the command line and
// the Python module.
#include <optional>

#include "dlsim/estimate/estimate_setup.h"
#include "dlsim/util/mode.h"
#include "dlsim/util/precision.h"

namespace dlsim {

Status CheckModelOptionsApply(const ModelOptions& opts, const OptionGiven& given) {
  const Result<Precision> precision = ParsePrecision(opts.dtype);
  if (precision.ok() && (*precision == Precision::kFp16 || *precision == Precision::kBf16)) {
    DLSIM_RETURN_IF_ERROR(RefuseGivenOptions(
        given, {"--tf32"}, "--dtype " + opts.dtype,
        "TF32 is a math mode of fp32 convolutions and GEMMs, which run in " + opts.dtype +
            " here, --amp or not"));
  }
  const std::optional<Mode> mode = ModeFromName(opts.mode);
  if (mode && *mode == Mode::kTraining) return Status::Ok();
  const std::string with = given("--mode") ? "--mode " + opts.mode : "inference (the default --mode)";
  return RefuseGivenOptions(given,
                            {"--optimizer", "--per-tensor-optimizer", "--loss", "--inputs-need-grad"},
                            with,
                            "an optimizer, a loss and gradients run in training only: add --mode "
                            "training");
}

}  // namespace dlsim
