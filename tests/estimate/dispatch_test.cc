// Eager dispatch lookup: dtype-qualified entry, then the kind's, then the default.
#include "estimate/dispatch.h"

#include <gtest/gtest.h>

namespace dlsim {
namespace {

HostSpec Host() {
  HostSpec h;
  h.dispatch_s = 50e-6;
  h.dispatch_s_by_kind["batchnorm_infer"] = 40e-6;
  h.dispatch_s_by_kind["batchnorm_infer.fp16"] = 110e-6;
  h.dispatch_s_by_kind["none"] = 0;
  return h;
}

KernelCall Call(KernelKind kind, DType dtype) {
  KernelCall c;
  c.kind = kind;
  c.dtype = dtype;
  return c;
}

TEST(Dispatch, DtypeQualifiedEntryWins) {
  KernelCall bn16 = Call(KernelKind::kBatchNormInfer, DType::kFloat16);
  EXPECT_EQ(ForwardDispatchS(Host(), &bn16), 110e-6);
}

TEST(Dispatch, KindEntryForOtherDtypes) {
  KernelCall bn32 = Call(KernelKind::kBatchNormInfer, DType::kFloat32);
  EXPECT_EQ(ForwardDispatchS(Host(), &bn32), 40e-6);
}

TEST(Dispatch, AnIdentityIsNoOpOfTheFramework) {
  EXPECT_FALSE(DispatchesInEager("Identity"));
  EXPECT_TRUE(DispatchesInEager("Relu"));
}

TEST(Dispatch, DefaultForUnlistedKinds) {
  KernelCall add = Call(KernelKind::kElementwise, DType::kFloat16);
  EXPECT_EQ(ForwardDispatchS(Host(), &add), 50e-6);
  EXPECT_EQ(DispatchS(Host(), "backward"), 50e-6);
}

TEST(Dispatch, ViewsUseNone) { EXPECT_EQ(ForwardDispatchS(Host(), nullptr), 0); }

KernelCall Cast(Phase phase) {
  KernelCall c = Call(KernelKind::kCopy, DType::kBFloat16);
  c.phase = phase;
  c.AddParam("op", phase == Phase::kForward ? "cast" : "cast_bwd");
  return c;
}

TEST(Dispatch, AutocastCastsAreOpsOfTheirOwn) {
  HostSpec h = Host();
  h.dispatch_s_by_kind["gemm"] = 20e-6;
  h.dispatch_s_by_kind["copy"] = 7e-6;
  h.dispatch_s_by_kind["backward"] = 30e-6;
  KernelCall gemm = Call(KernelKind::kGemm, DType::kBFloat16);
  KernelCall bwd_gemm = gemm;
  bwd_gemm.phase = Phase::kBackward;
  // Two input casts, the GEMM, its backward and one gradient cast back.
  const std::vector<KernelCall> calls = {Cast(Phase::kForward), Cast(Phase::kForward), gemm,
                                         bwd_gemm, Cast(Phase::kBackward)};
  EXPECT_DOUBLE_EQ(NodeForwardDispatchS(h, calls), 20e-6 + 2 * 7e-6);
  EXPECT_DOUBLE_EQ(NodeBackwardDispatchS(h, calls, true), 2 * 30e-6);
  EXPECT_DOUBLE_EQ(NodeBackwardDispatchS(h, calls, false), 30e-6);
}

TEST(Dispatch, ACopyThatIsNotACastIsTheNodesOp) {
  KernelCall copy = Call(KernelKind::kCopy, DType::kFloat32);
  EXPECT_FALSE(IsAutocastCast(copy));
  EXPECT_DOUBLE_EQ(NodeForwardDispatchS(Host(), {copy}), 50e-6);
  EXPECT_DOUBLE_EQ(NodeForwardDispatchS(Host(), {}), 0);
}

TEST(Dispatch, AnOwnOpIsDispatchedApartFromTheNodesOp) {
  HostSpec h = Host();
  h.dispatch_s_by_kind["conv_fwd"] = 30e-6;
  h.dispatch_s_by_kind["backward"] = 20e-6;
  // a convolution with the batch norm an exporter folded into it
  KernelCall conv = Call(KernelKind::kConvFwd, DType::kFloat16);
  KernelCall bn = Call(KernelKind::kBatchNormInfer, DType::kFloat16);
  bn.own_op = true;
  EXPECT_DOUBLE_EQ(NodeForwardDispatchS(h, {conv, bn}), 30e-6 + 110e-6);
  KernelCall dgrad = Call(KernelKind::kConvBwdData, DType::kFloat32);
  dgrad.phase = Phase::kBackward;
  KernelCall bn_bwd = Call(KernelKind::kBatchNormBwd, DType::kFloat32);
  bn_bwd.phase = Phase::kBackward;
  bn_bwd.own_op = true;
  EXPECT_DOUBLE_EQ(NodeBackwardDispatchS(h, {conv, bn, bn_bwd, dgrad}, true), 2 * 20e-6);
  // a view whose only backward calls are own ops (the loss's) is not an
  // autograd node of its own
  EXPECT_DOUBLE_EQ(NodeBackwardDispatchS(h, {bn_bwd}, true), 20e-6);
  EXPECT_DOUBLE_EQ(NodeForwardDispatchS(h, {bn_bwd}), 0);
}

}  // namespace
}  // namespace dlsim
