// JSON, CSV and table text of the figure of merit (dlsim fom) and of
// workload rates on one machine (dlsim estimate --workload), each row with
// its provenance: the P10-P90 band, the pricing sources and the warnings.
#ifndef DLSIM_REPORT_FOM_REPORT_H_
#define DLSIM_REPORT_FOM_REPORT_H_

#include <string>
#include <vector>

#include "dlsim/estimate/fom.h"

namespace dlsim {

// The FOM, its harmonic means and a row per workload (indented by 2).
std::string FomToJson(const FomResult& result);
// One CSV row per workload and machine (role target, then baseline).
std::string FomToCsv(const FomResult& result);
// The rows' bands, pricing sources and warnings, after the FOM table.
std::string FomProvenanceText(const FomResult& result);
// A self-contained HTML page: the FOM, a bar per workload of the target's rate
// over the baseline's, the table, the bands and pricing sources, the warnings.
std::string FomToHtml(const FomResult& result);

struct WorkloadRate {
  WorkloadInfo info;
  std::string machine;
  MachineRate rate;
};
// An array of step, epoch, unit time and units/day, one object per workload.
std::string WorkloadRatesToJson(const std::vector<WorkloadRate>& rates);
// The same, one CSV row per workload.
std::string WorkloadRatesToCsv(const std::vector<WorkloadRate>& rates);
// "unit time P10-P90 2.500 s - 7.500 s; priced by fitted 75 %, measured 25 %": a rate's
// unit-time band and pricing sources (or its measured basis), for tables.
std::string RateProvenanceText(const MachineRate& rate);

}  // namespace dlsim

#endif  // DLSIM_REPORT_FOM_REPORT_H_
