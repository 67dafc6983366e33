// Iteration counting and the alignment of kernels against expected calls.
#include "profile/align.h"

#include <gtest/gtest.h>

#include <set>

namespace dlsim {
namespace {

using C = KernelClass;
using K = KernelKind;

// Kernels of the given classes, 1 us each (no duration evidence: the
// expected calls carry no estimates unless a test sets them).
std::vector<MeasuredKernel> Of(const std::vector<C>& classes) {
  std::vector<MeasuredKernel> out;
  for (C c : classes) out.push_back({c, 1e-6});
  return out;
}

std::vector<std::string> Repeat(const std::vector<std::string>& one, int times) {
  std::vector<std::string> out;
  for (int i = 0; i < times; ++i) out.insert(out.end(), one.begin(), one.end());
  return out;
}

TEST(IterationCandidates, PeriodOfTheKernelNames) {
  const std::vector<std::string> one = {"conv", "bn", "relu", "pool", "gemm", "softmax"};
  EXPECT_EQ(IterationCandidates(Repeat(one, 3), 2).front(), 3);
  EXPECT_EQ(IterationCandidates(one, 2).front(), 1);
  EXPECT_EQ(IterationCandidates({}, 2).front(), 1);
}

TEST(IterationCandidates, RepeatedLayersAreNotIterations) {
  // stem, four identical blocks, head: the blocks repeat with period 2, but a
  // period under min_period (a quarter of the expected calls) is refused.
  std::vector<std::string> one = {"stem"};
  for (int i = 0; i < 4; ++i) one.insert(one.end(), {"conv", "relu"});
  one.push_back("head");
  EXPECT_EQ(IterationCandidates(Repeat(one, 2), one.size() / 4).front(), 2);
}

TEST(IterationCandidates, EveryRunOfIdenticalLayersRepeats) {
  // Two iterations of three identical layers: 12 names repeating every 2.
  const std::vector<std::string> layer = {"gemm", "relu"};
  const auto names = Repeat(layer, 6);
  EXPECT_EQ(IterationCandidates(names, 2), (std::vector<int>{6, 3, 2, 1}));
  EXPECT_EQ(IterationCandidates(names, 4), (std::vector<int>{3, 2, 1}));
  EXPECT_EQ(IterationCandidates({"a", "b", "c"}, 1), std::vector<int>{1});
}

TEST(IterationCandidates, ToleratesFivePercentOfDifferentNames) {
  std::vector<std::string> one;
  for (int i = 0; i < 40; ++i) one.push_back("k" + std::to_string(i));
  auto names = Repeat(one, 2);
  names[45] = "another_algorithm";  // 1 of 40 comparisons differs
  EXPECT_EQ(IterationCandidates(names, 10).front(), 2);
}

TEST(AlignIteration, MatchesExtendsAndExtras) {
  const std::vector<ExpectedCall> expected = {
      {0, 0, K::kConvFwd}, {1, 0, K::kElementwise}, {2, 0, K::kGemm}};
  // conv + its layout conversion, an unexpected batch norm, relu, gemm.
  auto slots = AlignIteration(expected, Of({C::kConv, C::kLayout, C::kBatchNorm, C::kElementwise, C::kGemm}), 1000);
  ASSERT_TRUE(slots.ok());
  EXPECT_EQ(*slots, (std::vector<int>{0, 0, -1, 1, 2}));
}

TEST(AlignIteration, ACallTakesTheKernelsItsKeyWasCountedLaunching) {
  // A batch norm in fp16 casts around its kernel (counted: 3 kernels), then
  // a gemm. Uncounted, the casts are kernels no call expects.
  std::vector<ExpectedCall> expected = {{0, 0, K::kBatchNormInfer, 0, 3}, {1, 0, K::kGemm}};
  const auto kernels = Of({C::kElementwise, C::kBatchNorm, C::kElementwise, C::kGemm});
  auto counted = AlignIteration(expected, kernels, 1000);
  ASSERT_TRUE(counted.ok());
  EXPECT_EQ(*counted, (std::vector<int>{0, 0, 0, 1}));
  expected[0].kernels = 1;
  auto one = AlignIteration(expected, kernels, 1000);
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(*one, (std::vector<int>{-1, 0, -1, 1}));
}

TEST(AlignIteration, MissingCallsAreSkipped) {
  const std::vector<ExpectedCall> expected = {
      {0, 0, K::kConvFwd}, {0, 1, K::kElementwise}, {1, 0, K::kGemm}};
  auto slots = AlignIteration(expected, Of({C::kConv, C::kGemm}), 1000);
  ASSERT_TRUE(slots.ok());
  EXPECT_EQ(*slots, (std::vector<int>{0, 2}));
}

TEST(AlignIteration, LayersRunOutOfGraphOrderStillMatch) {
  // The graph lists the softmax before the value GEMM; the framework ran the
  // GEMM first. Order alone leaves one of them unmatched; the repair pass
  // gives the left-over kernel its call.
  const std::vector<ExpectedCall> expected = {
      {0, 0, K::kGemm}, {1, 0, K::kSoftmaxFwd}, {2, 0, K::kGemm}};
  auto slots = AlignIteration(expected, Of({C::kGemm, C::kGemm, C::kSoftmax}), 1000);
  ASSERT_TRUE(slots.ok());
  EXPECT_EQ((*slots)[2], 1);
  EXPECT_EQ(std::set<int>(slots->begin(), slots->end()), (std::set<int>{0, 1, 2}));
}

TEST(AlignIteration, GemmHelpersJoinTheirGemm) {
  // pool, cuBLAS beta scaling, the GEMM, its epilogue, relu.
  const std::vector<ExpectedCall> expected = {
      {0, 0, K::kPoolFwd}, {1, 0, K::kGemm}, {2, 0, K::kElementwise}};
  auto slots = AlignIteration(expected, Of({C::kPool, C::kGemmAux, C::kGemm, C::kGemmAux, C::kElementwise}), 1000);
  ASSERT_TRUE(slots.ok());
  EXPECT_EQ(*slots, (std::vector<int>{0, 1, 1, 1, 2}));
}

TEST(AlignIteration, DurationsPickTheCallOfTheRightSize) {
  // Graph order: a big GEMM (65 us), a pointwise op, a small GEMM (14 us).
  // Only the small GEMM ran before the pointwise kernel: by order alone it
  // would open the big GEMM's call.
  const std::vector<ExpectedCall> expected = {
      {0, 0, K::kGemm, 65e-6}, {1, 0, K::kElementwise, 5e-6}, {2, 0, K::kGemm, 14e-6}};
  auto slots = AlignIteration(expected, {{C::kElementwise, 5e-6}, {C::kGemm, 14e-6}}, 1000);
  ASSERT_TRUE(slots.ok());
  EXPECT_EQ(*slots, (std::vector<int>{1, 2}));
}

TEST(AlignIteration, RefusesTablesOverTheLimit) {
  auto slots = AlignIteration({{0, 0, K::kGemm}}, Of(std::vector<C>(100, C::kGemm)), 50);
  ASSERT_FALSE(slots.ok());
  EXPECT_NE(slots.status().message().find("too large to align"), std::string::npos);
}

}  // namespace
}  // namespace dlsim
