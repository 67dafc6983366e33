// The FOM and workload-rate writers: each row names its workload, model,
// machine, batch, dtype and mode, and carries its band, pricing shares and
// warnings (docs/fom.md, "Provenance").
#include "dlsim/report/fom_report.h"

#include <gtest/gtest.h>

#include <string>

namespace dlsim {
namespace {

MachineRate Rate(const std::string& machine) {
  MachineRate r;
  r.machine = machine;
  r.basis = RateBasis::kEstimated;
  r.step_time_s = 0.5;
  r.step.step_time_s = 0.5;
  r.step.p10_s = 0.25;
  r.step.p90_s = 0.75;
  r.step.source_share = {{"fitted", 0.75}, {"measured", 0.25}};
  r.step.warnings = {"step 75 % priced by fitted models", "a, b"};
  r.steps_per_epoch = 10;
  r.concurrent_units = 2;
  r.unit_time_s = 5;
  r.unit_time_p10_s = 2.5;
  r.unit_time_p90_s = 7.5;
  r.units_per_day = 34560;
  return r;
}

WorkloadInfo Info() {
  WorkloadInfo info;
  info.name = "mlp";
  info.model = "p1b2";
  info.batch = 64;
  info.precision = Precision::kBf16;
  info.mode = Mode::kTraining;
  return info;
}

TEST(WorkloadRatesCsv, OneRowPerWorkloadWithItsProvenance) {
  const std::string csv = WorkloadRatesToCsv({{Info(), "h200", Rate("h200")}});
  EXPECT_EQ(csv,
            "workload,model,machine,batch,dtype,mode,basis,step_time_s,step_p10_s,step_p90_s,"
            "unit_time_s,unit_time_p10_s,unit_time_p90_s,units_per_day,share_measured,share_fitted,"
            "share_scaled,share_roofline,steps_per_epoch,concurrent_units,warnings\n"
            "mlp,p1b2,h200,64,bf16,training,estimated,0.5,0.25,0.75,5,2.5,7.5,34560,0.25,0.75,0,0,"
            "10,2,\"step 75 % priced by fitted models; a, b\"\n");
}

TEST(FomCsv, ATargetAndABaselineRowPerWorkload) {
  FomResult r;
  FomRow row;
  row.workload = "mlp";
  row.info = Info();
  row.target = Rate("h200");
  row.baseline = Rate("k20x");
  row.ratio = 1;
  row.warnings = {"h200: x"};
  r.rows = {row};
  const std::string csv = FomToCsv(r);
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "workload,model,machine,batch,dtype,mode,basis,step_time_s,step_p10_s,step_p90_s,"
            "unit_time_s,unit_time_p10_s,unit_time_p90_s,units_per_day,share_measured,share_fitted,"
            "share_scaled,share_roofline,role,ratio,warnings");
  EXPECT_NE(csv.find("\nmlp,p1b2,h200,64,bf16,training,estimated,"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",target,1,h200: x\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("\nmlp,p1b2,k20x,"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",baseline,1,h200: x\n"), std::string::npos) << csv;
}

TEST(RateProvenanceText, BandAndSourcesOrTheMeasuredBasis) {
  EXPECT_EQ(RateProvenanceText(Rate("h200")),
            "unit time P10-P90 2.500 s - 7.500 s; priced by fitted 75 %, measured 25 %");
  MachineRate measured;
  measured.basis = RateBasis::kMeasuredRate;
  EXPECT_EQ(RateProvenanceText(measured), "measured rate figure");
}

}  // namespace
}  // namespace dlsim
