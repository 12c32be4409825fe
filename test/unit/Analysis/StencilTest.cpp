//===- StencilTest.cpp - Footprints, radius, reuse and borders ------------===//
#include "AnalysisTestUtil.h"

using namespace forge::analysis;
using namespace forge::analysis::test;

namespace {

const Footprint &onlyFootprint(const KernelModel &M) {
  EXPECT_EQ(M.Footprints.size(), 1u);
  static Footprint None;
  return M.Footprints.empty() ? None : M.Footprints.front();
}

TEST(Stencil, ThreePoint1DInterior) {
  KernelModel M = analyze(R"(
__global__ void lap1d(const double *u, double *v, size_t n) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= 1 && i < n - 1)
    v[i] = u[i - 1] - 2.0 * u[i] + u[i + 1];
})",
                          "lap1d");
  const Footprint &F = onlyFootprint(M);
  EXPECT_EQ(F.Buffer, "u");
  ASSERT_EQ(F.Dims.size(), 1u);
  EXPECT_EQ(F.Dims[0].Lo, -1);
  EXPECT_EQ(F.Dims[0].Hi, 1);
  EXPECT_EQ(F.Radius, 1);
  EXPECT_EQ(F.Points, 3);
  EXPECT_EQ(F.Reuse, 3);
  EXPECT_EQ(F.Border, BorderMode::Interior);
  ASSERT_GE(F.Output, 0);
  EXPECT_EQ(M.Accesses[F.Output].Text, "v[i]");
  const Pattern *P = pattern(M, PatternKind::Stencil);
  ASSERT_NE(P, nullptr);
  EXPECT_EQ(P->Footprint, int(F.Id));
  EXPECT_EQ(access(M, "u[i - 1]").Footprint, int(F.Id));
}

TEST(Stencil, Clamped2DThreeByThreeThroughMinMax) {
  KernelModel M = analyze(R"(
__global__ void blur(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float s = 0.f;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx) {
      int yy = min(max(y + dy, 0), h - 1);
      int xx = min(max(x + dx, 0), w - 1);
      s += in[yy * w + xx];
    }
  out[y * w + x] = s / 9.f;
})",
                          "blur");
  const Footprint &F = onlyFootprint(M);
  EXPECT_EQ(F.shape(), "3x3");
  EXPECT_EQ(F.Radius, 1);
  EXPECT_EQ(F.Reuse, 9);
  EXPECT_TRUE(F.FromLoops);
  EXPECT_EQ(F.Border, BorderMode::Clamped);
  ASSERT_EQ(F.Dims.size(), 2u);
  EXPECT_EQ(F.Dims[1].Stride, "w");
  const Access &In = access(M, "in[yy * w + xx]");
  EXPECT_EQ(M.footprintOf(In), &F);
  EXPECT_EQ(M.accessesIn(M.Loops[1]).size(), 1u);
  EXPECT_EQ(In.Warp.Class, AccessClass::Coalesced);
  EXPECT_EQ(In.Warp.Assumption, "inside the clamp range");
  EXPECT_EQ(In.G.render(), "x < w && y < h");
  EXPECT_EQ(M.Accesses[F.Output].Text, "out[y * w + x]");
}

TEST(Stencil, ZeroPaddedFiveByFiveWithNeighbourGuards) {
  KernelModel M = analyze(R"(
__global__ void conv5(const float *__restrict__ src, float *dst, int W, int H,
                      const float *wts) {
  const int col = threadIdx.x + blockIdx.x * blockDim.x;
  const int row = threadIdx.y + blockIdx.y * blockDim.y;
  if (col >= W) return;
  if (row >= H) return;
  float acc = 0;
  for (int i = -2; i <= 2; i++) {
    for (int j = -2; j <= 2; j++) {
      int r = row + i, c = col + j;
      if (r >= 0 && r < H && c >= 0 && c < W)
        acc += wts[(i + 2) * 5 + (j + 2)] * src[r * W + c];
    }
  }
  dst[row * W + col] = acc;
})",
                          "conv5");
  const Footprint &F = onlyFootprint(M);
  EXPECT_EQ(F.Buffer, "src");
  EXPECT_EQ(F.shape(), "5x5");
  EXPECT_EQ(F.Radius, 2);
  EXPECT_EQ(F.Reuse, 25);
  EXPECT_EQ(F.Border, BorderMode::Guarded);
  // The weights are the same for every thread: not part of a footprint.
  EXPECT_EQ(access(M, "wts[(i + 2) * 5 + (j + 2)]").Warp.Class, AccessClass::Broadcast);
  EXPECT_EQ(access(M, "wts[(i + 2) * 5 + (j + 2)]").Footprint, -1);
}

TEST(Stencil, SevenPoint3DWrittenOut) {
  KernelModel M = analyze(R"(
__global__ void heat3d(const float *a, float *b, int nx, int ny, int nz) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int z = blockIdx.z * blockDim.z + threadIdx.z;
  if (x < 1 || y < 1 || z < 1 || x >= nx - 1 || y >= ny - 1 || z >= nz - 1) return;
  size_t idx = ((size_t)z * ny + y) * nx + x;
  b[idx] = a[idx - 1] + a[idx + 1] + a[idx - nx] + a[idx + nx] + a[idx - (size_t)nx * ny] +
           a[idx + (size_t)nx * ny] - 6.f * a[idx];
})",
                          "heat3d");
  const Footprint &F = onlyFootprint(M);
  ASSERT_EQ(F.Dims.size(), 3u);
  EXPECT_EQ(F.Dims[1].Stride, "nx");
  EXPECT_EQ(F.Dims[2].Stride, "nx * ny");
  EXPECT_EQ(F.Points, 7);
  EXPECT_EQ(F.Reuse, 7);
  EXPECT_EQ(F.Radius, 1);
  EXPECT_EQ(F.Accesses.size(), 7u);
  EXPECT_EQ(F.Border, BorderMode::Interior);
}

// One z-plane per block (z = blockIdx.z, no threadIdx.z): no thread moves
// along z, so the threads of a plane share the five points of offset 0
// along it; the planes above and below are read by other blocks.
TEST(Stencil, SevenPoint3DOnePlanePerBlock) {
  KernelModel M = analyze(R"(
__global__ void lap3(const float *in, float *out, int nx, int ny, int nz) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y,
      z = blockIdx.z;
  if (x < 1 || y < 1 || z < 1 || x >= nx - 1 || y >= ny - 1 || z >= nz - 1) return;
  size_t s = (size_t)nx * ny, id = z * s + y * nx + x;
  out[id] = in[id - 1] + in[id + 1] + in[id - nx] + in[id + nx] + in[id - s] + in[id + s] -
            6 * in[id];
})",
                          "lap3");
  const Footprint &F = onlyFootprint(M);
  ASSERT_EQ(F.Dims.size(), 3u);
  EXPECT_EQ(F.Dims[2].Stride, "nx * ny");
  EXPECT_EQ(F.Dims[2].ThreadStep, 0);
  EXPECT_EQ(F.Points, 7);
  EXPECT_EQ(F.Reuse, 5);
  EXPECT_EQ(F.Border, BorderMode::Interior);
}

// Two dimensions that no thread moves along: a row per block along y too;
// only the three points along x are shared.
TEST(Stencil, StarWithTwoFixedDimensions) {
  KernelModel M = analyze(R"(
__global__ void lap3(const float *in, float *out, int nx, int ny, int nz) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y, z = blockIdx.z;
  if (x < 1 || y < 1 || z < 1 || x >= nx - 1 || y >= ny - 1 || z >= nz - 1) return;
  size_t s = (size_t)nx * ny, id = z * s + y * nx + x;
  out[id] = in[id - 1] + in[id + 1] + in[id - nx] + in[id + nx] + in[id - s] + in[id + s];
})",
                          "lap3");
  const Footprint &F = onlyFootprint(M);
  EXPECT_EQ(F.Points, 6);
  EXPECT_EQ(F.Reuse, 2);
}

TEST(Stencil, RadiusThree3DLoopsInATemplate) {
  KernelModel M = analyze(R"(
template <int R, typename T>
__global__ void stencil3d(const T *a, T *b, int nx, int ny, int nz) {
  int x = blockIdx.x * blockDim.x + threadIdx.x + R;
  int y = blockIdx.y * blockDim.y + threadIdx.y + R;
  int z = blockIdx.z * blockDim.z + threadIdx.z + R;
  if (x >= nx - R || y >= ny - R || z >= nz - R) return;
  T s = 0;
  for (int dz = -3; dz <= 3; ++dz)
    for (int dy = -3; dy <= 3; ++dy)
      for (int dx = -3; dx <= 3; ++dx)
        s += a[((z + dz) * ny + (y + dy)) * nx + (x + dx)];
  b[(z * ny + y) * nx + x] = s;
})",
                          "stencil3d");
  EXPECT_TRUE(M.IsTemplate);
  const Footprint &F = onlyFootprint(M);
  EXPECT_EQ(F.shape(), "7x7x7");
  EXPECT_EQ(F.Radius, 3);
  EXPECT_EQ(F.Reuse, 343);
  EXPECT_EQ(F.Border, BorderMode::Interior);
  EXPECT_EQ(access(M, "b[(z * ny + y) * nx + x]").ElementType, "T");
  EXPECT_EQ(access(M, "b[(z * ny + y) * nx + x]").ElementBytes, 0u);
}

TEST(Stencil, ClampedByTernariesOneDimensionalRadiusTwo) {
  KernelModel M = analyze(R"(
__global__ void smooth(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float acc = 0.f;
    for (int k = -2; k <= 2; ++k) {
      int j = i + k;
      j = j < 0 ? 0 : j;
      j = j > n - 1 ? n - 1 : j;
      acc += x[j];
    }
    y[i] = acc * 0.2f;
  }
})",
                          "smooth");
  const Footprint &F = onlyFootprint(M);
  EXPECT_EQ(F.shape(), "5");
  EXPECT_EQ(F.Radius, 2);
  EXPECT_EQ(F.Reuse, 5);
  EXPECT_EQ(F.Border, BorderMode::Clamped);
}

TEST(Stencil, SharedMemoryHaloStencil) {
  KernelModel M = analyze(R"(
#define RAD 3
#define BS 128
__global__ void stencil1d(const int *in, int *out) {
  __shared__ int temp[BS + 2 * RAD];
  int g = threadIdx.x + blockIdx.x * blockDim.x;
  int l = threadIdx.x + RAD;
  temp[l] = in[g];
  if (threadIdx.x < RAD) {
    temp[l - RAD] = in[g - RAD];
    temp[l + BS] = in[g + BS];
  }
  __syncthreads();
  int result = 0;
  for (int off = -RAD; off <= RAD; off++)
    result += temp[l + off];
  out[g] = result;
})",
                          "stencil1d");
  const Footprint &F = onlyFootprint(M);
  EXPECT_EQ(F.Buffer, "temp");
  EXPECT_EQ(F.Space, MemorySpace::Shared);
  EXPECT_EQ(F.shape(), "7");
  EXPECT_EQ(F.Radius, 3);
  EXPECT_EQ(F.Reuse, 7);
}

TEST(Stencil, SeparateElementsOfOneThreadAreNotAStencil) {
  // x[i] and x[i + n] are two halves, not neighbours.
  KernelModel M = analyze(R"(
__global__ void halves(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] + x[i + n];
})",
                          "halves");
  EXPECT_TRUE(M.Footprints.empty());
  EXPECT_EQ(pattern(M, PatternKind::Stencil), nullptr);
}

TEST(Stencil, ZeroPaddedRadiusThreeByATernary) {
  KernelModel M = analyze(R"(
__global__ void fir(const float *__restrict__ x, float *__restrict__ y, const float *h, int n) {
  int i = threadIdx.x + blockDim.x * blockIdx.x;
  if (i >= n) return;
  float acc = 0.f;
#pragma unroll
  for (int t = -3; t <= 3; ++t) {
    int j = i + t;
    acc += h[t + 3] * ((j >= 0 && j < n) ? x[j] : 0.f);
  }
  y[i] = acc;
})",
                          "fir");
  const Footprint &F = onlyFootprint(M);
  EXPECT_EQ(F.Buffer, "x");
  EXPECT_EQ(F.Radius, 3);
  EXPECT_EQ(F.Reuse, 7);
  EXPECT_EQ(F.Border, BorderMode::Guarded);
  const Access &X = access(M, "x[j]");
  ASSERT_EQ(X.G.Terms.size(), 3u);
  EXPECT_EQ(X.G.Terms[1].Origin, GuardOrigin::Conditional);
  EXPECT_EQ(X.G.render(), "i < n && j >= 0 && j < n");
}

TEST(Stencil, Clamped3DWithMaxAndMinCalls) {
  KernelModel M = analyze(R"(
__global__ void smooth3(const float *v, float *o, int X, int Y, int Z) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  int k = blockIdx.z * blockDim.z + threadIdx.z;
  if (i >= X || j >= Y || k >= Z) return;
  float best = -1e30f;
  for (int c = -1; c <= 1; ++c)
    for (int b = -1; b <= 1; ++b)
      for (int a = -1; a <= 1; ++a) {
        int ii = max(0, min(X - 1, i + a));
        int jj = max(0, min(Y - 1, j + b));
        int kk = max(0, min(Z - 1, k + c));
        best = fmaxf(best, v[((size_t)kk * Y + jj) * X + ii]);
      }
  o[((size_t)k * Y + j) * X + i] = best;
})",
                          "smooth3");
  const Footprint &F = onlyFootprint(M);
  EXPECT_EQ(F.shape(), "3x3x3");
  EXPECT_EQ(F.Points, 27);
  EXPECT_EQ(F.Reuse, 27);
  EXPECT_EQ(F.Border, BorderMode::Clamped);
  ASSERT_EQ(F.Dims.size(), 3u);
  EXPECT_EQ(F.Dims[2].Stride, "X * Y");
  ASSERT_EQ(M.Reductions.size(), 1u);
  EXPECT_EQ(M.Reductions[0].Op, ReductionOp::Max);
  EXPECT_EQ(M.Reductions[0].Loops.size(), 3u);
}

TEST(Stencil, TemplateRadiusStaysSymbolic) {
  KernelModel M = analyze(R"(
template <int R>
__global__ void blurR(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float s = 0.f;
  for (int dy = -R; dy <= R; ++dy)
    for (int dx = -R; dx <= R; ++dx)
      s += in[min(max(y + dy, 0), h - 1) * w + min(max(x + dx, 0), w - 1)];
  out[y * w + x] = s;
})",
                          "blurR");
  const Footprint &F = onlyFootprint(M);
  EXPECT_TRUE(F.Symbolic);
  EXPECT_EQ(F.shape(), "(2 * R + 1)x(2 * R + 1)");
  EXPECT_EQ(F.RadiusText, "R");
  EXPECT_EQ(F.PointsText, "(2 * R + 1) * (2 * R + 1)");
  ASSERT_EQ(F.Dims.size(), 2u);
  EXPECT_EQ(F.Dims[1].LoText, "-R");
  EXPECT_EQ(F.Dims[1].Stride, "w");
  EXPECT_EQ(F.Border, BorderMode::Clamped);
  EXPECT_EQ(M.Accesses[F.Output].Text, "out[y * w + x]");
  // Without a compile-time radius nothing numeric is claimed.
  EXPECT_EQ(F.Radius, 0);
  EXPECT_EQ(F.Reuse, 0);
}

TEST(Stencil, MaskWidthParameterIsARuntimeFootprint) {
  // PMPP's basic 2D convolution: the offsets run over [0, mw) around
  // (row - mw / 2, col - mw / 2).
  KernelModel M = analyze(R"(
__global__ void conv(const float *img, const float *mask, float *out, int w, int h, int mw) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (col < w && row < h) {
    int r = mw / 2;
    float acc = 0.0f;
    for (int i = 0; i < mw; i++)
      for (int j = 0; j < mw; j++) {
        int y = row - r + i, x = col - r + j;
        if (y >= 0 && y < h && x >= 0 && x < w) acc += img[y * w + x] * mask[i * mw + j];
      }
    out[row * w + col] = acc;
  }
})",
                          "conv");
  const Footprint &F = onlyFootprint(M);
  EXPECT_TRUE(F.Symbolic);
  EXPECT_TRUE(F.Runtime);
  EXPECT_EQ(F.Buffer, "img");
  ASSERT_EQ(F.Dims.size(), 2u);
  EXPECT_EQ(F.Dims[0].LoText, "0");
  EXPECT_EQ(F.Dims[0].HiText, "mw - 1");
  EXPECT_EQ(F.Dims[1].Stride, "w");
  EXPECT_EQ(F.Dims[1].ExtentText, "mw");
  EXPECT_EQ(F.PointsText, "mw * mw");
  // The mask's reads do not move with a thread: no footprint of their own.
  EXPECT_EQ(M.Accesses[F.Accesses.front()].Text, "img[y * w + x]");
}

TEST(Stencil, RunTimeLoopsThatWalkOrMarchAreNotRadii) {
  // A row per thread (threads step along n, the loop along 1) and a march
  // along z (the loop steps along nx * ny, which no thread index does).
  KernelModel Row = analyze(R"(
__global__ void mv(const float *A, const float *x, float *y, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= n) return;
  float s = 0.f;
  for (int k = 0; k < n; ++k) s += A[row * n + k] * x[k];
  y[row] = s;
})",
                            "mv");
  EXPECT_TRUE(Row.Footprints.empty());
  KernelModel March = analyze(R"(
__global__ void lap(const float *in, float *out, int nx, int ny, int nz) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < 1 || j < 1 || i >= nx - 1 || j >= ny - 1) return;
  for (int k = 1; k < nz - 1; ++k) {
    int c = (k * ny + j) * nx + i;
    out[c] = in[c - 1] + in[c + 1] + in[c - nx] + in[c + nx] + in[c - nx * ny] + in[c + nx * ny];
  }
})",
                              "lap");
  const Footprint &F = onlyFootprint(March);
  EXPECT_FALSE(F.Symbolic);
  EXPECT_EQ(F.Points, 6);
}

// The position each footprint dimension is relative to, and each read's
// offsets from it (what a tiling rule substitutes).
TEST(Stencil, PositionAndOffsetsPerDimension) {
  KernelModel M = analyze(R"(
__global__ void lap(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= 1 && x < w - 1 && y >= 1 && y < h - 1)
    out[y * w + x] = in[(y - 1) * w + x] + in[y * w + x + 1];
})",
                          "lap", block(32, 8));
  const Footprint &F = onlyFootprint(M);
  ASSERT_EQ(F.Dims.size(), 2u);
  const AtomTable &T = M.atoms();
  EXPECT_EQ(T.render(F.Dims[0].StrideForm), "1");
  EXPECT_EQ(T.render(F.Dims[1].StrideForm), "w");
  EXPECT_EQ(T.render(F.Dims[0].Position), "32 * blockIdx.x + threadIdx.x");
  EXPECT_EQ(T.render(F.Dims[1].Position), "8 * blockIdx.y + threadIdx.y");
  EXPECT_EQ(T.render(F.Dims[0].LoForm), "0");
  EXPECT_EQ(T.render(F.Dims[0].HiForm), "1");
  EXPECT_EQ(T.render(F.Dims[1].LoForm), "-1");
  ASSERT_EQ(F.Offsets.size(), F.Accesses.size());
  for (size_t I = 0; I < F.Accesses.size(); ++I) {
    const Access &A = M.Accesses[F.Accesses[I]];
    ASSERT_EQ(F.Offsets[I].size(), 2u);
    if (A.Text == "in[(y - 1) * w + x]") {
      EXPECT_EQ(T.render(F.Offsets[I][0]), "0");
      EXPECT_EQ(T.render(F.Offsets[I][1]), "-1");
    } else {
      EXPECT_EQ(T.render(F.Offsets[I][0]), "1");
      EXPECT_EQ(T.render(F.Offsets[I][1]), "0");
    }
  }
}

// Loop-generated offsets are forms over the loop variables.
TEST(Stencil, LoopOffsetsAreLoopVariables) {
  KernelModel M = analyze(R"(
__global__ void box(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float s = 0.f;
  for (int k = 0; k < 5; ++k) {
    int p = i + k - 2;
    if (p >= 0 && p < n) s += in[p];
  }
  out[i] = s;
})",
                          "box", block(128));
  const Footprint &F = onlyFootprint(M);
  ASSERT_EQ(F.Offsets.size(), 1u);
  ASSERT_EQ(F.Offsets[0].size(), 1u);
  EXPECT_EQ(M.atoms().render(F.Offsets[0][0]), "k - 2");
  EXPECT_EQ(M.atoms().render(F.Dims[0].Position), "128 * blockIdx.x + threadIdx.x");
}

// An if/else clamp (`if (r < 0) r = 0; else if (r > h - 1) r = h - 1;`)
// is a clamp of the model, like min(max()).
TEST(Stencil, IfElseClampIsAClamp) {
  KernelModel M = analyze(R"(
__global__ void blur(const float *src, float *dst, int w, int h) {
  int c = threadIdx.x + blockDim.x * blockIdx.x;
  int r = threadIdx.y + blockDim.y * blockIdx.y;
  if (c < w && r < h) {
    float s = 0.f;
    for (int dy = -1; dy <= 1; ++dy) {
      int rr = r + dy;
      if (rr < 0) rr = 0; else if (rr > h - 1) rr = h - 1;
      int cc = c + 1;
      if (cc >= w) cc = w - 1;
      s += src[rr * w + cc];
    }
    dst[r * w + c] = s;
  }
})",
                          "blur", block(32, 8));
  const Footprint &F = onlyFootprint(M);
  EXPECT_EQ(F.Border, BorderMode::Clamped);
  const Access &A = access(M, "src[rr * w + cc]");
  AtomTable &T = M.atoms();
  bool Clamped = false;
  IndexForm U = T.unclamped(A.Index, &Clamped);
  EXPECT_TRUE(Clamped);
  EXPECT_EQ(T.render(U), "32 * blockIdx.x + 8 * blockIdx.y * w + threadIdx.x + threadIdx.y * w + "
                         "w * dy + 1");
  // Both clamps: the row's two-sided one, the column's upper one.
  unsigned Clamps = 0;
  for (AtomId X : A.Index.atoms())
    if (auto C = T.clampOf(X)) {
      ++Clamps;
      if (C->Lo && C->Hi) {
        EXPECT_EQ(T.render(*C->Lo), "0");
        EXPECT_EQ(T.render(*C->Hi), "h - 1");
      } else {
        EXPECT_FALSE(C->Lo.has_value());
        ASSERT_TRUE(C->Hi.has_value());
        EXPECT_EQ(T.render(*C->Hi), "w - 1");
      }
    }
  EXPECT_EQ(Clamps, 2u);
}

} // namespace
