// Einsum lowering (src/ops/lower_einsum.cc): the calls torch.einsum makes.
#include <gtest/gtest.h>

#include "dlsim/ops/lowering.h"
#include "graph_builder.h"

namespace dlsim {
namespace {

using testing::GraphBuilder;

constexpr double kFp32 = 4;  // bytes

// Lowers one Einsum node over inputs of `shapes` (named a, b, c, ...).
std::vector<KernelCall> LowerEinsum(const std::string& equation, const std::vector<Shape>& shapes,
                                    const Shape& out, bool training = false) {
  GraphBuilder b;
  std::vector<std::string> inputs;
  for (size_t i = 0; i < shapes.size(); ++i) {
    inputs.push_back(std::string(1, static_cast<char>('a' + i)));
    b.Input(inputs.back(), shapes[i]);
  }
  GraphBuilder::SetString(b.Op("Einsum", "e", inputs, "y", out), "equation", equation);
  LoweringOptions options;
  options.training = training;
  options.inputs_need_gradient = training;  // a block: its inputs are activations
  auto lowered = LowerGraph(b.Build({"y"}), options);
  EXPECT_TRUE(lowered.ok()) << lowered.status().ToString();
  if (!lowered.ok()) return {};
  EXPECT_TRUE(lowered->warnings.empty());
  return lowered->nodes.at(0).calls;
}

// Expects a GEMM call with these parameters, FLOPs and bytes (fp32).
void ExpectGemm(const KernelCall& call, int64_t batch, int64_t m, int64_t n, int64_t k, int trans_a,
                int trans_b) {
  EXPECT_EQ(call.kind, batch > 1 ? KernelKind::kBatchedGemm : KernelKind::kGemm);
  EXPECT_EQ(call.library_call, batch > 1 ? "cublasGemmStridedBatchedEx" : "cublasGemmEx");
  EXPECT_EQ(call.IntParam("batch", 1), batch);
  EXPECT_EQ(call.IntParam("m", -1), m);
  EXPECT_EQ(call.IntParam("n", -1), n);
  EXPECT_EQ(call.IntParam("k", -1), k);
  EXPECT_EQ(call.IntParam("trans_a", -1), trans_a);
  EXPECT_EQ(call.IntParam("trans_b", -1), trans_b);
  EXPECT_DOUBLE_EQ(call.flops, 2.0 * batch * m * n * k);
  EXPECT_DOUBLE_EQ(call.bytes_read, kFp32 * batch * (m * k + k * n));
  EXPECT_DOUBLE_EQ(call.bytes_written, kFp32 * batch * m * n);
}

TEST(LowerEinsumTest, AttentionScoresAreBatchedGemmWithTransposedB) {
  auto calls = LowerEinsum("bhqd,bhkd->bhqk", {{2, 3, 5, 4}, {2, 3, 7, 4}}, {2, 3, 5, 7});
  ASSERT_EQ(calls.size(), 1u);
  ExpectGemm(calls[0], 6, 5, 7, 4, 0, 1);
  EXPECT_EQ(calls[0].Key(),
            "batched_gemm batch=6 m=5 n=7 k=4 trans_a=0 trans_b=1 dtype=fp32 "
            "math=fp32 layout=-");
}

TEST(LowerEinsumTest, AttentionTimesValuesIsBatchedGemm) {
  auto calls = LowerEinsum("bhqk,bhkd->bhqd", {{2, 3, 5, 7}, {2, 3, 7, 4}}, {2, 3, 5, 4});
  ASSERT_EQ(calls.size(), 1u);
  ExpectGemm(calls[0], 6, 5, 4, 7, 0, 0);
}

TEST(LowerEinsumTest, LinearFoldsLeadingDimIntoM) {
  auto calls = LowerEinsum("bij,jk->bik", {{8, 5, 4}, {4, 6}}, {8, 5, 6});
  ASSERT_EQ(calls.size(), 1u);
  ExpectGemm(calls[0], 1, 40, 6, 4, 0, 0);
}

TEST(LowerEinsumTest, ContractedBeforeFreeTransposesA) {
  auto calls = LowerEinsum("ji,jk->ik", {{4, 5}, {4, 6}}, {5, 6});
  ASSERT_EQ(calls.size(), 1u);
  ExpectGemm(calls[0], 1, 5, 6, 4, 1, 0);
}

TEST(LowerEinsumTest, NothingContractedIsMul) {
  auto calls = LowerEinsum("ij,ij->ij", {{5, 6}, {5, 6}}, {5, 6});
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].kind, KernelKind::kElementwise);
  EXPECT_EQ(calls[0].StrParam("op", ""), "mul");
  EXPECT_EQ(calls[0].IntParam("elems", -1), 30);
  EXPECT_EQ(calls[0].IntParam("arity", -1), 2);
  EXPECT_DOUBLE_EQ(calls[0].bytes_read, kFp32 * 60);
  EXPECT_DOUBLE_EQ(calls[0].bytes_written, kFp32 * 30);
  EXPECT_DOUBLE_EQ(calls[0].flops, 30);
}

TEST(LowerEinsumTest, OuterProductIsBroadcastingMul) {
  auto calls = LowerEinsum("i,j->ij", {{5}, {6}}, {5, 6});
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].StrParam("op", ""), "mul");
  EXPECT_EQ(calls[0].IntParam("elems", -1), 30);
  EXPECT_EQ(calls[0].IntParam("arity", -1), 1);
  EXPECT_DOUBLE_EQ(calls[0].bytes_read, kFp32 * 11);
}

TEST(LowerEinsumTest, SingleOperandSumIsReduction) {
  auto calls = LowerEinsum("ij->j", {{5, 6}}, {6});
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].kind, KernelKind::kReduction);
  EXPECT_EQ(calls[0].library_call, "reduce_kernel");
  EXPECT_EQ(calls[0].Key(), "reduction op=sum rows=6 cols=5 dtype=fp32 math=fp32 layout=-");
  EXPECT_DOUBLE_EQ(calls[0].bytes_read, kFp32 * 30);
  EXPECT_DOUBLE_EQ(calls[0].bytes_written, kFp32 * 6);
  EXPECT_DOUBLE_EQ(calls[0].flops, 30);
}

TEST(LowerEinsumTest, PermutationAndDiagonalAreViews) {
  EXPECT_TRUE(LowerEinsum("ij->ji", {{5, 6}}, {6, 5}).empty());
  EXPECT_TRUE(LowerEinsum("ii->i", {{5, 5}}, {5}).empty());
  EXPECT_TRUE(LowerEinsum("...ij->...ji", {{2, 5, 6}}, {2, 6, 5}).empty());
}

TEST(LowerEinsumTest, ThreeOperandsContractLeftToRight) {
  auto calls = LowerEinsum("ij,jk,kl->il", {{5, 4}, {4, 6}, {6, 7}}, {5, 7});
  ASSERT_EQ(calls.size(), 2u);
  ExpectGemm(calls[0], 1, 5, 6, 4, 0, 0);  // (ij,jk) -> ik: k kept for the third
  ExpectGemm(calls[1], 1, 5, 7, 6, 0, 0);
}

TEST(LowerEinsumTest, EllipsisDimsAreBatch) {
  auto calls = LowerEinsum("...ij,...jk->...ik", {{2, 3, 5, 4}, {2, 3, 4, 6}}, {2, 3, 5, 6});
  ASSERT_EQ(calls.size(), 1u);
  ExpectGemm(calls[0], 6, 5, 6, 4, 0, 0);
}

TEST(LowerEinsumTest, LabelOnlyInOneOperandIsSummedFirst) {
  auto calls = LowerEinsum("ij,jk->k", {{5, 4}, {4, 6}}, {6});
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0].Key(), "reduction op=sum rows=4 cols=5 dtype=fp32 math=fp32 layout=-");
  EXPECT_DOUBLE_EQ(calls[0].bytes_read, kFp32 * 20);
  EXPECT_DOUBLE_EQ(calls[0].bytes_written, kFp32 * 4);
  ExpectGemm(calls[1], 1, 1, 6, 4, 0, 0);
}

// Free labels i and k of A are split by the contracted j: PyTorch's reshape
// to (i·k, j) copies A first.
TEST(LowerEinsumTest, NonConsecutiveGroupIsCopiedFirst) {
  auto calls = LowerEinsum("ijk,jl->ikl", {{5, 4, 3}, {4, 6}}, {5, 3, 6});
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0].kind, KernelKind::kCopy);
  EXPECT_EQ(calls[0].library_call, "copy_kernel");
  EXPECT_EQ(calls[0].Key(), "copy op=transpose elems=60 inner=1 dtype=fp32 math=fp32 layout=-");
  EXPECT_DOUBLE_EQ(calls[0].bytes_read, kFp32 * 60);
  EXPECT_DOUBLE_EQ(calls[0].bytes_written, kFp32 * 60);
  ExpectGemm(calls[1], 1, 15, 6, 4, 0, 0);
}

// Free labels in another order than the output's (i,b for b,i): copied,
// the trailing contracted run staying in place.
TEST(LowerEinsumTest, GroupOutOfOutputOrderIsCopied) {
  auto calls = LowerEinsum("ibj,jk->bik", {{5, 2, 4}, {4, 6}}, {2, 5, 6});
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0].Key(), "copy op=transpose elems=40 inner=4 dtype=fp32 math=fp32 layout=-");
  ExpectGemm(calls[1], 1, 10, 6, 4, 0, 0);
}

TEST(LowerEinsumTest, TrainingAddsGemmBackward) {
  auto calls = LowerEinsum("bhqd,bhkd->bhqk", {{2, 3, 5, 4}, {2, 3, 7, 4}}, {2, 3, 5, 7}, true);
  ASSERT_EQ(calls.size(), 3u);
  ExpectGemm(calls[0], 6, 5, 7, 4, 0, 1);
  EXPECT_EQ(calls[0].phase, Phase::kForward);
  ExpectGemm(calls[1], 6, 5, 4, 7, 0, 1);  // dA = dC·B
  ExpectGemm(calls[2], 6, 4, 7, 5, 1, 0);  // dB = Aᵀ·dC
  EXPECT_EQ(calls[1].phase, Phase::kBackward);
  EXPECT_EQ(calls[2].phase, Phase::kBackward);
}

TEST(LowerEinsumTest, BadEquationIsAnError) {
  GraphBuilder b;
  b.Input("a", {5, 6});
  GraphBuilder::SetString(b.Op("Einsum", "e", {"a"}, "y", {6}), "equation", "i?->i");
  auto lowered = LowerGraph(b.Build({"y"}), LoweringOptions{});
  ASSERT_FALSE(lowered.ok());
  EXPECT_EQ(lowered.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(lowered.status().message().find("bad character in equation term 'i?'"),
            std::string::npos)
      << lowered.status().message();
}

// The GEMM calls of a graph, in order.
std::vector<KernelCall> GemmCalls(const Graph& graph) {
  auto lowered = LowerGraph(graph, LoweringOptions{});
  EXPECT_TRUE(lowered.ok()) << lowered.status().ToString();
  std::vector<KernelCall> gemms;
  if (!lowered.ok()) return gemms;
  EXPECT_TRUE(lowered->warnings.empty());
  for (const LoweredNode& node : lowered->nodes) {
    for (const KernelCall& c : node.calls) {
      if (c.kind == KernelKind::kGemm || c.kind == KernelKind::kBatchedGemm) gemms.push_back(c);
    }
  }
  return gemms;
}

// Attention as /tmp/probe/mk.py writes it, with Einsum and with
// Transpose + MatMul: the same GEMMs (only the transpose flag of B differs:
// MatMul reads a copied kᵀ).
TEST(LowerEinsumTest, EinsumAttentionHasMatMulAttentionsGemms) {
  const Shape qkv = {8, 12, 512, 64}, scores = {8, 12, 512, 512};
  GraphBuilder e;
  e.Input("q", qkv).Input("k", qkv).Input("v", qkv);
  GraphBuilder::SetString(e.Op("Einsum", "qk", {"q", "k"}, "s", scores), "equation",
                          "bhqd,bhkd->bhqk");
  e.Op("Softmax", "softmax", {"s"}, "p", scores);
  GraphBuilder::SetString(e.Op("Einsum", "pv", {"p", "v"}, "o", qkv), "equation",
                          "bhqk,bhkd->bhqd");
  GraphBuilder m;
  m.Input("q", qkv).Input("k", qkv).Input("v", qkv);
  GraphBuilder::SetInts(m.Op("Transpose", "t", {"k"}, "kt", {8, 12, 64, 512}), "perm",
                        {0, 1, 3, 2});
  m.Op("MatMul", "qk", {"q", "kt"}, "s", scores);
  m.Op("Softmax", "softmax", {"s"}, "p", scores);
  m.Op("MatMul", "pv", {"p", "v"}, "o", qkv);
  const auto einsum = GemmCalls(e.Build({"o"})), matmul = GemmCalls(m.Build({"o"}));
  ASSERT_EQ(einsum.size(), 2u);
  ASSERT_EQ(matmul.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    for (const char* p : {"batch", "m", "n", "k"}) {
      EXPECT_EQ(einsum[i].IntParam(p, -1), matmul[i].IntParam(p, -1)) << i << " " << p;
    }
    EXPECT_DOUBLE_EQ(einsum[i].flops, matmul[i].flops);
    EXPECT_DOUBLE_EQ(einsum[i].bytes(), matmul[i].bytes());
  }
  ExpectGemm(einsum[0], 96, 512, 512, 64, 0, 1);
  ExpectGemm(einsum[1], 96, 512, 64, 512, 0, 0);
}

}  // namespace
}  // namespace dlsim
