// The problem shape: buffer counts and thread extents read from guards,
// loops and indices, and the reasons where they cannot be read.
#include "AnalysisTestUtil.h"
#include "forge/Analysis/ProblemShape.h"

using namespace forge::analysis;
using namespace forge::analysis::test;

namespace {

const BufferExtent &extent(const ProblemShape &S, llvm::StringRef Buffer) {
  for (const BufferExtent &E : S.Buffers)
    if (E.Buffer == Buffer)
      return E;
  ADD_FAILURE() << "no extent for " << Buffer.str();
  static BufferExtent None;
  return None;
}

std::string count(KernelModel &M, const ProblemShape &S, llvm::StringRef Buffer) {
  const BufferExtent &E = extent(S, Buffer);
  return E.Count ? M.render(*E.Count) : "none: " + E.Why;
}

} // namespace

TEST(ProblemShape, RowMajorImageUnderItsGuard) {
  KernelModel M = analyze(R"(
    __global__ void k(const float *in, float *out, int w, int h) {
      int x = blockIdx.x * blockDim.x + threadIdx.x;
      int y = blockIdx.y * blockDim.y + threadIdx.y;
      if (x < w && y < h) out[y * w + x] = 2.0f * in[y * w + x];
    })",
                          "k");
  ProblemShape S = inferProblemShape(M);
  EXPECT_EQ(count(M, S, "in"), "h * w");
  EXPECT_EQ(count(M, S, "out"), "h * w");
  EXPECT_FALSE(extent(S, "out").WrittenInPart);
  ASSERT_TRUE(S.Threads[0] && S.Threads[1]);
  EXPECT_EQ(M.render(S.Threads[0]->Limit), "w");
  EXPECT_EQ(M.render(S.Threads[1]->Limit), "h");
  EXPECT_FALSE(S.Threads[2]);
}

TEST(ProblemShape, EarlyExitsAndSizeTIndices) {
  KernelModel M = analyze(R"(
    __global__ void k(const double *a, double *b, unsigned long long n) {
      size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
      if (i >= n) return;
      b[i] = a[i] + 1.0;
    })",
                          "k");
  ProblemShape S = inferProblemShape(M);
  EXPECT_EQ(count(M, S, "a"), "n");
  EXPECT_EQ(count(M, S, "b"), "n");
  ASSERT_TRUE(S.Threads[0]);
  EXPECT_EQ(M.render(S.Threads[0]->Limit), "n");
}

TEST(ProblemShape, ColumnLoopAndBlockStrideLoop) {
  KernelModel M = analyze(R"(
    __global__ void k(const float *A, float *colsum, int rows, int cols) {
      int c = blockIdx.x * blockDim.x + threadIdx.x;
      if (c < cols) {
        float s = 0;
        for (int r = 0; r < rows; ++r) s += A[r * cols + c];
        colsum[c] = s;
      }
    })",
                          "k");
  ProblemShape S = inferProblemShape(M);
  EXPECT_EQ(count(M, S, "A"), "cols * rows");
  EXPECT_EQ(count(M, S, "colsum"), "cols");
}

TEST(ProblemShape, ClampsBoundTheReads) {
  KernelModel M = analyze(R"(
    __global__ void k(const float *in, float *out, int n) {
      int i = blockIdx.x * blockDim.x + threadIdx.x;
      if (i < n) {
        int l = i > 0 ? i - 1 : 0;
        int r = min(i + 1, n - 1);
        out[i] = in[l] + in[i] + in[r];
      }
    })",
                          "k");
  ProblemShape S = inferProblemShape(M);
  EXPECT_EQ(count(M, S, "in"), "n");
  EXPECT_FALSE(extent(S, "in").MayReadBefore);
}

TEST(ProblemShape, AnUnclampedNeighbourReadsBeforeTheStart) {
  KernelModel M = analyze(R"(
    __global__ void k(const float *in, float *out, int n) {
      int i = blockIdx.x * blockDim.x + threadIdx.x;
      if (i < n) out[i] = in[i - 1] + in[i + 1];
    })",
                          "k");
  ProblemShape S = inferProblemShape(M);
  EXPECT_EQ(count(M, S, "in"), "n + 1");
  EXPECT_TRUE(extent(S, "in").MayReadBefore);
}

TEST(ProblemShape, InteriorStencilOutputIsWrittenInPart) {
  KernelModel M = analyze(R"(
    __global__ void k(const float *u, float *v, int n) {
      int i = blockIdx.x * blockDim.x + threadIdx.x;
      if (i > 0 && i < n - 1) v[i] = u[i - 1] + u[i + 1] - 2.0f * u[i];
    })",
                          "k");
  ProblemShape S = inferProblemShape(M);
  EXPECT_EQ(count(M, S, "u"), "n");
  EXPECT_TRUE(extent(S, "v").WrittenInPart);
  ASSERT_TRUE(S.Threads[0]);
  EXPECT_EQ(M.render(S.Threads[0]->Limit), "n - 1");
}

TEST(ProblemShape, RefusalsSayWhy) {
  // A gather: the index is data.
  KernelModel G = analyze(R"(
    __global__ void k(const int *idx, const float *src, float *dst, int n) {
      int i = blockIdx.x * blockDim.x + threadIdx.x;
      if (i < n) dst[i] = src[idx[i]];
    })",
                          "k");
  ProblemShape SG = inferProblemShape(G);
  EXPECT_EQ(count(G, SG, "idx"), "n");
  EXPECT_EQ(count(G, SG, "dst"), "n");
  EXPECT_FALSE(extent(SG, "src").Count);
  EXPECT_NE(extent(SG, "src").Why.find("loaded from memory"), std::string::npos)
      << extent(SG, "src").Why;

  // A loop with no bound the analysis follows.
  KernelModel W = analyze(R"(
    __global__ void k(const float *in, float *out, const int *len) {
      int i = blockIdx.x * blockDim.x + threadIdx.x;
      float s = 0;
      for (int k = 0; k < len[i]; ++k) s += in[i * 64 + k];
      out[i] = s;
    })",
                          "k");
  ProblemShape SW = inferProblemShape(W);
  EXPECT_FALSE(extent(SW, "in").Count);
  EXPECT_FALSE(extent(SW, "in").Why.empty());
  // Nothing bounds the threads: the grid decides the output's reach.
  EXPECT_FALSE(SW.Threads[0]);
  EXPECT_EQ(count(W, SW, "out"), "blockDim.x * gridDim.x");
}

TEST(ProblemShape, PerThreadChunksAndPerBlockRows) {
  KernelModel C = analyze(R"(
    __global__ void k(const float *x, float *y, int n) {
      int base = (blockIdx.x * blockDim.x + threadIdx.x) * 8;
      for (int j = 0; j < 8 && base + j < n; ++j) y[base + j] = x[base + j];
    })",
                          "k");
  ProblemShape SC = inferProblemShape(C);
  EXPECT_EQ(count(C, SC, "x"), "n");
  ASSERT_TRUE(SC.Threads[0]);
  EXPECT_EQ(C.render(SC.Threads[0]->Limit), "n");
  EXPECT_EQ(C.render(SC.Threads[0]->Scale), "8");

  KernelModel R = analyze(R"(
    __global__ void k(const float *m, float *rowmax, int rows, int cols) {
      if (blockIdx.x >= rows) return;
      float v = -1e30f;
      for (int c = threadIdx.x; c < cols; c += blockDim.x) v = fmaxf(v, m[blockIdx.x * cols + c]);
      if (threadIdx.x == 0) rowmax[blockIdx.x] = v;
    })",
                          "k");
  ProblemShape SR = inferProblemShape(R);
  EXPECT_EQ(count(R, SR, "m"), "cols * rows");
  EXPECT_EQ(count(R, SR, "rowmax"), "rows");
  ASSERT_TRUE(SR.Threads[0]);
  EXPECT_TRUE(SR.Threads[0]->PerBlock);
  EXPECT_EQ(R.render(SR.Threads[0]->Limit), "rows");
}
