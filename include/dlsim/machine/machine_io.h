// Loading and validating machine YAML files (the only module using yaml-cpp
// for machines). Schema: docs/machine-format.md.
#ifndef DLSIM_MACHINE_MACHINE_IO_H_
#define DLSIM_MACHINE_MACHINE_IO_H_

#include <string>
#include <vector>

#include "dlsim/machine/machine.h"
#include "dlsim/util/status.h"

namespace dlsim {

// Loads and validates `path`. A missing required field, a zero, negative,
// non-numeric, non-finite or absurd value, and an unknown key are errors
// (kInvalidArgument) naming the file and the dotted field, e.g.
// "machines/x.yaml: device.memory_bw_gbs: must be a positive number, got
// 'abc'". YAML syntax errors are kParseError with line:column; a missing
// file is kNotFound. Relative paths inside (calibration.perf_db,
// calibration.scale_from) resolve against the file's folder. A missing
// perf_db is not an error (the path is recorded; pricing falls back); a
// missing scale_from file is. A machine with no `host` section that scales
// from a reference takes the reference's host (host.taken_from names it):
// the host costs were fitted on the reference's machine, which beats a
// guess.
Result<Machine> LoadMachine(const std::string& path);
// Same, from text; `path_for_messages` names the file in errors and is the
// base for relative paths.
Result<Machine> LoadMachineFromString(const std::string& yaml_text,
                                      const std::string& path_for_messages);

// Loads a host profile (docs/machine-format.md, "Host profiles"): a YAML file
// whose only key is `host`, as the machine file's section; what
// `dlsim-calibrate host` writes, and what `--host FILE` puts in place of a
// machine's host. Errors as LoadMachine's; profile_path is set to `path`.
Result<HostSpec> LoadHostProfile(const std::string& path);

// The bundled machines folder: $DLSIM_MACHINES_DIR, else the source tree's
// machines/ (compiled in), else ./machines.
std::string BundledMachinesDir();
// Resolves --machine: a path, or a bundled name such as "h100".
// An existing file, or anything with a '/' or a .yaml/.yml suffix, is taken
// as a path; otherwise "h100" -> BundledMachinesDir() + "/h100.yaml".
std::string ResolveMachinePath(const std::string& name_or_path);

// Resolves and loads in one step (what --machine wants).
Result<Machine> LoadMachineByName(const std::string& name_or_path);

// The *.yaml / *.yml files directly inside `dir`, as "dir/<file>" paths
// sorted by file name. kNotFound when `dir` is not a folder.
Result<std::vector<std::string>> ListMachineFiles(const std::string& dir);

// The outcome of loading one machine file (for `dlsim machines`).
struct MachineFileCheck {
  std::string path;
  Status status;    // OK when the file loaded and validated
  Machine machine;  // valid only when status.ok()
};

// Loads every machine file in `dir`; one entry per file, in ListMachineFiles
// order. Also loads each calibration.scale_from reference so that a broken
// reference fails its referrer. Err only when `dir` cannot be listed.
Result<std::vector<MachineFileCheck>> ValidateMachineFiles(const std::string& dir);
// ValidateMachineFiles(BundledMachinesDir()).
Result<std::vector<MachineFileCheck>> ValidateAllBundledMachines();

}  // namespace dlsim

#endif  // DLSIM_MACHINE_MACHINE_IO_H_
