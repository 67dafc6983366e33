#include "dlsim/collective/collective.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "estimate/gradient_allreduce.h"
#include "scratch_dir.h"

namespace dlsim {
namespace {

const AlphaBeta kLink{10e-6, 2e-6, 100e9};  // 10 us launch, 2 us/step, 100 GB/s

TEST(RingTest, AllReduceMatchesHandComputedValue) {
  // p = 4, S = 400 MB: 10 + 6 x 2 us + 6/4 x 400e6 / 100e9 s = 22 us + 6 ms.
  EXPECT_DOUBLE_EQ(RingTimeS(Collective::kAllReduce, 4, 400e6, kLink), 22e-6 + 6e-3);
}

TEST(RingTest, ReduceScatterAndAllGatherTakeHalfTheSteps) {
  // p = 4: 10 + 3 x 2 us + 3/4 x 400e6 / 100e9 = 16 us + 3 ms.
  EXPECT_DOUBLE_EQ(RingTimeS(Collective::kReduceScatter, 4, 400e6, kLink), 16e-6 + 3e-3);
  EXPECT_DOUBLE_EQ(RingTimeS(Collective::kAllGather, 4, 400e6, kLink), 16e-6 + 3e-3);
}

TEST(RingTest, OneRankCostsNothing) {
  EXPECT_EQ(RingTimeS(Collective::kAllReduce, 1, 1e9, kLink), 0.0);
}

TEST(TreeTest, AllReduceMatchesHandComputedValue) {
  // p = 8: 10 + 2 x 3 x 2 us + 2 x 1e6 / 100e9 s = 22 us + 20 us.
  EXPECT_DOUBLE_EQ(TreeAllReduceTimeS(8, 1e6, kLink), 42e-6);
}

Machine TwoNodeMachine() {
  Machine m;
  m.node.gpus_per_node = 4;
  m.node.collective_launch_s = 10e-6;
  m.node.scale_up = LinkSpec{"nvlink", 200e9, 0.5, 2e-6};  // 100 GB/s achievable
  m.node.nics_per_node = 2;
  m.node.nic = LinkSpec{"ib", 50e9, 1.0, 5e-6};  // shared by 2 GPUs: 25 GB/s each
  m.system.nodes = 2;
  return m;
}

TEST(CollectiveModelTest, InsideOneNodeUsesTheRing) {
  CollectiveModel model(TwoNodeMachine(), CollectiveTable());
  CommTime t = model.Time(Collective::kAllReduce, 4, 400e6);
  EXPECT_EQ(t.method, "ring");
  EXPECT_DOUBLE_EQ(t.time_s, 22e-6 + 6e-3);
}

TEST(CollectiveModelTest, AcrossNodesIsHierarchical) {
  CollectiveModel model(TwoNodeMachine(), CollectiveTable());
  CommTime t = model.Time(Collective::kAllReduce, 8, 400e6);
  EXPECT_EQ(t.method, "hierarchical");
  // Reduce-scatter in the node: 16 us + 3 ms. Across 2 nodes on a 100 MB
  // shard at 25 GB/s, 5 us per step, no launch: ring 2 x 5 us + 100e6/25e9
  // = 4.01 ms; tree 2 x 5 us + 2 x 4 ms: ring. All-gather: 6 us + 3 ms
  // (the launch is counted once).
  EXPECT_NEAR(t.time_s, (16e-6 + 3e-3) + (10e-6 + 4e-3) + (6e-6 + 3e-3), 1e-12);
}

TEST(CollectiveTableTest, InterpolatesLogLogAndExtrapolatesAtTheLastBandwidth) {
  CollectiveTable table;
  table.Add(Collective::kAllReduce, 2, {1e3, 10e-6});
  table.Add(Collective::kAllReduce, 2, {1e5, 1000e-6});
  double t = 0;
  ASSERT_TRUE(table.TimeS(Collective::kAllReduce, 2, 1e4, &t));
  EXPECT_NEAR(t, 100e-6, 1e-12);  // halfway in log size: geometric mean
  ASSERT_TRUE(table.TimeS(Collective::kAllReduce, 2, 10, &t));
  EXPECT_DOUBLE_EQ(t, 10e-6);
  ASSERT_TRUE(table.TimeS(Collective::kAllReduce, 2, 2e5, &t));
  EXPECT_DOUBLE_EQ(t, 2000e-6);
  EXPECT_FALSE(table.TimeS(Collective::kAllReduce, 4, 1e4, &t));
}

std::string WriteFile(const std::string& name, const std::string& text) {
  const std::string path = testing::ScratchPath(name);
  std::ofstream(path) << text;
  return path;
}

TEST(CollectiveTableTest, LoadsTheCalibratorCsv) {
  const std::string path = WriteFile("ok.csv",
                                     "# NCCL 22803, 2 x GPU\n"
                                     "collective,gpus,bytes,time_us,min_us,max_us,algbw_gbs,busbw_gbs\n"
                                     "all_reduce,2,1024,16.5,16,17,0.06,0.06\n"
                                     "all_gather,2,1024,13.5,13,14,0.07,0.04\n");
  auto table = CollectiveTable::Load(path);
  ASSERT_TRUE(table.ok()) << table.status().message();
  double t = 0;
  ASSERT_TRUE(table->TimeS(Collective::kAllGather, 2, 1024, &t));
  EXPECT_DOUBLE_EQ(t, 13.5e-6);
  EXPECT_EQ(table->sources().at(0), "NCCL 22803, 2 x GPU");
}

TEST(CollectiveTableTest, BadRowsNameTheFileAndLine) {
  const std::string header = "collective,gpus,bytes,time_us\n";
  struct Case {
    std::string text, words;
  } cases[] = {
      {"", "no collective timings"},
      {"bytes,time\n", ":1: expected the header"},
      {header + "all_reduce,2,1024,nan\n", ":2: time_us must be a positive number"},
      {header + "broadcast,2,1024,5\n", ":2: unknown collective 'broadcast'"},
      {header + "all_reduce,0,1024,5\n", ":2: gpus must be a positive integer"},
      {header + "all_reduce,2,-5,5\n", ":2: bytes must be a positive number"},
      {header + "all_reduce,2\n", ":2: expected at least 4"},
  };
  for (const Case& c : cases) {
    const std::string path = WriteFile("bad.csv", c.text);
    auto table = CollectiveTable::Load(path);
    ASSERT_FALSE(table.ok()) << c.text;
    EXPECT_NE(table.status().message().find(path), std::string::npos);
    EXPECT_NE(table.status().message().find(c.words), std::string::npos)
        << table.status().message();
  }
  EXPECT_FALSE(CollectiveTable::Load("/nonexistent/t.csv").ok());
}

TEST(LinkFitTest, RecoversTheLinkThatMadeTheTable) {
  CollectiveTable table;
  for (int p : {2, 4}) {
    for (double s = 1e3; s <= 1e9; s *= 10) {
      for (Collective c : {Collective::kAllReduce, Collective::kAllGather}) {
        table.Add(c, p, {s, RingTimeS(c, p, s, kLink)});
      }
    }
  }
  AlphaBeta fit;
  ASSERT_TRUE(FitRingLink(table, &fit));
  EXPECT_NEAR(fit.launch_s, 10e-6, 1e-9);
  EXPECT_NEAR(fit.alpha_s, 2e-6, 1e-9);
  EXPECT_NEAR(fit.bw_bytes_per_s, 100e9, 1e3);
}

TEST(GradientAllReduceTest, BucketsInBackwardOrderOnOneStream) {
  // Four nodes with 1, 0, 2 and 1 MiB of gradients; backward ends at
  // 4, (3), 2 and 1 ms for nodes 0..3. Buckets: first 1 MiB {node 3} ready
  // at 1 ms, then 25 MiB cap: {2, 0} closed at the end, ready at 4 ms.
  const double mib = 1 << 20;
  CollectiveTable none;
  Machine m;
  m.node.gpus_per_node = 2;
  m.node.scale_up = LinkSpec{"nvlink", 100e9, 1.0, 0.0};
  CollectiveModel comm(m, none);
  DataParallelOptions options;
  options.gpus = 2;
  DataParallelStep step = PriceGradientAllReduce({1 * mib, 0, 2 * mib, 1 * mib},
                                                 {4e-3, 3e-3, 2e-3, 1e-3}, 4e-3, comm, options);
  EXPECT_EQ(step.buckets, 2);
  EXPECT_DOUBLE_EQ(step.gradient_bytes, 4 * mib);
  // Ring over 2 ranks at 100 GB/s: S/B each. The second bucket starts at
  // 4 ms, so all of it is exposed.
  EXPECT_DOUBLE_EQ(step.allreduce_s, 4 * mib / 100e9);
  EXPECT_NEAR(step.exposed_s, 3 * mib / 100e9, 1e-15);
  EXPECT_EQ(step.method, "ring");
}

TEST(GradientAllReduceTest, ZeroReduceScattersTheBucketsAndGathersTheWeights) {
  // The buckets of the test above, {1 MiB at 1 ms} and {3 MiB at 4 ms}, over
  // 2 ranks at 100 GB/s: a ring reduce-scatter or all-gather of S takes
  // S/2B, an all-reduce S/B.
  const double mib = 1 << 20;
  Machine m;
  m.node.gpus_per_node = 2;
  m.node.scale_up = LinkSpec{"nvlink", 100e9, 1.0, 0.0};
  CollectiveModel comm(m, CollectiveTable{});
  DataParallelOptions options;
  options.gpus = 2;
  options.zero_stage = 1;
  const std::vector<double> grads = {1 * mib, 0, 2 * mib, 1 * mib};
  const std::vector<double> ready = {4e-3, 3e-3, 2e-3, 1e-3};
  // ZeRO-1: reduce-scatters (2 MiB/B in all, the second's 1.5 MiB/B exposed)
  // and the all-gather of the 4 MiB of weights after the step (2 MiB/B).
  DataParallelStep one = PriceGradientAllReduce(grads, ready, 4e-3, comm, options, 1e-3);
  EXPECT_EQ(one.zero_stage, 1);
  EXPECT_DOUBLE_EQ(one.allreduce_s, 2 * mib / 100e9);
  EXPECT_DOUBLE_EQ(one.allgather_s, 2 * mib / 100e9);
  EXPECT_NEAR(one.exposed_s, 3.5 * mib / 100e9, 1e-15);
  // ZeRO-3: each bucket gathered again before its reduce-scatter (the
  // second's 1.5 + 1.5 MiB/B exposed); the forward's 2 MiB/B of gathers
  // hidden by 1 ms of forward.
  options.zero_stage = 3;
  DataParallelStep three = PriceGradientAllReduce(grads, ready, 4e-3, comm, options, 1e-3);
  EXPECT_DOUBLE_EQ(three.allreduce_s, 2 * mib / 100e9);
  EXPECT_DOUBLE_EQ(three.allgather_s, 4 * mib / 100e9);
  EXPECT_NEAR(three.exposed_s, 3 * mib / 100e9, 1e-15);
  // with no forward to hide them, the forward's gathers are exposed too
  DataParallelStep bare = PriceGradientAllReduce(grads, ready, 4e-3, comm, options, 0);
  EXPECT_NEAR(bare.exposed_s, 5 * mib / 100e9, 1e-15);
}

TEST(GradientAllReduceTest, OneGpuAddsNothing) {
  const Machine machine;
  const CollectiveModel comm(machine, CollectiveTable{});
  DataParallelStep step = PriceGradientAllReduce({1e6}, {1e-3}, 1e-3, comm, DataParallelOptions());
  EXPECT_EQ(step.buckets, 0);
  EXPECT_EQ(step.exposed_s, 0.0);
}

TEST(CollectiveModelTest, GroupOfOneGpuPerNodeUsesEachGpusNicShare) {
  CollectiveModel model(TwoNodeMachine(), CollectiveTable());
  // 2 ranks, one per node: the all-reduce runs across the nodes on the whole
  // buffer at 25 GB/s (a GPU's share of 2 NICs over 4 GPUs... capped at 1):
  // ring 10 us launch + 2 x 5 us + 400e6/25e9 = 16.02 ms; tree 10 + 2 x 5 us
  // + 2 x 16 ms: ring.
  CommTime t = model.GroupTime(Collective::kAllReduce, 2, 1, 400e6);
  EXPECT_EQ(t.method, "hierarchical");
  EXPECT_DOUBLE_EQ(t.time_s, 10e-6 + 10e-6 + 400e6 / 25e9);
}

TEST(CollectiveModelTest, GroupInsideANodeIsTheNodesCollective) {
  CollectiveModel model(TwoNodeMachine(), CollectiveTable());
  EXPECT_DOUBLE_EQ(model.GroupTime(Collective::kAllReduce, 4, 4, 400e6).time_s,
                   model.Time(Collective::kAllReduce, 4, 400e6).time_s);
}

TEST(CollectiveModelTest, SendUsesNvlinkInsideAndTheNicAcross) {
  CollectiveModel model(TwoNodeMachine(), CollectiveTable());
  EXPECT_DOUBLE_EQ(model.SendTimeS(100e6, 1), 2e-6 + 100e6 / 100e9);
  EXPECT_DOUBLE_EQ(model.SendTimeS(100e6, 2), 5e-6 + 100e6 / 25e9);
}

TEST(CollectiveModelTest, NvlsAllReduceInsideTheNodeWhenFaster) {
  Machine m = TwoNodeMachine();
  m.node.nvls = true;
  CollectiveModel model(m, CollectiveTable());
  // Ring: 10 us + 6 x 2 us + 6/4 x 4 ms = 6.022 ms. NVLS: 10 us + 2 x 2 us
  // + (1 + 1/4) x 400e6 / 100e9 = 5.014 ms.
  CommTime t = model.Time(Collective::kAllReduce, 4, 400e6);
  EXPECT_EQ(t.method, "nvls");
  EXPECT_DOUBLE_EQ(t.time_s, 14e-6 + 5e-3);
  // Reduce-scatter and all-gather keep the ring; two GPUs, where the ring
  // moves S/2 each way and NVLS 3S/2, too.
  EXPECT_EQ(model.Time(Collective::kReduceScatter, 4, 400e6).method, "ring");
  EXPECT_EQ(model.Time(Collective::kAllReduce, 2, 400e6).method, "ring");
}

Machine TaperedFabric(FabricTopology topology) {
  Machine m = TwoNodeMachine();
  m.system.nodes = 16;
  m.system.fabric.topology = topology;
  m.system.fabric.switch_ports = 8;     // fat tree: 4 down = 2 nodes of 2 NICs; rail: 4 nodes
  m.system.fabric.nodes_per_group = 2;  // dragonfly
  m.system.fabric.oversubscription = 4;
  m.system.fabric.hop_latency_s = 1e-6;
  return m;
}

TEST(CollectiveModelTest, FatTreeGroupWiderThanALeafCrossesTheTaperedSpine) {
  CollectiveModel model(TaperedFabric(FabricTopology::kFatTree), CollectiveTable());
  // Two nodes share a leaf: the NIC share as before.
  EXPECT_DOUBLE_EQ(model.GroupTime(Collective::kAllReduce, 2, 1, 400e6).time_s,
                   10e-6 + 10e-6 + 400e6 / 25e9);
  // Four nodes: 25 GB/s x min(1, 2 leaf nodes / 4) and 5 + 2 x 1 us per
  // step: ring 10 us + 6 x 7 us + 6/4 x 400e6 / 12.5e9 = 48.052 ms (tree:
  // 64 ms).
  CommTime t = model.GroupTime(Collective::kAllReduce, 4, 1, 400e6);
  EXPECT_DOUBLE_EQ(t.time_s, 52e-6 + 48e-3);
  EXPECT_DOUBLE_EQ(model.SendTimeS(100e6, 4), 7e-6 + 100e6 / 12.5e9);
}

TEST(CollectiveModelTest, RailSwitchHoldsOneNicOfMoreNodes) {
  CollectiveModel rail(TaperedFabric(FabricTopology::kRailOptimized), CollectiveTable());
  CollectiveModel flat(TwoNodeMachine(), CollectiveTable());
  // Four nodes on one rail switch: no upper tier crossed.
  EXPECT_DOUBLE_EQ(rail.GroupTime(Collective::kAllReduce, 4, 1, 400e6).time_s,
                   flat.GroupTime(Collective::kAllReduce, 4, 1, 400e6).time_s);
  EXPECT_GT(rail.GroupTime(Collective::kAllReduce, 8, 1, 400e6).time_s,
            flat.GroupTime(Collective::kAllReduce, 8, 1, 400e6).time_s);
}

TEST(CollectiveModelTest, DragonflyGlobalHopsAddLatency) {
  Machine m = TaperedFabric(FabricTopology::kDragonfly);
  m.system.fabric.oversubscription = 1;  // global links as wide as the local ones
  CollectiveModel model(m, CollectiveTable());
  // Three groups of two nodes: bandwidth kept, 3 hops of 1 us per step.
  EXPECT_DOUBLE_EQ(model.SendTimeS(100e6, 6), 8e-6 + 100e6 / 25e9);
}

}  // namespace
}  // namespace dlsim
