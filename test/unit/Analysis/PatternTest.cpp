//===- PatternTest.cpp - Recognised computations --------------------------===//
#include "AnalysisTestUtil.h"

using namespace forge::analysis;
using namespace forge::analysis::test;

namespace {

TEST(Pattern, ElementwiseOnePerThreadIsAPureMap) {
  KernelModel M = analyze(R"(
__global__ void relu(const float *in, float *out, unsigned n) {
  unsigned idx = blockDim.x * blockIdx.x + threadIdx.x;
  if (n > idx) {
    float v = in[idx];
    out[idx] = v > 0.f ? v : 0.f;
  }
})",
                          "relu");
  const Pattern *P = pattern(M, PatternKind::Elementwise);
  ASSERT_NE(P, nullptr);
  EXPECT_FALSE(P->GridStride);
  EXPECT_TRUE(P->ThreadValues.empty());
  EXPECT_EQ(P->role("index"), "idx");
  EXPECT_EQ(P->Summary, "elementwise map over idx: one element per thread");
}

TEST(Pattern, ElementwiseGridStrideWithALocalStride) {
  KernelModel M = analyze(R"(
__global__ void scale_gs(float *data, float s, long n) {
  const long stride = (long)blockDim.x * gridDim.x;
  for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += stride)
    data[i] *= s;
})",
                          "scale_gs");
  const Pattern *P = pattern(M, PatternKind::Elementwise);
  ASSERT_NE(P, nullptr);
  EXPECT_TRUE(P->GridStride);
  EXPECT_EQ(P->role("index"), "i");
  EXPECT_EQ(M.Loops[0].StepK, StepKind::GridStride);
}

TEST(Pattern, ElementwiseSideReads) {
  // A read at an index of its own (the group's scale, a lookup table) from a
  // buffer the map neither writes nor reads at the element's index.
  KernelModel M = analyze(R"(
__global__ void dq(const signed char *q, const float *scale, const float *lut, float *out,
                   int n, int g) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = scale[i / g] * (float)q[i] + lut[i % 16];
})",
                          "dq");
  const Pattern *P = pattern(M, PatternKind::Elementwise);
  ASSERT_NE(P, nullptr);
  ASSERT_EQ(P->SideReads.size(), 2u);
  EXPECT_EQ(M.Accesses[P->SideReads[0]].Buffer, "scale");
  EXPECT_EQ(M.Accesses[P->SideReads[1]].Buffer, "lut");
  EXPECT_EQ(P->Accesses.size(), 2u); // q[i] and out[i]
  EXPECT_TRUE(P->ThreadValues.empty());

  // Not side reads: a neighbour (a stencil's), the written buffer at
  // another index, and a buffer also read at the element's index.
  for (const char *Body : {"out[i] = in[i] + in[i + 1];", "out[i] = in[i] + out[i / 2];",
                           "out[i] = in[i] + in[i / 2];"}) {
    KernelModel N = analyze(std::string(R"(
__global__ void k(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    )") + Body + "\n}",
                            "k");
    EXPECT_EQ(pattern(N, PatternKind::Elementwise), nullptr) << Body;
  }
}

TEST(Pattern, ElementwiseValueThatUsesTheThreadIsFlagged) {
  KernelModel M = analyze(R"(
__global__ void addtid(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] + threadIdx.x;
})",
                          "addtid");
  const Pattern *P = pattern(M, PatternKind::Elementwise);
  ASSERT_NE(P, nullptr);
  ASSERT_EQ(P->ThreadValues.size(), 1u);
  EXPECT_EQ(P->ThreadValues[0].Text, "threadIdx.x");
  EXPECT_EQ(P->ThreadValues[0].Why, "'threadIdx.x' differs between threads");
  // The index used as a value is flagged the same way.
  KernelModel M2 = analyze(R"(
__global__ void iota(int *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 3 * i;
})",
                           "iota");
  ASSERT_NE(pattern(M2, PatternKind::Elementwise), nullptr);
  ASSERT_EQ(pattern(M2, PatternKind::Elementwise)->ThreadValues.size(), 1u);
  EXPECT_EQ(pattern(M2, PatternKind::Elementwise)->ThreadValues[0].Text, "i");
}

TEST(Pattern, TwoDimensionalElementwise) {
  KernelModel M = analyze(R"(
__global__ void add2d(const float *a, const float *b, float *c, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) c[y * w + x] = a[y * w + x] + b[y * w + x];
})",
                          "add2d");
  const Pattern *P = pattern(M, PatternKind::Elementwise);
  ASSERT_NE(P, nullptr);
  EXPECT_NE(P->Summary.find("(2D)"), std::string::npos) << P->Summary;
}

TEST(Pattern, MatrixVectorOneThreadPerRow) {
  KernelModel M = analyze(R"(
__global__ void matvec(const float *A, const float *x, float *y, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < n) {
    float sum = 0.0f;
    for (int k = 0; k < n; ++k)
      sum += A[row * n + k] * x[k];
    y[row] = sum;
  }
})",
                          "matvec");
  const Pattern *P = pattern(M, PatternKind::MatrixVector);
  ASSERT_NE(P, nullptr);
  EXPECT_EQ(
      P->Summary,
      "matrix-vector: one thread per row; reads A along its row: strided by n across the warp");
  EXPECT_EQ(P->role("A"), "A");
  EXPECT_EQ(P->role("x"), "x");
  EXPECT_EQ(P->role("row"), "row");
  EXPECT_EQ(pattern(M, PatternKind::RowLoop), nullptr) << "the matvec explains the loop";
  EXPECT_EQ(pattern(M, PatternKind::Chunk), nullptr);
}

TEST(Pattern, MatrixVectorTransposedReadsColumnsCoalesced) {
  KernelModel M = analyze(R"(
__global__ void gemv_t(int m, int n, const double *mat, const double *vec, double *res) {
  int j = threadIdx.x + blockIdx.x * blockDim.x;
  if (j >= n) return;
  double t = 0;
  for (int i = 0; i < m; i++) t += vec[i] * mat[(size_t)i * n + j];
  res[j] = t;
})",
                          "gemv_t");
  const Pattern *P = pattern(M, PatternKind::MatrixVector);
  ASSERT_NE(P, nullptr);
  EXPECT_EQ(P->role("A"), "mat");
  EXPECT_EQ(P->role("x"), "vec");
  EXPECT_NE(P->Summary.find("reads mat down its column: coalesced"), std::string::npos)
      << P->Summary;
}

TEST(Pattern, NaiveGemmIJK) {
  KernelModel M = analyze(R"(
__global__ void gemm_ijk(const float *A, const float *B, float *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float s = 0;
    for (int k = 0; k < K; ++k) s += A[row * K + k] * B[k * N + col];
    C[row * N + col] = s;
  }
})",
                          "gemm_ijk");
  const Pattern *P = pattern(M, PatternKind::MatrixProduct);
  ASSERT_NE(P, nullptr);
  EXPECT_FALSE(P->TransposedA);
  EXPECT_FALSE(P->TransposedB);
  EXPECT_EQ(P->LoopOrder, "ijk");
  EXPECT_EQ(P->role("C"), "C");
  EXPECT_EQ(P->role("i"), "row");
  EXPECT_EQ(P->role("j"), "col");
  EXPECT_EQ(P->role("k"), "k");
  EXPECT_EQ(P->Summary, "naive matrix product C[i][j] = sum over k of A[i][k] * B[k][j]");
  EXPECT_GE(P->Reduction, 0);
}

// A batch index that A, B and C all move with (blockIdx.z), with the
// operands read through block-uniform local pointers, is the product's
// batch, not a shared dimension that rules the product out.
TEST(Pattern, BatchedGemmThroughLocalPointers) {
  KernelModel M = analyze(R"(
__global__ void sgemm_batched(const float *A, const float *B, float *C, int n, int batch) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int b = blockIdx.z;
  if (row < n && col < n && b < batch) {
    const float *a = A + (size_t)b * n * n;
    const float *bm = B + (size_t)b * n * n;
    float acc = 0.0f;
    for (int p = 0; p < n; ++p)
      acc += a[(size_t)row * n + p] * bm[(size_t)p * n + col];
    C[(size_t)b * n * n + (size_t)row * n + col] = acc;
  }
})",
                          "sgemm_batched");
  const Pattern *P = pattern(M, PatternKind::MatrixProduct);
  ASSERT_NE(P, nullptr);
  EXPECT_EQ(P->role("i"), "row");
  EXPECT_EQ(P->role("j"), "col");
  EXPECT_EQ(P->role("k"), "p");
  EXPECT_FALSE(P->role("batch").empty());
  EXPECT_EQ(P->LoopOrder, "ijk");
  EXPECT_GE(P->Reduction, 0);
  // Without the batch in C, threads of different batches would write the
  // same element: not a batched product.
  KernelModel N = analyze(R"(
__global__ void racy(const float *A, const float *B, float *C, int n) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < n && col < n) {
    float acc = 0.0f;
    for (int p = 0; p < n; ++p)
      acc += A[blockIdx.z * n * n + row * n + p] * B[blockIdx.z * n * n + p * n + col];
    C[row * n + col] = acc;
  }
})",
                          "racy");
  EXPECT_EQ(pattern(N, PatternKind::MatrixProduct), nullptr);
}

TEST(Pattern, NaiveGemmIKJAccumulatesInMemory) {
  KernelModel M = analyze(R"(
__global__ void gemm_ikj(const float *A, const float *B, float *C, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  for (int k = 0; k < n; ++k) {
    float a = A[i * n + k];
    for (int j = 0; j < n; ++j)
      C[i * n + j] += a * B[k * n + j];
  }
})",
                          "gemm_ikj");
  const Pattern *P = pattern(M, PatternKind::MatrixProduct);
  ASSERT_NE(P, nullptr);
  EXPECT_EQ(P->LoopOrder, "ikj");
  EXPECT_EQ(P->Reduction, -1);
  EXPECT_EQ(P->role("j"), "j");
  EXPECT_EQ(pattern(M, PatternKind::RowLoop), nullptr);
}

TEST(Pattern, GemmWithTransposedOperands) {
  KernelModel Bt = analyze(R"(
__global__ void gemm_bt(const float *A, const float *Bt, float *C, int n) {
  int i = blockIdx.y * blockDim.y + threadIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n || j >= n) return;
  float acc = 0.f;
  for (int k = 0; k < n; k++) {
    float a = A[i * n + k];
    float b = Bt[j * n + k];
    acc = fmaf(a, b, acc);
  }
  C[i * n + j] = acc;
})",
                           "gemm_bt");
  const Pattern *P = pattern(Bt, PatternKind::MatrixProduct);
  ASSERT_NE(P, nullptr);
  EXPECT_FALSE(P->TransposedA);
  EXPECT_TRUE(P->TransposedB);
  EXPECT_EQ(P->role("B"), "Bt");

  // A read as A[k * lda + i], C column-major.
  KernelModel At = analyze(R"(
__global__ void gemm_at(const float *A, const float *B, float *C, int m, int n, int k,
                        int lda) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < m && j < n) {
    float sum = 0;
    for (int p = 0; p < k; ++p)
      sum += A[p * lda + i] * B[p * n + j];
    C[j * m + i] = sum;
  }
})",
                           "gemm_at");
  const Pattern *Q = pattern(At, PatternKind::MatrixProduct);
  ASSERT_NE(Q, nullptr);
  EXPECT_TRUE(Q->TransposedA);
  EXPECT_FALSE(Q->TransposedB);
  EXPECT_EQ(Q->role("k"), "p");
  EXPECT_EQ(Q->Summary, "naive matrix product C[j][i] = sum over k of A[k][i] * B[k][j] (A read "
                        "transposed)");
}

TEST(Pattern, GemmOverAOneDimensionalThreadIndex) {
  KernelModel M = analyze(R"(
__global__ void mm1d(const float *a, const float *b, float *c, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int r = t / n, q = t % n;
  if (r < n) {
    float s = 0;
    for (int k = 0; k < n; ++k) s += a[r * n + k] * b[k * n + q];
    c[r * n + q] = s;
  }
})",
                          "mm1d");
  const Pattern *P = pattern(M, PatternKind::MatrixProduct);
  ASSERT_NE(P, nullptr);
  EXPECT_EQ(P->role("A"), "a");
  EXPECT_EQ(P->role("B"), "b");
  EXPECT_EQ(access(M, "c[r * n + q]").Warp.Class, AccessClass::Coalesced);
}

TEST(Pattern, NaiveAndTiledTransposes) {
  KernelModel M = analyze(R"(
__global__ void transpose_naive(const float *in, float *out, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols)
    out[c * rows + r] = in[r * cols + c];
})",
                          "transpose_naive");
  const Pattern *P = pattern(M, PatternKind::Transpose);
  ASSERT_NE(P, nullptr);
  EXPECT_EQ(P->Summary, "naive transpose: out[c * rows + r] = in[r * cols + c]");
  EXPECT_EQ(P->role("swapped"), "threadIdx.y");
  EXPECT_EQ(stride(M, access(M, "out[c * rows + r]")), "rows");
  const Access *Pair = M.pairOf(access(M, "out[c * rows + r]"));
  ASSERT_NE(Pair, nullptr);
  EXPECT_EQ(Pair->Text, "in[r * cols + c]");

  KernelModel T = analyze(R"(
__global__ void tiled(const float *in, float *out, int w, int h) {
  __shared__ float tile[32][33];
  int x = blockIdx.x * 32 + threadIdx.x;
  int y = blockIdx.y * 32 + threadIdx.y;
  if (x < w && y < h) tile[threadIdx.y][threadIdx.x] = in[y * w + x];
  __syncthreads();
  x = blockIdx.y * 32 + threadIdx.x;
  y = blockIdx.x * 32 + threadIdx.y;
  if (x < h && y < w) out[y * h + x] = tile[threadIdx.x][threadIdx.y];
})",
                          "tiled");
  const Pattern *Q = pattern(T, PatternKind::Transpose);
  ASSERT_NE(Q, nullptr);
  EXPECT_NE(Q->Summary.find("through the shared-memory tile 'tile'"), std::string::npos);
  // Both global accesses are coalesced: the tile does the transposing.
  EXPECT_EQ(access(T, "in[y * w + x]").Warp.Class, AccessClass::Coalesced);
  EXPECT_EQ(*access(T, "out[y * h + x]").Warp.constantStride(), 1);
}

TEST(Pattern, FlatIndexTransposes) {
  // A 1D grid: the flat index t split into the row t / cols and the column
  // t % cols; the load runs along the column, the store along the row.
  KernelModel M = analyze(R"(
__global__ void t1d(const float *in, float *out, int rows, int cols) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < rows * cols) {
    int r = t / cols;
    int c = t % cols;
    out[c * rows + r] = in[t];
  }
})",
                          "t1d");
  const Pattern *P = pattern(M, PatternKind::Transpose);
  ASSERT_NE(P, nullptr);
  EXPECT_EQ(P->Summary, "naive transpose: out[c * rows + r] = in[t]");
  const Access &W = access(M, "out[c * rows + r]"), &R = access(M, "in[t]");
  EXPECT_EQ(W.Warp.Class, AccessClass::Transposed);
  EXPECT_EQ(R.Warp.Class, AccessClass::Transposed);
  ASSERT_TRUE(R.Warp.FlatSplit.has_value());
  EXPECT_EQ(R.Warp.FlatSplit, W.Warp.FlatSplit);
  EXPECT_EQ(M.atoms()[*R.Warp.FlatSplit].Kind, AtomKind::Div);
  EXPECT_EQ(stride(M, W), "rows");
  EXPECT_NE(R.Warp.Reason.find("load runs along the column"), std::string::npos) << R.Warp.Reason;

  // The store-coalesced way round, size_t, the load through the split; and
  // a grid-stride loop over t.
  for (const char *Code : {R"(
__global__ void k(const double *in, double *out, int rows, int cols) {
  size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (t >= (size_t)rows * cols) return;
  size_t i = t / rows, j = t % rows;
  out[t] = in[j * cols + i];
})",
                           R"(
__global__ void k(const float *in, float *out, int rows, int cols) {
  for (int t = blockIdx.x * blockDim.x + threadIdx.x; t < rows * cols; t += blockDim.x * gridDim.x)
    out[(t % cols) * rows + t / cols] = in[(t / cols) * cols + t % cols];
})"}) {
    KernelModel K = analyze(Code, "k");
    const Pattern *Q = pattern(K, PatternKind::Transpose);
    ASSERT_NE(Q, nullptr) << Code;
    EXPECT_TRUE(K.Accesses[Q->Accesses[0]].Warp.FlatSplit.has_value()) << Code;
  }

  // Not transposes: the remainder by another divisor; one buffer read and
  // written; a copy.
  for (const char *Code : {R"(
__global__ void k(const float *in, float *out, int rows, int cols) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < rows * cols) out[(t % rows) * rows + t / cols] = in[t];
})",
                           R"(
__global__ void k(float *a, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < n * n) a[(t % n) * n + t / n] = a[t];
})",
                           R"(
__global__ void k(const float *in, float *out, int rows, int cols) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < rows * cols) out[(t / cols) * cols + t % cols] = in[t];
})"})
    EXPECT_EQ(pattern(analyze(Code, "k"), PatternKind::Transpose), nullptr) << Code;
}

TEST(Pattern, PerThreadChunkOfEight) {
  KernelModel M = analyze(R"(
__global__ void chunk8(const float *in, float *out, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < 8; ++k) {
    int idx = t * 8 + k;
    if (idx < n) out[idx] = 2.f * in[idx];
  }
})",
                          "chunk8");
  const Pattern *P = pattern(M, PatternKind::Chunk);
  ASSERT_NE(P, nullptr);
  EXPECT_EQ(P->ChunkSize, "8");
  EXPECT_EQ(P->role("k"), "k");
  EXPECT_EQ(access(M, "in[idx]").Warp.constantStride(), 8);
  EXPECT_EQ(pattern(M, PatternKind::Elementwise), nullptr);
}

TEST(Pattern, ChunkWithATemplateSizeAndAnExtraBound) {
  KernelModel M = analyze(R"(
template <typename T, int ITEMS>
__global__ void axpy(int n, T a, const T *__restrict__ x, T *y) {
  int i = (blockIdx.x * blockDim.x + threadIdx.x) * ITEMS;
  for (int k = 0; k < ITEMS && i + k < n; ++k)
    y[i + k] += a * x[i + k];
})",
                          "axpy");
  const Pattern *P = pattern(M, PatternKind::Chunk);
  ASSERT_NE(P, nullptr);
  EXPECT_EQ(P->ChunkSize, "ITEMS");
  ASSERT_EQ(P->Details.size(), 1u);
  EXPECT_EQ(P->Details[0], "each element is also guarded by i + k < n");
  EXPECT_EQ(stride(M, access(M, "x[i + k]")), "ITEMS");
}

TEST(Pattern, ChunkAsALoopOverTheThreadsOwnRange) {
  // `j` runs from t * 8 to t * 8 + 8: the loop counts the chunk's
  // elements, and the chunk size is its trip count.
  KernelModel M = analyze(R"(
__global__ void own(const float *x, float *y, int n) {
  int t = threadIdx.x + blockDim.x * blockIdx.x;
  for (int j = t * 8; j < t * 8 + 8; ++j)
    if (j < n) y[j] = 2.0f * x[j];
})",
                          "own");
  const Pattern *P = pattern(M, PatternKind::Chunk);
  ASSERT_NE(P, nullptr);
  EXPECT_EQ(P->ChunkSize, "8");
  EXPECT_EQ(P->ChunkElems.constantValue(), 8);
  EXPECT_FALSE(P->ChunkLimit);
  EXPECT_EQ(P->role("k"), "j");
  EXPECT_NE(P->Summary.find("('j' runs over the thread's own chunk)"), std::string::npos);
  EXPECT_EQ(access(M, "x[j]").Warp.constantStride(), 8);
}

TEST(Pattern, ChunkBoundedByMinOfTheSizeAndTheChunksEnd) {
  KernelModel M = analyze(R"(
__global__ void clamped(const double *a, double *b, int n) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  int start = tid * 4;
  int end = min(n, start + 4);
  for (int i = start; i < end; i++)
    b[i] = a[i] + 1.0;
})",
                          "clamped");
  const Pattern *P = pattern(M, PatternKind::Chunk);
  ASSERT_NE(P, nullptr);
  EXPECT_EQ(P->ChunkSize, "4");
  ASSERT_TRUE(P->ChunkLimit);
  EXPECT_EQ(M.render(*P->ChunkLimit), "n");
  ASSERT_EQ(P->Details.size(), 1u);
  EXPECT_EQ(P->Details[0], "the loop also stops at n (min bound)");
  // A run-time trip per thread is no chunk: the end is not start + K.
  KernelModel M2 = analyze(R"(
__global__ void ragged(const float *a, float *b, const int *len, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = t * 4; i < t * 4 + len[t]; ++i)
    b[i] = a[i];
})",
                           "ragged");
  EXPECT_EQ(pattern(M2, PatternKind::Chunk), nullptr);
}

TEST(Pattern, SoftmaxLikeThreePasses) {
  KernelModel M = analyze(R"(
__global__ void softmax_rows(const float *in, float *out, int rows, int cols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  const float *x = in + row * cols;
  float mx = x[0];
  for (int j = 1; j < cols; ++j) mx = x[j] > mx ? x[j] : mx;
  float s = 0.f;
  for (int j = 0; j < cols; ++j) s += expf(x[j] - mx);
  for (int j = 0; j < cols; ++j) out[row * cols + j] = expf(x[j] - mx) / s;
})",
                          "softmax_rows");
  const Pattern *P = pattern(M, PatternKind::MultiPassRow);
  ASSERT_NE(P, nullptr);
  EXPECT_EQ(P->Passes, 3u);
  ASSERT_EQ(P->Details.size(), 3u);
  EXPECT_EQ(P->Details[0], "pass 1 (line 7): reduces into 'mx' (max)");
  EXPECT_EQ(P->Details[1], "pass 2 (line 9): reduces into 's' (+)");
  EXPECT_EQ(P->Details[2], "pass 3 (line 10): reads in, writes out");
}

TEST(Pattern, BlockTreeReductionAndScanInSharedMemory) {
  KernelModel M = analyze(R"(
__global__ void block_sum(const float *in, float *out, int n) {
  __shared__ float sdata[256];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = i < n ? in[i] : 0.f;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
})",
                          "block_sum");
  const Pattern *P = pattern(M, PatternKind::TreeReduction);
  ASSERT_NE(P, nullptr);
  EXPECT_EQ(P->role("buffer"), "sdata");
  EXPECT_EQ(P->role("stride"), "s");

  KernelModel S = analyze(R"(
__global__ void scan(float *data) {
  __shared__ float buf[512];
  int t = threadIdx.x;
  buf[t] = data[t];
  __syncthreads();
  for (int off = 1; off < 512; off *= 2) {
    float v = t >= off ? buf[t - off] : 0.f;
    __syncthreads();
    buf[t] += v;
    __syncthreads();
  }
  data[t] = buf[t];
})",
                          "scan");
  const Pattern *Q = pattern(S, PatternKind::Scan);
  ASSERT_NE(Q, nullptr);
  EXPECT_EQ(Q->role("stride"), "off");
  EXPECT_EQ(S.Loops[0].TripCount, 9);
}

TEST(Pattern, RunningValueStoredAsItGoesIsASerialScan) {
  struct Case {
    const char *Name, *Code, *Acc, *Out, *Op, *Order;
  } Cases[] = {
      {"inclusive", R"(__global__ void k(const float *x, float *y, int n) {
  float s = 0;
  for (int i = 0; i < n; ++i) { s += x[i]; y[i] = s; }
})", "s", "y", "add", "inclusive"},
      {"exclusive, store first", R"(__global__ void k(const int *x, int *y, size_t n) {
  int r = 0;
  for (size_t i = 0; i < n; i++) { y[i] = r; r = r + x[i]; }
})", "r", "y", "add", "exclusive"},
      {"running max through a cast", R"(__global__ void k(const unsigned *x, float *y, int n) {
  unsigned m = 0;
  for (int i = 0; i < n; ++i) { m = max(m, x[i]); y[i] = (float)m; }
})", "m", "y", "max", "inclusive"},
      {"running product", R"(__global__ void k(const double *x, double *y, int n) {
  double p = 1;
  for (int i = 0; i < n; ++i) { p *= x[i]; y[i] = p; }
})", "p", "y", "mul", "inclusive"},
  };
  for (const Case &C : Cases) {
    SCOPED_TRACE(C.Name);
    KernelModel M = analyze(C.Code, "k");
    const Pattern *P = pattern(M, PatternKind::Scan);
    ASSERT_NE(P, nullptr);
    EXPECT_EQ(P->role("acc"), C.Acc);
    EXPECT_EQ(P->role("out"), C.Out);
    EXPECT_EQ(P->role("op"), C.Op);
    EXPECT_EQ(P->role("order"), C.Order);
    // A scan is not also reported as a reduction of the running value.
    EXPECT_EQ(pattern(M, PatternKind::Reduction), nullptr);
  }
  // Stored once after the loop: a reduction, not a scan.
  KernelModel R = analyze(R"(__global__ void k(const float *x, float *y, int n) {
  float s = 0;
  for (int i = 0; i < n; ++i) s += x[i];
  y[0] = s;
})",
                          "k");
  EXPECT_EQ(pattern(R, PatternKind::Scan), nullptr);
  EXPECT_NE(pattern(R, PatternKind::Reduction), nullptr);
  // Updated both before and after the store: neither order.
  KernelModel B = analyze(R"(__global__ void k(const float *x, float *y, int n) {
  float s = 0;
  for (int i = 0; i < n; ++i) { s += x[i]; y[i] = s; s += 1.0f; }
})",
                          "k");
  EXPECT_EQ(pattern(B, PatternKind::Scan), nullptr);
}

TEST(Pattern, PerThreadPrefixIsATriangularScan) {
  struct Case {
    const char *Name, *Code, *In, *Out, *Order;
  } Cases[] = {
      {"j <= i", R"(__global__ void k(const float *a, float *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { float s = 0.0f; for (int j = 0; j <= i; ++j) s += a[j]; b[i] = s; }
})", "a", "b", "inclusive"},
      {"k < t + 1, unsigned, early return", R"(__global__ void k(const unsigned *a, unsigned *b, unsigned n) {
  unsigned t = threadIdx.x + blockIdx.x * blockDim.x;
  if (t >= n) return;
  unsigned acc = 0u;
  for (unsigned q = 0; q < t + 1; q++) acc += a[q];
  b[t] = acc;
})", "a", "b", "inclusive"},
      {"j < i", R"(__global__ void k(const int *a, int *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int s = 0;
  for (int j = 0; j < i; j++) s += a[j];
  b[i] = s;
})", "a", "b", "exclusive"},
  };
  for (const Case &C : Cases) {
    SCOPED_TRACE(C.Name);
    KernelModel M = analyze(C.Code, "k");
    const Pattern *P = pattern(M, PatternKind::Scan);
    ASSERT_NE(P, nullptr);
    EXPECT_EQ(P->role("form"), "triangle");
    EXPECT_EQ(P->role("in"), C.In);
    EXPECT_EQ(P->role("out"), C.Out);
    EXPECT_EQ(P->role("op"), "add");
    EXPECT_EQ(P->role("order"), C.Order);
  }
  // Not prefixes: a second buffer in the loop, a start of 1, a bias, the
  // store one element on, a bound of 2 * i.
  for (const char *Code : {
           R"(__global__ void k(const float *a, const float *w, float *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { float s = 0.0f; for (int j = 0; j <= i; ++j) s += a[j] * w[j]; b[i] = s; }
})",
           R"(__global__ void k(const float *a, float *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { float s = 0.0f; for (int j = 1; j <= i; ++j) s += a[j]; b[i] = s; }
})",
           R"(__global__ void k(const float *a, float *b, int n, float c) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { float s = c; for (int j = 0; j <= i; ++j) s += a[j]; b[i] = s; }
})",
           R"(__global__ void k(const float *a, float *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i + 1 < n) { float s = 0.0f; for (int j = 0; j <= i; ++j) s += a[j]; b[i + 1] = s; }
})",
           R"(__global__ void k(const float *a, float *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { float s = 0.0f; for (int j = 0; j <= 2 * i; ++j) s += a[j]; b[i] = s; }
})"}) {
    SCOPED_TRACE(Code);
    KernelModel M = analyze(Code, "k");
    EXPECT_EQ(pattern(M, PatternKind::Scan), nullptr);
  }
}

TEST(Pattern, TiledGemmTemplateIsAProductOverSharedTiles) {
  KernelModel M = analyze(R"(
template <int BLOCK_SIZE>
__global__ void matrixMul(float *C, float *A, float *B, int wA, int wB) {
  int bx = blockIdx.x, by = blockIdx.y, tx = threadIdx.x, ty = threadIdx.y;
  int aBegin = wA * BLOCK_SIZE * by, aEnd = aBegin + wA - 1;
  float Csub = 0;
  for (int a = aBegin, b = BLOCK_SIZE * bx; a <= aEnd; a += BLOCK_SIZE, b += BLOCK_SIZE * wB) {
    __shared__ float As[BLOCK_SIZE][BLOCK_SIZE];
    __shared__ float Bs[BLOCK_SIZE][BLOCK_SIZE];
    As[ty][tx] = A[a + wA * ty + tx];
    Bs[ty][tx] = B[b + wB * ty + tx];
    __syncthreads();
    for (int k = 0; k < BLOCK_SIZE; ++k) Csub += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  C[wB * BLOCK_SIZE * by + BLOCK_SIZE * bx + wB * ty + tx] = Csub;
})",
                          "matrixMul");
  // The dependent-size tiles are arrays, not pointers loaded from memory.
  const Access &As = access(M, "As[ty][k]");
  EXPECT_EQ(As.Space, MemorySpace::Shared);
  EXPECT_EQ(As.ElementType, "float");
  EXPECT_EQ(As.IndexText, "threadIdx.y * BLOCK_SIZE + k");
  EXPECT_EQ(As.Warp.Class, AccessClass::Broadcast);
  EXPECT_EQ(access(M, "Bs[k][tx]").Warp.Class, AccessClass::Coalesced);
  EXPECT_EQ(access(M, "B[b + wB * ty + tx]").Warp.Class, AccessClass::Coalesced);
  const Pattern *P = pattern(M, PatternKind::MatrixProduct);
  ASSERT_NE(P, nullptr);
  EXPECT_TRUE(P->Tiled);
  EXPECT_EQ(P->role("A"), "As");
  EXPECT_EQ(P->Summary.rfind("matrix product over shared-memory tiles", 0), 0u) << P->Summary;
}

TEST(Pattern, AConvolutionIsNotAMatrixVectorProduct) {
  KernelModel M = analyze(R"(
__global__ void conv_rows(float *dst, const float *src, const float *taps, int w, int pitch) {
  const int RADIUS = 8;
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  float sum = 0;
  for (int j = -RADIUS; j <= RADIUS; j++)
    sum += taps[RADIUS - j] * src[y * pitch + x + j];
  dst[y * pitch + x] = sum;
})",
                          "conv_rows");
  EXPECT_EQ(pattern(M, PatternKind::MatrixVector), nullptr);
  const Pattern *S = pattern(M, PatternKind::Stencil);
  ASSERT_NE(S, nullptr);
  EXPECT_EQ(M.Footprints[S->Footprint].Radius, 8);
  EXPECT_EQ(M.Footprints[S->Footprint].Border, BorderMode::None);
  EXPECT_EQ(access(M, "taps[RADIUS - j]").Warp.Class, AccessClass::Broadcast);
}

TEST(Pattern, InterleavedTreeReductionWithDoublingStrides) {
  KernelModel M = analyze(R"(
__global__ void reduce0(int *g_idata, int *g_odata, unsigned int n) {
  extern __shared__ int sdata[];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = (i < n) ? g_idata[i] : 0;
  __syncthreads();
  for (unsigned int s = 1; s < blockDim.x; s *= 2) {
    if ((tid % (2 * s)) == 0) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) g_odata[blockIdx.x] = sdata[0];
})",
                          "reduce0");
  const Pattern *P = pattern(M, PatternKind::TreeReduction);
  ASSERT_NE(P, nullptr);
  EXPECT_NE(P->Summary.find("doubling strides s"), std::string::npos) << P->Summary;
  EXPECT_EQ(M.Loops[0].Factor, 2);
  EXPECT_EQ(access(M, "g_odata[blockIdx.x]").G.render(), "tid == 0");
}

} // namespace
