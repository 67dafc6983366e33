// Activation recomputation of a training step: none, selective (the
// attention core: QKᵀ, mask, softmax, dropout and P·V, whose saved score
// matrices are dropped and recomputed in the backward, as Megatron-LM's
// selective recomputation) or full (each layer checkpointed). Parsed once
// at the edge (--recompute, a training job's `recompute:`).
#ifndef DLSIM_UTIL_RECOMPUTE_H_
#define DLSIM_UTIL_RECOMPUTE_H_

#include <string>

#include "dlsim/util/status.h"

namespace dlsim {

enum class Recompute { kNone, kSelective, kFull };

const char* RecomputeName(Recompute r);  // "none", "selective", "full"
Result<Recompute> ParseRecompute(const std::string& name);

}  // namespace dlsim

#endif  // DLSIM_UTIL_RECOMPUTE_H_
