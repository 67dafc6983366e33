// ShapeContext and the helpers shared by the shape rules.
#include <limits>

#include "shape_rules.h"

namespace dlsim {

ShapeContext::ShapeContext(Graph& graph, const Node& node)
    : graph_(graph), node_(node), opset_(graph.opset) {
  for (const std::string& in : node.inputs) {
    ins_.push_back(in.empty() ? nullptr : graph.FindTensor(in));
  }
  for (const std::string& out : node.outputs) {
    outs_.push_back(out.empty() ? nullptr : graph.MutableTensor(out));
  }
}

const Tensor& ShapeContext::In(size_t i) const {
  DLSIM_CHECK_MSG(i < ins_.size() && ins_[i] != nullptr,
                  "node '" + node_.name + "' input " + std::to_string(i) + " absent");
  return *ins_[i];
}

const TensorValue* ShapeContext::Value(size_t i) const {
  if (!HasInput(i) || !In(i).value) return nullptr;
  return &*In(i).value;
}

Result<std::vector<int64_t>> ShapeContext::Ints(size_t i) const {
  const TensorValue* v = Value(i);
  if (v == nullptr) {
    return Status(StatusCode::kUnsupported,
                  "node '" + node_.name + "' (" + node_.op_type + "): input " + std::to_string(i) +
                      " '" + node_.Input(i) +
                      "' must be a constant (or fold to one) to give static shapes");
  }
  std::vector<int64_t> ints(v->size());
  for (size_t k = 0; k < ints.size(); ++k) ints[k] = ValueAsInt(*v, k);
  return ints;
}

void ShapeContext::SetOut(size_t i, DType dtype, Shape dims) {
  if (!HasOutput(i)) return;
  outs_[i]->dtype = dtype;
  outs_[i]->dims = std::move(dims);
  outs_[i]->value.reset();
}

void ShapeContext::SetValue(size_t i, TensorValue value) {
  if (!HasOutput(i) || !Foldable(outs_[i]->dims)) return;
  DLSIM_CHECK_MSG(static_cast<int64_t>(value.size()) == NumElements(outs_[i]->dims),
                  "node '" + node_.name + "' folded value size mismatch");
  outs_[i]->value = std::move(value);
}

Status ShapeContext::RequireInputs(size_t n) const {
  for (size_t i = 0; i < n; ++i) {
    if (!HasInput(i)) {
      return Error("needs at least " + std::to_string(n) + " inputs; input " + std::to_string(i) +
                   " is missing");
    }
  }
  return Status::Ok();
}

Status ShapeContext::Error(const std::string& message) const {
  return InvalidArgument("node '" + node_.name + "' (" + node_.op_type + "): " + message);
}

Result<Shape> BroadcastShapes(const ShapeContext& ctx, const Shape& a, const Shape& b) {
  const size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (size_t k = 0; k < rank; ++k) {
    const int64_t da = k < rank - a.size() ? 1 : a[k - (rank - a.size())];
    const int64_t db = k < rank - b.size() ? 1 : b[k - (rank - b.size())];
    if (da != db && da != 1 && db != 1) {
      return ctx.Error("shapes " + ShapeToString(a) + " and " + ShapeToString(b) +
                       " do not broadcast");
    }
    out[k] = da == 1 ? db : da;
  }
  return out;
}

Result<int64_t> NormalizeAxis(const ShapeContext& ctx, int64_t axis, int64_t rank) {
  const int64_t a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= rank) {
    return ctx.Error("axis " + std::to_string(axis) + " out of range for rank " +
                     std::to_string(rank));
  }
  return a;
}

TensorValue IntValue(std::vector<int64_t> ints) {
  TensorValue v;
  v.ints = std::move(ints);
  return v;
}

TensorValue FloatValue(std::vector<double> floats) {
  TensorValue v;
  v.is_float = true;
  v.floats = std::move(floats);
  return v;
}

double ValueAsDouble(const TensorValue& v, size_t i) {
  return v.is_float ? v.floats[i] : static_cast<double>(v.ints[i]);
}

int64_t SaturatingInt(double f) {
  if (!(f == f)) return 0;  // NaN
  if (f >= 9.2e18) return std::numeric_limits<int64_t>::max();
  if (f <= -9.2e18) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(f);
}

int64_t ValueAsInt(const TensorValue& v, size_t i) {
  return v.is_float ? SaturatingInt(v.floats[i]) : v.ints[i];
}

std::vector<size_t> BroadcastIndex(const Shape& in, const Shape& out) {
  const size_t n = static_cast<size_t>(NumElements(out));
  std::vector<size_t> index(n, 0);
  const size_t offset = out.size() - in.size();
  std::vector<size_t> in_stride(out.size(), 0);
  size_t stride = 1;
  for (size_t k = in.size(); k-- > 0;) {
    in_stride[k + offset] = in[k] == 1 ? 0 : stride;
    stride *= static_cast<size_t>(in[k]);
  }
  std::vector<int64_t> pos(out.size(), 0);
  size_t flat = 0;
  for (size_t i = 0; i < n; ++i) {
    index[i] = flat;
    for (size_t k = out.size(); k-- > 0;) {  // odometer increment
      flat += in_stride[k];
      if (++pos[k] < out[k]) break;
      flat -= in_stride[k] * static_cast<size_t>(out[k]);
      pos[k] = 0;
    }
  }
  return index;
}

TensorValue PickElements(const TensorValue& v, const std::vector<size_t>& index) {
  TensorValue r;
  r.is_float = v.is_float;
  if (v.is_float) {
    r.floats.reserve(index.size());
    for (size_t k : index) r.floats.push_back(v.floats[k]);
  } else {
    r.ints.reserve(index.size());
    for (size_t k : index) r.ints.push_back(v.ints[k]);
  }
  return r;
}

std::vector<int64_t> Strides(const Shape& shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  // Only a shape with a zero dim (no elements) can overflow here, e.g.
  // 0x0x2^62x5x5 (found by fuzzing); its strides are never used to index.
  for (size_t k = shape.size(); k-- > 1;) {
    if (__builtin_mul_overflow(strides[k], shape[k], &strides[k - 1])) {
      strides[k - 1] = std::numeric_limits<int64_t>::max();
    }
  }
  return strides;
}

int64_t CheckedNumElements(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0) return -1;
    if (d != 0 && n > std::numeric_limits<int64_t>::max() / d) return -1;
    n *= d;
  }
  return n;
}

bool Foldable(const Shape& shape) {
  const int64_t n = CheckedNumElements(shape);
  return n >= 0 && n <= kMaxFoldedElements;
}

}  // namespace dlsim
