// Neural-network ops: convolution, pooling, GEMM/MatMul/Einsum, attention,
// normalisation, softmax, dropout and recurrent cells.
#include <algorithm>
#include <limits>
#include <map>

#include "shape_rules.h"

namespace dlsim {
namespace {

constexpr int64_t kMaxWindowAttr = int64_t{1} << 31;

// Spatial attributes of Conv/ConvTranspose/pooling, defaults filled.
struct Window {
  std::vector<int64_t> kernel, strides, dilations, pads;  // pads: begins then ends
  std::string auto_pad;
};

Result<Window> ReadWindow(const ShapeContext& ctx, size_t spatial,
                          const std::vector<int64_t>& default_kernel) {
  const Node& n = ctx.node();
  Window w;
  w.kernel = n.GetInts("kernel_shape", default_kernel);
  w.strides = n.GetInts("strides", std::vector<int64_t>(spatial, 1));
  w.dilations = n.GetInts("dilations", std::vector<int64_t>(spatial, 1));
  w.pads = n.GetInts("pads", std::vector<int64_t>(2 * spatial, 0));
  w.auto_pad = n.GetString("auto_pad", "NOTSET");
  if (w.kernel.size() != spatial || w.strides.size() != spatial || w.dilations.size() != spatial ||
      w.pads.size() != 2 * spatial) {
    return ctx.Error("kernel_shape/strides/dilations/pads do not match " + std::to_string(spatial) +
                     " spatial dims");
  }
  // Bounds keep the window arithmetic below in int64 (fuzzing found
  // kernel x dilation and pad sums overflowing).
  for (size_t k = 0; k < spatial; ++k) {
    if (w.strides[k] <= 0 || w.dilations[k] <= 0 || w.kernel[k] <= 0) {
      return ctx.Error("kernel, strides and dilations must be positive");
    }
    if (w.strides[k] >= kMaxWindowAttr || w.dilations[k] >= kMaxWindowAttr ||
        w.kernel[k] >= kMaxWindowAttr) {
      return ctx.Error("kernel, strides and dilations must be below 2^31");
    }
  }
  for (int64_t p : w.pads) {
    if (p < 0 || p >= kMaxWindowAttr) return ctx.Error("pads must be in [0, 2^31)");
  }
  return w;
}

// Output size of one spatial dim of a convolution or pooling window. A
// window wider than the padded input is an error (PyTorch: "Kernel size
// can't be greater than actual input size"), not an empty output.
Result<int64_t> WindowOut(const ShapeContext& ctx, const Window& w, size_t k, int64_t in,
                          bool ceil_mode) {
  const int64_t eff = (w.kernel[k] - 1) * w.dilations[k] + 1;
  const int64_t s = w.strides[k];
  if (w.auto_pad == "SAME_UPPER" || w.auto_pad == "SAME_LOWER") return (in + s - 1) / s;
  const int64_t pad_begin = w.auto_pad == "VALID" ? 0 : w.pads[k];
  const int64_t padded = in + pad_begin + (w.auto_pad == "VALID" ? 0 : w.pads[k + w.kernel.size()]);
  const int64_t span = padded - eff;
  if (span < 0) {
    return ctx.Error("spatial dim " + std::to_string(k + 2) + ": the window (kernel " +
                     std::to_string(w.kernel[k]) + ", dilation " + std::to_string(w.dilations[k]) +
                     ": " + std::to_string(eff) + " wide) is larger than the padded input (" +
                     std::to_string(padded) + ")");
  }
  int64_t out = (ceil_mode ? (span + s - 1) / s : span / s) + 1;
  // PyTorch/ONNX: the last window must start inside the input or its left pad.
  if (ceil_mode && (out - 1) * s >= in + pad_begin) --out;
  return out;
}

Status ConvRule(ShapeContext& ctx) {
  DLSIM_RETURN_IF_ERROR(ctx.RequireInputs(2));
  const Shape& x = ctx.Dims(0);
  const Shape& wt = ctx.Dims(1);
  if (x.size() < 3 || wt.size() != x.size()) {
    return ctx.Error("input " + ShapeToString(x) + " and weight " + ShapeToString(wt) +
                     " must have the same rank >= 3");
  }
  const size_t spatial = x.size() - 2;
  const int64_t group = ctx.node().GetInt("group", 1);
  int64_t grouped = 0;
  if (group <= 0 || __builtin_mul_overflow(wt[1], group, &grouped) || x[1] != grouped) {
    return ctx.Error("input channels " + std::to_string(x[1]) + " != weight channels " +
                     std::to_string(wt[1]) + " x group " + std::to_string(group));
  }
  DLSIM_ASSIGN_OR_RETURN(Window w, ReadWindow(ctx, spatial, Shape(wt.begin() + 2, wt.end())));
  Shape out = {x[0], wt[0]};
  for (size_t k = 0; k < spatial; ++k) {
    DLSIM_ASSIGN_OR_RETURN(int64_t dim, WindowOut(ctx, w, k, x[k + 2], false));
    out.push_back(dim);
  }
  ctx.SetOut(0, ctx.In(0).dtype, out);
  return Status::Ok();
}

Status ConvTransposeRule(ShapeContext& ctx) {
  DLSIM_RETURN_IF_ERROR(ctx.RequireInputs(2));
  const Shape& x = ctx.Dims(0);
  const Shape& wt = ctx.Dims(1);
  if (x.size() < 3 || wt.size() != x.size()) return ctx.Error("input/weight rank mismatch");
  const size_t spatial = x.size() - 2;
  const int64_t group = ctx.node().GetInt("group", 1);
  if (group <= 0 || x[1] != wt[0]) {
    return ctx.Error("input channels " + std::to_string(x[1]) + " != weight dim 0 " +
                     std::to_string(wt[0]));
  }
  DLSIM_ASSIGN_OR_RETURN(Window w, ReadWindow(ctx, spatial, Shape(wt.begin() + 2, wt.end())));
  const auto out_pad = ctx.node().GetInts("output_padding", std::vector<int64_t>(spatial, 0));
  const auto out_shape = ctx.node().GetInts("output_shape", {});
  if (out_pad.size() != spatial) return ctx.Error("output_padding length mismatch");
  int64_t channels = 0;
  if (__builtin_mul_overflow(wt[1], group, &channels)) return ctx.Error("output channels overflow");
  Shape out = {x[0], channels};
  if (!out_shape.empty() && out_shape.size() < spatial) {
    return ctx.Error("output_shape has fewer than " + std::to_string(spatial) + " dims");
  }
  for (size_t k = 0; k < spatial; ++k) {
    // In 128 bits: strides and the input dim together may pass int64.
    __int128 dim = 0;
    if (!out_shape.empty()) {
      dim = out_shape[out_shape.size() - spatial + k];
    } else if (w.auto_pad == "SAME_UPPER" || w.auto_pad == "SAME_LOWER") {
      dim = static_cast<__int128>(x[k + 2]) * w.strides[k];
    } else {
      const __int128 pads = w.auto_pad == "VALID" ? 0 : __int128{w.pads[k]} + w.pads[k + spatial];
      dim = static_cast<__int128>(w.strides[k]) * (x[k + 2] - 1) + out_pad[k] +
            static_cast<__int128>(w.kernel[k] - 1) * w.dilations[k] + 1 - pads;
    }
    if (dim <= 0 || dim > std::numeric_limits<int64_t>::max()) {
      return ctx.Error("output dim " + std::to_string(k + 2) + " out of range (" +
                       (dim <= 0 ? "not positive: pads larger than the output" : "past int64") +
                       ")");
    }
    out.push_back(static_cast<int64_t>(dim));
  }
  ctx.SetOut(0, ctx.In(0).dtype, out);
  return Status::Ok();
}

Status PoolRule(ShapeContext& ctx) {
  DLSIM_RETURN_IF_ERROR(ctx.RequireInputs(1));
  const Shape& x = ctx.Dims(0);
  if (x.size() < 3) return ctx.Error("input " + ShapeToString(x) + " needs rank >= 3");
  const size_t spatial = x.size() - 2;
  if (!ctx.node().HasAttr("kernel_shape")) return ctx.Error("attribute 'kernel_shape' missing");
  DLSIM_ASSIGN_OR_RETURN(Window w, ReadWindow(ctx, spatial, {}));
  const bool ceil_mode = ctx.node().GetInt("ceil_mode", 0) != 0;
  Shape out = {x[0], x[1]};
  for (size_t k = 0; k < spatial; ++k) {
    DLSIM_ASSIGN_OR_RETURN(int64_t dim, WindowOut(ctx, w, k, x[k + 2], ceil_mode));
    out.push_back(dim);
  }
  ctx.SetOut(0, ctx.In(0).dtype, out);
  ctx.SetOut(1, DType::kInt64, out);  // MaxPool's optional Indices
  return Status::Ok();
}

Status GlobalPoolRule(ShapeContext& ctx) {
  DLSIM_RETURN_IF_ERROR(ctx.RequireInputs(1));
  const Shape& x = ctx.Dims(0);
  if (x.size() < 2) return ctx.Error("input needs rank >= 2");
  Shape out = {x[0], x[1]};
  out.resize(x.size(), 1);
  ctx.SetOut(0, ctx.In(0).dtype, out);
  return Status::Ok();
}

Status GemmRule(ShapeContext& ctx) {
  DLSIM_RETURN_IF_ERROR(ctx.RequireInputs(2));
  const Shape& a = ctx.Dims(0);
  const Shape& b = ctx.Dims(1);
  if (a.size() != 2 || b.size() != 2) {
    return ctx.Error("A " + ShapeToString(a) + " and B " + ShapeToString(b) + " must be 2-D");
  }
  const bool ta = ctx.node().GetInt("transA", 0) != 0, tb = ctx.node().GetInt("transB", 0) != 0;
  const int64_t m = ta ? a[1] : a[0], k = ta ? a[0] : a[1];
  const int64_t kb = tb ? b[1] : b[0], n = tb ? b[0] : b[1];
  if (k != kb)
    return ctx.Error("inner dims differ: " + std::to_string(k) + " vs " + std::to_string(kb));
  ctx.SetOut(0, ctx.In(0).dtype, {m, n});
  return Status::Ok();
}

Status MatMulRule(ShapeContext& ctx) {
  DLSIM_RETURN_IF_ERROR(ctx.RequireInputs(2));
  Shape a = ctx.Dims(0), b = ctx.Dims(1);
  if (a.empty() || b.empty()) return ctx.Error("operands must have rank >= 1");
  const bool a_vec = a.size() == 1, b_vec = b.size() == 1;
  if (a_vec) a.insert(a.begin(), 1);
  if (b_vec) b.push_back(1);
  if (a.back() != b[b.size() - 2]) {
    return ctx.Error("inner dims differ: " + ShapeToString(ctx.Dims(0)) + " x " +
                     ShapeToString(ctx.Dims(1)));
  }
  DLSIM_ASSIGN_OR_RETURN(Shape out, BroadcastShapes(ctx, Shape(a.begin(), a.end() - 2),
                                                    Shape(b.begin(), b.end() - 2)));
  if (!a_vec) out.push_back(a[a.size() - 2]);
  if (!b_vec) out.push_back(b.back());
  ctx.SetOut(0, ctx.In(0).dtype, out);
  return Status::Ok();
}

// Same shape and dtype as input 0 (normalisation, softmax, LRN, ...).
Status SameAsInputRule(ShapeContext& ctx) {
  DLSIM_RETURN_IF_ERROR(ctx.RequireInputs(1));
  ctx.SetOut(0, ctx.In(0).dtype, ctx.Dims(0));
  return Status::Ok();
}

Status BatchNormRule(ShapeContext& ctx) {
  DLSIM_RETURN_IF_ERROR(ctx.RequireInputs(1));
  const Shape& x = ctx.Dims(0);
  ctx.SetOut(0, ctx.In(0).dtype, x);
  const Shape channels = {x.size() > 1 ? x[1] : 1};
  for (size_t i = 1; i < ctx.num_outputs(); ++i) ctx.SetOut(i, ctx.In(0).dtype, channels);
  return Status::Ok();
}

Status LayerNormRule(ShapeContext& ctx) {
  DLSIM_RETURN_IF_ERROR(ctx.RequireInputs(1));
  const Shape& x = ctx.Dims(0);
  DLSIM_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(ctx, ctx.node().GetInt("axis", -1),
                                                     static_cast<int64_t>(x.size())));
  ctx.SetOut(0, ctx.In(0).dtype, x);
  Shape stats(x.begin(), x.begin() + axis);
  stats.resize(x.size(), 1);
  const DType stash = DType::kFloat32;  // stash_type default: float
  ctx.SetOut(1, stash, stats);
  ctx.SetOut(2, stash, stats);
  return Status::Ok();
}

Status DropoutRule(ShapeContext& ctx) {
  DLSIM_RETURN_IF_ERROR(ctx.RequireInputs(1));
  ctx.SetOut(0, ctx.In(0).dtype, ctx.Dims(0));
  ctx.SetOut(1, DType::kBool, ctx.Dims(0));
  if (ctx.Value(0) != nullptr) ctx.SetValue(0, *ctx.Value(0));
  return Status::Ok();
}

// Random tensors (torch.rand_like, randn_like, bernoulli; stochastic depth
// in a training-mode export): the input's shape, or the `shape` attribute of
// RandomUniform/RandomNormal; the `dtype` attribute, else the input's
// (float for the shape-only ops).
Status RandomRule(ShapeContext& ctx) {
  const Node& node = ctx.node();
  const bool like = node.op_type != "RandomUniform" && node.op_type != "RandomNormal";
  if (like) DLSIM_RETURN_IF_ERROR(ctx.RequireInputs(1));
  DType dtype = like ? ctx.In(0).dtype : DType::kFloat32;
  if (node.HasAttr("dtype")) {
    dtype = DTypeFromOnnxCode(node.GetInt("dtype", 0));
    if (dtype == DType::kUndefined) {
      return ctx.Error("unsupported dtype " + std::to_string(node.GetInt("dtype", 0)));
    }
  }
  if (like) {
    ctx.SetOut(0, dtype, ctx.Dims(0));
    return Status::Ok();
  }
  if (!node.HasAttr("shape")) return ctx.Error("attribute 'shape' is missing");
  const std::vector<int64_t> dims = node.GetInts("shape", {});
  for (int64_t d : dims) {
    if (d < 0) return ctx.Error("attribute 'shape' has a negative dimension");
  }
  ctx.SetOut(0, dtype, Shape(dims.begin(), dims.end()));
  return Status::Ok();
}

// LSTM/GRU/RNN. X is [seq, batch, input] (layout 0) or [batch, seq, input].
Status RecurrentRule(ShapeContext& ctx) {
  DLSIM_RETURN_IF_ERROR(ctx.RequireInputs(3));
  const Shape& x = ctx.Dims(0);
  const Shape& w = ctx.Dims(1);
  if (x.size() != 3 || w.size() != 3) return ctx.Error("X and W must be 3-D");
  const std::string direction = ctx.node().GetString("direction", "forward");
  const int64_t dirs = direction == "bidirectional" ? 2 : 1;
  const int64_t gates = ctx.node().op_type == "LSTM" ? 4 : ctx.node().op_type == "GRU" ? 3 : 1;
  const int64_t hidden = ctx.node().GetInt("hidden_size", w[1] / gates);
  int64_t gate_rows = 0;
  if (hidden <= 0 || __builtin_mul_overflow(gates, hidden, &gate_rows) || w[0] != dirs ||
      w[1] != gate_rows) {
    return ctx.Error("W " + ShapeToString(w) + " does not match " + std::to_string(dirs) +
                     " direction(s) and hidden_size " + std::to_string(hidden));
  }
  const bool batch_first = ctx.node().GetInt("layout", 0) != 0;
  const int64_t seq = batch_first ? x[1] : x[0], batch = batch_first ? x[0] : x[1];
  const DType dt = ctx.In(0).dtype;
  ctx.SetOut(0, dt,
             batch_first ? Shape{batch, seq, dirs, hidden} : Shape{seq, dirs, batch, hidden});
  const Shape state = batch_first ? Shape{batch, dirs, hidden} : Shape{dirs, batch, hidden};
  ctx.SetOut(1, dt, state);
  ctx.SetOut(2, dt, state);
  return Status::Ok();
}

}  // namespace

Status EinsumRule(ShapeContext& ctx);     // shape_rules_einsum.cc
Status AttentionRule(ShapeContext& ctx);  // shape_rules_attention.cc

void AddNnRules(ShapeRuleTable* table) {
  (*table)["Conv"] = ConvRule;
  (*table)["ConvTranspose"] = ConvTransposeRule;
  for (const char* op : {"MaxPool", "AveragePool", "LpPool"}) (*table)[op] = PoolRule;
  for (const char* op : {"GlobalAveragePool", "GlobalMaxPool", "GlobalLpPool"}) {
    (*table)[op] = GlobalPoolRule;
  }
  (*table)["Gemm"] = GemmRule;
  (*table)["MatMul"] = MatMulRule;
  (*table)["Einsum"] = EinsumRule;
  (*table)["Attention"] = AttentionRule;
  for (const char* op : {"InstanceNormalization", "GroupNormalization", "LpNormalization",
                         "MeanVarianceNormalization", "RMSNormalization", "Softmax", "LogSoftmax",
                         "Hardmax", "LRN"}) {
    (*table)[op] = SameAsInputRule;
  }
  (*table)["BatchNormalization"] = BatchNormRule;
  (*table)["LayerNormalization"] = LayerNormRule;
  (*table)["Dropout"] = DropoutRule;
  for (const char* op : {"RandomUniformLike", "RandomNormalLike", "Bernoulli", "RandomUniform",
                         "RandomNormal"}) {
    (*table)[op] = RandomRule;
  }
  for (const char* op : {"LSTM", "GRU", "RNN"}) (*table)[op] = RecurrentRule;
}

}  // namespace dlsim
