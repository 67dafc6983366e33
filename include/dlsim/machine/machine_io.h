// Loading and validating machine YAML files (the only module using yaml-cpp
// for machines). Schema: docs/machine-format.md.
#ifndef DLSIM_MACHINE_MACHINE_IO_H_
#define DLSIM_MACHINE_MACHINE_IO_H_

#include <string>
#include <vector>

#include "dlsim/machine/machine.h"
#include "dlsim/util/status.h"

namespace dlsim {

// Loads and validates `path`. A missing, zero, negative, non-numeric or
// non-finite required field is an error naming the file and the field
// (e.g. "machines/x.yaml: device.memory_bw_gbs: must be > 0, got -3").
// Relative paths inside (perf_db, scale_from) resolve against the file's
// folder.
Result<Machine> LoadMachine(const std::string& path);
Result<Machine> LoadMachineFromString(const std::string& yaml_text,
                                      const std::string& path_for_messages);

// The bundled machines folder: $DLSIM_MACHINES_DIR, else the source tree's
// machines/ (compiled in), else ./machines.
std::string BundledMachinesDir();
// Resolves --machine: a path, or a bundled name such as "h100".
std::string ResolveMachinePath(const std::string& name_or_path);

}  // namespace dlsim

#endif  // DLSIM_MACHINE_MACHINE_IO_H_
