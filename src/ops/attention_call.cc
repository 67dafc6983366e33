#include "attention_call.h"

namespace dlsim {

std::vector<KernelCall> FusedAttentionCalls(const LowerContext& ctx, const AttentionShape& shape,
                                            const AttentionBytes& bytes) {
  KernelCall fwd = ctx.NewCall(KernelKind::kAttentionFwd, "scaled_dot_product_attention",
                               GemmMath(ctx.options()));
  fwd.AddParam("batch", shape.batch);
  fwd.AddParam("heads", shape.heads);
  fwd.AddParam("seq_q", shape.seq_q);
  fwd.AddParam("seq_k", shape.seq_k);
  fwd.AddParam("head_dim", shape.head_dim);
  fwd.AddParam("mask", int64_t{shape.masked ? 1 : 0});
  fwd.bytes_read = bytes.q + bytes.k + bytes.v;
  fwd.bytes_written = bytes.out;
  std::vector<KernelCall> calls;
  if (ctx.options().training && shape.dropout &&
      (fwd.math == MathMode::kFp16 || fwd.math == MathMode::kBf16)) {
    calls.push_back(ElementwiseCall(ctx, "philox_unpack", 1, 1, 16, 16));
  }
  calls.push_back(fwd);
  if (ctx.options().training) {
    KernelCall bwd = fwd;
    bwd.kind = KernelKind::kAttentionBwd;
    bwd.library_call = "scaled_dot_product_attention_backward";
    bwd.phase = Phase::kBackward;
    bwd.bytes_read = fwd.bytes_read + 2 * fwd.bytes_written;  // q, k, v, o, dO
    bwd.bytes_written = fwd.bytes_read;                        // dQ, dK, dV
    calls.push_back(bwd);
  }
  return calls;
}

}  // namespace dlsim
