// The run's compute precision: fp32 (cuDNN convolutions may use TF32, as
// PyTorch's default), tf32 (GEMMs too), fp16 or bf16. Parsed once from what
// the user wrote (--dtype, a workload's `dtype:`); the pipeline decides on the
// enum and the reports write its name. A kernel key's `dtype=` field is a
// DType name (dtype.h), not a Precision.
#ifndef DLSIM_UTIL_PRECISION_H_
#define DLSIM_UTIL_PRECISION_H_

#include <string>

#include "dlsim/util/dtype.h"
#include "dlsim/util/status.h"

namespace dlsim {

enum class Precision { kFp32, kTf32, kFp16, kBf16 };

// "fp32", "tf32", "fp16", "bf16": the names the command line, the workload
// YAML and the reports use.
const char* PrecisionName(Precision precision);
// The precision `name` names; an InvalidArgument naming the value and the
// accepted names for any other text.
Result<Precision> ParsePrecision(const std::string& name);
// The storage type of float tensors: kFloat32 for fp32 and tf32.
DType PrecisionDType(Precision precision);

}  // namespace dlsim

#endif  // DLSIM_UTIL_PRECISION_H_
