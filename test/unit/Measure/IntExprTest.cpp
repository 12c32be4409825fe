//===- IntExprTest.cpp - Parsing and evaluating launch expressions --------===//
#include "forge/Measure/IntExpr.h"
#include "gtest/gtest.h"

using namespace forge::measure;

namespace {

/// The value of Text under Env, or the error message prefixed "error: ".
std::string eval(llvm::StringRef Text, const ValueMap &Env = {}) {
  auto E = IntExpr::parse(Text);
  if (!E)
    return "error: " + llvm::toString(E.takeError());
  auto V = E->evaluate(Env);
  if (!V)
    return "error: " + llvm::toString(V.takeError());
  return std::to_string(*V);
}

std::string parseError(llvm::StringRef Text) {
  auto E = IntExpr::parse(Text);
  if (E)
    return "parsed";
  return llvm::toString(E.takeError());
}

TEST(IntExpr, Literals) {
  EXPECT_EQ(eval("42"), "42");
  EXPECT_EQ(eval("0x1F"), "31");
  EXPECT_EQ(eval("0X10"), "16");
  EXPECT_EQ(eval("9223372036854775807"), "9223372036854775807");
  EXPECT_EQ(eval("  7  "), "7");
}

TEST(IntExpr, Precedence) {
  EXPECT_EQ(eval("2 + 3 * 4"), "14");
  EXPECT_EQ(eval("(2 + 3) * 4"), "20");
  EXPECT_EQ(eval("10 - 4 - 3"), "3"); // left-associative
  EXPECT_EQ(eval("100 / 10 / 5"), "2");
  EXPECT_EQ(eval("-2 * 3"), "-6");
  EXPECT_EQ(eval("- -5"), "5");
  EXPECT_EQ(eval("1 + 2 < 4"), "1");
  EXPECT_EQ(eval("1 < 2 == 1"), "1"); // relational binds tighter than ==
  EXPECT_EQ(eval("1 || 0 && 0"), "1"); // && binds tighter than ||
  EXPECT_EQ(eval("!0 + 1"), "2");     // unary ! binds tightest
  EXPECT_EQ(eval("1 << 4 + 1"), "32"); // + binds tighter than <<
  EXPECT_EQ(eval("1 << 20"), "1048576");
  EXPECT_EQ(eval("256 >> 2"), "64");
}

TEST(IntExpr, CSemanticsForDivision) {
  EXPECT_EQ(eval("7 / 2"), "3");
  EXPECT_EQ(eval("-7 / 2"), "-3"); // truncation toward zero
  EXPECT_EQ(eval("-7 % 2"), "-1");
  EXPECT_EQ(eval("7 % -2"), "1");
}

TEST(IntExpr, Comparisons) {
  EXPECT_EQ(eval("3 <= 3"), "1");
  EXPECT_EQ(eval("3 < 3"), "0");
  EXPECT_EQ(eval("4 >= 5"), "0");
  EXPECT_EQ(eval("5 > 4"), "1");
  EXPECT_EQ(eval("5 != 4"), "1");
  EXPECT_EQ(eval("5 == 4"), "0");
  EXPECT_EQ(eval("!5"), "0");
}

TEST(IntExpr, Functions) {
  EXPECT_EQ(eval("min(3, 9)"), "3");
  EXPECT_EQ(eval("max(3, -9)"), "3");
  EXPECT_EQ(eval("ceil_div(1000, 256)"), "4");
  EXPECT_EQ(eval("ceil_div(1024, 256)"), "4");
  EXPECT_EQ(eval("ceil_div(1025, 256)"), "5");
  EXPECT_EQ(eval("ceil_div(0, 256)"), "0");
  EXPECT_EQ(eval("ceil_div(-7, 2)"), "-3"); // the true ceiling of -3.5
  EXPECT_EQ(eval("ceil_div(7, -2)"), "-3");
  EXPECT_EQ(eval("ceil_div(-7, -2)"), "4");
  EXPECT_EQ(eval("max(min(N, 4), ceil_div(N, 3))", {{"N", 10}}), "4");
}

TEST(IntExpr, Identifiers) {
  ValueMap Env = {{"N", 1 << 20}, {"BLOCK", 256}, {"_x1", 2}};
  EXPECT_EQ(eval("ceil_div(N, BLOCK)", Env), "4096");
  EXPECT_EQ(eval("BLOCK % 32 == 0 && BLOCK <= 1024", Env), "1");
  EXPECT_EQ(eval("_x1 * _x1", Env), "4");

  auto E = IntExpr::parse("N * BLOCK + N - M");
  ASSERT_TRUE(bool(E)) << llvm::toString(E.takeError());
  EXPECT_EQ(E->identifiers(), (std::vector<std::string>{"N", "BLOCK", "M"}));
  EXPECT_EQ(E->text(), "N * BLOCK + N - M");
}

TEST(IntExpr, UnknownIdentifierIsNamed) {
  EXPECT_EQ(eval("N + M", {{"N", 1}}), "error: unknown identifier 'M' in 'N + M'");
  // Even where && would skip it: a typo must not depend on the values.
  EXPECT_EQ(eval("0 && TYPO", {}),
            "error: unknown identifier 'TYPO' in '0 && TYPO'");
}

TEST(IntExpr, DivisionByZero) {
  EXPECT_EQ(eval("N / 0", {{"N", 5}}),
            "error: division by zero at column 3 in 'N / 0'");
  EXPECT_EQ(eval("5 % (N - N)", {{"N", 5}}),
            "error: division by zero at column 3 in '5 % (N - N)'");
  EXPECT_EQ(eval("ceil_div(5, 0)"),
            "error: division by zero at column 1 in 'ceil_div(5, 0)'");
  // Short-circuiting guards a division, as in C.
  EXPECT_EQ(eval("N != 0 && 10 / N", {{"N", 0}}), "0");
}

TEST(IntExpr, Overflow) {
  EXPECT_EQ(eval("9223372036854775807 + 1"),
            "error: integer overflow at column 21 in '9223372036854775807 + 1'");
  EXPECT_EQ(eval("N * N * N", {{"N", 1 << 22}}),
            "error: integer overflow at column 7 in 'N * N * N'");
  EXPECT_EQ(eval("-N - 2", {{"N", INT64_MAX}}),
            "error: integer overflow at column 4 in '-N - 2'");
  EXPECT_EQ(eval("1 << 63"),
            "error: shift by 63 at column 3 in '1 << 63'; the count must be "
            "in [0, 62]");
  EXPECT_EQ(eval("N << 2", {{"N", INT64_MAX / 2}}),
            "error: integer overflow at column 3 in 'N << 2'");
}

TEST(IntExpr, ParseErrorsShowTheColumn) {
  EXPECT_EQ(parseError("(N + 1"), "expected ')' at column 7 in '(N + 1'");
  EXPECT_EQ(parseError(""), "expected an operand at column 1 in ''");
  EXPECT_EQ(parseError("N +"), "expected an operand at column 4 in 'N +'");
  EXPECT_EQ(parseError("N N"), "unexpected 'N' at column 3 in 'N N'");
  EXPECT_EQ(parseError("N $ 2"),
            "unexpected character '$' at column 3 in 'N $ 2'");
  EXPECT_EQ(parseError("N = 2"),
            "unexpected '=' at column 3 in 'N = 2'; did you mean '=='?");
  EXPECT_EQ(parseError("N * / 2"),
            "expected an operand, got '/' at column 5 in 'N * / 2'");
  EXPECT_EQ(parseError("foo(1, 2)"),
            "unknown function 'foo' at column 1 in 'foo(1, 2)'; expected min, "
            "max or ceil_div");
  EXPECT_EQ(parseError("min(1)"),
            "expected ',' at column 6 in 'min(1)'; 'min' takes 2 arguments");
  EXPECT_EQ(parseError("max(1, 2, 3)"),
            "too many arguments at column 9 in 'max(1, 2, 3)'; 'max' takes 2");
  EXPECT_EQ(parseError("min + 1"),
            "expected '(' after 'min' at column 5 in 'min + 1'");
  EXPECT_EQ(parseError("12k"), "invalid integer literal '12k' at column 1 in '12k'");
  EXPECT_EQ(parseError("99999999999999999999"),
            "integer literal '99999999999999999999' is too large at column 1 "
            "in '99999999999999999999'");
  EXPECT_EQ(parseError("9223372036854775808"),
            "integer literal '9223372036854775808' is too large at column 1 "
            "in '9223372036854775808'");
}

TEST(IntExpr, DeepNestingIsAnErrorNotACrash) {
  std::string Deep(100000, '(');
  EXPECT_EQ(parseError(Deep).find("expression nested too deeply at column"),
            0u);
  std::string Negs(100000, '-');
  EXPECT_EQ(parseError(Negs + "1").find("expression nested too deeply"), 0u);
}

TEST(IntExpr, EmptyAndConstant) {
  IntExpr Empty;
  EXPECT_TRUE(Empty.empty());
  auto V = Empty.evaluate({});
  ASSERT_FALSE(bool(V));
  EXPECT_EQ(llvm::toString(V.takeError()), "empty expression");

  IntExpr C = IntExpr::constant(-12);
  EXPECT_EQ(C.text(), "-12");
  auto CV = C.evaluate({});
  ASSERT_TRUE(bool(CV)) << llvm::toString(CV.takeError());
  EXPECT_EQ(*CV, -12);
}

} // namespace
