//===- PatternKeyTest.cpp - Pattern keys from the analysis model ----------===//
///
/// Each case is one computation written twice, with other kernel and
/// variable names and another spelling of the same indices: the two must
/// share a key, and the cases must not share keys with each other.
///
//===----------------------------------------------------------------------===//
#include "AnalysisTestUtil.h"
#include "forge/Experience/Experience.h"
#include "forge/Support/FileUtil.h"
#include "llvm/Support/Regex.h"
#include <set>

using namespace forge;
using namespace forge::analysis;
using namespace forge::analysis::test;
using experience::patternFamily;
using experience::patternKey;

namespace {

struct Case {
  const char *Name;
  const char *Code, *Kernel;
  const char *Renamed, *RenamedKernel;
  const char *Family;
};

const Case Cases[] = {
    {"atomic-dot",
     R"(__global__ void dot_atomic(const float *a, const float *b, float *result, unsigned n) {
  unsigned i = blockDim.x * blockIdx.x + threadIdx.x;
  if (i < n) {
    float p = a[i] * b[i];
    atomicAdd(result, p);
  }
})",
     "dot_atomic",
     R"(__global__ void inner(const float *x, const float *y, float *acc, int len) {
  int t = threadIdx.x + blockIdx.x * blockDim.x;
  if (len > t)
    atomicAdd(&acc[0], x[t] * y[t]);
})",
     "inner", "reduction"},
    {"grid-stride-atomic",
     R"(__global__ void sum_squares(const float *v, size_t n, float *total) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    float x = v[i];
    atomicAdd(total, x * x);
  }
})",
     "sum_squares",
     R"(__global__ void energy(const float *signal, long count, float *out) {
  for (long k = threadIdx.x + blockDim.x * (long)blockIdx.x; k < count;
       k += blockDim.x * gridDim.x)
    atomicAdd(out, signal[k] * signal[k]);
})",
     "energy", "reduction"},
    {"matrix-vector",
     R"(__global__ void gemv_rowthread(int m, int n, const float *A, const float *x, float *y) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < m) {
    const float *a = A + (size_t)row * n;
    float sum = 0.0f;
    for (int j = 0; j < n; j++)
      sum += a[j] * x[j];
    y[row] = sum;
  }
})",
     "gemv_rowthread",
     R"(__global__ void mv(const float *mat, const float *vec, float *res, int rows, int cols) {
  int r = threadIdx.x + blockIdx.x * blockDim.x;
  if (r >= rows)
    return;
  float acc = 0;
  for (int c = 0; c < cols; ++c)
    acc += mat[r * cols + c] * vec[c];
  res[r] = acc;
})",
     "mv", "matrix-vector"},
    {"stencil",
     R"(__global__ void box_blur3(const float *src, float *dst, int width, int height) {
  int px = blockIdx.x * blockDim.x + threadIdx.x;
  int py = blockIdx.y * blockDim.y + threadIdx.y;
  if (px < width && py < height) {
    float total = 0.0f;
    for (int oy = -1; oy <= 1; ++oy) {
      int sy = min(max(py + oy, 0), height - 1);
      for (int ox = -1; ox <= 1; ++ox) {
        int sx = min(max(px + ox, 0), width - 1);
        total += src[sy * width + sx];
      }
    }
    dst[py * width + px] = total * (1.0f / 9.0f);
  }
})",
     "box_blur3",
     R"(__global__ void smooth(const float *img, float *out, int w, int h) {
  int x = threadIdx.x + blockDim.x * blockIdx.x;
  int y = threadIdx.y + blockDim.y * blockIdx.y;
  if (y < h && x < w) {
    float s = 0.0f;
    for (int dy = -1; dy < 2; dy++) {
      int yy = min(max(y + dy, 0), h - 1);
      for (int dx = -1; dx < 2; dx++) {
        int xx = min(max(x + dx, 0), w - 1);
        s += img[yy * w + xx];
      }
    }
    out[y * w + x] = s / 9.0f;
  }
})",
     "smooth", "stencil"},
    {"elementwise",
     R"(__global__ void saxpy(int n, float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
})",
     "saxpy",
     R"(__global__ void update(float *dst, const float *src, float alpha, unsigned len) {
  unsigned idx = threadIdx.x + blockIdx.x * blockDim.x;
  if (len > idx) {
    float v = src[idx];
    dst[idx] = dst[idx] + alpha * v;
  }
})",
     "update", "elementwise"},
    {"transpose",
     R"(__global__ void transpose_naive(float *out, const float *in, int rows, int cols) {
  int c = threadIdx.x + blockIdx.x * blockDim.x;
  int r = threadIdx.y + blockIdx.y * blockDim.y;
  if (r >= rows || c >= cols)
    return;
  out[(size_t)c * rows + r] = in[(size_t)r * cols + c];
})",
     "transpose_naive",
     R"(__global__ void flip(const float *a, float *b, int h, int w) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h)
    b[x * h + y] = a[y * w + x];
})",
     "flip", "transpose"},
    {"tree-reduction",
     R"(__global__ void block_sums(const float *g_idata, float *g_odata, unsigned int n) {
  extern __shared__ float sdata[];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = (i < n) ? g_idata[i] : 0;
  __syncthreads();
  for (unsigned int s = 1; s < blockDim.x; s *= 2) {
    if (tid % (2 * s) == 0)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    g_odata[blockIdx.x] = sdata[0];
})",
     "block_sums",
     R"(__global__ void partial(const float *in, float *partials, unsigned int count) {
  extern __shared__ float buf[];
  unsigned int lane = threadIdx.x;
  unsigned int g = threadIdx.x + blockDim.x * blockIdx.x;
  buf[lane] = g < count ? in[g] : 0.0f;
  __syncthreads();
  for (unsigned int step = 1; step < blockDim.x; step <<= 1) {
    if (lane % (2 * step) == 0)
      buf[lane] = buf[lane] + buf[lane + step];
    __syncthreads();
  }
  if (lane == 0)
    partials[blockIdx.x] = buf[0];
})",
     "partial", "tree-reduction"},
    {"histogram",
     R"(__global__ void histogram256(const unsigned char *data, unsigned int *bins, long long count) {
  long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < count)
    atomicAdd(&bins[data[idx]], 1u);
})",
     "histogram256",
     R"(__global__ void tally(unsigned int *counts, const unsigned char *bytes, int n) {
  int k = threadIdx.x + blockDim.x * blockIdx.x;
  if (k < n) {
    unsigned char b = bytes[k];
    atomicAdd(counts + b, 1u);
  }
})",
     "tally", "histogram"},
    {"matrix-product",
     R"(__global__ void sgemm(const float *A, const float *B, float *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k)
      acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = acc;
  }
})",
     "sgemm",
     R"(__global__ void matmul(int n, int m, int p, const float *left, const float *right, float *out) {
  int j = threadIdx.x + blockDim.x * blockIdx.x;
  int i = threadIdx.y + blockDim.y * blockIdx.y;
  if (i >= n || j >= m)
    return;
  float s = 0;
  for (int t = 0; t < p; t++)
    s += left[i * p + t] * right[t * m + j];
  out[i * m + j] = s;
})",
     "matmul", "matrix-product"},
    {"row-max",
     R"(__global__ void row_max(const float *x, float *out, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float m = x[(size_t)r * cols];
    for (int c = 1; c < cols; ++c)
      m = fmaxf(m, x[(size_t)r * cols + c]);
    out[r] = m;
  }
})",
     "row_max",
     R"(__global__ void peaks(const float *data, float *best, int n, int width) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i >= n)
    return;
  const float *row = data + (size_t)i * width;
  float top = row[0];
  for (int j = 1; j < width; j++)
    top = fmaxf(top, row[j]);
  best[i] = top;
})",
     "peaks", "row-loop"},
};

class PatternKeyCase : public ::testing::TestWithParam<Case> {};

TEST_P(PatternKeyCase, RenamingKeepsTheKey) {
  const Case &C = GetParam();
  KernelModel A = analyze(C.Code, C.Kernel);
  KernelModel B = analyze(C.Renamed, C.RenamedKernel);
  EXPECT_EQ(patternKey(A), patternKey(B));
  EXPECT_EQ(patternFamily(A), C.Family);
  EXPECT_EQ(patternFamily(B), C.Family);
  // Nothing of the names gets into the key.
  for (const KernelModel *M : {&A, &B})
    for (const Access &Acc : M->Accesses)
      EXPECT_EQ(patternKey(*M).find(Acc.Buffer + "["), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Kernels, PatternKeyCase, ::testing::ValuesIn(Cases), [](const auto &Info) {
  std::string N = Info.param.Name;
  for (char &Ch : N)
    if (Ch == '-')
      Ch = '_';
  return N;
});

TEST(PatternKey, DifferentPatternsDiffer) {
  std::map<std::string, std::string> Seen;
  for (const Case &C : Cases) {
    std::string K = patternKey(analyze(C.Code, C.Kernel));
    auto [It, New] = Seen.insert({K, C.Name});
    EXPECT_TRUE(New) << C.Name << " and " << It->second << " share the key " << K;
  }
  EXPECT_EQ(Seen.size(), std::size(Cases));
}

TEST(PatternKey, TheFormat) {
  EXPECT_EQ(patternKey(analyze(Cases[0].Code, Cases[0].Kernel)),
            "reduction(atomic,add,grid)|access:broadcast,coalesced|loops:none");
  EXPECT_EQ(patternKey(analyze(Cases[2].Code, Cases[2].Kernel)),
            "matrix-vector+reduction(loop,add)|access:broadcast,coalesced,strided|loops:d1:"
            "constant");
  EXPECT_EQ(patternKey(analyze(Cases[6].Code, Cases[6].Kernel)),
            "tree-reduction|access:broadcast,coalesced|shared|loops:d1:geometric");
  EXPECT_EQ(patternKey(analyze(Cases[3].Code, Cases[3].Kernel)),
            "reduction(loop,add)+stencil(2d,r1)|access:coalesced|loops:d2:constant");
}

TEST(PatternKey, AnotherOperationOrScopeIsAnotherKey) {
  // The same shape with max instead of add, and per block instead of per grid.
  std::string Add = patternKey(analyze(Cases[0].Code, Cases[0].Kernel));
  std::string Max = patternKey(analyze(R"(
__global__ void peak(const int *a, int *result, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicMax(result, a[i]);
})",
                                       "peak"));
  std::string PerBlock = patternKey(analyze(R"(
__global__ void sums(const float *a, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&out[blockIdx.x], a[i]);
})",
                                            "sums"));
  EXPECT_EQ(Max, "reduction(atomic,max,grid)|access:broadcast,coalesced|loops:none");
  EXPECT_NE(Add, PerBlock);
  EXPECT_NE(PerBlock.find("reduction(atomic,add,block)"), std::string::npos) << PerBlock;
}

TEST(PatternKey, TunedSizesDoNotChangeTheKey) {
  // A chunk of 8 and one of 4: the tuner's choice, not another pattern.
  auto Chunk = [](int Items) {
    return "#define ITEMS " + std::to_string(Items) + R"(
__global__ void affine(const float *in, float *out, float a, float b, int n) {
  int first = (blockIdx.x * blockDim.x + threadIdx.x) * ITEMS;
  for (int e = first; e < first + ITEMS && e < n; ++e)
    out[e] = a * in[e] + b;
})";
  };
  KernelModel Eight = analyze(Chunk(8), "affine"), Four = analyze(Chunk(4), "affine");
  EXPECT_EQ(patternKey(Eight), patternKey(Four));
  EXPECT_EQ(patternFamily(Eight), "chunk");
}

TEST(PatternKey, NothingRecognised) {
  KernelModel M = analyze(R"(
__global__ void nothing() {})",
                          "nothing");
  EXPECT_EQ(patternKey(M), "none|access:none|loops:none");
  EXPECT_EQ(patternFamily(M), "none");
}

// Every naive kernel of the benchmark suite gets a key, the same one each
// time, and the kernels of different computations get different keys.
TEST(PatternKey, NaiveSuiteKernels) {
  const char *Files[] = {"argmax",  "blur",    "chunk8",
                         "colcopy", "dot",     "histogram",
                         "matvec",  "plane3d", "reduce_interleaved",
                         "softmax", "sumsq",   "transpose"};
  std::map<std::string, std::string> Seen;
  for (const char *F : Files) {
    std::string Path = std::string(FORGE_SOURCE_DIR "/utils/bench/naive/") + F + ".cu";
    auto Text = readFile(Path);
    ASSERT_TRUE(bool(Text)) << llvm::toString(Text.takeError());
    llvm::SmallVector<llvm::StringRef, 2> Name;
    ASSERT_TRUE(llvm::Regex("__global__ void ([A-Za-z0-9_]+)").match(*Text, &Name));
    std::string K = patternKey(analyze(*Text, Name[1]));
    EXPECT_EQ(K, patternKey(analyze(*Text, Name[1]))) << F;
    EXPECT_FALSE(llvm::StringRef(K).starts_with("none|")) << F << ": " << K;
    Seen.insert({K, F});
  }
  // colcopy and transpose are both transposes.
  EXPECT_EQ(Seen.size(), std::size(Files) - 1);
}

} // namespace
