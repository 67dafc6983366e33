#include "dlsim/kernel/layout.h"

#include <gtest/gtest.h>

namespace dlsim {
namespace {

TEST(LayoutTest, NamesRoundTrip) {
  EXPECT_STREQ(LayoutName(Layout::kNone), "-");
  EXPECT_STREQ(LayoutName(Layout::kNchw), "nchw");
  EXPECT_STREQ(LayoutName(Layout::kNhwc), "nhwc");
  for (Layout l : {Layout::kNone, Layout::kNchw, Layout::kNhwc}) {
    EXPECT_EQ(LayoutFromName(LayoutName(l)), l);
  }
}

TEST(LayoutTest, OtherTextIsNoLayout) {
  EXPECT_EQ(LayoutFromName("NHWC"), std::nullopt);
  EXPECT_EQ(LayoutFromName("channels_last"), std::nullopt);
  EXPECT_EQ(LayoutFromName(""), std::nullopt);
}

}  // namespace
}  // namespace dlsim
