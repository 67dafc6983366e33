// Flags and findings of a profile comparison (private to src/profile).
#ifndef DLSIM_SRC_PROFILE_FINDINGS_H_
#define DLSIM_SRC_PROFILE_FINDINGS_H_

#include <vector>

#include "dlsim/profile/compare.h"

namespace dlsim {

// Device idle time before each kernel: its start less the latest end of the
// kernels before it (on any stream), 0 below `min_gap_s` or when overlapped.
std::vector<double> DeviceGaps(const ProfileTrace& trace, double min_gap_s);

// Sets each layer's flags and fills cmp->findings, largest time first.
void AddFindings(const Estimate& estimate, const ProfileTrace& trace,
                 const CompareOptions& options, Comparison* cmp);

}  // namespace dlsim

#endif  // DLSIM_SRC_PROFILE_FINDINGS_H_
