#include "dlsim/util/recompute.h"

namespace dlsim {

const char* RecomputeName(Recompute r) {
  switch (r) {
    case Recompute::kNone: return "none";
    case Recompute::kSelective: return "selective";
    case Recompute::kFull: return "full";
  }
  return "?";
}

Result<Recompute> ParseRecompute(const std::string& name) {
  for (Recompute r : {Recompute::kNone, Recompute::kSelective, Recompute::kFull}) {
    if (name == RecomputeName(r)) return r;
  }
  return InvalidArgument("recompute must be none, selective or full, got '" + name + "'");
}

}  // namespace dlsim
