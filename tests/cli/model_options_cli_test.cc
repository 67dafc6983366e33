// The model options added for the corpus: --dim NAME=N and --amp, refused
// cleanly when they cannot apply.
#include <gtest/gtest.h>

#include <string>

#include "bad_input_util.h"

namespace dlsim::badinput {
namespace {

const std::string kTinyModel = std::string(DLSIM_TEST_DATA_DIR) + "/models/tiny_cnn_opset17.onnx";
const std::string kAttention = std::string(DLSIM_TEST_DATA_DIR) + "/models/attention_opset17.onnx";

const BadCase kCases[] = {
    {"AmpNeedsALowDtype", [] { return "estimate " + kTinyModel + " --amp --mode training"; },
     {"--amp needs --dtype fp16 or bf16", "'fp32'"}},
    {"DimNoInputCarries", [] { return "estimate " + kAttention + " --dim seq=24"; },
     {"attention_opset17.onnx", "--dim names 'seq'", "symbolic dims: batch, sequence"}},
    {"DimNotNameEqualsN", [] { return "estimate " + kAttention + " --dim sequence"; },
     {"--dim sequence", "is not NAME=N"}},
    {"LossUnknown", [] { return "estimate " + kTinyModel + " --mode training --loss mse"; },
     {"--loss must be none, mean or cross_entropy", "'mse'"}},
};

class ModelOptionsBadTest : public ::testing::TestWithParam<BadCase> {};

TEST_P(ModelOptionsBadTest, FailsCleanly) { ExpectCleanFailure(GetParam()); }
INSTANTIATE_TEST_SUITE_P(ModelOptions, ModelOptionsBadTest, ::testing::ValuesIn(kCases), CaseName);

TEST(ModelOptions, DimSetsTheSymbolicSequence) {
  const Outcome r = RunDlsim("estimate " + kAttention + " --batch 2 --dim sequence=24 --format json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("\"batch\": 2"), std::string::npos) << r.output.substr(0, 300);
}

TEST(ModelOptions, AmpTrainingAddsCasts) {
  // --loss none: the default loss casts a 16-bit output up to fp32 either way
  const std::string args = " --mode training --dtype bf16 --loss none --format json";
  const Outcome plain = RunDlsim("estimate " + kTinyModel + args);
  const Outcome amp = RunDlsim("estimate " + kTinyModel + args + " --amp");
  ASSERT_EQ(plain.exit_code, 0) << plain.output;
  ASSERT_EQ(amp.exit_code, 0) << amp.output;
  EXPECT_EQ(plain.output.find("op=cast"), std::string::npos);
  EXPECT_NE(amp.output.find("op=cast"), std::string::npos);
}

}  // namespace
}  // namespace dlsim::badinput
