// The boosted correction of the fitted models (src/perfdb/fit_boosted.cc):
// the feature rows it encodes, the trees' save/load round trip, and the fit
// choosing the trees where a class's times follow a pattern (alignment) the
// base model cannot express and the nearest keys get wrong.
#include "perfdb/fit_boosted.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "dlsim/perfdb/fit.h"
#include "kernel/tiles.h"
#include "kernel/work.h"
#include "perfdb_test_util.h"

namespace dlsim {
namespace {

using perfdb_internal::Booster;
using perfdb_internal::FeaturesOfKey;
using perfdb_internal::KeyEncoder;
using perfdb_internal::KeyFeatures;

constexpr int64_t kSms = 132;

ParsedKey Parse(const std::string& key) { return *ParseKernelKey(key); }

std::string GemmKey(int64_t m, int64_t n, int64_t k) {
  return "gemm m=" + std::to_string(m) + " n=" + std::to_string(n) + " k=" + std::to_string(k) +
         " trans_a=0 trans_b=0 dtype=fp16 math=fp16 layout=-";
}

TEST(KeyEncoderTest, NumbersGetLogAndAlignmentCategoriesGetTheirIndex) {
  const ParsedKey a = Parse("copy op=transpose elems=1000 dtype=fp32 math=fp32 layout=-");
  const ParsedKey b = Parse("copy op=cast elems=4096 dtype=fp32 math=fp32 layout=-");
  KeyEncoder enc = KeyEncoder::Build({&a, &b});
  EXPECT_EQ(enc.numeric(), std::vector<std::string>({"elems"}));
  ASSERT_EQ(enc.categories().count("op"), 1u);
  EXPECT_EQ(enc.categories().at("op"), std::vector<std::string>({"cast", "transpose"}));
  EXPECT_EQ(enc.width(), 9u + 2 + 1);

  const KeyFeatures f = *FeaturesOfKey(b, kSms);
  const std::vector<float> row = enc.Encode(b, f, kSms);
  ASSERT_EQ(row.size(), 12u);
  EXPECT_FLOAT_EQ(row[0], static_cast<float>(std::log2(1.0 + f.flops)));
  EXPECT_FLOAT_EQ(row[1], static_cast<float>(std::log2(1.0 + f.bytes)));
  EXPECT_FLOAT_EQ(row[6], 4.0f);  // fp32
  EXPECT_FLOAT_EQ(row[7], 0.0f);  // math fp32
  EXPECT_FLOAT_EQ(row[8], 2.0f);  // layout '-'
  EXPECT_FLOAT_EQ(row[9], static_cast<float>(std::log2(4097.0)));
  EXPECT_FLOAT_EQ(row[10], 1.0f);  // 4096 % 8 == 0
  EXPECT_FLOAT_EQ(row[11], 0.0f);  // "cast"

  // 1000 is a multiple of 8 too; an unseen op is missing (NaN), not a guess.
  const ParsedKey c = Parse("copy op=gather elems=1001 dtype=fp32 math=fp32 layout=-");
  const std::vector<float> unseen = enc.Encode(c, *FeaturesOfKey(c, kSms), kSms);
  EXPECT_FLOAT_EQ(unseen[10], 0.0f);
  EXPECT_TRUE(std::isnan(unseen[11]));
}

TEST(BoosterTest, LearnsAStepAndKeepsItThroughSaveAndLoad) {
  std::vector<std::vector<float>> rows;
  std::vector<float> targets;
  for (int i = 0; i < 64; ++i) {
    rows.push_back({static_cast<float>(i), static_cast<float>(i % 2)});
    targets.push_back(i % 2 == 0 ? 0.0f : 0.5f);
  }
  auto trees = Booster::Train(rows, targets);
  ASSERT_TRUE(trees.ok()) << trees.status().ToString();
  const double odd = (*trees)->Predict({10.0f, 1.0f});
  const double even = (*trees)->Predict({10.0f, 0.0f});
  EXPECT_NEAR(odd, 0.5, 0.01);
  EXPECT_NEAR(even, 0.0, 0.01);

  auto saved = (*trees)->Save();
  ASSERT_TRUE(saved.ok());
  auto back = Booster::Load(*saved);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ((*back)->Predict({10.0f, 1.0f}), odd);
  EXPECT_EQ((*back)->Predict({10.0f, 0.0f}), even);

  EXPECT_EQ((*trees)->features(), 2u);
  EXPECT_EQ((*back)->features(), 2u);
  EXPECT_EQ(Booster::Load("not a model").status().code(), StatusCode::kParseError);
  // Trees of another width than their encoder's (a corrupt database) correct nothing.
  const ParsedKey a = Parse("copy op=cast elems=4096 dtype=fp32 math=fp32 layout=-");
  perfdb_internal::LazyBooster lazy(KeyEncoder::Build({&a}), *saved);
  EXPECT_EQ(lazy.LogCorrection(a, *FeaturesOfKey(a, kSms), kSms), 0.0);
  EXPECT_EQ(Booster::Train({}, {}).status().code(), StatusCode::kInvalidArgument);
}

// GEMMs whose time is the base model's, times 1.6 when K is not a multiple
// of 8 (no vectorised loads): neighbours in log-size space mix aligned and
// unaligned keys, the trees split on the alignment flag.
std::vector<MeasurementRecord> AlignmentRecords() {
  std::vector<MeasurementRecord> records;
  for (int64_t m : {64, 256, 1024, 4096}) {
    for (int64_t n : {128, 512, 2048}) {
      for (int64_t k : {96, 97, 384, 385, 1536, 1537, 6144, 6145}) {
        const std::string key = GemmKey(m, n, k);
        const KeyWork w = *WorkOfKey(Parse(key));
        const double seconds = (3e-6 + w.flops / 400e12 / WaveEfficiency(w.tiles, kSms) +
                                w.bytes / 3e12) * (k % 8 == 0 ? 1.0 : 1.6);
        records.push_back(testing::SyntheticRecord(key, seconds, kSms));
      }
    }
  }
  return records;
}

TEST(FitBoostedTest, TreesChosenWhereTheyErrLessOnHeldOutKeys) {
  auto models = FitModels(AlignmentRecords(), kSms);
  ASSERT_TRUE(models.ok()) << models.status().ToString();
  const FitClassReport* gemm = models->Find(KernelKind::kGemm, "fp16");
  ASSERT_NE(gemm, nullptr);
  EXPECT_EQ(gemm->n_test, 19);  // every 5th of 96 keys
  EXPECT_EQ(gemm->correction, FitCorrection::kBoosted);
  EXPECT_LT(gemm->boosted_test_median_rel_err, 0.02);
  EXPECT_LT(gemm->boosted_test_median_rel_err + gemm->boosted_test_p90_rel_err,
            gemm->test_median_rel_err + gemm->test_p90_rel_err);

  // An unmeasured shape: aligned and unaligned K priced 1.6x apart.
  const double aligned = *models->PredictSeconds(Parse(GemmKey(700, 900, 3000)));
  const double odd = *models->PredictSeconds(Parse(GemmKey(700, 900, 3001)));
  EXPECT_NEAR(odd / aligned, 1.6, 0.1);

  FitOptions no_trees;
  no_trees.boosted = false;
  auto plain = FitModels(AlignmentRecords(), kSms, no_trees);
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->Find(KernelKind::kGemm, "fp16")->correction, FitCorrection::kNeighbours);
  EXPECT_TRUE(std::isnan(plain->Find(KernelKind::kGemm, "fp16")->boosted_test_median_rel_err));
}

TEST(FitBoostedTest, JsonRoundTripKeepsTheTreesPredictions) {
  auto models = FitModels(AlignmentRecords(), kSms);
  ASSERT_TRUE(models.ok());
  const std::string json = models->ToJson();
  auto back = FittedModels::FromJson(json);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->ToJson(), json);
  EXPECT_EQ(back->Find(KernelKind::kGemm, "fp16")->correction, FitCorrection::kBoosted);
  const ParsedKey key = Parse(GemmKey(700, 900, 3001));
  EXPECT_EQ(*back->PredictSeconds(key), *models->PredictSeconds(key));
}

}  // namespace
}  // namespace dlsim
