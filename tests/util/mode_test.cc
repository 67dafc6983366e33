#include "dlsim/util/mode.h"

#include <gtest/gtest.h>

namespace dlsim {
namespace {

TEST(ModeTest, NamesRoundTrip) {
  EXPECT_STREQ(ModeName(Mode::kInference), "inference");
  EXPECT_STREQ(ModeName(Mode::kTraining), "training");
  EXPECT_EQ(ModeFromName("inference"), Mode::kInference);
  EXPECT_EQ(ModeFromName("training"), Mode::kTraining);
}

TEST(ModeTest, OtherTextIsNoMode) {
  EXPECT_EQ(ModeFromName("train"), std::nullopt);
  EXPECT_EQ(ModeFromName("Training"), std::nullopt);
  EXPECT_EQ(ModeFromName(""), std::nullopt);
}

}  // namespace
}  // namespace dlsim
