// Loading training-job YAML (docs/parallel.md, "The job file"): a transformer
// and its parallel layout. yaml-cpp stays in src/machine.
#ifndef DLSIM_MACHINE_TRAINING_JOB_IO_H_
#define DLSIM_MACHINE_TRAINING_JOB_IO_H_

#include <string>

#include "dlsim/machine/training_job.h"
#include "dlsim/util/status.h"

namespace dlsim {

// Errors name the file and the dotted field ("workloads/x.yaml:
// parallel.tensor: tensor parallelism 3 must divide the heads (96) ...").
// The `parallel` section is optional (one GPU, microbatch 1, global batch 1)
// so that a search can fill it in; its values are checked when present.
Result<TrainingJob> LoadTrainingJob(const std::string& path);
Result<TrainingJob> LoadTrainingJobFromString(const std::string& yaml_text,
                                              const std::string& path_for_messages);

}  // namespace dlsim

#endif  // DLSIM_MACHINE_TRAINING_JOB_IO_H_
