#include "kernel/work.h"

#include <gtest/gtest.h>

#include <cmath>

namespace dlsim {
namespace {

KeyWork Work(const std::string& key) {
  auto parsed = ParseKernelKey(key);
  EXPECT_TRUE(parsed.ok()) << parsed.status().ToString();
  auto work = WorkOfKey(*parsed);
  EXPECT_TRUE(work.ok()) << work.status().ToString();
  return work.ok() ? *work : KeyWork{};
}

Status WorkError(const std::string& key) { return WorkOfKey(*ParseKernelKey(key)).status(); }

TEST(WorkTest, ConvolutionIsTwoNKHoWoCRS) {
  KeyWork w = Work(
      "conv_fwd n=16 c=64 h=56 w=56 k=64 r=3 s=3 pad_h=1 pad_w=1 stride_h=1 stride_w=1 "
      "dil_h=1 dil_w=1 groups=1 dtype=fp32 math=tf32 layout=nchw");
  EXPECT_EQ(w.flops, 2.0 * 16 * 64 * 56 * 56 * 64 * 3 * 3);
  EXPECT_EQ(w.bytes, (2.0 * 16 * 64 * 56 * 56 + 64 * 64 * 9) * 4);
  EXPECT_EQ(w.gemm_m, 16.0 * 56 * 56);
  EXPECT_EQ(w.gemm_n, 64);
  EXPECT_EQ(w.tiles, 392);
  EXPECT_DOUBLE_EQ(WaveEfficiency(w.tiles, 132), 392.0 / 396.0);
}

TEST(WorkTest, GroupedStridedConvolution) {
  // 7x7 stride 2 pad 3 on 224 -> 112; depthwise-like groups=32.
  KeyWork w = Work(
      "conv_bwd_filter n=8 c=32 h=224 w=224 k=64 r=7 s=7 pad_h=3 pad_w=3 stride_h=2 "
      "stride_w=2 dil_h=1 dil_w=1 groups=32 dtype=fp16 math=fp16 layout=nhwc");
  EXPECT_EQ(w.flops, 2.0 * 8 * 64 * 112 * 112 * 1 * 49);
  EXPECT_EQ(w.bytes, (8.0 * 32 * 224 * 224 + 64.0 * 1 * 49 + 8.0 * 64 * 112 * 112) * 2);
  EXPECT_EQ(w.gemm_m, 2);   // k / groups
  EXPECT_EQ(w.gemm_n, 49);  // c / groups * r * s
  EXPECT_EQ(w.tiles, 32);
}

TEST(WorkTest, GemmAndBatchedGemm) {
  KeyWork g = Work("gemm m=16 n=1000 k=2048 trans_a=0 trans_b=1 dtype=fp32 math=fp32 layout=-");
  EXPECT_EQ(g.flops, 2.0 * 16 * 1000 * 2048);
  EXPECT_EQ(g.bytes, (16.0 * 2048 + 2048.0 * 1000 + 16.0 * 1000) * 4);
  EXPECT_EQ(g.tiles, 8);
  KeyWork b = Work(
      "batched_gemm batch=192 m=128 n=128 k=64 trans_a=0 trans_b=1 dtype=fp16 math=fp16 "
      "layout=-");
  EXPECT_EQ(b.flops, 2.0 * 192 * 128 * 128 * 64);
  EXPECT_EQ(b.bytes, 192.0 * (128 * 64 + 64 * 128 + 128 * 128) * 2);
  EXPECT_EQ(b.tiles, 192);
}

TEST(WorkTest, MemoryBoundKinds) {
  KeyWork e = Work("elementwise op=add elems=802816 arity=2 dtype=fp32 math=fp32 layout=-");
  EXPECT_EQ(e.bytes, 802816.0 * 3 * 4);
  EXPECT_EQ(e.flops, 802816.0);
  EXPECT_EQ(e.tiles, 0);
  EXPECT_EQ(Work("copy op=transpose elems=1000 dtype=fp16 math=fp16 layout=-").bytes, 4000);
  EXPECT_EQ(Work("reduction op=mean rows=10 cols=100 dtype=fp32 math=fp32 layout=-").bytes,
            1010.0 * 4);
  EXPECT_EQ(Work("softmax_bwd rows=4 cols=1000 dtype=fp32 math=fp32 layout=-").bytes,
            3 * 4000.0 * 4);
  EXPECT_EQ(Work("optimizer op=adam params=1000 fused=1 dtype=fp32 math=fp32 layout=-").bytes,
            7000.0 * 4);
  EXPECT_EQ(Work("batchnorm_infer n=2 c=3 h=4 w=5 dtype=fp32 math=fp32 layout=nchw").bytes,
            (2 * 120.0 + 12) * 4);
  // Pooling 3x3 stride 2 pad 1 on 112 -> 56.
  KeyWork p = Work(
      "pool_fwd mode=max n=1 c=64 h=112 w=112 r=3 s=3 pad_h=1 pad_w=1 stride_h=2 stride_w=2 "
      "dtype=fp32 math=fp32 layout=nchw");
  EXPECT_EQ(p.bytes, (64.0 * 112 * 112 + 64.0 * 56 * 56) * 4);
  EXPECT_EQ(p.flops, 64.0 * 56 * 56 * 9);
}

TEST(WorkTest, LstmCountsGatesLayersAndStates) {
  KeyWork w = Work(
      "rnn_fwd cell=lstm seq=2 batch=1 input=3 hidden=4 layers=1 dirs=1 dtype=fp32 math=fp32 "
      "layout=-");
  // seq 2 x batch 1 x (gate GEMMs 2*4*4*(3+4) + pointwise 10 per hidden unit)
  EXPECT_EQ(w.flops, 2.0 * (2.0 * 4 * 4 * (3 + 4) + 10.0 * 4));
  // weights 4*4*(3+4+2) + x 2*3 + y 2*4 + gates 2*4*4
  EXPECT_EQ(w.bytes, (144.0 + 6 + 8 + 32) * 4);
}

// Issue 21: the one FLOP count per kind (a multiply-add is 2), which the
// lowering takes for every call.
TEST(WorkTest, FlopsPerElementOfTheMemoryBoundKinds) {
  const double e = 4000;  // rows 4 x cols 1000, or n 2 c 10 h 10 w 20
  EXPECT_EQ(Work("softmax_fwd rows=4 cols=1000 dtype=fp32 math=fp32 layout=-").flops, 5 * e);
  EXPECT_EQ(Work("softmax_bwd rows=4 cols=1000 dtype=fp32 math=fp32 layout=-").flops, 4 * e);
  EXPECT_EQ(Work("layernorm_fwd rows=4 cols=1000 dtype=fp32 math=fp32 layout=-").flops, 8 * e);
  EXPECT_EQ(Work("layernorm_bwd rows=4 cols=1000 dtype=fp32 math=fp32 layout=-").flops, 10 * e);
  const std::string nchw = " n=2 c=10 h=10 w=20 dtype=fp32 math=fp32 layout=nchw";
  EXPECT_EQ(Work("batchnorm_infer" + nchw).flops, 2 * e);
  EXPECT_EQ(Work("batchnorm_train_fwd" + nchw).flops, 5 * e);
  EXPECT_EQ(Work("batchnorm_bwd" + nchw).flops, 8 * e);
  EXPECT_EQ(Work("lrn_fwd" + std::string(" n=2 c=10 h=10 w=20 size=5 dtype=fp32 math=fp32 "
                                         "layout=nchw")).flops,
            14 * e);
  auto elementwise = [](const std::string& op, int arity) {
    return Work("elementwise op=" + op + " elems=4000 arity=" + std::to_string(arity) +
                " dtype=fp32 math=fp32 layout=-")
        .flops;
  };
  EXPECT_EQ(elementwise("gelu", 1), 10 * e);
  EXPECT_EQ(elementwise("silu", 1), 5 * e);
  EXPECT_EQ(elementwise("tanh", 1), 8 * e);
  EXPECT_EQ(elementwise("relu", 1), e);
  EXPECT_EQ(elementwise("relu_bwd", 2), 2 * e);
  EXPECT_EQ(elementwise("sum", 3), 2 * e);
  auto optimizer = [](const std::string& op) {
    return Work("optimizer op=" + op + " params=1000 fused=1 dtype=fp32 math=fp32 layout=-").flops;
  };
  EXPECT_EQ(optimizer("sgd"), 2000);
  EXPECT_EQ(optimizer("sgd_momentum"), 4000);
  EXPECT_EQ(optimizer("adam"), 12000);
  EXPECT_EQ(optimizer("adamw"), 12000);
  EXPECT_EQ(optimizer("foreach_mul"), 1000);
  EXPECT_EQ(optimizer("foreach_add"), 2000);
  EXPECT_EQ(Work("optimizer op=foreach_mul params=1000 fused=1 dtype=fp32 math=fp32 layout=-").bytes,
            2000.0 * 4);
  EXPECT_EQ(Work("optimizer op=foreach_add params=1000 fused=1 dtype=fp32 math=fp32 layout=-").bytes,
            3000.0 * 4);
}

TEST(WorkTest, AttentionCountsItsGemmsAndSoftmax) {
  const double scores = 2.0 * 8 * 128 * 128;
  const std::string shape = " batch=2 heads=8 seq_q=128 seq_k=128 head_dim=64 mask=0 dtype=fp16 "
                            "math=fp16 layout=-";
  EXPECT_EQ(Work("attention_fwd" + shape).flops, scores * (4 * 64 + 5));
  EXPECT_EQ(Work("attention_bwd" + shape).flops, scores * (10 * 64 + 9));
}

TEST(WorkTest, ConvOutputSizeOfHostileValuesIsZeroNotAnOverflow) {
  EXPECT_EQ(ConvOutputSize(112, 3, 1, 2, 1), 56);
  EXPECT_EQ(ConvOutputSize(INT64_MAX, 3, INT64_MAX, 1, 1), 0);  // past int64
  EXPECT_EQ(ConvOutputSize(10, INT64_MAX, 0, 1, INT64_MAX), 0);  // window past int64
  EXPECT_EQ(ConvOutputSize(INT64_MAX, 1, 0, 1, 1), INT64_MAX);
}

// A key of a database file may say any layer count: counted in closed form
// (a loop over 2^62 layers hung), and two layers as layer 0 plus one more.
TEST(WorkTest, RnnLayersInClosedForm) {
  const std::string rest = " dirs=2 dtype=fp32 math=fp32 layout=-";
  const double two = Work("rnn_fwd cell=gru seq=3 batch=2 input=5 hidden=4 layers=2" + rest).flops;
  const double step = 3.0 * 2 * 2;  // seq x batch x dirs
  EXPECT_EQ(two, step * (2.0 * 3 * 4 * (5 + 4) + 10 * 4) + step * (2.0 * 3 * 4 * (8 + 4) + 10 * 4));
  const double huge =
      Work("rnn_fwd cell=gru seq=3 batch=2 input=5 hidden=4 layers=4611686018427387904" + rest)
          .flops;
  EXPECT_GT(huge, 4e18);
  EXPECT_TRUE(std::isfinite(huge));
}

TEST(WorkTest, ErrorsNameTheProblem) {
  EXPECT_EQ(WorkError("gemm m=16 n=1000 trans_a=0 trans_b=1 dtype=fp32 math=fp32 layout=-")
                .message(),
            "kernel key 'gemm m=16 n=1000 trans_a=0 trans_b=1 dtype=fp32 math=fp32 layout=-': "
            "missing parameter 'k'");
  EXPECT_EQ(WorkError("gemm m=16 n=0 k=3 trans_a=0 trans_b=1 dtype=fp32 math=fp32 layout=-")
                .message(),
            "kernel key 'gemm m=16 n=0 k=3 trans_a=0 trans_b=1 dtype=fp32 math=fp32 layout=-': "
            "parameter n=0 is not a positive integer");
  EXPECT_FALSE(WorkError("gemm m=1 n=1 k=1 trans_a=0 trans_b=1 dtype=int4 math=fp32 layout=-")
                   .ok());
  EXPECT_FALSE(WorkError("conv_fwd n=1 c=3 h=2 w=2 k=4 r=5 s=5 pad_h=0 pad_w=0 stride_h=1 "
                         "stride_w=1 dil_h=1 dil_w=1 groups=1 dtype=fp32 math=fp32 layout=nchw")
                   .ok());
  EXPECT_FALSE(WorkError("conv_fwd n=1 c=3 h=8 w=8 k=4 r=1 s=1 pad_h=0 pad_w=0 stride_h=1 "
                         "stride_w=1 dil_h=1 dil_w=1 groups=2 dtype=fp32 math=fp32 layout=nchw")
                   .ok());
}

TEST(WorkTest, WaveEfficiency) {
  EXPECT_EQ(WaveEfficiency(0, 132), 1.0);
  EXPECT_EQ(WaveEfficiency(132, 132), 1.0);
  EXPECT_EQ(WaveEfficiency(264, 132), 1.0);
  EXPECT_EQ(WaveEfficiency(133, 132), 133.0 / 264.0);
  EXPECT_EQ(WaveEfficiency(1, 100), 0.01);
}

}  // namespace
}  // namespace dlsim
