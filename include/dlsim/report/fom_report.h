// JSON of the figure of merit (dlsim fom) and of workload rates on one
// machine (dlsim estimate --workload).
#ifndef DLSIM_REPORT_FOM_REPORT_H_
#define DLSIM_REPORT_FOM_REPORT_H_

#include <string>
#include <vector>

#include "dlsim/estimate/fom.h"

namespace dlsim {

// The FOM, its harmonic means and a row per workload (indented by 2).
std::string FomToJson(const FomResult& result);

struct WorkloadRate {
  std::string workload;
  std::string machine;
  MachineRate rate;
};
// An array of step, epoch, unit time and units/day, one object per workload.
std::string WorkloadRatesToJson(const std::vector<WorkloadRate>& rates);

}  // namespace dlsim

#endif  // DLSIM_REPORT_FOM_REPORT_H_
