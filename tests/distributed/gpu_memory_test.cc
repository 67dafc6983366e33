#include "distributed/gpu_memory.h"

#include <gtest/gtest.h>

#include "distributed_test_util.h"

namespace dlsim {
namespace {

using testing::Gpt3;

ParallelPlan Plan(int64_t t, bool sp, Recompute rc) {
  ParallelPlan p;
  p.tensor = t, p.microbatch = 1, p.global_batch = 1;
  p.sequence_parallel = sp, p.recompute = rc;
  return p;
}

// Korthikanti et al. 2022, section 4: activation bytes per layer, s b h (...).
TEST(LayerActivationTest, MatchesKorthikantiWithoutParallelism) {
  const TransformerSpec m = Gpt3();
  const double sbh = 2048.0 * 12288, as_h = 96.0 * 2048 / 12288;
  EXPECT_DOUBLE_EQ(LayerActivationBytes(m, Plan(1, false, Recompute::kNone)),
                   sbh * (34 + 5 * as_h));
}

TEST(LayerActivationTest, MatchesKorthikantiWithTensorParallelism) {
  const TransformerSpec m = Gpt3();
  const double sbh = 2048.0 * 12288, as_h = 96.0 * 2048 / 12288, t = 8;
  EXPECT_DOUBLE_EQ(LayerActivationBytes(m, Plan(8, false, Recompute::kNone)),
                   sbh * (10 + 24 / t + 5 * as_h / t));
  EXPECT_DOUBLE_EQ(LayerActivationBytes(m, Plan(8, true, Recompute::kNone)),
                   sbh / t * (34 + 5 * as_h));
  EXPECT_DOUBLE_EQ(LayerActivationBytes(m, Plan(8, true, Recompute::kSelective)), sbh / t * 34);
  EXPECT_DOUBLE_EQ(LayerActivationBytes(m, Plan(8, false, Recompute::kFull)), 2 * sbh);
  EXPECT_DOUBLE_EQ(LayerActivationBytes(m, Plan(8, true, Recompute::kFull)), 2 * sbh / t);
}

TEST(LayerActivationTest, FlashAttentionKeepsNoScores) {
  TransformerSpec m = Gpt3();
  m.attention = AttentionImpl::kFlash;
  const double sbh = 2048.0 * 12288;
  EXPECT_DOUBLE_EQ(LayerActivationBytes(m, Plan(1, false, Recompute::kNone)), 34 * sbh);
}

TEST(PeakGpuMemoryTest, ZeroStagesShardStateOverDataParallelism) {
  const TransformerSpec m = Gpt3();
  ParallelPlan p = Plan(8, true, Recompute::kSelective);
  p.pipeline = 8, p.data = 4, p.global_batch = 64;
  const GpuMemory none = PeakGpuMemory(m, p);
  p.zero_stage = 1;
  const GpuMemory one = PeakGpuMemory(m, p);
  EXPECT_DOUBLE_EQ(one.optimizer_bytes, none.optimizer_bytes / 4);
  EXPECT_DOUBLE_EQ(one.gradients_bytes, none.gradients_bytes);
  EXPECT_DOUBLE_EQ(one.weights_bytes, none.weights_bytes);
  // 12 layers and the embedding over 8 tensor ranks: 2 + 4 + 12 bytes each.
  const double first = (12 * m.LayerParams() + m.EmbeddingParams()) / 8;
  EXPECT_EQ(none.stage, 0);
  EXPECT_DOUBLE_EQ(none.weights_bytes, 2 * first);
  EXPECT_DOUBLE_EQ(none.gradients_bytes, 4 * first);
  EXPECT_DOUBLE_EQ(none.optimizer_bytes, 12 * first);
}

TEST(PeakGpuMemoryTest, HybridShardingDividesStateByTheShardGroup) {
  const TransformerSpec m = Gpt3();
  ParallelPlan p = Plan(8, true, Recompute::kSelective);
  p.data = 16, p.global_batch = 16;
  const GpuMemory none = PeakGpuMemory(m, p);
  p.zero_stage = 3, p.zero_shard = 4;  // four shards, four replicas of each
  const GpuMemory hybrid = PeakGpuMemory(m, p);
  EXPECT_DOUBLE_EQ(hybrid.weights_bytes, none.weights_bytes / 4);
  EXPECT_DOUBLE_EQ(hybrid.gradients_bytes, none.gradients_bytes / 4);
  EXPECT_DOUBLE_EQ(hybrid.optimizer_bytes, none.optimizer_bytes / 4);
  EXPECT_DOUBLE_EQ(hybrid.activations_bytes, none.activations_bytes);
}

TEST(PeakGpuMemoryTest, FirstStageKeepsOneMicrobatchPerStage) {
  const TransformerSpec m = Gpt3();
  ParallelPlan p = Plan(8, true, Recompute::kSelective);
  p.pipeline = 8, p.global_batch = 64;
  const GpuMemory g = PeakGpuMemory(m, p);
  const double per_layer = LayerActivationBytes(m, p);
  const double mask = 8 * 2048.0 * 12288 / 8;  // embedding dropout, 8 microbatches in flight
  EXPECT_DOUBLE_EQ(g.activations_bytes, 12 * 8 * per_layer + mask);
}

}  // namespace
}  // namespace dlsim
