#include "dlsim/distributed/parallel_step.h"

#include <gtest/gtest.h>

#include "dlsim/distributed/layout_search.h"
#include "distributed_test_util.h"

namespace dlsim {
namespace {

using testing::EightGpuNodes;
using testing::SmallGpt;

struct Fixture {
  Machine machine = EightGpuNodes();
  CostModel cost = CostModel::RooflineOnly(machine);
  CollectiveModel comm{machine, CollectiveTable()};
  ParallelStepModel model{cost, comm};
};

double SumOfParts(const StepTimes& t) {
  return t.compute_s + t.recompute_s + t.tensor_comm_s + t.pipeline_comm_s + t.bubble_s +
         t.data_comm_s + t.optimizer_s;
}

TEST(ParallelStepTest, PartsAddUpToTheStep) {
  Fixture f;
  ParallelPlan p;
  p.tensor = 2, p.pipeline = 2, p.data = 2, p.microbatch = 1, p.global_batch = 16;
  p.recompute = Recompute::kFull;
  auto est = f.model.Estimate(SmallGpt(), p);
  ASSERT_TRUE(est.ok()) << est.status().message();
  EXPECT_NEAR(SumOfParts(est->time), est->time.step_s, 1e-12);
  EXPECT_GT(est->time.bubble_s, 0);
  EXPECT_GT(est->time.recompute_s, 0);
  EXPECT_GT(est->time.tensor_comm_s, 0);
  EXPECT_GT(est->time.data_comm_s, 0);
  EXPECT_DOUBLE_EQ(est->source_share[static_cast<size_t>(CostSource::kRoofline)], 1.0);
}

TEST(ParallelStepTest, OneGpuHasNoCommunicationOrBubble) {
  Fixture f;
  ParallelPlan p;
  p.microbatch = 2, p.global_batch = 8;
  auto est = f.model.Estimate(SmallGpt(), p);
  ASSERT_TRUE(est.ok());
  EXPECT_EQ(est->time.tensor_comm_s, 0);
  EXPECT_EQ(est->time.pipeline_comm_s, 0);
  EXPECT_EQ(est->time.data_comm_s, 0);
  EXPECT_NEAR(est->time.bubble_s, 0, 1e-15);
  EXPECT_DOUBLE_EQ(est->tokens_per_s, 8 * 1024 / est->time.step_s);
}

TEST(ParallelStepTest, InterleavingShrinksTheBubble) {
  Fixture f;
  ParallelPlan p;
  p.pipeline = 4, p.microbatch = 1, p.global_batch = 8;
  auto one = f.model.Estimate(SmallGpt(), p);
  p.virtual_stages = 2;
  auto two = f.model.Estimate(SmallGpt(), p);
  ASSERT_TRUE(one.ok() && two.ok());
  EXPECT_LT(two->time.bubble_s, one->time.bubble_s);
}

TEST(ParallelStepTest, TensorGroupsWiderThanANodeAreRefused) {
  Fixture f;
  TransformerSpec m = SmallGpt();
  ParallelPlan p;
  p.tensor = 16, p.global_batch = 1;
  auto est = f.model.Estimate(m, p);
  ASSERT_FALSE(est.ok());
  EXPECT_NE(est.status().message().find("spans more than one node"), std::string::npos);
}

// ZeRO 1 over two nodes: reduce-scatter and all-gather inside each node's
// shard group, the gradient shard all-reduced across the two replicas.
TEST(ParallelStepTest, HybridShardingReducesInsideTheShardGroupThenAcrossReplicas) {
  Fixture f;
  const TransformerSpec m = SmallGpt();
  ParallelPlan p;
  p.data = 16, p.microbatch = 1, p.global_batch = 16, p.zero_stage = 1;
  auto full = f.model.Estimate(m, p);
  p.zero_shard = 8;
  auto hybrid = f.model.Estimate(m, p);
  ASSERT_TRUE(full.ok() && hybrid.ok()) << hybrid.status().message();
  const double params = m.layers * m.LayerParams() + m.EmbeddingParams();
  const double expected =
      f.comm.GroupTime(Collective::kReduceScatter, 8, 8, 4 * params).time_s +
      f.comm.GroupTime(Collective::kAllReduce, 2, 1, 4 * params / 8).time_s +
      f.comm.GroupTime(Collective::kAllGather, 8, 8, 2 * params).time_s;
  EXPECT_DOUBLE_EQ(hybrid->time.data_comm_s, expected);
  EXPECT_DOUBLE_EQ(full->time.data_comm_s,
                   f.comm.GroupTime(Collective::kReduceScatter, 16, 8, 4 * params).time_s +
                       f.comm.GroupTime(Collective::kAllGather, 16, 8, 2 * params).time_s);
  // Each GPU updates an eighth of the parameters, not a sixteenth.
  EXPECT_GT(hybrid->time.optimizer_s, full->time.optimizer_s);
  EXPECT_DOUBLE_EQ(hybrid->memory.optimizer_bytes, 2 * full->memory.optimizer_bytes);
}

TEST(ParallelStepTest, ShardOverEveryReplicaIsFullSharding) {
  Fixture f;
  ParallelPlan p;
  p.data = 16, p.microbatch = 1, p.global_batch = 16, p.zero_stage = 3;
  auto full = f.model.Estimate(SmallGpt(), p);
  p.zero_shard = 16;
  auto same = f.model.Estimate(SmallGpt(), p);
  ASSERT_TRUE(full.ok() && same.ok());
  EXPECT_DOUBLE_EQ(same->time.step_s, full->time.step_s);
  EXPECT_DOUBLE_EQ(same->memory.total_bytes(), full->memory.total_bytes());
}

TEST(LayoutSearchTest, KeepsPinnedValuesAndSortsByStepTime) {
  Fixture f;
  LayoutSearchOptions o;
  o.gpus = 16, o.global_batch = 32, o.tensors = {2}, o.keep = 5;
  auto r = SearchLayouts(f.model, SmallGpt(), ParallelPlan(), o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_FALSE(r->best.empty());
  for (size_t i = 0; i < r->best.size(); ++i) {
    EXPECT_EQ(r->best[i].plan.tensor, 2);
    EXPECT_EQ(r->best[i].plan.gpus(), 16);
    if (i > 0) {
      EXPECT_LE(r->best[i - 1].time.step_s, r->best[i].time.step_s);
    }
  }
  EXPECT_GE(r->evaluated, r->fitting);
}

TEST(LayoutSearchTest, NoLayoutOfThatManyGpusIsAnError) {
  Fixture f;
  LayoutSearchOptions o;
  o.gpus = 7, o.global_batch = 3;
  auto r = SearchLayouts(f.model, SmallGpt(), ParallelPlan(), o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("no parallel layout of 7 GPUs"), std::string::npos);
}

}  // namespace
}  // namespace dlsim
