// The optimizer of a training step (PyTorch's torch.optim names). Parsed once
// from what the user wrote (--optimizer, a workload's `optimizer:`); the
// lowering, the memory model and the task names decide on the enum.
#ifndef DLSIM_UTIL_OPTIMIZER_H_
#define DLSIM_UTIL_OPTIMIZER_H_

#include <optional>
#include <string_view>

namespace dlsim {

enum class Optimizer { kSgd, kSgdMomentum, kAdam, kAdamW };

// "sgd", "sgd_momentum", "adam", "adamw": the option values, and the `op`
// parameter of an optimizer kernel's key.
const char* OptimizerName(Optimizer optimizer);
// The optimizer `name` names; nullopt for any other text (the caller's error
// names the option and the value).
std::optional<Optimizer> OptimizerFromName(std::string_view name);
// State tensors the optimizer keeps per parameter: 0 (SGD), 1 (momentum),
// 2 (Adam's first and second moments).
int OptimizerStates(Optimizer optimizer);

}  // namespace dlsim

#endif  // DLSIM_UTIL_OPTIMIZER_H_
