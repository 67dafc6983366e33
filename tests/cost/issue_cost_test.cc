#include "dlsim/cost/issue_cost.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <string>

#include "dlsim/machine/machine_io.h"
#include "scratch_dir.h"

namespace dlsim {
namespace {

// Under the running test's name: ctest runs the tests of this file in
// parallel processes, which must not write one another's files.
std::string WriteFile(const std::string& name, const std::string& text) {
  const std::string test = ::testing::UnitTest::GetInstance()->current_test_info()->name();
  const std::string path = testing::ScratchPath(test + "_" + name);
  std::ofstream(path) << text;
  return path;
}

const char* kTable =
    "# issue cost per element, warm in L2: test\n"
    "kind,op,arity,cols,dtype,issue_ps_per_elem\n"
    "elementwise,gelu,1,0,fp16,1.5\n"
    "elementwise,add,2,0,fp32,2.0\n"
    "layernorm_fwd,-,0,100,fp16,10\n"
    "layernorm_fwd,-,0,1000,fp16,2\n";

KernelCall Elementwise(const std::string& op, int64_t arity, DType dtype) {
  KernelCall c;
  c.kind = KernelKind::kElementwise;
  c.dtype = dtype;
  c.AddParam("op", op);
  c.AddParam("elems", 1000000);
  c.AddParam("arity", arity);
  return c;
}

KernelCall LayerNorm(int64_t cols, DType dtype = DType::kFloat16) {
  KernelCall c;
  c.kind = KernelKind::kLayerNormFwd;
  c.dtype = dtype;
  c.AddParam("rows", 1000);
  c.AddParam("cols", cols);
  return c;
}

IssueCostTable Table() {
  auto t = IssueCostTable::Load(WriteFile("issue.csv", kTable));
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  return t.ok() ? *t : IssueCostTable();
}

TEST(IssueCostTable, ElementwiseIsPricedPerElement) {
  const IssueCostTable t = Table();
  EXPECT_DOUBLE_EQ(t.IssueSeconds(Elementwise("gelu", 1, DType::kFloat16)), 1e6 * 1.5e-12);
  // Another arity of a known op takes the op's entry; bf16 takes fp16's.
  EXPECT_DOUBLE_EQ(t.IssueSeconds(Elementwise("add", 1, DType::kFloat32)), 1e6 * 2e-12);
  EXPECT_DOUBLE_EQ(t.IssueSeconds(Elementwise("gelu", 1, DType::kBFloat16)), 1e6 * 1.5e-12);
}

TEST(IssueCostTable, UnknownOpDtypeOrKindHasNone) {
  const IssueCostTable t = Table();
  EXPECT_EQ(t.IssueSeconds(Elementwise("erf", 1, DType::kFloat16)), 0.0);
  EXPECT_EQ(t.IssueSeconds(Elementwise("gelu", 1, DType::kFloat32)), 0.0);
  KernelCall gemm;
  gemm.kind = KernelKind::kGemm;
  EXPECT_EQ(t.IssueSeconds(gemm), 0.0);
}

TEST(IssueCostTable, RowKernelsInterpolateInLogColsAndHoldOutside) {
  const IssueCostTable t = Table();
  // cols 316 is about halfway between 100 and 1000 in log(cols).
  const double elems = 1000.0 * 316;
  const double f = std::log(316.0 / 100) / std::log(10.0);
  EXPECT_NEAR(t.IssueSeconds(LayerNorm(316)), elems * (10 + f * (2 - 10)) * 1e-12, 1e-18);
  EXPECT_DOUBLE_EQ(t.IssueSeconds(LayerNorm(100)), 1000.0 * 100 * 10e-12);
  EXPECT_DOUBLE_EQ(t.IssueSeconds(LayerNorm(50)), 1000.0 * 50 * 10e-12);
  EXPECT_DOUBLE_EQ(t.IssueSeconds(LayerNorm(4000)), 1000.0 * 4000 * 2e-12);
  EXPECT_DOUBLE_EQ(t.IssueSeconds(LayerNorm(int64_t{1} << 40)), 1000.0 * (int64_t{1} << 40) * 2e-12);
}

TEST(IssueCostTable, BadRowsNameTheFileLineAndField) {
  struct Case {
    std::string row, message;
  } cases[] = {
      {"elementwise,gelu,1,0,fp16,fast", "issue_ps_per_elem must be a non-negative number"},
      {"elementwise,gelu,1,0,fp16,-1", "issue_ps_per_elem must be a non-negative number"},
      {"conv_fwd,-,0,0,fp16,1", "kind must be elementwise, layernorm_fwd or softmax_fwd"},
      {"layernorm_fwd,-,0,0,fp16,1", "a row kernel needs cols > 0"},
      {"elementwise,gelu,0,0,fp16,1", "needs an op and an arity > 0"},
      {"elementwise,gelu,1.5,0,fp16,1", "arity must be a non-negative integer"},
      {"elementwise,gelu,1,0,fp16", "expected 6 comma-separated fields"},
  };
  for (const Case& c : cases) {
    const std::string path = WriteFile("bad_issue.csv", "kind,op,arity,cols,dtype,issue_ps_per_elem\n" + c.row + "\n");
    auto t = IssueCostTable::Load(path);
    ASSERT_FALSE(t.ok()) << c.row;
    EXPECT_NE(t.status().ToString().find(path + ":2"), std::string::npos) << t.status().ToString();
    EXPECT_NE(t.status().ToString().find(c.message), std::string::npos) << t.status().ToString();
  }
}

TEST(IssueCostTable, WrongHeaderEmptyTableAndMissingFileAreErrors) {
  auto header = IssueCostTable::Load(WriteFile("hdr.csv", "op,ps\ngelu,1\n"));
  ASSERT_FALSE(header.ok());
  EXPECT_NE(header.status().ToString().find("hdr.csv:1: expected the header"), std::string::npos);
  auto empty = IssueCostTable::Load(WriteFile("empty.csv", "kind,op,arity,cols,dtype,issue_ps_per_elem\n"));
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.status().ToString().find("no issue costs"), std::string::npos);
  EXPECT_FALSE(IssueCostTable::Load(testing::ScratchPath("dlsim_absent_issue_costs.csv")).ok());
}

TEST(IssueCostTable, BundledH100TableLoadsThroughItsMachineFile) {
  auto m = LoadMachine(std::string(DLSIM_SOURCE_DIR) + "/machines/h100.yaml");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  auto t = IssueCostTable::ForMachine(*m);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_GT(t->IssueSeconds(Elementwise("gelu", 1, DType::kFloat16)), 0.0);
}

}  // namespace
}  // namespace dlsim
