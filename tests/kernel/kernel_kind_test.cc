// Every kernel kind has a name, a key format that round-trips, the
// parameters it requires, and a Work.
#include "dlsim/kernel/kernel_kind.h"

#include <gtest/gtest.h>

#include <map>

#include "dlsim/kernel/key.h"
#include "kernel/key_params.h"
#include "kernel/work.h"

namespace dlsim {
namespace {

// A valid key of `kind`: its required integer parameters with small values,
// and the string parameters the work formulas read.
ParsedKey ExampleKey(KernelKind kind) {
  static const std::map<std::string, std::string> kValues = {
      {"n", "2"},      {"c", "8"},       {"h", "16"},      {"w", "16"},       {"k", "8"},
      {"r", "3"},      {"s", "3"},       {"pad_h", "1"},   {"pad_w", "1"},    {"stride_h", "1"},
      {"stride_w", "1"}, {"dil_h", "1"}, {"dil_w", "1"},   {"groups", "1"},   {"m", "64"},
      {"batch", "2"},  {"trans_a", "0"}, {"trans_b", "1"}, {"rows", "32"},    {"cols", "64"},
      {"size", "5"},   {"seq", "8"},     {"input", "16"},  {"hidden", "32"},  {"layers", "1"},
      {"dirs", "1"},   {"heads", "4"},   {"seq_q", "16"},  {"seq_k", "16"},   {"head_dim", "8"},
      {"mask", "0"},   {"elems", "1024"}, {"arity", "2"},  {"params", "1000"}, {"fused", "1"},
      {"hw", "64"}};
  ParsedKey key{kind, {}, "fp16", "fp16", "-"};
  for (const std::string& name : RequiredIntParams(kind)) {
    auto it = kValues.find(name);
    EXPECT_NE(it, kValues.end()) << name;
    if (it != kValues.end()) key.params.emplace_back(name, it->second);
  }
  if (IsRnnKind(kind)) key.params.insert(key.params.begin(), {"cell", "lstm"});
  if (kind == KernelKind::kOptimizer) key.params.insert(key.params.begin(), {"op", "adam"});
  return key;
}

TEST(KernelKindTest, NamesRoundTrip) {
  EXPECT_EQ(AllKernelKinds().size(), 27u);
  for (KernelKind kind : AllKernelKinds()) {
    auto back = KernelKindFromName(KernelKindName(kind));
    ASSERT_TRUE(back.ok()) << KernelKindName(kind);
    EXPECT_EQ(*back, kind);
  }
  EXPECT_FALSE(KernelKindFromName("warp_drive").ok());
}

TEST(KernelKindTest, EveryKindsKeyRoundTrips) {
  for (KernelKind kind : AllKernelKinds()) {
    const std::string text = FormatKernelKey(ExampleKey(kind));
    auto parsed = ParseKernelKey(text);
    ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
    EXPECT_EQ(parsed->kind, kind);
    EXPECT_EQ(FormatKernelKey(*parsed), text);
    EXPECT_TRUE(CheckRequiredParams(*parsed).ok()) << text;
  }
}

TEST(KernelKindTest, EveryKindHasAWork) {
  for (KernelKind kind : AllKernelKinds()) {
    const ParsedKey key = ExampleKey(kind);
    auto work = WorkOfKey(key);
    ASSERT_TRUE(work.ok()) << FormatKernelKey(key) << ": " << work.status().ToString();
    EXPECT_GT(work->bytes, 0) << KernelKindName(kind);
    if (IsComputeKind(kind)) {
      EXPECT_GT(work->flops, 0) << KernelKindName(kind);
    }
  }
}

TEST(KernelKindTest, AMissingParameterNamesKeyAndParameter) {
  for (KernelKind kind : AllKernelKinds()) {
    ParsedKey key = ExampleKey(kind);
    const std::string first = RequiredIntParams(kind).front();
    for (auto it = key.params.begin(); it != key.params.end(); ++it) {
      if (it->first == first) {
        key.params.erase(it);
        break;
      }
    }
    Status status = CheckRequiredParams(key);
    EXPECT_EQ(status.message(), "kernel key '" + FormatKernelKey(key) + "': parameter '" + first +
                                    "' is missing or not an integer");
  }
}

TEST(KernelKindTest, ComputeKindsAreConvGemmRnnAttention) {
  int compute = 0;
  for (KernelKind kind : AllKernelKinds()) compute += IsComputeKind(kind) ? 1 : 0;
  EXPECT_EQ(compute, 11);
  EXPECT_TRUE(IsComputeKind(KernelKind::kAttentionBwd));
  EXPECT_FALSE(IsComputeKind(KernelKind::kLayerNormFwd));
  EXPECT_TRUE(IsRnnKind(KernelKind::kRnnBwdWeights));
  EXPECT_FALSE(IsRnnKind(KernelKind::kGemm));
}

}  // namespace
}  // namespace dlsim
