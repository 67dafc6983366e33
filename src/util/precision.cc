#include "dlsim/util/precision.h"

namespace dlsim {

const char* PrecisionName(Precision precision) {
  switch (precision) {
    case Precision::kFp32: return "fp32";
    case Precision::kTf32: return "tf32";
    case Precision::kFp16: return "fp16";
    case Precision::kBf16: return "bf16";
  }
  return "fp32";
}

Result<Precision> ParsePrecision(const std::string& name) {
  for (Precision p : {Precision::kFp32, Precision::kTf32, Precision::kFp16, Precision::kBf16}) {
    if (name == PrecisionName(p)) return p;
  }
  return InvalidArgument("precision must be fp32, tf32, fp16 or bf16, got '" + name + "'");
}

DType PrecisionDType(Precision precision) {
  switch (precision) {
    case Precision::kFp32:
    case Precision::kTf32: return DType::kFloat32;
    case Precision::kFp16: return DType::kFloat16;
    case Precision::kBf16: return DType::kBFloat16;
  }
  return DType::kFloat32;
}

}  // namespace dlsim
