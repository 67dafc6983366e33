#include "dlsim/ops/lowering.h"

#include <gtest/gtest.h>

#include "dlsim/model/onnx_import.h"
#include "graph_builder.h"

namespace dlsim {
namespace {

using testing::GraphBuilder;

Graph ConvRelu(bool bias) {
  GraphBuilder b;
  b.Input("x", {16, 64, 56, 56}).Weight("w", {128, 64, 3, 3}).Weight("bias", {128});
  Node& conv = b.Op("Conv", "conv", {"x", "w", bias ? "bias" : ""}, "y", {16, 128, 28, 28});
  GraphBuilder::SetInts(conv, "pads", {1, 1, 1, 1});
  GraphBuilder::SetInts(conv, "strides", {2, 2});
  GraphBuilder::SetInts(conv, "kernel_shape", {3, 3});
  b.Op("Relu", "relu", {"y"}, "z", {16, 128, 28, 28});
  return b.Build({"z"});
}

// A permutation read by a pointwise op is a view (PyTorch's elementwise
// kernels take any strides); read by a MatMul it is copied.
TEST(LoweringTest, TransposeIntoPointwiseIsAView) {
  for (const char* reader : {"Mul", "MatMul"}) {
    GraphBuilder b;
    b.Input("x", {8, 56, 56, 96}).Weight("w", {8, 96, 56, 56});
    GraphBuilder::SetInts(b.Op("Transpose", "t", {"x"}, "y", {8, 96, 56, 56}), "perm", {0, 3, 1, 2});
    b.Op(reader, "r", {"y", "w"}, "z", {8, 96, 56, 56});
    auto lowered = LowerGraph(b.Build({"z"}), LoweringOptions{});
    ASSERT_TRUE(lowered.ok()) << lowered.status().ToString();
    EXPECT_EQ(lowered->nodes[0].calls.size(), std::string(reader) == "Mul" ? 0u : 1u) << reader;
  }
}

// q, k, v = qkv.permute(2, 0, 3, 1, 4)[0], [1], [2] as the export writes
// it: a Transpose read by three Gathers of one slice, each read by an Add.
Graph PermuteThenSelects() {
  GraphBuilder b;
  b.Input("x", {2, 16, 3, 4, 8}).Weight("i0", {}, DType::kInt64).Weight("i1", {}, DType::kInt64);
  GraphBuilder::SetInts(b.Op("Transpose", "t", {"x"}, "qkv", {3, 2, 4, 16, 8}), "perm",
                        {2, 0, 3, 1, 4});
  b.Op("Gather", "q", {"qkv", "i0"}, "q_out", {2, 4, 16, 8});
  b.Op("Gather", "k", {"qkv", "i1"}, "k_out", {2, 4, 16, 8});
  b.Op("Add", "sum", {"q_out", "k_out"}, "y", {2, 4, 16, 8});
  return b.Build({"y"});
}

TEST(LoweringTest, SelectsOfAPermuteAreViewsInInference) {
  auto lowered = LowerGraph(PermuteThenSelects(), LoweringOptions{});
  ASSERT_TRUE(lowered.ok()) << lowered.status().ToString();
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_TRUE(lowered->nodes[i].calls.empty()) << lowered->nodes[i].name;
  }
  EXPECT_EQ(lowered->nodes[3].calls.size(), 1u);  // the Add
}

TEST(LoweringTest, SelectsOfAPermuteAreCopiesInTraining) {
  LoweringOptions o;
  o.training = true;
  o.inputs_need_gradient = true;  // a block: its input is an activation
  auto lowered = LowerGraph(PermuteThenSelects(), o);
  ASSERT_TRUE(lowered.ok()) << lowered.status().ToString();
  // fwd and bwd; the permute also sums the gradients of its two readers
  EXPECT_EQ(lowered->nodes[0].calls.size(), 3u);
  for (size_t i = 1; i < 3; ++i) {
    EXPECT_EQ(lowered->nodes[i].calls.size(), 2u) << lowered->nodes[i].name;
  }
}

TEST(LoweringTest, ConvFlopsAndBytesEqualFormula) {
  Graph g = ConvRelu(false);
  auto lowered = LowerGraph(g, LoweringOptions{});
  ASSERT_TRUE(lowered.ok()) << lowered.status().ToString();
  const KernelCall& conv = lowered->nodes[0].calls.at(0);
  EXPECT_EQ(conv.kind, KernelKind::kConvFwd);
  EXPECT_DOUBLE_EQ(conv.flops, 2.0 * 16 * 128 * 28 * 28 * 64 * 3 * 3);
  EXPECT_DOUBLE_EQ(conv.bytes_read, 4.0 * (16 * 64 * 56 * 56 + 128 * 64 * 3 * 3));
  EXPECT_DOUBLE_EQ(conv.bytes_written, 4.0 * 16 * 128 * 28 * 28);
  EXPECT_EQ(conv.math, MathMode::kTf32);  // PyTorch default for fp32 convs
  EXPECT_EQ(conv.Key(),
            "conv_fwd n=16 c=64 h=56 w=56 k=128 r=3 s=3 pad_h=1 pad_w=1 stride_h=2 "
            "stride_w=2 dil_h=1 dil_w=1 groups=1 dtype=fp32 math=tf32 layout=nchw");
  ASSERT_EQ(lowered->nodes[1].calls.size(), 1u);
  EXPECT_EQ(lowered->nodes[1].calls[0].kind, KernelKind::kElementwise);
}

TEST(LoweringTest, ConvBiasAddsSeparateKernelUnlessFused) {
  Graph g = ConvRelu(true);
  auto plain = LowerGraph(g, LoweringOptions{});
  ASSERT_TRUE(plain.ok());
  ASSERT_EQ(plain->nodes[0].calls.size(), 2u);
  EXPECT_EQ(plain->nodes[0].calls[1].StrParam("op", ""), "bias_add");
  LoweringOptions fused_opts;
  fused_opts.fuse_conv_bias_act = true;
  auto fused = LowerGraph(g, fused_opts);
  ASSERT_TRUE(fused.ok());
  ASSERT_EQ(fused->nodes[0].calls.size(), 1u);
  EXPECT_EQ(fused->nodes[0].calls[0].kind, KernelKind::kConvBiasAct);
  EXPECT_TRUE(fused->nodes[1].calls.empty());  // the Relu is folded in
}

TEST(LoweringTest, NoFusionWhenConvOutputHasOtherConsumers) {
  GraphBuilder b;
  b.Input("x", {1, 8, 8, 8}).Weight("w", {8, 8, 1, 1});
  b.Op("Conv", "conv", {"x", "w"}, "y", {1, 8, 8, 8});
  b.Op("Relu", "relu", {"y"}, "z", {1, 8, 8, 8});
  b.Op("Add", "add", {"y", "z"}, "s", {1, 8, 8, 8});
  Graph g = b.Build({"s"});
  LoweringOptions o;
  o.fuse_conv_bias_act = true;
  auto lowered = LowerGraph(g, o);
  ASSERT_TRUE(lowered.ok());
  EXPECT_EQ(lowered->nodes[0].calls[0].kind, KernelKind::kConvFwd);
  EXPECT_EQ(lowered->nodes[1].calls.size(), 1u);
}

TEST(LoweringTest, TrainingConvAddsDgradAndWgradWithForwardFlops) {
  Graph g = ConvRelu(false);
  LoweringOptions o;
  o.training = true;
  o.inputs_need_gradient = true;  // a block: its input is an activation
  auto lowered = LowerGraph(g, o);
  ASSERT_TRUE(lowered.ok());
  const auto& calls = lowered->nodes[0].calls;
  ASSERT_EQ(calls.size(), 3u);
  EXPECT_EQ(calls[1].kind, KernelKind::kConvBwdData);
  EXPECT_EQ(calls[2].kind, KernelKind::kConvBwdFilter);
  EXPECT_DOUBLE_EQ(calls[1].flops + calls[2].flops, 2 * calls[0].flops);
}

// A whole model's input carries no gradient: PyTorch runs no data gradient
// for the convolution that reads it, only the weight gradient.
TEST(LoweringTest, ConvOnTheModelInputHasNoDataGradient) {
  LoweringOptions o;
  o.training = true;
  auto lowered = LowerGraph(ConvRelu(false), o);
  ASSERT_TRUE(lowered.ok());
  const auto& calls = lowered->nodes[0].calls;
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0].kind, KernelKind::kConvFwd);
  EXPECT_EQ(calls[1].kind, KernelKind::kConvBwdFilter);
  EXPECT_DOUBLE_EQ(calls[1].flops, calls[0].flops);
}

// Nodes that prepare the input (a scale before the first layer) carry no
// gradient: no backward at all. The layer's output does.
TEST(LoweringTest, NodesOnTheInputAloneRunNoBackward) {
  GraphBuilder b;
  b.Input("x", {16, 64, 56, 56}).Weight("w", {128, 64, 3, 3}).Weight("s", {1});
  b.Op("Mul", "scale", {"x", "s"}, "xs", {16, 64, 56, 56});
  Node& conv = b.Op("Conv", "conv", {"xs", "w"}, "y", {16, 128, 56, 56});
  GraphBuilder::SetInts(conv, "pads", {1, 1, 1, 1});
  GraphBuilder::SetInts(conv, "kernel_shape", {3, 3});
  b.Op("Relu", "relu", {"y"}, "z", {16, 128, 56, 56});
  LoweringOptions o;
  o.training = true;
  auto lowered = LowerGraph(b.Build({"z"}), o);
  ASSERT_TRUE(lowered.ok()) << lowered.status().ToString();
  ASSERT_EQ(lowered->nodes[0].calls.size(), 1u);  // the scale's forward alone
  EXPECT_EQ(lowered->nodes[0].calls[0].phase, Phase::kForward);
  ASSERT_EQ(lowered->nodes[1].calls.size(), 2u);  // fprop, wgrad
  EXPECT_EQ(lowered->nodes[2].calls.size(), 2u);  // relu and its backward
}

// x -> Dropout(ratio) -> Relu, as a training-mode export writes it.
Graph DropoutRelu(double ratio) {
  GraphBuilder b;
  b.Input("x", {8, 128, 64}).Weight("w", {64}).Weight("ratio", {});
  b.Op("Mul", "scale", {"x", "w"}, "xs", {8, 128, 64});
  Node& drop = b.Op("Dropout", "drop", {"xs", "ratio"}, "y", {8, 128, 64});
  b.ExtraOutput(drop, "mask", {8, 128, 64}, DType::kBool);
  b.Op("Relu", "relu", {"y"}, "z", {8, 128, 64});
  Graph g = b.Build({"z"});
  g.tensors["ratio"].value = TensorValue{true, {}, {ratio}};
  return g;
}

TEST(LoweringTest, DropoutRunsInTrainingOnly) {
  auto inference = LowerGraph(DropoutRelu(0.1), LoweringOptions{});
  ASSERT_TRUE(inference.ok()) << inference.status().ToString();
  EXPECT_TRUE(inference->nodes[1].calls.empty());
  LoweringOptions o;
  o.training = true;
  auto training = LowerGraph(DropoutRelu(0.1), o);
  ASSERT_TRUE(training.ok()) << training.status().ToString();
  const std::vector<KernelCall>& calls = training->nodes[1].calls;
  ASSERT_EQ(calls.size(), 2u);
  const double elems = 8 * 128 * 64;
  EXPECT_EQ(calls[0].Key(), "elementwise op=dropout elems=65536 arity=1 dtype=fp32 math=fp32 layout=-");
  EXPECT_EQ(calls[0].phase, Phase::kForward);
  EXPECT_DOUBLE_EQ(calls[0].bytes_read, 4 * elems);
  EXPECT_DOUBLE_EQ(calls[0].bytes_written, 4 * elems + elems);  // output and one-byte mask
  EXPECT_EQ(calls[1].StrParam("op", ""), "dropout_bwd");
  EXPECT_EQ(calls[1].phase, Phase::kBackward);
  EXPECT_DOUBLE_EQ(calls[1].bytes_read, 4 * elems + elems);
  EXPECT_DOUBLE_EQ(calls[1].bytes_written, 4 * elems);
  auto zero = LowerGraph(DropoutRelu(0.0), o);  // PyTorch returns the input
  ASSERT_TRUE(zero.ok());
  EXPECT_TRUE(zero->nodes[1].calls.empty());
}

// x [4, 96] -> MatMul(w) -> h, read by Slices of axis 1 at `cuts` (as the
// dynamo exporter writes qkv.chunk(3, -1)), each piece scaled by a Relu.
Graph SlicedProjection(const std::vector<int64_t>& cuts) {
  GraphBuilder b;
  b.Input("x", {4, 96}).Weight("w", {96, 96}).Weight("axis", {1}, DType::kInt64);
  b.Op("MatMul", "mm", {"x", "w"}, "h", {4, 96});
  Graph g;
  for (size_t i = 0; i + 1 < cuts.size(); ++i) {
    const std::string n = std::to_string(i);
    b.Weight("begin" + n, {1}, DType::kInt64).Weight("end" + n, {1}, DType::kInt64);
    b.Op("Slice", "slice" + n, {"h", "begin" + n, "end" + n, "axis"}, "piece" + n, {4, cuts[i + 1] - cuts[i]});
    b.Op("Relu", "relu" + n, {"piece" + n}, "y" + n, {4, cuts[i + 1] - cuts[i]});
  }
  std::vector<std::string> outs;
  for (size_t i = 0; i + 1 < cuts.size(); ++i) outs.push_back("y" + std::to_string(i));
  g = b.Build(outs);
  g.tensors["axis"].value = TensorValue{false, {1}, {}};
  for (size_t i = 0; i + 1 < cuts.size(); ++i) {
    g.tensors["begin" + std::to_string(i)].value = TensorValue{false, {cuts[i]}, {}};
    g.tensors["end" + std::to_string(i)].value = TensorValue{false, {cuts[i + 1]}, {}};
  }
  return g;
}

std::vector<std::string> BackwardCopies(const LoweredGraph& lowered) {
  std::vector<std::string> out;
  for (const LoweredNode& n : lowered.nodes) {
    for (const KernelCall& c : n.calls) {
      if (c.kind == KernelKind::kCopy && c.phase == Phase::kBackward) out.push_back(n.name + ": " + c.Key());
    }
  }
  return out;
}

// Autograd concatenates the gradients of a chunk's pieces in one kernel;
// slices that do not cover the axis each zero-fill and copy theirs.
TEST(LoweringTest, SlicesThatChunkAnAxisHaveOneConcatenatingBackward) {
  LoweringOptions o;
  o.training = true;
  auto chunk = LowerGraph(SlicedProjection({0, 32, 64, 96}), o);
  ASSERT_TRUE(chunk.ok()) << chunk.status().ToString();
  std::vector<std::string> bwd = BackwardCopies(*chunk);
  ASSERT_EQ(bwd.size(), 1u);
  EXPECT_EQ(bwd[0], "slice0: copy op=split_bwd elems=384 dtype=fp32 math=fp32 layout=-");
  auto partial = LowerGraph(SlicedProjection({0, 32, 64}), o);
  ASSERT_TRUE(partial.ok());
  bwd = BackwardCopies(*partial);
  ASSERT_EQ(bwd.size(), 2u);
  EXPECT_EQ(bwd[1], "slice1: copy op=slice_bwd elems=128 dtype=fp32 math=fp32 layout=-");
}

// Stochastic depth as a training-mode export writes it: r = RandomUniformLike(s)
// of a per-sample shape s derived from x, then x * Floor(r + keep).
TEST(LoweringTest, RandomTensorIsOneKernelWithoutGradient) {
  GraphBuilder b;
  b.Input("x", {8, 16, 64}).Weight("w", {64}).Weight("keep", {});
  b.Op("Mul", "scale", {"x", "w"}, "xs", {8, 16, 64});
  b.Op("ReduceMean", "pick", {"xs"}, "s", {8, 1, 1});
  b.Op("RandomUniformLike", "rand", {"s"}, "r", {8, 1, 1});
  b.Op("Add", "shift", {"r", "keep"}, "rk", {8, 1, 1});
  b.Op("Floor", "floor", {"rk"}, "m", {8, 1, 1});
  b.Op("Mul", "drop", {"xs", "m"}, "y", {8, 16, 64});
  LoweringOptions o;
  o.training = true;
  auto lowered = LowerGraph(b.Build({"y"}), o);
  ASSERT_TRUE(lowered.ok()) << lowered.status().ToString();
  const std::vector<KernelCall>& rand = lowered->nodes[2].calls;
  ASSERT_EQ(rand.size(), 1u);
  EXPECT_EQ(rand[0].Key(), "elementwise op=randomuniformlike elems=8 arity=1 dtype=fp32 math=fp32 layout=-");
  EXPECT_DOUBLE_EQ(rand[0].bytes_read, 0);
  EXPECT_DOUBLE_EQ(rand[0].bytes_written, 8 * 4);
  EXPECT_EQ(lowered->nodes[3].calls.size(), 1u);  // the mask's arithmetic: forward only
  EXPECT_EQ(lowered->nodes[4].calls.size(), 1u);
}

// The dynamo exporter folds a batch norm into the convolution before it
// (FuseBatchNormIntoConv, its bias the batch norm's shift); PyTorch still
// runs the convolution without bias, then the batch norm.
Graph FoldedConvRelu() {
  Graph g = ConvRelu(true);
  g.nodes[0].attrs[kFoldedBatchNormAttr].i = 1;
  return g;
}

TEST(LoweringTest, AFoldedBatchNormRunsAfterTheConvolutionNotItsBias) {
  auto lowered = LowerGraph(FoldedConvRelu(), LoweringOptions{});
  ASSERT_TRUE(lowered.ok()) << lowered.status().ToString();
  const auto& calls = lowered->nodes[0].calls;
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0].kind, KernelKind::kConvFwd);
  EXPECT_EQ(calls[1].Key(), "batchnorm_infer n=16 c=128 h=28 w=28 dtype=fp32 math=fp32 layout=nchw");
  EXPECT_DOUBLE_EQ(calls[1].bytes_read, 4.0 * 16 * 128 * 28 * 28 + 4 * 4 * 128);
  EXPECT_DOUBLE_EQ(calls[1].bytes_written, 4.0 * 16 * 128 * 28 * 28);
  LoweringOptions fused;  // no Conv+Relu fusion across the batch norm
  fused.fuse_conv_bias_act = true;
  auto unfused = LowerGraph(FoldedConvRelu(), fused);
  ASSERT_TRUE(unfused.ok());
  EXPECT_EQ(unfused->nodes[0].calls[0].kind, KernelKind::kConvFwd);
  EXPECT_EQ(unfused->nodes[1].calls.size(), 1u);
}

TEST(LoweringTest, AFoldedBatchNormTrainsBeforeTheConvolutionsBackward) {
  LoweringOptions o;
  o.training = true;
  o.inputs_need_gradient = true;  // a block: its input is an activation
  auto lowered = LowerGraph(FoldedConvRelu(), o);
  ASSERT_TRUE(lowered.ok());
  const auto& calls = lowered->nodes[0].calls;
  ASSERT_EQ(calls.size(), 6u);
  EXPECT_EQ(calls[0].kind, KernelKind::kConvFwd);
  EXPECT_EQ(calls[1].StrParam("op", ""), "add");  // num_batches_tracked
  EXPECT_EQ(calls[2].kind, KernelKind::kBatchNormTrainFwd);
  EXPECT_EQ(calls[3].kind, KernelKind::kBatchNormBwd);
  EXPECT_EQ(calls[4].kind, KernelKind::kConvBwdData);
  EXPECT_EQ(calls[5].kind, KernelKind::kConvBwdFilter);  // and no bias gradient
}

// The loss runs on the node writing the graph's first output: forward after
// its forward, backward before its backward, each call an op of its own.
TEST(LoweringTest, TheMeanLossRunsBetweenTheOutputsForwardAndBackward) {
  LoweringOptions o;
  o.training = true;
  o.loss = Loss::kMean;
  auto lowered = LowerGraph(ConvRelu(false), o);
  ASSERT_TRUE(lowered.ok()) << lowered.status().ToString();
  const auto& relu = lowered->nodes[1].calls;
  ASSERT_EQ(relu.size(), 5u);
  EXPECT_EQ(relu[0].StrParam("op", ""), "relu");
  EXPECT_EQ(relu[1].Key(), "reduction op=mean rows=1 cols=1605632 dtype=fp32 math=fp32 layout=-");
  EXPECT_DOUBLE_EQ(relu[1].bytes_read, 4.0 * 1605632);
  EXPECT_EQ(relu[2].Key(), "elementwise op=fill elems=1 arity=1 dtype=fp32 math=fp32 layout=-");
  EXPECT_EQ(relu[3].Key(),
            "elementwise op=reduce_mean_bwd elems=1605632 arity=1 dtype=fp32 math=fp32 layout=-");
  EXPECT_DOUBLE_EQ(relu[3].bytes_written, 4.0 * 1605632);
  EXPECT_EQ(relu[4].StrParam("op", ""), "relu_bwd");
  EXPECT_EQ(relu[1].phase, Phase::kForward);
  EXPECT_EQ(relu[2].phase, Phase::kBackward);
  for (int i : {1, 2, 3}) EXPECT_TRUE(relu[i].own_op) << i;
  EXPECT_FALSE(relu[0].own_op);
  o.training = false;  // inference has no loss
  EXPECT_EQ(LowerGraph(ConvRelu(false), o)->nodes[1].calls.size(), 1u);
}

TEST(LoweringTest, ALossOverA16BitOutputCastsItUpAndItsGradientBack) {
  LoweringOptions o;
  o.training = true;
  o.loss = Loss::kMean;
  SetPrecision(Precision::kBf16, &o);
  auto lowered = LowerGraph(ConvRelu(false), o);
  ASSERT_TRUE(lowered.ok());
  const auto& relu = lowered->nodes[1].calls;
  ASSERT_EQ(relu.size(), 7u);
  EXPECT_EQ(relu[1].Key(), "copy op=cast elems=1605632 dtype=bf16 math=fp32 layout=-");
  EXPECT_EQ(relu[2].StrParam("op", ""), "mean");
  EXPECT_EQ(relu[5].Key(), "copy op=cast_bwd elems=1605632 dtype=fp32 math=fp32 layout=-");
  EXPECT_DOUBLE_EQ(relu[5].bytes_written, 2.0 * 1605632);
  EXPECT_EQ(relu[6].StrParam("op", ""), "relu_bwd");
}

// Autograd sums the gradients of a tensor several ops read: a residual
// branch's input (read by the MatMul and the Add) gets one add, before its
// producer's backward; a tied weight read twice gets one in fp32 on its
// first reader; a comparison passes no gradient and a graph input needs none.
std::vector<std::string> GradientSums(const LoweredNode& node) {
  std::vector<std::string> keys;
  for (const KernelCall& c : node.calls) {
    if (c.phase == Phase::kBackward && c.StrParam("op", "") == "add") {
      keys.push_back(c.Key());
    }
  }
  return keys;
}

TEST(LoweringTest, GradientsOfATensorReadTwiceAreSummed) {
  GraphBuilder b;
  b.Input("x", {64, 256}).Weight("w", {256, 256}).Weight("w2", {256, 256});
  b.Op("MatMul", "mm", {"x", "w"}, "h", {64, 256});
  b.Op("MatMul", "branch", {"h", "w2"}, "r", {64, 256});
  b.Op("Add", "residual", {"h", "r"}, "y", {64, 256});
  b.Op("Greater", "gt", {"y", "x"}, "mask", {64, 256}, DType::kBool);
  b.Op("MatMul", "tied", {"y", "w"}, "z", {64, 256});
  b.Op("Add", "x2", {"x", "x"}, "x_twice", {64, 256});
  LoweringOptions o;
  o.training = true;
  auto lowered = LowerGraph(b.Build({"z", "mask", "x_twice"}), o);
  ASSERT_TRUE(lowered.ok()) << lowered.status().ToString();
  // w: read by mm and tied (a 256x256 weight); h: by branch and residual.
  EXPECT_EQ(GradientSums(lowered->nodes[0]),
            (std::vector<std::string>{
                "elementwise op=add elems=65536 arity=2 dtype=fp32 math=fp32 layout=-",
                "elementwise op=add elems=16384 arity=2 dtype=fp32 math=fp32 layout=-"}));
  const auto& mm = lowered->nodes[0].calls;
  auto first_bwd = std::find_if(mm.begin(), mm.end(),
                                [](const KernelCall& c) { return c.phase == Phase::kBackward; });
  ASSERT_NE(first_bwd, mm.end());
  EXPECT_EQ(first_bwd->StrParam("op", ""), "add");  // the sums run before mm's own backward
  EXPECT_FALSE(first_bwd->own_op);  // the autograd engine adds without a framework op
  // y: read by gt (no gradient) and tied only; x: a graph input.
  for (size_t i = 1; i < lowered->nodes.size(); ++i) {
    EXPECT_TRUE(GradientSums(lowered->nodes[i]).empty()) << lowered->nodes[i].name;
  }
  o.training = false;
  auto inference = LowerGraph(b.Build({"z", "mask", "x_twice"}), o);
  ASSERT_TRUE(inference.ok());
  EXPECT_TRUE(GradientSums(inference->nodes[0]).empty());
}

// The nodes of a fused GELU read its input once, and the tensors between
// them do not exist: no sums.
TEST(LoweringTest, AFusedGeluReadsItsInputOnce) {
  GraphBuilder b;
  b.Input("in", {8, 3072}).Weight("w", {3072, 3072});
  b.Weight("sqrt2", {}).Weight("one", {}).Weight("half", {});
  b.Op("MatMul", "mm", {"in", "w"}, "x", {8, 3072});
  b.Op("Div", "div", {"x", "sqrt2"}, "d", {8, 3072});
  b.Op("Erf", "erf", {"d"}, "e", {8, 3072});
  b.Op("Add", "add", {"e", "one"}, "a", {8, 3072});
  b.Op("Mul", "mul", {"x", "a"}, "m", {8, 3072});
  b.Op("Mul", "mul_1", {"m", "half"}, "y", {8, 3072});
  LoweringOptions o;
  o.training = true;
  auto lowered = LowerGraph(b.Build({"y"}), o);
  ASSERT_TRUE(lowered.ok()) << lowered.status().ToString();
  for (const LoweredNode& node : lowered->nodes) {
    EXPECT_TRUE(GradientSums(node).empty()) << node.name;
  }
}

TEST(LoweringTest, CrossEntropyRunsOverTheLastAxis) {
  GraphBuilder b;
  b.Input("x", {8, 128, 768}).Weight("w", {768, 1000});
  b.Op("MatMul", "head", {"x", "w"}, "logits", {8, 128, 1000});
  LoweringOptions o;
  o.training = true;
  o.loss = Loss::kCrossEntropy;
  auto lowered = LowerGraph(b.Build({"logits"}), o);
  ASSERT_TRUE(lowered.ok());
  std::vector<std::string> keys;
  for (const KernelCall& c : lowered->nodes[0].calls) {
    if (c.own_op) keys.push_back(c.Key());
  }
  const std::vector<std::string> expected = {
      "softmax_fwd rows=1024 cols=1000 dtype=fp32 math=fp32 layout=-",
      "reduction op=sum rows=1 cols=1024 dtype=fp32 math=fp32 layout=-",
      "elementwise op=fill elems=1 arity=1 dtype=fp32 math=fp32 layout=-",
      "elementwise op=fill elems=1024000 arity=1 dtype=fp32 math=fp32 layout=-",
      "elementwise op=scatter elems=1024 arity=1 dtype=fp32 math=fp32 layout=-",
      "softmax_bwd rows=1024 cols=1000 dtype=fp32 math=fp32 layout=-"};
  EXPECT_EQ(keys, expected);
}

TEST(LoweringTest, LinearMatMulFoldsBatchIntoM) {
  GraphBuilder b;
  b.Input("x", {8, 128, 768}).Weight("w", {768, 3072});
  b.Op("MatMul", "fc", {"x", "w"}, "y", {8, 128, 3072});
  Graph g = b.Build({"y"});
  auto lowered = LowerGraph(g, LoweringOptions{});
  ASSERT_TRUE(lowered.ok());
  const KernelCall& c = lowered->nodes[0].calls[0];
  EXPECT_EQ(c.Key(), "gemm m=1024 n=3072 k=768 trans_a=0 trans_b=1 dtype=fp32 math=fp32 layout=-");
  EXPECT_DOUBLE_EQ(c.flops, 2.0 * 1024 * 3072 * 768);
}

// nn.Linear on a 3-D input, exported as MatMul then the bias Add: as
// addmm's backward, the MatMul's sums the bias gradient after its GEMMs; the
// Add launches nothing in either pass.
TEST(LoweringTest, ALinearsBiasGradientFollowsItsGemms) {
  GraphBuilder b;
  b.Input("x", {8, 128, 768}).Weight("w", {768, 3072}).Weight("bias", {3072});
  b.Op("MatMul", "fc", {"x", "w"}, "h", {8, 128, 3072});
  b.Op("Add", "fc_bias", {"h", "bias"}, "y", {8, 128, 3072});
  LoweringOptions o;
  o.training = true;
  o.inputs_need_gradient = true;
  auto lowered = LowerGraph(b.Build({"y"}), o);
  ASSERT_TRUE(lowered.ok()) << lowered.status().ToString();
  const std::vector<KernelCall>& calls = lowered->nodes[0].calls;
  ASSERT_EQ(calls.size(), 4u);  // the forward GEMM, dA, dB, the bias sum
  EXPECT_EQ(calls[1].kind, KernelKind::kGemm);
  EXPECT_EQ(calls[2].kind, KernelKind::kGemm);
  EXPECT_EQ(calls[3].Key(), "reduction op=sum rows=3072 cols=1024 dtype=fp32 math=fp32 layout=-");
  EXPECT_EQ(calls[3].phase, Phase::kBackward);
  EXPECT_TRUE(lowered->nodes[1].calls.empty());
}

TEST(LoweringTest, AttentionMatMulIsStridedBatched) {
  GraphBuilder b;
  b.Input("q", {2, 12, 128, 64}).Input("k", {2, 12, 64, 128});
  b.Op("MatMul", "qk", {"q", "k"}, "s", {2, 12, 128, 128});
  Graph g = b.Build({"s"});
  LoweringOptions o;
  o.dtype = DType::kFloat16;
  auto lowered = LowerGraph(g, o);
  ASSERT_TRUE(lowered.ok());
  EXPECT_EQ(lowered->nodes[0].calls[0].Key(),
            "batched_gemm batch=24 m=128 n=128 k=64 trans_a=0 trans_b=0 dtype=fp16 math=fp16 layout=-");
}

// A Linear layer on the model's input: the weight gradient (and the bias's
// reduction) but no input gradient.
TEST(LoweringTest, GemmOnTheModelInputHasNoInputGradient) {
  GraphBuilder b;
  b.Input("x", {32, 1024}).Weight("w", {1000, 1024}).Weight("bias", {1000});
  Node& gemm = b.Op("Gemm", "fc", {"x", "w", "bias"}, "y", {32, 1000});
  GraphBuilder::SetInt(gemm, "transB", 1);
  LoweringOptions o;
  o.training = true;
  auto lowered = LowerGraph(b.Build({"y"}), o);
  ASSERT_TRUE(lowered.ok());
  const auto& calls = lowered->nodes[0].calls;
  ASSERT_EQ(calls.size(), 3u);
  EXPECT_EQ(calls[1].Key(), "gemm m=1024 n=1000 k=32 trans_a=1 trans_b=0 dtype=fp32 math=fp32 layout=-");
  EXPECT_EQ(calls[2].kind, KernelKind::kReduction);
}

TEST(LoweringTest, TrainingGemmBackwardIsTwiceForwardFlops) {
  GraphBuilder b;
  b.Input("x", {32, 1024}).Weight("w", {1000, 1024}).Weight("bias", {1000});
  Node& gemm = b.Op("Gemm", "fc", {"x", "w", "bias"}, "y", {32, 1000});
  GraphBuilder::SetInt(gemm, "transB", 1);
  Graph g = b.Build({"y"});
  LoweringOptions o;
  o.training = true;
  o.inputs_need_gradient = true;  // a block: its input is an activation
  auto lowered = LowerGraph(g, o);
  ASSERT_TRUE(lowered.ok());
  const auto& calls = lowered->nodes[0].calls;
  ASSERT_EQ(calls.size(), 4u);
  EXPECT_DOUBLE_EQ(calls[0].flops, 2.0 * 32 * 1000 * 1024);
  EXPECT_DOUBLE_EQ(calls[1].flops + calls[2].flops, 2 * calls[0].flops);
  // The bias gradient: dy [32, 1000] summed over its rows, a reduction of its own.
  EXPECT_EQ(calls[3].kind, KernelKind::kReduction);
  EXPECT_EQ(calls[3].phase, Phase::kBackward);
  EXPECT_DOUBLE_EQ(calls[3].bytes_read, 32.0 * 1000 * 4);
}

TEST(LoweringTest, TrainingBatchNormCountsItsSteps) {
  GraphBuilder b;
  b.Input("x", {8, 16, 4, 4}).Weight("s", {16}).Weight("bb", {16}).Weight("m", {16}).Weight("v", {16});
  b.Op("BatchNormalization", "bn", {"x", "s", "bb", "m", "v"}, "y", {8, 16, 4, 4});
  LoweringOptions o;
  o.training = true;
  auto lowered = LowerGraph(b.Build({"y"}), o);
  ASSERT_TRUE(lowered.ok()) << lowered.status().ToString();
  const auto& calls = lowered->nodes[0].calls;
  ASSERT_EQ(calls.size(), 3u);  // num_batches_tracked += 1, forward, backward
  EXPECT_EQ(calls[0].Key(), "elementwise op=add elems=1 arity=1 dtype=fp32 math=fp32 layout=-");
  EXPECT_EQ(calls[1].kind, KernelKind::kBatchNormTrainFwd);
  EXPECT_EQ(calls[2].kind, KernelKind::kBatchNormBwd);
}

TEST(LoweringTest, ShapeOpsLaunchNoKernel) {
  GraphBuilder b;
  b.Input("x", {4, 8});
  b.Op("Reshape", "r", {"x"}, "y", {32});
  b.Op("Identity", "i", {"y"}, "z", {32});
  Graph g = b.Build({"z"});
  auto lowered = LowerGraph(g, LoweringOptions{});
  ASSERT_TRUE(lowered.ok());
  EXPECT_TRUE(lowered->nodes[0].calls.empty());
  EXPECT_TRUE(lowered->nodes[1].calls.empty());
}

TEST(LoweringTest, UnknownOpWarnsOrFailsWhenStrict) {
  GraphBuilder b;
  b.Input("x", {4, 8});
  b.Op("FancyOp", "f", {"x"}, "y", {4, 8});
  Graph g = b.Build({"y"});
  auto lowered = LowerGraph(g, LoweringOptions{});
  ASSERT_TRUE(lowered.ok());
  ASSERT_EQ(lowered->warnings.size(), 1u);
  EXPECT_NE(lowered->warnings[0].find("FancyOp"), std::string::npos);
  EXPECT_DOUBLE_EQ(lowered->nodes[0].calls[0].bytes(), 2 * 4.0 * 32);
  LoweringOptions strict;
  strict.strict = true;
  auto failed = LowerGraph(g, strict);
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.status().message().find("'f'"), std::string::npos);
}

TEST(LoweringTest, LstmFlopsFollowGateFormula) {
  GraphBuilder b;
  b.Input("x", {64, 16, 256}).Weight("W", {1, 2048, 256}).Weight("R", {1, 2048, 512});
  Node& lstm = b.Op("LSTM", "lstm", {"x", "W", "R"}, "y", {64, 1, 16, 512});
  GraphBuilder::SetInt(lstm, "hidden_size", 512);
  Graph g = b.Build({"y"});
  auto lowered = LowerGraph(g, LoweringOptions{});
  ASSERT_TRUE(lowered.ok());
  const KernelCall& c = lowered->nodes[0].calls[0];
  EXPECT_EQ(c.kind, KernelKind::kRnnFwd);
  EXPECT_DOUBLE_EQ(c.flops, 64.0 * 16 * (2.0 * 4 * 512 * (256 + 512) + 10.0 * 512));
}

TEST(LoweringTest, OptimizerBytesPerParameter) {
  // Foreach SGD with momentum: buf *= mu (2 tensors), buf += g (3), w -= lr * buf (3).
  auto sgd = LowerOptimizer(Optimizer::kSgdMomentum, ParameterTensors{1000, 4, 0}, true, LoweringOptions{});
  ASSERT_EQ(sgd.size(), 3u);
  double sgd_total = 0;
  for (const auto& c : sgd) sgd_total += c.bytes();
  EXPECT_DOUBLE_EQ(sgd_total, 1000 * 4.0 * 8);
  auto adam = LowerOptimizer(Optimizer::kAdam, ParameterTensors{1000, 4, 0}, false, LoweringOptions{});
  ASSERT_EQ(adam.size(), 4u);
  double total = 0;
  for (const auto& c : adam) total += c.bytes();
  EXPECT_DOUBLE_EQ(total, 1000 * 4.0 * 7);
}

// fp32 and tf32 store fp32 with TF32 convolutions (tf32: GEMMs too); fp16 and
// bf16 set the storage type only.
TEST(LoweringTest, SetPrecision) {
  LoweringOptions lo;
  lo.tf32_conv = false;
  SetPrecision(Precision::kTf32, &lo);
  EXPECT_EQ(lo.dtype, DType::kFloat32);
  EXPECT_TRUE(lo.tf32_conv);
  EXPECT_TRUE(lo.tf32_gemm);
  EXPECT_EQ(GemmMath(lo), MathMode::kTf32);
  SetPrecision(Precision::kFp32, &lo);
  EXPECT_EQ(lo.dtype, DType::kFloat32);
  EXPECT_TRUE(lo.tf32_conv);
  EXPECT_FALSE(lo.tf32_gemm);
  EXPECT_EQ(ConvMath(lo), MathMode::kTf32);
  EXPECT_EQ(GemmMath(lo), MathMode::kFp32);
  lo.tf32_conv = false;
  SetPrecision(Precision::kFp16, &lo);
  EXPECT_EQ(lo.dtype, DType::kFloat16);
  EXPECT_FALSE(lo.tf32_conv);
  SetPrecision(Precision::kBf16, &lo);
  EXPECT_EQ(lo.dtype, DType::kBFloat16);
  EXPECT_EQ(ConvMath(lo), MathMode::kBf16);
}

}  // namespace
}  // namespace dlsim
