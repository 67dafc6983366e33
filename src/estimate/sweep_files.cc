#include "dlsim/estimate/sweep_files.h"

#include <utility>

#include "dlsim/estimate/workload_estimate.h"
#include "dlsim/machine/machine_io.h"
#include "dlsim/machine/workload_io.h"

namespace dlsim {

Result<SweepRun> RunSweepOnFiles(const std::vector<std::string>& files, const std::string& machine,
                                 const std::vector<std::string>& grid_specs,
                                 const SweepOptions& options) {
  DLSIM_ASSIGN_OR_RETURN(SweepGrid grid, ParseSweepGrid(grid_specs));
  std::string base_path, base_file;
  std::vector<Workload> workloads;
  for (const std::string& f : files) {
    DLSIM_ASSIGN_OR_RETURN(WorkloadFile wf, LoadWorkloadFile(f));
    if (machine.empty() && !base_path.empty() && !wf.target_path.empty() &&
        wf.target_path != base_path) {
      return InvalidArgument(f + " names target: " + wf.target_path + " but " + base_file +
                             " names " + base_path + "; give --machine to choose the base");
    }
    if (base_path.empty()) {
      base_path = wf.target_path;
      base_file = f;
    }
    for (Workload& w : wf.workloads) workloads.push_back(std::move(w));
  }
  if (!machine.empty()) base_path = ResolveMachinePath(machine);
  if (base_path.empty()) return InvalidArgument("no base machine: give --machine");
  DLSIM_ASSIGN_OR_RETURN(Machine base, LoadMachine(base_path));
  DLSIM_ASSIGN_OR_RETURN(SweepResult r,
                         RunSweep(workloads, base, grid, MakeSweepStepTimeFn(), options));
  return SweepRun{std::move(grid), std::move(r)};
}

}  // namespace dlsim
