// The what-if sweep (dlsim sweep) as a self-contained HTML page.
#ifndef DLSIM_REPORT_SWEEP_REPORT_H_
#define DLSIM_REPORT_SWEEP_REPORT_H_

#include <string>

#include "dlsim/estimate/sweep.h"
#include "dlsim/estimate/sweep_grid.h"

namespace dlsim {

// The base and its workloads, a bar per variant of its FOM, how much each
// field moves the FOM, and the table of variants with their rate bands and
// pricing sources.
std::string SweepToHtml(const SweepGrid& grid, const SweepResult& result);

}  // namespace dlsim

#endif  // DLSIM_REPORT_SWEEP_REPORT_H_
