#include "distributed/transformer_calls.h"

#include <gtest/gtest.h>

#include "dlsim/distributed/parallel_step.h"
#include "distributed_test_util.h"

namespace dlsim {
namespace {

using testing::Gpt3;
using testing::SmallGpt;

TEST(TransformerSpecTest, Gpt3HasItsPublishedSize) {
  const TransformerSpec m = Gpt3();
  EXPECT_DOUBLE_EQ(m.LayerParams(), 12.0 * 12288 * 12288 + 13.0 * 12288);
  EXPECT_NEAR(m.Params() / 1e9, 174.6, 0.05);
}

TEST(ModelFlopsTest, MatchesMegatronsFormula) {
  const TransformerSpec m = Gpt3();
  const double B = 1536, s = 2048, l = 96, h = 12288, V = 51200;
  const double megatron = 72 * B * s * l * h * h * (1 + s / (6 * h) + V / (12 * l * h));
  EXPECT_NEAR(ModelFlopsPerStep(m, 1536) / megatron, 1.0, 1e-12);
}

TEST(TransformerLayerCallsTest, SplitsTheGemmsOverTensorRanks) {
  TransformerSpec m = SmallGpt();
  ParallelPlan p;
  p.tensor = 2, p.microbatch = 2, p.global_batch = 2;
  const PassCalls c = TransformerLayerCalls(m, p);
  ASSERT_EQ(c.fwd.size(), 10u);  // LN, QKV, attention, proj, add, LN, fc1, GELU, fc2, add
  EXPECT_EQ(c.fwd[1].Key(),
            "gemm m=2048 n=1536 k=1024 trans_a=0 trans_b=0 dtype=bf16 math=bf16 layout=-");
  EXPECT_EQ(c.fwd[2].Key(),
            "attention_fwd batch=2 heads=8 seq_q=1024 seq_k=1024 head_dim=64 mask=2 dtype=bf16 "
            "math=bf16 layout=-");
  EXPECT_EQ(c.fwd[3].Key(),
            "gemm m=2048 n=1024 k=512 trans_a=0 trans_b=0 dtype=bf16 math=bf16 layout=-");
  EXPECT_EQ(c.fwd[8].Key(),
            "gemm m=2048 n=1024 k=2048 trans_a=0 trans_b=0 dtype=bf16 math=bf16 layout=-");
  EXPECT_TRUE(c.recompute.empty());
}

TEST(TransformerLayerCallsTest, SequenceParallelismSplitsTheNormRegions) {
  TransformerSpec m = SmallGpt();
  ParallelPlan p;
  p.tensor = 4, p.microbatch = 1, p.global_batch = 1, p.sequence_parallel = true;
  const PassCalls c = TransformerLayerCalls(m, p);
  EXPECT_EQ(c.fwd[0].Key(), "layernorm_fwd rows=256 cols=1024 dtype=bf16 math=fp32 layout=-");
}

TEST(TransformerLayerCallsTest, RecomputationRepeatsTheForward) {
  TransformerSpec m = SmallGpt();
  ParallelPlan p;
  p.recompute = Recompute::kFull;
  EXPECT_EQ(TransformerLayerCalls(m, p).recompute.size(), 10u);
  p.recompute = Recompute::kSelective;
  EXPECT_TRUE(TransformerLayerCalls(m, p).recompute.empty());  // flash recomputes inside
  m.attention = AttentionImpl::kUnfused;
  EXPECT_EQ(TransformerLayerCalls(m, p).recompute.size(), 4u);  // QK^T, softmax, dropout, PV
}

TEST(OptimizerCallsTest, PyTorchRunsEightForeachPassesInChunks) {
  ParallelPlan p;
  const std::vector<RepeatedCalls> fused = OptimizerCalls(p, 1e6);
  ASSERT_EQ(fused.size(), 1u);
  EXPECT_EQ(fused[0].calls.size(), 1u);
  EXPECT_EQ(fused[0].times, 1);
  p.framework = TrainingFramework::kPyTorch;
  // 50,000,000 = 2 launches of 20,971,520 elements and one of 8,056,960.
  const std::vector<RepeatedCalls> passes = OptimizerCalls(p, 5e7);
  ASSERT_EQ(passes.size(), 2u);
  ASSERT_EQ(passes[0].calls.size(), 8u);
  EXPECT_EQ(passes[0].times, 2);
  EXPECT_EQ(passes[0].calls.back().Key(),
            "elementwise op=adamw_addcdiv elems=20971520 arity=3 dtype=fp32 math=fp32 layout=-");
  ASSERT_EQ(passes[1].calls.size(), 8u);
  EXPECT_EQ(passes[1].times, 1);
  EXPECT_EQ(passes[1].calls.back().Key(),
            "elementwise op=adamw_addcdiv elems=8056960 arity=3 dtype=fp32 math=fp32 layout=-");
}

TEST(FrameworkLayerCallsTest, CastKeysNameTheirSourceDtype) {
  const TransformerSpec m = Gpt3();
  ParallelPlan p;
  p.tensor = 8, p.global_batch = 1, p.framework = TrainingFramework::kPyTorch;
  const PassCalls calls = FrameworkLayerCalls(m, p);
  // Forward: eight fp32 weights cast to bf16, then each LayerNorm's bf16
  // input up and fp32 output down; backward: the gradients the other way and
  // the q/k/v concat.
  ASSERT_EQ(calls.fwd.size(), 12u);
  EXPECT_EQ(calls.fwd[0].Key(), "copy op=cast elems=56623104 dtype=fp32 math=fp32 layout=-");
  EXPECT_EQ(calls.fwd[8].Key(), "copy op=cast elems=25165824 dtype=bf16 math=fp32 layout=-");
  EXPECT_EQ(calls.fwd[9].Key(), "copy op=cast elems=25165824 dtype=fp32 math=fp32 layout=-");
  ASSERT_EQ(calls.bwd.size(), 13u);
  EXPECT_EQ(calls.bwd[0].Key(), "copy op=cast_bwd elems=56623104 dtype=bf16 math=fp32 layout=-");
  EXPECT_EQ(calls.bwd.back().Key(), "copy op=concat elems=9437184 dtype=bf16 math=fp32 layout=-");
  // FSDP's parameters are 16-bit already: no weight casts.
  p.data = 2, p.global_batch = 2, p.zero_stage = 3;
  EXPECT_EQ(FrameworkLayerCalls(m, p).fwd.size(), 4u + 1u);  // norm casts and the split copy
}

TEST(GradAccumulationCallsTest, PyTorchAddsEachMicrobatchAfterTheFirst) {
  ParallelPlan p;
  p.microbatch = 1, p.global_batch = 4;
  EXPECT_TRUE(GradAccumulationCalls(p, 1e6).calls.empty());  // Megatron: in the GEMM
  p.framework = TrainingFramework::kPyTorch;
  const RepeatedCalls acc = GradAccumulationCalls(p, 1e6);
  ASSERT_EQ(acc.calls.size(), 1u);
  EXPECT_EQ(acc.times, 3);
  EXPECT_EQ(acc.calls[0].Key(),
            "elementwise op=grad_accumulate elems=1000000 arity=2 dtype=fp32 math=fp32 layout=-");
}

TEST(ValidatePlanTest, NamesTheFieldThatDoesNotDivide) {
  const TransformerSpec m = Gpt3();
  ParallelPlan p;
  p.tensor = 5, p.global_batch = 8;
  Status s = ValidatePlan(m, p);
  EXPECT_NE(s.message().find("parallel.tensor"), std::string::npos) << s.message();
  p.tensor = 8, p.pipeline = 7;
  s = ValidatePlan(m, p);
  EXPECT_NE(s.message().find("96 layers do not split into 7 stages"), std::string::npos)
      << s.message();
  p.pipeline = 8, p.data = 3;
  s = ValidatePlan(m, p);
  EXPECT_NE(s.message().find("parallel.global_batch"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace dlsim
