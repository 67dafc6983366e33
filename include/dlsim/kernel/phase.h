// Which part of a step a kernel call belongs to: the forward pass, the
// backward pass (training), or the optimizer update (training).
#ifndef DLSIM_KERNEL_PHASE_H_
#define DLSIM_KERNEL_PHASE_H_

namespace dlsim {

enum class Phase { kForward, kBackward, kOptimizer };

// "fwd", "bwd", "optim": as the JSON report, the trace and the CSV write it.
const char* PhaseName(Phase phase);

}  // namespace dlsim

#endif  // DLSIM_KERNEL_PHASE_H_
