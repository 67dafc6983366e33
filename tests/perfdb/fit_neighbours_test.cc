// The neighbour correction of the fitted models (src/perfdb/fit_neighbours.cc)
// on tiny synthetic classes whose predictions follow exactly from the
// definition: base(query) times the weighted geometric mean of
// measured / base over the k nearest measured keys.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "dlsim/perfdb/fit.h"
#include "kernel/work.h"
#include "perfdb_test_util.h"

namespace dlsim {
namespace {

constexpr int64_t kSms = 132;
constexpr double kT0 = 2e-6;
constexpr double kSecPerByte = 1.0 / 3e12;

MeasurementRecord Record(const std::string& key, double seconds) {
  return testing::SyntheticRecord(key, seconds, kSms);
}

std::string CopyKey(const std::string& op, int64_t elems) {
  return "copy op=" + op + " elems=" + std::to_string(elems) + " dtype=fp32 math=fp32 layout=-";
}

double TrueSeconds(int64_t elems) { return kT0 + kSecPerByte * 2.0 * elems * 4; }

ParsedKey Parse(const std::string& key) { return *ParseKernelKey(key); }

// The base model of the fitted copy class, from its reported coefficients.
double Base(const FittedModels& m, const std::string& key) {
  const FitClassReport* c = m.Find(KernelKind::kCopy, "fp32");
  return c->t0_s + c->s_per_byte * WorkOfKey(Parse(key))->bytes;
}

// Five transposes, 1,000 to 256,000 elements; `factor` scales some times.
std::vector<MeasurementRecord> Transposes(double factor_4000, double factor_16000) {
  std::vector<MeasurementRecord> records;
  for (int64_t e : {1000, 4000, 16000, 64000, 256000}) {
    const double f = e == 4000 ? factor_4000 : e == 16000 ? factor_16000 : 1.0;
    records.push_back(Record(CopyKey("transpose", e), TrueSeconds(e) * f));
  }
  return records;
}

FitOptions Options(int holdout_every, int neighbours) {
  FitOptions o;
  o.holdout_every = holdout_every;
  o.neighbours = neighbours;
  return o;
}

TEST(FitNeighboursTest, EquidistantNeighboursGiveTheirGeometricMean) {
  // The query differs from slice and concat keys of its size by the op alone
  // (distance 4), from every transpose by the op and its size: its two
  // nearest are slice and concat, with equal weights, and its base equals
  // theirs, so it is predicted sqrt(2e-5 * 8e-5) = 4e-5 s exactly.
  std::vector<MeasurementRecord> records = Transposes(1.0, 1.0);
  records.push_back(Record(CopyKey("slice", 500000), 2e-5));
  records.push_back(Record(CopyKey("concat", 500000), 8e-5));
  auto models = FitModels(records, kSms, Options(0, 2));
  ASSERT_TRUE(models.ok()) << models.status().ToString();
  auto predicted = models->PredictSeconds(Parse(CopyKey("gather", 500000)));
  ASSERT_TRUE(predicted.has_value());
  EXPECT_NEAR(*predicted / 4e-5, 1.0, 1e-12);
  EXPECT_EQ(models->Find(KernelKind::kCopy, "fp32")->n_neighbours, 7);
}

TEST(FitNeighboursTest, NearestKeyAloneWhenKIsOne) {
  auto models = FitModels(Transposes(1.3, 1.0), kSms, Options(0, 1));
  ASSERT_TRUE(models.ok()) << models.status().ToString();
  // 5,000 elements: nearest is 4,000 (measured 1.3x the truth).
  const std::string query = CopyKey("transpose", 5000), nb = CopyKey("transpose", 4000);
  const double nb_time = TrueSeconds(4000) * 1.3;
  EXPECT_NEAR(*models->PredictSeconds(Parse(query)) /
                  (Base(*models, query) * nb_time / Base(*models, nb)),
              1.0, 1e-12);
  EXPECT_NEAR(*models->PredictBaseSeconds(Parse(query)) / Base(*models, query), 1.0, 1e-15);
  // A measured key is its own nearest: predicted as measured.
  EXPECT_NEAR(*models->PredictSeconds(Parse(nb)) / nb_time, 1.0, 1e-12);
}

TEST(FitNeighboursTest, WeightsAreInverseSquareDistance) {
  // 6,000 elements between 4,000 (x1.2) and 16,000 (x0.9), k = 2. Features
  // that differ: log2(1 + elems) and log2(1 + bytes); all three sizes are
  // multiples of 8 and copies have no FLOPs.
  auto models = FitModels(Transposes(1.2, 0.9), kSms, Options(0, 2));
  ASSERT_TRUE(models.ok()) << models.status().ToString();
  auto distance = [](double a, double b) {
    const double de = std::log2(1 + a) - std::log2(1 + b);
    const double db = std::log2(1 + 8 * a) - std::log2(1 + 8 * b);
    return std::sqrt(de * de + db * db);
  };
  const double w1 = 1 / std::pow(distance(6000, 4000) + 0.25, 2);
  const double w2 = 1 / std::pow(distance(6000, 16000) + 0.25, 2);
  const std::string k1 = CopyKey("transpose", 4000), k2 = CopyKey("transpose", 16000);
  const double r1 = std::log(TrueSeconds(4000) * 1.2 / Base(*models, k1));
  const double r2 = std::log(TrueSeconds(16000) * 0.9 / Base(*models, k2));
  const std::string query = CopyKey("transpose", 6000);
  const double expected = Base(*models, query) * std::exp((w1 * r1 + w2 * r2) / (w1 + w2));
  EXPECT_NEAR(*models->PredictSeconds(Parse(query)) / expected, 1.0, 1e-12);
}

TEST(FitNeighboursTest, ZeroNeighboursIsTheBaseModel) {
  auto models = FitModels(Transposes(1.2, 0.9), kSms, Options(0, 0));
  ASSERT_TRUE(models.ok());
  const ParsedKey query = Parse(CopyKey("transpose", 6000));
  EXPECT_EQ(*models->PredictSeconds(query), *models->PredictBaseSeconds(query));
  EXPECT_EQ(models->neighbours(), 0);
}

TEST(FitNeighboursTest, HeldOutKeysAreNotNeighbours) {
  // Ten copies on one line; the held-out half (every 2nd key in sorted order)
  // is measured 1.5x slower. Fitted on the training half alone, the base is
  // exact and every training neighbour says "no correction", so each
  // held-out key is 1/3 off. Were held-out keys their own neighbours, the
  // error would be 0.
  std::vector<std::string> keys;
  for (int i = 0; i < 10; ++i) keys.push_back(CopyKey("transpose", int64_t{1000} << i));
  std::sort(keys.begin(), keys.end());
  std::vector<MeasurementRecord> records;
  for (size_t i = 0; i < keys.size(); ++i) {
    const double f = i % 2 == 1 ? 1.5 : 1.0;
    records.push_back(Record(keys[i], TrueSeconds(WorkOfKey(Parse(keys[i]))->bytes / 8) * f));
  }
  auto models = FitModels(records, kSms, Options(2, 4));
  ASSERT_TRUE(models.ok()) << models.status().ToString();
  const FitClassReport* c = models->Find(KernelKind::kCopy, "fp32");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->n_train, 5);
  EXPECT_EQ(c->n_test, 5);
  EXPECT_EQ(c->n_neighbours, 10);  // the stored model draws on every key
  EXPECT_NEAR(c->test_median_rel_err, 1.0 / 3, 1e-9);
  EXPECT_NEAR(c->test_p90_rel_err, 1.0 / 3, 1e-9);
  EXPECT_NEAR(c->base_test_median_rel_err, 1.0 / 3, 1e-9);
  EXPECT_NEAR(c->train_median_rel_err, 0.0, 1e-9);
}

TEST(FitNeighboursTest, JsonRoundTripKeepsNeighbours) {
  std::vector<MeasurementRecord> records = Transposes(1.2, 0.9);
  records.push_back(Record(CopyKey("slice", 500000), 2e-5));
  auto models = FitModels(records, kSms, Options(0, 3));
  ASSERT_TRUE(models.ok());
  auto back = FittedModels::FromJson(models->ToJson());
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->ToJson(), models->ToJson());
  EXPECT_EQ(back->neighbours(), 3);
  EXPECT_EQ(back->Find(KernelKind::kCopy, "fp32")->n_neighbours, 6);
  for (const std::string& key : {CopyKey("transpose", 6000), CopyKey("gather", 500000),
                                 CopyKey("slice", 77), CopyKey("transpose", 256000)}) {
    EXPECT_EQ(*back->PredictSeconds(Parse(key)), *models->PredictSeconds(Parse(key))) << key;
  }
}

std::string ConvKey(int64_t c, int64_t groups) {
  return "conv_fwd n=1 c=" + std::to_string(c) + " h=14 w=14 k=" + std::to_string(c) +
         " r=3 s=3 pad_h=1 pad_w=1 stride_h=1 stride_w=1 dil_h=1 dil_w=1 groups=" +
         std::to_string(groups) + " dtype=fp16 math=fp16 layout=nchw";
}

TEST(FitNeighboursTest, GroupedConvolutionsBorrowFromGroupedKeysOfTheirGroupWidth) {
  // Dense keys of the query's size and a grouped one of its group width (24
  // channels per group, measured slow); the query (408 channels in 17
  // groups) is nearest to a dense key in every raw field but the group
  // count, yet with k = 1 takes its correction from the grouped key alone.
  std::vector<MeasurementRecord> records;
  for (int64_t c : {256, 384, 408, 512}) records.push_back(Record(ConvKey(c, 1), 1e-5));
  records.push_back(Record(ConvKey(192, 8), 2.5e-5));   // 24 per group
  records.push_back(Record(ConvKey(1024, 32), 1.2e-5));  // 32 per group
  auto models = FitModels(records, kSms, Options(0, 1));
  ASSERT_TRUE(models.ok()) << models.status().ToString();
  const std::string query = ConvKey(408, 17), nb = ConvKey(192, 8);
  const double nb_ratio = 2.5e-5 / *models->PredictBaseSeconds(Parse(nb));
  EXPECT_NEAR(*models->PredictSeconds(Parse(query)) /
                  (*models->PredictBaseSeconds(Parse(query)) * nb_ratio),
              1.0, 1e-12);
}

std::string LstmKey(int64_t hidden) {
  return "rnn_fwd cell=lstm seq=64 batch=16 input=256 hidden=" + std::to_string(hidden) +
         " layers=1 dirs=1 dtype=fp16 math=fp16 layout=-";
}

TEST(FitNeighboursTest, RecurrentKeysBorrowFromKeysOfTheirAlgorithm) {
  // Hidden 200 runs cuDNN's standard algorithm (rnn_algo.h), 192 a
  // persistent small-h kernel: with k = 1 the query takes its correction
  // from hidden 320, the nearest key of its own algorithm, not from 192.
  // Every other key is measured 1.5x slow, so the base model cannot pass
  // through all of them and the two candidates' corrections differ.
  std::vector<MeasurementRecord> records;
  const std::vector<int64_t> hiddens = {32, 48, 64, 96, 128, 160, 176, 192,
                                        320, 384, 512, 640, 768, 1024};
  for (size_t i = 0; i < hiddens.size(); ++i) {
    const double h = double(hiddens[i]);
    records.push_back(Record(LstmKey(hiddens[i]), (2e-5 + 1e-9 * h * h) * (i % 2 ? 1.5 : 1.0)));
  }
  auto models = FitModels(records, kSms, Options(0, 1));
  ASSERT_TRUE(models.ok()) << models.status().ToString();
  auto ratio = [&](int64_t h) {
    const size_t i = std::find(hiddens.begin(), hiddens.end(), h) - hiddens.begin();
    return records[i].median_ms * 1e-3 / *models->PredictBaseSeconds(Parse(LstmKey(h)));
  };
  ASSERT_GT(std::abs(std::log(ratio(320) / ratio(192))), 0.1);
  const std::string query = LstmKey(200);
  EXPECT_NEAR(*models->PredictSeconds(Parse(query)) /
                  (*models->PredictBaseSeconds(Parse(query)) * ratio(320)),
              1.0, 1e-12);
}

// A format-7 model set of one copy class, with two measured keys.
std::string MinimalJson(const std::string& format, const std::string& measured) {
  return "{\"format\":" + format +
         ",\"gpu_name\":\"G\",\"sm_count\":132,\"neighbours_k\":4,\"classes\":[{"
         "\"kind\":\"copy\",\"math\":\"fp32\",\"t0_s\":2e-06,\"s_per_flop\":0.0,"
         "\"s_per_byte\":3e-13,\"s_per_term\":[],\"min_s_per_flop\":0.0,\"n_train\":2,\"n_test\":0,\"train_median_rel_err\":0.0,"
         "\"test_median_rel_err\":null,\"test_p90_rel_err\":null,"
         "\"base_test_median_rel_err\":null,\"base_test_p90_rel_err\":null,"
         "\"boosted_test_median_rel_err\":null,\"boosted_test_p90_rel_err\":null,"
         "\"correction\":\"neighbours\",\"n_band\":0,\"band_log_p10\":null,"
         "\"band_log_p90\":null,\"band_median_rel_err\":null,"
         "\"measured\":" +
         measured + "}],\"boosters\":{},\"skipped\":[]}";
}

TEST(FitNeighboursTest, JsonFormatAndFieldErrors) {
  const std::string measured =
      "[[\"copy op=cast elems=1000 dtype=fp32 math=fp32 layout=-\",4e-06],"
      "[\"copy op=cast elems=2000 dtype=fp32 math=fp32 layout=-\",5e-06]]";
  auto ok = FittedModels::FromJson(MinimalJson("7", measured));
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(ok->Find(KernelKind::kCopy, "fp32")->n_neighbours, 2);
  EXPECT_TRUE(std::isnan(ok->Find(KernelKind::kCopy, "fp32")->test_p90_rel_err));
  // The measured key itself: its own nearest at distance 0 (weight 16) and
  // the other one farther.
  EXPECT_TRUE(ok->PredictSeconds(Parse(CopyKey("cast", 1000))).has_value());

  auto old = FittedModels::FromJson(MinimalJson("6", measured));
  EXPECT_EQ(old.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(old.status().message().find("fitted-model format 6, this build reads format 7"),
            std::string::npos)
      << old.status().message();

  auto no_measured = FittedModels::FromJson(MinimalJson("7", "7"));
  EXPECT_EQ(no_measured.status().code(), StatusCode::kParseError);
  EXPECT_NE(no_measured.status().message().find("classes[0]: field 'measured'"),
            std::string::npos)
      << no_measured.status().message();

  auto bad_time = FittedModels::FromJson(MinimalJson("7", "[[\"copy op=cast elems=1\",0]]"));
  EXPECT_EQ(bad_time.status().code(), StatusCode::kParseError);
  EXPECT_NE(bad_time.status().message().find("measured[0] must be [key, time_s]"),
            std::string::npos)
      << bad_time.status().message();

  std::string no_k = MinimalJson("7", measured);
  no_k.replace(no_k.find("\"neighbours_k\":4,"), 17, "");
  EXPECT_EQ(FittedModels::FromJson(no_k).status().code(), StatusCode::kParseError);
  EXPECT_EQ(FittedModels::FromJson("{\"gpu_name\":\"G\"}").status().code(),
            StatusCode::kParseError);

  // A class priced by trees its kind does not have.
  std::string no_trees = MinimalJson("7", measured);
  no_trees.replace(no_trees.find("\"correction\":\"neighbours\""), 25,
                   "\"correction\":\"boosted\"");
  auto orphan = FittedModels::FromJson(no_trees);
  EXPECT_EQ(orphan.status().code(), StatusCode::kParseError);
  EXPECT_NE(orphan.status().message().find(
                "classes[0] (copy/fp32): correction 'boosted' but no boosters.copy"),
            std::string::npos)
      << orphan.status().message();

  // Issue 24: a count out of int's range (converting 1e300 to int was
  // undefined) or not whole is refused, naming the field.
  for (const char* count : {"1e300", "-1", "2.5"}) {
    std::string bad_count = MinimalJson("7", measured);
    bad_count.replace(bad_count.find("\"n_train\":2"), 11, std::string("\"n_train\":") + count);
    auto refused = FittedModels::FromJson(bad_count);
    EXPECT_EQ(refused.status().code(), StatusCode::kParseError) << count;
    EXPECT_NE(refused.status().message().find(
                  "classes[0]: field 'n_train' must be a count (a whole number >= 0)"),
              std::string::npos)
        << refused.status().message();
  }
}

}  // namespace
}  // namespace dlsim
