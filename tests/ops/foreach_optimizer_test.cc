// SGD's multi-tensor path as PyTorch's foreach ops run it
// (src/ops/foreach_optimizer.h): the chunks, the launches and their bytes.
#include "ops/foreach_optimizer.h"

#include <gtest/gtest.h>

#include "dlsim/ops/lowering.h"

namespace dlsim {
namespace {

TEST(ForeachOptimizerTest, ChunksAreFullChunksPlusHalfATensorAtLeastOneATensor) {
  EXPECT_EQ(ForeachChunks(1000, 4), 4);               // small tensors: one chunk each
  EXPECT_EQ(ForeachChunks(65536 * 100, 10), 105);     // 100 full + 5 partial
  EXPECT_EQ(ForeachChunks(65536 * 100 + 1, 10), 106);  // rounded up
}

TEST(ForeachOptimizerTest, LaunchesSplitAt320ChunksAnd110Or64Tensors) {
  EXPECT_EQ(ForeachLaunches(65536 * 300, 40, 1), 1);  // 320 chunks: one launch
  EXPECT_EQ(ForeachLaunches(65536 * 301, 40, 1), 2);
  EXPECT_EQ(ForeachLaunches(1000, 110, 1), 1);  // one list: 110 tensors a launch
  EXPECT_EQ(ForeachLaunches(1000, 111, 1), 2);
  EXPECT_EQ(ForeachLaunches(1000, 65, 2), 2);  // two lists: 64 tensors a launch
}

TEST(ForeachOptimizerTest, MomentumIsMulAddAddOverTheLists) {
  auto calls = ForeachSgdCalls(true, ParameterTensors{1000, 4, 0});
  ASSERT_EQ(calls.size(), 3u);
  EXPECT_EQ(calls[0].library_call, "foreach_mul");
  EXPECT_DOUBLE_EQ(calls[0].bytes(), 1000 * 4.0 * 2);  // buf read and written
  EXPECT_DOUBLE_EQ(calls[0].flops, 1000);
  EXPECT_EQ(calls[1].library_call, "foreach_add");
  EXPECT_DOUBLE_EQ(calls[1].bytes(), 1000 * 4.0 * 3);  // buf, grad read; buf written
  EXPECT_DOUBLE_EQ(calls[1].flops, 2000);
  EXPECT_EQ(calls[2].library_call, "foreach_add");
  EXPECT_DOUBLE_EQ(calls[2].bytes(), 1000 * 4.0 * 3);  // param, buf read; param written
  for (const KernelCall& c : calls) {
    EXPECT_EQ(c.kind, KernelKind::kOptimizer);
    EXPECT_EQ(c.phase, Phase::kOptimizer);
  }
}

TEST(ForeachOptimizerTest, PlainSgdIsOneAddSplitIntoLaunches) {
  // 65536 * 640 elements in 2 tensors: 641 chunks, three launches of one op.
  auto calls = ForeachSgdCalls(false, ParameterTensors{65536 * 640, 2, 0});
  ASSERT_EQ(calls.size(), 3u);
  double params = 0;
  for (const KernelCall& c : calls) params += c.IntParam("params", 0);
  EXPECT_EQ(params, 65536.0 * 640);
  EXPECT_EQ(calls[0].IntParam("params", 0), 13981014);
  EXPECT_EQ(calls[2].IntParam("params", 0), 13981013);
}

TEST(ForeachOptimizerTest, TheKeyCarriesTheLargestTensorUpToAChunk) {
  auto small = ForeachSgdCalls(false, ParameterTensors{3000, 3, 1500});
  ASSERT_EQ(small.size(), 1u);
  EXPECT_EQ(small[0].IntParam("chunk", -1), 1500);
  auto large = ForeachSgdCalls(false, ParameterTensors{900000, 3, 700000});
  EXPECT_EQ(large[0].IntParam("chunk", -1), 65536);
  auto unknown = ForeachSgdCalls(false, ParameterTensors{3000, 3, 0});
  EXPECT_EQ(unknown[0].IntParam("chunk", -1), -1);  // no chunk in the key
}

TEST(ForeachOptimizerTest, LowerOptimizerTakesTheForeachPathForFusedSgdOnly) {
  EXPECT_EQ(LowerOptimizer(Optimizer::kSgdMomentum, ParameterTensors{1000, 4, 0}, true, LoweringOptions{}).size(), 3u);
  EXPECT_EQ(LowerOptimizer(Optimizer::kSgd, ParameterTensors{1000, 4, 0}, true, LoweringOptions{}).size(), 1u);
  EXPECT_EQ(LowerOptimizer(Optimizer::kSgdMomentum, ParameterTensors{1000, 4, 0}, false, LoweringOptions{}).size(), 4u);
  EXPECT_EQ(LowerOptimizer(Optimizer::kAdam, ParameterTensors{1000, 4, 0}, true, LoweringOptions{}).size(), 1u);
}

// A fuzzer's parameter count near INT64_MAX: no overflow, and the launches of
// each op merge at 2^14 calls, every parameter still counted.
TEST(ForeachOptimizerTest, AbsurdParameterCountsAreBounded) {
  const int64_t huge = int64_t{4810621492522572597};
  EXPECT_NEAR(static_cast<double>(ForeachChunks(huge, 1)), huge / 65536.0, 2.0);
  EXPECT_EQ(ForeachChunks(INT64_MAX, INT64_MAX), int64_t{1} << 53);
  EXPECT_EQ(ForeachLaunches(INT64_MAX, INT64_MAX, 2), INT64_MAX / 64 + 1);
  const std::vector<KernelCall> calls = ForeachSgdCalls(true, ParameterTensors{huge, 3, huge});
  ASSERT_EQ(calls.size(), 3u << 14);
  int64_t first_op = 0;
  for (size_t i = 0; i < (1u << 14); ++i) first_op += calls[i].IntParam("params", 0);
  EXPECT_EQ(first_op, huge);
}

}  // namespace
}  // namespace dlsim
