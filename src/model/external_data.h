// Validation of external-data locations: dlsim never reads weights, but a
// location must still never point outside the model's folder.
#ifndef DLSIM_SRC_MODEL_EXTERNAL_DATA_H_
#define DLSIM_SRC_MODEL_EXTERNAL_DATA_H_

#include <string>

#include "dlsim/util/status.h"

namespace dlsim {

// Checks the `location` of tensor `tensor_name` in the model at `model_path`
// (a file path; its parent folder is the model folder). Refuses an empty or
// absolute location, any `..` component, and a location that resolves (through
// symlinks, when it exists) outside the model folder. The file may be absent.
// Errors name the model file, the tensor and the location.
Status ValidateExternalLocation(const std::string& model_path, const std::string& tensor_name,
                                const std::string& location);

}  // namespace dlsim

#endif  // DLSIM_SRC_MODEL_EXTERNAL_DATA_H_
