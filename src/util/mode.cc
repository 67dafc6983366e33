#include "dlsim/util/mode.h"

namespace dlsim {

const char* ModeName(Mode mode) {
  switch (mode) {
    case Mode::kInference: return "inference";
    case Mode::kTraining: return "training";
  }
  return "inference";
}

std::optional<Mode> ModeFromName(std::string_view name) {
  for (Mode m : {Mode::kInference, Mode::kTraining}) {
    if (name == ModeName(m)) return m;
  }
  return std::nullopt;
}

}  // namespace dlsim
