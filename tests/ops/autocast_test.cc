// Lowering under torch.autocast (src/ops/autocast.h): which kernels run in
// which dtype, and the casts between them.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "dlsim/ops/lowering.h"
#include "graph_builder.h"

namespace dlsim {
namespace {

using testing::GraphBuilder;

// x [4, 64] (an fp32 input) -> MatMul(w1 [64, 32]) -> LayerNorm(g) ->
// MatMul(w2 [32, 32]) -> Relu.
Graph Mlp() {
  GraphBuilder b;
  b.Input("x", {4, 64}).Weight("w1", {64, 32}).Weight("w2", {32, 32}).Weight("g", {32});
  b.Op("MatMul", "mm1", {"x", "w1"}, "h", {4, 32});
  GraphBuilder::SetInt(b.Op("LayerNormalization", "ln", {"h", "g"}, "n", {4, 32}), "axis", -1);
  b.Op("MatMul", "mm2", {"n", "w2"}, "z", {4, 32});
  b.Op("Relu", "relu", {"z"}, "y", {4, 32});
  return b.Build({"y"});
}

std::vector<std::string> Describe(const LoweredNode& n) {
  std::vector<std::string> out;
  for (const KernelCall& c : n.calls) {
    out.push_back(PhaseName(c.phase) + (" " + c.Key()) + " r" + std::to_string(static_cast<int>(c.bytes_read)) +
                  " w" + std::to_string(static_cast<int>(c.bytes_written)));
  }
  return out;
}

TEST(Autocast, MatrixOpsRunLowNormsFp32WithTheCastsBetween) {
  LoweringOptions o;
  o.dtype = DType::kBFloat16;
  o.autocast = true;
  auto lowered = LowerGraph(Mlp(), o);
  ASSERT_TRUE(lowered.ok()) << lowered.status().ToString();
  const auto& nodes = lowered->nodes;
  // mm1: x and w1 cast to bf16 (4*64 and 64*32 elements), then the GEMM. A
  // cast key names its source dtype, as the calibration times it.
  std::vector<std::string> mm1 = Describe(nodes[0]);
  ASSERT_EQ(mm1.size(), 3u);
  EXPECT_EQ(mm1[0], "fwd copy op=cast elems=256 dtype=fp32 math=fp32 layout=- r1024 w512");
  EXPECT_EQ(mm1[1], "fwd copy op=cast elems=2048 dtype=fp32 math=fp32 layout=- r8192 w4096");
  EXPECT_NE(mm1[2].find("dtype=bf16"), std::string::npos) << mm1[2];
  // ln: its bf16 input cast to fp32, then the norm in fp32.
  std::vector<std::string> ln = Describe(nodes[1]);
  ASSERT_GE(ln.size(), 2u);
  EXPECT_EQ(ln[0], "fwd copy op=cast elems=128 dtype=bf16 math=fp32 layout=- r256 w512");
  EXPECT_NE(ln[1].find("dtype=fp32"), std::string::npos) << ln[1];
  // mm2: the fp32 norm output and w2 cast back to bf16.
  EXPECT_EQ(Describe(nodes[2]).size(), 3u);
  // relu: bf16 like its input, no cast.
  std::vector<std::string> relu = Describe(nodes[3]);
  ASSERT_EQ(relu.size(), 1u);
  EXPECT_NE(relu[0].find("dtype=bf16"), std::string::npos) << relu[0];
}

TEST(Autocast, TrainingCastsGradientsBackButNotTheInputs) {
  LoweringOptions o;
  o.dtype = DType::kBFloat16;
  o.autocast = true;
  o.training = true;
  auto lowered = LowerGraph(Mlp(), o);
  ASSERT_TRUE(lowered.ok()) << lowered.status().ToString();
  int fwd = 0, bwd = 0;
  for (const LoweredNode& n : lowered->nodes) {
    for (const KernelCall& c : n.calls) {
      if (c.params.empty() || c.params[0].first != "op") continue;
      if (c.params[0].second == "cast") ++fwd;
      if (c.params[0].second == "cast_bwd") ++bwd;
    }
  }
  EXPECT_EQ(fwd, 5);  // x, w1, h, n, w2
  EXPECT_EQ(bwd, 4);  // all but the graph input x
}

TEST(Autocast, OffChangesNothing) {
  LoweringOptions o;
  o.dtype = DType::kBFloat16;
  auto lowered = LowerGraph(Mlp(), o);
  ASSERT_TRUE(lowered.ok());
  for (const LoweredNode& n : lowered->nodes) {
    for (const KernelCall& c : n.calls) EXPECT_EQ(c.dtype, DType::kBFloat16) << n.name;
  }
}

// x [2, 64, 64] -> MatMul(w [64, 64]) -> Reshape [2, 32, 128] ->
// InstanceNormalization -> Reshape [2, 64, 64]: F.group_norm as torch.onnx
// writes it, which autocast runs in fp32.
TEST(Autocast, AnExportedGroupNormRunsFp32) {
  GraphBuilder b;
  b.Input("x", {2, 64, 64}).Weight("w", {64, 64}).Weight("ones", {32}).Weight("zeros", {32});
  b.Weight("groups", {3}, DType::kInt64).Weight("back", {3}, DType::kInt64);
  b.Op("MatMul", "mm", {"x", "w"}, "h", {2, 64, 64});
  b.Op("Reshape", "reshape", {"h", "groups"}, "r", {2, 32, 128});
  b.Op("InstanceNormalization", "norm", {"r", "ones", "zeros"}, "n", {2, 32, 128});
  b.Op("Reshape", "reshape_1", {"n", "back"}, "y", {2, 64, 64});
  LoweringOptions o;
  o.dtype = DType::kBFloat16;
  o.autocast = true;
  auto lowered = LowerGraph(b.Build({"y"}), o);
  ASSERT_TRUE(lowered.ok()) << lowered.status().ToString();
  // the norm's bf16 input is cast to fp32; the group's norm kernel (on its
  // last node) runs in fp32
  std::vector<std::string> norm = Describe(lowered->nodes[2]);
  ASSERT_EQ(norm.size(), 1u);
  EXPECT_EQ(norm[0], "fwd copy op=cast elems=8192 dtype=bf16 math=fp32 layout=- r16384 w32768");
  std::vector<std::string> last = Describe(lowered->nodes[3]);
  ASSERT_EQ(last.size(), 1u);
  EXPECT_EQ(last[0].substr(0, 72), "fwd groupnorm_fwd n=2 c=64 groups=32 hw=64 dtype=fp32 math=fp32 layout=-");
}

// The same chain viewing x [2, 64, 64] as [128, 8, 4] (no grouping of the
// channels): an instance norm, which autocast leaves in bf16.
TEST(Autocast, AnInstanceNormAfterAReshapeThatIsNoGroupingStaysLow) {
  GraphBuilder b;
  b.Input("x", {2, 64, 64}).Weight("w", {64, 64}).Weight("ones", {8}).Weight("zeros", {8});
  b.Weight("s", {3}, DType::kInt64);
  b.Op("MatMul", "mm", {"x", "w"}, "h", {2, 64, 64});
  b.Op("Reshape", "reshape", {"h", "s"}, "r", {128, 8, 4});
  b.Op("InstanceNormalization", "norm", {"r", "ones", "zeros"}, "y", {128, 8, 4});
  LoweringOptions o;
  o.dtype = DType::kBFloat16;
  o.autocast = true;
  auto lowered = LowerGraph(b.Build({"y"}), o);
  ASSERT_TRUE(lowered.ok()) << lowered.status().ToString();
  std::vector<std::string> norm = Describe(lowered->nodes[2]);
  ASSERT_EQ(norm.size(), 1u);  // no cast
  EXPECT_NE(norm[0].find("dtype=bf16"), std::string::npos) << norm[0];
}

// A residual block as Hugging Face writes it: r (fp32, from a LayerNorm) ->
// nn.Linear on a 3-D input (MatMul(w) then Add(b)) -> Add(r): the linear's
// bias is cast with its weight, and the residual Add of the bf16 branch and
// the fp32 stream computes in fp32, so autograd casts the gradient it hands
// the branch back to bf16.
TEST(Autocast, LinearBiasIsCastAndAMixedAddCastsItsGradientBack) {
  GraphBuilder b;
  b.Input("x", {2, 8, 64}).Weight("w0", {64, 64}).Weight("g", {64});
  b.Weight("w", {64, 64}).Weight("bias", {64});
  b.Op("MatMul", "mm0", {"x", "w0"}, "h", {2, 8, 64});
  GraphBuilder::SetInt(b.Op("LayerNormalization", "ln", {"h", "g"}, "r", {2, 8, 64}), "axis", -1);
  b.Op("MatMul", "mm", {"r", "w"}, "z", {2, 8, 64});
  b.Op("Add", "bias_add", {"z", "bias"}, "zb", {2, 8, 64});
  b.Op("Add", "residual", {"zb", "r"}, "y", {2, 8, 64});
  LoweringOptions o;
  o.dtype = DType::kBFloat16;
  o.autocast = true;
  o.training = true;
  auto lowered = LowerGraph(b.Build({"y"}), o);
  ASSERT_TRUE(lowered.ok()) << lowered.status().ToString();
  // mm: r, w and the bias cast, the GEMMs, the three casts' backward
  std::vector<std::string> mm = Describe(lowered->nodes[2]);
  int casts = 0, cast_bwds = 0;
  for (const std::string& c : mm) {
    casts += c.find("op=cast ") != std::string::npos;
    cast_bwds += c.find("op=cast_bwd") != std::string::npos;
  }
  EXPECT_EQ(casts, 3);
  EXPECT_EQ(cast_bwds, 3);
  EXPECT_NE(std::find(mm.begin(), mm.end(),
                      "fwd copy op=cast elems=64 dtype=fp32 math=fp32 layout=- r256 w128"),
            mm.end());
  // residual: fp32, its forward, its backward, then the bf16 branch's gradient cast
  std::vector<std::string> residual = Describe(lowered->nodes[4]);
  ASSERT_EQ(residual.size(), 3u);
  EXPECT_NE(residual[0].find("fwd elementwise op=add"), std::string::npos) << residual[0];
  EXPECT_NE(residual[0].find("dtype=fp32"), std::string::npos) << residual[0];
  EXPECT_EQ(residual[2], "bwd copy op=cast_bwd elems=1024 dtype=fp32 math=fp32 layout=- r4096 w2048");
}

}  // namespace
}  // namespace dlsim
