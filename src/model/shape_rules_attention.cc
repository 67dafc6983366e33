// Attention (ai.onnx opset 23): scaled dot-product attention over Q, K, V
// that are either 4-D [batch, heads, seq, head_size] or 3-D [batch, seq,
// heads * head_size] with the head counts in q_num_heads / kv_num_heads.
// K and V may have fewer heads than Q (grouped-query attention); past_key /
// past_value [batch, kv_heads, past_seq, *] are concatenated before K / V
// along the sequence into present_key / present_value. Opset 24 adds a
// seventh input, nonpad_kv_seqlen [batch] (for a cache kept outside the
// node, so never with past_key / past_value).
#include <utility>

#include "shape_rules.h"

namespace dlsim {
namespace {

// An operand seen as [batch, heads, seq, head_size].
struct Operand {
  int64_t batch = 0, heads = 0, seq = 0, head_size = 0;
};

// Input `i` (rank checked by the caller); a 3-D one is split into `heads`
// heads, the value of attribute `attr`.
Result<Operand> ReadOperand(const ShapeContext& ctx, size_t i, const std::string& name,
                            const char* attr) {
  const Shape& x = ctx.Dims(i);
  if (x.size() == 4) return Operand{x[0], x[1], x[2], x[3]};
  const int64_t heads = ctx.node().GetInt(attr, 0);
  if (heads <= 0) {
    return ctx.Error(name + " " + ShapeToString(x) + " is 3-D but attribute '" + attr +
                     "' is missing or not positive");
  }
  if (x[2] % heads != 0) {
    return ctx.Error(name + " hidden size " + std::to_string(x[2]) + " is not a multiple of " +
                     attr + " " + std::to_string(heads));
  }
  return Operand{x[0], heads, x[1], x[2] / heads};
}

Status CheckOperands(const ShapeContext& ctx, const Operand& q, const Operand& k,
                     const Operand& v) {
  if (k.batch != q.batch || v.batch != q.batch) {
    return ctx.Error("Q, K and V batch sizes differ: " + std::to_string(q.batch) + ", " +
                     std::to_string(k.batch) + ", " + std::to_string(v.batch));
  }
  if (k.heads != v.heads || k.seq != v.seq) {
    return ctx.Error("K " + ShapeToString(ctx.Dims(1)) + " and V " + ShapeToString(ctx.Dims(2)) +
                     " differ in heads or sequence length");
  }
  if (k.heads <= 0 || q.heads % k.heads != 0) {
    return ctx.Error("query heads " + std::to_string(q.heads) +
                     " are not a multiple of key/value heads " + std::to_string(k.heads));
  }
  if (q.head_size != k.head_size) {
    return ctx.Error("Q head size " + std::to_string(q.head_size) + " != K head size " +
                     std::to_string(k.head_size));
  }
  return Status::Ok();
}

// Sequence length of past_key / past_value (0 when absent); both or neither
// must be given, each [batch, kv_heads, past_seq, head size of K / V].
Result<int64_t> PastSequence(const ShapeContext& ctx, const Operand& k, const Operand& v) {
  const bool key = ctx.HasInput(4), value = ctx.HasInput(5);
  if (!key && !value) return int64_t{0};
  if (key != value) return ctx.Error("past_key and past_value must be given together");
  const Shape& pk = ctx.Dims(4);
  const Shape& pv = ctx.Dims(5);
  if (pk.size() != 4 || pv.size() != 4 || pk[2] != pv[2] ||
      pk != Shape{k.batch, k.heads, pk[2], k.head_size} ||
      pv != Shape{v.batch, v.heads, pv[2], v.head_size}) {
    return ctx.Error("past_key " + ShapeToString(pk) + " and past_value " + ShapeToString(pv) +
                     " must be " + std::to_string(k.batch) + "x" + std::to_string(k.heads) +
                     "x(past_seq)x" + std::to_string(k.head_size) + " and " +
                     std::to_string(v.batch) + "x" + std::to_string(v.heads) + "x(past_seq)x" +
                     std::to_string(v.head_size));
  }
  return pk[2];
}

// Attributes outside what the spec defines: qk_matmul_output_mode 0-3,
// softmax_precision a float type (FLOAT, FLOAT16, DOUBLE, BFLOAT16), and for
// 4-D operands head counts, when given, that match Q's and K's head dims
// (ONNX's function body reshapes as for 3-D operands when both are set;
// opset 25 forbids them on 4-D operands).
Status CheckAttributes(const ShapeContext& ctx) {
  const Node& n = ctx.node();
  const int64_t mode = n.GetInt("qk_matmul_output_mode", 0);
  if (mode < 0 || mode > 3) {
    return ctx.Error("qk_matmul_output_mode " + std::to_string(mode) + " is not 0, 1, 2 or 3");
  }
  if (n.HasAttr("softmax_precision")) {
    const int64_t p = n.GetInt("softmax_precision", 0);
    if (p != 1 && p != 10 && p != 11 && p != 16) {
      return ctx.Error("softmax_precision " + std::to_string(p) +
                       " is not a float type (1 FLOAT, 10 FLOAT16, 11 DOUBLE, 16 BFLOAT16)");
    }
  }
  if (ctx.Dims(0).size() != 4) return Status::Ok();
  const std::pair<const char*, size_t> heads[] = {{"q_num_heads", 0}, {"kv_num_heads", 1}};
  for (const auto& [attr, input] : heads) {
    if (n.HasAttr(attr) && n.GetInt(attr, 0) != ctx.Dims(input)[1]) {
      return ctx.Error(std::string("attribute '") + attr + "' " +
                       std::to_string(n.GetInt(attr, 0)) + " disagrees with the 4-D " +
                       (input == 0 ? "Q " : "K ") + ShapeToString(ctx.Dims(input)) +
                       " (head counts are for 3-D operands)");
    }
  }
  return Status::Ok();
}

// attn_mask (input 3) must broadcast to [batch, q_heads, q_seq, total_seq];
// from opset 24 its last dim may also be shorter than total_seq (padded with
// -inf, the keys past it masked out).
Status CheckMask(const ShapeContext& ctx, const Operand& q, int64_t total) {
  if (!ctx.HasInput(3)) return Status::Ok();
  const Shape& m = ctx.Dims(3);
  const Shape target = {q.batch, q.heads, q.seq, total};
  bool ok = m.size() <= target.size();
  for (size_t i = 0; ok && i < m.size(); ++i) {
    const int64_t want = target[target.size() - m.size() + i];
    const bool last = i + 1 == m.size();
    ok = m[i] == 1 || m[i] == want || (last && ctx.opset() >= 24 && m[i] >= 0 && m[i] < want);
  }
  if (!ok) {
    return ctx.Error("attn_mask " + ShapeToString(m) + " does not broadcast to " +
                     ShapeToString(target) + " (batch, query heads, query sequence, past plus " +
                     "new key sequence)");
  }
  return Status::Ok();
}

// Inputs and outputs past the op's signature: 6 inputs at opset 23 (7 from
// opset 24, which adds nonpad_kv_seqlen), 4 outputs.
Status CheckArity(const ShapeContext& ctx) {
  const size_t max_inputs = ctx.opset() >= 24 ? 7 : 6;
  for (size_t i = max_inputs; i < ctx.num_inputs(); ++i) {
    if (!ctx.HasInput(i)) continue;
    if (i == 6) {
      return ctx.Error("input 6 (nonpad_kv_seqlen) is an Attention input from opset 24; the "
                       "model imports opset " + std::to_string(ctx.opset()));
    }
    return ctx.Error("has input " + std::to_string(i) + " '" + ctx.node().Input(i) +
                     "'; Attention takes at most " + std::to_string(max_inputs) + " inputs");
  }
  for (size_t i = 4; i < ctx.num_outputs(); ++i) {
    if (ctx.HasOutput(i)) {
      return ctx.Error("has output " + std::to_string(i) + " '" + ctx.node().outputs[i] +
                       "'; Attention has at most 4 outputs (Y, present_key, present_value, "
                       "qk_matmul_output)");
    }
  }
  return Status::Ok();
}

// nonpad_kv_seqlen (opset 24+, input 6): one valid-key count per batch entry,
// for a KV cache kept outside the node, so not with past_key / past_value.
Status CheckNonpadSeqlen(const ShapeContext& ctx, int64_t batch) {
  if (!ctx.HasInput(6)) return Status::Ok();
  if (ctx.HasInput(4) || ctx.HasInput(5)) {
    return ctx.Error("nonpad_kv_seqlen cannot be combined with past_key / past_value");
  }
  if (ctx.Dims(6) != Shape{batch}) {
    return ctx.Error("nonpad_kv_seqlen " + ShapeToString(ctx.Dims(6)) + " must be [" +
                     std::to_string(batch) + "] (one count per batch entry)");
  }
  return Status::Ok();
}

}  // namespace

Status AttentionRule(ShapeContext& ctx) {
  DLSIM_RETURN_IF_ERROR(ctx.RequireInputs(3));
  DLSIM_RETURN_IF_ERROR(CheckArity(ctx));
  const size_t rank = ctx.Dims(0).size();
  if ((rank != 3 && rank != 4) || ctx.Dims(1).size() != rank || ctx.Dims(2).size() != rank) {
    return ctx.Error("Q " + ShapeToString(ctx.Dims(0)) + ", K " + ShapeToString(ctx.Dims(1)) +
                     " and V " + ShapeToString(ctx.Dims(2)) + " must all be 3-D or all 4-D");
  }
  DLSIM_RETURN_IF_ERROR(CheckAttributes(ctx));
  DLSIM_ASSIGN_OR_RETURN(Operand q, ReadOperand(ctx, 0, "Q", "q_num_heads"));
  DLSIM_ASSIGN_OR_RETURN(Operand k, ReadOperand(ctx, 1, "K", "kv_num_heads"));
  DLSIM_ASSIGN_OR_RETURN(Operand v, ReadOperand(ctx, 2, "V", "kv_num_heads"));
  DLSIM_RETURN_IF_ERROR(CheckOperands(ctx, q, k, v));
  DLSIM_ASSIGN_OR_RETURN(int64_t past, PastSequence(ctx, k, v));
  DLSIM_RETURN_IF_ERROR(CheckNonpadSeqlen(ctx, q.batch));
  int64_t total = 0, hidden = 0;
  if (__builtin_add_overflow(past, k.seq, &total) ||
      __builtin_mul_overflow(q.heads, v.head_size, &hidden)) {
    return ctx.Error("total sequence or output hidden size overflows int64");
  }
  DLSIM_RETURN_IF_ERROR(CheckMask(ctx, q, total));
  const DType dt = ctx.In(0).dtype;
  ctx.SetOut(0, dt, rank == 4 ? Shape{q.batch, q.heads, q.seq, v.head_size}
                              : Shape{q.batch, q.seq, hidden});
  ctx.SetOut(1, ctx.In(1).dtype, {k.batch, k.heads, total, k.head_size});
  ctx.SetOut(2, ctx.In(2).dtype, {v.batch, v.heads, total, v.head_size});
  ctx.SetOut(3, dt, {q.batch, q.heads, q.seq, total});
  return Status::Ok();
}

}  // namespace dlsim
