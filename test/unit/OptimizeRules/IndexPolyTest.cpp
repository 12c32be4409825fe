//===- IndexPolyTest.cpp - The index algebra of the restructuring rules ---===//
#include "RuleAst.h"
#include "gtest/gtest.h"

using namespace forge::passes;

namespace {

IndexPoly C(int64_t V) { return IndexPoly::constant(V); }
IndexPoly A(unsigned Id) { return IndexPoly::atom(Id); }

TEST(IndexPoly, ArithmeticCancelsAndExpands) {
  // (y + i) * w + x + j - (y * w + x) == i * w + j
  IndexPoly Y = A(0), I = A(1), W = A(2), X = A(3), J = A(4);
  IndexPoly Idx = (Y + I) * W + X + J;
  IndexPoly Rest = Idx - (Y * W + X);
  EXPECT_EQ(Rest, I * W + J);
  EXPECT_FALSE(Rest.isLinear());
  EXPECT_TRUE((I + J + C(3)).isLinear());
  EXPECT_EQ((Y - Y + C(2)).constantTerm(), 2);
  EXPECT_TRUE((Y - Y + C(2)).isConstant());
  EXPECT_EQ(Idx.atoms(), (std::set<unsigned>{0, 1, 2, 3, 4}));
  EXPECT_EQ((W * W + W).degreeIn(2), 2u);
}

TEST(IndexPoly, DivideSplitsRowAndColumn) {
  IndexPoly Y = A(0), I = A(1), W = A(2), X = A(3), J = A(4);
  auto QR = ((Y + I) * W + X + J).divideBy(2);
  ASSERT_TRUE(QR.has_value());
  EXPECT_EQ(QR->first, Y + I);
  EXPECT_EQ(QR->second, X + J);
  // w * w cannot be split.
  EXPECT_FALSE((W * W + X).divideBy(2).has_value());
}

TEST(IndexPoly, FilteredKeepsConstants) {
  IndexPoly P = A(0).scaled(3) + A(1) + C(-2);
  IndexPoly OnlyZero = P.filtered([](unsigned Id) { return Id == 0; });
  EXPECT_EQ(OnlyZero, A(0).scaled(3) + C(-2));
}

} // namespace
