// `dlsim sweep` from what the user names (the command and the Python module):
// workload or FOM study files, a base machine and the grid specs.
#ifndef DLSIM_ESTIMATE_SWEEP_FILES_H_
#define DLSIM_ESTIMATE_SWEEP_FILES_H_

#include <string>
#include <vector>

#include "dlsim/estimate/sweep.h"
#include "dlsim/estimate/sweep_grid.h"
#include "dlsim/util/status.h"

namespace dlsim {

struct SweepRun {
  SweepGrid grid;
  SweepResult result;
};

// Parses `grid_specs` ("FIELD=V1,V2,..."), loads every workload of `files`
// and the base machine (`machine`, a bundled name or a YAML path; "" means
// the first study file's target), and runs the sweep with the sweep step
// times (MakeSweepStepTimeFn). Errors name the spec, file or variant.
Result<SweepRun> RunSweepOnFiles(const std::vector<std::string>& files, const std::string& machine,
                                 const std::vector<std::string>& grid_specs,
                                 const SweepOptions& options = {});

}  // namespace dlsim

#endif  // DLSIM_ESTIMATE_SWEEP_FILES_H_
