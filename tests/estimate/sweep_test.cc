#include "dlsim/estimate/sweep.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "dlsim/estimate/workload_estimate.h"
#include "dlsim/machine/machine_io.h"
#include "dlsim/machine/workload_io.h"

namespace dlsim {
namespace {

const std::string kRoot = DLSIM_SOURCE_DIR;

Workload Synthetic(const std::string& name, int64_t batch) {
  Workload w;
  w.name = name;
  w.model = ModelRef{};  // never loaded: the step time is a stub
  w.batch = batch;
  w.dataset.train_samples = 1000;
  w.epochs = 1;
  w.gpus_per_unit = 1;
  w.measured["h100[base]"].unit_time_s = 1;  // must be ignored by a sweep
  return w;
}

// A step that only memory bandwidth speeds up: 1 s at 1 TB/s per sample.
Result<StepEstimate> BandwidthBound(const Workload& w, const Machine& m) {
  return PlainStep(w.batch * 1e12 / m.device.EffectiveMemoryBw());
}

Machine Base() {
  auto m = LoadMachine(kRoot + "/machines/h100.yaml");
  EXPECT_TRUE(m.ok()) << m.status().ToString();
  return m.ok() ? *m : Machine{};
}

TEST(SweepGrid, ParsesMultipliersAndAbsolutes) {
  auto grid = ParseSweepGrid({"memory_bw=x1,x1.5,x2", "device.matrix_peak=x1,x2", "nodes=1,4"});
  ASSERT_TRUE(grid.ok()) << grid.status().ToString();
  ASSERT_EQ(grid->axes.size(), 3u);
  EXPECT_EQ(grid->axes[0].field, "device.memory_bw");
  EXPECT_EQ(grid->axes[0].label, "memory_bw");
  EXPECT_TRUE(grid->axes[0].values[1].multiplier);
  EXPECT_DOUBLE_EQ(grid->axes[0].values[1].value, 1.5);
  EXPECT_EQ(grid->axes[2].field, "system.nodes");
  EXPECT_FALSE(grid->axes[2].values[1].multiplier);
  EXPECT_DOUBLE_EQ(grid->axes[2].values[1].value, 4);
  EXPECT_EQ(grid->VariantCount(), 12u);
}

TEST(SweepGrid, RejectsBadSpecsNamingFieldAndValue) {
  struct Case { std::string spec, needle; };
  for (const Case& c : std::vector<Case>{{"bogus=x1", "bogus"},
                                         {"memory_bw", "FIELD=V1"},
                                         {"memory_bw=x1,abc", "'abc'"},
                                         {"memory_bw=x0", "'x0'"},
                                         {"memory_bw=x1,,x2", "empty value"},
                                         {"memory_bw=x1,x1", "twice"},
                                         {"nodes=1.5", "whole number"},
                                         {"nodes=-2", "'-2'"},
                                         {"dispatch=xinf", "'xinf'"}}) {
    auto axis = ParseSweepAxis(c.spec);
    ASSERT_FALSE(axis.ok()) << c.spec;
    EXPECT_EQ(axis.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(axis.status().message().find(c.needle), std::string::npos)
        << c.spec << ": " << axis.status().message();
  }
  auto twice = ParseSweepGrid({"nodes=1", "system.nodes=2"});
  EXPECT_FALSE(twice.ok());
}

// "FIELD=1,2,...,n".
std::string Axis(const std::string& field, int n) {
  std::string spec = field + "=";
  for (int i = 1; i <= n; ++i) spec += (i > 1 ? "," : "") + std::to_string(i);
  return spec;
}

// Issue 24: 10^10 variants died with bad_alloc; a grid past kMaxSweepRows is
// refused before anything is allocated, its size computed without overflow.
TEST(SweepGrid, RefusesGridsPastTheLimit) {
  const std::vector<std::string> fields = {"memory_bw", "matrix_peak", "vector_peak", "sm_count",
                                           "gpus_per_node", "nodes", "nic_bw", "dispatch"};
  std::vector<std::string> ten;  // 10^8 x 10^2 = 10^10
  for (size_t i = 0; i < 5; ++i) ten.push_back(Axis(fields[i], 100));
  auto big = ParseSweepGrid(ten);
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.status().message(),
            "--grid: 10000000000 variants, more than the limit of 1000000 (variants x "
            "workloads); sweep fewer values");
  std::vector<std::string> huge;  // 300^8 > 2^64
  for (const std::string& f : fields) huge.push_back(Axis(f, 300));
  auto overflowing = ParseSweepGrid(huge);
  ASSERT_FALSE(overflowing.ok());
  EXPECT_NE(overflowing.status().message().find("more than 2^64 variants"), std::string::npos)
      << overflowing.status().message();
  // Exactly at the limit parses; with two workloads it is refused before pricing.
  auto at_limit = ParseSweepGrid({Axis("memory_bw", 1000), Axis("matrix_peak", 1000)});
  ASSERT_TRUE(at_limit.ok()) << at_limit.status().ToString();
  EXPECT_EQ(at_limit->VariantCount(), kMaxSweepRows);
  int priced = 0;
  StepTimeFn counting = [&priced](const Workload&, const Machine&) -> Result<StepEstimate> {
    ++priced;
    return PlainStep(1.0);
  };
  auto r = RunSweep({Synthetic("a", 10), Synthetic("b", 10)}, Base(), *at_limit, counting);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "sweep: 1000000 variants x 2 workloads is more than the limit of 1000000 rows; "
            "sweep fewer values");
  EXPECT_EQ(priced, 0);
}

TEST(SweepGrid, TwoByTwoGivesFourVariantsWithTheirValues) {
  Machine base = Base();
  auto grid = ParseSweepGrid({"memory_bw=x1,x2", "gpus_per_node=4,8"});
  ASSERT_TRUE(grid.ok());
  ASSERT_EQ(grid->VariantCount(), 4u);
  auto v = MakeVariant(base, *grid, SweepPoint(*grid, 2));  // memory_bw=x2, gpus=4
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ(v->name, "h100[memory_bw=x2,gpus_per_node=4]");
  EXPECT_DOUBLE_EQ(v->device.memory_bw_bytes_per_s, 2 * base.device.memory_bw_bytes_per_s);
  EXPECT_DOUBLE_EQ(v->device.measured_memory_bw_bytes_per_s,
                   2 * base.device.measured_memory_bw_bytes_per_s);
  EXPECT_EQ(v->node.gpus_per_node, 4);
  // Priced from the base's calibration, scaled to the variant.
  EXPECT_EQ(v->calibration.perf_db, "");
  EXPECT_EQ(v->calibration.scale_from, base.source_path);
  auto last = MakeVariant(base, *grid, SweepPoint(*grid, 3));
  ASSERT_TRUE(last.ok());
  EXPECT_EQ(last->name, "h100[memory_bw=x2,gpus_per_node=8]");
}

TEST(SweepGrid, ScalesPeakAndDispatchGroups) {
  Machine base = Base();
  base.host.dispatch_s_by_kind["gemm"] = 4e-6;
  SweepValue x2{true, 2, "x2"};
  Machine m = base;
  ASSERT_TRUE(ApplySweepValue("device.matrix_peak", x2, &m).ok());
  ASSERT_TRUE(ApplySweepValue("host.dispatch", x2, &m).ok());
  EXPECT_DOUBLE_EQ(m.device.peak_flops.bf16_matrix, 2 * base.device.peak_flops.bf16_matrix);
  EXPECT_DOUBLE_EQ(m.device.peak_flops.tf32_matrix, 2 * base.device.peak_flops.tf32_matrix);
  EXPECT_DOUBLE_EQ(m.device.peak_flops.fp32_vector, base.device.peak_flops.fp32_vector);
  EXPECT_DOUBLE_EQ(m.host.dispatch_s_by_kind["gemm"], 8e-6);
  EXPECT_DOUBLE_EQ(m.host.dispatch_s, 2 * base.host.dispatch_s);
  // An absolute memory_bw keeps the measured/datasheet ratio.
  Machine a = base;
  SweepValue abs{false, 2 * base.device.memory_bw_bytes_per_s, "abs"};
  ASSERT_TRUE(ApplySweepValue("device.memory_bw", abs, &a).ok());
  EXPECT_DOUBLE_EQ(a.device.EffectiveMemoryBw(), 2 * base.device.EffectiveMemoryBw());
}

TEST(Sweep, BandwidthBoundStubGivesFomTwoAndRanksMemoryFirst) {
  auto grid = ParseSweepGrid({"matrix_peak=x1,x4", "memory_bw=x1,x2"});
  ASSERT_TRUE(grid.ok());
  std::vector<Workload> workloads = {Synthetic("a", 10), Synthetic("b", 20), Synthetic("c", 50)};
  SweepOptions options;
  options.threads = 3;
  auto r = RunSweep(workloads, Base(), *grid, BandwidthBound, options);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->variants.size(), 4u);
  EXPECT_EQ(r->variants[0].name, "h100[matrix_peak=x1,memory_bw=x1]");
  EXPECT_NEAR(r->variants[0].fom, 1, 1e-12);  // measured figure ignored
  EXPECT_NEAR(r->variants[1].fom, 2, 1e-12);
  EXPECT_NEAR(r->variants[2].fom, 1, 1e-12);
  EXPECT_NEAR(r->variants[3].fom, 2, 1e-12);
  ASSERT_EQ(r->sensitivity.size(), 2u);
  EXPECT_EQ(r->sensitivity[0].field, "device.memory_bw");
  EXPECT_NEAR(r->sensitivity[0].fom_range, 1, 1e-12);
  EXPECT_NEAR(r->sensitivity[1].fom_range, 0, 1e-12);
  const std::string csv = SweepCsv(*grid, *r);
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "variant,matrix_peak,memory_bw,workload,model,machine,batch,dtype,mode,step_time_s,"
            "step_p10_s,step_p90_s,unit_time_s,unit_time_p10_s,unit_time_p90_s,units_per_day,fom,"
            "h_rate_low,h_rate_high,share_measured,share_fitted,share_scaled,share_roofline,warnings");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1 + 4 * 3);
}

// A step with a -20 % / +50 % band, half measured and half fitted.
Result<StepEstimate> BandedBandwidthBound(const Workload& w, const Machine& m) {
  DLSIM_ASSIGN_OR_RETURN(StepEstimate s, BandwidthBound(w, m));
  s.p10_s = 0.8 * s.step_time_s;
  s.p90_s = 1.5 * s.step_time_s;
  s.source_share = {{"measured", 0.5}, {"fitted", 0.5}};
  s.warnings = {"one, \"quoted\""};
  return s;
}

TEST(Sweep, VariantsCarryTheRateBandAndPricingShares) {
  auto grid = ParseSweepGrid({"memory_bw=x1,x2"});
  ASSERT_TRUE(grid.ok());
  // Two workloads, unit times 1:2 (1000 steps each; batch 10 and 20).
  auto r = RunSweep({Synthetic("a", 10), Synthetic("b", 20)}, Base(), *grid, BandedBandwidthBound);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  for (const SweepVariant& v : r->variants) {
    // Every unit time scales by 1.5 (0.8) at P90 (P10): so does H, inversely.
    EXPECT_NEAR(v.h_rate_low, v.h_rate / 1.5, 1e-9 * v.h_rate) << v.name;
    EXPECT_NEAR(v.h_rate_high, v.h_rate / 0.8, 1e-9 * v.h_rate) << v.name;
    EXPECT_NEAR(v.source_share.at("measured"), 0.5, 1e-12);
    EXPECT_NEAR(v.source_share.at("fitted"), 0.5, 1e-12);
  }
  EXPECT_EQ(r->workload_info[1].batch, 20);
  const std::string csv = SweepCsv(*grid, *r);
  const std::string first = csv.substr(csv.find('\n') + 1);
  EXPECT_EQ(first.rfind("h100[memory_bw=x1],x1,a,,h100,10,fp32,training,", 0), 0u)
      << first.substr(0, 200);
  EXPECT_NE(csv.find(",0.5,0.5,0,0,\"one, \"\"quoted\"\"\"\n"), std::string::npos) << csv;
}

TEST(Sweep, NodesScaleConcurrentUnits) {
  auto grid = ParseSweepGrid({"nodes=1,4"});
  ASSERT_TRUE(grid.ok());
  Machine base = Base();
  auto r = RunSweep({Synthetic("a", 10)}, base, *grid, BandwidthBound);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_NEAR(r->variants[1].fom / r->variants[0].fom, 4, 1e-12);
}

TEST(Sweep, StepErrorNamesTheVariant) {
  auto grid = ParseSweepGrid({"memory_bw=x1,x2"});
  ASSERT_TRUE(grid.ok());
  StepTimeFn failing = [](const Workload& w, const Machine& m) -> Result<StepEstimate> {
    if (m.name.find("x2") != std::string::npos) return InvalidArgument("no model");
    return PlainStep(1.0);
  };
  auto r = RunSweep({Synthetic("a", 10)}, Base(), *grid, failing);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("h100[memory_bw=x2]"), std::string::npos)
      << r.status().message();
}

// The sweep's step times (each workload lowered and priced on the reference
// once, then scaled per variant) are exactly the general path's, for
// training workloads with and without data parallelism.
TEST(SweepStepTime, EqualsTheGeneralPathOnEveryVariant) {
  auto study = LoadWorkloadFile(kRoot + "/workloads/candle-projection.yaml");
  ASSERT_TRUE(study.ok()) << study.status().ToString();
  auto grid = ParseSweepGrid({"memory_bw=x1,x2", "matrix_peak=x1,x3", "gpus_per_node=1,4", "dispatch=x1,x0.5"});
  ASSERT_TRUE(grid.ok());
  std::vector<Workload> workloads = study->workloads;
  for (Workload& w : workloads) w.gpus_per_unit = 4;  // data parallel where the node has 4
  const Machine base = Base();
  StepTimeFn general = MakeStepTimeFn();
  StepTimeFn sweep = MakeSweepStepTimeFn();
  int compared = 0;
  for (size_t i = 0; i < grid->VariantCount(); ++i) {
    auto variant = MakeVariant(base, *grid, SweepPoint(*grid, i));
    ASSERT_TRUE(variant.ok());
    if (variant->node.gpus_per_node * variant->system.nodes < 4) continue;
    for (const Workload& w : workloads) {
      auto a = general(w, *variant);
      auto b = sweep(w, *variant);
      ASSERT_TRUE(a.ok() && b.ok()) << variant->name << ": " << a.status().ToString() << b.status().ToString();
      EXPECT_DOUBLE_EQ(a->step_time_s, b->step_time_s) << variant->name << " " << w.name;
      EXPECT_DOUBLE_EQ(a->p10_s, b->p10_s) << variant->name << " " << w.name;
      EXPECT_DOUBLE_EQ(a->p90_s, b->p90_s) << variant->name << " " << w.name;
      EXPECT_EQ(a->source_share, b->source_share) << variant->name << " " << w.name;
      ++compared;
    }
  }
  EXPECT_EQ(compared, 8 * 3);
}

}  // namespace
}  // namespace dlsim
