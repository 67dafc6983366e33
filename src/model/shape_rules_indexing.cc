// Indexing ops: Gather*, Scatter*, Trilu, CumSum, NonZero, TopK. Gather,
// Trilu, CumSum and NonZero fold small constant contents.
#include <algorithm>

#include "shape_rules.h"

namespace dlsim {
namespace {

// Output shaped like input 0: Scatter*, Trilu, CumSum, ReverseSequence, ...
Status LikeInputRule(ShapeContext& ctx) {
  DLSIM_RETURN_IF_ERROR(ctx.RequireInputs(1));
  ctx.SetOut(0, ctx.In(0).dtype, ctx.Dims(0));
  return Status::Ok();
}

Status GatherRule(ShapeContext& ctx) {
  DLSIM_RETURN_IF_ERROR(ctx.RequireInputs(2));
  const Shape& data = ctx.Dims(0);
  const Shape& indices = ctx.Dims(1);
  DLSIM_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(ctx, ctx.node().GetInt("axis", 0),
                                                     static_cast<int64_t>(data.size())));
  Shape out(data.begin(), data.begin() + axis);
  out.insert(out.end(), indices.begin(), indices.end());
  out.insert(out.end(), data.begin() + axis + 1, data.end());
  ctx.SetOut(0, ctx.In(0).dtype, out);
  if (ctx.Value(0) == nullptr || ctx.Value(1) == nullptr || !Foldable(out)) return Status::Ok();
  DLSIM_ASSIGN_OR_RETURN(std::vector<int64_t> idx, ctx.Ints(1));
  // Nothing to pick (no indices or an empty dim): do not loop over a huge
  // outer extent of empty blocks.
  const int64_t outer =
      NumElements(out) == 0 ? 0 : NumElements(Shape(data.begin(), data.begin() + axis));
  const int64_t inner = NumElements(Shape(data.begin() + axis + 1, data.end()));
  std::vector<size_t> index;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t j : idx) {
      if (j < 0) j += data[axis];
      if (j < 0 || j >= data[axis]) {
        return ctx.Error("index " + std::to_string(j) + " out of range for axis size " +
                         std::to_string(data[axis]));
      }
      for (int64_t k = 0; k < inner; ++k) {
        index.push_back(static_cast<size_t>((o * data[axis] + j) * inner + k));
      }
    }
  }
  ctx.SetValue(0, PickElements(*ctx.Value(0), index));
  return Status::Ok();
}

Status GatherElementsRule(ShapeContext& ctx) {
  DLSIM_RETURN_IF_ERROR(ctx.RequireInputs(2));
  ctx.SetOut(0, ctx.In(0).dtype, ctx.Dims(1));
  return Status::Ok();
}

Status GatherNDRule(ShapeContext& ctx) {
  DLSIM_RETURN_IF_ERROR(ctx.RequireInputs(2));
  const Shape& data = ctx.Dims(0);
  const Shape& indices = ctx.Dims(1);
  const int64_t batch = ctx.node().GetInt("batch_dims", 0);
  if (indices.empty()) return ctx.Error("indices must have rank >= 1");
  const int64_t last = indices.back();
  if (batch + last > static_cast<int64_t>(data.size())) {
    return ctx.Error("indices last dim too large for data rank");
  }
  Shape out(indices.begin(), indices.end() - 1);
  out.insert(out.end(), data.begin() + batch + last, data.end());
  ctx.SetOut(0, ctx.In(0).dtype, out);
  return Status::Ok();
}

// Trilu: keeps the lower (upper=0) or upper triangle of the last two dims,
// offset by k; folded when small.
Status TriluRule(ShapeContext& ctx) {
  DLSIM_RETURN_IF_ERROR(LikeInputRule(ctx));
  const Shape& in = ctx.Dims(0);
  if (in.size() < 2) return ctx.Error("input needs rank >= 2");
  int64_t k = 0;
  if (ctx.HasInput(1)) {
    DLSIM_ASSIGN_OR_RETURN(std::vector<int64_t> kv, ctx.Ints(1));
    if (kv.size() != 1) return ctx.Error("k must have one element");
    k = kv[0];
  }
  const TensorValue* v = ctx.Value(0);
  if (v == nullptr || !Foldable(in)) return Status::Ok();
  const bool upper = ctx.node().GetInt("upper", 1) != 0;
  const int64_t rows = in[in.size() - 2], cols = in.back();
  TensorValue r = *v;
  for (size_t i = 0; i < r.size(); ++i) {
    const int64_t col = static_cast<int64_t>(i) % cols;
    const int64_t row = static_cast<int64_t>(i) / cols % rows;
    const bool keep = upper ? col - row >= k : col - row <= k;
    if (keep) continue;
    if (r.is_float)
      r.floats[i] = 0;
    else
      r.ints[i] = 0;
  }
  ctx.SetValue(0, std::move(r));
  return Status::Ok();
}

// CumSum along one axis (exclusive / reverse attributes); folded when small.
Status CumSumRule(ShapeContext& ctx) {
  DLSIM_RETURN_IF_ERROR(ctx.RequireInputs(2));
  DLSIM_RETURN_IF_ERROR(LikeInputRule(ctx));
  const Shape& in = ctx.Dims(0);
  const TensorValue* v = ctx.Value(0);
  if (v == nullptr || ctx.Value(1) == nullptr || !Foldable(in)) return Status::Ok();
  DLSIM_ASSIGN_OR_RETURN(std::vector<int64_t> axis_v, ctx.Ints(1));
  if (axis_v.size() != 1) return ctx.Error("axis must have one element");
  DLSIM_ASSIGN_OR_RETURN(int64_t axis,
                         NormalizeAxis(ctx, axis_v[0], static_cast<int64_t>(in.size())));
  const bool exclusive = ctx.node().GetInt("exclusive", 0) != 0;
  const bool reverse = ctx.node().GetInt("reverse", 0) != 0;
  const int64_t stride = Strides(in)[axis], n = in[axis];
  const int64_t outer = NumElements(in) / std::max<int64_t>(1, n * stride);
  TensorValue r = *v;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t s = 0; s < stride; ++s) {
      double acc = 0;
      for (int64_t j = 0; j < n; ++j) {
        const int64_t pos = reverse ? n - 1 - j : j;
        const size_t i = static_cast<size_t>((o * n + pos) * stride + s);
        const double x = ValueAsDouble(*v, i);
        if (!exclusive) acc += x;
        if (r.is_float)
          r.floats[i] = acc;
        else
          r.ints[i] = SaturatingInt(acc);
        if (exclusive) acc += x;
      }
    }
  }
  ctx.SetValue(0, std::move(r));
  return Status::Ok();
}

Status NonZeroRule(ShapeContext& ctx) {
  DLSIM_RETURN_IF_ERROR(ctx.RequireInputs(1));
  const TensorValue* v = ctx.Value(0);
  if (v == nullptr) {
    return Status(StatusCode::kUnsupported, "node '" + ctx.node().name +
                                                "' (NonZero): its output shape depends on "
                                                "data; only a constant input gives a static shape");
  }
  const Shape& in = ctx.Dims(0);
  const std::vector<int64_t> strides = Strides(in);
  std::vector<std::vector<int64_t>> coords(in.size());
  int64_t count = 0;
  for (size_t i = 0; i < v->size(); ++i) {
    if (ValueAsDouble(*v, i) == 0) continue;
    ++count;
    int64_t rem = static_cast<int64_t>(i);
    for (size_t a = 0; a < in.size(); ++a) {
      coords[a].push_back(rem / strides[a]);
      rem %= strides[a];
    }
  }
  const Shape out = {static_cast<int64_t>(in.size()), count};
  ctx.SetOut(0, DType::kInt64, out);
  std::vector<int64_t> flat;
  for (const auto& c : coords) flat.insert(flat.end(), c.begin(), c.end());
  if (Foldable(out)) ctx.SetValue(0, IntValue(std::move(flat)));
  return Status::Ok();
}

Status TopKRule(ShapeContext& ctx) {
  DLSIM_RETURN_IF_ERROR(ctx.RequireInputs(1));
  int64_t k = ctx.node().GetInt("k", -1);
  if (ctx.HasInput(1)) {
    DLSIM_ASSIGN_OR_RETURN(std::vector<int64_t> kv, ctx.Ints(1));
    if (kv.size() != 1) return ctx.Error("K must have one element");
    k = kv[0];
  }
  Shape out = ctx.Dims(0);
  DLSIM_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(ctx, ctx.node().GetInt("axis", -1),
                                                     static_cast<int64_t>(out.size())));
  if (k < 0 || k > out[axis]) return ctx.Error("K " + std::to_string(k) + " out of range");
  out[axis] = k;
  ctx.SetOut(0, ctx.In(0).dtype, out);
  ctx.SetOut(1, DType::kInt64, out);
  return Status::Ok();
}

}  // namespace

void AddIndexingRules(ShapeRuleTable* table) {
  (*table)["Gather"] = GatherRule;
  (*table)["GatherElements"] = GatherElementsRule;
  (*table)["GatherND"] = GatherNDRule;
  for (const char* op : {"ScatterND", "ScatterElements", "Scatter", "ReverseSequence"}) {
    (*table)[op] = LikeInputRule;
  }
  (*table)["Trilu"] = TriluRule;
  (*table)["CumSum"] = CumSumRule;
  (*table)["NonZero"] = NonZeroRule;
  (*table)["TopK"] = TopKRule;
}

}  // namespace dlsim
