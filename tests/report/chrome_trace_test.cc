// --trace: the estimate's schedules as Chrome-trace tracks, with exact times
// on a hand-priced graph.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "../ops/graph_builder.h"
#include "dlsim/estimate/estimator.h"
#include "dlsim/machine/machine_io.h"
#include "dlsim/report/report.h"

namespace dlsim {
namespace {

using nlohmann::json;
using testing::GraphBuilder;

// x -> {r1: Relu 30 us, s: Sigmoid 50 us} -> add 10 us
Graph TwoBranches() {
  GraphBuilder b;
  b.Input("x", {8, 16, 32, 32});
  b.Op("Relu", "r1", {"x"}, "a", {8, 16, 32, 32});
  b.Op("Sigmoid", "s", {"x"}, "b", {8, 16, 32, 32});
  b.Op("Add", "add", {"a", "b"}, "z", {8, 16, 32, 32});
  return b.Build({"z"});
}

// Every call of node i costs node_us[i] / (its call count).
Estimate Priced(const Graph& graph, const EstimateOptions& options, const Machine& machine,
                const std::vector<double>& node_us) {
  auto plan = PlanEstimate(graph, options);
  EXPECT_TRUE(plan.ok()) << plan.status().ToString();
  std::vector<std::vector<CallCost>> costs(plan->lowered.nodes.size());
  for (size_t i = 0; i < costs.size(); ++i) {
    const size_t calls = plan->lowered.nodes[i].calls.size();
    for (size_t j = 0; j < calls; ++j) {
      CallCost c;
      c.time_s = node_us[std::min(i, node_us.size() - 1)] * 1e-6 / static_cast<double>(calls);
      costs[i].push_back(c);
    }
  }
  auto e = EstimatePlanned(graph, *plan, costs, machine, options);
  EXPECT_TRUE(e.ok()) << e.status().ToString();
  return *e;
}

Machine HostOf(double dispatch_us) {
  Machine m;
  m.name = "test";
  m.host.dispatch_s = dispatch_us * 1e-6;
  return m;
}

json Trace(const Estimate& e) { return json::parse(EstimateToChromeTrace(e)); }

// The complete events of `name` on pid/tid, in order.
std::vector<json> Events(const json& trace, int pid, int tid, const std::string& name) {
  std::vector<json> out;
  for (const json& ev : trace["traceEvents"]) {
    if (ev["ph"] == "X" && ev["pid"] == pid && ev["tid"] == tid && ev["name"] == name) out.push_back(ev);
  }
  return out;
}

// The name a metadata event gives, "" if none.
std::string MetaName(const json& trace, const char* what, int pid, int tid) {
  for (const json& ev : trace["traceEvents"]) {
    if (ev["ph"] == "M" && ev["name"] == what && ev["pid"] == pid && ev["tid"] == tid) {
      return ev["args"]["name"];
    }
  }
  return "";
}

void ExpectAt(const std::vector<json>& events, double ts_us, double dur_us) {
  ASSERT_EQ(events.size(), 1u);
  EXPECT_DOUBLE_EQ(events[0]["ts"].get<double>(), ts_us);
  EXPECT_DOUBLE_EQ(events[0]["dur"].get<double>(), dur_us);
}

TEST(EstimateTrace, OneStreamRunsTheKernelsBackToBack) {
  const json t = Trace(Priced(TwoBranches(), {}, HostOf(20), {30, 50, 10}));
  EXPECT_EQ(MetaName(t, "process_name", 1, 1), "GPU (one stream)");
  EXPECT_EQ(MetaName(t, "thread_name", 1, 1), "stream 0");
  ExpectAt(Events(t, 1, 1, "r1:elementwise"), 0, 30);
  ExpectAt(Events(t, 1, 1, "s:elementwise"), 30, 50);
  ExpectAt(Events(t, 1, 1, "add:elementwise"), 80, 10);
}

// The two branches side by side; the join on stream 0 when the longer ends.
TEST(EstimateTrace, CriticalPathPutsEachBranchOnAStream) {
  const json t = Trace(Priced(TwoBranches(), {}, HostOf(20), {30, 50, 10}));
  EXPECT_EQ(MetaName(t, "process_name", 2, 1), "GPU (critical path)");
  EXPECT_EQ(MetaName(t, "thread_name", 2, 1), "stream 0");
  EXPECT_EQ(MetaName(t, "thread_name", 2, 2), "stream 1");
  ExpectAt(Events(t, 2, 1, "r1:elementwise"), 0, 30);
  ExpectAt(Events(t, 2, 2, "s:elementwise"), 0, 50);
  ExpectAt(Events(t, 2, 1, "add:elementwise"), 50, 10);
}

// Host dispatches every 20 us; each kernel runs when dispatched and the
// previous one has ended: r1 at 20, s at 50 (r1's end), add at 100.
TEST(EstimateTrace, EagerHasTheHostBesideTheDevice) {
  const Estimate e = Priced(TwoBranches(), {}, HostOf(20), {30, 50, 10});
  const json t = Trace(e);
  EXPECT_EQ(MetaName(t, "process_name", 3, 1), "host");
  EXPECT_EQ(MetaName(t, "thread_name", 3, 1), "dispatch");
  EXPECT_EQ(MetaName(t, "process_name", 4, 1), "GPU (eager)");
  ExpectAt(Events(t, 3, 1, "r1"), 0, 20);
  ExpectAt(Events(t, 3, 1, "add"), 40, 20);
  ExpectAt(Events(t, 4, 1, "r1:elementwise"), 20, 30);
  ExpectAt(Events(t, 4, 1, "s:elementwise"), 50, 50);
  ExpectAt(Events(t, 4, 1, "add:elementwise"), 100, 10);
  EXPECT_DOUBLE_EQ(e.eager_s * 1e6, 110);
}

// x -> LSTM of 8 steps, its call priced 20 us over 4 kernels (every other
// node's calls: none). The host pays 20 us for the call and 10 us for each
// kernel's launch (rnn_per_kernel) and the GPU runs each kernel as it is
// launched: the call spans 20..60 us, a 5 us kernel ending every 10 us.
TEST(EstimateTrace, AnRnnsKernelsWaitForTheirLaunches) {
  GraphBuilder b;
  b.Input("x", {8, 1, 16}).Weight("W", {1, 128, 16}).Weight("R", {1, 128, 32});
  Node& lstm = b.Op("LSTM", "lstm", {"x", "W", "R"}, "y", {8, 1, 1, 32});
  GraphBuilder::SetInt(lstm, "hidden_size", 32);
  const Graph graph = b.Build({"y"});
  auto plan = PlanEstimate(graph, {});
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  ASSERT_EQ(plan->lowered.nodes.size(), 1u);
  ASSERT_EQ(plan->lowered.nodes[0].calls.size(), 1u);
  CallCost cost;
  cost.time_s = 20e-6;
  cost.kernels = 4;
  Machine m = HostOf(20);
  m.host.dispatch_s_by_kind["rnn_per_kernel"] = 10e-6;
  auto e = EstimatePlanned(graph, *plan, {{cost}}, m, {});
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  EXPECT_DOUBLE_EQ(e->eager_s * 1e6, 60);
  const json t = Trace(*e);
  ExpectAt(Events(t, 3, 1, "lstm"), 0, 60);
  const std::vector<json> kernels = Events(t, 4, 1, "lstm:rnn_fwd");
  ASSERT_EQ(kernels.size(), 4u);
  for (size_t k = 0; k < kernels.size(); ++k) {
    EXPECT_NEAR(kernels[k]["ts"].get<double>(), 25 + 10.0 * static_cast<double>(k), 1e-9) << k;
    EXPECT_NEAR(kernels[k]["dur"].get<double>(), 5, 1e-9) << k;
    EXPECT_EQ(kernels[k]["args"]["kernel"], std::to_string(k + 1) + " of 4");
  }
  // the one-stream track keeps the call whole
  ExpectAt(Events(t, 1, 1, "lstm:rnn_fwd"), 0, 20);
}

TEST(EstimateTrace, NoHostTrackWithoutDispatchCosts) {
  const json t = Trace(Priced(TwoBranches(), {}, HostOf(0), {30, 50, 10}));
  EXPECT_EQ(MetaName(t, "process_name", 3, 1), "");
  EXPECT_EQ(MetaName(t, "process_name", 4, 1), "");
  for (const json& ev : t["traceEvents"]) EXPECT_LE(ev["pid"].get<int>(), 2);
}

// x -> MatMul with a 1024x1024 weight (4 MiB of gradient: the 1 MiB first
// bucket holds all of it).
Graph OneWeight() {
  GraphBuilder b;
  b.Input("x", {64, 1024}).Weight("w", {1024, 1024});
  b.Op("MatMul", "mm", {"x", "w"}, "y", {64, 1024});
  return b.Build({"y"});
}

Machine H100() {
  auto m = LoadMachine(std::string(DLSIM_SOURCE_DIR) + "/machines/h100.yaml");
  EXPECT_TRUE(m.ok()) << m.status().ToString();
  return *m;
}

// The all-reduce starts when the weight's gradient is ready (the end of
// mm's backward, the last backward task) on a track of its own.
TEST(EstimateTrace, DataParallelAllReduceOnItsOwnTrack) {
  EstimateOptions o;
  o.lowering.training = true;
  o.data_parallel.gpus = 2;
  const Estimate e = Priced(OneWeight(), o, H100(), {100, 20});
  ASSERT_EQ(e.data_parallel.transfers.size(), 1u);
  const CommTransfer& ar = e.data_parallel.transfers[0];
  EXPECT_EQ(ar.collective, Collective::kAllReduce);
  EXPECT_DOUBLE_EQ(ar.bytes, 4.0 * 1024 * 1024);
  ASSERT_EQ(e.timeline.size(), 3u);  // mm, mm.bwd, the optimizer
  EXPECT_EQ(e.timeline[1].name, "mm.bwd");
  EXPECT_DOUBLE_EQ(ar.start_s, e.timeline[1].start_s + e.timeline[1].device_s);
  const json t = Trace(e);
  EXPECT_EQ(MetaName(t, "thread_name", 1, 2), "all-reduce");
  ExpectAt(Events(t, 1, 2, "all_reduce 0"), ar.start_s * 1e6, (ar.end_s - ar.start_s) * 1e6);
  EXPECT_GT(ar.end_s, ar.start_s);
}

TEST(EstimateTrace, NoCommunicationTrackOnOneGpu) {
  EstimateOptions o;
  o.lowering.training = true;
  const json t = Trace(Priced(OneWeight(), o, H100(), {100, 20}));
  EXPECT_EQ(MetaName(t, "thread_name", 1, 2), "");
  for (const json& ev : t["traceEvents"]) {
    if (ev["pid"] == 1) {
      EXPECT_NE(ev["tid"], 2) << ev.dump();
    }
  }
}

}  // namespace
}  // namespace dlsim
