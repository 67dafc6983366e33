// Node groups the ONNX export spells out and PyTorch runs as one kernel.
#include <gtest/gtest.h>

#include "dlsim/ops/lowering.h"
#include "graph_builder.h"

namespace dlsim {
namespace {

using testing::GraphBuilder;

// y = (x * (1 + erf(x / sqrt2))) * 0.5, as torch.onnx writes nn.GELU; the
// Erf's output also feeds `tap` when `tapped`.
Graph Gelu(bool tapped) {
  GraphBuilder b;
  b.Input("x", {8, 128, 3072}).Weight("sqrt2", {}).Weight("one", {}).Weight("half", {});
  b.Op("Div", "div", {"x", "sqrt2"}, "d", {8, 128, 3072});
  b.Op("Erf", "erf", {"d"}, "e", {8, 128, 3072});
  b.Op("Add", "add", {"e", "one"}, "a", {8, 128, 3072});
  b.Op("Mul", "mul", {"x", "a"}, "m", {8, 128, 3072});
  b.Op("Mul", "mul_1", {"m", "half"}, "y", {8, 128, 3072});
  std::vector<std::string> outputs = {"y"};
  if (tapped) {
    b.Op("Neg", "tap", {"e"}, "t", {8, 128, 3072});
    outputs.push_back("t");
  }
  return b.Build(outputs);
}

TEST(FrameworkFusion, ErfGeluIsOneKernel) {
  auto lowered = LowerGraph(Gelu(false), LoweringOptions{});
  ASSERT_TRUE(lowered.ok());
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(lowered->nodes[i].calls.empty()) << lowered->nodes[i].name;
  ASSERT_EQ(lowered->nodes[4].calls.size(), 1u);
  const KernelCall& gelu = lowered->nodes[4].calls[0];
  EXPECT_EQ(gelu.StrParam("op", ""), "gelu");
  const double bytes = 8.0 * 128 * 3072 * 4;
  EXPECT_DOUBLE_EQ(gelu.bytes_read, bytes);  // x once
  EXPECT_DOUBLE_EQ(gelu.bytes_written, bytes);
}

TEST(FrameworkFusion, TrainingAddsOneBackwardKernel) {
  LoweringOptions o;
  o.training = true;
  o.inputs_need_gradient = true;  // a block: its input is an activation
  auto lowered = LowerGraph(Gelu(false), o);
  ASSERT_TRUE(lowered.ok());
  ASSERT_EQ(lowered->nodes[4].calls.size(), 2u);
  EXPECT_EQ(lowered->nodes[4].calls[1].phase, Phase::kBackward);
}

TEST(FrameworkFusion, NotFusedWhenAnIntermediateIsUsedElsewhere) {
  auto lowered = LowerGraph(Gelu(true), LoweringOptions{});
  ASSERT_TRUE(lowered.ok());
  for (int i = 0; i < 5; ++i) EXPECT_EQ(lowered->nodes[i].calls.size(), 1u) << lowered->nodes[i].name;
}

// y = x * sigmoid(x) (nn.SiLU as torch.onnx writes it), the Mul's operands
// in either order; a second reader of the sigmoid when `tapped`.
Graph Silu(bool sigmoid_first, bool tapped) {
  GraphBuilder b;
  b.Input("x", {16, 64, 28, 28});
  b.Op("Sigmoid", "sigmoid", {"x"}, "s", {16, 64, 28, 28});
  b.Op("Mul", "mul", sigmoid_first ? std::vector<std::string>{"s", "x"} : std::vector<std::string>{"x", "s"},
       "y", {16, 64, 28, 28});
  std::vector<std::string> outputs = {"y"};
  if (tapped) {
    b.Op("Neg", "tap", {"s"}, "t", {16, 64, 28, 28});
    outputs.push_back("t");
  }
  return b.Build(outputs);
}

TEST(FrameworkFusion, SiluIsOneKernelWhicheverOperandComesFirst) {
  for (bool sigmoid_first : {false, true}) {
    auto lowered = LowerGraph(Silu(sigmoid_first, false), LoweringOptions{});
    ASSERT_TRUE(lowered.ok());
    EXPECT_TRUE(lowered->nodes[0].calls.empty());
    ASSERT_EQ(lowered->nodes[1].calls.size(), 1u);
    const KernelCall& silu = lowered->nodes[1].calls[0];
    EXPECT_EQ(silu.StrParam("op", ""), "silu");
    const double elems = 16.0 * 64 * 28 * 28;
    EXPECT_DOUBLE_EQ(silu.bytes_read, elems * 4);  // x once
    EXPECT_DOUBLE_EQ(silu.bytes_written, elems * 4);
    EXPECT_DOUBLE_EQ(silu.flops, 5 * elems);
  }
}

TEST(FrameworkFusion, SiluNotFusedWhenTheSigmoidHasAnotherReader) {
  auto lowered = LowerGraph(Silu(false, true), LoweringOptions{});
  ASSERT_TRUE(lowered.ok());
  EXPECT_EQ(lowered->nodes[0].calls.size(), 1u);
  EXPECT_EQ(lowered->nodes[1].calls.size(), 1u);
}

// nn.Linear on a 3-D input, its bias shared through an Identity node (as
// Hugging Face exports do): the bias rides in the GEMM's epilogue.
TEST(FrameworkFusion, LinearBiasThroughIdentityLaunchesNothing) {
  GraphBuilder b;
  b.Input("x", {8, 128, 768}).Weight("w", {768, 768}).Weight("b0", {768});
  b.Op("Identity", "id", {"b0"}, "b", {768});
  b.Op("MatMul", "mm", {"x", "w"}, "h", {8, 128, 768});
  b.Op("Add", "bias", {"b", "h"}, "y", {8, 128, 768});
  auto lowered = LowerGraph(b.Build({"y"}), LoweringOptions{});
  ASSERT_TRUE(lowered.ok());
  EXPECT_EQ(lowered->nodes[1].calls.size(), 1u);
  EXPECT_TRUE(lowered->nodes[2].calls.empty());
}

// Two LSTM layers as torch.onnx writes a 2-layer nn.LSTM: seq 64, batch 16,
// input 256, hidden 512; layer 0's Y [64,1,16,512] squeezed into layer 1.
// `tapped`: layer 0's Y also feeds another node.
Graph LstmStack(bool tapped, int64_t hidden1 = 512) {
  GraphBuilder b;
  b.Input("x", {64, 16, 256});
  b.Weight("w0", {1, 2048, 256}).Weight("r0", {1, 2048, 512}).Weight("b0", {1, 4096});
  b.Weight("w1", {1, 4 * hidden1, 512}).Weight("r1", {1, 4 * hidden1, hidden1}).Weight("b1", {1, 8 * hidden1});
  Node& l0 = b.Op("LSTM", "lstm", {"x", "w0", "r0", "b0"}, "y0", {64, 1, 16, 512});
  GraphBuilder::SetInt(l0, "hidden_size", 512);
  b.Op("Squeeze", "squeeze", {"y0"}, "s0", {64, 16, 512});
  Node& l1 = b.Op("LSTM", "lstm_1", {"s0", "w1", "r1", "b1"}, "y1", {64, 1, 16, hidden1});
  GraphBuilder::SetInt(l1, "hidden_size", hidden1);
  std::vector<std::string> outputs = {"y1"};
  if (tapped) {
    b.Op("Neg", "tap", {"y0"}, "t", {64, 1, 16, 512});
    outputs.push_back("t");
  }
  return b.Build(outputs);
}

TEST(FrameworkFusion, StackedLstmLayersAreOneMultiLayerCall) {
  auto lowered = LowerGraph(LstmStack(false), LoweringOptions{});
  ASSERT_TRUE(lowered.ok()) << lowered.status().ToString();
  EXPECT_TRUE(lowered->nodes[0].calls.empty());
  EXPECT_TRUE(lowered->nodes[1].calls.empty());
  ASSERT_EQ(lowered->nodes[2].calls.size(), 1u);
  const KernelCall& rnn = lowered->nodes[2].calls[0];
  EXPECT_EQ(rnn.kind, KernelKind::kRnnFwd);
  EXPECT_EQ(rnn.IntParam("layers", 0), 2);
  EXPECT_EQ(rnn.IntParam("input", 0), 256);
  EXPECT_EQ(rnn.IntParam("hidden", 0), 512);
  // 64 steps x 16 rows x (2*4*512*(in+512) + 10*512), in = 256 then 512.
  const double layer0 = 64.0 * 16 * (2.0 * 4 * 512 * (256 + 512) + 10.0 * 512);
  const double layer1 = 64.0 * 16 * (2.0 * 4 * 512 * (512 + 512) + 10.0 * 512);
  EXPECT_DOUBLE_EQ(rnn.flops, layer0 + layer1);
  const double x_bytes = 64.0 * 16 * 256 * 4;
  const double weight_bytes = (2048.0 * 256 + 2048.0 * 512 + 4096 + 2048.0 * 512 + 2048.0 * 512 + 4096) * 4;
  EXPECT_DOUBLE_EQ(rnn.bytes_read, x_bytes + weight_bytes);
  EXPECT_DOUBLE_EQ(rnn.bytes_written, 64.0 * 16 * 512 * 4);  // the last layer's Y
}

// A training step runs op by op, and then cuDNN runs a stack's layers one
// after another (no wavefront): one call per layer, forward and backward,
// the last layer's backward first.
TEST(FrameworkFusion, StackedRnnTrainingRunsLayerByLayer) {
  LoweringOptions o;
  o.training = true;
  auto lowered = LowerGraph(LstmStack(false), o);
  ASSERT_TRUE(lowered.ok());
  const auto& calls = lowered->nodes[2].calls;
  ASSERT_EQ(calls.size(), 6u);
  const double layer0 = 64.0 * 16 * (2.0 * 4 * 512 * (256 + 512) + 10.0 * 512);
  const double layer1 = 64.0 * 16 * (2.0 * 4 * 512 * (512 + 512) + 10.0 * 512);
  const KernelKind kinds[] = {KernelKind::kRnnFwd,     KernelKind::kRnnFwd,        KernelKind::kRnnBwdData,
                              KernelKind::kRnnBwdWeights, KernelKind::kRnnBwdData, KernelKind::kRnnBwdWeights};
  const int64_t inputs[] = {256, 512, 512, 512, 256, 256};
  for (size_t i = 0; i < calls.size(); ++i) {
    EXPECT_EQ(calls[i].kind, kinds[i]) << i;
    EXPECT_EQ(calls[i].IntParam("layers", 0), 1) << i;
    EXPECT_EQ(calls[i].IntParam("input", 0), inputs[i]) << i;
  }
  EXPECT_DOUBLE_EQ(calls[0].flops, layer0);
  EXPECT_DOUBLE_EQ(calls[1].flops, layer1);
  EXPECT_DOUBLE_EQ(calls[0].bytes_written, 64.0 * 16 * 512 * 4 / 2);  // half the last layer's Y
}

TEST(FrameworkFusion, BidirectionalRnnTrainingRunsDirectionByDirection) {
  GraphBuilder b;
  b.Input("x", {32, 8, 64});
  b.Weight("w", {2, 512, 64}).Weight("r", {2, 512, 128}).Weight("bias", {2, 1024});
  Node& lstm = b.Op("LSTM", "lstm", {"x", "w", "r", "bias"}, "y", {32, 2, 8, 128});
  GraphBuilder::SetInt(lstm, "hidden_size", 128);
  GraphBuilder::SetString(lstm, "direction", "bidirectional");
  LoweringOptions o;
  o.training = true;
  auto lowered = LowerGraph(b.Build({"y"}), o);
  ASSERT_TRUE(lowered.ok()) << lowered.status().ToString();
  const auto& calls = lowered->nodes[0].calls;
  ASSERT_EQ(calls.size(), 6u);
  for (const KernelCall& c : calls) {
    EXPECT_EQ(c.IntParam("dirs", 0), 1);
    EXPECT_EQ(c.IntParam("input", 0), 64);
  }
  auto inference = LowerGraph(b.Build({"y"}), LoweringOptions{});
  ASSERT_TRUE(inference.ok());
  ASSERT_EQ(inference->nodes[0].calls.size(), 1u);
  EXPECT_EQ(inference->nodes[0].calls[0].IntParam("dirs", 0), 2);
}

TEST(FrameworkFusion, RnnLayersStaySeparateWhenAnOutputIsUsedElsewhere) {
  auto lowered = LowerGraph(LstmStack(true), LoweringOptions{});
  ASSERT_TRUE(lowered.ok());
  ASSERT_EQ(lowered->nodes[0].calls.size(), 1u);
  EXPECT_EQ(lowered->nodes[0].calls[0].IntParam("layers", 0), 1);
  ASSERT_EQ(lowered->nodes[2].calls.size(), 1u);
}

TEST(FrameworkFusion, RnnLayersOfDifferentSizesStaySeparate) {
  auto lowered = LowerGraph(LstmStack(false, 256), LoweringOptions{});
  ASSERT_TRUE(lowered.ok());
  EXPECT_EQ(lowered->nodes[0].calls.size(), 1u);
  EXPECT_EQ(lowered->nodes[2].calls.size(), 1u);
}

// F.scaled_dot_product_attention as torch.onnx writes it: q, k, v
// [2, 4, 16, 8] made by Reshape views of [2, 16, 32] projections, both q and
// k^T scaled by a computed scalar, then MatMul, Softmax, MatMul, and the
// output turned back into [2, 16, 32]. `plain`: no scaling Muls (eager
// attention, which PyTorch runs as separate kernels).
Graph Attention(bool plain) {
  GraphBuilder b;
  b.Input("xq", {2, 16, 32}).Input("xk", {2, 16, 32}).Input("xv", {2, 16, 32}).Weight("s", {1});
  b.Op("Reshape", "rq", {"xq"}, "q3", {2, 16, 4, 8});
  b.Op("Transpose", "tq", {"q3"}, "q", {2, 4, 16, 8});
  b.Op("Reshape", "rk", {"xk"}, "k3", {2, 16, 4, 8});
  b.Op("Transpose", "tk", {"k3"}, "k", {2, 4, 16, 8});
  b.Op("Reshape", "rv", {"xv"}, "v3", {2, 16, 4, 8});
  b.Op("Transpose", "tv", {"v3"}, "v", {2, 4, 16, 8});
  b.Op("Transpose", "kt", {"k"}, "k_t", {2, 4, 8, 16});
  b.Op("Shape", "shape", {"q"}, "q_shape", {4});
  if (plain) {
    b.Op("MatMul", "qk", {"q", "k_t"}, "scores", {2, 4, 16, 16});
  } else {
    b.Op("Mul", "scale_q", {"q", "s"}, "qs", {2, 4, 16, 8});
    b.Op("Mul", "scale_k", {"k_t", "s"}, "ks", {2, 4, 8, 16});
    b.Op("MatMul", "qk", {"qs", "ks"}, "scores", {2, 4, 16, 16});
  }
  b.Op("Softmax", "softmax", {"scores"}, "p", {2, 4, 16, 16});
  b.Op("MatMul", "pv", {"p", "v"}, "o", {2, 4, 16, 8});
  b.Op("Transpose", "to", {"o"}, "o3", {2, 16, 4, 8});
  b.Op("Reshape", "ro", {"o3"}, "y", {2, 16, 32});
  return b.Build({"y"});
}

TEST(FrameworkFusion, ExportedSdpaIsOneAttentionCall) {
  auto lowered = LowerGraph(Attention(false), LoweringOptions{});
  ASSERT_TRUE(lowered.ok()) << lowered.status().ToString();
  const size_t last = lowered->nodes.size() - 1;
  for (size_t i = 0; i < last; ++i) EXPECT_TRUE(lowered->nodes[i].calls.empty()) << lowered->nodes[i].name;
  ASSERT_EQ(lowered->nodes[last].calls.size(), 1u);
  const KernelCall& a = lowered->nodes[last].calls[0];
  EXPECT_EQ(a.Key(),
            "attention_fwd batch=2 heads=4 seq_q=16 seq_k=16 head_dim=8 mask=0 dtype=fp32 math=fp32 layout=-");
  const double scores = 2.0 * 4 * 16 * 16;
  EXPECT_DOUBLE_EQ(a.flops, 2 * scores * 8 + 2 * scores * 8 + 5 * scores);
  EXPECT_DOUBLE_EQ(a.bytes_read, 3 * 2.0 * 16 * 32 * 4);  // q, k, v once
  EXPECT_DOUBLE_EQ(a.bytes_written, 2.0 * 16 * 32 * 4);
}

// The same attention as torch 2.11's exporters write a masked SDPA: k^T is
// Reshape(Transpose(Reshape(k))) (dynamo) of a k [2, 16, 4, 8] that is not
// in [batch, heads, seq, dim] order, a boolean mask becomes Where(m, 0,
// -inf) added to the scores, and fully masked rows are guarded after the
// softmax with Where(IsNaN(p), 0, p).
Graph GuardedAttention(bool dropout = false, bool upcast = false) {
  GraphBuilder b;
  b.Input("xq", {2, 16, 32}).Input("xk", {2, 16, 32}).Input("xv", {2, 16, 32}).Input("m", {2, 1, 16, 16});
  b.Weight("s", {1}).Weight("zero", {1}).Weight("ninf", {1});
  b.Op("Reshape", "rq", {"xq"}, "q3", {2, 16, 4, 8});
  b.Op("Transpose", "tq", {"q3"}, "q", {2, 4, 16, 8});
  b.Op("Reshape", "rk", {"xk"}, "k", {2, 16, 4, 8});
  b.Op("Reshape", "rk2", {"k"}, "k2", {2, 16, 32});
  b.Op("Transpose", "tk", {"k2"}, "k2t", {2, 32, 16});
  b.Op("Reshape", "rk3", {"k2t"}, "k_t", {2, 4, 8, 16});
  b.Op("Reshape", "rv", {"xv"}, "v3", {2, 16, 4, 8});
  b.Op("Transpose", "tv", {"v3"}, "v", {2, 4, 16, 8});
  b.Op("Mul", "scale_q", {"q", "s"}, "qs", {2, 4, 16, 8});
  b.Op("Mul", "scale_k", {"k_t", "s"}, "ks", {2, 4, 8, 16});
  b.Op("MatMul", "qk", {"qs", "ks"}, "scores", {2, 4, 16, 16});
  b.Op("Where", "mask", {"m", "zero", "ninf"}, "bias", {2, 1, 16, 16});
  if (upcast) {  // a 16-bit model's TorchScript export: scores and v cast to the mask's fp32
    b.Op("Cast", "up_scores", {"scores"}, "scores32", {2, 4, 16, 16});
    b.Op("Cast", "up_v", {"v"}, "v32", {2, 4, 16, 8});
  }
  b.Op("Add", "add", {upcast ? "scores32" : "scores", "bias"}, "masked", {2, 4, 16, 16});
  b.Op("Softmax", "softmax", {"masked"}, "p", {2, 4, 16, 16});
  b.Op("IsNaN", "isnan", {"p"}, "nan", {2, 4, 16, 16});
  b.Op("Where", "guard", {"nan", "zero", "p"}, "pg", {2, 4, 16, 16});
  if (dropout) {  // dropout_p > 0 in a training-mode export
    b.Weight("ratio", {});
    Node& drop = b.Op("Dropout", "drop", {"pg", "ratio"}, "pd", {2, 4, 16, 16});
    b.ExtraOutput(drop, "keep", {2, 4, 16, 16}, DType::kBool);
  }
  b.Op("MatMul", "pv", {dropout ? "pd" : "pg", upcast ? "v32" : "v"}, "o", {2, 4, 16, 8});
  Graph g = b.Build({"o"});
  if (dropout) g.tensors["ratio"].value = TensorValue{true, {}, {0.1}};
  return g;
}

TEST(FrameworkFusion, GuardedMaskedSdpaOfBothExportersIsOneAttentionCall) {
  auto lowered = LowerGraph(GuardedAttention(), LoweringOptions{});
  ASSERT_TRUE(lowered.ok()) << lowered.status().ToString();
  std::vector<std::string> keys;
  for (const LoweredNode& n : lowered->nodes) {
    for (const KernelCall& c : n.calls) keys.push_back(n.name + ": " + c.Key());
  }
  std::string all;
  for (const std::string& k : keys) all += k + "; ";
  ASSERT_EQ(keys.size(), 1u) << all;
  EXPECT_EQ(keys[0], "pv: attention_fwd batch=2 heads=4 seq_q=16 seq_k=16 head_dim=8 mask=1 dtype=fp32 "
                     "math=fp32 layout=-");
}

TEST(FrameworkFusion, SdpaOfAHalfModelsExportIsOneAttentionCallThroughItsUpcasts) {
  LoweringOptions o;
  o.dtype = DType::kFloat16;
  auto lowered = LowerGraph(GuardedAttention(false, true), o);
  ASSERT_TRUE(lowered.ok()) << lowered.status().ToString();
  std::vector<std::string> keys;
  for (const LoweredNode& n : lowered->nodes) {
    for (const KernelCall& c : n.calls) keys.push_back(n.name + ": " + c.Key());
  }
  ASSERT_EQ(keys.size(), 1u);
  EXPECT_EQ(keys[0], "pv: attention_fwd batch=2 heads=4 seq_q=16 seq_k=16 head_dim=8 mask=1 dtype=fp16 "
                     "math=fp16 layout=-");
}

// PyTorch runs SDPA's dropout inside the fused kernels; its cuDNN path
// (16-bit) first unpacks the generator's seed, one small kernel.
TEST(FrameworkFusion, SdpaWithDropoutIsOneAttentionCallWithItsSeedUnpack) {
  LoweringOptions o;
  o.training = true;
  o.inputs_need_gradient = true;
  o.dtype = DType::kBFloat16;
  auto lowered = LowerGraph(GuardedAttention(true), o);
  ASSERT_TRUE(lowered.ok()) << lowered.status().ToString();
  std::vector<std::string> keys;
  for (const LoweredNode& n : lowered->nodes) {
    for (const KernelCall& c : n.calls) keys.push_back(n.name + ": " + c.Key());
  }
  ASSERT_EQ(keys.size(), 3u);
  EXPECT_EQ(keys[0], "pv: elementwise op=philox_unpack elems=1 arity=1 dtype=bf16 math=fp32 layout=-");
  EXPECT_EQ(keys[1], "pv: attention_fwd batch=2 heads=4 seq_q=16 seq_k=16 head_dim=8 mask=1 dtype=bf16 "
                     "math=bf16 layout=-");
  EXPECT_EQ(keys[2].substr(0, 18), "pv: attention_bwd ");
  o.dtype = DType::kFloat32;  // memory-efficient attention: no separate kernel
  lowered = LowerGraph(GuardedAttention(true), o);
  ASSERT_TRUE(lowered.ok());
  EXPECT_EQ(lowered->nodes.back().calls.size(), 2u);
}

TEST(FrameworkFusion, SdpaInTrainingKeepsTheOutputCopyAndAddsABackward) {
  LoweringOptions o;
  o.training = true;
  o.inputs_need_gradient = true;  // a block: its input is an activation
  auto lowered = LowerGraph(Attention(false), o);
  ASSERT_TRUE(lowered.ok());
  const auto& nodes = lowered->nodes;
  const size_t pv = nodes.size() - 3;  // pv, to, ro
  ASSERT_EQ(nodes[pv].calls.size(), 2u);
  EXPECT_EQ(nodes[pv].calls[1].kind, KernelKind::kAttentionBwd);
  // WorkOfKey's: per score 4 head_dim + 5 forward, 10 head_dim + 9 backward (head_dim 8).
  const double scores = nodes[pv].calls[0].flops / (4 * 8 + 5);
  EXPECT_DOUBLE_EQ(nodes[pv].calls[1].flops, scores * (10 * 8 + 9));
  EXPECT_FALSE(nodes[pv + 1].calls.empty());  // the output transpose is copied
}

// q, k, v unpacked from one projection, as `q, k, v = qkv.reshape(b, s, 3,
// h, d).permute(2, 0, 3, 1, 4)` exports: Reshape, Transpose, Split, Squeeze.
Graph PackedAttention() {
  GraphBuilder b;
  b.Input("x", {2, 16, 96}).Weight("s", {1});
  b.Op("Reshape", "r", {"x"}, "x5", {2, 16, 3, 4, 8});
  b.Op("Transpose", "t", {"x5"}, "qkv", {3, 2, 4, 16, 8});
  Node& split = b.Op("Split", "split", {"qkv"}, "q1", {1, 2, 4, 16, 8});
  b.ExtraOutput(split, "k1", {1, 2, 4, 16, 8}).ExtraOutput(split, "v1", {1, 2, 4, 16, 8});
  b.Op("Squeeze", "sq", {"q1"}, "q", {2, 4, 16, 8});
  b.Op("Squeeze", "sk", {"k1"}, "k", {2, 4, 16, 8});
  b.Op("Squeeze", "sv", {"v1"}, "v", {2, 4, 16, 8});
  b.Op("Transpose", "kt", {"k"}, "k_t", {2, 4, 8, 16});
  b.Op("Mul", "scale_q", {"q", "s"}, "qs", {2, 4, 16, 8});
  b.Op("Mul", "scale_k", {"k_t", "s"}, "ks", {2, 4, 8, 16});
  b.Op("MatMul", "qk", {"qs", "ks"}, "scores", {2, 4, 16, 16});
  b.Op("Softmax", "softmax", {"scores"}, "p", {2, 4, 16, 16});
  b.Op("MatMul", "pv", {"p", "v"}, "y", {2, 4, 16, 8});
  return b.Build({"y"});
}

TEST(FrameworkFusion, PackedQkvIsUnpackedByViewsInInference) {
  auto lowered = LowerGraph(PackedAttention(), LoweringOptions{});
  ASSERT_TRUE(lowered.ok()) << lowered.status().ToString();
  size_t calls = 0;
  for (const LoweredNode& n : lowered->nodes) calls += n.calls.size();
  EXPECT_EQ(calls, 1u);  // the attention alone: no transpose or split copy
}

TEST(FrameworkFusion, PackedQkvSplitIsACopyInTraining) {
  LoweringOptions o;
  o.training = true;
  o.inputs_need_gradient = true;  // a block: its input is an activation
  auto lowered = LowerGraph(PackedAttention(), o);
  ASSERT_TRUE(lowered.ok());
  const LoweredNode& split = lowered->nodes[2];
  ASSERT_EQ(split.name, "split");
  ASSERT_EQ(split.calls.size(), 2u);  // forward copy and the gradients' concat
  EXPECT_EQ(split.calls[0].kind, KernelKind::kCopy);
}

TEST(FrameworkFusion, EagerAttentionStaysSeparateKernels) {
  auto lowered = LowerGraph(Attention(true), LoweringOptions{});
  ASSERT_TRUE(lowered.ok());
  for (const LoweredNode& n : lowered->nodes) {
    for (const KernelCall& c : n.calls) EXPECT_NE(c.kind, KernelKind::kAttentionFwd) << n.name;
  }
}

// nn.GroupNorm(32, 64) on [2, 64, 16, 16] as torch.onnx writes it: Reshape
// to [2, 32, 512], InstanceNormalization, Reshape back, Mul by the weight,
// Add the bias.
Graph GroupNorm() {
  GraphBuilder b;
  b.Input("x", {2, 64, 16, 16}).Weight("groups", {3}, DType::kInt64).Weight("back", {4}, DType::kInt64);
  b.Weight("ones", {32}).Weight("zeros", {32}).Weight("gamma", {64, 1, 1}).Weight("beta", {64, 1, 1});
  b.Op("Reshape", "reshape", {"x", "groups"}, "r", {2, 32, 512});
  b.Op("InstanceNormalization", "norm", {"r", "ones", "zeros"}, "n", {2, 32, 512});
  b.Op("Reshape", "reshape_1", {"n", "back"}, "u", {2, 64, 16, 16});
  b.Op("Mul", "mul", {"u", "gamma"}, "m", {2, 64, 16, 16});
  b.Op("Add", "add", {"m", "beta"}, "y", {2, 64, 16, 16});
  return b.Build({"y"});
}

TEST(FrameworkFusion, ExportedGroupNormIsOneNormKernelThatSavesItsInput) {
  LoweringOptions o;
  o.training = true;
  auto lowered = LowerGraph(GroupNorm(), o);
  ASSERT_TRUE(lowered.ok());
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(lowered->nodes[i].calls.empty()) << lowered->nodes[i].name;
  const LoweredNode& add = lowered->nodes[4];
  ASSERT_EQ(add.calls.size(), 2u);
  EXPECT_EQ(add.calls[0].Key(), "groupnorm_fwd n=2 c=64 groups=32 hw=256 dtype=fp32 math=fp32 layout=-");
  EXPECT_DOUBLE_EQ(add.calls[0].bytes_read, 4.0 * 2 * 64 * 256 + 2 * 4.0 * 64);  // x; weight, bias
  EXPECT_EQ(add.calls[1].kind, KernelKind::kGroupNormBwd);
  EXPECT_EQ(add.fused_op, FusedOp::kGroupNorm);
  EXPECT_EQ(add.fused_inputs, std::vector<std::string>{"r"});
  EXPECT_EQ(add.fused_nodes, (std::vector<size_t>{0, 1, 2, 3, 4}));
}

TEST(FrameworkFusion, AReshapeIntoAnInstanceNormThatIsNoGroupingIsNotAGroupNorm) {
  GraphBuilder b;  // [2, 64, 16, 16] viewed as [128, 16, 16]: an instance norm per (n, c)
  b.Input("x", {2, 64, 16, 16}).Weight("s", {3}, DType::kInt64).Weight("back", {4}, DType::kInt64);
  b.Weight("ones", {16}).Weight("zeros", {16});
  b.Op("Reshape", "reshape", {"x", "s"}, "r", {128, 16, 16});
  b.Op("InstanceNormalization", "norm", {"r", "ones", "zeros"}, "n", {128, 16, 16});
  b.Op("Reshape", "reshape_1", {"n", "back"}, "y", {2, 64, 16, 16});
  auto lowered = LowerGraph(b.Build({"y"}), LoweringOptions{});
  ASSERT_TRUE(lowered.ok());
  ASSERT_EQ(lowered->nodes[1].calls.size(), 1u);
  EXPECT_EQ(lowered->nodes[1].calls[0].kind, KernelKind::kLayerNormFwd);
  EXPECT_EQ(lowered->nodes[2].fused_op, FusedOp::kNone);
}

TEST(FrameworkFusion, GroupNormWithoutItsAffineStillFusesTheReshapes) {
  GraphBuilder b;
  b.Input("x", {2, 64, 16, 16}).Weight("groups", {3}, DType::kInt64).Weight("back", {4}, DType::kInt64);
  b.Weight("ones", {32}).Weight("zeros", {32});
  b.Op("Reshape", "reshape", {"x", "groups"}, "r", {2, 32, 512});
  b.Op("InstanceNormalization", "norm", {"r", "ones", "zeros"}, "n", {2, 32, 512});
  b.Op("Reshape", "reshape_1", {"n", "back"}, "y", {2, 64, 16, 16});
  auto lowered = LowerGraph(b.Build({"y"}), LoweringOptions{});
  ASSERT_TRUE(lowered.ok());
  EXPECT_TRUE(lowered->nodes[1].calls.empty());
  ASSERT_EQ(lowered->nodes[2].calls.size(), 1u);
  EXPECT_DOUBLE_EQ(lowered->nodes[2].calls[0].bytes_read, 4.0 * 2 * 64 * 256);  // no weight, bias
  EXPECT_EQ(lowered->nodes[2].fused_op, FusedOp::kGroupNorm);
}

}  // namespace
}  // namespace dlsim
