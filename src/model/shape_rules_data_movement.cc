// Data movement: Concat, Slice, Split, Transpose, Pad, Resize/Upsample,
// DepthToSpace/SpaceToDepth. Concat, Slice and Transpose fold small contents.
#include <algorithm>
#include <cmath>
#include <limits>

#include "shape_rules.h"

namespace dlsim {
namespace {

Status ConcatRule(ShapeContext& ctx) {
  DLSIM_RETURN_IF_ERROR(ctx.RequireInputs(1));
  const int64_t rank = ctx.Rank(0);
  DLSIM_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(ctx, ctx.node().GetInt("axis", 0), rank));
  Shape out = ctx.Dims(0);
  out[axis] = 0;
  bool all_known = true;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    if (!ctx.HasInput(i)) continue;
    const Shape& d = ctx.Dims(i);
    if (static_cast<int64_t>(d.size()) != rank) {
      return ctx.Error("input " + std::to_string(i) + " has rank " + std::to_string(d.size()) +
                       ", input 0 has rank " + std::to_string(rank));
    }
    for (int64_t k = 0; k < rank; ++k) {
      if (k != axis && d[k] != out[k]) {
        return ctx.Error("input " + std::to_string(i) + " shape " + ShapeToString(d) +
                         " differs from " + ShapeToString(ctx.Dims(0)) + " off axis " +
                         std::to_string(axis));
      }
    }
    if (__builtin_add_overflow(out[axis], d[axis], &out[axis])) {
      return ctx.Error("concatenated axis " + std::to_string(axis) + " overflows");
    }
    all_known = all_known && ctx.Value(i) != nullptr;
  }
  ctx.SetOut(0, ctx.In(0).dtype, out);
  if (!all_known || !Foldable(out)) return Status::Ok();
  TensorValue v;
  v.is_float = IsFloatDType(ctx.In(0).dtype);
  // An empty result: 2^60 x 0 would otherwise loop 2^60 times over empty
  // blocks (a fuzzing timeout).
  const int64_t outer =
      NumElements(out) == 0 ? 0 : NumElements(Shape(out.begin(), out.begin() + axis));
  for (int64_t o = 0; o < outer; ++o) {
    for (size_t i = 0; i < ctx.num_inputs(); ++i) {
      if (!ctx.HasInput(i)) continue;
      const Shape& d = ctx.Dims(i);
      const int64_t block = NumElements(Shape(d.begin() + axis, d.end()));
      for (int64_t k = 0; k < block; ++k) {
        const size_t src = static_cast<size_t>(o * block + k);
        if (v.is_float)
          v.floats.push_back(ValueAsDouble(*ctx.Value(i), src));
        else
          v.ints.push_back(ValueAsInt(*ctx.Value(i), src));
      }
    }
  }
  ctx.SetValue(0, std::move(v));
  return Status::Ok();
}

// Clamps one axis' slice per the ONNX/numpy rules; returns its length.
int64_t SliceAxis(int64_t dim, int64_t* start, int64_t end, int64_t step) {
  if (dim == 0) return 0;
  int64_t s = *start;
  if (s < 0) s += dim;
  if (end < 0) end += dim;
  // ceil(distance / |step|) written so that no step, not even INT64_MIN
  // (found by fuzzing), overflows.
  if (step > 0) {
    s = std::clamp(s, int64_t{0}, dim);
    end = std::clamp(end, int64_t{0}, dim);
    *start = s;
    return end > s ? (end - s - 1) / step + 1 : 0;
  }
  s = std::clamp(s, int64_t{0}, dim - 1);
  end = std::clamp(end, int64_t{-1}, dim - 1);
  *start = s;
  const uint64_t magnitude = step == std::numeric_limits<int64_t>::min()
                                 ? uint64_t{1} << 63 : static_cast<uint64_t>(-step);
  return s > end ? static_cast<int64_t>(static_cast<uint64_t>(s - end - 1) / magnitude) + 1 : 0;
}

Status SliceRule(ShapeContext& ctx) {
  DLSIM_RETURN_IF_ERROR(ctx.RequireInputs(1));
  const Shape& in = ctx.Dims(0);
  const int64_t rank = static_cast<int64_t>(in.size());
  std::vector<int64_t> starts, ends, axes, steps;
  if (ctx.opset() < 10 && !ctx.HasInput(1)) {
    starts = ctx.node().GetInts("starts", {});
    ends = ctx.node().GetInts("ends", {});
    axes = ctx.node().GetInts("axes", {});
  } else {
    DLSIM_RETURN_IF_ERROR(ctx.RequireInputs(3));
    DLSIM_ASSIGN_OR_RETURN(starts, ctx.Ints(1));
    DLSIM_ASSIGN_OR_RETURN(ends, ctx.Ints(2));
    if (ctx.HasInput(3)) {
      DLSIM_ASSIGN_OR_RETURN(axes, ctx.Ints(3));
    }
    if (ctx.HasInput(4)) {
      DLSIM_ASSIGN_OR_RETURN(steps, ctx.Ints(4));
    }
  }
  if (ends.size() != starts.size() || (!axes.empty() && axes.size() != starts.size()) ||
      (!steps.empty() && steps.size() != starts.size())) {
    return ctx.Error("starts, ends, axes and steps differ in length");
  }
  Shape out = in;
  std::vector<int64_t> first(in.size(), 0), step(in.size(), 1);
  for (size_t k = 0; k < starts.size(); ++k) {
    DLSIM_ASSIGN_OR_RETURN(int64_t axis,
                           NormalizeAxis(ctx, axes.empty() ? int64_t(k) : axes[k], rank));
    const int64_t st = steps.empty() ? 1 : steps[k];
    if (st == 0) return ctx.Error("step is zero");
    first[axis] = starts[k];
    step[axis] = st;
    out[axis] = SliceAxis(in[axis], &first[axis], ends[k], st);
  }
  ctx.SetOut(0, ctx.In(0).dtype, out);
  if (ctx.Value(0) == nullptr || !Foldable(out)) return Status::Ok();
  const std::vector<int64_t> in_strides = Strides(in), out_strides = Strides(out);
  std::vector<size_t> index(static_cast<size_t>(NumElements(out)));
  for (size_t i = 0; i < index.size(); ++i) {
    int64_t rem = static_cast<int64_t>(i), src = 0;
    for (size_t a = 0; a < out.size(); ++a) {
      const int64_t pos = rem / out_strides[a];
      rem %= out_strides[a];
      src += (first[a] + pos * step[a]) * in_strides[a];
    }
    index[i] = static_cast<size_t>(src);
  }
  ctx.SetValue(0, PickElements(*ctx.Value(0), index));
  return Status::Ok();
}

Status SplitRule(ShapeContext& ctx) {
  DLSIM_RETURN_IF_ERROR(ctx.RequireInputs(1));
  const Shape& in = ctx.Dims(0);
  DLSIM_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(ctx, ctx.node().GetInt("axis", 0),
                                                     static_cast<int64_t>(in.size())));
  const int64_t n = static_cast<int64_t>(ctx.num_outputs());
  std::vector<int64_t> split;
  if (ctx.HasInput(1)) {
    DLSIM_ASSIGN_OR_RETURN(split, ctx.Ints(1));
  } else if (ctx.node().HasAttr("split")) {
    split = ctx.node().GetInts("split", {});
  } else {  // equal parts; the last one smaller when the dim does not divide
    const int64_t parts = ctx.node().GetInt("num_outputs", n);
    if (parts <= 0 || parts != n) {  // a huge num_outputs would loop for ever
      return ctx.Error("num_outputs " + std::to_string(parts) + " but " + std::to_string(n) +
                       " outputs");
    }
    const int64_t chunk = (in[axis] + parts - 1) / parts;
    for (int64_t k = 0; k < parts; ++k) {
      split.push_back(std::max<int64_t>(0, std::min(chunk, in[axis] - k * chunk)));
    }
  }
  int64_t total = 0;
  bool bad = false;
  for (int64_t s : split) bad = bad || s < 0 || __builtin_add_overflow(total, s, &total);
  if (bad || static_cast<int64_t>(split.size()) != n || total != in[axis]) {
    return ctx.Error("split sizes do not add up to axis size " + std::to_string(in[axis]) +
                     " over " + std::to_string(n) + " outputs");
  }
  for (int64_t k = 0; k < n; ++k) {
    Shape out = in;
    out[axis] = split[k];
    ctx.SetOut(k, ctx.In(0).dtype, out);
  }
  return Status::Ok();
}

Status TransposeRule(ShapeContext& ctx) {
  DLSIM_RETURN_IF_ERROR(ctx.RequireInputs(1));
  const Shape& in = ctx.Dims(0);
  std::vector<int64_t> perm = ctx.node().GetInts("perm", {});
  if (perm.empty()) {
    for (size_t k = in.size(); k-- > 0;) perm.push_back(static_cast<int64_t>(k));
  }
  if (perm.size() != in.size()) return ctx.Error("perm length differs from input rank");
  Shape out;
  std::vector<bool> used(in.size(), false);
  for (int64_t p : perm) {
    DLSIM_ASSIGN_OR_RETURN(int64_t a, NormalizeAxis(ctx, p, static_cast<int64_t>(in.size())));
    if (used[a]) return ctx.Error("perm repeats axis " + std::to_string(p));
    used[a] = true;
    out.push_back(in[a]);
  }
  ctx.SetOut(0, ctx.In(0).dtype, out);
  if (ctx.Value(0) == nullptr || !Foldable(out)) return Status::Ok();
  const std::vector<int64_t> in_strides = Strides(in), out_strides = Strides(out);
  std::vector<size_t> index(static_cast<size_t>(NumElements(out)));
  for (size_t i = 0; i < index.size(); ++i) {
    int64_t rem = static_cast<int64_t>(i), src = 0;
    for (size_t a = 0; a < out.size(); ++a) {
      const int64_t axis = perm[a] < 0 ? perm[a] + static_cast<int64_t>(in.size()) : perm[a];
      src += rem / out_strides[a] * in_strides[axis];
      rem %= out_strides[a];
    }
    index[i] = static_cast<size_t>(src);
  }
  ctx.SetValue(0, PickElements(*ctx.Value(0), index));
  return Status::Ok();
}

Status PadRule(ShapeContext& ctx) {
  DLSIM_RETURN_IF_ERROR(ctx.RequireInputs(1));
  const Shape& in = ctx.Dims(0);
  const int64_t rank = static_cast<int64_t>(in.size());
  std::vector<int64_t> pads;
  if (ctx.HasInput(1)) {
    DLSIM_ASSIGN_OR_RETURN(pads, ctx.Ints(1));
  } else {
    pads = ctx.node().GetInts("pads", {});
  }
  std::vector<int64_t> axes;
  if (ctx.HasInput(3)) {
    DLSIM_ASSIGN_OR_RETURN(axes, ctx.Ints(3));
  }
  if (axes.empty()) {
    for (int64_t k = 0; k < rank; ++k) axes.push_back(k);
  }
  const size_t n = axes.size();
  if (pads.size() != 2 * n) {
    return ctx.Error("pads has " + std::to_string(pads.size()) + " values, expected " +
                     std::to_string(2 * n));
  }
  Shape out = in;
  for (size_t k = 0; k < n; ++k) {
    DLSIM_ASSIGN_OR_RETURN(int64_t a, NormalizeAxis(ctx, axes[k], rank));
    if (__builtin_add_overflow(in[a], pads[k], &out[a]) ||
        __builtin_add_overflow(out[a], pads[k + n], &out[a])) {
      return ctx.Error("pads of axis " + std::to_string(a) + " overflow");
    }
  }
  ctx.SetOut(0, ctx.In(0).dtype, out);
  return Status::Ok();
}

// Resize (opset 11+: X, roi, scales, sizes; opset 10: X, scales) and
// Upsample (X, scales). An empty tensor counts as absent.
Status ResizeRule(ShapeContext& ctx) {
  DLSIM_RETURN_IF_ERROR(ctx.RequireInputs(1));
  const Shape& in = ctx.Dims(0);
  const bool v10 = ctx.node().op_type == "Upsample" || ctx.opset() < 11;
  const size_t scales_at = v10 ? 1 : 2, sizes_at = 3;
  auto present = [&](size_t i) { return ctx.HasInput(i) && ctx.In(i).num_elements() > 0; };
  Shape out = in;
  if (!v10 && present(sizes_at)) {
    DLSIM_ASSIGN_OR_RETURN(std::vector<int64_t> sizes, ctx.Ints(sizes_at));
    if (sizes.size() != in.size()) return ctx.Error("sizes length differs from input rank");
    out = sizes;
  } else {
    std::vector<double> scales = ctx.node().attrs.count("scales")
                                     ? ctx.node().attrs.at("scales").floats
                                     : std::vector<double>();
    if (present(scales_at)) {
      const TensorValue* v = ctx.Value(scales_at);
      if (v == nullptr) return ctx.Ints(scales_at).status();
      scales.clear();
      for (size_t k = 0; k < v->size(); ++k) scales.push_back(ValueAsDouble(*v, k));
    }
    if (scales.size() != in.size()) return ctx.Error("scales length differs from input rank");
    for (size_t k = 0; k < in.size(); ++k) {
      const double dim = std::floor(static_cast<double>(in[k]) * scales[k] + 1e-9);
      // Converting a double outside int64's range is undefined (found by
      // fuzz/onnx_graph_fuzz); NaN fails the comparison too.
      if (!(dim >= 0 && dim < 9.0e18)) {
        return ctx.Error("scale " + std::to_string(scales[k]) + " of axis " + std::to_string(k) +
                         " gives an output dim out of range");
      }
      out[k] = static_cast<int64_t>(dim);
    }
  }
  ctx.SetOut(0, ctx.In(0).dtype, out);
  return Status::Ok();
}

Status DepthSpaceRule(ShapeContext& ctx) {
  DLSIM_RETURN_IF_ERROR(ctx.RequireInputs(1));
  const Shape& in = ctx.Dims(0);
  const int64_t b = ctx.node().GetInt("blocksize", 0);
  if (in.size() != 4 || b <= 0) return ctx.Error("needs a 4-D input and blocksize > 0");
  const bool to_space = ctx.node().op_type == "DepthToSpace";
  if (to_space && in[1] % (b * b) != 0) return ctx.Error("channels not divisible by blocksize^2");
  const Shape out = to_space ? Shape{in[0], in[1] / (b * b), in[2] * b, in[3] * b}
                             : Shape{in[0], in[1] * b * b, in[2] / b, in[3] / b};
  ctx.SetOut(0, ctx.In(0).dtype, out);
  return Status::Ok();
}

}  // namespace

void AddDataMovementRules(ShapeRuleTable* table) {
  (*table)["Concat"] = ConcatRule;
  (*table)["Slice"] = SliceRule;
  (*table)["Split"] = SplitRule;
  (*table)["Transpose"] = TransposeRule;
  (*table)["Pad"] = PadRule;
  (*table)["Resize"] = ResizeRule;
  (*table)["Upsample"] = ResizeRule;
  (*table)["DepthToSpace"] = DepthSpaceRule;
  (*table)["SpaceToDepth"] = DepthSpaceRule;
}

}  // namespace dlsim
