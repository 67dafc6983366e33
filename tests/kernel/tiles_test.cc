#include "kernel/tiles.h"

#include <gtest/gtest.h>

#include "kernel/work.h"

namespace dlsim {
namespace {

TEST(TilesTest, GemmTilesAndWaves) {
  EXPECT_EQ(GemmTiles(128, 128), 1);
  EXPECT_EQ(GemmTiles(129, 128), 2);
  EXPECT_EQ(GemmTiles(16 * 56 * 56, 64), 392);
  EXPECT_EQ(Waves(392, 132), 3);
  EXPECT_EQ(Waves(0, 132), 0);
  EXPECT_EQ(Waves(5, 0), 1);
}

// The roofline's view: a convolution's whole output, whatever the pass.
TEST(TilesTest, CallOutputTilesOfAConvolution) {
  KernelCall call;
  call.kind = KernelKind::kConvBwdFilter;
  call.params = {{"n", "16"}, {"c", "64"}, {"h", "56"}, {"w", "56"}, {"k", "256"}, {"r", "3"},
                 {"s", "3"}, {"pad_h", "1"}, {"pad_w", "1"}, {"stride_h", "2"}, {"stride_w", "2"},
                 {"dil_h", "1"}, {"dil_w", "1"}, {"groups", "1"}};
  EXPECT_EQ(CallOutputTiles(call), GemmTiles(16.0 * 28 * 28, 256));
  call.kind = KernelKind::kElementwise;
  EXPECT_EQ(CallOutputTiles(call), 0);
}

TEST(TilesTest, ConvOutputSize) {
  EXPECT_EQ(ConvOutputSize(56, 3, 1, 1, 1), 56);
  EXPECT_EQ(ConvOutputSize(224, 7, 3, 2, 1), 112);
  EXPECT_EQ(ConvOutputSize(56, 3, 2, 1, 2), 56);
  EXPECT_EQ(ConvOutputSize(2, 5, 0, 1, 1), 0);  // window larger than the input
  EXPECT_EQ(ConvOutputSize(8, 1, 0, 0, 1), 0);  // no stride
}

}  // namespace
}  // namespace dlsim
