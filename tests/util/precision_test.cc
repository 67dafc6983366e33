#include "dlsim/util/precision.h"

#include <gtest/gtest.h>

namespace dlsim {
namespace {

TEST(PrecisionTest, NamesRoundTrip) {
  EXPECT_STREQ(PrecisionName(Precision::kFp32), "fp32");
  EXPECT_STREQ(PrecisionName(Precision::kTf32), "tf32");
  EXPECT_STREQ(PrecisionName(Precision::kFp16), "fp16");
  EXPECT_STREQ(PrecisionName(Precision::kBf16), "bf16");
  for (Precision p : {Precision::kFp32, Precision::kTf32, Precision::kFp16, Precision::kBf16}) {
    Result<Precision> parsed = ParsePrecision(PrecisionName(p));
    ASSERT_TRUE(parsed.ok()) << PrecisionName(p);
    EXPECT_EQ(*parsed, p);
  }
}

TEST(PrecisionTest, OtherTextIsAnErrorNamingValueAndNames) {
  for (const std::string bad : {"FP16", "float32", "fp64", ""}) {
    Result<Precision> parsed = ParsePrecision(bad);
    ASSERT_FALSE(parsed.ok()) << bad;
    EXPECT_EQ(parsed.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(parsed.status().message(),
              "precision must be fp32, tf32, fp16 or bf16, got '" + bad + "'");
  }
}

TEST(PrecisionTest, StorageDType) {
  EXPECT_EQ(PrecisionDType(Precision::kFp32), DType::kFloat32);
  EXPECT_EQ(PrecisionDType(Precision::kTf32), DType::kFloat32);
  EXPECT_EQ(PrecisionDType(Precision::kFp16), DType::kFloat16);
  EXPECT_EQ(PrecisionDType(Precision::kBf16), DType::kBFloat16);
}

}  // namespace
}  // namespace dlsim
