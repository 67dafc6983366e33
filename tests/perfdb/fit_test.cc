#include "dlsim/perfdb/fit.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

#include "dlsim/perfdb/perf_db.h"
#include "kernel/work.h"
#include "perfdb_test_util.h"

namespace dlsim {
namespace {

constexpr int64_t kSms = 132;
// The known model the synthetic records come from.
constexpr double kT0 = 4e-6;                   // launch floor, s
constexpr double kSecPerFlop = 1.0 / 200e12;   // 200 TFLOP/s
constexpr double kSecPerByte = 1.0 / 2.5e12;   // 2.5 TB/s
constexpr double kMemT0 = 2e-6;
constexpr double kMemSecPerByte = 1.0 / 3e12;

// Deterministic multiplicative noise in [1 - amp, 1 + amp].
class Noise {
 public:
  explicit Noise(double amp) : amp_(amp) {}
  double Next() {
    state_ = state_ * 6364136223846793005ULL + 1442695040888963407ULL;
    double u = static_cast<double>(state_ >> 11) / 9007199254740992.0;  // [0, 1)
    return 1.0 + amp_ * (2 * u - 1);
  }

 private:
  double amp_;
  uint64_t state_ = 42;
};

MeasurementRecord Record(const std::string& key, double seconds) {
  return testing::SyntheticRecord(key, seconds, kSms, "cublas_default");
}

std::string GemmKey(int m, int n, int k) {
  return "gemm m=" + std::to_string(m) + " n=" + std::to_string(n) + " k=" +
         std::to_string(k) + " trans_a=0 trans_b=0 dtype=fp16 math=fp16 layout=-";
}

std::string CopyKey(int64_t elems) {
  return "copy op=transpose elems=" + std::to_string(elems) +
         " dtype=fp32 math=fp32 layout=-";
}

double TrueGemmSeconds(const std::string& key) {
  KeyWork w = *WorkOfKey(*ParseKernelKey(key));
  return kT0 + kSecPerFlop * w.flops / WaveEfficiency(w.tiles, kSms) + kSecPerByte * w.bytes;
}

double TrueCopySeconds(const std::string& key) {
  return kMemT0 + kMemSecPerByte * WorkOfKey(*ParseKernelKey(key))->bytes;
}

// 6^3 GEMMs spanning five orders of magnitude in time, 12 copies, and two
// softmax keys (too few to fit).
std::vector<MeasurementRecord> SyntheticRecords(double noise_amp) {
  Noise noise(noise_amp);
  std::vector<MeasurementRecord> records;
  const int sizes[] = {64, 200, 512, 1000, 3000, 8192};
  for (int m : sizes) {
    for (int n : sizes) {
      for (int k : sizes) {
        std::string key = GemmKey(m, n, k);
        records.push_back(Record(key, TrueGemmSeconds(key) * noise.Next()));
        // A slower algorithm for the same key that the fit must ignore.
        MeasurementRecord slow = Record(key, TrueGemmSeconds(key) * 1.7);
        slow.algo = "slow_algo";
        records.push_back(slow);
      }
    }
  }
  for (int i = 0; i < 12; ++i) {
    std::string key = CopyKey(int64_t{1000} << i * 2);
    records.push_back(Record(key, TrueCopySeconds(key) * noise.Next()));
  }
  for (int cols : {100, 1000}) {
    records.push_back(Record("softmax_fwd rows=64 cols=" + std::to_string(cols) +
                                 " dtype=fp32 math=fp32 layout=-", 1e-5));
  }
  MeasurementRecord failed = Record(GemmKey(7, 7, 7), 1.0);
  failed.status = "failed";
  records.push_back(failed);
  return records;
}

TEST(FitTest, RecoversExactCoefficientsWithoutNoise) {
  auto models = FitModels(SyntheticRecords(0.0), kSms);
  ASSERT_TRUE(models.ok()) << models.status().ToString();
  const FitClassReport* gemm = models->Find(KernelKind::kGemm, "fp16");
  ASSERT_NE(gemm, nullptr);
  EXPECT_NEAR(gemm->t0_s / kT0, 1.0, 1e-6);
  EXPECT_NEAR(gemm->s_per_flop / kSecPerFlop, 1.0, 1e-6);
  EXPECT_NEAR(gemm->s_per_byte / kSecPerByte, 1.0, 1e-6);
  EXPECT_LT(gemm->test_p90_rel_err, 1e-9);
}

TEST(FitTest, RecoversKnownCoefficientsFromNoisyData) {
  // +-2% noise: coefficients within 3% (t0 within 5%), held-out error ~1%.
  auto models = FitModels(SyntheticRecords(0.02), kSms);
  ASSERT_TRUE(models.ok()) << models.status().ToString();
  const FitClassReport* gemm = models->Find(KernelKind::kGemm, "fp16");
  ASSERT_NE(gemm, nullptr);
  EXPECT_EQ(gemm->n_train + gemm->n_test, 216);
  EXPECT_EQ(gemm->n_test, 43);  // every 5th of 216 keys
  EXPECT_NEAR(gemm->t0_s / kT0, 1.0, 0.05);
  EXPECT_NEAR(gemm->s_per_flop / kSecPerFlop, 1.0, 0.03);
  EXPECT_NEAR(gemm->s_per_byte / kSecPerByte, 1.0, 0.03);
  EXPECT_LT(gemm->test_median_rel_err, 0.015);
  EXPECT_LT(gemm->test_p90_rel_err, 0.025);

  const FitClassReport* copy = models->Find(KernelKind::kCopy, "fp32");
  ASSERT_NE(copy, nullptr);
  EXPECT_EQ(copy->n_train, 10);
  EXPECT_EQ(copy->n_test, 2);
  EXPECT_EQ(copy->s_per_flop, 0.0);
  EXPECT_NEAR(copy->t0_s / kMemT0, 1.0, 0.05);
  EXPECT_NEAR(copy->s_per_byte / kMemSecPerByte, 1.0, 0.03);

  ASSERT_EQ(models->report().skipped.size(), 1u);
  EXPECT_EQ(models->report().skipped[0], "softmax_fwd/fp32: 2 training keys, need 4");
}

TEST(FitTest, PredictsUnseenConfigurations) {
  auto models = FitModels(SyntheticRecords(0.02), kSms);
  ASSERT_TRUE(models.ok());
  const std::string unseen = GemmKey(4096, 777, 1536);
  auto predicted = models->PredictSeconds(*ParseKernelKey(unseen));
  ASSERT_TRUE(predicted.has_value());
  EXPECT_NEAR(*predicted / TrueGemmSeconds(unseen), 1.0, 0.03);
  // No model for other math modes or kinds.
  EXPECT_FALSE(models->PredictSeconds(*ParseKernelKey(
      "gemm m=8 n=8 k=8 trans_a=0 trans_b=0 dtype=fp32 math=tf32 layout=-")).has_value());
  EXPECT_FALSE(models->PredictSeconds(*ParseKernelKey(
      "softmax_fwd rows=1 cols=10 dtype=fp32 math=fp32 layout=-")).has_value());
}

// A 16-bit math mode with no class of its own is priced by the other's: the
// synthetic GEMMs are fp16 alone, so a bf16 GEMM takes the fp16 class's time,
// while tf32 (another rate) still has no model.
TEST(FitTest, SixteenBitModeWithoutAClassTakesTheOthers) {
  auto models = FitModels(SyntheticRecords(0.0), kSms);
  ASSERT_TRUE(models.ok());
  const std::string fp16 = GemmKey(4096, 777, 1536);
  std::string bf16 = fp16;
  bf16.replace(bf16.find("dtype=fp16 math=fp16"), 20, "dtype=bf16 math=bf16");
  auto as_fp16 = models->PredictSeconds(*ParseKernelKey(fp16));
  auto as_bf16 = models->PredictSeconds(*ParseKernelKey(bf16));
  ASSERT_TRUE(as_fp16.has_value());
  ASSERT_TRUE(as_bf16.has_value());
  EXPECT_NEAR(*as_bf16 / TrueGemmSeconds(fp16), 1.0, 1e-6);
  EXPECT_EQ(models->Find(KernelKind::kGemm, "bf16"), models->Find(KernelKind::kGemm, "fp16"));
  EXPECT_EQ(models->Find(KernelKind::kGemm, "tf32"), nullptr);
}

// The rate floor: the fastest FLOP rate any GEMM of the math mode was
// measured at. Small GEMMs alone fit a tiny s_per_flop (their time is launch
// and bytes), so without the floor a huge GEMM would be predicted faster
// than the GPU ever ran.
TEST(FitTest, NothingIsPredictedFasterThanTheFastestMeasuredRate) {
  std::vector<MeasurementRecord> records;
  double min_s_per_flop = 0;
  for (int m : {64, 128, 256, 512}) {
    for (int k : {64, 256, 1024}) {
      const std::string key = GemmKey(m, 256, k);
      const double flops = 2.0 * m * 256 * k;
      const double seconds = 3e-6 + 1e-15 * flops;  // 1000 TFLOP/s at the margin
      records.push_back(Record(key, seconds));
      if (min_s_per_flop == 0 || seconds / flops < min_s_per_flop) min_s_per_flop = seconds / flops;
    }
  }
  records.push_back(Record(CopyKey(4096), 2e-6));  // memory-bound: no floor of its own
  auto models = FitModels(records, kSms);
  ASSERT_TRUE(models.ok()) << models.status().ToString();
  EXPECT_DOUBLE_EQ(models->Find(KernelKind::kGemm, "fp16")->min_s_per_flop, min_s_per_flop);
  const std::string huge = GemmKey(16384, 16384, 16384);
  const double huge_flops = 2.0 * 16384 * 16384 * 16384;
  EXPECT_DOUBLE_EQ(*models->PredictSeconds(*ParseKernelKey(huge)), huge_flops * min_s_per_flop);
}

TEST(FitTest, JsonRoundTripKeepsPredictions) {
  auto models = FitModels(SyntheticRecords(0.02), kSms);
  ASSERT_TRUE(models.ok());
  auto back = FittedModels::FromJson(models->ToJson());
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->ToJson(), models->ToJson());
  ParsedKey key = *ParseKernelKey(GemmKey(300, 300, 300));
  EXPECT_EQ(*back->PredictSeconds(key), *models->PredictSeconds(key));
  EXPECT_EQ(back->report().sm_count, kSms);
  EXPECT_FALSE(FittedModels::FromJson("{\"format\": 9}").ok());
  EXPECT_EQ(FittedModels::FromJson("{").status().code(), StatusCode::kParseError);
}

TEST(FitTest, RejectsMixedGpusAndEmptyInput) {
  std::vector<MeasurementRecord> records = SyntheticRecords(0.0);
  records.back().gpu_name = "Other GPU";
  EXPECT_EQ(FitModels(records, kSms).status().code(), StatusCode::kInvalidArgument);
  EXPECT_FALSE(FitModels({}, kSms).ok());
  EXPECT_FALSE(FitModels(SyntheticRecords(0.0), 0).ok());
}

// Keys of a model nothing else was measured for, 1.5x slower than the
// records around them: the models fitted without them are 1/3 fast on every
// one, so the class's band is ln(1.5) at both ends; classes with fewer band
// keys than kMinBandKeys keep none.
TEST(FitTest, BandFromKeysOfUnseenModels) {
  std::vector<MeasurementRecord> records = SyntheticRecords(0.0);
  FitOptions options;
  for (int i = 0; i < 12; ++i) {
    const std::string key = GemmKey(300 + 7 * i, 900 - 5 * i, 1100 + 3 * i);
    records.push_back(Record(key, TrueGemmSeconds(key) * 1.5));
    options.band_keys.insert(key);
  }
  options.band_keys.insert(CopyKey(4000));  // one copy key: too few for a band
  records.push_back(Record(CopyKey(4000), TrueCopySeconds(CopyKey(4000))));
  auto models = FitModels(records, kSms, options);
  ASSERT_TRUE(models.ok()) << models.status().ToString();
  const FitClassReport* gemm = models->Find(KernelKind::kGemm, "fp16");
  EXPECT_EQ(gemm->n_band, 12);
  EXPECT_NEAR(gemm->band_log_p10, std::log(1.5), 0.02);
  EXPECT_NEAR(gemm->band_log_p90, std::log(1.5), 0.02);
  EXPECT_EQ(models->Find(KernelKind::kCopy, "fp32")->n_band, 0);
  EXPECT_TRUE(std::isnan(models->Find(KernelKind::kCopy, "fp32")->band_log_p90));
  // The stored models are fitted on every record, the band keys included.
  EXPECT_EQ(gemm->n_train + gemm->n_test, 216 + 12);
  auto back = FittedModels::FromJson(models->ToJson());
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->Find(KernelKind::kGemm, "fp16")->band_log_p90, gemm->band_log_p90);
}

TEST(FitTest, StoredInTheDatabase) {
  auto db = PerfDb::Open(testing::TempPath("fit.db"), OpenMode::kCreate);
  ASSERT_TRUE(db.ok());
  std::vector<MeasurementRecord> records = SyntheticRecords(0.02);
  for (auto& r : records) {
    r.gpu_cc = "9.0", r.gpu_clock_mhz = 1980, r.gpu_mem_bytes = 8e10, r.driver = "550";
    r.cuda = "12.4", r.cudnn = "9.1", r.cublas = "12.4", r.time_utc = "2024-05-01T00:00:00Z";
    r.reps = 10;
  }
  ASSERT_TRUE(db->ImportRecords(records).ok());
  auto loaded = db->LoadFit("Synthetic GPU");
  ASSERT_TRUE(loaded.ok());
  EXPECT_FALSE(loaded->has_value());
  auto gpu_records = db->RecordsOfGpu("Synthetic GPU");
  ASSERT_TRUE(gpu_records.ok());
  auto models = FitModels(*gpu_records, db->Gpu("Synthetic GPU")->sms);
  ASSERT_TRUE(models.ok()) << models.status().ToString();
  ASSERT_TRUE(db->StoreFit("Synthetic GPU", *models).ok());
  loaded = db->LoadFit("Synthetic GPU");
  ASSERT_TRUE(loaded.ok() && loaded->has_value());
  EXPECT_EQ((*loaded)->ToJson(), models->ToJson());
  EXPECT_EQ(db->Stats()->fits, 1);
}

}  // namespace
}  // namespace dlsim
