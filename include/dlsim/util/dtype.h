// Element types of tensors, shared by the model graph and the kernel calls
// lowered from it.
#ifndef DLSIM_UTIL_DTYPE_H_
#define DLSIM_UTIL_DTYPE_H_

#include <cstdint>

namespace dlsim {

enum class DType {
  kUndefined = 0,
  kFloat32,
  kFloat16,
  kBFloat16,
  kFloat64,
  kInt8,
  kUInt8,
  kInt16,
  kInt32,
  kInt64,
  kBool,
  kString,
};

// Bytes per element (0 for kUndefined and kString).
int64_t DTypeBytes(DType dtype);
// "fp32", "fp16", "bf16", "fp64", "int64", ...
const char* DTypeName(DType dtype);
bool IsFloatDType(DType dtype);

}  // namespace dlsim

#endif  // DLSIM_UTIL_DTYPE_H_
