// Loading and validating workload and FOM-study YAML files (yaml-cpp stays in
// src/machine). Schema: docs/workload-format.md.
#ifndef DLSIM_MACHINE_WORKLOAD_IO_H_
#define DLSIM_MACHINE_WORKLOAD_IO_H_

#include <string>

#include "dlsim/machine/workload.h"
#include "dlsim/util/status.h"

namespace dlsim {

// Loads `path`: a study (a top-level `workloads:` list, with optional
// `title`, `target`, `baseline`) or a single workload at top level. Errors
// name the file and the dotted field ("workloads/x.yaml:
// workloads[1].dataset.train_samples: must be a positive integer, got
// '-5'"): kInvalidArgument for bad values and unknown keys, kParseError for
// YAML syntax, kNotFound for a missing file. Relative paths (model.onnx,
// target, baseline) resolve against the file's folder; they are not opened
// here (a missing model is reported when it is loaded; a target or baseline
// is loaded with LoadMachine).
Result<WorkloadFile> LoadWorkloadFile(const std::string& path);
Result<WorkloadFile> LoadWorkloadFileFromString(const std::string& yaml_text,
                                                const std::string& path_for_messages);

}  // namespace dlsim

#endif  // DLSIM_MACHINE_WORKLOAD_IO_H_
