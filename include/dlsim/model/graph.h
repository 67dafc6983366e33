// The internal model graph: what the ONNX importer produces and everything
// downstream reads. Plain structs, no protobuf types. After a successful
// import every tensor has a static shape and nodes are in topological order.
#ifndef DLSIM_MODEL_GRAPH_H_
#define DLSIM_MODEL_GRAPH_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "dlsim/util/dtype.h"

namespace dlsim {

using Shape = std::vector<int64_t>;

// Product of dims; 1 for a scalar; 0 when any dim is 0; saturates at
// INT64_MAX. Callers must have validated dims >= 0.
int64_t NumElements(const Shape& shape);
std::string ShapeToString(const Shape& shape);  // "16x3x224x224", "scalar"

// A constant's known contents, kept only for small tensors (shape
// arithmetic): integer tensors in `ints`, floating ones in `floats`.
struct TensorValue {
  bool is_float = false;
  std::vector<int64_t> ints;
  std::vector<double> floats;
  size_t size() const { return is_float ? floats.size() : ints.size(); }
};

struct Tensor {
  std::string name;
  DType dtype = DType::kUndefined;
  Shape dims;
  bool is_initializer = false;  // a weight or constant stored in the model
  bool is_graph_input = false;  // fed at run time (not an initializer)
  std::optional<TensorValue> value;  // contents, when known and small

  int64_t num_elements() const { return NumElements(dims); }
  int64_t bytes() const { return num_elements() * DTypeBytes(dtype); }
};

struct Attribute {
  enum class Kind { kInt, kFloat, kString, kInts, kFloats, kStrings, kTensor, kGraph };
  Kind kind = Kind::kInt;
  int64_t i = 0;
  double f = 0.0;
  std::string s;
  std::vector<int64_t> ints;
  std::vector<double> floats;
  std::vector<std::string> strings;
  std::optional<Tensor> tensor;  // Constant's `value` (dims, dtype, contents)
};

// True for the default ONNX domain ("" or "ai.onnx"), the only one whose ops
// dlsim shapes, lowers and prices as ONNX ops.
bool IsDefaultOnnxDomain(const std::string& domain);

struct Node {
  std::string name;     // unique; the importer names unnamed nodes
  // "Conv", "MatMul", ...; after import, an op of any domain but the default
  // ONNX one is "DOMAIN::OP" ("evil.domain::Relu"), so that nothing that
  // matches ops by name takes it for the ONNX op of the same name.
  std::string op_type;
  std::string domain;   // "" (or "ai.onnx") for the default ONNX domain
  std::vector<std::string> inputs;   // "" marks an omitted optional input
  std::vector<std::string> outputs;
  std::map<std::string, Attribute> attrs;

  bool HasAttr(const std::string& key) const { return attrs.count(key) != 0; }
  int64_t GetInt(const std::string& key, int64_t fallback) const;
  double GetFloat(const std::string& key, double fallback) const;
  std::string GetString(const std::string& key, const std::string& fallback) const;
  std::vector<int64_t> GetInts(const std::string& key,
                               const std::vector<int64_t>& fallback) const;
  // The i-th input name, or "" when absent.
  const std::string& Input(size_t i) const;
};

class Graph {
 public:
  std::string name;          // model name (file stem when the model has none)
  std::string source_path;   // the file it was loaded from
  int64_t opset = 0;         // default-domain opset version
  std::vector<Node> nodes;   // topological order
  std::map<std::string, Tensor> tensors;  // every named value
  std::vector<std::string> inputs;   // graph inputs that are not initializers
  std::vector<std::string> outputs;

  const Tensor* FindTensor(const std::string& name) const;
  Tensor* MutableTensor(const std::string& name);
  // Total parameters: elements of all floating-point initializers.
  int64_t ParameterCount() const;
};

}  // namespace dlsim

#endif  // DLSIM_MODEL_GRAPH_H_
