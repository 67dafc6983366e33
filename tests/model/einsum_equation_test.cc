// ParseEinsumEquation: labels, ellipsis expansion, implicit outputs, errors.
#include "model/einsum_equation.h"

#include <gtest/gtest.h>

namespace dlsim {
namespace {

using Labels = std::vector<EinsumLabel>;
constexpr EinsumLabel kEll0 = kEinsumEllipsisLabel, kEll1 = kEinsumEllipsisLabel + 1;

TEST(EinsumEquationTest, ExplicitOutputWithSpaces) {
  auto eq = ParseEinsumEquation(" bhqd , bhkd -> bhqk", {{2, 3, 5, 4}, {2, 3, 7, 4}});
  ASSERT_TRUE(eq.ok()) << eq.status().ToString();
  ASSERT_EQ(eq->operands.size(), 2u);
  EXPECT_EQ(eq->operands[0], (Labels{'b', 'h', 'q', 'd'}));
  EXPECT_EQ(eq->operands[1], (Labels{'b', 'h', 'k', 'd'}));
  EXPECT_EQ(eq->output, (Labels{'b', 'h', 'q', 'k'}));
  EXPECT_EQ(eq->sizes.at('k'), 7);
  EXPECT_EQ(EinsumOutputShape(*eq), (Shape{2, 3, 5, 7}));
}

// Implicit output: the letters seen once, in ASCII order (upper case first).
TEST(EinsumEquationTest, ImplicitOutputIsLettersSeenOnceSorted) {
  auto eq = ParseEinsumEquation("kj,jB", {{8, 3}, {3, 7}});
  ASSERT_TRUE(eq.ok()) << eq.status().ToString();
  EXPECT_EQ(eq->output, (Labels{'B', 'k'}));
  EXPECT_EQ(EinsumOutputShape(*eq), (Shape{7, 8}));
}

// Ellipsis dims are aligned from the right and broadcast: operand 1's single
// ellipsis dim is the last of operand 0's two.
TEST(EinsumEquationTest, EllipsisAlignsFromTheRight) {
  auto eq = ParseEinsumEquation("...ij,...jk->...ik", {{2, 1, 5, 4}, {3, 4, 6}});
  ASSERT_TRUE(eq.ok()) << eq.status().ToString();
  EXPECT_EQ(eq->operands[0], (Labels{kEll1, kEll0, 'i', 'j'}));
  EXPECT_EQ(eq->operands[1], (Labels{kEll0, 'j', 'k'}));
  EXPECT_EQ(eq->output, (Labels{kEll1, kEll0, 'i', 'k'}));
  EXPECT_EQ(EinsumOutputShape(*eq), (Shape{2, 3, 5, 6}));
}

TEST(EinsumEquationTest, ImplicitOutputPutsEllipsisFirst) {
  auto eq = ParseEinsumEquation("i...j", {{4, 2, 3, 5}});
  ASSERT_TRUE(eq.ok()) << eq.status().ToString();
  EXPECT_EQ(eq->operands[0], (Labels{'i', kEll1, kEll0, 'j'}));
  EXPECT_EQ(EinsumOutputShape(*eq), (Shape{2, 3, 4, 5}));
}

std::string Error(const std::string& equation, const std::vector<Shape>& shapes) {
  auto eq = ParseEinsumEquation(equation, shapes);
  EXPECT_FALSE(eq.ok()) << equation;
  EXPECT_EQ(eq.status().code(), StatusCode::kInvalidArgument);
  return eq.status().message();
}

TEST(EinsumEquationTest, ErrorsNameWhatIsWrong) {
  EXPECT_EQ(Error("ij,jk->ik", {{2, 3}}), "equation 'ij,jk->ik' has 2 operands, node has 1 inputs");
  EXPECT_EQ(Error("i-j->i", {{2, 3}}), "bad character in equation term 'i-j'");
  EXPECT_EQ(Error("...i...->i", {{2, 3}}), "two ellipses in '...i...'");
  EXPECT_EQ(Error("ijk->i", {{2, 3}}), "operand 0 of shape 2x3 does not match term 'ijk'");
  EXPECT_EQ(Error("ij,jk->ik", {{2, 3}, {4, 5}}), "label 'j' has sizes 3 and 4");
  EXPECT_EQ(Error("...i,...i->...i", {{2, 3}, {4, 3}}), "shapes 2 and 4 do not broadcast");
  EXPECT_EQ(Error("ij->ik", {{2, 3}}), "output label 'k' is in no operand");
}

}  // namespace
}  // namespace dlsim
