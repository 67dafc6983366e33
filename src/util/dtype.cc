#include "dlsim/util/dtype.h"

namespace dlsim {

int64_t DTypeBytes(DType dtype) {
  switch (dtype) {
    case DType::kFloat32: return 4;
    case DType::kFloat16: return 2;
    case DType::kBFloat16: return 2;
    case DType::kFloat64: return 8;
    case DType::kInt8: return 1;
    case DType::kUInt8: return 1;
    case DType::kInt16: return 2;
    case DType::kInt32: return 4;
    case DType::kInt64: return 8;
    case DType::kBool: return 1;
    case DType::kString: return 0;
    case DType::kUndefined: return 0;
  }
  return 0;
}

const char* DTypeName(DType dtype) {
  switch (dtype) {
    case DType::kFloat32: return "fp32";
    case DType::kFloat16: return "fp16";
    case DType::kBFloat16: return "bf16";
    case DType::kFloat64: return "fp64";
    case DType::kInt8: return "int8";
    case DType::kUInt8: return "uint8";
    case DType::kInt16: return "int16";
    case DType::kInt32: return "int32";
    case DType::kInt64: return "int64";
    case DType::kBool: return "bool";
    case DType::kString: return "string";
    case DType::kUndefined: return "undefined";
  }
  return "undefined";
}

bool IsFloatDType(DType dtype) {
  return dtype == DType::kFloat32 || dtype == DType::kFloat16 ||
         dtype == DType::kBFloat16 || dtype == DType::kFloat64;
}

}  // namespace dlsim
