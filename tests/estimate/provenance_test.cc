// The provenance of a unit of work (docs/fom.md, "Provenance"): a step's band
// and pricing shares from its calls, the unit time at the band's ends, and
// the warnings a FOM row carries.
#include <gtest/gtest.h>

#include <string>

#include "dlsim/estimate/fom.h"
#include "dlsim/estimate/workload_estimate.h"

namespace dlsim {
namespace {

CallCost Cost(CostSource source, double time_s, double p10_s, double p90_s) {
  CallCost c;
  c.source = source;
  c.time_s = time_s;
  c.p10_s = p10_s;
  c.p90_s = p90_s;
  return c;
}

TEST(StepOfEstimate, BandMovesTheEagerStepByTheKernelsSpread) {
  Estimate e;
  e.eager_s = 5e-3;
  e.warnings = {"an op was unknown"};
  LayerEstimate a, b;
  a.costs = {Cost(CostSource::kMeasured, 1e-3, 0.9e-3, 1.2e-3)};
  b.costs = {Cost(CostSource::kFitted, 2e-3, 1.5e-3, 2.4e-3), Cost(CostSource::kFitted, 1e-3, 1e-3, 1.2e-3)};
  e.layers = {a, b};
  const StepEstimate s = StepOfEstimate(e);
  EXPECT_DOUBLE_EQ(s.step_time_s, 5e-3);
  EXPECT_DOUBLE_EQ(s.p10_s, 5e-3 + (3.4e-3 - 4e-3));  // 4.4 ms
  EXPECT_DOUBLE_EQ(s.p90_s, 5e-3 + (4.8e-3 - 4e-3));  // 5.8 ms
  ASSERT_EQ(s.source_share.size(), 2u);
  EXPECT_DOUBLE_EQ(s.source_share.at("measured"), 0.25);
  EXPECT_DOUBLE_EQ(s.source_share.at("fitted"), 0.75);
  EXPECT_EQ(s.warnings, (std::vector<std::string>{"an op was unknown",
                                                  "step 75 % priced by fitted models"}));
}

TEST(StepOfEstimate, MostlyMeasuredHasNoPricingWarning) {
  Estimate e;
  e.eager_s = 2e-3;
  LayerEstimate a;
  a.costs = {Cost(CostSource::kMeasured, 0.6e-3, 0.5e-3, 0.7e-3),
             Cost(CostSource::kRoofline, 0.4e-3, 0.4e-3, 0.4e-3)};
  e.layers = {a};
  const StepEstimate s = StepOfEstimate(e);
  EXPECT_TRUE(s.warnings.empty());
  EXPECT_DOUBLE_EQ(s.source_share.at("roofline"), 0.4);
}

Workload Mlp() {
  Workload w;
  w.name = "mlp";
  w.model = ModelRef{"models/mlp.onnx", {}};
  w.batch = 64;
  w.precision = Precision::kBf16;
  w.dataset.train_samples = 6400;  // 100 steps
  w.epochs = 2;
  w.setup_s = 10;
  return w;
}

Machine Named(const std::string& name, const std::string& scale_from) {
  Machine m;
  m.name = name;
  m.node.gpus_per_node = 1;
  m.system.nodes = 1;
  m.calibration.scale_from = scale_from;
  return m;
}

// 1 s steps on the target, 2 s on the baseline, each with a -10 % / +20 % band.
Result<StepEstimate> Banded(const Workload&, const Machine& m) {
  StepEstimate s;
  s.step_time_s = m.name == "t" ? 1.0 : 2.0;
  s.p10_s = 0.9 * s.step_time_s;
  s.p90_s = 1.2 * s.step_time_s;
  s.source_share = {{"scaled", 1.0}};
  s.warnings = {"step 100 % priced by prices scaled from a reference GPU"};
  return s;
}

TEST(FomProvenance, RowsCarryTheUnitTimeBandSourcesAndWarnings) {
  const Machine t = Named("t", "/x/machines/h100.yaml");
  const Machine b = Named("b", "/x/machines/h100.yaml");
  auto fom = ComputeFom({Mlp()}, t, b, Banded);
  ASSERT_TRUE(fom.ok()) << fom.status().ToString();
  const FomRow& row = fom->rows[0];
  EXPECT_EQ(row.info.model, "mlp");
  EXPECT_EQ(row.info.batch, 64);
  EXPECT_EQ(row.info.precision, Precision::kBf16);
  EXPECT_EQ(row.info.mode, Mode::kTraining);
  EXPECT_DOUBLE_EQ(row.target.unit_time_s, 1.0 * 100 * 2 + 10);
  EXPECT_DOUBLE_EQ(row.target.unit_time_p10_s, 0.9 * 100 * 2 + 10);
  EXPECT_DOUBLE_EQ(row.target.unit_time_p90_s, 1.2 * 100 * 2 + 10);
  EXPECT_DOUBLE_EQ(row.baseline.unit_time_p90_s, 2.4 * 100 * 2 + 10);
  EXPECT_DOUBLE_EQ(row.target.step.source_share.at("scaled"), 1.0);
  EXPECT_EQ(row.warnings,
            (std::vector<std::string>{
                "both machines scaled from h100: the ratio reflects their specifications, not a "
                "calibration of either",
                "t: step 100 % priced by prices scaled from a reference GPU",
                "b: step 100 % priced by prices scaled from a reference GPU"}));
}

TEST(FomProvenance, AMeasuredFigureHasNoBandAndNoSources) {
  Workload w = Mlp();
  w.measured["b"].unit_time_s = 3600;
  const Machine t = Named("t", "");
  const Machine b = Named("b", "");
  auto fom = ComputeFom({w}, t, b, Banded);
  ASSERT_TRUE(fom.ok()) << fom.status().ToString();
  const MachineRate& base = fom->rows[0].baseline;
  EXPECT_EQ(base.basis, RateBasis::kMeasuredUnitTime);
  EXPECT_DOUBLE_EQ(base.unit_time_p10_s, 3600);
  EXPECT_DOUBLE_EQ(base.unit_time_p90_s, 3600);
  EXPECT_TRUE(base.step.source_share.empty());
  EXPECT_EQ(fom->rows[0].warnings,
            (std::vector<std::string>{"t: step 100 % priced by prices scaled from a reference GPU"}));
}

}  // namespace
}  // namespace dlsim
