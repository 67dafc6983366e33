// Eager dispatch lookup: dtype-qualified entry, then the kind's, then the default.
#include "../../src/estimate/dispatch.h"

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

TEST(Dispatch, DefaultForUnlistedKinds) {
  KernelCall add = Call(KernelKind::kElementwise, DType::kFloat16);
  EXPECT_EQ(ForwardDispatchS(Host(), &add), 50e-6);
  EXPECT_EQ(DispatchS(Host(), "backward"), 50e-6);
}

TEST(Dispatch, ViewsUseNone) { EXPECT_EQ(ForwardDispatchS(Host(), nullptr), 0); }

}  // namespace
}  // namespace dlsim
