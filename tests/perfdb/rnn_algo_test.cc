#include "perfdb/rnn_algo.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "dlsim/perfdb/fit.h"

namespace dlsim {
namespace {

constexpr int64_t kH100Sms = 132;

ParsedKey Key(const std::string& kind, const std::string& cell, int seq, int batch, int input,
              int hidden, int layers, int dirs, const std::string& dtype) {
  const std::string math = dtype == "fp32" ? "tf32" : dtype;
  auto key = ParseKernelKey(kind + " cell=" + cell + " seq=" + std::to_string(seq) +
                            " batch=" + std::to_string(batch) + " input=" +
                            std::to_string(input) + " hidden=" + std::to_string(hidden) +
                            " layers=" + std::to_string(layers) + " dirs=" +
                            std::to_string(dirs) + " dtype=" + dtype + " math=" + math +
                            " layout=-");
  EXPECT_TRUE(key.ok()) << key.status().ToString();
  return *key;
}

ParsedKey Fwd(const std::string& cell, int batch, int hidden, int layers = 1,
              const std::string& dtype = "fp16", int input = 256) {
  return Key("rnn_fwd", cell, 64, batch, input, hidden, layers, 1, dtype);
}

RnnAlgo Algo(const ParsedKey& key, int64_t sms = kH100Sms) { return *RnnAlgoOfKey(key, sms); }

TEST(RnnAlgoTest, SmallHiddenRunsPersistSmallH) {
  EXPECT_EQ(Algo(Fwd("lstm", 7, 192)), RnnAlgo::kPersistSmallH);
  EXPECT_EQ(Algo(Fwd("gru", 7, 64, 3, "fp32")), RnnAlgo::kPersistSmallH);
  EXPECT_EQ(Algo(Fwd("lstm", 7, 256)), RnnAlgo::kStandard);
  EXPECT_EQ(Algo(Fwd("rnn_tanh", 7, 384)), RnnAlgo::kPersistSmallH);
  // Backward passes use the smaller limit: 128 for LSTM/GRU.
  EXPECT_EQ(Algo(Key("rnn_bwd_data", "lstm", 64, 7, 256, 192, 1, 1, "fp16")),
            RnnAlgo::kStandard);
  EXPECT_EQ(Algo(Key("rnn_bwd_data", "lstm", 64, 7, 256, 128, 1, 1, "fp16")),
            RnnAlgo::kPersistSmallH);
}

TEST(RnnAlgoTest, PersistStaticNeedsFp16OneLayerAndBatchMultipleOf8) {
  EXPECT_EQ(Algo(Fwd("lstm", 16, 512)), RnnAlgo::kPersistStatic);
  EXPECT_EQ(Algo(Fwd("lstm", 128, 512)), RnnAlgo::kPersistStatic);
  EXPECT_EQ(Algo(Fwd("lstm", 1, 512)), RnnAlgo::kStandard);    // batch not a multiple of 8
  EXPECT_EQ(Algo(Fwd("lstm", 136, 512)), RnnAlgo::kStandard);  // batch over 128
  EXPECT_EQ(Algo(Fwd("lstm", 16, 512, 2)), RnnAlgo::kStandard);
  EXPECT_EQ(Algo(Fwd("lstm", 16, 512, 1, "bf16")), RnnAlgo::kStandard);
  EXPECT_EQ(Algo(Fwd("lstm", 16, 512, 1, "fp32")), RnnAlgo::kStandard);
  EXPECT_EQ(Algo(Fwd("lstm", 16, 512, 1, "fp16", 200)), RnnAlgo::kStandard);
  EXPECT_EQ(Algo(Fwd("gru", 16, 512)), RnnAlgo::kStandard);  // GRUs never
  EXPECT_EQ(Algo(Fwd("rnn_relu", 96, 896)), RnnAlgo::kStandard);
  EXPECT_EQ(Algo(Fwd("rnn_relu", 88, 896)), RnnAlgo::kPersistStatic);
  EXPECT_EQ(Algo(Fwd("lstm", 16, 512), 80), RnnAlgo::kStandard);  // a small GPU
  EXPECT_EQ(Algo(Key("rnn_fwd", "lstm", 64, 16, 256, 512, 1, 2, "fp16")), RnnAlgo::kStandard);
}

TEST(RnnAlgoTest, SerialTermsBelongToTheAlgorithm) {
  // seq 64, 2 layers: a wavefront of 65 steps, 128 steps of work.
  EXPECT_EQ(*RnnSerialTerms(Fwd("gru", 16, 512, 2), kH100Sms),
            (std::vector<double>{65, 65 * 512, 128 * 512, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(*RnnSerialTerms(Fwd("lstm", 16, 128, 2), kH100Sms),
            (std::vector<double>{0, 0, 0, 2, 2 * 4 * 128 * 128, 128, 128 * 4 * 128 * 128, 0, 0}));
  // Bidirectional: each direction's persistent kernel in turn.
  EXPECT_EQ(*RnnSerialTerms(Key("rnn_fwd", "gru", 64, 16, 256, 128, 2, 2, "fp16"), kH100Sms),
            (std::vector<double>{0, 0, 0, 4, 4 * 3 * 128 * 128, 256, 256 * 3 * 128 * 128, 0, 0}));
  EXPECT_EQ(*RnnSerialTerms(Key("rnn_fwd", "gru", 64, 16, 256, 512, 2, 2, "fp16"), kH100Sms),
            (std::vector<double>{128, 128 * 512, 128 * 512, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(*RnnSerialTerms(Fwd("lstm", 16, 512), kH100Sms),
            (std::vector<double>{0, 0, 0, 0, 0, 0, 0, 64, 64 * 16 * 512}));
}

TEST(RnnAlgoTest, ErrorsNameTheProblem) {
  auto gemm = ParseKernelKey("gemm m=8 n=8 k=8 trans_a=0 trans_b=0 dtype=fp16 math=fp16 layout=-");
  ASSERT_TRUE(gemm.ok());
  EXPECT_NE(RnnAlgoOfKey(*gemm, kH100Sms).status().message().find("not an rnn key"),
            std::string::npos);
  auto no_seq = ParseKernelKey(
      "rnn_fwd cell=lstm batch=1 input=8 hidden=8 layers=1 dirs=1 dtype=fp16 math=fp16 layout=-");
  ASSERT_TRUE(no_seq.ok());
  EXPECT_NE(RnnSerialTerms(*no_seq, kH100Sms).status().message().find("missing parameter 'seq'"),
            std::string::npos);
}

// Records made by a known serial model: the fit recovers its per-step costs
// for the standard algorithm exactly (no noise): a cost per wavefront step
// and one per step and hidden unit of every layer.
TEST(RnnAlgoTest, FitRecoversPerStepCosts) {
  constexpr double kT0 = 10e-6, kPerStep = 3e-6, kPerStepHidden = 2e-9;
  std::vector<MeasurementRecord> records;
  for (int seq : {1, 8, 64, 300}) {
    for (int hidden : {256, 512, 1024}) {
      for (int layers : {1, 2}) {
        MeasurementRecord r;
        r.gpu_name = "Synthetic GPU";
        r.key = "rnn_fwd cell=gru seq=" + std::to_string(seq) + " batch=3 input=256 hidden=" +
                std::to_string(hidden) + " layers=" + std::to_string(layers) +
                " dirs=1 dtype=fp32 math=tf32 layout=-";
        r.status = "ok";
        const double wavefront = seq + layers - 1, steps = double(seq) * layers;
        r.median_ms = (kT0 + kPerStep * wavefront + kPerStepHidden * steps * hidden) * 1e3;
        records.push_back(r);
      }
    }
  }
  FitOptions options;
  options.holdout_every = 0;
  auto models = FitModels(records, kH100Sms, options);
  ASSERT_TRUE(models.ok()) << models.status().ToString();
  const FitClassReport* rnn = models->Find(KernelKind::kRnnFwd, "tf32");
  ASSERT_NE(rnn, nullptr);
  ASSERT_EQ(rnn->s_per_term.size(), 9u);
  EXPECT_NEAR(rnn->t0_s / kT0, 1.0, 1e-6);
  EXPECT_NEAR(rnn->s_per_term[0] / kPerStep, 1.0, 1e-6);
  EXPECT_NEAR(rnn->s_per_term[1], 0.0, 1e-15);
  EXPECT_NEAR(rnn->s_per_term[2] / kPerStepHidden, 1.0, 1e-6);
  EXPECT_EQ(rnn->s_per_flop, 0.0);
  // And the JSON form keeps them.
  auto back = FittedModels::FromJson(models->ToJson());
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->Find(KernelKind::kRnnFwd, "tf32")->s_per_term, rnn->s_per_term);
}

}  // namespace
}  // namespace dlsim
