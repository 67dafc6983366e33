// Reductions (Reduce*, ArgMax/ArgMin). Axes come from the attribute, or from
// input 1 for ReduceSum (opset 13+) and every Reduce* (opset 18+). Small
// integer inputs are folded (ReduceProd of a shape slice, for instance).
#include <algorithm>
#include <set>

#include "shape_rules.h"

namespace dlsim {
namespace {

// Reduces `v` (shape `in`) over `axes` (sorted set) with keepdims=1 layout.
bool FoldReduce(const std::string& op, const TensorValue& v, const Shape& in,
                const std::set<int64_t>& axes, size_t out_count, TensorValue* out) {
  if (op != "ReduceSum" && op != "ReduceProd" && op != "ReduceMax" && op != "ReduceMin") {
    return false;
  }
  std::vector<double> acc(out_count, op == "ReduceProd" ? 1.0 : op == "ReduceSum" ? 0.0 : 0.0);
  std::vector<bool> seen(out_count, false);
  const std::vector<int64_t> strides = Strides(in);
  for (size_t i = 0; i < v.size(); ++i) {
    int64_t rem = static_cast<int64_t>(i);
    size_t dst = 0;
    for (size_t a = 0; a < in.size(); ++a) {
      const int64_t pos = rem / strides[a];
      rem %= strides[a];
      if (!axes.count(static_cast<int64_t>(a))) dst = dst * in[a] + pos;
    }
    const double x = ValueAsDouble(v, i);
    if (op == "ReduceSum")
      acc[dst] += x;
    else if (op == "ReduceProd")
      acc[dst] *= x;
    else if (!seen[dst])
      acc[dst] = x;
    else
      acc[dst] = op == "ReduceMax" ? std::max(acc[dst], x) : std::min(acc[dst], x);
    seen[dst] = true;
  }
  out->is_float = v.is_float;
  for (double a : acc) {
    if (v.is_float)
      out->floats.push_back(a);
    else
      out->ints.push_back(SaturatingInt(a));
  }
  return true;
}

Status ReduceRule(ShapeContext& ctx) {
  DLSIM_RETURN_IF_ERROR(ctx.RequireInputs(1));
  const Shape& in = ctx.Dims(0);
  const int64_t rank = static_cast<int64_t>(in.size());
  std::vector<int64_t> raw_axes = ctx.node().GetInts("axes", {});
  if (ctx.HasInput(1)) {
    DLSIM_ASSIGN_OR_RETURN(raw_axes, ctx.Ints(1));
  }
  const bool keepdims = ctx.node().GetInt("keepdims", 1) != 0;
  if (raw_axes.empty() && ctx.node().GetInt("noop_with_empty_axes", 0) != 0) {
    ctx.SetOut(0, ctx.In(0).dtype, in);
    if (ctx.Value(0) != nullptr) ctx.SetValue(0, *ctx.Value(0));
    return Status::Ok();
  }
  std::set<int64_t> axes;
  for (int64_t a : raw_axes) {
    DLSIM_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(ctx, a, rank));
    axes.insert(axis);
  }
  if (raw_axes.empty()) {
    for (int64_t k = 0; k < rank; ++k) axes.insert(k);
  }
  Shape out;
  for (int64_t k = 0; k < rank; ++k) {
    if (!axes.count(k))
      out.push_back(in[k]);
    else if (keepdims)
      out.push_back(1);
  }
  ctx.SetOut(0, ctx.In(0).dtype, out);
  TensorValue v;
  if (ctx.Value(0) != nullptr && Foldable(out) &&
      FoldReduce(ctx.node().op_type, *ctx.Value(0), in, axes, static_cast<size_t>(NumElements(out)),
                 &v)) {
    ctx.SetValue(0, std::move(v));
  }
  return Status::Ok();
}

Status ArgRule(ShapeContext& ctx) {
  DLSIM_RETURN_IF_ERROR(ctx.RequireInputs(1));
  Shape out = ctx.Dims(0);
  DLSIM_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(ctx, ctx.node().GetInt("axis", 0),
                                                     static_cast<int64_t>(out.size())));
  if (ctx.node().GetInt("keepdims", 1) != 0) {
    out[axis] = 1;
  } else {
    out.erase(out.begin() + axis);
  }
  ctx.SetOut(0, DType::kInt64, out);
  return Status::Ok();
}

}  // namespace

void AddReductionRules(ShapeRuleTable* table) {
  for (const char* op :
       {"ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
        "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare"}) {
    (*table)[op] = ReduceRule;
  }
  (*table)["ArgMax"] = ArgRule;
  (*table)["ArgMin"] = ArgRule;
}

}  // namespace dlsim
