// The ONNX Attention node (opset 23): one fused attention call (plus its
// backward in training), KV-cache concatenations, and the unfused
// GEMM-softmax-GEMM chain when the QKᵀ scores are an output.
#include <gtest/gtest.h>

#include "dlsim/ops/lowering.h"
#include "graph_builder.h"

namespace dlsim {
namespace {

using testing::GraphBuilder;

// Adds output `slot` of the graph's last node: tensor `name` of shape `dims`.
void AddOutput(Graph& g, size_t slot, const std::string& name, Shape dims) {
  Tensor& t = g.tensors[name];
  t.name = name;
  t.dtype = DType::kFloat32;
  t.dims = std::move(dims);
  Node& node = g.nodes.back();
  if (node.outputs.size() <= slot) node.outputs.resize(slot + 1);
  node.outputs[slot] = name;
}

// The calls of the graph's last node (none when lowering failed).
std::vector<KernelCall> CallsOf(const Result<LoweredGraph>& lowered) {
  EXPECT_TRUE(lowered.ok()) << lowered.status().ToString();
  if (!lowered.ok()) return {};
  EXPECT_TRUE(lowered->warnings.empty());
  EXPECT_TRUE(lowered->nodes.back().known_op);
  return lowered->nodes.back().calls;
}

// Self-attention over q, k, v [2, 8, 128, 64].
Graph FourDim(bool causal) {
  GraphBuilder b;
  b.Input("q", {2, 8, 128, 64}).Input("k", {2, 8, 128, 64}).Input("v", {2, 8, 128, 64});
  Node& n = b.Op("Attention", "attn", {"q", "k", "v"}, "y", {2, 8, 128, 64});
  if (causal) GraphBuilder::SetInt(n, "is_causal", 1);
  return b.Build({"y"});
}

constexpr double kScores = 2.0 * 8 * 128 * 128;
constexpr double kOperandBytes = 2.0 * 8 * 128 * 64 * 4;

TEST(LowerAttention, PlainAttentionIsOneFusedCall) {
  const auto calls = CallsOf(LowerGraph(FourDim(false), LoweringOptions{}));
  ASSERT_EQ(calls.size(), 1u);
  const KernelCall& a = calls[0];
  EXPECT_EQ(a.Key(), "attention_fwd batch=2 heads=8 seq_q=128 seq_k=128 head_dim=64 mask=0 "
                     "dtype=fp32 math=fp32 layout=-");
  EXPECT_EQ(a.library_call, "scaled_dot_product_attention");
  EXPECT_DOUBLE_EQ(a.flops, 2 * kScores * 64 + 2 * kScores * 64 + 5 * kScores);
  EXPECT_DOUBLE_EQ(a.bytes_read, 3 * kOperandBytes);  // q, k, v
  EXPECT_DOUBLE_EQ(a.bytes_written, kOperandBytes);

  LoweringOptions half;
  half.dtype = DType::kFloat16;
  const auto h = CallsOf(LowerGraph(FourDim(false), half));
  ASSERT_EQ(h.size(), 1u);
  EXPECT_EQ(h[0].Key(), "attention_fwd batch=2 heads=8 seq_q=128 seq_k=128 head_dim=64 mask=0 "
                        "dtype=fp16 math=fp16 layout=-");
  EXPECT_DOUBLE_EQ(h[0].bytes_read, 3 * kOperandBytes / 2);
}

TEST(LowerAttention, CausalOrMaskedAttentionUsesTheMaskedKernel) {
  const auto causal = CallsOf(LowerGraph(FourDim(true), LoweringOptions{}));
  ASSERT_EQ(causal.size(), 1u);
  EXPECT_EQ(causal[0].Key(), "attention_fwd batch=2 heads=8 seq_q=128 seq_k=128 head_dim=64 "
                             "mask=1 dtype=fp32 math=fp32 layout=-");
  EXPECT_DOUBLE_EQ(causal[0].flops, 2 * kScores * 64 + 2 * kScores * 64 + 5 * kScores);

  // 3-D grouped-query attention with a mask: q 8 heads of 64, k/v 2 heads.
  GraphBuilder b;
  b.Input("q", {2, 128, 512}).Input("k", {2, 128, 128}).Input("v", {2, 128, 128});
  b.Input("mask", {2, 1, 128, 128}, DType::kBool);
  Node& n = b.Op("Attention", "attn", {"q", "k", "v", "mask"}, "y", {2, 128, 512});
  GraphBuilder::SetInt(n, "q_num_heads", 8);
  GraphBuilder::SetInt(n, "kv_num_heads", 2);
  const auto gqa = CallsOf(LowerGraph(b.Build({"y"}), LoweringOptions{}));
  ASSERT_EQ(gqa.size(), 1u);
  EXPECT_EQ(gqa[0].Key(), "attention_fwd batch=2 heads=8 seq_q=128 seq_k=128 head_dim=64 "
                          "mask=1 dtype=fp32 math=fp32 layout=-");
  const double q_bytes = 2.0 * 128 * 512 * 4, kv_bytes = 2.0 * 128 * 128 * 4;
  EXPECT_DOUBLE_EQ(gqa[0].bytes_read, q_bytes + 2 * kv_bytes);  // k and v with 2 heads
  EXPECT_DOUBLE_EQ(gqa[0].bytes_written, q_bytes);
}

TEST(LowerAttention, TrainingAddsTheFusedBackward) {
  LoweringOptions o;
  o.training = true;
  o.inputs_need_gradient = true;  // a block: its input is an activation
  const auto calls = CallsOf(LowerGraph(FourDim(false), o));
  ASSERT_EQ(calls.size(), 2u);
  const KernelCall& bwd = calls[1];
  EXPECT_EQ(bwd.Key(), "attention_bwd batch=2 heads=8 seq_q=128 seq_k=128 head_dim=64 mask=0 "
                       "dtype=fp32 math=fp32 layout=-");
  EXPECT_EQ(bwd.library_call, "scaled_dot_product_attention_backward");
  EXPECT_EQ(bwd.phase, Phase::kBackward);
  // Five GEMMs (10 head_dim per score), the softmax recomputed (5) and its
  // gradient (4): WorkOfKey's.
  EXPECT_DOUBLE_EQ(bwd.flops, 10 * kScores * 64 + 9 * kScores);
  EXPECT_DOUBLE_EQ(bwd.bytes_read, 5 * kOperandBytes);     // q, k, v, out, d_out
  EXPECT_DOUBLE_EQ(bwd.bytes_written, 3 * kOperandBytes);  // dq, dk, dv
}

// One decoding step: 1 new token, 31 cached, 8 heads of 64.
TEST(LowerAttention, KvCacheIsConcatenatedThenAttendedOverWhole) {
  GraphBuilder b;
  b.Input("q", {1, 8, 1, 64}).Input("k", {1, 8, 1, 64}).Input("v", {1, 8, 1, 64});
  b.Input("past_k", {1, 8, 31, 64}).Input("past_v", {1, 8, 31, 64});
  b.Op("Attention", "attn", {"q", "k", "v", "", "past_k", "past_v"}, "y", {1, 8, 1, 64});
  Graph g = b.Build({"y", "present_k", "present_v"});
  AddOutput(g, 1, "present_k", {1, 8, 32, 64});
  AddOutput(g, 2, "present_v", {1, 8, 32, 64});
  const auto calls = CallsOf(LowerGraph(g, LoweringOptions{}));
  ASSERT_EQ(calls.size(), 3u);
  const double present_bytes = 8.0 * 32 * 64 * 4;
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(calls[i].Key(), "copy op=concat elems=16384 dtype=fp32 math=fp32 layout=-");
    EXPECT_EQ(calls[i].library_call, "copy_kernel");
    EXPECT_DOUBLE_EQ(calls[i].bytes_read, present_bytes);  // past and new
    EXPECT_DOUBLE_EQ(calls[i].bytes_written, present_bytes);
  }
  EXPECT_EQ(calls[2].Key(), "attention_fwd batch=1 heads=8 seq_q=1 seq_k=32 head_dim=64 mask=0 "
                            "dtype=fp32 math=fp32 layout=-");
  const double scores = 8.0 * 32;
  EXPECT_DOUBLE_EQ(calls[2].flops, 2 * scores * 64 + 2 * scores * 64 + 5 * scores);
  EXPECT_DOUBLE_EQ(calls[2].bytes_read, 8.0 * 64 * 4 + 2 * present_bytes);
  EXPECT_DOUBLE_EQ(calls[2].bytes_written, 8.0 * 64 * 4);
}

// q [2, 4, 16, 8] attends to k, v [2, 4, 32, 8] and returns the scores.
Graph WithScores() {
  GraphBuilder b;
  b.Input("q", {2, 4, 16, 8}).Input("k", {2, 4, 32, 8}).Input("v", {2, 4, 32, 8});
  b.Op("Attention", "attn", {"q", "k", "v"}, "y", {2, 4, 16, 8});
  Graph g = b.Build({"y", "qk"});
  AddOutput(g, 3, "qk", {2, 4, 16, 32});
  return g;
}

TEST(LowerAttention, ScoresOutputFallsBackToGemmSoftmaxGemm) {
  const auto calls = CallsOf(LowerGraph(WithScores(), LoweringOptions{}));
  ASSERT_EQ(calls.size(), 3u);
  EXPECT_EQ(calls[0].Key(), "batched_gemm batch=8 m=16 n=32 k=8 trans_a=0 trans_b=1 "
                            "dtype=fp32 math=fp32 layout=-");
  EXPECT_DOUBLE_EQ(calls[0].flops, 2.0 * 8 * 16 * 32 * 8);
  EXPECT_DOUBLE_EQ(calls[0].bytes_read, 8.0 * (16 * 8 + 8 * 32) * 4);
  EXPECT_DOUBLE_EQ(calls[0].bytes_written, 8.0 * 16 * 32 * 4);
  EXPECT_EQ(calls[1].Key(), "softmax_fwd rows=128 cols=32 dtype=fp32 math=fp32 layout=-");
  EXPECT_EQ(calls[1].library_call, "cudnnSoftmaxForward");
  EXPECT_DOUBLE_EQ(calls[1].flops, 5.0 * 8 * 16 * 32);
  EXPECT_DOUBLE_EQ(calls[1].bytes_read, 8.0 * 16 * 32 * 4);
  EXPECT_DOUBLE_EQ(calls[1].bytes_written, 8.0 * 16 * 32 * 4);
  EXPECT_EQ(calls[2].Key(), "batched_gemm batch=8 m=16 n=8 k=32 trans_a=0 trans_b=0 "
                            "dtype=fp32 math=fp32 layout=-");
  EXPECT_DOUBLE_EQ(calls[2].flops, 2.0 * 8 * 16 * 8 * 32);
  for (const KernelCall& c : calls) EXPECT_NE(c.kind, KernelKind::kAttentionFwd);
}

TEST(LowerAttention, ScoresOutputInTrainingAddsEachBackward) {
  LoweringOptions o;
  o.training = true;
  o.inputs_need_gradient = true;  // a block: its input is an activation
  const auto calls = CallsOf(LowerGraph(WithScores(), o));
  ASSERT_EQ(calls.size(), 8u);
  const KernelKind kinds[] = {KernelKind::kBatchedGemm, KernelKind::kSoftmaxFwd,
                              KernelKind::kBatchedGemm, KernelKind::kBatchedGemm,
                              KernelKind::kBatchedGemm, KernelKind::kSoftmaxBwd,
                              KernelKind::kBatchedGemm, KernelKind::kBatchedGemm};
  for (size_t i = 0; i < calls.size(); ++i) {
    EXPECT_EQ(calls[i].kind, kinds[i]) << i;
    EXPECT_EQ(calls[i].phase, i < 3 ? Phase::kForward : Phase::kBackward) << i;
  }
  EXPECT_EQ(calls[5].Key(), "softmax_bwd rows=128 cols=32 dtype=fp32 math=fp32 layout=-");
  EXPECT_DOUBLE_EQ(calls[5].bytes_read, 2 * 8.0 * 16 * 32 * 4);  // p and dp
  EXPECT_EQ(calls[3].Key(), "batched_gemm batch=8 m=16 n=32 k=8 trans_a=0 trans_b=1 "
                            "dtype=fp32 math=fp32 layout=-");  // dP = dY·Vᵀ
  EXPECT_DOUBLE_EQ(calls[6].flops, 2.0 * 8 * 16 * 8 * 32);       // dQ = dS·K
}

TEST(LowerAttention, ThreeDimWithoutHeadCountsNamesTheNode) {
  GraphBuilder b;
  b.Input("q", {2, 16, 64}).Input("k", {2, 16, 64}).Input("v", {2, 16, 64});
  b.Op("Attention", "attn", {"q", "k", "v"}, "y", {2, 16, 64});
  auto lowered = LowerGraph(b.Build({"y"}), LoweringOptions{});
  ASSERT_FALSE(lowered.ok());
  const std::string m = lowered.status().message();
  EXPECT_NE(m.find("node 'attn' (Attention)"), std::string::npos) << m;
  EXPECT_NE(m.find("q_num_heads and kv_num_heads"), std::string::npos) << m;
}

}  // namespace
}  // namespace dlsim
