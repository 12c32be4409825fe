//===- IndexFormTest.cpp - The polynomial and its atoms -------------------===//
//
// IndexForm arithmetic and the AtomTable's folding, slopes and rendering,
// without a kernel.
//
//===----------------------------------------------------------------------===//
#include "forge/Analysis/IndexForm.h"
#include "gtest/gtest.h"

using namespace forge::analysis;

namespace {

struct Table {
  AtomTable T;
  IndexForm Tx, Bx, Bd, N, W;
  explicit Table(std::optional<std::array<int64_t, 3>> Block = std::nullopt) : T(Block) {
    Tx = IndexForm::atom(T.builtin("threadIdx", 'x'));
    Bx = IndexForm::atom(T.builtin("blockIdx", 'x'));
    Bd = IndexForm::atom(T.builtin("blockDim", 'x'));
    N = IndexForm::atom(T.symbol(AtomKind::Param, nullptr, "n", "n"));
    W = IndexForm::atom(T.symbol(AtomKind::Param, nullptr, "w", "w"));
  }
  IndexForm gid() const { return Bx * Bd + Tx; }
  AtomId tx() const { return Tx.terms().begin()->first.front(); }
};

TEST(IndexForm, ArithmeticCancelsAndRenders) {
  Table T;
  IndexForm F = (T.gid() + IndexForm::constant(3)) * T.N - T.N.scaled(3);
  EXPECT_EQ(T.T.render(F), "blockIdx.x * blockDim.x * n + threadIdx.x * n");
  EXPECT_EQ(F.degreeIn(T.tx()), 1u);
  auto C = F.coefficientOf(T.tx());
  ASSERT_TRUE(C);
  EXPECT_EQ(*C, T.N);
  EXPECT_TRUE((F - F).isZero());
}

TEST(IndexForm, OverflowIsMarkedNotWrapped) {
  IndexForm Big = IndexForm::constant(INT64_MAX);
  IndexForm F = Big + IndexForm::constant(1);
  EXPECT_TRUE(F.overflowed());
  EXPECT_FALSE(F.constantValue());
}

TEST(IndexForm, DivAndModFoldBackToTheirNumerator) {
  Table T;
  IndexForm I = T.gid();
  IndexForm Row = T.T.div(I, T.W), Col = T.T.mod(I, T.W);
  // (i / w) * w + i % w is i again.
  EXPECT_EQ(T.T.simplify(Row * T.W + Col), I);
  // Exact divisions fold at once.
  EXPECT_EQ(T.T.div(T.N.scaled(8), IndexForm::constant(4)), T.N.scaled(2));
  EXPECT_TRUE(T.T.mod(T.W * T.N, T.W).isZero());
  EXPECT_EQ(T.T.render(Row), "(blockIdx.x * blockDim.x + threadIdx.x) / w");
}

TEST(IndexForm, MinMaxFoldConstantDifferencesAndSelectBecomesAClamp) {
  Table T;
  IndexForm X = T.Tx;
  EXPECT_EQ(T.T.min(X + IndexForm::constant(1), X), X);
  EXPECT_EQ(T.T.max(X - IndexForm::constant(2), X), X);
  // x < 0 ? 0 : x is max(x, 0).
  Comparison Lt{X, CmpOp::LT, IndexForm()};
  IndexForm S = T.T.select(Lt, "x < 0", UniformityInfo(), IndexForm(), X);
  EXPECT_EQ(S, T.T.max(X, IndexForm()));
  // min(max(x - 1, 0), n - 1) is x - 1 clamped to [0, n - 1].
  IndexForm Cl =
      T.T.min(T.T.max(X - IndexForm::constant(1), IndexForm()), T.N - IndexForm::constant(1));
  auto C = T.T.clampOf(Cl.terms().begin()->first.front());
  ASSERT_TRUE(C);
  EXPECT_EQ(C->Value, X - IndexForm::constant(1));
  ASSERT_TRUE(C->Lo && C->Hi);
  EXPECT_TRUE(C->Lo->isZero());
  EXPECT_EQ(*C->Hi, T.N - IndexForm::constant(1));
  bool Clamped = false;
  EXPECT_EQ(T.T.unclamped(Cl, &Clamped), X - IndexForm::constant(1));
  EXPECT_TRUE(Clamped);
}

TEST(IndexForm, SlopesAlongThreadIdx) {
  Table T;
  AtomId Tx = T.tx();
  EXPECT_EQ(T.T.slope(T.gid(), Tx).constant(), 1);
  EXPECT_EQ(*T.T.slope(T.gid() * T.N, Tx).Step, T.N);
  // x[tid / 4]: one element per 4 lanes.
  Slope Q = T.T.slope(T.T.div(T.Tx, IndexForm::constant(4)), Tx);
  ASSERT_TRUE(Q.known());
  EXPECT_EQ(Q.Lanes, 4);
  EXPECT_EQ(Q.Step->constantValue(), 1);
  // tid % 16 wraps inside a warp.
  Slope M = T.T.slope(T.T.mod(T.Tx, IndexForm::constant(16)), Tx);
  EXPECT_FALSE(M.known());
  EXPECT_NE(M.Why.find("wraps around within a warp"), std::string::npos) << M.Why;
  // i * i is not affine.
  Slope Sq = T.T.slope(T.Tx * T.Tx, Tx);
  EXPECT_FALSE(Sq.known());
  EXPECT_NE(Sq.Why.find("not affine"), std::string::npos) << Sq.Why;
  // i / w is constant across a warp when w >= 32, and says so.
  Slope D = T.T.slope(T.T.div(T.gid(), T.W), Tx);
  EXPECT_TRUE(D.isZero());
  EXPECT_EQ(D.Assumption, "'w' >= 32");
}

TEST(IndexForm, LoopExpansionGivesGridStrideSlopes) {
  Table T;
  AtomId I = T.T.loopVar(0, nullptr, "i", makeUniformity(Uniformity::ThreadVarying));
  AtomId It = T.T.loopIter(0, "i");
  IndexForm Stride = T.Bd * IndexForm::atom(T.T.builtin("gridDim", 'x'));
  T.T.setExpansion(I, T.gid() + Stride * IndexForm::atom(It));
  EXPECT_EQ(T.T.slope(IndexForm::atom(I), T.tx()).constant(), 1);
  EXPECT_EQ(*T.T.slope(IndexForm::atom(I), It).Step, Stride);
  EXPECT_TRUE(T.T.dependsOn(IndexForm::atom(I), T.tx()));
}

TEST(IndexForm, WarpNumberIsWarpUniformWithAnAlignedBlock) {
  Table Known(std::array<int64_t, 3>{{128, 1, 1}});
  IndexForm Warp = Known.T.div(Known.Tx, IndexForm::constant(32));
  EXPECT_EQ(Known.T.uniformity(Warp).Level, Uniformity::WarpUniform);
  Table Unknown;
  IndexForm W2 = Unknown.T.div(Unknown.Tx, IndexForm::constant(32));
  EXPECT_EQ(Unknown.T.uniformity(W2).Level, Uniformity::ThreadVarying);
  // threadIdx.y is warp-uniform when blockDim.x is a multiple of 32.
  EXPECT_EQ(Known.T[Known.T.builtin("threadIdx", 'y')].Uniform.Level, Uniformity::WarpUniform);
  EXPECT_EQ(Unknown.T[Unknown.T.builtin("threadIdx", 'y')].Uniform.Level,
            Uniformity::ThreadVarying);
}

TEST(IndexForm, AffineNamesTheOffendingTerm) {
  Table T;
  std::string Why;
  EXPECT_TRUE(T.T.isAffine(T.gid() * T.N + T.N * T.W, &Why));
  EXPECT_FALSE(T.T.isAffine(T.Tx * T.Bx, &Why));
  EXPECT_EQ(Why, "'blockIdx.x * threadIdx.x' multiplies two varying quantities");
}

} // namespace
