// What an estimate runs: one forward pass (inference) or a training step
// (forward, backward and the optimizer update). Parsed once from what the
// user wrote (--mode, a workload's `mode:`); the pipeline decides on the enum.
#ifndef DLSIM_UTIL_MODE_H_
#define DLSIM_UTIL_MODE_H_

#include <optional>
#include <string_view>

namespace dlsim {

enum class Mode { kInference, kTraining };

// "inference", "training": the names the command line, the workload YAML and
// the reports use.
const char* ModeName(Mode mode);
// The mode `name` names; nullopt for any other text (the caller's error names
// the option and the value).
std::optional<Mode> ModeFromName(std::string_view name);

}  // namespace dlsim

#endif  // DLSIM_UTIL_MODE_H_
