// Built-in sweep grids (`dlsim-calibrate run --sweep NAME`): keys chosen to
// fit per-op-class models later (docs/dlsim-calibrate.md lists them).
#ifndef DLSIM_CALIBRATE_SWEEPS_H_
#define DLSIM_CALIBRATE_SWEEPS_H_

#include <string>
#include <vector>

namespace dlcal {

// gemm, conv, memory, launch, all.
const std::vector<std::string>& SweepNames();
// Appends the sweep's keys; false for an unknown name.
bool SweepKeys(const std::string& name, std::vector<std::string>* keys);

}  // namespace dlcal

#endif  // DLSIM_CALIBRATE_SWEEPS_H_
