// FLOPs and bytes of every kernel kind, from the key's parameters. The
// formulas are the textbook ones (e.g. conv: 2*N*K*Ho*Wo*(C/groups)*R*S,
// Benanza's and the cuDNN docs' convention); bytes count each tensor once
// at the key's dtype, which is what a roofline takes as compulsory traffic.
// These are the only FLOP formulas: the lowering takes every call's FLOPs
// from here (CallFlops), so a kind's FLOPs are written once (issue 21).
#include "work.h"

#include <map>

#include "dlsim/util/optimizer.h"
#include "key_params.h"

namespace dlsim {
namespace {

using Params = KeyParams;

// Softmax per element: forward max, subtract, exp, sum, divide (5);
// backward dx = y * (dy - sum(dy * y)): a multiply, the row sum, a subtract
// and a multiply (4).
constexpr double kSoftmaxFwdFlops = 5;
constexpr double kSoftmaxBwdFlops = 4;

Result<int64_t> OutDim(const Params& p, int64_t in, int64_t filter, int64_t pad, int64_t stride,
                       int64_t dil) {
  const int64_t out = ConvOutputSize(in, filter, pad, stride, dil);
  if (out <= 0) {
    return InvalidArgument(p.Where() + ": the filter window is larger than the padded input");
  }
  return out;
}

Result<KeyWork> ConvWork(const ParsedKey& key, const Params& p, int64_t ds) {
  DLSIM_ASSIGN_OR_RETURN(int64_t n, p.Int("n"));
  DLSIM_ASSIGN_OR_RETURN(int64_t c, p.Int("c"));
  DLSIM_ASSIGN_OR_RETURN(int64_t h, p.Int("h"));
  DLSIM_ASSIGN_OR_RETURN(int64_t w, p.Int("w"));
  DLSIM_ASSIGN_OR_RETURN(int64_t k, p.Int("k"));
  DLSIM_ASSIGN_OR_RETURN(int64_t r, p.Int("r"));
  DLSIM_ASSIGN_OR_RETURN(int64_t s, p.Int("s"));
  DLSIM_ASSIGN_OR_RETURN(int64_t pad_h, p.Int("pad_h", true));
  DLSIM_ASSIGN_OR_RETURN(int64_t pad_w, p.Int("pad_w", true));
  DLSIM_ASSIGN_OR_RETURN(int64_t stride_h, p.Int("stride_h"));
  DLSIM_ASSIGN_OR_RETURN(int64_t stride_w, p.Int("stride_w"));
  DLSIM_ASSIGN_OR_RETURN(int64_t dil_h, p.Int("dil_h"));
  DLSIM_ASSIGN_OR_RETURN(int64_t dil_w, p.Int("dil_w"));
  DLSIM_ASSIGN_OR_RETURN(int64_t g, p.Int("groups"));
  if (c % g != 0 || k % g != 0) {
    return InvalidArgument(p.Where() + ": groups must divide c and k");
  }
  DLSIM_ASSIGN_OR_RETURN(int64_t ho, OutDim(p, h, r, pad_h, stride_h, dil_h));
  DLSIM_ASSIGN_OR_RETURN(int64_t wo, OutDim(p, w, s, pad_w, stride_w, dil_w));
  const double x = double(n) * c * h * w, y = double(n) * k * ho * wo;
  const double filt = double(k) * (c / g) * r * s;
  KeyWork work;
  work.flops = 2.0 * n * k * ho * wo * double(c / g) * r * s;
  work.bytes = (x + filt + y) * ds;
  // Implicit GEMM per group (cuDNN's and CUTLASS's mapping).
  if (key.kind == KernelKind::kConvBwdData) {
    work.gemm_m = double(n) * h * w, work.gemm_n = double(c / g);
  } else if (key.kind == KernelKind::kConvBwdFilter) {
    work.gemm_m = double(k / g), work.gemm_n = double(c / g) * r * s;
  } else {
    work.gemm_m = double(n) * ho * wo, work.gemm_n = double(k / g);
  }
  if (key.kind == KernelKind::kConvBiasAct) work.bytes += double(k) * ds;  // bias
  work.tiles = GemmTiles(work.gemm_m, work.gemm_n) * g;
  return work;
}

Result<KeyWork> GemmWork(const ParsedKey& key, const Params& p, int64_t ds) {
  int64_t batch = 1;
  if (key.kind == KernelKind::kBatchedGemm) {
    DLSIM_ASSIGN_OR_RETURN(batch, p.Int("batch"));
  }
  DLSIM_ASSIGN_OR_RETURN(int64_t m, p.Int("m"));
  DLSIM_ASSIGN_OR_RETURN(int64_t n, p.Int("n"));
  DLSIM_ASSIGN_OR_RETURN(int64_t k, p.Int("k"));
  KeyWork work;
  work.flops = 2.0 * batch * m * n * k;
  work.bytes = double(batch) * (double(m) * k + double(k) * n + double(m) * n) * ds;
  work.gemm_m = double(m), work.gemm_n = double(n);
  work.tiles = GemmTiles(work.gemm_m, work.gemm_n) * batch;
  return work;
}

// Fused attention never writes the seq_q x seq_k scores: two GEMMs forward
// (QK^T, PV), five backward (recomputed QK^T, dV, dP, dQ, dK), each 2 FLOPs
// (a multiply-add) per score and head_dim; plus the softmax of every score,
// kSoftmaxFwdFlops forward and, backward, its recomputation and its
// gradient (kSoftmaxBwdFlops). The key has one head_dim: V's is taken to be
// Q's. Q, K, V and O read or written once (backward: also dO, dQ, dK, dV).
Result<KeyWork> AttentionWork(const ParsedKey& key, const Params& p, int64_t ds) {
  DLSIM_ASSIGN_OR_RETURN(int64_t batch, p.Int("batch"));
  DLSIM_ASSIGN_OR_RETURN(int64_t heads, p.Int("heads"));
  DLSIM_ASSIGN_OR_RETURN(int64_t seq_q, p.Int("seq_q"));
  DLSIM_ASSIGN_OR_RETURN(int64_t seq_k, p.Int("seq_k"));
  DLSIM_ASSIGN_OR_RETURN(int64_t head_dim, p.Int("head_dim"));
  const bool bwd = key.kind == KernelKind::kAttentionBwd;
  const double bh = double(batch) * heads;
  // mask=2, causal: query i sees the keys up to its position (the last
  // seq_q of seq_k), so the scores computed are those below the diagonal.
  double scores = double(seq_q) * seq_k;
  if (p.Str("mask") == "2") scores -= double(seq_q) * (seq_q - 1) / 2;
  KeyWork work;
  work.flops = bwd ? bh * scores * (10.0 * head_dim + kSoftmaxFwdFlops + kSoftmaxBwdFlops)
                  : bh * scores * (4.0 * head_dim + kSoftmaxFwdFlops);
  const double qo = bh * seq_q * head_dim, kv = bh * seq_k * head_dim;
  work.bytes = (bwd ? 4.0 * qo + 4.0 * kv : 2.0 * qo + 2.0 * kv) * ds;
  work.gemm_m = bh * seq_q, work.gemm_n = double(head_dim);
  work.tiles = GemmTiles(work.gemm_m, work.gemm_n);
  return work;
}

// Pointwise FLOPs of a recurrent cell per hidden unit and step: the gate
// activations (sigmoids, tanh) and the state update (cuDNN fuses them).
constexpr double kRnnPointwiseFlops = 10;

Result<KeyWork> RnnWork(const Params& p, int64_t ds) {
  const std::string cell = p.Str("cell");
  const int gates = RnnGates(cell);
  if (cell != "lstm" && cell != "gru" && cell != "rnn_tanh" && cell != "rnn_relu") {
    return InvalidArgument(p.Where() + ": unknown rnn cell '" + cell + "'");
  }
  DLSIM_ASSIGN_OR_RETURN(int64_t seq, p.Int("seq"));
  DLSIM_ASSIGN_OR_RETURN(int64_t batch, p.Int("batch"));
  DLSIM_ASSIGN_OR_RETURN(int64_t input, p.Int("input"));
  DLSIM_ASSIGN_OR_RETURN(int64_t hidden, p.Int("hidden"));
  DLSIM_ASSIGN_OR_RETURN(int64_t layers, p.Int("layers"));
  DLSIM_ASSIGN_OR_RETURN(int64_t dirs, p.Int("dirs"));
  KeyWork work;
  double weights = 0;
  // `count` layers reading `in` features: layer 0 the input, the others the
  // hidden * dirs outputs before them. In closed form, not a loop over
  // layers: a key from a database file can say any positive int64.
  auto add_layers = [&](double in, double count) {
    const double per_dir = double(gates) * hidden * (in + hidden + 2);  // W, R, two biases
    weights += count * per_dir * dirs;
    // Per step and direction: the gate GEMMs over [input, hidden] (a
    // multiply-add is 2), and the cell's pointwise math (gate activations,
    // state update: kRnnPointwiseFlops per hidden unit). The backward passes
    // (data, weights) run GEMMs of the same sizes and the same pointwise work.
    work.flops += count * double(dirs) * seq * batch *
                  (2.0 * gates * hidden * (in + hidden) + kRnnPointwiseFlops * hidden);
  };
  add_layers(double(input), 1);
  if (layers > 1) add_layers(double(hidden) * dirs, double(layers - 1));
  // Inputs, outputs, weights, and each layer's gate activations (the
  // reserve space training reads back).
  const double acts = double(seq) * batch * (input + double(hidden) * dirs) +
                      double(seq) * batch * gates * hidden * dirs * layers;
  work.bytes = (weights + acts) * ds;
  return work;
}

Result<KeyWork> NormWork(const ParsedKey& key, const Params& p, int64_t ds) {
  DLSIM_ASSIGN_OR_RETURN(int64_t n, p.Int("n"));
  DLSIM_ASSIGN_OR_RETURN(int64_t c, p.Int("c"));
  DLSIM_ASSIGN_OR_RETURN(int64_t h, p.Int("h"));
  DLSIM_ASSIGN_OR_RETURN(int64_t w, p.Int("w"));
  const double e = double(n) * c * h * w;
  KeyWork work;
  if (key.kind == KernelKind::kLrnFwd) {
    DLSIM_ASSIGN_OR_RETURN(int64_t size, p.Int("size"));
    // The window's sum of squares (a multiply-add per element of the
    // window), then k + alpha/size * sum (2), the power and the divide.
    work.flops = e * (2.0 * size + 4);
    work.bytes = 2 * e * ds;
  } else if (key.kind == KernelKind::kBatchNormInfer) {
    // y = x * scale' + shift': the per-channel scale and shift are folded
    // from the statistics once, then one multiply-add per element.
    work.flops = 2 * e;
    work.bytes = (2 * e + 4.0 * c) * ds;
  } else if (key.kind == KernelKind::kBatchNormTrainFwd) {
    // Sum (1) and sum of squares (a multiply-add, 2) per element, then the
    // folded scale and shift as one multiply-add (2).
    work.flops = 5 * e;
    work.bytes = (2 * e + 6.0 * c) * ds;  // x, y; scale, bias, 2 running, 2 saved
  } else {  // kBatchNormBwd: x, dy in; dx out
    // x centred (1), the sums of dy (1) and dy * x_hat (2), then
    // dx = a * dy + b * x_hat + c per channel: two multiply-adds (4).
    work.flops = 8 * e;
    work.bytes = (3 * e + 6.0 * c) * ds;
  }
  return work;
}

Result<KeyWork> PoolWork(const ParsedKey& key, const Params& p, int64_t ds) {
  DLSIM_ASSIGN_OR_RETURN(int64_t n, p.Int("n"));
  DLSIM_ASSIGN_OR_RETURN(int64_t c, p.Int("c"));
  DLSIM_ASSIGN_OR_RETURN(int64_t h, p.Int("h"));
  DLSIM_ASSIGN_OR_RETURN(int64_t w, p.Int("w"));
  DLSIM_ASSIGN_OR_RETURN(int64_t r, p.Int("r"));
  DLSIM_ASSIGN_OR_RETURN(int64_t s, p.Int("s"));
  DLSIM_ASSIGN_OR_RETURN(int64_t pad_h, p.Int("pad_h", true));
  DLSIM_ASSIGN_OR_RETURN(int64_t pad_w, p.Int("pad_w", true));
  DLSIM_ASSIGN_OR_RETURN(int64_t stride_h, p.Int("stride_h"));
  DLSIM_ASSIGN_OR_RETURN(int64_t stride_w, p.Int("stride_w"));
  DLSIM_ASSIGN_OR_RETURN(int64_t ho, OutDim(p, h, r, pad_h, stride_h, 1));
  DLSIM_ASSIGN_OR_RETURN(int64_t wo, OutDim(p, w, s, pad_w, stride_w, 1));
  const double x = double(n) * c * h * w, y = double(n) * c * ho * wo;
  KeyWork work;
  // One compare or add per window element of every output, forward and
  // backward. The output size is the key's (floor mode, symmetric pads):
  // an ONNX pool in ceil mode or with uneven pads computes a few more or
  // fewer outputs than its key says.
  work.flops = y * r * s;
  // Forward reads x, writes y; backward reads x, y, dy and writes dx.
  work.bytes = (key.kind == KernelKind::kPoolFwd ? x + y : 2 * x + 2 * y) * ds;
  return work;
}

// PyTorch's group_norm over x [n, c, hw] in `groups` groups: the layer
// norm's counts (RowsColsWork) per element, with c scales and shifts.
Result<KeyWork> GroupNormWork(const ParsedKey& key, const Params& p, int64_t ds) {
  DLSIM_ASSIGN_OR_RETURN(int64_t n, p.Int("n"));
  DLSIM_ASSIGN_OR_RETURN(int64_t c, p.Int("c"));
  DLSIM_ASSIGN_OR_RETURN(int64_t groups, p.Int("groups"));
  DLSIM_ASSIGN_OR_RETURN(int64_t hw, p.Int("hw"));
  if (c % groups != 0) return InvalidArgument(p.Where() + ": groups does not divide c");
  const double e = double(n) * c * hw;
  KeyWork work;
  if (key.kind == KernelKind::kGroupNormFwd) {
    work.flops = 8 * e, work.bytes = (2 * e + 2.0 * c) * ds;
  } else {
    work.flops = 10 * e, work.bytes = (3 * e + 4.0 * c) * ds;
  }
  return work;
}

Result<KeyWork> RowsColsWork(const ParsedKey& key, const Params& p, int64_t ds) {
  DLSIM_ASSIGN_OR_RETURN(int64_t rows, p.Int("rows"));
  DLSIM_ASSIGN_OR_RETURN(int64_t cols, p.Int("cols"));
  const double e = double(rows) * cols;
  KeyWork work;
  switch (key.kind) {
    case KernelKind::kSoftmaxFwd:
      work.flops = kSoftmaxFwdFlops * e, work.bytes = 2 * e * ds; break;
    case KernelKind::kSoftmaxBwd:
      work.flops = kSoftmaxBwdFlops * e, work.bytes = 3 * e * ds; break;
    // Forward: the mean (1), the centred sum of squares (subtract, then a
    // multiply-add: 3), normalise (subtract, multiply: 2) and the affine
    // scale and shift (a multiply-add, 2); group, instance and RMS norms
    // share the kind and count the same. Backward: x_hat recomputed (2),
    // dy * gamma (1), the sums of g and g * x_hat (1 + 2), then
    // dx = rstd * (g - mean(g) - x_hat * mean(g x_hat)) (4).
    case KernelKind::kLayerNormFwd:
      work.flops = 8 * e, work.bytes = (2 * e + 2.0 * cols) * ds; break;
    case KernelKind::kLayerNormBwd:
      work.flops = 10 * e, work.bytes = (3 * e + 4.0 * cols) * ds; break;
    default:  // kReduction: rows outputs, each over cols inputs
      work.flops = e, work.bytes = (e + double(rows)) * ds; break;
  }
  return work;
}

Result<KeyWork> OptimizerWork(const Params& p, int64_t ds) {
  DLSIM_ASSIGN_OR_RETURN(int64_t params, p.Int("params"));
  const std::string op = p.Str("op");
  // A foreach op of SGD's multi-tensor path (src/ops/foreach_optimizer.h):
  // foreach_mul reads and writes one list (a multiply), foreach_add reads two
  // and writes the first (a multiply-add).
  if (op == "foreach_mul" || op == "foreach_add") {
    const bool add = op == "foreach_add";
    KeyWork work;
    work.flops = (add ? 2.0 : 1.0) * params;
    work.bytes = (add ? 3.0 : 2.0) * params * ds;
    return work;
  }
  // Tensors of `params` elements read + written per step, and FLOPs per element.
  // sgd: read w, g; write w. Momentum: + read/write m. Adam: + m, v. Other
  // ops (none the lowering writes) count as sgd.
  const int states = OptimizerStates(OptimizerFromName(op).value_or(Optimizer::kSgd));
  const double tensors = 3 + 2 * states;
  // sgd: w -= lr * g, a multiply-add (2); momentum: m = mu * m + g, then
  // w -= lr * m (4); Adam: the two moments (3 + 4), bias corrections, square
  // root, divide and the update (5): 12.
  const double flops = states == 0 ? 2 : states == 1 ? 4 : 12;
  KeyWork work;
  work.flops = flops * params;
  work.bytes = tensors * params * ds;
  return work;
}

// FLOPs per output element of an elementwise key's `op` (the lowered ONNX
// op, lower case, or a fused group's name): transcendentals as the few
// operations their polynomial takes, roughly; a gradient ("..._bwd") as dy
// times the local derivative (2); any other op one per pair of full-size
// operands (an n-ary sum adds n - 1 times), at least one.
double ElementwiseFlopsPerElem(const std::string& op, int64_t arity) {
  static const std::map<std::string, double> kFlops = {
      {"erf", 8},      {"tanh", 8},     {"sigmoid", 4},  {"exp", 4},      {"log", 4},
      {"pow", 4},      {"sqrt", 2},     {"gelu", 10},    {"hardswish", 4}, {"hardsigmoid", 3},
      {"softplus", 6}, {"elu", 4},      {"selu", 4},     {"mish", 12},
      {"silu", 5}};  // silu: a sigmoid and a multiply
  auto it = kFlops.find(op);
  if (it != kFlops.end()) return it->second;
  if (op.size() > 4 && op.compare(op.size() - 4, 4, "_bwd") == 0) return 2;
  return arity > 1 ? double(arity - 1) : 1.0;
}

Result<KeyWork> MemoryWork(const ParsedKey& key, const Params& p, int64_t ds) {
  KeyWork work;
  if (key.kind == KernelKind::kElementwise) {
    DLSIM_ASSIGN_OR_RETURN(int64_t elems, p.Int("elems"));
    DLSIM_ASSIGN_OR_RETURN(int64_t arity, p.Int("arity", true));
    work.flops = double(elems) * ElementwiseFlopsPerElem(p.Str("op"), arity);
    work.bytes = double(elems) * (arity + 1) * ds;
  } else {  // kCopy: every output element read once and written once
    DLSIM_ASSIGN_OR_RETURN(int64_t elems, p.Int("elems"));
    work.bytes = 2.0 * elems * ds;
  }
  return work;
}

}  // namespace

Result<int64_t> DTypeSizeOfName(const std::string& dtype) {
  if (dtype == "fp32") return int64_t{4};
  if (dtype == "fp16" || dtype == "bf16") return int64_t{2};
  if (dtype == "fp64") return int64_t{8};
  return InvalidArgument("unknown dtype '" + dtype + "' in kernel key");
}

int64_t ConvOutputSize(int64_t in, int64_t filter, int64_t pad, int64_t stride, int64_t dilation) {
  // In 128 bits: a key of a damaged model can hold any int64.
  const __int128 span = __int128{dilation} * (__int128{filter} - 1) + 1;
  const __int128 padded = __int128{in} + 2 * __int128{pad};
  if (stride <= 0 || padded < span) return 0;
  const __int128 out = (padded - span) / stride + 1;
  return out > INT64_MAX ? 0 : static_cast<int64_t>(out);
}

int RnnGates(const std::string& cell) { return cell == "lstm" ? 4 : cell == "gru" ? 3 : 1; }

double CallFlops(const KernelCall& call) {
  auto work = WorkOfKey(KeyOf(call));
  return work.ok() ? work->flops : 0;
}

Result<KeyWork> WorkOfKey(const ParsedKey& key) {
  DLSIM_ASSIGN_OR_RETURN(int64_t ds, DTypeSizeOfName(key.dtype));
  Params p(key);
  switch (key.kind) {
    case KernelKind::kConvFwd: case KernelKind::kConvBiasAct:
    case KernelKind::kConvBwdData: case KernelKind::kConvBwdFilter:
      return ConvWork(key, p, ds);
    case KernelKind::kGemm: case KernelKind::kBatchedGemm:
      return GemmWork(key, p, ds);
    case KernelKind::kRnnFwd: case KernelKind::kRnnBwdData: case KernelKind::kRnnBwdWeights:
      return RnnWork(p, ds);
    case KernelKind::kAttentionFwd: case KernelKind::kAttentionBwd:
      return AttentionWork(key, p, ds);
    case KernelKind::kBatchNormInfer: case KernelKind::kBatchNormTrainFwd:
    case KernelKind::kBatchNormBwd: case KernelKind::kLrnFwd:
      return NormWork(key, p, ds);
    case KernelKind::kPoolFwd: case KernelKind::kPoolBwd:
      return PoolWork(key, p, ds);
    case KernelKind::kSoftmaxFwd: case KernelKind::kSoftmaxBwd:
    case KernelKind::kLayerNormFwd: case KernelKind::kLayerNormBwd: case KernelKind::kReduction:
      return RowsColsWork(key, p, ds);
    case KernelKind::kGroupNormFwd: case KernelKind::kGroupNormBwd:
      return GroupNormWork(key, p, ds);
    case KernelKind::kOptimizer:
      return OptimizerWork(p, ds);
    case KernelKind::kElementwise: case KernelKind::kCopy:
      return MemoryWork(key, p, ds);
  }
  return InvalidArgument(p.Where() + ": no work formula");
}

}  // namespace dlsim
