//===- CoefficientsTest.cpp - Block-uniform coefficient reads -------------===//
//
// analysis::coefficientReads: the filters of convolutions (2D, separable,
// 1D FIR, 3D with a per-plane offset), the finite set of indices each takes,
// and the buffers it refuses, with their reasons.
//
//===----------------------------------------------------------------------===//
#include "AnalysisTestUtil.h"
#include "forge/Analysis/Coefficients.h"

using namespace forge::analysis;
using namespace forge::analysis::test;

namespace {

std::vector<int64_t> range(int64_t Lo, int64_t Hi) {
  std::vector<int64_t> V;
  for (int64_t I = Lo; I <= Hi; ++I)
    V.push_back(I);
  return V;
}

TEST(Coefficients, FilterOfA2DConvolution) {
  KernelModel M = analyze(R"(
#define K 5
#define R (K / 2)
__global__ void conv(const float *in, const float *filt, float *out, int h, int w) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    float acc = 0.0f;
    for (int i = -R; i <= R; ++i)
      for (int j = -R; j <= R; ++j) {
        int yy = y + i, xx = x + j;
        if (yy >= 0 && yy < h && xx >= 0 && xx < w)
          acc += filt[(i + R) * K + (j + R)] * in[(size_t)yy * w + xx];
      }
    out[(size_t)y * w + x] = acc;
  }
})",
                          "conv");
  CoefficientReads C = coefficientReads(M);
  ASSERT_EQ(C.Buffers.size(), 1u);
  const CoefficientRead &F = C.Buffers[0];
  EXPECT_EQ(F.Buffer, "filt");
  EXPECT_EQ(F.ParamIndex, 1);
  EXPECT_TRUE(F.Origin.isZero());
  EXPECT_EQ(F.Offsets, range(0, 24));
  EXPECT_EQ(F.span(), 25);
  EXPECT_EQ(F.Loops.size(), 2u);
  EXPECT_EQ(F.ElementType, "float");
  ASSERT_EQ(F.Accesses.size(), 1u);
  EXPECT_EQ(M.Accesses[F.Accesses[0]].Text, "filt[(i + R) * K + (j + R)]");
  EXPECT_TRUE(C.WriteBeforeRead.empty()) << C.WriteBeforeRead;
  // The input is a stencil, not a coefficient buffer.
  EXPECT_TRUE(C.Declined.empty()) << C.Declined.front();
}

TEST(Coefficients, BothFiltersOfASeparableConvolution) {
  KernelModel M = analyze(R"(
__global__ void sep(const float *in, const float *fx, const float *fy, float *out, int h, int w) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    float acc = 0.0f;
    for (int i = -3; i <= 3; ++i) {
      int yy = y + i;
      if (yy < 0 || yy >= h)
        continue;
      float row = 0.0f;
      for (int j = -3; j <= 3; ++j)
        if (x + j >= 0 && x + j < w)
          row += fx[j + 3] * in[(size_t)yy * w + x + j];
      acc += fy[i + 3] * row;
    }
    out[(size_t)y * w + x] = acc;
  }
})",
                          "sep");
  CoefficientReads C = coefficientReads(M);
  ASSERT_EQ(C.Buffers.size(), 2u);
  EXPECT_EQ(C.Buffers[0].Buffer, "fx");
  EXPECT_EQ(C.Buffers[0].Offsets, range(0, 6));
  EXPECT_EQ(C.Buffers[1].Buffer, "fy");
  EXPECT_EQ(C.Buffers[1].Offsets, range(0, 6));
  EXPECT_EQ(C.Buffers[1].Loops.size(), 1u);
}

TEST(Coefficients, StridedTapsAndABlockUniformOrigin) {
  // A FIR filter's taps every other element, per output channel
  // (blockIdx.y): the origin is block-uniform, the offsets are a set with
  // holes.
  KernelModel M = analyze(R"(
__global__ void fir(const float *x, const float *taps, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= 4 && i < n) {
    float s = 0.f;
    for (int k = 0; k < 4; ++k)
      s += taps[blockIdx.y * 16 + 2 * k + 1] * x[i - k];
    y[blockIdx.y * n + i] = s;
  }
})",
                          "fir");
  CoefficientReads C = coefficientReads(M);
  ASSERT_EQ(C.Buffers.size(), 1u) << (C.Declined.empty() ? "" : C.Declined.front());
  const CoefficientRead &F = C.Buffers[0];
  EXPECT_EQ(M.render(F.Origin), "16 * blockIdx.y");
  EXPECT_EQ(F.Offsets, (std::vector<int64_t>{1, 3, 5, 7}));
  EXPECT_EQ(F.span(), 7);
}

TEST(Coefficients, ExplicitTapsWithoutLoops) {
  const char *Code = R"(
__global__ void lap(const double *u, const double *c, double *v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > 0 && i < n - 1)
    v[i] = c[0] * u[i - 1] + c[1] * u[i] + c[2] * u[i + 1];
})";
  withModel(Code, "lap", {}, [](KernelModel &M, clang::ASTContext &Ctx, const clang::FunctionDecl &) {
    CoefficientReads C = coefficientReads(M, &Ctx);
    ASSERT_EQ(C.Buffers.size(), 1u);
    EXPECT_EQ(C.Buffers[0].Offsets, range(0, 2));
    EXPECT_EQ(C.Buffers[0].Accesses.size(), 3u);
    EXPECT_TRUE(C.Buffers[0].Loops.empty());
    // The store of v[i] runs after its right-hand side reads c.
    EXPECT_TRUE(C.WriteBeforeRead.empty()) << C.WriteBeforeRead;
    // Without the AST the store's position is where it is written.
    M.detach();
    EXPECT_NE(coefficientReads(M).WriteBeforeRead.find("'v[i]' (line 5) comes before"),
              std::string::npos);
  });
}

TEST(Coefficients, Refusals) {
  auto Declined = [](const char *Code) {
    KernelModel M = analyze(Code, "k");
    CoefficientReads C = coefficientReads(M);
    EXPECT_TRUE(C.Buffers.empty());
    return C.Declined.empty() ? std::string() : C.Declined.front();
  };
  // A run-time number of taps.
  std::string Why = Declined(R"(
__global__ void k(const float *x, const float *t, float *y, int n, int taps) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float s = 0.f;
    for (int k = 0; k < taps; ++k)
      s += t[k] * x[i + k];
    y[i] = s;
  }
})");
  EXPECT_NE(Why.find("not compile-time constants"), std::string::npos) << Why;
  // The kernel writes the filter.
  Why = Declined(R"(
__global__ void k(const float *x, float *t, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float s = 0.f;
    for (int k = 0; k < 3; ++k)
      s += t[k] * x[i + k];
    y[i] = s;
    if (i == 0) t[0] = s;
  }
})");
  EXPECT_NE(Why.find("writes it"), std::string::npos) << Why;
  // A mask on the loop variables alone: not every tap is read.
  Why = Declined(R"(
__global__ void k(const float *x, const float *t, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float s = 0.f;
    for (int k = 0; k < 8; ++k)
      if (k < 5)
        s += t[k] * x[i + k];
    y[i] = s;
  }
})");
  EXPECT_NE(Why.find("loop variables alone"), std::string::npos) << Why;
}

TEST(Coefficients, AStoreBeforeAReadInTheSameThread) {
  // A grid-stride loop stores an output, then reads the filter again.
  KernelModel M = analyze(R"(
__global__ void k(const float *x, const float *t, float *y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    float s = 0.f;
    for (int k = 0; k < 3; ++k)
      s += t[k] * x[i + k];
    y[i] = s;
  }
})",
                          "k");
  CoefficientReads C = coefficientReads(M);
  ASSERT_EQ(C.Buffers.size(), 1u);
  EXPECT_NE(C.WriteBeforeRead.find("in the loop over 'i'"), std::string::npos)
      << C.WriteBeforeRead;
}

} // namespace
