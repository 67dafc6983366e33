#include "dlsim/perfdb/kernel_counts.h"

#include <gtest/gtest.h>

namespace dlsim {
namespace {

std::string Key(const std::string& text) {
  auto k = ParseKernelKey(text);
  EXPECT_TRUE(k.ok()) << k.status().ToString();
  return text;
}

const char* kConv16 =
    "conv_fwd n=8 c=64 h=56 w=56 k=64 r=3 s=3 pad_h=1 pad_w=1 stride_h=1 stride_w=1 dil_h=1 "
    "dil_w=1 groups=1 dtype=fp16 math=fp32 layout=nchw";
const char* kConv32 =
    "conv_fwd n=8 c=64 h=56 w=56 k=64 r=3 s=3 pad_h=1 pad_w=1 stride_h=1 stride_w=1 dil_h=1 "
    "dil_w=1 groups=1 dtype=fp32 math=tf32 layout=nchw";

TEST(KernelCountsTest, CountedKeyGivesItsOwnCount) {
  KernelCounts counts({{kConv16, 4}, {kConv32, 1}});
  EXPECT_EQ(counts.size(), 2u);
  EXPECT_EQ(counts.Of(Key(kConv16)), 4);
  EXPECT_EQ(counts.Of(Key(kConv32)), 1);
}

TEST(KernelCountsTest, UncountedKeyTakesTheNearestOfItsDtype) {
  KernelCounts counts({{kConv16, 4}, {kConv32, 1}});
  // Other channels and size, same dtype, math and layout as kConv16: its
  // numbers differ by log2 steps, the fp32 key's also by two categories.
  auto near16 = Key(
      "conv_fwd n=8 c=96 h=28 w=28 k=128 r=3 s=3 pad_h=1 pad_w=1 stride_h=1 stride_w=1 dil_h=1 "
      "dil_w=1 groups=1 dtype=fp16 math=fp32 layout=nchw");
  EXPECT_EQ(counts.Of(near16), 4);
  auto near32 = Key(
      "conv_fwd n=8 c=96 h=28 w=28 k=128 r=3 s=3 pad_h=1 pad_w=1 stride_h=1 stride_w=1 dil_h=1 "
      "dil_w=1 groups=1 dtype=fp32 math=tf32 layout=nchw");
  EXPECT_EQ(counts.Of(near32), 1);
  EXPECT_EQ(counts.Of(near32), 1);  // the memo gives the same
}

// The standard cuDNN RNN algorithm launches kernels per time step, layer and
// direction: the nearest key's count scales with them. A persistent kernel
// (hidden <= 192 for a forward LSTM/GRU) walks the steps in one launch: its
// count stands. Each looks among keys of its own algorithm first, however
// near a key of the other is.
TEST(KernelCountsTest, RecurrentCountsFollowTheAlgorithm) {
  const std::string per_step =
      "rnn_fwd cell=gru seq=20 batch=8 input=64 hidden=256 layers=1 dirs=1 dtype=fp32 math=tf32 layout=-";
  const std::string persistent =
      "rnn_fwd cell=gru seq=20 batch=8 input=64 hidden=128 layers=1 dirs=1 dtype=bf16 math=bf16 layout=-";
  KernelCounts counts({{per_step, 43}, {persistent, 4}}, 132);
  EXPECT_EQ(counts.Of(Key(
                "rnn_fwd cell=gru seq=60 batch=8 input=64 hidden=256 layers=2 dirs=1 dtype=fp32 math=tf32 layout=-")),
            258);  // 43 x (60 x 2) / 20
  EXPECT_EQ(counts.Of(Key(
                "rnn_fwd cell=gru seq=60 batch=8 input=64 hidden=160 layers=2 dirs=1 dtype=fp32 math=tf32 layout=-")),
            4);  // persistent, though the fp32 key is nearer by dtype
  EXPECT_EQ(counts.Of(Key(
                "rnn_fwd cell=gru seq=40 batch=8 input=64 hidden=256 layers=1 dirs=1 dtype=bf16 math=bf16 layout=-")),
            86);  // standard, though the bf16 key is nearer by dtype: 43 x 40 / 20
  EXPECT_EQ(counts.Of(Key(per_step)), 43);
}

// Backward-weights calls launch a few kernels per layer and direction, not per
// step: the nearest key's count stands.
TEST(KernelCountsTest, RecurrentBackwardWeightsCountsDoNotScaleWithTheSteps) {
  const std::string counted =
      "rnn_bwd_weights cell=lstm seq=64 batch=32 input=512 hidden=512 layers=2 dirs=1 dtype=fp32 math=tf32 layout=-";
  KernelCounts counts({{counted, 9}}, 132);
  EXPECT_EQ(counts.Of(Key(
                "rnn_bwd_weights cell=lstm seq=300 batch=32 input=512 hidden=512 layers=2 dirs=1 dtype=fp32 math=tf32 layout=-")),
            9);
}

// The five nearest counted keys vote: the most common count wins, a tie goes
// to the nearer. One odd neighbour (a shape where cuDNN added a transform)
// does not decide a key's count alone.
TEST(KernelCountsTest, TheFiveNearestVote) {
  auto rows = [](int r) {
    return "reduction op=sum rows=" + std::to_string(r) + " cols=64 dtype=fp32 math=fp32 layout=-";
  };
  KernelCounts counts({{rows(100), 3}, {rows(80), 1}, {rows(128), 1}, {rows(60), 1},
                       {rows(200), 3}, {rows(4000), 3}});
  // rows=100 itself is counted: its own count.
  EXPECT_EQ(counts.Of(Key(rows(100))), 3);
  // rows=101: nearest 100 (3), then 80, 128, 60 (1 each) and 200 (3): 1 wins 3 to 2.
  EXPECT_EQ(counts.Of(Key(rows(101))), 1);
  // rows=150: 128 (1), 200 (3), 100 (3), 80 (1), 60 (1): 1 wins 3 to 2.
  EXPECT_EQ(counts.Of(Key(rows(150))), 1);
  // One vote each: the nearer count wins.
  KernelCounts even({{rows(100), 3}, {rows(80), 1}});
  EXPECT_EQ(even.Of(Key(rows(95))), 3);
}

TEST(KernelCountsTest, KindNobodyCountedHasNoCount) {
  KernelCounts counts({{kConv16, 4}});
  EXPECT_FALSE(counts.Of(Key("gemm m=64 n=64 k=64 trans_a=0 trans_b=0 dtype=fp16 math=fp32 layout=-"))
                   .has_value());
  EXPECT_FALSE(KernelCounts().Of(Key(kConv16)).has_value());
}

TEST(KernelCountsTest, NearestIsByLog2DistanceThenCategories) {
  const std::string a = "reduction op=sum rows=4 cols=64 dtype=fp32 math=fp32 layout=-";
  const std::string b = "reduction op=sum rows=16 cols=64 dtype=fp32 math=fp32 layout=-";
  KernelCounts counts({{a, 2}, {b, 3}});
  // rows=8 against rows=4 and 16: |log2 9 - log2 5| = 0.85 < |log2 9 - log2 17| = 0.92.
  EXPECT_EQ(counts.Of(Key("reduction op=sum rows=8 cols=64 dtype=fp32 math=fp32 layout=-")), 2);
  // A differing text parameter costs both the same: the numbers decide.
  EXPECT_EQ(counts.Of(Key("reduction op=max rows=16 cols=64 dtype=fp32 math=fp32 layout=-")), 3);
  // Equal distances go to the key that sorts first ("rows=16" < "rows=4").
  KernelCounts tie({{"reduction op=sum rows=4 cols=64 dtype=fp32 math=fp32 layout=-", 2},
                    {"reduction op=sum rows=4 cols=64 dtype=fp16 math=fp32 layout=-", 5}});
  EXPECT_EQ(tie.Of(Key("reduction op=sum rows=4 cols=64 dtype=bf16 math=fp32 layout=-")), 5);
}

}  // namespace
}  // namespace dlsim
