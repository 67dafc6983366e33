#include "dlsim/cost/cost_model.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "dlsim/machine/machine_io.h"
#include "dlsim/perfdb/perf_db.h"
#include "scratch_dir.h"

namespace dlsim {
namespace {

// Under the running test's name: ctest runs the tests of this file in
// parallel processes, which must not write one another's files.
std::string TempPath(const std::string& name) {
  const std::string test = ::testing::UnitTest::GetInstance()->current_test_info()->name();
  return testing::ScratchPath("cost_model_" + test + "_" + name);
}

KernelCall Relu() {
  KernelCall c;
  c.kind = KernelKind::kElementwise;
  c.AddParam("op", "relu");
  c.AddParam("elems", 1000000);
  c.AddParam("arity", 1);
  c.bytes_read = c.bytes_written = 4e6;
  return c;
}

KernelCall Gemm(int64_t n, DType dtype = DType::kFloat32, MathMode math = MathMode::kFp32) {
  KernelCall c;
  c.kind = KernelKind::kGemm;
  c.dtype = dtype;
  c.math = math;
  c.AddParam("m", n);
  c.AddParam("n", n);
  c.AddParam("k", n);
  c.AddParam("trans_a", 0);
  c.AddParam("trans_b", 0);
  c.flops = 2.0 * n * n * n;
  c.bytes_read = 8.0 * n * n;
  c.bytes_written = 4.0 * n * n;
  return c;
}

KernelCall Fp16Gemm(int64_t n) { return Gemm(n, DType::kFloat16, MathMode::kFp16); }
KernelCall Bf16Gemm(int64_t n) { return Gemm(n, DType::kBFloat16, MathMode::kBf16); }

// A record of `call` on `gpu` (10 SMs) with its algorithm and status.
MeasurementRecord RecordOf(const KernelCall& call, const std::string& gpu, const std::string& algo,
                           const std::string& status) {
  MeasurementRecord r;
  r.gpu_name = gpu;
  r.gpu_sms = 10;
  r.key = call.Key();
  r.algo = algo;
  r.status = status;
  return r;
}

// A database of one GPU holding each call measured at its time (ms), and
// the kernels per call of those in `counted`.
std::string DatabaseWith(const std::string& name, const std::string& gpu,
                         const std::vector<std::pair<KernelCall, double>>& timed,
                         const std::vector<std::pair<KernelCall, int>>& counted = {}) {
  std::vector<MeasurementRecord> records;
  for (const auto& [call, kernels] : counted) {
    MeasurementRecord r = RecordOf(call, gpu, "torch-kernels", "counted");
    r.kernels.resize(kernels);
    for (auto& k : r.kernels) k.name = "k";
    records.push_back(r);
  }
  for (const auto& [call, ms] : timed) {
    MeasurementRecord r = RecordOf(call, gpu, "-", "ok");
    r.median_ms = r.min_ms = r.max_ms = r.p10_ms = r.p90_ms = ms;
    r.reps = 10;
    records.push_back(r);
  }
  const std::string path = TempPath(name);
  std::remove(path.c_str());
  auto db = PerfDb::Open(path, OpenMode::kCreate);
  EXPECT_TRUE(db.ok()) << db.status().ToString();
  EXPECT_TRUE(db->ImportRecords(records).ok());
  return path;
}

// A machine file of the same device under another GPU name, reading `db`.
std::string MachineFile(const std::string& name, const std::string& gpu, const std::string& db,
                        const std::string& calibration_extra) {
  const std::string path = TempPath(name);
  std::ofstream(path) << "name: " << name << "\n"
                      << "device:\n  name: " << gpu << "\n  sm_count: 10\n"
                      << "  peak_tflops:\n    fp32_vector: 10\n"
                      << "  memory_gib: 16\n  memory_bw_gbs: 500\n  l2_mib: 4\n"
                      << "calibration:\n  perf_db: " << db << "\n" << calibration_extra;
  return path;
}

class ReferenceFallbackTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string ref = MachineFile(
        "ref.yaml", "Ref GPU",
        DatabaseWith("ref.sqlite", "Ref GPU",
                     {{Relu(), 0.1}, {Gemm(128), 0.3}, {Bf16Gemm(64), 0.02}, {Bf16Gemm(96), 0.03},
                      {Bf16Gemm(160), 0.05}, {Bf16Gemm(256), 0.1}},
                     {{Gemm(64), 2}, {Relu(), 1}}),
        "");
    const std::string own = MachineFile(
        "own.yaml", "Own GPU",
        DatabaseWith("own.sqlite", "Own GPU",
                     {{Gemm(64), 0.2}, {Gemm(96), 0.25}, {Gemm(160), 0.4}, {Gemm(256), 0.9},
                      {Fp16Gemm(64), 0.02}, {Fp16Gemm(96), 0.03}, {Fp16Gemm(160), 0.05},
                      {Fp16Gemm(256), 0.1}}),
        "  scale_from: " + ref + "\n  l2_resident_factor:\n    elementwise: 0.5\n");
    auto machine = LoadMachine(own);
    ASSERT_TRUE(machine.ok()) << machine.status().ToString();
    auto model = CostModel::ForMachine(*machine);
    ASSERT_TRUE(model.ok()) << model.status().ToString();
    model_ = std::move(model).value();
  }
  CostModel model_;
};

TEST_F(ReferenceFallbackTest, OwnDatabaseFirst) {
  const CallCost c = model_.Price(Gemm(64));
  EXPECT_EQ(c.source, CostSource::kMeasured);
  EXPECT_DOUBLE_EQ(c.time_s, 0.2e-3);
}

TEST_F(ReferenceFallbackTest, AKeyMeasuredOnTheReferenceComesBeforeThisGpusFittedModels) {
  const CallCost c = model_.Price(Gemm(128));
  EXPECT_EQ(c.source, CostSource::kScaled);
  EXPECT_DOUBLE_EQ(c.time_s, 0.3e-3);
}

TEST_F(ReferenceFallbackTest, ThisGpusFittedModelsComeBeforeTheReferences) {
  EXPECT_EQ(model_.Price(Gemm(200)).source, CostSource::kFitted);
}

TEST_F(ReferenceFallbackTest, WhatItLacksIsScaledFromTheReference) {
  // The two devices are alike: the reference's time, unchanged.
  const CallCost c = model_.Price(Relu());
  EXPECT_EQ(c.source, CostSource::kScaled);
  EXPECT_DOUBLE_EQ(c.time_s, 0.1e-3);
}

TEST_F(ReferenceFallbackTest, TheReferencesModelOfTheCallsMathComesBeforeAStandIn) {
  // This GPU has fp16 GEMMs only, the reference bf16 ones: a bf16 GEMM is
  // priced by the reference's bf16 model, a fp16 one by this GPU's.
  EXPECT_EQ(model_.Price(Bf16Gemm(200)).source, CostSource::kScaled);
  EXPECT_EQ(model_.Price(Fp16Gemm(200)).source, CostSource::kFitted);
}

TEST_F(ReferenceFallbackTest, AFittedGemmReadsItsOperandsAtNoMoreThanTheDatasheetBandwidth) {
  // The fitted model prices this shape at about 0.07 ms; reading 1 GB of
  // operands at 500 GB/s takes 2 ms.
  KernelCall streaming = Fp16Gemm(200);
  streaming.bytes_read = 1e9;
  const CallCost c = model_.Price(streaming);
  EXPECT_EQ(c.source, CostSource::kFitted);
  EXPECT_DOUBLE_EQ(c.time_s, 2e-3);
  EXPECT_LT(model_.Price(Fp16Gemm(200)).time_s, 0.2e-3);
}

TEST_F(ReferenceFallbackTest, KernelCountsComeFromTheReferenceWhenThisGpuCountedNone) {
  // A call launches the same kernels whichever source priced it: this GPU's
  // measured GEMM and its fitted one take the reference's counts (the
  // nearest counted key's for a shape it did not count).
  EXPECT_EQ(model_.Price(Gemm(64)).source, CostSource::kMeasured);
  EXPECT_EQ(model_.Price(Gemm(64)).kernels, 2);
  EXPECT_EQ(model_.Price(Gemm(200)).source, CostSource::kFitted);
  EXPECT_EQ(model_.Price(Gemm(200)).kernels, 2);
  EXPECT_EQ(model_.Price(Relu()).kernels, 1);
}

TEST_F(ReferenceFallbackTest, ThisMachinesL2ResidentFactorsApplyToItsOwnDatabaseOnly) {
  // The reference's times are its own: cold, as its database timed them.
  KernelCall warm = Relu();
  warm.resident_input_bytes = 4e6;  // within the 4 MiB L2
  const CallCost c = model_.Price(warm);
  EXPECT_EQ(c.source, CostSource::kScaled);
  EXPECT_DOUBLE_EQ(c.time_s, 0.1e-3);
}

}  // namespace
}  // namespace dlsim
