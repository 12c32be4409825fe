//===- StagedProductTest.cpp - Products over shared-memory tiles ----------===//
#include "AnalysisTestUtil.h"

using namespace forge::analysis;
using namespace forge::analysis::test;

namespace {

const char *PMPP = R"(
#define TILE_WIDTH 16
__global__ void mm(const float *M, const float *N, float *P, int Width) {
  __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
  __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];
  int bx = blockIdx.x, by = blockIdx.y, tx = threadIdx.x, ty = threadIdx.y;
  int Row = by * TILE_WIDTH + ty, Col = bx * TILE_WIDTH + tx;
  float Pvalue = 0;
  for (int ph = 0; ph < Width / TILE_WIDTH; ++ph) {
    Mds[ty][tx] = M[Row * Width + ph * TILE_WIDTH + tx];
    Nds[ty][tx] = N[(ph * TILE_WIDTH + ty) * Width + Col];
    __syncthreads();
    for (int k = 0; k < TILE_WIDTH; ++k) Pvalue += Mds[ty][k] * Nds[k][tx];
    __syncthreads();
  }
  P[Row * Width + Col] = Pvalue;
})";

TEST(StagedProduct, PmppTilesStandForTheGlobalOperands) {
  KernelModel M = analyze(PMPP, "mm");
  const Pattern *P = pattern(M, PatternKind::MatrixProduct);
  ASSERT_NE(P, nullptr);
  EXPECT_FALSE(P->Tiled);
  ASSERT_TRUE(P->Staged.has_value());
  const Staging &S = *P->Staged;
  // The operands are the global buffers, k is the inner loop, the range of
  // kk the phases' whole tiles.
  EXPECT_EQ(P->role("A"), "M");
  EXPECT_EQ(P->role("B"), "N");
  EXPECT_EQ(P->role("C"), "P");
  EXPECT_EQ(P->role("phase"), "ph");
  EXPECT_EQ(P->LoopOrder, "ijk");
  EXPECT_EQ(S.Tile, 16);
  EXPECT_TRUE(S.Truncated);
  EXPECT_EQ(S.KRangeText, "(Width / 16) * 16");
  EXPECT_EQ(S.Block[0], 16);
  EXPECT_EQ(S.Block[1], 16);
  EXPECT_EQ(S.A.Tile, "Mds");
  EXPECT_EQ(S.B.Tile, "Nds");
  EXPECT_EQ(S.A.KDim, 'x');
  EXPECT_EQ(S.B.KDim, 'y');
  EXPECT_EQ(M.Accesses[S.A.Source].Buffer, "M");
  EXPECT_EQ(M.Accesses[S.B.Source].Buffer, "N");
  EXPECT_EQ(M.Accesses[P->Accesses[0]].Buffer, "M");
  EXPECT_TRUE(S.A.Cond.empty());
  // Mds[ty][k] holds M[Row * Width + ph * 16 + k]: unit stride along k,
  // Width along threadIdx.y.
  const AtomTable &T = M.atoms();
  const Loop &KL = M.Loops[P->Loops.front()];
  EXPECT_EQ(T.slope(S.A.Global, KL.IterAtom).constant(), 1);
  EXPECT_EQ(T.slope(S.A.Global, M.Loops[S.PhaseLoop].IterAtom).constant(), 16);
  EXPECT_EQ(T.slope(S.B.Global, *T.findBuiltin("threadIdx", 'x')).constant(), 1);
}

TEST(StagedProduct, BoundsCheckedFillsGiveTheirBoundOnKK) {
  KernelModel M = analyze(R"(
__global__ void mm(const float *A, const float *B, float *C, int m, int n, int k) {
  __shared__ float As[16][16];
  __shared__ float Bs[16][16];
  int row = blockIdx.y * 16 + threadIdx.y, col = blockIdx.x * 16 + threadIdx.x;
  float acc = 0.0f;
  for (int t = 0; t < (k + 15) / 16; ++t) {
    As[threadIdx.y][threadIdx.x] = (row < m && t * 16 + threadIdx.x < k) ? A[row * k + t * 16 + threadIdx.x] : 0.0f;
    Bs[threadIdx.y][threadIdx.x] = (t * 16 + threadIdx.y < k && col < n) ? B[(t * 16 + threadIdx.y) * n + col] : 0.0f;
    __syncthreads();
    for (int p = 0; p < 16; ++p)
      acc += As[threadIdx.y][p] * Bs[p][threadIdx.x];
    __syncthreads();
  }
  if (row < m && col < n)
    C[row * n + col] = acc;
})",
                          "mm");
  const Pattern *P = pattern(M, PatternKind::MatrixProduct);
  ASSERT_NE(P, nullptr);
  ASSERT_TRUE(P->Staged.has_value());
  EXPECT_FALSE(P->Staged->Truncated);
  EXPECT_EQ(P->Staged->KRangeText, "k");
  EXPECT_FALSE(P->Staged->A.Cond.empty());
}

TEST(StagedProduct, NonProductsOfTheTilesAreRefused) {
  // The tile feeds a second sum: the product stays a tiled one, with why.
  KernelModel M = analyze(R"(
__global__ void mm(const float *A, const float *B, float *C, float *S, int n) {
  __shared__ float As[16][16];
  __shared__ float Bs[16][16];
  int row = blockIdx.y * 16 + threadIdx.y, col = blockIdx.x * 16 + threadIdx.x;
  float acc = 0.0f, s = 0.0f;
  for (int t = 0; t < n / 16; ++t) {
    As[threadIdx.y][threadIdx.x] = A[row * n + t * 16 + threadIdx.x];
    Bs[threadIdx.y][threadIdx.x] = B[(t * 16 + threadIdx.y) * n + col];
    __syncthreads();
    for (int p = 0; p < 16; ++p) {
      acc += As[threadIdx.y][p] * Bs[p][threadIdx.x];
      s += As[threadIdx.y][p];
    }
    __syncthreads();
  }
  C[row * n + col] = acc;
  S[row * n + col] = s;
})",
                          "mm");
  const Pattern *P = pattern(M, PatternKind::MatrixProduct);
  ASSERT_NE(P, nullptr);
  EXPECT_TRUE(P->Tiled);
  EXPECT_FALSE(P->Staged.has_value());
  EXPECT_NE(P->NotStagedWhy.find("is read besides the product"), std::string::npos)
      << P->NotStagedWhy;
  // Without a barrier between the fill and the reads.
  KernelModel N = analyze(R"(
__global__ void mm(const float *A, const float *B, float *C, int n) {
  __shared__ float As[16][16];
  __shared__ float Bs[16][16];
  int row = blockIdx.y * 16 + threadIdx.y, col = blockIdx.x * 16 + threadIdx.x;
  float acc = 0.0f;
  for (int t = 0; t < n / 16; ++t) {
    As[threadIdx.y][threadIdx.x] = A[row * n + t * 16 + threadIdx.x];
    Bs[threadIdx.y][threadIdx.x] = B[(t * 16 + threadIdx.y) * n + col];
    for (int p = 0; p < 16; ++p)
      acc += As[threadIdx.y][p] * Bs[p][threadIdx.x];
    __syncthreads();
  }
  C[row * n + col] = acc;
})",
                          "mm");
  const Pattern *Q = pattern(N, PatternKind::MatrixProduct);
  ASSERT_NE(Q, nullptr);
  EXPECT_FALSE(Q->Staged.has_value());
  EXPECT_NE(Q->NotStagedWhy.find("barrier"), std::string::npos) << Q->NotStagedWhy;
  // A block that is not the tile.
  KernelModel B = analyze(PMPP, "mm", block(32, 8));
  const Pattern *R = pattern(B, PatternKind::MatrixProduct);
  ASSERT_NE(R, nullptr);
  EXPECT_FALSE(R->Staged.has_value());
  EXPECT_NE(R->NotStagedWhy.find("the block is not the tile"), std::string::npos)
      << R->NotStagedWhy;
}

} // namespace
