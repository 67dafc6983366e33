#include "dlsim/estimate/fom.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "dlsim/machine/machine_io.h"
#include "dlsim/machine/workload_io.h"

namespace dlsim {
namespace {

const std::string kRoot = DLSIM_SOURCE_DIR;

struct Study {
  WorkloadFile file;
  Machine target;
  Machine baseline;
};

Study LoadStudy(const std::string& relative) {
  Study s;
  auto file = LoadWorkloadFile(kRoot + "/" + relative);
  EXPECT_TRUE(file.ok()) << file.status().ToString();
  if (!file.ok()) return s;
  s.file = *file;
  auto target = LoadMachine(file->target_path);
  auto baseline = LoadMachine(file->baseline_path);
  EXPECT_TRUE(target.ok()) << target.status().ToString();
  EXPECT_TRUE(baseline.ok()) << baseline.status().ToString();
  if (target.ok()) s.target = *target;
  if (baseline.ok()) s.baseline = *baseline;
  return s;
}

Machine Gpus(const std::string& name, int gpus_per_node, int nodes) {
  Machine m;
  m.name = name;
  m.node.gpus_per_node = gpus_per_node;
  m.system.nodes = nodes;
  return m;
}

TEST(Fom, CandleExampleFromUnitTimes) {
  Study s = LoadStudy("workloads/candle-fom-example.yaml");
  auto fom = ComputeFom(s.file.workloads, s.target, s.baseline, nullptr);
  ASSERT_TRUE(fom.ok()) << fom.status().ToString();
  EXPECT_EQ(fom->target_machine, "machine-a");
  EXPECT_EQ(fom->baseline_machine, "titan");
  ASSERT_EQ(fom->rows.size(), 3u);
  EXPECT_NEAR(fom->rows[0].rate_baseline, 7475.2, 1e-9);
  EXPECT_NEAR(fom->rows[1].rate_baseline, 74752, 1e-9);
  EXPECT_NEAR(fom->rows[2].rate_baseline, 37376, 1e-9);
  EXPECT_NEAR(fom->rows[0].rate_target, 564000, 1e-6);
  EXPECT_NEAR(fom->rows[1].rate_target, 4512000, 1e-6);
  EXPECT_NEAR(fom->rows[2].rate_target, 9024000, 1e-6);
  EXPECT_DOUBLE_EQ(fom->rows[0].unit_time_baseline_s, 60 * 3600.0);
  EXPECT_DOUBLE_EQ(fom->rows[2].unit_time_target_s, 0.25 * 3600);
  // The table in docs/fom.md shows these truncated: 75.45, 60.36, 241.43.
  EXPECT_NEAR(fom->rows[0].ratio, 564000 / 7475.2, 1e-9);
  EXPECT_NEAR(fom->rows[1].ratio, 4512000 / 74752.0, 1e-9);
  EXPECT_NEAR(fom->rows[2].ratio, 9024000 / 37376.0, 1e-9);
  EXPECT_EQ(fom->rows[0].baseline.basis, RateBasis::kMeasuredUnitTime);
  EXPECT_EQ(fom->rows[0].baseline.concurrent_units, 18688);
  EXPECT_EQ(fom->rows[0].target.concurrent_units, 94000);
  EXPECT_NEAR(fom->h_baseline, 17250.46, 5e-3);
  EXPECT_NEAR(fom->h_target, 1424842.1, 5e-2);
  EXPECT_LT(std::fabs(fom->fom - 82.597), 5e-4);
  EXPECT_LT(std::fabs(fom->arithmetic_mean_ratio - 125.749), 5e-4);
  char printed[32];
  std::snprintf(printed, sizeof(printed), "%.3f", fom->fom);
  EXPECT_STREQ(printed, "82.597");
}

TEST(Fom, CandleExampleFromSlideRates) {
  Study s = LoadStudy("workloads/candle-fom-example-rates.yaml");
  auto fom = ComputeFom(s.file.workloads, s.target, s.baseline, nullptr);
  ASSERT_TRUE(fom.ok()) << fom.status().ToString();
  EXPECT_NEAR(fom->h_baseline, 1676313600.0 / 97177, 1e-9);
  EXPECT_NEAR(fom->h_target, 1424842.1, 5e-2);
  EXPECT_LT(std::fabs(fom->fom - 82.599), 5e-4);
  EXPECT_EQ(fom->rows[0].baseline.basis, RateBasis::kMeasuredRate);
  EXPECT_DOUBLE_EQ(fom->rows[0].rate_baseline, 7475);
  // The implied unit time: a day × 18,688 nodes / 7,475 units.
  EXPECT_DOUBLE_EQ(fom->rows[0].unit_time_baseline_s, 86400.0 * 18688 / 7475);
}

TEST(Fom, HarmonicMeanOfKnownRates) {
  auto h = HarmonicMean({1, 2, 4});
  ASSERT_TRUE(h.ok());
  EXPECT_DOUBLE_EQ(*h, 3.0 / 1.75);
  // For three rates H = 3·X1X2X3 / (X1X2 + X1X3 + X2X3).
  const double x1 = 7475.2, x2 = 74752, x3 = 37376;
  EXPECT_NEAR(*HarmonicMean({x1, x2, x3}), 3 * x1 * x2 * x3 / (x1 * x2 + x1 * x3 + x2 * x3),
              1e-9);
  EXPECT_DOUBLE_EQ(*HarmonicMean({5}), 5);
  EXPECT_FALSE(HarmonicMean({}).ok());
  EXPECT_FALSE(HarmonicMean({1, 0}).ok());
  EXPECT_FALSE(HarmonicMean({1, -2}).ok());
  EXPECT_FALSE(HarmonicMean({1, NAN}).ok());
}

TEST(Fom, StepsPerEpochCountsAPartialLastBatch) {
  DatasetSpec d;
  d.train_samples = 1000;
  EXPECT_EQ(StepsPerEpoch(d, 100), 10);
  EXPECT_EQ(StepsPerEpoch(d, 128), 8);  // 7 full batches + 104 samples
  EXPECT_EQ(StepsPerEpoch(d, 1), 1000);
  EXPECT_EQ(StepsPerEpoch(d, 5000), 1);
  d.validation_fraction = 0.1;  // 900 trained on
  EXPECT_EQ(TrainSamplesPerEpoch(d), 900);
  EXPECT_EQ(StepsPerEpoch(d, 100), 9);
  EXPECT_EQ(StepsPerEpoch(d, 128), 8);  // 7 × 128 = 896, 4 left over
  d.train_samples = 1281167;  // ImageNet-1k
  d.validation_fraction = 0;
  EXPECT_EQ(StepsPerEpoch(d, 256 * 8), 626);  // 1,281,167 / 2,048 = 625.57
  d.train_samples = 10;
  d.validation_fraction = 0.15;  // 8.5 -> 8 (Keras' int())
  EXPECT_EQ(TrainSamplesPerEpoch(d), 8);
}

TEST(Fom, UnitTimeAndUnitsPerDay) {
  EXPECT_DOUBLE_EQ(UnitTimeS(0.5, 100, 3, 60), 0.5 * 100 * 3 + 60);
  EXPECT_DOUBLE_EQ(UnitsPerDay(3600, 8), 24 * 8);
  Workload w;
  w.name = "w";
  w.gpus_per_unit = 3;
  Machine m = Gpus("m", 8, 2);
  EXPECT_EQ(GpusPerUnit(w, m), 3);
  EXPECT_EQ(*ConcurrentUnits(w, m), 5);  // floor(16 / 3)
  w.gpus_per_unit = 17;
  auto too_big = ConcurrentUnits(w, m);
  ASSERT_FALSE(too_big.ok());
  EXPECT_NE(too_big.status().message().find("one unit needs 17 GPUs but machine m has 16"),
            std::string::npos);
  w.nodes_per_unit = 2;
  EXPECT_EQ(GpusPerUnit(w, m), 16);
  EXPECT_EQ(*ConcurrentUnits(w, m), 1);
}

TEST(Fom, EstimatedRatesUseTheStepTimeCallback) {
  Workload w;
  w.name = "mlp";
  w.model = ModelRef{"model.onnx", {}};
  w.batch = 64;
  w.dataset.train_samples = 10000;
  w.dataset.validation_fraction = 0.2;  // 8,000 trained on
  w.epochs = 10;
  w.gpus_per_unit = 2;
  w.setup_s = 30;
  w.measured["base"].unit_time_s = 3600;
  const Machine target = Gpus("target", 8, 1);
  const Machine base = Gpus("base", 4, 1);
  StepTimeFn step = [](const Workload&, const Machine& m) -> Result<StepEstimate> {
    if (m.name == "target") return PlainStep(0.02);
    return Internal("should not be asked: measured");
  };
  auto fom = ComputeFom({w}, target, base, step);
  ASSERT_TRUE(fom.ok()) << fom.status().ToString();
  const FomRow& row = fom->rows[0];
  EXPECT_EQ(row.target.basis, RateBasis::kEstimated);
  EXPECT_EQ(row.target.steps_per_epoch, 63);  // ceil(8000 / 128)
  EXPECT_DOUBLE_EQ(row.unit_time_target_s, 0.02 * 63 * 10 + 30);
  EXPECT_DOUBLE_EQ(row.rate_target, 86400 / (0.02 * 63 * 10 + 30) * 4);
  EXPECT_DOUBLE_EQ(row.rate_baseline, 24.0 * 2);
  EXPECT_DOUBLE_EQ(fom->fom, row.rate_target / row.rate_baseline);

  auto no_estimator = ComputeFom({w}, target, base, nullptr);
  ASSERT_FALSE(no_estimator.ok());
  EXPECT_NE(no_estimator.status().message().find("no measured figure for machine 'target' and "
                                                 "no estimator"),
            std::string::npos);
  StepTimeFn failing = [](const Workload&, const Machine&) -> Result<StepEstimate> {
    return Unsupported("unknown op Foo");
  };
  auto failed = ComputeFom({w}, target, base, failing);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(failed.status().message().find("(mlp) on target: unknown op Foo"),
            std::string::npos)
      << failed.status().message();
  w.model.reset();
  auto no_model = ComputeFom({w}, target, base, step);
  ASSERT_FALSE(no_model.ok());
  EXPECT_NE(no_model.status().message().find("no model to estimate"), std::string::npos);
}

}  // namespace
}  // namespace dlsim
