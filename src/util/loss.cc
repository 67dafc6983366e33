#include "dlsim/util/loss.h"

namespace dlsim {

const char* LossName(Loss loss) {
  switch (loss) {
    case Loss::kNone: return "none";
    case Loss::kMean: return "mean";
    case Loss::kCrossEntropy: return "cross_entropy";
  }
  return "none";
}

std::optional<Loss> LossFromName(std::string_view name) {
  for (Loss l : {Loss::kNone, Loss::kMean, Loss::kCrossEntropy}) {
    if (name == LossName(l)) return l;
  }
  return std::nullopt;
}

}  // namespace dlsim
