#include "dlsim/model/graph.h"

#include <limits>

namespace dlsim {

bool IsDefaultOnnxDomain(const std::string& domain) {
  return domain.empty() || domain == "ai.onnx";
}

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

int64_t NumElements(const Shape& shape) {
  // A zero dim anywhere makes 0, however large the others (a partial product
  // of 4 x 2^62 overflowed before the zero came: found by fuzzing).
  int64_t n = 1;
  bool saturated = false;
  for (int64_t d : shape) {
    if (d == 0) return 0;
    saturated = saturated || __builtin_mul_overflow(n, d, &n);
  }
  return saturated ? std::numeric_limits<int64_t>::max() : n;
}

std::string ShapeToString(const Shape& shape) {
  if (shape.empty()) return "scalar";
  std::string s;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += "x";
    s += std::to_string(shape[i]);
  }
  return s;
}

int64_t Node::GetInt(const std::string& key, int64_t fallback) const {
  auto it = attrs.find(key);
  return it == attrs.end() ? fallback : it->second.i;
}

double Node::GetFloat(const std::string& key, double fallback) const {
  auto it = attrs.find(key);
  return it == attrs.end() ? fallback : it->second.f;
}

std::string Node::GetString(const std::string& key,
                            const std::string& fallback) const {
  auto it = attrs.find(key);
  return it == attrs.end() ? fallback : it->second.s;
}

std::vector<int64_t> Node::GetInts(const std::string& key,
                                   const std::vector<int64_t>& fallback) const {
  auto it = attrs.find(key);
  return it == attrs.end() ? fallback : it->second.ints;
}

const std::string& Node::Input(size_t i) const {
  static const std::string kEmpty;
  return i < inputs.size() ? inputs[i] : kEmpty;
}

const Tensor* Graph::FindTensor(const std::string& tensor_name) const {
  auto it = tensors.find(tensor_name);
  return it == tensors.end() ? nullptr : &it->second;
}

Tensor* Graph::MutableTensor(const std::string& tensor_name) {
  auto it = tensors.find(tensor_name);
  return it == tensors.end() ? nullptr : &it->second;
}

int64_t Graph::ParameterCount() const {
  int64_t n = 0;
  for (const auto& [tensor_name, t] : tensors) {
    if (!t.is_initializer || !IsFloatDType(t.dtype)) continue;
    const int64_t e = t.num_elements();  // saturates; so does the sum
    n = e > std::numeric_limits<int64_t>::max() - n ? std::numeric_limits<int64_t>::max() : n + e;
  }
  return n;
}

}  // namespace dlsim
