// JSON of the machine list (dlsim machines --format json): each machine's
// device figures as pricing uses them, with their sources.
#ifndef DLSIM_REPORT_MACHINE_REPORT_H_
#define DLSIM_REPORT_MACHINE_REPORT_H_

#include <string>
#include <vector>

#include "dlsim/machine/achievable.h"
#include "dlsim/machine/machine.h"

namespace dlsim {

struct MachineListing {
  Machine machine;
  SourcedFigure memory_bw;  // the bandwidth pricing uses, and where it comes from
};
// An array, one object per machine (indented by 2).
std::string MachinesToJson(const std::vector<MachineListing>& machines);

}  // namespace dlsim

#endif  // DLSIM_REPORT_MACHINE_REPORT_H_
