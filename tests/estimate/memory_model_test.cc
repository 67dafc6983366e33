// The memory model: the peak of live blocks over the schedule, in exact bytes.
#include <gtest/gtest.h>

#include <limits>
#include <set>
#include <string>

#include "../ops/graph_builder.h"
#include "dlsim/estimate/estimator.h"
#include "dlsim/estimate/memory_model.h"
#include "dlsim/model/onnx_import.h"

namespace dlsim {
namespace {

using testing::GraphBuilder;

MemoryFootprint Peak(const Graph& graph, const MemoryOptions& options) {
  LoweringOptions lo;
  lo.training = options.training;
  lo.dtype = options.dtype;
  lo.autocast = options.autocast;
  auto lowered = LowerGraph(graph, lo);
  EXPECT_TRUE(lowered.ok()) << lowered.status().ToString();
  return PeakMemory(graph, *lowered, options);
}

TEST(MemoryModel, AllocatorRoundsBlocksTo512Bytes) {
  EXPECT_EQ(AllocatorBlockBytes(0), 0);
  EXPECT_EQ(AllocatorBlockBytes(1), 512);
  EXPECT_EQ(AllocatorBlockBytes(512), 512);
  EXPECT_EQ(AllocatorBlockBytes(513), 1024);
}

TEST(MemoryModel, InferenceFreesATensorAfterItsLastReader) {
  // x -> relu a -> sigmoid b -> add(a, b) c -> relu d: a lives until the add
  // reads it; at the add x, a, b and c are alive (4 KiB blocks each).
  GraphBuilder g;
  g.Input("x", {1, 1024});
  g.Op("Relu", "relu", {"x"}, "a", {1, 1024});
  g.Op("Sigmoid", "sigmoid", {"a"}, "b", {1, 1024});
  g.Op("Add", "add", {"a", "b"}, "c", {1, 1024});
  g.Op("Relu", "relu2", {"c"}, "d", {1, 1024});
  MemoryFootprint m = Peak(g.Build({"d"}), MemoryOptions{});
  EXPECT_EQ(m.weights_bytes, 0);
  EXPECT_EQ(m.activations_bytes, 4 * 4096);
  EXPECT_EQ(m.gradients_bytes, 0);
  EXPECT_EQ(m.optimizer_state_bytes, 0);
  EXPECT_EQ(m.peak_at, "forward add");
}

TEST(MemoryModel, InferenceRoundsEveryBlockAndCountsWeightsInTheirDtype) {
  // 100 elements: 400 bytes in fp32, a 512-byte block; 200 bytes in fp16,
  // also 512. The weight [100, 100] is 40000 bytes fp32 (40448 rounded),
  // 20000 fp16 (20480).
  GraphBuilder g;
  g.Input("x", {1, 100}).Weight("w", {100, 100});
  g.Op("MatMul", "mm", {"x", "w"}, "y", {1, 100});
  const Graph graph = g.Build({"y"});
  MemoryFootprint fp32 = Peak(graph, MemoryOptions{});
  EXPECT_EQ(fp32.weights_bytes, 40448);
  EXPECT_EQ(fp32.activations_bytes, 1024);
  MemoryOptions half;
  half.dtype = DType::kFloat16;
  MemoryFootprint fp16 = Peak(graph, half);
  EXPECT_EQ(fp16.weights_bytes, 20480);
  EXPECT_EQ(fp16.activations_bytes, 1024);
}

TEST(MemoryModel, ViewsShareTheirInputsBlock) {
  // A Reshape launches nothing: its output is the relu's block, which lives
  // until the sigmoid reads the view.
  GraphBuilder g;
  g.Input("x", {1, 1024});
  g.Op("Relu", "relu", {"x"}, "a", {1, 1024});
  Node& shape = g.Op("Constant", "shape", {}, "s", {2}, DType::kInt64);
  (void)shape;
  g.Op("Reshape", "view", {"a", "s"}, "v", {1024, 1});
  g.Op("Sigmoid", "sigmoid", {"v"}, "y", {1024, 1});
  MemoryFootprint m = Peak(g.Build({"y"}), MemoryOptions{});
  EXPECT_EQ(m.activations_bytes, 3 * 4096);  // x, a (= v), y
  EXPECT_EQ(m.peak_at, "forward sigmoid");
}

TEST(MemoryModel, TrainingKeepsWhatAutogradSavesAndPeaksInTheBackward) {
  // y = x @ w (saves x for w's gradient), r = relu(y) (saves r, not y).
  // Steps: mm 0, relu 1, relu' 2, mm' 3, optimizer 4. At mm' (step 3): x,
  // y's gradient (4 KiB each) and w's gradient (1 MiB); weights and
  // momentum (1 MiB each) throughout.
  GraphBuilder g;
  g.Input("x", {1, 1024}).Weight("w", {1024, 256});
  g.Op("MatMul", "mm", {"x", "w"}, "y", {1, 256});
  g.Op("Relu", "relu", {"y"}, "r", {1, 256});
  MemoryOptions o;
  o.training = true;
  MemoryFootprint m = Peak(g.Build({"r"}), o);
  EXPECT_EQ(m.weights_bytes, 1048576);
  EXPECT_EQ(m.optimizer_state_bytes, 1048576);
  EXPECT_EQ(m.gradients_bytes, 1048576);
  EXPECT_EQ(m.activations_bytes, 4096 + 1024);  // x and y's gradient
  EXPECT_EQ(m.peak_at, "backward mm");
}

// a = x + w1, then b = a * w2 (which saves a for w2's gradient) or
// b = a + w2 (which saves nothing). Steps: 0, 1, backward of b 2, of a 3,
// optimizer 4; every tensor is a 4 KiB block.
MemoryFootprint ProductOrSum(const std::string& op) {
  GraphBuilder g;
  g.Input("x", {1, 1024}).Weight("w1", {1, 1024}).Weight("w2", {1, 1024});
  g.Op("Add", "add", {"x", "w1"}, "a", {1, 1024});
  g.Op(op, "second", {"a", "w2"}, "b", {1, 1024});
  MemoryOptions o;
  o.training = true;
  return Peak(g.Build({"b"}), o);
}

TEST(MemoryModel, TrainingMulSavesItsInputAddDoesNot) {
  // Mul: at its backward x, a (saved), da, db and w2's gradient.
  MemoryFootprint mul = ProductOrSum("Mul");
  EXPECT_EQ(mul.weights_bytes, 8192);
  EXPECT_EQ(mul.activations_bytes, 4 * 4096);
  EXPECT_EQ(mul.gradients_bytes, 4096);
  EXPECT_EQ(mul.peak_at, "backward second");
  // Add: a was freed after the forward; x, da, db and w2's gradient.
  MemoryFootprint add = ProductOrSum("Add");
  EXPECT_EQ(add.activations_bytes, 3 * 4096);
  EXPECT_EQ(add.gradients_bytes, 4096);
  EXPECT_EQ(add.peak_at, "backward second");
}

MemoryFootprint ConvPeak(int64_t k, bool training, bool folded_batch_norm) {
  GraphBuilder g;
  g.Input("x", {1, 1, 32, 32}).Weight("w", {1, 1, k, k});
  Node& conv = g.Op("Conv", "conv", {"x", "w"}, "y", {1, 1, 32, 32});
  GraphBuilder::SetInts(conv, "kernel_shape", {k, k});
  GraphBuilder::SetInts(conv, "pads", {k / 2, k / 2, k / 2, k / 2});
  if (folded_batch_norm) GraphBuilder::SetInt(conv, kFoldedBatchNormAttr, 1);
  g.Op("Relu", "relu", {"y"}, "r", {1, 1, 32, 32});
  MemoryOptions o;
  o.training = training;
  return Peak(g.Build({"r"}), o);
}

MemoryFootprint ScaledMatMulPeak(const std::vector<int64_t>& scale_dims) {
  // h = x . w (1 KiB), y = h * c: training with SGD with momentum.
  GraphBuilder g;
  g.Input("x", {1, 1024}).Weight("w", {1024, 256}).Weight("c", scale_dims);
  g.Op("MatMul", "mm", {"x", "w"}, "h", {1, 256});
  g.Op("Mul", "scale", {"h", "c"}, "y", {1, 256});
  MemoryOptions o;
  o.training = true;
  return Peak(g.Build({"y"}), o);
}

TEST(MemoryModel, AOneElementInitializerOfArithmeticIsAConstant) {
  // c of one element read by a Mul is an exporter's constant (a scale): the
  // Mul keeps nothing and c has no gradient. At mm's backward: x (saved
  // for w's gradient, 4 KiB), h's gradient (1 KiB), w's and c's blocks.
  MemoryFootprint scalar = ScaledMatMulPeak({1});
  EXPECT_EQ(scalar.activations_bytes, 4096 + 1024);
  EXPECT_EQ(scalar.gradients_bytes, 1048576);
  EXPECT_EQ(scalar.optimizer_state_bytes, 1048576);
  // A per-channel c (256 elements) is a parameter: the Mul keeps h for c's
  // gradient until its backward, and c has a gradient and momentum.
  MemoryFootprint vector = ScaledMatMulPeak({256});
  EXPECT_EQ(vector.gradients_bytes, 1048576 + 1024);
  EXPECT_EQ(vector.optimizer_state_bytes, 1048576 + 1024);
}

MemoryFootprint TwoMatMulPeak(int zero_stage) {
  // x (4 KiB) . w1 (1 MiB) -> h (1 KiB) . w2 (256 KiB) -> y, SGD with
  // momentum, 4 data-parallel GPUs.
  GraphBuilder g;
  g.Input("x", {1, 1024}).Weight("w1", {1024, 256}).Weight("w2", {256, 256});
  g.Op("MatMul", "mm1", {"x", "w1"}, "h", {1, 256});
  g.Op("MatMul", "mm2", {"h", "w2"}, "y", {1, 256});
  MemoryOptions o;
  o.training = true;
  o.data_parallel_gpus = 4;
  o.zero_stage = zero_stage;
  return Peak(g.Build({"y"}), o);
}

TEST(MemoryModel, ZeroShardsTheOptimizerStateGradientsAndWeights) {
  // The peak is at mm1's backward: x (saved for w1's gradient) and h's
  // gradient (5 KiB); both weights' full gradients without ZeRO-2, and
  // DDP's buckets as large beside them.
  MemoryFootprint ddp = TwoMatMulPeak(0);
  EXPECT_EQ(ddp.weights_bytes, 1310720);
  EXPECT_EQ(ddp.optimizer_state_bytes, 1310720);
  EXPECT_EQ(ddp.gradients_bytes, 2 * 1310720);
  EXPECT_EQ(ddp.activations_bytes, 5120);
  EXPECT_EQ(ddp.peak_at, "backward mm1");
  MemoryFootprint one = TwoMatMulPeak(1);  // a quarter of the momentum
  EXPECT_EQ(one.optimizer_state_bytes, 327680);
  EXPECT_EQ(one.gradients_bytes, 2 * 1310720);
  // ZeRO-2 (FSDP's SHARD_GRAD_OP): w1's full gradient while its backward
  // runs, w2's quarter after its own (reduce-scattered), no DDP buckets;
  // the weights' quarter beside the gathered weights
  MemoryFootprint two = TwoMatMulPeak(2);
  EXPECT_EQ(two.gradients_bytes, 1048576 + 65536);
  EXPECT_EQ(two.weights_bytes, 1310720 + 327680);
  // ZeRO-3: a quarter of the weights, and w1 gathered in full for its backward
  EXPECT_EQ(TwoMatMulPeak(3).weights_bytes, 327680 + 1048576);
  EXPECT_EQ(TwoMatMulPeak(3).peak_at, "backward mm1");
}

TEST(MemoryModel, MaxPoolingSavesItsInputAndInt64Indices) {
  // a = x + w (4 KiB), 2x2 max pooling to 256 elements (1 KiB) with 256
  // int64 indices (2 KiB) saved beside a until the pooling's backward.
  // There: x, a, a's gradient, the indices and y's gradient.
  GraphBuilder g;
  g.Input("x", {1, 1, 32, 32}).Weight("w", {1, 1, 32, 32});
  g.Op("Add", "add", {"x", "w"}, "a", {1, 1, 32, 32});
  Node& pool = g.Op("MaxPool", "pool", {"a"}, "y", {1, 1, 16, 16});
  GraphBuilder::SetInts(pool, "kernel_shape", {2, 2});
  GraphBuilder::SetInts(pool, "strides", {2, 2});
  MemoryOptions o;
  o.training = true;
  MemoryFootprint m = Peak(g.Build({"y"}), o);
  EXPECT_EQ(m.activations_bytes, 3 * 4096 + 2048 + 1024);
  EXPECT_EQ(m.gradients_bytes, 0);
  EXPECT_EQ(m.peak_at, "backward pool");
}

MemoryFootprint DropoutPeak(double ratio) {
  // a = x + w (4 KiB), y = dropout(a) (4 KiB), z = y * v.
  GraphBuilder g;
  g.Input("x", {1, 1024}).Weight("w", {1, 1024}).Weight("ratio", {}).Weight("v", {1, 1024});
  g.Op("Add", "add", {"x", "w"}, "a", {1, 1024});
  g.Op("Dropout", "drop", {"a", "ratio"}, "y", {1, 1024});
  g.Op("Mul", "mul", {"y", "v"}, "z", {1, 1024});
  Graph graph = g.Build({"z"});
  graph.tensors["ratio"].value = TensorValue{true, {}, {ratio}};
  MemoryOptions o;
  o.training = true;
  return Peak(graph, o);
}

TEST(MemoryModel, TrainingDropoutSavesItsOneByteMask) {
  // The mask of 1024 elements, one byte each (a 1 KiB block), lives from
  // the forward until the dropout's backward; at ratio 0 nothing runs.
  MemoryFootprint none = DropoutPeak(0.0), dropped = DropoutPeak(0.1);
  EXPECT_EQ(dropped.activations_bytes - none.activations_bytes, 1024);
  EXPECT_EQ(dropped.peak_at, none.peak_at);
}

TEST(MemoryModel, AutocastKeepsFp32WeightsAndSavesTheCastCopies) {
  // bf16 autocast, y = x @ w: the matmul reads bf16 copies of x (2 KiB,
  // saved for w's gradient) and of w (512 KiB, in autocast's cache until the
  // forward ends; not saved, x needs no gradient). Weights, momentum and w's
  // gradient stay fp32 (1 MiB each). At the backward: x, its copy, the bf16
  // gradient of w's copy, y's gradient (512 bytes) and w's fp32 gradient.
  GraphBuilder g;
  g.Input("x", {1, 1024}).Weight("w", {1024, 256});
  g.Op("MatMul", "mm", {"x", "w"}, "y", {1, 256});
  MemoryOptions o;
  o.training = true;
  o.autocast = true;
  o.dtype = DType::kBFloat16;
  MemoryFootprint m = Peak(g.Build({"y"}), o);
  EXPECT_EQ(m.weights_bytes, 1048576);
  EXPECT_EQ(m.optimizer_state_bytes, 1048576);
  EXPECT_EQ(m.gradients_bytes, 1048576);
  EXPECT_EQ(m.activations_bytes, 4096 + 2048 + 524288 + 512);
  EXPECT_EQ(m.peak_at, "backward mm");
}

// a = x + w, then nn.GroupNorm(4, 8) of a as torch.onnx writes it (Reshape,
// InstanceNormalization, Reshape, Mul, Add); every activation is an 8 KiB
// block. PyTorch's group_norm saves a (not the normalised tensor the Mul
// reads), so at the group norm's backward (named by its last node): x, a,
// y's gradient and the gradient it writes for a.
TEST(MemoryModel, AnExportedGroupNormSavesOnlyItsInput) {
  GraphBuilder g;
  g.Input("x", {1, 8, 16, 16}).Weight("w", {1, 8, 16, 16});
  g.Weight("groups", {3}, DType::kInt64).Weight("back", {4}, DType::kInt64);
  g.Weight("ones", {4}).Weight("zeros", {4}).Weight("gamma", {8, 1, 1}).Weight("beta", {8, 1, 1});
  g.Op("Add", "add", {"x", "w"}, "a", {1, 8, 16, 16});
  g.Op("Reshape", "reshape", {"a", "groups"}, "r", {1, 4, 512});
  g.Op("InstanceNormalization", "norm", {"r", "ones", "zeros"}, "n", {1, 4, 512});
  g.Op("Reshape", "reshape_1", {"n", "back"}, "u", {1, 8, 16, 16});
  g.Op("Mul", "scale", {"u", "gamma"}, "m", {1, 8, 16, 16});
  g.Op("Add", "shift", {"m", "beta"}, "y", {1, 8, 16, 16});
  MemoryOptions o;
  o.training = true;
  MemoryFootprint m = Peak(g.Build({"y"}), o);
  EXPECT_EQ(m.activations_bytes, 4 * 8192);
  EXPECT_EQ(m.peak_at, "backward shift");
}

TEST(MemoryModel, ConvolutionsTakeAWorkspaceOfTheirInputAndOutput) {
  // x and y are 4 KiB blocks; a 3x3 convolution's workspace is 8 KiB while it runs.
  MemoryFootprint wide = ConvPeak(3, false, false);
  EXPECT_EQ(wide.activations_bytes, 2 * 4096);
  EXPECT_EQ(wide.workspace_bytes, 2 * 4096);
  EXPECT_EQ(wide.peak_at, "forward conv");
  MemoryFootprint pointwise = ConvPeak(1, false, false);
  EXPECT_EQ(pointwise.workspace_bytes, 0);
  EXPECT_EQ(pointwise.activations_bytes, 3 * 4096);  // x, y, r at the relu
  // Training: every convolution's backward takes one, 1x1 too. At the conv's
  // backward x, y's gradient, the 8 KiB workspace and w's gradient (512).
  MemoryFootprint backward = ConvPeak(1, true, false);
  EXPECT_EQ(backward.activations_bytes, 2 * 4096);
  EXPECT_EQ(backward.workspace_bytes, 2 * 4096);
  EXPECT_EQ(backward.gradients_bytes, 512);
  EXPECT_EQ(backward.peak_at, "backward conv");
}

TEST(MemoryModel, AFoldedBatchNormStillSavesTheConvolutionsOutputInTraining) {
  // Training, 1x1: at the relu x (saved by the conv), y and r; the folded
  // batch norm keeps one more 4 KiB block until the conv's backward.
  MemoryFootprint plain = ConvPeak(1, true, false);
  MemoryFootprint folded = ConvPeak(1, true, true);
  EXPECT_EQ(folded.total_bytes() - plain.total_bytes(), 4096);
}

TEST(MemoryModel, RecurrentLayersTakeCudnnsWorkspaceWhileTheyRun) {
  // One LSTM layer: sequence 4, batch 2, input 8, hidden 16. Weights W, R,
  // B: 2048 + 4096 + 512 bytes; Y: 128 elements (512 bytes). Workspace:
  // 8 MiB + the weights + half of 4 gates x 128 elements x 4 bytes.
  GraphBuilder g;
  g.Input("x", {4, 2, 8}).Weight("W", {1, 64, 8}).Weight("R", {1, 64, 16}).Weight("B", {1, 128});
  Node& lstm = g.Op("LSTM", "lstm", {"x", "W", "R", "B"}, "y", {4, 1, 2, 16});
  GraphBuilder::SetInt(lstm, "hidden_size", 16);
  MemoryFootprint m = Peak(g.Build({"y"}), MemoryOptions{});
  EXPECT_EQ(m.weights_bytes, 6656);
  EXPECT_EQ(m.activations_bytes, 512 + 512);
  EXPECT_EQ(m.workspace_bytes, 8388608 + 6656 + 1024);
}

// x + w, then four sigmoids (each saves its output); 4 KiB blocks. Five
// nodes launch kernels, so checkpoint segments hold at least three:
// {add, s1, s2} and {s3, s4}.
Result<EstimatePlan> SigmoidChainPlan(bool checkpoint) {
  GraphBuilder g;
  g.Input("x", {1, 1024}).Weight("w", {1, 1024});
  g.Op("Add", "add", {"x", "w"}, "a0", {1, 1024});
  g.Op("Sigmoid", "s1", {"a0"}, "a1", {1, 1024});
  g.Op("Sigmoid", "s2", {"a1"}, "a2", {1, 1024});
  g.Op("Sigmoid", "s3", {"a2"}, "a3", {1, 1024});
  g.Op("Sigmoid", "s4", {"a3"}, "a4", {1, 1024});
  EstimateOptions o;
  o.lowering.training = true;
  o.recompute = checkpoint ? Recompute::kFull : Recompute::kNone;
  return PlanEstimate(g.Build({"a4"}), o);
}

TEST(MemoryModel, CheckpointingKeepsOnlySegmentInputsAndRecomputesInTheBackward) {
  auto plain = SigmoidChainPlan(false);
  auto checkpointed = SigmoidChainPlan(true);
  ASSERT_TRUE(plain.ok() && checkpointed.ok());
  // Without: at s4's backward x, a1..a4 (saved) and the gradients of a4 and a3.
  EXPECT_EQ(plain->memory.activations_bytes, 7 * 4096);
  EXPECT_EQ(plain->memory.peak_at, "backward s4");
  // With: a1..a4 are freed in the forward; at s4's backward the second
  // segment's a3 and a4 are back (recomputed) beside x and two gradients.
  EXPECT_EQ(checkpointed->memory.activations_bytes, 5 * 4096);
  EXPECT_EQ(checkpointed->memory.peak_at, "backward s4");
  // Every forward call runs again in the backward.
  for (size_t i = 0; i < 5; ++i) {
    auto count = [&](const EstimatePlan& p, Phase phase) {
      size_t c = 0;
      for (const KernelCall& k : p.lowered.nodes[i].calls) c += k.phase == phase;
      return c;
    };
    EXPECT_EQ(count(*checkpointed, Phase::kBackward), count(*plain, Phase::kBackward) + count(*plain, Phase::kForward)) << i;
  }
}

// An eager attention core: q, kᵀ and v from weights, scores = q·kᵀ
// (1x32x32, 4 KiB), divided by a scalar, softmax p (4 KiB), o = p·v
// (1x32x64, 8 KiB), y = o·wo.
Result<EstimatePlan> AttentionPlan(Recompute recompute) {
  GraphBuilder g;
  g.Input("x", {1, 32, 64}).Input("xt", {1, 64, 32});
  g.Weight("wq", {64, 64}).Weight("wk", {32, 32}).Weight("wv", {64, 64}).Weight("wo", {64, 64});
  g.Weight("scale", {1});
  g.Op("MatMul", "q_proj", {"x", "wq"}, "q", {1, 32, 64});
  g.Op("MatMul", "k_proj", {"xt", "wk"}, "kt", {1, 64, 32});
  g.Op("MatMul", "v_proj", {"x", "wv"}, "v", {1, 32, 64});
  g.Op("MatMul", "scores", {"q", "kt"}, "s", {1, 32, 32});
  g.Op("Div", "scale_div", {"s", "scale"}, "d", {1, 32, 32});
  g.Op("Softmax", "softmax", {"d"}, "p", {1, 32, 32});
  g.Op("MatMul", "attend", {"p", "v"}, "o", {1, 32, 64});
  g.Op("MatMul", "out_proj", {"o", "wo"}, "y", {1, 32, 64});
  EstimateOptions o;
  o.lowering.training = true;
  o.recompute = recompute;
  return PlanEstimate(g.Build({"y"}), o);
}

TEST(MemoryModel, SelectiveRecomputationDropsTheSavedScoresAndRecomputesTheCore) {
  auto plain = AttentionPlan(Recompute::kNone);
  auto selective = AttentionPlan(Recompute::kSelective);
  ASSERT_TRUE(plain.ok() && selective.ok());
  // At out_proj's backward: x, xt, q, kt, v (saved), o (saved), y and y's
  // gradient, 8 KiB each, and without recomputation the softmax's p (saved
  // by the softmax and by attend); with it, p comes back only in the core's
  // backward.
  EXPECT_EQ(plain->memory.activations_bytes, 8 * 8192 + 4096);
  EXPECT_EQ(selective->memory.activations_bytes, 8 * 8192);
  EXPECT_EQ(plain->memory.peak_at, "backward out_proj");
  EXPECT_EQ(selective->memory.peak_at, "backward out_proj");
  // The core (scores, scale_div, softmax, attend) runs its forward again in
  // the backward; the projections do not.
  const std::set<std::string> core = {"scores", "scale_div", "softmax", "attend"};
  for (size_t i = 0; i < plain->lowered.nodes.size(); ++i) {
    auto count = [&](const EstimatePlan& p, Phase phase) {
      size_t c = 0;
      for (const KernelCall& k : p.lowered.nodes[i].calls) c += k.phase == phase;
      return c;
    };
    const size_t again = core.count(plain->lowered.nodes[i].name) != 0 ? count(*plain, Phase::kForward) : 0;
    EXPECT_EQ(count(*selective, Phase::kBackward), count(*plain, Phase::kBackward) + again)
        << plain->lowered.nodes[i].name;
  }
  EXPECT_TRUE(selective->lowered.warnings.empty());
}

TEST(MemoryModel, SelectiveRecomputationWithoutAnAttentionCoreWarns) {
  EstimateOptions o;
  o.lowering.training = true;
  o.recompute = Recompute::kSelective;
  GraphBuilder g;
  g.Input("x", {1, 1024}).Weight("w", {1, 1024});
  g.Op("Add", "add", {"x", "w"}, "a0", {1, 1024});
  auto selective = PlanEstimate(g.Build({"a0"}), o);
  ASSERT_TRUE(selective.ok());
  ASSERT_EQ(selective->lowered.warnings.size(), 1u);
  EXPECT_NE(selective->lowered.warnings[0].find("no attention core"), std::string::npos);
}

TEST(MemoryModel, TheLargestBatchScalesTheLargestActivationsNotThoseAtThePeak) {
  // At batch 10 the peak (near the optimizer: weights 10 GB, gradients 5 GB,
  // activations 1 GB) is not where activations peak (20 GB): at a larger
  // batch it moves there. Fixed 15 GB, 2 GB a sample: 32 fit in 80 GB.
  MemoryFootprint m;
  m.weights_bytes = 10e9;
  m.gradients_bytes = 5e9;
  m.activations_bytes = 1e9;
  m.activations_max_bytes = 20e9;
  EXPECT_EQ(LargestBatchThatFits(m, 10, 80e9), 32);
  // 512 bytes of activations at a batch of 2^31 on 1e15 bytes: beyond
  // int64, capped rather than cast
  MemoryFootprint tiny;
  tiny.activations_max_bytes = 512;
  EXPECT_EQ(LargestBatchThatFits(tiny, int64_t{1} << 31, 1e15), std::numeric_limits<int64_t>::max());
}

TEST(MemoryModel, OutOfMemoryWarningGivesTheBreakdownAndTheLargestBatch) {
  Estimate e;
  e.machine = "h100";
  e.mode = Mode::kTraining;
  e.batch = 10;
  e.memory.weights_bytes = 40e9;
  e.memory.activations_bytes = 60e9;
  e.memory.peak_at = "backward mm";
  EXPECT_EQ(OutOfMemoryWarning(e, 100e9), "");
  const std::string w = OutOfMemoryWarning(e, 80e9);
  EXPECT_NE(w.find("footprint 100.0 GB exceeds h100's memory 80.0 GB"), std::string::npos) << w;
  EXPECT_NE(w.find("activations 60.0 GB"), std::string::npos) << w;
  EXPECT_NE(w.find("The largest batch that fits is 6"), std::string::npos) << w;
  EXPECT_NE(w.find("activation checkpointing"), std::string::npos) << w;
}

}  // namespace
}  // namespace dlsim
