// Elementwise ops: unary, binary and variadic with numpy broadcasting, Where,
// Cast, Clip. Small constant operands are folded (shape arithmetic).
#include <cmath>
#include <functional>
#include <limits>

#include "shape_rules.h"

namespace dlsim {
namespace {

using IntFn = std::function<bool(int64_t, int64_t, int64_t*)>;  // false: do not fold
using FloatFn = std::function<double(double, double)>;

struct BinaryOp {
  IntFn int_fn;      // used when both operands are integers
  FloatFn float_fn;  // used otherwise
  bool yields_bool = false;
};

int64_t PyMod(int64_t a, int64_t b) {
  const int64_t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

const std::unordered_map<std::string, BinaryOp>& BinaryOps() {
  static const auto* ops = new std::unordered_map<std::string, BinaryOp>{
      {"Add",
       {[](int64_t a, int64_t b, int64_t* r) { return !__builtin_add_overflow(a, b, r); },
        [](double a, double b) { return a + b; }}},
      {"Sub",
       {[](int64_t a, int64_t b, int64_t* r) { return !__builtin_sub_overflow(a, b, r); },
        [](double a, double b) { return a - b; }}},
      {"Mul",
       {[](int64_t a, int64_t b, int64_t* r) { return !__builtin_mul_overflow(a, b, r); },
        [](double a, double b) { return a * b; }}},
      {"Div",
       {[](int64_t a, int64_t b, int64_t* r) { return b != 0 && b != -1 && (*r = a / b, true); },
        [](double a, double b) { return a / b; }}},
      {"Mod",
       {[](int64_t a, int64_t b, int64_t* r) {
          return b != 0 && b != -1 && (*r = PyMod(a, b), true);
        },
        [](double a, double b) { return std::fmod(a, b); }}},
      {"Pow",
       {[](int64_t a, int64_t b, int64_t* r) {
          *r = SaturatingInt(std::pow(static_cast<double>(a), static_cast<double>(b)));
          return true;
        },
        [](double a, double b) { return std::pow(a, b); }}},
      {"Equal",
       {[](int64_t a, int64_t b, int64_t* r) {
          *r = a == b;
          return true;
        },
        [](double a, double b) { return double(a == b); }, true}},
      {"Less",
       {[](int64_t a, int64_t b, int64_t* r) {
          *r = a < b;
          return true;
        },
        [](double a, double b) { return double(a < b); }, true}},
      {"LessOrEqual",
       {[](int64_t a, int64_t b, int64_t* r) {
          *r = a <= b;
          return true;
        },
        [](double a, double b) { return double(a <= b); }, true}},
      {"Greater",
       {[](int64_t a, int64_t b, int64_t* r) {
          *r = a > b;
          return true;
        },
        [](double a, double b) { return double(a > b); }, true}},
      {"GreaterOrEqual",
       {[](int64_t a, int64_t b, int64_t* r) {
          *r = a >= b;
          return true;
        },
        [](double a, double b) { return double(a >= b); }, true}},
      {"And",
       {[](int64_t a, int64_t b, int64_t* r) {
          *r = a && b;
          return true;
        },
        [](double a, double b) { return double(a != 0 && b != 0); }, true}},
      {"Or",
       {[](int64_t a, int64_t b, int64_t* r) {
          *r = a || b;
          return true;
        },
        [](double a, double b) { return double(a != 0 || b != 0); }, true}},
      {"Xor",
       {[](int64_t a, int64_t b, int64_t* r) {
          *r = (a != 0) != (b != 0);
          return true;
        },
        [](double a, double b) { return double((a != 0) != (b != 0)); }, true}},
      {"Min",
       {[](int64_t a, int64_t b, int64_t* r) {
          *r = std::min(a, b);
          return true;
        },
        [](double a, double b) { return std::min(a, b); }}},
      {"Max",
       {[](int64_t a, int64_t b, int64_t* r) {
          *r = std::max(a, b);
          return true;
        },
        [](double a, double b) { return std::max(a, b); }}},
      {"Sum",
       {[](int64_t a, int64_t b, int64_t* r) { return !__builtin_add_overflow(a, b, r); },
        [](double a, double b) { return a + b; }}},
  };
  return *ops;
}

// Folds a op b elementwise into `out` (shape `dims`); false when not foldable.
bool FoldBinary(const BinaryOp& op, const TensorValue& a, const Shape& a_dims, const TensorValue& b,
                const Shape& b_dims, const Shape& dims, bool float_out, TensorValue* out) {
  const auto ia = BroadcastIndex(a_dims, dims);
  const auto ib = BroadcastIndex(b_dims, dims);
  const bool use_int = !a.is_float && !b.is_float;
  out->is_float = float_out;
  for (size_t i = 0; i < ia.size(); ++i) {
    double f;
    if (use_int) {
      int64_t r;
      if (!op.int_fn(a.ints[ia[i]], b.ints[ib[i]], &r)) return false;
      f = static_cast<double>(r);
      if (!float_out) {
        out->ints.push_back(r);
        continue;
      }
    } else {
      f = op.float_fn(ValueAsDouble(a, ia[i]), ValueAsDouble(b, ib[i]));
    }
    if (float_out) {
      out->floats.push_back(f);
    } else {
      out->ints.push_back(SaturatingInt(f));
    }
  }
  return true;
}

// Binary and variadic broadcasting ops (Add ... Max, Sum, Mean).
Status BroadcastRule(ShapeContext& ctx) {
  const std::string& op_type = ctx.node().op_type;
  const bool variadic =
      op_type == "Sum" || op_type == "Mean" || op_type == "Min" || op_type == "Max";
  DLSIM_RETURN_IF_ERROR(ctx.RequireInputs(variadic ? 1 : 2));
  auto op_it = BinaryOps().find(op_type);
  const bool yields_bool = op_it != BinaryOps().end() && op_it->second.yields_bool;
  const DType dtype = yields_bool ? DType::kBool : ctx.In(0).dtype;
  Shape dims = ctx.Dims(0);
  for (size_t i = 1; i < ctx.num_inputs(); ++i) {
    if (!ctx.HasInput(i)) continue;
    DLSIM_ASSIGN_OR_RETURN(dims, BroadcastShapes(ctx, dims, ctx.Dims(i)));
  }
  ctx.SetOut(0, dtype, dims);
  if (op_it == BinaryOps().end() || !Foldable(dims) || ctx.Value(0) == nullptr) {
    return Status::Ok();
  }
  if (op_type == "Mod" && IsFloatDType(dtype) && ctx.node().GetInt("fmod", 0) == 0) {
    return Status::Ok();  // float Mod requires fmod=1
  }
  TensorValue acc = *ctx.Value(0);
  Shape acc_dims = ctx.Dims(0);
  for (size_t i = 1; i < ctx.num_inputs(); ++i) {
    if (!ctx.HasInput(i)) continue;
    if (ctx.Value(i) == nullptr) return Status::Ok();
    DLSIM_ASSIGN_OR_RETURN(Shape step_dims, BroadcastShapes(ctx, acc_dims, ctx.Dims(i)));
    TensorValue next;
    if (!FoldBinary(op_it->second, acc, acc_dims, *ctx.Value(i), ctx.Dims(i), step_dims,
                    IsFloatDType(dtype), &next)) {
      return Status::Ok();
    }
    acc = std::move(next);
    acc_dims = step_dims;
  }
  ctx.SetValue(0, std::move(acc));
  return Status::Ok();
}

using UnaryFn = double (*)(double);

const std::unordered_map<std::string, UnaryFn>& FoldableUnary() {
  static const auto* ops = new std::unordered_map<std::string, UnaryFn>{
      {"Neg", [](double x) { return -x; }},
      {"Abs", [](double x) { return std::fabs(x); }},
      {"Floor", [](double x) { return std::floor(x); }},
      {"Ceil", [](double x) { return std::ceil(x); }},
      {"Round", [](double x) { return std::nearbyint(x); }},
      {"Sqrt", [](double x) { return std::sqrt(x); }},
      {"Reciprocal", [](double x) { return 1.0 / x; }},
      {"Exp", [](double x) { return std::exp(x); }},
      {"Log", [](double x) { return std::log(x); }},
      {"Relu", [](double x) { return x > 0 ? x : 0.0; }},
      {"Sign", [](double x) { return double((x > 0) - (x < 0)); }},
      {"Not", [](double x) { return double(x == 0); }},
      {"Identity", [](double x) { return x; }},
  };
  return *ops;
}

// Same shape (and dtype, except IsNaN/IsInf) as input 0.
Status UnaryRule(ShapeContext& ctx) {
  DLSIM_RETURN_IF_ERROR(ctx.RequireInputs(1));
  const std::string& op_type = ctx.node().op_type;
  const bool to_bool = op_type == "IsNaN" || op_type == "IsInf";
  const Tensor& x = ctx.In(0);
  ctx.SetOut(0, to_bool ? DType::kBool : x.dtype, x.dims);
  auto fn = FoldableUnary().find(op_type);
  if (fn == FoldableUnary().end() || !x.value) return Status::Ok();
  TensorValue v;
  v.is_float = x.value->is_float;
  for (size_t i = 0; i < x.value->size(); ++i) {
    if (v.is_float) {
      v.floats.push_back(fn->second(x.value->floats[i]));
    } else if (op_type == "Neg" || op_type == "Abs" || op_type == "Identity") {
      const int64_t a = x.value->ints[i];
      // -INT64_MIN overflows: saturate like the other folds.
      const int64_t neg = a == std::numeric_limits<int64_t>::min()
                              ? std::numeric_limits<int64_t>::max() : -a;
      v.ints.push_back(op_type == "Neg" ? neg : op_type == "Abs" ? (a < 0 ? neg : a) : a);
    } else {
      v.ints.push_back(SaturatingInt(fn->second(static_cast<double>(x.value->ints[i]))));
    }
  }
  ctx.SetValue(0, std::move(v));
  return Status::Ok();
}

TensorValue CastValue(const TensorValue& in, DType to) {
  TensorValue v;
  v.is_float = IsFloatDType(to);
  for (size_t i = 0; i < in.size(); ++i) {
    if (v.is_float) {
      v.floats.push_back(ValueAsDouble(in, i));
    } else if (to == DType::kBool) {
      v.ints.push_back(ValueAsDouble(in, i) != 0);
    } else {
      v.ints.push_back(ValueAsInt(in, i));
    }
  }
  return v;
}

Status CastRule(ShapeContext& ctx) {
  DLSIM_RETURN_IF_ERROR(ctx.RequireInputs(ctx.node().op_type == "CastLike" ? 2 : 1));
  DType to;
  if (ctx.node().op_type == "CastLike") {
    to = ctx.In(1).dtype;
  } else {
    if (!ctx.node().HasAttr("to")) return ctx.Error("attribute 'to' is missing");
    to = DTypeFromOnnxCode(ctx.node().GetInt("to", 0));
    if (to == DType::kUndefined) {
      return ctx.Error("unsupported target type " + std::to_string(ctx.node().GetInt("to", 0)));
    }
  }
  ctx.SetOut(0, to, ctx.Dims(0));
  if (ctx.Value(0) != nullptr) ctx.SetValue(0, CastValue(*ctx.Value(0), to));
  return Status::Ok();
}

Status WhereRule(ShapeContext& ctx) {
  DLSIM_RETURN_IF_ERROR(ctx.RequireInputs(3));
  DLSIM_ASSIGN_OR_RETURN(Shape dims, BroadcastShapes(ctx, ctx.Dims(0), ctx.Dims(1)));
  DLSIM_ASSIGN_OR_RETURN(dims, BroadcastShapes(ctx, dims, ctx.Dims(2)));
  const DType dtype = ctx.In(1).dtype;
  ctx.SetOut(0, dtype, dims);
  const TensorValue* c = ctx.Value(0);
  const TensorValue* x = ctx.Value(1);
  const TensorValue* y = ctx.Value(2);
  if (c == nullptr || x == nullptr || y == nullptr || !Foldable(dims)) return Status::Ok();
  const auto ic = BroadcastIndex(ctx.Dims(0), dims);
  const auto ix = BroadcastIndex(ctx.Dims(1), dims);
  const auto iy = BroadcastIndex(ctx.Dims(2), dims);
  TensorValue v;
  v.is_float = IsFloatDType(dtype);
  for (size_t i = 0; i < ic.size(); ++i) {
    const bool pick_x = ValueAsDouble(*c, ic[i]) != 0;
    const TensorValue& src = pick_x ? *x : *y;
    const size_t k = pick_x ? ix[i] : iy[i];
    if (v.is_float) {
      v.floats.push_back(ValueAsDouble(src, k));
    } else {
      v.ints.push_back(ValueAsInt(src, k));
    }
  }
  ctx.SetValue(0, std::move(v));
  return Status::Ok();
}

// Clip: min and max are optional scalar inputs (opset 11+) or attributes.
Status ClipRule(ShapeContext& ctx) {
  DLSIM_RETURN_IF_ERROR(ctx.RequireInputs(1));
  ctx.SetOut(0, ctx.In(0).dtype, ctx.Dims(0));
  return Status::Ok();
}

}  // namespace

void AddElementwiseRules(ShapeRuleTable* table) {
  for (const char* op : {"Relu",       "Sigmoid",
                         "Tanh",       "HardSigmoid",
                         "HardSwish",  "LeakyRelu",
                         "Elu",        "Selu",
                         "Celu",       "Softplus",
                         "Softsign",   "Erf",
                         "Exp",        "Log",
                         "Abs",        "Sign",
                         "Reciprocal", "Gelu",
                         "Neg",        "Floor",
                         "Ceil",       "Round",
                         "Sqrt",       "Not",
                         "Identity",   "Sin",
                         "Cos",        "Tan",
                         "Asin",       "Acos",
                         "Atan",       "Sinh",
                         "Cosh",       "Asinh",
                         "Acosh",      "Atanh",
                         "Mish",       "ThresholdedRelu",
                         "Shrink",     "IsNaN",
                         "IsInf",      "BitwiseNot"}) {
    (*table)[op] = UnaryRule;
  }
  for (const char* op : {"Add",
                         "Sub",
                         "Mul",
                         "Div",
                         "Pow",
                         "Mod",
                         "PRelu",
                         "BitShift",
                         "Equal",
                         "Less",
                         "LessOrEqual",
                         "Greater",
                         "GreaterOrEqual",
                         "And",
                         "Or",
                         "Xor",
                         "Sum",
                         "Mean",
                         "Min",
                         "Max",
                         "BitwiseAnd",
                         "BitwiseOr",
                         "BitwiseXor"}) {
    (*table)[op] = BroadcastRule;
  }
  (*table)["Cast"] = CastRule;
  (*table)["CastLike"] = CastRule;
  (*table)["Where"] = WhereRule;
  (*table)["Clip"] = ClipRule;
}

}  // namespace dlsim
