// Ops that make or re-view shapes: Shape, Size, Constant, ConstantOfShape,
// Range, Reshape, Flatten, Squeeze, Unsqueeze, Expand, Tile. Contents pass
// through (re-views) or are computed (Shape, Range, ...) when small.
#include <algorithm>
#include <cmath>
#include <set>

#include "shape_rules.h"

namespace dlsim {
namespace {

Status ShapeOpRule(ShapeContext& ctx) {
  DLSIM_RETURN_IF_ERROR(ctx.RequireInputs(1));
  const Shape& dims = ctx.Dims(0);
  const int64_t rank = static_cast<int64_t>(dims.size());
  auto clamp = [rank](int64_t a) { return std::clamp(a < 0 ? a + rank : a, int64_t{0}, rank); };
  const int64_t start = clamp(ctx.node().GetInt("start", 0));
  const int64_t end = clamp(ctx.node().GetInt("end", rank));
  std::vector<int64_t> v;
  for (int64_t k = start; k < end; ++k) v.push_back(dims[k]);
  ctx.SetOut(0, DType::kInt64, {static_cast<int64_t>(v.size())});
  ctx.SetValue(0, IntValue(std::move(v)));
  return Status::Ok();
}

Status SizeRule(ShapeContext& ctx) {
  DLSIM_RETURN_IF_ERROR(ctx.RequireInputs(1));
  ctx.SetOut(0, DType::kInt64, {});
  ctx.SetValue(0, IntValue({ctx.In(0).num_elements()}));
  return Status::Ok();
}

Status ConstantRule(ShapeContext& ctx) {
  const Node& node = ctx.node();
  auto it = node.attrs.find("value");
  if (it != node.attrs.end() && it->second.tensor) {
    const Tensor& t = *it->second.tensor;
    ctx.SetOut(0, t.dtype, t.dims);
    if (t.value) ctx.SetValue(0, *t.value);
  } else if (node.HasAttr("value_int")) {
    ctx.SetOut(0, DType::kInt64, {});
    ctx.SetValue(0, IntValue({node.GetInt("value_int", 0)}));
  } else if (node.HasAttr("value_ints")) {
    std::vector<int64_t> v = node.GetInts("value_ints", {});
    ctx.SetOut(0, DType::kInt64, {static_cast<int64_t>(v.size())});
    ctx.SetValue(0, IntValue(std::move(v)));
  } else if (node.HasAttr("value_float")) {
    ctx.SetOut(0, DType::kFloat32, {});
    ctx.SetValue(0, FloatValue({node.GetFloat("value_float", 0)}));
  } else if (node.HasAttr("value_floats")) {
    std::vector<double> v = node.attrs.at("value_floats").floats;
    ctx.SetOut(0, DType::kFloat32, {static_cast<int64_t>(v.size())});
    ctx.SetValue(0, FloatValue(std::move(v)));
  } else {
    return ctx.Error("no supported value attribute (value, value_int(s), value_float(s))");
  }
  return Status::Ok();
}

Status ConstantOfShapeRule(ShapeContext& ctx) {
  DLSIM_RETURN_IF_ERROR(ctx.RequireInputs(1));
  DLSIM_ASSIGN_OR_RETURN(std::vector<int64_t> dims, ctx.Ints(0));
  DType dtype = DType::kFloat32;
  TensorValue fill = FloatValue({0.0});
  auto it = ctx.node().attrs.find("value");
  if (it != ctx.node().attrs.end() && it->second.tensor) {
    dtype = it->second.tensor->dtype;
    if (it->second.tensor->value && it->second.tensor->value->size() == 1) {
      fill = *it->second.tensor->value;
    }
  }
  ctx.SetOut(0, dtype, dims);
  if (Foldable(dims)) {
    const size_t n = static_cast<size_t>(NumElements(dims));
    TensorValue v;
    v.is_float = IsFloatDType(dtype);
    if (v.is_float) {
      v.floats.assign(n, ValueAsDouble(fill, 0));
    } else {
      v.ints.assign(n, ValueAsInt(fill, 0));
    }
    ctx.SetValue(0, std::move(v));
  }
  return Status::Ok();
}

Status RangeRule(ShapeContext& ctx) {
  DLSIM_RETURN_IF_ERROR(ctx.RequireInputs(3));
  const TensorValue* start = ctx.Value(0);
  const TensorValue* limit = ctx.Value(1);
  const TensorValue* delta = ctx.Value(2);
  if (start == nullptr || limit == nullptr || delta == nullptr || start->size() != 1 ||
      limit->size() != 1 || delta->size() != 1) {
    return Status(StatusCode::kUnsupported,
                  "node '" + ctx.node().name +
                      "' (Range): start, limit and delta must be "
                      "constant scalars (or fold to them) to give a static shape");
  }
  const DType dtype = ctx.In(0).dtype;
  const double s = ValueAsDouble(*start, 0), l = ValueAsDouble(*limit, 0);
  const double d = ValueAsDouble(*delta, 0);
  if (d == 0) return ctx.Error("delta is zero");
  const double count = std::max(std::ceil((l - s) / d), 0.0);
  if (count > 9.0e18) return ctx.Error("element count overflows int64");
  const int64_t n = static_cast<int64_t>(count);
  ctx.SetOut(0, dtype, {n});
  if (n <= kMaxFoldedElements) {
    TensorValue v;
    v.is_float = IsFloatDType(dtype);
    for (int64_t i = 0; i < n; ++i) {
      if (v.is_float) {
        v.floats.push_back(s + static_cast<double>(i) * d);
      } else {
        v.ints.push_back(ValueAsInt(*start, 0) + i * ValueAsInt(*delta, 0));
      }
    }
    ctx.SetValue(0, std::move(v));
  }
  return Status::Ok();
}

// Output i gets the dims; contents pass through when the input's are known.
void SetReview(ShapeContext& ctx, Shape dims) {
  ctx.SetOut(0, ctx.In(0).dtype, std::move(dims));
  if (ctx.Value(0) != nullptr) ctx.SetValue(0, *ctx.Value(0));
}

Status ReshapeRule(ShapeContext& ctx) {
  DLSIM_RETURN_IF_ERROR(ctx.RequireInputs(2));
  DLSIM_ASSIGN_OR_RETURN(std::vector<int64_t> target, ctx.Ints(1));
  const Shape& in = ctx.Dims(0);
  const bool allow_zero = ctx.node().GetInt("allowzero", 0) != 0;
  int64_t known = 1;
  int infer_at = -1;
  for (size_t k = 0; k < target.size(); ++k) {
    if (target[k] == 0 && !allow_zero) {
      if (k >= in.size())
        return ctx.Error("shape has 0 at axis " + std::to_string(k) + " beyond the input rank");
      target[k] = in[k];
    }
    if (target[k] == -1) {
      if (infer_at >= 0) return ctx.Error("shape has more than one -1");
      infer_at = static_cast<int>(k);
    } else if (target[k] < 0) {
      return ctx.Error("shape has invalid dim " + std::to_string(target[k]));
    } else if (__builtin_mul_overflow(known, target[k], &known)) {
      return OutOfRange("node '" + ctx.node().name + "' (Reshape): element count overflows");
    }
  }
  const int64_t total = CheckedNumElements(in);
  if (infer_at >= 0) {
    if (known == 0 || total % known != 0) {
      return ctx.Error("cannot reshape " + ShapeToString(in) + " to a shape with -1");
    }
    target[infer_at] = total / known;
  } else if (known != total) {
    return ctx.Error("cannot reshape " + ShapeToString(in) + " (" + std::to_string(total) +
                     " elements) to " + ShapeToString(target));
  }
  SetReview(ctx, target);
  return Status::Ok();
}

Status FlattenRule(ShapeContext& ctx) {
  DLSIM_RETURN_IF_ERROR(ctx.RequireInputs(1));
  const Shape& in = ctx.Dims(0);
  const int64_t rank = static_cast<int64_t>(in.size());
  int64_t axis = ctx.node().GetInt("axis", 1);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis > rank) return ctx.Error("axis out of range");
  Shape outer(in.begin(), in.begin() + axis), inner(in.begin() + axis, in.end());
  SetReview(ctx, {NumElements(outer), NumElements(inner)});
  return Status::Ok();
}

// Axes from the attribute (older opsets) or input 1 (opset 13+).
Result<std::vector<int64_t>> AxesArg(const ShapeContext& ctx, size_t input) {
  if (ctx.HasInput(input)) return ctx.Ints(input);
  return ctx.node().GetInts("axes", {});
}

Status SqueezeRule(ShapeContext& ctx) {
  DLSIM_RETURN_IF_ERROR(ctx.RequireInputs(1));
  DLSIM_ASSIGN_OR_RETURN(std::vector<int64_t> axes, AxesArg(ctx, 1));
  const Shape& in = ctx.Dims(0);
  std::set<int64_t> drop;
  for (int64_t a : axes) {
    DLSIM_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(ctx, a, static_cast<int64_t>(in.size())));
    if (in[axis] != 1)
      return ctx.Error("cannot squeeze axis " + std::to_string(a) + " of size " +
                       std::to_string(in[axis]));
    drop.insert(axis);
  }
  Shape out;
  for (size_t k = 0; k < in.size(); ++k) {
    const bool squeeze = axes.empty() ? in[k] == 1 : drop.count(static_cast<int64_t>(k)) != 0;
    if (!squeeze) out.push_back(in[k]);
  }
  SetReview(ctx, out);
  return Status::Ok();
}

Status UnsqueezeRule(ShapeContext& ctx) {
  DLSIM_RETURN_IF_ERROR(ctx.RequireInputs(1));
  DLSIM_ASSIGN_OR_RETURN(std::vector<int64_t> axes, AxesArg(ctx, 1));
  const Shape& in = ctx.Dims(0);
  const int64_t out_rank = static_cast<int64_t>(in.size() + axes.size());
  std::set<int64_t> insert;
  for (int64_t a : axes) {
    DLSIM_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(ctx, a, out_rank));
    if (!insert.insert(axis).second) return ctx.Error("repeated axis " + std::to_string(a));
  }
  Shape out;
  size_t next = 0;
  for (int64_t k = 0; k < out_rank; ++k) out.push_back(insert.count(k) ? 1 : in[next++]);
  SetReview(ctx, out);
  return Status::Ok();
}

Status ExpandRule(ShapeContext& ctx) {
  DLSIM_RETURN_IF_ERROR(ctx.RequireInputs(2));
  DLSIM_ASSIGN_OR_RETURN(std::vector<int64_t> shape, ctx.Ints(1));
  DLSIM_ASSIGN_OR_RETURN(Shape out, BroadcastShapes(ctx, ctx.Dims(0), shape));
  ctx.SetOut(0, ctx.In(0).dtype, out);
  const TensorValue* v = ctx.Value(0);
  if (v != nullptr && Foldable(out)) {
    TensorValue r;
    r.is_float = v->is_float;
    for (size_t k : BroadcastIndex(ctx.Dims(0), out)) {
      if (r.is_float)
        r.floats.push_back(v->floats[k]);
      else
        r.ints.push_back(v->ints[k]);
    }
    ctx.SetValue(0, std::move(r));
  }
  return Status::Ok();
}

Status TileRule(ShapeContext& ctx) {
  DLSIM_RETURN_IF_ERROR(ctx.RequireInputs(2));
  DLSIM_ASSIGN_OR_RETURN(std::vector<int64_t> repeats, ctx.Ints(1));
  const Shape& in = ctx.Dims(0);
  if (repeats.size() != in.size()) return ctx.Error("repeats length differs from input rank");
  Shape out(in.size());
  for (size_t k = 0; k < in.size(); ++k) {
    if (repeats[k] < 0) return ctx.Error("negative repeat");
    if (__builtin_mul_overflow(in[k], repeats[k], &out[k])) {
      return OutOfRange("node '" + ctx.node().name + "' (Tile): dim overflows int64");
    }
  }
  ctx.SetOut(0, ctx.In(0).dtype, out);
  const TensorValue* v = ctx.Value(0);
  if (v == nullptr || !Foldable(out)) return Status::Ok();
  TensorValue r;
  r.is_float = v->is_float;
  const int64_t n = NumElements(out);
  for (int64_t i = 0; i < n; ++i) {  // out index -> in index, modulo each dim
    int64_t rem = i, src = 0, stride = 1;
    for (size_t k = out.size(); k-- > 0;) {
      src += ((rem % out[k]) % in[k]) * stride;
      rem /= out[k];
      stride *= in[k];
    }
    if (r.is_float)
      r.floats.push_back(v->floats[src]);
    else
      r.ints.push_back(v->ints[src]);
  }
  ctx.SetValue(0, std::move(r));
  return Status::Ok();
}

}  // namespace

void AddShapeOpRules(ShapeRuleTable* table) {
  (*table)["Shape"] = ShapeOpRule;
  (*table)["Size"] = SizeRule;
  (*table)["Constant"] = ConstantRule;
  (*table)["ConstantOfShape"] = ConstantOfShapeRule;
  (*table)["Range"] = RangeRule;
  (*table)["Reshape"] = ReshapeRule;
  (*table)["Flatten"] = FlattenRule;
  (*table)["Squeeze"] = SqueezeRule;
  (*table)["Unsqueeze"] = UnsqueezeRule;
  (*table)["Expand"] = ExpandRule;
  (*table)["Tile"] = TileRule;
}

}  // namespace dlsim
