//===- GuardsLoopsTest.cpp - Guards and loops -----------------------------===//
#include "AnalysisTestUtil.h"

using namespace forge::analysis;
using namespace forge::analysis::test;

namespace {

TEST(Guards, EarlyReturnIsNegatedAndReversedComparisonsKept) {
  KernelModel M = analyze(R"(
__global__ void g(const float *a, float *b, int n, int m) {
  int x = threadIdx.x + blockIdx.x * blockDim.x;
  if (x >= n) return;
  if (m > x) {
    b[x] = a[x];
  }
})",
                          "g");
  const Access &B = access(M, "b[x]");
  ASSERT_EQ(B.G.Terms.size(), 2u);
  EXPECT_EQ(B.G.Terms[0].Text, "x < n");
  EXPECT_EQ(B.G.Terms[0].Origin, GuardOrigin::EarlyExit);
  EXPECT_EQ(B.G.Terms[1].Text, "m > x");
  EXPECT_EQ(B.G.Terms[1].Origin, GuardOrigin::If);
  ASSERT_TRUE(B.G.Terms[0].Cmp);
  EXPECT_EQ(M.atoms().render(*B.G.Terms[0].Cmp), "blockIdx.x * blockDim.x + threadIdx.x < n");
  EXPECT_EQ(B.G.uniformity().Level, Uniformity::ThreadVarying);
}

TEST(Guards, ConjunctionsBoolsAndNesting) {
  KernelModel M = analyze(R"(
__global__ void g2(float *img, int w, int h, const int *mask) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  bool inside = x < w && y < h;
  if (!inside) return;
  if (mask[y * w + x] != 0)
    if (x > 0)
      img[y * w + x] = 0.f;
})",
                          "g2");
  const Access &I = access(M, "img[y * w + x]");
  // `if (!inside) return;` leaves inside holding: its definition's
  // conjuncts are split into terms.
  ASSERT_EQ(I.G.Terms.size(), 4u);
  EXPECT_EQ(I.G.render(), "x < w && y < h && mask[y * w + x] != 0 && x > 0");
  EXPECT_EQ(I.G.Terms[0].Origin, GuardOrigin::EarlyExit);
  ASSERT_TRUE(I.G.Terms[1].Cmp);
  EXPECT_EQ(M.render(I.G.Terms[1].Cmp->Rhs), "h");
  // A loaded value compared: a comparison whose left side is a
  // data-dependent atom.
  ASSERT_TRUE(I.G.Terms[2].Cmp);
  const Atom *U = M.atoms().unknownAtom(I.G.Terms[2].Cmp->Lhs);
  ASSERT_NE(U, nullptr);
  EXPECT_EQ(U->Why, UnknownKind::DataDependent);
  EXPECT_EQ(I.G.Terms[2].Uniform.Level, Uniformity::ThreadVarying);
  ASSERT_TRUE(I.G.Terms[3].Cmp);
  EXPECT_EQ(I.G.Terms[3].Cmp->Op, CmpOp::GT);
  // When the bool holds, its conjuncts are split.
  KernelModel M2 = analyze(R"(
__global__ void g3(float *o, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  const bool ok = (x < w) && (y < h);
  if (ok) o[y * w + x] = 1.f;
})",
                           "g3");
  EXPECT_EQ(access(M2, "o[y * w + x]").G.render(), "x < w && y < h");
  EXPECT_EQ(access(M2, "o[y * w + x]").G.comparisons().size(), 2u);
}

TEST(Guards, ContinueInALoopAndTernaryArms) {
  KernelModel M = analyze(R"(
__global__ void g4(const float *in, float *out, int n, int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int j = 0; j < k; ++j) {
    if (i + j >= n) continue;
    out[i] += j > 0 ? in[i + j - 1] : 0.f;
  }
})",
                          "g4");
  const Access &L = access(M, "in[i + j - 1]");
  ASSERT_EQ(L.G.Terms.size(), 2u);
  EXPECT_EQ(L.G.Terms[0].Text, "i + j < n");
  EXPECT_EQ(L.G.Terms[0].Origin, GuardOrigin::LoopExit);
  EXPECT_EQ(L.G.Terms[1].Text, "j > 0");
  EXPECT_EQ(L.G.Terms[1].Origin, GuardOrigin::Conditional);
  EXPECT_EQ(access(M, "out[i]").G.render(), "i + j < n");
}

TEST(Loops, GridStrideBlockStrideAndConstantTrips) {
  KernelModel M = analyze(R"(
__global__ void loops(float *x, int n, const float *w) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    x[i] = 0.f;
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    x[j] += 1.f;
  float s = 0;
  #pragma unroll
  for (int k = 0; k < 16; k += 4)
    s += w[k];
  x[0] = s;
})",
                          "loops");
  ASSERT_EQ(M.Loops.size(), 3u);
  const Loop &G = M.Loops[0];
  EXPECT_EQ(G.Var, "i");
  EXPECT_EQ(G.StepK, StepKind::GridStride);
  EXPECT_EQ(M.render(*G.Step), "blockDim.x * gridDim.x");
  EXPECT_EQ(M.render(*G.Bound), "n");
  EXPECT_EQ(G.TripUniform.Level, Uniformity::ThreadVarying);
  EXPECT_FALSE(G.TripCount);
  EXPECT_EQ(M.Loops[1].StepK, StepKind::BlockStride);
  const Loop &C = M.Loops[2];
  EXPECT_EQ(C.StepK, StepKind::Constant);
  EXPECT_EQ(C.TripCount, 4);
  EXPECT_EQ(C.TripUniform.Level, Uniformity::GridUniform);
  // The grid-stride access is coalesced through the loop's expansion.
  EXPECT_EQ(access(M, "x[i]").Warp.Class, AccessClass::Coalesced);
  EXPECT_EQ(access(M, "w[k]").Warp.Class, AccessClass::Broadcast);
}

TEST(Loops, HalvingWhileAndThreadDependentBounds) {
  KernelModel M = analyze(R"(
__global__ void loops2(int *a, const int *len, int n) {
  int t = threadIdx.x;
  for (int s = 128; s > 0; s >>= 1)
    if (t < s) a[t] += a[t + s];
  int k = 0;
  while (k < len[t]) {
    a[n + k] = t;
    k += 2;
  }
})",
                          "loops2");
  ASSERT_EQ(M.Loops.size(), 2u);
  const Loop &H = M.Loops[0];
  EXPECT_EQ(H.StepK, StepKind::Geometric);
  EXPECT_EQ(H.Factor, -2);
  EXPECT_EQ(H.TripCount, 8);
  const Loop &W = M.Loops[1];
  EXPECT_EQ(W.Kind, LoopKind::While);
  EXPECT_EQ(W.Var, "k");
  EXPECT_EQ(M.render(*W.Step), "2");
  EXPECT_EQ(M.render(*W.Bound), "len[t]");
  EXPECT_EQ(W.TripUniform.Level, Uniformity::ThreadVarying);
  EXPECT_NE(W.TripUniform.Reason.find("len[t]"), std::string::npos) << W.TripUniform.Reason;
  // a[n + k]: the same for all lanes in one iteration.
  EXPECT_EQ(access(M, "a[n + k]").Warp.Class, AccessClass::Broadcast);
}

TEST(Loops, NoInductionVariableSaysWhy) {
  KernelModel M = analyze(R"(
__global__ void loops3(int *a, int n) {
  int i = threadIdx.x;
  while (a[i] != 0) {
    if (a[i] > 0) i += 2; else i += 1;
  }
  a[i] = n;
})",
                          "loops3");
  ASSERT_EQ(M.Loops.size(), 1u);
  EXPECT_FALSE(M.Loops[0].hasInductionVariable());
  EXPECT_EQ(M.Loops[0].Why, "no induction variable: the condition compares no variable that "
                            "the loop steps");
}

TEST(Loops, ArithmeticTripCountInClosedForm) {
  // for (v = 0; v < 10; v += 3): 0, 3, 6, 9.
  EXPECT_EQ(arithmeticTripCount(0, 3, 10, CmpOp::LT), 4);
  EXPECT_EQ(arithmeticTripCount(0, 3, 9, CmpOp::LE), 4);
  EXPECT_EQ(arithmeticTripCount(0, 1, 5, CmpOp::NE), 5);
  // Counting down: 10, 8, ..., 2 (> 0) and 10, ..., 0 (>= 0).
  EXPECT_EQ(arithmeticTripCount(10, -2, 0, CmpOp::GT), 5);
  EXPECT_EQ(arithmeticTripCount(10, -2, 0, CmpOp::GE), 6);
  // Loops that do not run, whatever the step.
  EXPECT_EQ(arithmeticTripCount(5, 0, 5, CmpOp::LT), 0);
  EXPECT_EQ(arithmeticTripCount(5, -1, 0, CmpOp::LE), 0);
  EXPECT_EQ(arithmeticTripCount(3, 1, 3, CmpOp::NE), 0);
  EXPECT_EQ(arithmeticTripCount(3, 1, 4, CmpOp::EQ), 0);
  EXPECT_EQ(arithmeticTripCount(4, 1, 4, CmpOp::EQ), 1);
  // Loops that never end: a step away from the bound, none, or past it.
  EXPECT_EQ(arithmeticTripCount(0, -1, 10, CmpOp::LT), std::nullopt);
  EXPECT_EQ(arithmeticTripCount(0, 0, 10, CmpOp::LT), std::nullopt);
  EXPECT_EQ(arithmeticTripCount(0, 3, 10, CmpOp::NE), std::nullopt);
  EXPECT_EQ(arithmeticTripCount(10, 1, 0, CmpOp::GE), std::nullopt);
}

} // namespace
