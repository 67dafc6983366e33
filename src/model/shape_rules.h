// The per-op shape rules behind InferShapes: a context giving a rule its
// node's inputs and outputs, shared helpers, and one registration function
// per op family (shape_rules_*.cc). Internal to the model module.
#ifndef DLSIM_SRC_MODEL_SHAPE_RULES_H_
#define DLSIM_SRC_MODEL_SHAPE_RULES_H_

#include <string>
#include <unordered_map>
#include <vector>

#include "dlsim/model/graph.h"
#include "dlsim/model/shape_inference.h"
#include "dlsim/util/status.h"

namespace dlsim {

class ShapeContext {
 public:
  ShapeContext(Graph& graph, const Node& node);

  const Node& node() const { return node_; }
  int64_t opset() const { return opset_; }

  size_t num_inputs() const { return node_.inputs.size(); }
  bool HasInput(size_t i) const { return i < node_.inputs.size() && !node_.inputs[i].empty(); }
  // Input i; the caller checks HasInput(i) for optional inputs (a missing
  // required input is a model error the driver reports before the rule runs).
  const Tensor& In(size_t i) const;
  const Shape& Dims(size_t i) const { return In(i).dims; }
  int64_t Rank(size_t i) const { return static_cast<int64_t>(In(i).dims.size()); }
  // Known contents of input i, or null.
  const TensorValue* Value(size_t i) const;
  // Integer contents of input i (floats truncated), or an error saying the
  // node needs it constant.
  Result<std::vector<int64_t>> Ints(size_t i) const;

  size_t num_outputs() const { return outs_.size(); }
  bool HasOutput(size_t i) const { return i < outs_.size() && outs_[i] != nullptr; }
  // Sets output i (ignored when the output is omitted).
  void SetOut(size_t i, DType dtype, Shape dims);
  // Sets output i's contents when small; `value` must match its element count.
  void SetValue(size_t i, TensorValue value);
  DType OutDType(size_t i) const { return HasOutput(i) ? outs_[i]->dtype : DType::kUndefined; }

  // Fails naming the node unless inputs 0..n-1 are all present.
  Status RequireInputs(size_t n) const;

  // "node 'name' (Op): message" as kInvalidArgument.
  Status Error(const std::string& message) const;

 private:
  Graph& graph_;
  const Node& node_;
  int64_t opset_;
  std::vector<const Tensor*> ins_;
  std::vector<Tensor*> outs_;
};

using ShapeRule = Status (*)(ShapeContext& ctx);
using ShapeRuleTable = std::unordered_map<std::string, ShapeRule>;

void AddElementwiseRules(ShapeRuleTable* table);   // shape_rules_elementwise.cc
void AddShapeOpRules(ShapeRuleTable* table);       // shape_rules_shape_ops.cc
void AddDataMovementRules(ShapeRuleTable* table);  // shape_rules_data_movement.cc
void AddIndexingRules(ShapeRuleTable* table);      // shape_rules_indexing.cc
void AddNnRules(ShapeRuleTable* table);            // shape_rules_nn.cc
void AddReductionRules(ShapeRuleTable* table);     // shape_rules_reduction.cc

// Numpy broadcasting of two shapes; error names the node via ctx.
Result<Shape> BroadcastShapes(const ShapeContext& ctx, const Shape& a, const Shape& b);
// Maps a possibly negative axis into [0, rank); error when out of range.
Result<int64_t> NormalizeAxis(const ShapeContext& ctx, int64_t axis, int64_t rank);

TensorValue IntValue(std::vector<int64_t> ints);
TensorValue FloatValue(std::vector<double> floats);
// Element i of a value as double / int64 whatever its storage.
double ValueAsDouble(const TensorValue& v, size_t i);
int64_t ValueAsInt(const TensorValue& v, size_t i);
// A double as int64, saturating at the ends and 0 for NaN: a plain cast of
// an out-of-range double is undefined behaviour.
int64_t SaturatingInt(double f);
// Flat index into an input of shape `in` broadcast to `out`, for each output
// element (row-major). Used to fold broadcasting ops.
std::vector<size_t> BroadcastIndex(const Shape& in, const Shape& out);
// Maps an ONNX TensorProto data type code (Cast's `to`) to a DType;
// kUndefined for codes dlsim does not model.
DType DTypeFromOnnxCode(int64_t code);

// The elements of `v` at the given flat indices.
TensorValue PickElements(const TensorValue& v, const std::vector<size_t>& index);
// Row-major strides of a shape.
std::vector<int64_t> Strides(const Shape& shape);

// True when every dim is >= 0 and the element count is <= kMaxFoldedElements
// (so contents of this shape may be computed).
bool Foldable(const Shape& shape);
// Element count, or -1 when a dim is negative or the count overflows int64.
int64_t CheckedNumElements(const Shape& shape);

}  // namespace dlsim

#endif  // DLSIM_SRC_MODEL_SHAPE_RULES_H_
