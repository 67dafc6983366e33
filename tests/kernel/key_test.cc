#include "dlsim/kernel/key.h"

#include <gtest/gtest.h>

namespace dlsim {
namespace {

std::string ParseErrorOf(const std::string& key) { return ParseKernelKey(key).status().message(); }

TEST(KeyTest, ParsesKindParamsAndTail) {
  auto key = ParseKernelKey("gemm m=16 n=1000 k=2048 trans_a=0 trans_b=1 dtype=fp32 math=tf32 layout=-");
  ASSERT_TRUE(key.ok()) << key.status().ToString();
  EXPECT_EQ(key->kind, KernelKind::kGemm);
  EXPECT_EQ(key->params.size(), 5u);
  EXPECT_EQ(key->params[2], (std::pair<std::string, std::string>{"k", "2048"}));
  EXPECT_EQ(key->dtype, "fp32");
  EXPECT_EQ(key->math, "tf32");
  EXPECT_EQ(key->layout, "-");
}

TEST(KeyTest, ErrorsQuoteTheKey) {
  EXPECT_EQ(ParseErrorOf(""), "empty kernel key");
  EXPECT_EQ(ParseErrorOf("warp_drive x=1 dtype=fp32 math=fp32 layout=-"),
            "kernel key 'warp_drive x=1 dtype=fp32 math=fp32 layout=-': unknown kernel kind "
            "'warp_drive'");
  EXPECT_EQ(ParseErrorOf("copy op=slice oops dtype=fp32 math=fp32 layout=-"),
            "kernel key 'copy op=slice oops dtype=fp32 math=fp32 layout=-': token 'oops' is not "
            "name=value");
  EXPECT_EQ(ParseErrorOf("conv_fwd n=16 c=x"), "kernel key 'conv_fwd n=16 c=x': missing dtype");
  EXPECT_EQ(ParseErrorOf("copy elems=4 dtype=fp16 layout=-"),
            "kernel key 'copy elems=4 dtype=fp16 layout=-': missing math");
  EXPECT_EQ(ParseErrorOf("copy elems=4 dtype=fp16 math=fp16"),
            "kernel key 'copy elems=4 dtype=fp16 math=fp16': missing layout");
}

}  // namespace
}  // namespace dlsim
