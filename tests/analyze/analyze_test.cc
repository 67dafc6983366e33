// dlsim analyze on hand-built graphs priced by synthetic databases: every
// time is a multiple of 1/1024 s so sums and differences are exact.
#include "dlsim/analyze/analyze.h"

#include <gtest/gtest.h>

#include <functional>
#include <memory>

#include "../ops/graph_builder.h"

namespace dlsim {
namespace {

using testing::GraphBuilder;

constexpr double kT = 1.0 / 1024;  // one time unit, in seconds

// A "measured" database given as a function of the call.
class FnPricer : public KernelPricer {
 public:
  using Fn = std::function<std::optional<CallCost>(const KernelCall&)>;
  explicit FnPricer(Fn fn) : fn_(std::move(fn)) {}
  std::optional<CallCost> Price(const KernelCall& call) const override { return fn_(call); }

 private:
  Fn fn_;
};

CallCost Measured(double time_s) {
  CallCost c;
  c.time_s = c.p10_s = c.p90_s = time_s;
  c.source = CostSource::kMeasured;
  c.bound = Bound::kCompute;
  return c;
}

Machine TestMachine() {
  Machine m;
  m.name = "synthetic";
  m.device.name = "Synthetic GPU";
  m.device.sm_count = 10;
  m.device.peak_flops.fp32_vector = 10e12;
  m.device.peak_flops.tf32_matrix = 100e12;
  m.device.peak_flops.fp16_matrix = 200e12;
  m.device.peak_flops.bf16_matrix = 200e12;
  m.device.memory_bw_bytes_per_s = 1e12;
  m.device.memory_bytes = 16e9;
  return m;
}

CostModel Synthetic(FnPricer::Fn fn) {
  CostModel cost = CostModel::RooflineOnly(TestMachine());
  cost.AddPricer(std::make_shared<FnPricer>(std::move(fn)));
  return cost;
}

// Analyses of fp32 inference with only the named precision variants.
Result<Analysis> Analyze(const Graph& g, const CostModel& cost,
                         std::vector<Precision> precisions = {},
                         const TimingTable* algorithms = nullptr) {
  EstimateOptions eo;
  eo.batch = 1;
  AnalyzeOptions ao;
  ao.precisions = std::move(precisions);
  ao.algorithms = algorithms;
  return AnalyzeModel(g, cost, eo, ao);
}

const Advice* Find(const Analysis& a, const std::string& kind) {
  for (const Advice& adv : a.advice) {
    if (adv.kind == kind) return &adv;
  }
  return nullptr;
}

bool HasNote(const Analysis& a, const std::string& prefix) {
  for (const std::string& n : a.notes) {
    if (n.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

// x -> conv (1x1 or 3x3 padded, 8 -> 8 channels, 16x16) -> out.
Node& Conv(GraphBuilder& b, const std::string& name, const std::string& in,
           const std::string& out, int64_t r, bool bias = false) {
  b.Weight(name + ".w", {8, 8, r, r});
  std::vector<std::string> inputs = {in, name + ".w"};
  if (bias) {
    b.Weight(name + ".b", {8});
    inputs.push_back(name + ".b");
  }
  Node& n = b.Op("Conv", name, inputs, out, {1, 8, 16, 16});
  GraphBuilder::SetInts(n, "kernel_shape", {r, r});
  const int64_t p = r / 2;
  GraphBuilder::SetInts(n, "pads", {p, p, p, p});
  return n;
}

// --- parallel --------------------------------------------------------------

// Two branches from x: a 3x3 conv (3 units) and a 1x1 conv (1 unit), summed
// (half a unit). One stream 4.5 units, critical path 3.5: one unit saved,
// exactly the 1x1 branch.
Graph TwoBranches() {
  GraphBuilder b;
  b.Input("x", {1, 8, 16, 16});
  Conv(b, "conv3x3", "x", "a", 3);
  Conv(b, "conv1x1", "x", "c", 1);
  b.Op("Add", "sum", {"a", "c"}, "y", {1, 8, 16, 16});
  return b.Build({"y"});
}

std::optional<CallCost> BranchPrices(const KernelCall& call) {
  if (call.kind == KernelKind::kConvFwd) return Measured(call.IntParam("r", 0) == 3 ? 3 * kT : kT);
  if (call.kind == KernelKind::kElementwise) return Measured(0.5 * kT);
  return std::nullopt;
}

TEST(AnalyzeStreams, TwoBranchesSaveTheShorterBranchExactly) {
  auto a = Analyze(TwoBranches(), Synthetic(BranchPrices));
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(a->baseline.gpu_time_s, 4.5 * kT);
  EXPECT_EQ(a->baseline.critical_path_s, 3.5 * kT);
  const Advice* p = Find(*a, "parallel");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->baseline_s, 4.5 * kT);
  EXPECT_EQ(p->improved_s, 3.5 * kT);
  EXPECT_EQ(p->saved_s(), 1 * kT);
  ASSERT_EQ(p->layers.size(), 1u);
  EXPECT_EQ(p->layers[0].layer, "conv1x1");
  EXPECT_EQ(p->layers[0].saved_s, 1 * kT);
}

TEST(AnalyzeStreams, AChainHasNothingToOverlap) {
  GraphBuilder b;
  b.Input("x", {1, 8, 16, 16});
  Conv(b, "c1", "x", "a", 3);
  Conv(b, "c2", "a", "y", 1);
  auto a = Analyze(b.Build({"y"}), Synthetic(BranchPrices));
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(Find(*a, "parallel"), nullptr);
  EXPECT_TRUE(HasNote(*a, "parallel: one chain"));
}

// --- convolution algorithm ---------------------------------------------------

Graph TwoConvChain() {
  GraphBuilder b;
  b.Input("x", {1, 8, 16, 16});
  Conv(b, "slow_pick", "x", "a", 3);
  Conv(b, "good_pick", "a", "y", 1);
  return b.Build({"y"});
}

TEST(AnalyzeConvAlgorithm, ReportsTheLayerWhoseHeuristicPickIsSlower) {
  auto cost = Synthetic([](const KernelCall& call) -> std::optional<CallCost> {
    if (call.kind != KernelKind::kConvFwd) return std::nullopt;
    const bool three = call.IntParam("r", 0) == 3;
    CallCost c = Measured(three ? 2 * kT : kT);
    c.algo = three ? "CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED" : "CUDNN_CONVOLUTION_FWD_ALGO_GEMM";
    c.heuristic_time_s = three ? 5 * kT : kT;  // the 1x1's heuristic pick is the fastest
    c.heuristic_algo = three ? "CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM" : c.algo;
    return c;
  });
  auto a = Analyze(TwoConvChain(), cost);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  const Advice* adv = Find(*a, "conv_algorithm");
  ASSERT_NE(adv, nullptr);
  EXPECT_EQ(adv->improved_s, 3 * kT);  // the estimate prices the fastest algorithms
  EXPECT_EQ(adv->baseline_s, 6 * kT);  // the heuristic's pick costs 3 units more
  ASSERT_EQ(adv->layers.size(), 1u);
  EXPECT_EQ(adv->layers[0].layer, "slow_pick");
  EXPECT_EQ(adv->layers[0].saved_s, 3 * kT);
  EXPECT_EQ(adv->layers[0].detail,
            "conv_fwd: heuristic IMPLICIT_GEMM 4.883 ms, fastest WINOGRAD_NONFUSED 1.953 ms")
      << "5/1024 s and 2/1024 s";
  EXPECT_NE(adv->note.find("2 of 2 convolution calls"), std::string::npos) << adv->note;
}

MeasurementRecord Record(const std::string& key, const std::string& algo, double ms,
                         bool heuristic) {
  MeasurementRecord r;
  r.gpu_name = "Synthetic GPU";
  r.key = key;
  r.algo = algo;
  r.median_ms = r.min_ms = r.max_ms = r.p10_ms = r.p90_ms = ms;
  r.heuristic = heuristic;
  r.status = "ok";
  r.reps = 10;
  return r;
}

// The key the lowering gives `node`'s convolution in `g` at fp32.
std::string ConvKey(const Graph& g, const CostModel& cost, const std::string& layer) {
  auto e = EstimateModel(g, cost, EstimateOptions{});
  for (const LayerEstimate& l : e->layers) {
    if (l.name == layer) return l.calls.at(0).Key();
  }
  return "";
}

TEST(AnalyzeConvAlgorithm, UsesTheAlgorithmDatabaseWhenTheCostModelHasNoHeuristic) {
  const Graph g = TwoConvChain();
  auto cost = Synthetic(BranchPrices);  // no heuristic information
  const std::string slow = ConvKey(g, cost, "slow_pick");
  const std::string good = ConvKey(g, cost, "good_pick");
  const TimingTable table = TimingTable::FromRecords(
      "Synthetic GPU", 10,
      {Record(slow, "CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM", 0.5, true),
       Record(slow, "CUDNN_CONVOLUTION_FWD_ALGO_FFT", 0.25, false),
       Record(good, "CUDNN_CONVOLUTION_FWD_ALGO_GEMM", 0.125, true)});
  auto a = Analyze(g, cost, {}, &table);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  const Advice* adv = Find(*a, "conv_algorithm");
  ASSERT_NE(adv, nullptr);
  ASSERT_EQ(adv->layers.size(), 1u);
  EXPECT_EQ(adv->layers[0].layer, "slow_pick");
  EXPECT_DOUBLE_EQ(adv->layers[0].saved_s, 0.25e-3);
  EXPECT_DOUBLE_EQ(adv->saved_s(), 0.25e-3);
  EXPECT_NE(adv->note.find("algorithm database"), std::string::npos) << adv->note;
}

TEST(AnalyzeConvAlgorithm, NoHeuristicDataIsSaidNotInvented) {
  auto a = Analyze(TwoConvChain(), Synthetic(BranchPrices));
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(Find(*a, "conv_algorithm"), nullptr);
  EXPECT_TRUE(HasNote(*a, "conv_algorithm: no data"));
}

// --- fusion ------------------------------------------------------------------

// x -> Conv (no bias) -> Add(per-channel bias [1,8,1,1]) -> Relu -> y; with
// `extra_reader`, a Sigmoid reads the conv output as well.
Graph ConvAddRelu(bool extra_reader) {
  GraphBuilder b;
  b.Input("x", {1, 8, 16, 16});
  Conv(b, "conv", "x", "c", 1);
  b.Weight("bias", {1, 8, 1, 1});
  b.Op("Add", "add", {"c", "bias"}, "a", {1, 8, 16, 16});
  b.Op("Relu", "relu", {"a"}, "y", {1, 8, 16, 16});
  std::vector<std::string> outputs = {"y"};
  if (extra_reader) {
    b.Op("Sigmoid", "other", {"c"}, "s", {1, 8, 16, 16});
    outputs.push_back("s");
  }
  return b.Build(outputs);
}

// Conv 4 units, every pointwise kernel 1 unit, the fused call 4.5 units
// when `fused_measured`, else not in the database.
FnPricer::Fn FusionPrices(bool fused_measured) {
  return [fused_measured](const KernelCall& call) -> std::optional<CallCost> {
    if (call.kind == KernelKind::kConvFwd) return Measured(4 * kT);
    if (call.kind == KernelKind::kConvBiasAct) {
      if (!fused_measured) return std::nullopt;
      EXPECT_EQ(call.StrParam("act", ""), "relu");
      return Measured(4.5 * kT);
    }
    if (call.kind == KernelKind::kElementwise) return Measured(kT);
    return std::nullopt;
  };
}

TEST(AnalyzeFusion, ConvAddBiasReluFusedWithTheMeasuredCall) {
  auto a = Analyze(ConvAddRelu(false), Synthetic(FusionPrices(true)));
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(a->baseline.gpu_time_s, 6 * kT);
  const Advice* f = Find(*a, "fusion");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->improved_s, 4.5 * kT);
  EXPECT_EQ(f->saved_s(), 1.5 * kT);
  ASSERT_EQ(f->layers.size(), 1u);
  EXPECT_EQ(f->layers[0].layer, "conv + add + relu");
  EXPECT_EQ(f->layers[0].saved_s, 1.5 * kT);
  EXPECT_NE(f->layers[0].detail.find("3 kernels"), std::string::npos) << f->layers[0].detail;
  EXPECT_EQ(f->note, "every fused call measured");
}

TEST(AnalyzeFusion, UnmeasuredFusedCallIsPricedAsTheConvolutionAlone) {
  auto a = Analyze(ConvAddRelu(false), Synthetic(FusionPrices(false)));
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  const Advice* f = Find(*a, "fusion");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->saved_s(), 2 * kT);  // the Add and the Relu
  EXPECT_NE(f->note.find("upper bound"), std::string::npos) << f->note;
}

TEST(AnalyzeFusion, NotFusedWhenTheIntermediateHasAnotherReader) {
  auto a = Analyze(ConvAddRelu(true), Synthetic(FusionPrices(true)));
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(Find(*a, "fusion"), nullptr);
  EXPECT_TRUE(HasNote(*a, "fusion: no Conv"));
}

TEST(AnalyzeFusion, AnAddThatIsNotAChannelBiasStopsTheGroup) {
  GraphBuilder b;
  b.Input("x", {1, 8, 16, 16});
  Conv(b, "conv", "x", "c", 1);
  b.Weight("not_bias", {1, 8, 16, 16});  // a full tensor, not per channel
  b.Op("Add", "add", {"c", "not_bias"}, "a", {1, 8, 16, 16});
  b.Op("Relu", "relu", {"a"}, "y", {1, 8, 16, 16});
  auto a = Analyze(b.Build({"y"}), Synthetic(FusionPrices(true)));
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(Find(*a, "fusion"), nullptr);
}

// Conv -> BatchNormalization -> Relu folds at inference, not in training.
Graph ConvBnRelu() {
  GraphBuilder b;
  b.Input("x", {1, 8, 16, 16});
  Conv(b, "conv", "x", "c", 1);
  for (const char* p : {"scale", "beta", "mean", "var"}) b.Weight(p, {8});
  b.Op("BatchNormalization", "bn", {"c", "scale", "beta", "mean", "var"}, "n", {1, 8, 16, 16});
  b.Op("Relu", "relu", {"n"}, "y", {1, 8, 16, 16});
  return b.Build({"y"});
}

TEST(AnalyzeFusion, BatchNormFoldsAtInference) {
  auto cost = Synthetic([](const KernelCall& call) -> std::optional<CallCost> {
    if (call.kind == KernelKind::kBatchNormInfer) return Measured(2 * kT);
    return FusionPrices(true)(call);
  });
  auto a = Analyze(ConvBnRelu(), cost);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  const Advice* f = Find(*a, "fusion");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->saved_s(), (4 + 2 + 1 - 4.5) * kT);
  ASSERT_EQ(f->layers.size(), 1u);
  EXPECT_EQ(f->layers[0].layer, "conv + bn + relu");

  EstimateOptions training;
  training.lowering.training = true;
  AnalyzeOptions ao;
  ao.precisions = {};
  auto t = AnalyzeModel(ConvBnRelu(), cost, training, ao);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(Find(*t, "fusion"), nullptr);
  EXPECT_TRUE(HasNote(*t, "fusion: not analysed in training"));
}

// --- layout ------------------------------------------------------------------

TEST(AnalyzeLayout, OnlyWhereTheDatabaseHasBothLayouts) {
  // The 3x3 conv is measured in both layouts (NHWC 1 unit faster), the 1x1
  // in NCHW only.
  auto cost = Synthetic([](const KernelCall& call) -> std::optional<CallCost> {
    if (call.kind != KernelKind::kConvFwd) return std::nullopt;
    const bool three = call.IntParam("r", 0) == 3;
    if (call.layout == Layout::kNhwc) return three ? std::optional<CallCost>(Measured(2 * kT)) : std::nullopt;
    return Measured(three ? 3 * kT : kT);
  });
  auto a = Analyze(TwoConvChain(), cost);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  const Advice* l = Find(*a, "layout");
  ASSERT_NE(l, nullptr);
  EXPECT_EQ(l->baseline_s, 4 * kT);
  EXPECT_EQ(l->improved_s, 3 * kT);
  ASSERT_EQ(l->layers.size(), 1u);
  EXPECT_EQ(l->layers[0].layer, "slow_pick");
  EXPECT_EQ(l->note, "1 of 2 layout-dependent calls measured in both layouts at fp32; the others "
                     "have no data and are left unchanged");

  auto none = Analyze(TwoConvChain(), Synthetic([](const KernelCall& call) {
    return call.layout == Layout::kNhwc ? std::nullopt : BranchPrices(call);
  }));
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(Find(*none, "layout"), nullptr);
  EXPECT_TRUE(HasNote(*none, "layout: no data"));
}

// --- precision and joint -----------------------------------------------------

// Two branches as above; fp16 halves every kernel, bf16 is slower than fp32.
std::optional<CallCost> PrecisionPrices(const KernelCall& call) {
  auto base = BranchPrices(call);
  if (!base) return base;
  if (call.dtype == DType::kFloat16) base->time_s = base->p10_s = base->p90_s = base->time_s / 2;
  if (call.dtype == DType::kBFloat16) base->time_s = base->p10_s = base->p90_s = base->time_s * 2;
  return base;
}

TEST(AnalyzePrecision, FasterPrecisionsAreAdviceSlowerOnesNotes) {
  auto a = Analyze(TwoBranches(), Synthetic(PrecisionPrices), {Precision::kFp16, Precision::kBf16});
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  const Advice* p = Find(*a, "precision");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->title, "Run in fp16 on tensor cores (mixed precision)");
  EXPECT_EQ(p->improved_s, 2.25 * kT);
  ASSERT_EQ(p->layers.size(), 3u);
  EXPECT_EQ(p->layers[0].layer, "conv3x3");
  EXPECT_EQ(p->layers[0].saved_s, 1.5 * kT);
  EXPECT_TRUE(HasNote(*a, "precision: bf16 is not faster"));
}

TEST(AnalyzePrecision, AVariantPricedMostlyByTheRooflineIsANoteNotAdvice) {
  // fp16 is not in the database: the roofline prices it (far faster).
  auto cost = Synthetic([](const KernelCall& call) {
    return call.dtype == DType::kFloat16 ? std::nullopt : BranchPrices(call);
  });
  auto a = Analyze(TwoBranches(), cost, {Precision::kFp16});
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(Find(*a, "precision"), nullptr);
  EXPECT_TRUE(HasNote(*a, "precision: fp16 estimated at"));
  const Advice* j = Find(*a, "joint");
  ASSERT_NE(j, nullptr);
  EXPECT_EQ(j->improved_s, 3.5 * kT);  // concurrent streams only, at fp32
  EXPECT_NE(j->note.find("left out for want of measurements: fp16 (0 % measured)"),
            std::string::npos) << j->note;
}

TEST(AnalyzeJoint, BestPrecisionAndConcurrentStreamsTogetherRankedFirst) {
  auto a = Analyze(TwoBranches(), Synthetic(PrecisionPrices), {Precision::kFp16, Precision::kBf16});
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  ASSERT_FALSE(a->advice.empty());
  const Advice& j = a->advice.front();
  EXPECT_EQ(j.kind, "joint");
  EXPECT_EQ(j.baseline_s, 4.5 * kT);
  EXPECT_EQ(j.improved_s, 1.75 * kT);  // fp16 critical path: 1.5 + 0.25
  EXPECT_NE(j.title.find("fp16"), std::string::npos) << j.title;
  EXPECT_NE(j.title.find("concurrent streams"), std::string::npos) << j.title;
  for (size_t i = 1; i < a->advice.size(); ++i) {
    EXPECT_GE(a->advice[i - 1].saved_s(), a->advice[i].saved_s()) << i;
  }
}

TEST(AnalyzeJoint, FusionInsideTheJointFigure) {
  auto a = Analyze(ConvAddRelu(false), Synthetic(FusionPrices(true)));
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  const Advice* j = Find(*a, "joint");
  ASSERT_NE(j, nullptr);
  EXPECT_EQ(j->improved_s, 4.5 * kT);
  EXPECT_NE(j->title.find("fused conv+bias+act (1)"), std::string::npos) << j->title;
}

}  // namespace
}  // namespace dlsim
