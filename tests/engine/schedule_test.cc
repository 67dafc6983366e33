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

// An RNN's dispatch ends in 80 us of per-kernel launches: its device work
// starts when they begin (30 us) and ends with the last launch when the
// host is the slower (110 us), or its device time later when the device is.
TEST(ScheduleTest, StreamedDispatchOverlapsItsOwnKernels) {
  std::vector<Task> t(3);
  t[0] = {"embed", 1e-6, 10e-6, {}};
  t[1] = {"rnn", 50e-6, 100e-6, {0}, 80e-6};
  t[2] = {"head", 1e-6, 10e-6, {1}};
  auto host_bound = Schedule(t);
  ASSERT_TRUE(host_bound.ok());
  EXPECT_DOUBLE_EQ(host_bound->eager_start_s[1], 30e-6);
  EXPECT_DOUBLE_EQ(host_bound->eager_end_s[1], 110e-6);
  EXPECT_DOUBLE_EQ(host_bound->eager_s, 121e-6);  // head: dispatched at 120 us, 1 us kernel
  t[1].device_s = 200e-6;
  auto device_bound = Schedule(t);
  ASSERT_TRUE(device_bound.ok());
  EXPECT_DOUBLE_EQ(device_bound->eager_end_s[1], 230e-6);
  EXPECT_DOUBLE_EQ(device_bound->eager_s, 231e-6);
  t[1].streamed_dispatch_s = 0;  // all launched before any runs
  auto unstreamed = Schedule(t);
  ASSERT_TRUE(unstreamed.ok());
  EXPECT_DOUBLE_EQ(unstreamed->eager_s, 311e-6);
}

// The two branches run side by side on streams 0 and 1; the join goes back
// to stream 0, free since a ended.
TEST(ScheduleTest, CriticalPathTimelinePutsBranchesOnStreams) {
  auto r = Schedule(TwoBranches());
  ASSERT_TRUE(r.ok());
  const std::vector<double> parallel = {0, 1e-3, 1e-3, 6e-3};
  for (size_t i = 0; i < 4; ++i) EXPECT_DOUBLE_EQ(r->parallel_start_s[i], parallel[i]);
  EXPECT_EQ(r->stream, (std::vector<int>{0, 0, 1, 0}));
  const std::vector<double> one_stream = {0, 1e-3, 4e-3, 9e-3};
  for (size_t i = 0; i < 4; ++i) EXPECT_DOUBLE_EQ(r->start_s[i], one_stream[i]);
}

// Host dispatches back to back; each kernel starts when dispatched and the
// previous one has ended.
TEST(ScheduleTest, EagerTimelineHasHostAndDeviceTimes) {
  auto r = Schedule(TwoBranches());
  ASSERT_TRUE(r.ok());
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_DOUBLE_EQ(r->dispatch_start_s[i], 10e-6 * static_cast<double>(i));
    EXPECT_DOUBLE_EQ(r->dispatch_end_s[i], 10e-6 * static_cast<double>(i + 1));
  }
  EXPECT_DOUBLE_EQ(r->eager_start_s[0], 10e-6);
  EXPECT_DOUBLE_EQ(r->eager_start_s[1], 1.01e-3);
  EXPECT_DOUBLE_EQ(r->eager_start_s[3], 9.01e-3);
  EXPECT_DOUBLE_EQ(r->eager_start_s[3] + 1e-3, r->eager_s);
}

TEST(ScheduleTest, DependencyOnLaterTaskIsAnError) {
  std::vector<Task> t(2);
  t[0] = {"a", 1e-3, 0, {1}};
  t[1] = {"b", 1e-3, 0, {}};
  auto r = Schedule(t);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("'a'"), std::string::npos);
}

// One DAG, built once, scheduled with two machines' times (what a sweep does).
TEST(ScheduleTest, OneDagManySetsOfTimes) {
  auto dag = TaskDag::Build({"in", "a", "b", "join"}, {{}, {0}, {0}, {1, 2}});
  ASSERT_TRUE(dag.ok());
  const std::vector<double> dispatch(4, 10e-6);
  ScheduleResult slow = ScheduleTimes(*dag, {1e-3, 3e-3, 5e-3, 1e-3}, dispatch);
  EXPECT_DOUBLE_EQ(slow.critical_path_s, 7e-3);
  EXPECT_EQ(slow.critical_path, (std::vector<size_t>{0, 2, 3}));
  ScheduleResult fast = ScheduleTimes(*dag, {1e-3, 6e-3, 2e-3, 1e-3}, dispatch);  // branch a is longer now
  EXPECT_DOUBLE_EQ(fast.one_stream_s, 10e-3);
  EXPECT_DOUBLE_EQ(fast.critical_path_s, 8e-3);
  EXPECT_EQ(fast.critical_path, (std::vector<size_t>{0, 1, 3}));
  EXPECT_EQ(dag->name(3), "join");
}

}  // namespace
}  // namespace dlsim
