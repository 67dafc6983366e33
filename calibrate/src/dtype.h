// Storage types of kernel keys, without CUDA headers.
#ifndef DLSIM_CALIBRATE_DTYPE_H_
#define DLSIM_CALIBRATE_DTYPE_H_

#include <cstddef>
#include <string>

namespace dlcal {

enum class DType { kF32 = 0, kF16 = 1, kBF16 = 2 };

inline bool DTypeFromName(const std::string& name, DType* out) {
  if (name == "fp32") *out = DType::kF32;
  else if (name == "fp16") *out = DType::kF16;
  else if (name == "bf16") *out = DType::kBF16;
  else return false;
  return true;
}

inline size_t DTypeSize(DType t) { return t == DType::kF32 ? 4 : 2; }

}  // namespace dlcal

#endif  // DLSIM_CALIBRATE_DTYPE_H_
