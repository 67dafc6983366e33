// The loss of a training step: the scalar the backward starts from, over the
// model's first output. An ONNX export holds no loss, so it is chosen (--loss,
// a workload's `loss:`), like the optimizer; the lowering decides on the enum.
#ifndef DLSIM_UTIL_LOSS_H_
#define DLSIM_UTIL_LOSS_H_

#include <optional>
#include <string_view>

namespace dlsim {

enum class Loss {
  kNone,          // no loss kernels (the backward starts from a given gradient)
  kMean,          // output.float().mean()
  kCrossEntropy,  // F.cross_entropy(output, target) over the output's last axis
};

// "none", "mean", "cross_entropy": the option values.
const char* LossName(Loss loss);
// The loss `name` names; nullopt for any other text (the caller's error
// names the option and the value).
std::optional<Loss> LossFromName(std::string_view name);

}  // namespace dlsim

#endif  // DLSIM_UTIL_LOSS_H_
