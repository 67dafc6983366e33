// The ONNX Attention node (opset 23), which PyTorch's dynamo exporter writes
// for F.scaled_dot_product_attention, lowered to what PyTorch runs for it:
// torch.cat of the cached and new keys/values when a KV cache is passed,
// then one fused attention kernel (flash, memory-efficient or cuDNN, as
// PyTorch picks; 3-D Q, K, V are strided views of [batch, heads, seq, dim]).
// When the node also returns the QKᵀ scores (qk_matmul_output), no fused
// kernel produces them: PyTorch's math attention runs QKᵀ as a
// strided-batched GEMM, a softmax, and P·V as another GEMM.
#include "attention_call.h"
#include "gemm_call.h"
#include "op_registry.h"
#include "row_call.h"

namespace dlsim {
namespace {

bool HasInput(const Node& node, size_t i) { return !node.Input(i).empty(); }

bool HasOutput(const Node& node, size_t i) {
  return i < node.outputs.size() && !node.outputs[i].empty();
}

// Q, K and V of the same rank 3 or 4 (3-D ones split into q_num_heads and
// kv_num_heads heads) and a past key of rank 4, as the shape rule checks.
Status CheckRanks(const Node& node, const Shape& q, const Shape& k, const Shape& v,
                  const Shape* past_key) {
  const size_t r = q.size();
  if ((r != 3 && r != 4) || k.size() != r || v.size() != r) {
    return InvalidArgument("Q " + ShapeToString(q) + ", K " + ShapeToString(k) + " and V " +
                           ShapeToString(v) + " must all be 3-D or all 4-D");
  }
  if (r == 3 && (node.GetInt("q_num_heads", 0) <= 0 || node.GetInt("kv_num_heads", 0) <= 0)) {
    return InvalidArgument("3-D Q, K and V need positive q_num_heads and kv_num_heads");
  }
  if (past_key != nullptr && past_key->size() != 4) {
    return InvalidArgument("past_key " + ShapeToString(*past_key) + " is not 4-D");
  }
  return Status::Ok();
}

// The attention's sizes; seq_k counts the past keys too.
Result<AttentionShape> ReadShape(const LowerContext& ctx, const Node& node) {
  const Shape& q = ctx.T(node.Input(0)).dims;
  const Shape& k = ctx.T(node.Input(1)).dims;
  const Shape& v = ctx.T(node.Input(2)).dims;
  const Shape* past_key = HasInput(node, 4) ? &ctx.T(node.Input(4)).dims : nullptr;
  DLSIM_RETURN_IF_ERROR(CheckRanks(node, q, k, v, past_key));
  const size_t r = q.size();
  AttentionShape s;
  s.batch = q[0];
  s.seq_q = q[r - 2];
  s.seq_k = k[r - 2] + (past_key != nullptr ? (*past_key)[2] : 0);
  if (r == 4) {
    s.heads = q[1];
    s.head_dim = q[3];
    s.v_head_dim = v[3];
  } else {
    s.heads = node.GetInt("q_num_heads", 0);
    s.head_dim = q[2] / s.heads;
    s.v_head_dim = v[2] / node.GetInt("kv_num_heads", 0);
  }
  s.masked = HasInput(node, 3) || node.GetInt("is_causal", 0) != 0;
  return s;
}

// torch.cat((past, new), dim=2) for a KV cache: one copy kernel writing the
// present keys (or values). Needed whenever a past is given, the present
// output or not. Its backward hands out slices of the gradient (views), so
// training adds no kernel.
void AddCacheConcat(const LowerContext& ctx, const Node& node, size_t past, size_t now,
                    std::vector<KernelCall>* calls) {
  if (!HasInput(node, past)) return;
  KernelCall call = ctx.NewCall(KernelKind::kCopy, "copy_kernel", MathMode::kFp32);
  call.AddParam("op", "concat");
  call.AddParam("elems", ctx.Elems(node.Input(past)) + ctx.Elems(node.Input(now)));
  call.bytes_read = ctx.Bytes(node.Input(past)) + ctx.Bytes(node.Input(now));
  call.bytes_written = call.bytes_read;
  calls->push_back(std::move(call));
}

// PyTorch's math attention: scores = Q·Kᵀ, softmax, P·V, with every query
// head a batch entry (plus their backward in training, last op first).
void AddUnfusedCalls(const LowerContext& ctx, const AttentionShape& s,
                     std::vector<KernelCall>* calls) {
  const int64_t heads = s.batch * s.heads;
  calls->push_back(GemmCall(ctx, heads, s.seq_q, s.seq_k, s.head_dim, false, true));
  const double scores = static_cast<double>(heads) * s.seq_q * s.seq_k;
  const double score_bytes = scores * DTypeBytes(ctx.options().dtype);
  KernelCall softmax =
      RowCall(ctx, KernelKind::kSoftmaxFwd, kSoftmaxLibraryCall, heads * s.seq_q, s.seq_k);
  softmax.bytes_read = score_bytes;
  softmax.bytes_written = score_bytes;
  calls->push_back(softmax);
  calls->push_back(GemmCall(ctx, heads, s.seq_q, s.v_head_dim, s.seq_k, false, false));
  if (!ctx.options().training) return;
  AddGemmBackward(ctx, heads, s.seq_q, s.v_head_dim, s.seq_k, true, true, calls);  // dP, dV
  KernelCall softmax_bwd = softmax;
  softmax_bwd.kind = KernelKind::kSoftmaxBwd;
  softmax_bwd.phase = Phase::kBackward;
  softmax_bwd.bytes_read = 2 * score_bytes;  // P and dP
  calls->push_back(softmax_bwd);
  AddGemmBackward(ctx, heads, s.seq_q, s.seq_k, s.head_dim, true, true, calls);  // dQ, dK
}

Status LowerAttentionNode(const LowerContext& ctx, const Node& node,
                          std::vector<KernelCall>* calls) {
  DLSIM_ASSIGN_OR_RETURN(AttentionShape shape, ReadShape(ctx, node));
  AddCacheConcat(ctx, node, 4, 1, calls);
  AddCacheConcat(ctx, node, 5, 2, calls);
  if (HasOutput(node, 3)) {
    AddUnfusedCalls(ctx, shape, calls);
    return Status::Ok();
  }
  AttentionBytes bytes;
  bytes.q = ctx.Bytes(node.Input(0));
  bytes.k = ctx.Bytes(node.Input(1)) + ctx.Bytes(node.Input(4));
  bytes.v = ctx.Bytes(node.Input(2)) + ctx.Bytes(node.Input(5));
  bytes.out = ctx.Bytes(node.outputs[0]);
  for (KernelCall& call : FusedAttentionCalls(ctx, shape, bytes)) calls->push_back(std::move(call));
  return Status::Ok();
}

}  // namespace

void RegisterAttentionOps(OpRegistry& registry) {
  registry.Register("Attention", LowerAttentionNode);
}

}  // namespace dlsim
