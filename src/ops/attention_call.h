// PyTorch's fused scaled-dot-product attention call, shared by the lowering
// of the exported SDPA pattern (framework_fusion.cc) and of the ONNX
// Attention node (lower_attention.cc). Private to src/ops.
#ifndef DLSIM_SRC_OPS_ATTENTION_CALL_H_
#define DLSIM_SRC_OPS_ATTENTION_CALL_H_

#include <cstdint>
#include <vector>

#include "op_registry.h"

namespace dlsim {

// One attention: `heads` query heads of `seq_q` rows attend to `seq_k` keys
// (the whole key sequence, past included); q and k rows have `head_dim`
// elements, v rows `v_head_dim`. `masked`: an attention mask or a causal one.
// `dropout`: the probabilities pass a dropout (dropout_p > 0 in training).
struct AttentionShape {
  int64_t batch = 0, heads = 0, seq_q = 0, seq_k = 0, head_dim = 0, v_head_dim = 0;
  bool masked = false;
  bool dropout = false;
};

// Bytes of the operands at the run dtype, as the kernel reads and writes
// them (k and v: the whole key/value sequence, with as many heads as they
// have; out: the attention output).
struct AttentionBytes {
  double q = 0, k = 0, v = 0, out = 0;
};

// The attention_fwd call "scaled_dot_product_attention" (key params batch,
// heads, seq_q, seq_k, head_dim, mask), plus attention_bwd in training.
// FLOPs: 2·S·head_dim (QKᵀ) + 2·S·v_head_dim (PV) + 5·S (softmax), S = the
// batch·heads·seq_q·seq_k scores; the backward 2.5× that, reading q, k, v,
// out and dOut and writing dQ, dK, dV. With dropout in training, the 16-bit
// (cuDNN) path first unpacks the random generator's seed and offset, one
// small kernel; the dropout itself runs inside the fused kernels, priced as
// the same keys without it.
std::vector<KernelCall> FusedAttentionCalls(const LowerContext& ctx, const AttentionShape& shape,
                                            const AttentionBytes& bytes);

}  // namespace dlsim

#endif  // DLSIM_SRC_OPS_ATTENTION_CALL_H_
