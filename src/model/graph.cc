#include "dlsim/model/graph.h"

#include <limits>

namespace dlsim {

bool IsDefaultOnnxDomain(const std::string& domain) {
  return domain.empty() || domain == "ai.onnx";
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
