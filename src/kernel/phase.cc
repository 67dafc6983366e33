#include "dlsim/kernel/phase.h"

namespace dlsim {

const char* PhaseName(Phase phase) {
  switch (phase) {
    case Phase::kForward: return "fwd";
    case Phase::kBackward: return "bwd";
    case Phase::kOptimizer: return "optim";
  }
  return "fwd";
}

}  // namespace dlsim
