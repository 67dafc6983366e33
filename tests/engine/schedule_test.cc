#include "dlsim/engine/schedule.h"

#include <gtest/gtest.h>

namespace dlsim {
namespace {

// in -> {a (3 ms), b (5 ms)} -> join (1 ms)
std::vector<Task> TwoBranches() {
  std::vector<Task> t(4);
  t[0] = {"in", 1e-3, 10e-6, {}};
  t[1] = {"a", 3e-3, 10e-6, {0}};
  t[2] = {"b", 5e-3, 10e-6, {0}};
  t[3] = {"join", 1e-3, 10e-6, {1, 2}};
  return t;
}

TEST(ScheduleTest, OneStreamIsSumCriticalPathIsLongerBranch) {
  auto r = Schedule(TwoBranches());
  ASSERT_TRUE(r.ok());
  EXPECT_DOUBLE_EQ(r->one_stream_s, 10e-3);
  EXPECT_DOUBLE_EQ(r->critical_path_s, 7e-3);
  EXPECT_EQ(r->critical_path, (std::vector<size_t>{0, 2, 3}));
}

TEST(ScheduleTest, EagerIsDeviceBoundWhenKernelsAreLong) {
  auto r = Schedule(TwoBranches());
  ASSERT_TRUE(r.ok());
  EXPECT_DOUBLE_EQ(r->host_s, 40e-6);
  EXPECT_DOUBLE_EQ(r->eager_s, 10e-3 + 10e-6);  // first dispatch, then back to back
}

TEST(ScheduleTest, EagerIsHostBoundWhenKernelsAreShort) {
  std::vector<Task> t(3);
  for (size_t i = 0; i < 3; ++i) t[i] = {"k", 2e-6, 20e-6, {}};
  auto r = Schedule(t);
  ASSERT_TRUE(r.ok());
  EXPECT_DOUBLE_EQ(r->eager_s, 62e-6);  // last dispatch at 60 us, then its 2 us kernel
}

TEST(ScheduleTest, DependencyOnLaterTaskIsAnError) {
  std::vector<Task> t(2);
  t[0] = {"a", 1e-3, 0, {1}};
  t[1] = {"b", 1e-3, 0, {}};
  auto r = Schedule(t);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("'a'"), std::string::npos);
}

}  // namespace
}  // namespace dlsim
