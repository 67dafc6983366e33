#include "dlsim/util/optimizer.h"

namespace dlsim {

const char* OptimizerName(Optimizer optimizer) {
  switch (optimizer) {
    case Optimizer::kSgd: return "sgd";
    case Optimizer::kSgdMomentum: return "sgd_momentum";
    case Optimizer::kAdam: return "adam";
    case Optimizer::kAdamW: return "adamw";
  }
  return "sgd";
}

std::optional<Optimizer> OptimizerFromName(std::string_view name) {
  for (Optimizer o : {Optimizer::kSgd, Optimizer::kSgdMomentum, Optimizer::kAdam, Optimizer::kAdamW}) {
    if (name == OptimizerName(o)) return o;
  }
  return std::nullopt;
}

int OptimizerStates(Optimizer optimizer) {
  switch (optimizer) {
    case Optimizer::kSgd: return 0;
    case Optimizer::kSgdMomentum: return 1;
    case Optimizer::kAdam:
    case Optimizer::kAdamW: return 2;
  }
  return 0;
}

}  // namespace dlsim
