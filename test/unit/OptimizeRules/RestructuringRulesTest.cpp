//===- RestructuringRulesTest.cpp - warp-shuffle-reduction, smem-stencil-tiling, register-tiling ===//
//
// Each rule on small kernels parsed against the mock CUDA headers: what it
// proposes (applied and compared piece by piece), and the reason it gives
// when a precondition fails. The lit tests (test/passes/<rule>/) cover the
// command line, real CUDA headers and nvcc.
//
//===----------------------------------------------------------------------===//
#include "ExpertRule.h"
#include "RuleHarness.h"
#include "forge/Agent/ExpertProposer.h"
#include "forge/Agent/EditBlocks.h"
#include "forge/Config.h"
#include "forge/Measure/IntExpr.h"
#include "gtest/gtest.h"

using namespace forge;
using namespace forge::passes;
using agent::ExpertProposer;
using agent::RuleSkip;

namespace {

using forge::testing::err;
using forge::testing::has;
using Result = forge::testing::RuleRun;

struct Case {
  std::string Code, Kernel;
  std::optional<std::array<int64_t, 3>> Block;
  std::map<std::string, std::string> Geometry;
};

Result run(llvm::StringRef Rule, const Case &C) {
  forge::testing::RuleRunOptions O;
  O.Block = C.Block;
  O.Geometry = C.Geometry;
  return forge::testing::runRule(Rule, C.Code, C.Kernel, O);
}

//===----------------------------------------------------------------------===//
// warp-shuffle-reduction
//===----------------------------------------------------------------------===//

const char *BlockSum = R"(__global__ void block_sum(const float *in, float *out, int n) {
  __shared__ float sdata[256];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    out[blockIdx.x] = sdata[0];
}
)";

TEST(WarpShuffleReduction, StopsTheTreeAtOneWarpAndFusesTheOutput) {
  Result R = run("warp-shuffle-reduction", {BlockSum, "block_sum", {{256, 1, 1}}, {}});
  ASSERT_EQ(R.Proposals.size(), 2u) << R.Skip;
  ASSERT_EQ(R.Applied.size(), 2u);
  const std::string &New = R.Applied[0];
  EXPECT_TRUE(has(New, "for (unsigned s = blockDim.x / 2; s > 32; s >>= 1) {")) << New;
  EXPECT_TRUE(has(New, "  if (tid < 32) {\n")) << New;
  EXPECT_TRUE(has(New, "float val = sdata[tid] + sdata[tid + 32];")) << New;
  EXPECT_TRUE(has(New, "for (int offset = 16; offset > 0; offset >>= 1)\n"
                       "      val += __shfl_down_sync(0xffffffff, val, offset);"))
      << New;
  // The output statement moved into the warp's block, reading the register.
  EXPECT_TRUE(has(New, "    if (tid == 0)\n      out[blockIdx.x] = val;\n  }\n}")) << New;
  EXPECT_FALSE(has(New, "sdata[0]")) << New;
  EXPECT_TRUE(has(R.Proposals[0].Rationale, "shared-memory steps 8 -> 3")) << R.Proposals[0].Rationale;
  EXPECT_TRUE(has(R.Proposals[0].Rationale, "bitwise identical"));

  // The warp-first variant: shuffles before anything is stored.
  const std::string &Second = R.Applied[1];
  EXPECT_TRUE(has(Second, "float val = i < n ? in[i] : 0.0f;")) << Second;
  EXPECT_TRUE(has(Second, "sdata[tid / 32] = val;")) << Second;
  EXPECT_TRUE(has(Second, "for (int offset = (blockDim.x) / 32 / 2; offset > 0;")) << Second;
  EXPECT_FALSE(has(Second, "s >>= 1")) << Second;
  EXPECT_TRUE(has(R.Proposals[1].Rationale, "re-associated"));
}

TEST(WarpShuffleReduction, KeepsSharedResultForLaterReaders) {
  std::string Code = R"(template <int BLOCK>
__global__ void bmax(const float *in, float *out) {
  __shared__ float sm[BLOCK];
  sm[threadIdx.x] = in[blockIdx.x * BLOCK + threadIdx.x];
  __syncthreads();
  for (int s = BLOCK / 2; s > 0; s /= 2) {
    if (threadIdx.x < s)
      sm[threadIdx.x] = fmaxf(sm[threadIdx.x], sm[threadIdx.x + s]);
    __syncthreads();
  }
  out[blockIdx.x * BLOCK + threadIdx.x] = in[blockIdx.x * BLOCK + threadIdx.x] - sm[0];
}
template __global__ void bmax<128>(const float *, float *);
)";
  Result R = run("warp-shuffle-reduction", {Code, "bmax", std::nullopt, {}});
  ASSERT_FALSE(R.Proposals.empty()) << R.Skip;
  const std::string &New = R.Applied[0];
  EXPECT_TRUE(has(New, "static_assert((BLOCK) >= 64")) << New;
  EXPECT_TRUE(has(New, "val = fmaxf(val, __shfl_down_sync(0xffffffff, val, offset));")) << New;
  // Every thread reads sm[0] afterwards: the first warp writes it back.
  EXPECT_TRUE(has(New, "    if (threadIdx.x == 0)\n      sm[0] = val;\n  }\n  __syncthreads();\n"))
      << New;
  EXPECT_TRUE(has(New, "- sm[0];")) << New;
}

TEST(WarpShuffleReduction, Preconditions) {
  auto Skip = [](std::string Code, std::optional<std::array<int64_t, 3>> Block) {
    Result R = run("warp-shuffle-reduction", {Code, "block_sum", Block, {}});
    EXPECT_TRUE(R.Proposals.empty());
    return R.Skip;
  };
  EXPECT_TRUE(has(Skip(BlockSum, {{32, 1, 1}}), "runs over 32 threads; the rule needs a power of "
                                                "two of at least 64"));
  EXPECT_TRUE(has(Skip(BlockSum, {{96, 1, 1}}), "96 threads"));
  EXPECT_TRUE(has(Skip(BlockSum, std::nullopt), "the block size is not known"));
  EXPECT_TRUE(has(Skip(BlockSum, {{16, 16, 1}}), "the block is 16x16x1"));
  std::string Minus = BlockSum;
  Minus.replace(Minus.find("+= sdata[tid + s]"), 2, "-=");
  EXPECT_TRUE(has(Skip(Minus, {{256, 1, 1}}), "operator '-' is not one of"));
  std::string Short = BlockSum;
  Short.replace(Short.find("__shared__ float"), 16, "__shared__ short");
  EXPECT_TRUE(has(Skip(Short, {{256, 1, 1}}), "has 2 bytes")) << Skip(Short, {{256, 1, 1}});
  std::string NoSync = BlockSum;
  NoSync.replace(NoSync.find("    __syncthreads();\n  }"), 21, "");
  EXPECT_TRUE(has(Skip(NoSync, {{256, 1, 1}}), "no shared-memory tree reduction"));
}

//===----------------------------------------------------------------------===//
// smem-stencil-tiling
//===----------------------------------------------------------------------===//

const char *Conv = R"(__global__ void conv(const float *in, const float *f, float *out, int h, int w) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    float acc = 0.0f;
    for (int i = -1; i <= 1; ++i)
      for (int j = -1; j <= 1; ++j) {
        int yy = y + i, xx = x + j;
        if (yy >= 0 && yy < h && xx >= 0 && xx < w)
          acc += f[(i + 1) * 3 + j + 1] * in[(size_t)yy * w + xx];
      }
    out[(size_t)y * w + x] = acc;
  }
}
)";

TEST(SmemStencilTiling, StagesTheTileAndRewritesTheRead) {
  Result R = run("smem-stencil-tiling", {Conv, "conv", {{32, 8, 1}}, {}});
  ASSERT_EQ(R.Proposals.size(), 1u) << R.Skip;
  const std::string &New = R.Applied[0];
  // Another block shape runs the original body.
  EXPECT_TRUE(has(New, "  if (blockDim.x != 32 || blockDim.y != 8 || blockDim.z != 1) {\n"
                       "    int x = blockIdx.x * blockDim.x + threadIdx.x;\n"))
      << New;
  EXPECT_TRUE(has(New, "in[(size_t)yy * w + xx];\n")) << New;
  EXPECT_TRUE(has(New, "__shared__ float in_tile[10][34];")) << New;
  // All loads first, then all stores: 340 elements, 2 per thread.
  EXPECT_TRUE(has(New, "    float in_v[2];\n#pragma unroll\n    for (int k = 0; k < 2; ++k) {\n"
                       "      int t = threadIdx.y * 32 + threadIdx.x + k * 256;\n"
                       "      long long e1 = 8 * (long long)blockIdx.y + t / 34 - 1;\n"
                       "      long long e0 = 32 * (long long)blockIdx.x + t % 34 - 1;\n"
                       "      in_v[k] = t < 340 && e1 >= 0 && e1 < (long long)h && e0 >= 0 && "
                       "e0 < (long long)w ? in[e1 * w + e0] : 0.0f;\n"))
      << New;
  EXPECT_TRUE(has(New, "      if (t < 340)\n        in_tile[t / 34][t % 34] = in_v[k];\n    }\n  }\n"
                       "  __syncthreads();\n"))
      << New;
  EXPECT_TRUE(has(New, "acc += f_c[(i + 1) * 3 + j + 1] * in_tile[threadIdx.y + i + 1][threadIdx.x + j + 1];"))
      << New;
  // The filter (a coefficient buffer: 9 block-uniform values) is loaded
  // once per thread into registers, and its loops unroll; the fallback
  // keeps the original reads; the output is not touched.
  EXPECT_TRUE(has(New, "  float f_c[9];\n#pragma unroll\n  for (int c = 0; c < 9; ++c)\n    f_c[c] = f[c];\n"))
      << New;
  EXPECT_TRUE(has(New, "acc += f[(i + 1) * 3 + j + 1] * in[(size_t)yy * w + xx];")) << New;
  EXPECT_TRUE(has(New, "#pragma unroll\n    for (int i = -1; i <= 1; ++i)")) << New;
  EXPECT_TRUE(has(New, "out[(size_t)y * w + x] = acc;"));
  EXPECT_TRUE(has(R.Proposals[0].Summary, "coefficients 'f' (9 values) in registers"))
      << R.Proposals[0].Summary;
  EXPECT_TRUE(has(R.Proposals[0].Rationale, "global loads per output 9 -> 1.33")) << R.Proposals[0].Rationale;
  // No spec geometry: no second proposal, and the rationale says why.
  EXPECT_TRUE(has(R.Proposals[0].Rationale, "the spec's grid.y is not known")) << R.Proposals[0].Rationale;
}

TEST(SmemStencilTiling, SeveralRowsPerThreadWithTheGridDivided) {
  Result R = run("smem-stencil-tiling",
                 {Conv, "conv", {{32, 8, 1}}, {{"grid.x", "ceil_div(w, 32)"}, {"grid.y", "ceil_div(h, 8)"}}});
  ASSERT_EQ(R.Proposals.size(), 2u) << R.Skip;
  const agent::Proposal &P = R.Proposals[1];
  ASSERT_TRUE(P.Spec.has_value());
  EXPECT_EQ(P.Spec->Geometry.at("grid.y"), "ceil_div(ceil_div(h, 8), 4)");
  const std::string &New = R.Applied[1];
  EXPECT_TRUE(has(New, "__shared__ float in_tile[34][34];")) << New;
  // The tiled rows step by the spec's 8, the fallback's by blockDim.y.
  EXPECT_TRUE(has(New, "int y = (blockIdx.y * 4) * blockDim.y + (threadIdx.y + ky * 8);")) << New;
  EXPECT_TRUE(has(New, "int y = (blockIdx.y * 4) * blockDim.y + (threadIdx.y + ky * blockDim.y);"))
      << New;
  EXPECT_TRUE(has(New, "in_tile[(threadIdx.y + ky * 8) + i + 1][threadIdx.x + j + 1]")) << New;
}

TEST(SmemStencilTiling, PadsRowsThatShareAWarp) {
  // 16 threads wide: a warp reads two rows of the tile, which a stride of
  // 48 (16 modulo 32) puts on different banks; the index math keeps 18.
  Result R = run("smem-stencil-tiling", {Conv, "conv", {{16, 16, 1}}, {}});
  ASSERT_EQ(R.Proposals.size(), 1u) << R.Skip;
  const std::string &New = R.Applied[0];
  EXPECT_TRUE(has(New, "__shared__ float in_tile[18][48];")) << New;
  EXPECT_TRUE(has(New, "in_tile[t / 18][t % 18] = in_v[k];")) << New;
  EXPECT_TRUE(has(New, "in_tile[threadIdx.y + i + 1][threadIdx.x + j + 1]")) << New;
  EXPECT_TRUE(has(R.Proposals[0].Rationale, "3456 bytes of shared memory")) << R.Proposals[0].Rationale;
}

TEST(SmemStencilTiling, OneDimensionWithContinueGuardsAndEarlyReturn) {
  std::string Code = R"(#define RAD 2
__global__ void st(int n, const float *x, const float *wt, float *y) {
  int i = threadIdx.x + blockDim.x * blockIdx.x;
  if (i >= n) return;
  float acc = 0.0f;
  for (int k = 0; k < 2 * RAD + 1; ++k) {
    int p = i + k - RAD;
    if (p < 0 || p >= n)
      continue;
    acc += wt[k] * x[p];
  }
  y[i] = acc;
}
)";
  Result R = run("smem-stencil-tiling", {Code, "st", {{128, 1, 1}}, {}});
  ASSERT_EQ(R.Proposals.size(), 1u) << R.Skip;
  const std::string &New = R.Applied[0];
  // Loaded before the early return, so that every thread reaches the barrier.
  EXPECT_TRUE(has(New, "{\n  // smem-stencil-tiling")) << New;
  EXPECT_TRUE(has(New, "__shared__ float x_tile[132];")) << New;
  EXPECT_TRUE(has(New, "long long e0 = 128 * (long long)blockIdx.x + t - 2;")) << New;
  // 'k' is taken by the kernel's own loop.
  EXPECT_TRUE(has(New, "int t = threadIdx.x + k2 * 128;")) << New;
  EXPECT_TRUE(has(New, "x_v[k2] = t < 132 && e0 >= 0 && e0 < (long long)n ? x[e0] : 0.0f;")) << New;
  EXPECT_TRUE(has(New, "x_tile[t] = x_v[k2];")) << New;
  EXPECT_TRUE(has(New, "acc += wt_c[k] * x_tile[threadIdx.x + k];")) << New;
  EXPECT_TRUE(has(New, "float wt_c[5];")) << New;
}

TEST(SmemStencilTiling, InteriorOnlyKernelTakesItsBoundsFromTheThreadCheck) {
  // Reads unguarded except by the thread's own interior check: each read
  // stays inside [0, h) x [0, w), the union of what they read is loaded.
  std::string Code = R"(__global__ void lap(const float *in, float *out, int h, int w) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= 1 && x < w - 1 && y >= 1 && y < h - 1)
    out[y * w + x] = in[(y - 1) * w + x] + in[(y + 1) * w + x] + in[y * w + x - 1] +
                     in[y * w + x + 1] - 4.0f * in[y * w + x];
}
)";
  Result R = run("smem-stencil-tiling", {Code, "lap", {{32, 8, 1}}, {}});
  ASSERT_EQ(R.Proposals.size(), 1u) << R.Skip;
  const std::string &New = R.Applied[0];
  EXPECT_TRUE(has(New, "in_v[k] = t < 340 && e1 >= 0 && e1 < (long long)h && e0 >= 0 && e0 < (long long)w ? ")) << New;
  EXPECT_TRUE(has(New, "out[y * w + x] = in_tile[threadIdx.y][threadIdx.x + 1] + "
                       "in_tile[threadIdx.y + 2][threadIdx.x + 1] + in_tile[threadIdx.y + 1][threadIdx.x] +"))
      << New;
  EXPECT_TRUE(has(R.Proposals[0].Rationale, "global loads per output 5 -> 1.33"))
      << R.Proposals[0].Rationale;
}

/// The same 3-point (or 3 x 3) stencil written in many ways: each is tiled,
/// and the loader's element line is the expected one.
TEST(SmemStencilTiling, Spellings) {
  struct Spelling {
    const char *Name, *Code;
    std::array<int64_t, 3> Block;
    const char *Loader; ///< a piece of the rewrite
    const char *Read;   ///< the rewritten read
  };
  const Spelling Cases[] = {
      {"index via locals, guard with return",
       R"(__global__ void k(const float *in, float *out, int n) {
  int tid = threadIdx.x;
  int base = blockIdx.x * blockDim.x;
  int i = base + tid;
  if (i <= 0 || i >= n - 1) return;
  out[i] = in[i - 1] - 2.0f * in[i] + in[i + 1];
})",
       {128, 1, 1}, "t < 130 && e0 >= 0 && e0 < (long long)n ? in[e0] : 0.0f;",
       "out[i] = in_tile[threadIdx.x] - 2.0f * in_tile[threadIdx.x + 1] + in_tile[threadIdx.x + 2];"},
      {"size_t index, threadIdx first",
       R"(__global__ void k(const double *in, double *out, size_t n) {
  size_t i = threadIdx.x + (size_t)blockDim.x * blockIdx.x;
  if (i >= 1 && i + 1 < n)
    out[i] = 0.5 * (in[i - 1] + in[i + 1]);
})",
       {256, 1, 1}, "? in[e0] : 0.0;", "out[i] = 0.5 * (in_tile[threadIdx.x] + in_tile[threadIdx.x + 2]);"},
      {"loop over offsets, descending",
       R"(__global__ void k(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float s = 0;
    for (int d = 1; d >= -1; --d)
      if (i + d >= 0 && i + d < n) s += in[i + d];
    out[i] = s;
  }
})",
       {128, 1, 1}, "t < 130 && e0 >= 0 && e0 < (long long)n ? in[e0] : 0.0f;",
       "s += in_tile[threadIdx.x + d + 1];"},
      {"2D, column-major names, guard with &&",
       R"(__global__ void k(const float *a, float *b, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r > 0 && r < rows - 1 && c > 0 && c < cols - 1)
    b[r * cols + c] = a[(r - 1) * cols + c] + a[(r + 1) * cols + c] + a[r * cols + (c - 1)] + a[r * cols + (c + 1)];
})",
       {32, 8, 1}, "? a[e1 * cols + e0] : 0.0f;",
       "b[r * cols + c] = a_tile[threadIdx.y][threadIdx.x + 1] + a_tile[threadIdx.y + 2][threadIdx.x + 1]"},
      {"2D, clamps with ?: on the index",
       R"(__global__ void k(const float *in, float *out, int w, int h) {
  int x = threadIdx.x + blockIdx.x * blockDim.x;
  int y = threadIdx.y + blockIdx.y * blockDim.y;
  if (x < w && y < h) {
    int xl = x > 0 ? x - 1 : 0, xr = x < w - 1 ? x + 1 : w - 1;
    out[y * w + x] = in[y * w + xl] + in[y * w + x] + in[y * w + xr];
  }
})",
       {32, 8, 1}, "long long e0c = e0 < 0 ? 0 : e0 > (long long)w - 1 ? (long long)w - 1 : e0;",
       "out[y * w + x] = in_tile[threadIdx.y][threadIdx.x] + in_tile[threadIdx.y][threadIdx.x + 1] + "
       "in_tile[threadIdx.y][threadIdx.x + 2];"},
  };
  for (const Spelling &S : Cases) {
    Result R = run("smem-stencil-tiling", {S.Code, "k", S.Block, {}});
    ASSERT_FALSE(R.Proposals.empty()) << S.Name << ": " << R.Skip;
    EXPECT_TRUE(has(R.Applied[0], S.Loader)) << S.Name << "\n" << R.Applied[0];
    EXPECT_TRUE(has(R.Applied[0], S.Read)) << S.Name << "\n" << R.Applied[0];
  }
}

// A leading exit on a block-uniform condition (specialize-scalar's test of
// the spec's values) stays in front of the tile and coefficient loads; one
// on the thread's position, a loaded value or a call does not.
TEST(SmemStencilTiling, LeadingUniformExitsStayFirst) {
  auto Tiled = [](const std::string &Exit) {
    std::string Code = Conv;
    Code.insert(Code.find("  int x ="), Exit);
    Result R = run("smem-stencil-tiling", {Code, "conv", {{32, 8, 1}}, {}});
    EXPECT_EQ(R.Proposals.size(), 1u) << R.Skip;
    return R.Applied.empty() ? std::string() : R.Applied[0];
  };
  auto Before = [](const std::string &New, const std::string &Exit) {
    size_t E = New.find(Exit), T = New.find("if (blockDim.x !=");
    return E != std::string::npos && T != std::string::npos && E < T;
  };
  for (const char *Uniform : {"  if (h != 7) {\n    return;\n  }\n",
                              "  if (blockIdx.x * blockDim.x >= w || blockIdx.y >= gridDim.y) return;\n"}) {
    std::string New = Tiled(Uniform);
    std::string Exit = std::string(Uniform).substr(2, 10);
    EXPECT_TRUE(Before(New, Exit)) << New;
    // The fallback for another block and the tiled body keep it too.
    size_t Copies = 0;
    for (size_t P = New.find(Exit); P != std::string::npos; P = New.find(Exit, P + 1))
      ++Copies;
    EXPECT_EQ(Copies, 3u) << New;
  }
  for (const char *Varying : {"  if (threadIdx.x >= 32) return;\n",
                              "  if (in[0] > 0.0f) return;\n",
                              "  if (__float_as_int(1.0f) == h) return;\n"}) {
    std::string New = Tiled(Varying);
    std::string Exit = std::string(Varying).substr(2, 10);
    EXPECT_FALSE(Before(New, Exit)) << New;
  }
}

TEST(SmemStencilTiling, Preconditions) {
  auto Skip = [](std::string Code, std::optional<std::array<int64_t, 3>> Block) {
    Result R = run("smem-stencil-tiling", {Code, "conv", Block, {}});
    EXPECT_TRUE(R.Proposals.empty());
    return R.Skip;
  };
  EXPECT_TRUE(has(Skip(Conv, std::nullopt), "the block's dimensions are not known"));
  std::string Unguarded = Conv;
  Unguarded.replace(Unguarded.find("if (yy >= 0 && yy < h && xx >= 0 && xx < w)"), 44, "");
  std::string Why = Skip(Unguarded, {{16, 16, 1}});
  EXPECT_TRUE(has(Why, "is not bounded above along dimension 0 (stride 1) by a guard or a clamp")) << Why;
  std::string Pointwise = R"(__global__ void conv(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * in[i];
})";
  EXPECT_TRUE(has(Skip(Pointwise, {{256, 1, 1}}), "at one position only"));
  std::string Loopy = Conv;
  Loopy.replace(Loopy.find("j <= 1"), 6, "j <= w");
  Why = Skip(Loopy, {{16, 16, 1}});
  EXPECT_TRUE(has(Why, "whose bounds are not compile-time constants")) << Why;
  // The clamps of two reads disagree.
  Why = Skip(R"(__global__ void conv(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[max(i - 1, 0)] + in[min(i + 1, n - 2)] + in[min(i, n - 1)];
})",
             {{256, 1, 1}});
  EXPECT_TRUE(has(Why, "clamp dimension 0 from above to different bounds")) << Why;
  // In place.
  Why = Skip(R"(__global__ void conv(float *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > 0 && i < n - 1) a[i] = a[i - 1] + a[i + 1];
})",
             {{256, 1, 1}});
  EXPECT_TRUE(has(Why, "an in-place update")) << Why;
  // Another thread index moves the reads (a transpose-like stencil).
  Why = Skip(R"(__global__ void conv(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x > 0 && y > 0 && x < w - 1 && y < h - 1)
    out[y * w + x] = in[(x - 1) * h + y] + in[(x + 1) * h + y];
})",
             {{32, 8, 1}});
  EXPECT_FALSE(Why.empty());
}

//===----------------------------------------------------------------------===//
// register-tiling
//===----------------------------------------------------------------------===//

const char *Sgemm = R"(__global__ void sgemm(const float *A, const float *B, float *C, int m, int n,
                      int k) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < m && col < n) {
    float acc = 0.0f;
    for (int p = 0; p < k; ++p)
      acc += A[(size_t)row * k + p] * B[(size_t)p * n + col];
    C[(size_t)row * n + col] = acc;
  }
}
)";

TEST(RegisterTiling, BlockTiledThenTwoLevelThenRowsPerThread) {
  Result R = run("register-tiling", {Sgemm, "sgemm", {{16, 16, 1}},
                                     {{"grid.x", "ceil_div(N, BX)"},
                                      {"grid.y", "ceil_div(M, BLOCK / BX)"}}});
  ASSERT_EQ(R.Proposals.size(), 4u) << R.Skip;
  EXPECT_TRUE(has(R.Proposals[0].Summary, "block-tiled 128 x 128")) << R.Proposals[0].Summary;
  EXPECT_TRUE(has(R.Proposals[1].Summary, "block-tiled 64 x 64")) << R.Proposals[1].Summary;
  const std::string &Big = R.Applied[0];
  EXPECT_TRUE(has(Big, "__global__ void __launch_bounds__(256, 2) sgemm(")) << Big;
  EXPECT_TRUE(has(Big, "if (blockDim.x * blockDim.y * blockDim.z != 256)\n    __trap();")) << Big;
  EXPECT_TRUE(has(Big, "__shared__ __align__(16) float rt_As[2][8][128];")) << Big;
  EXPECT_TRUE(has(Big, "*reinterpret_cast<const float4 *>(&rt_As[rt_s][rt_kk][rt_g * 64 + rt_ty * 4 + rt_q * 4]);")) << Big;
  EXPECT_TRUE(has(Big, "*reinterpret_cast<const float4 *>(&A[(size_t)rt_rr * k + rt_cc]);")) << Big;
  EXPECT_TRUE(has(Big, "rt_rb[rt_e][rt_q] = rt_rr1 < k && rt_cc1 < n ? B[(size_t)rt_rr1 * n + rt_cc1] : 0.0f;")) << Big;
  EXPECT_TRUE(has(Big, "const bool rt_va = (k) % 4 == 0 &&")) << Big;
  EXPECT_TRUE(has(Big, "if ((rt_row < m) && (rt_col < n))\n        C[(size_t)rt_row * n + rt_col] = rt_acc[rt_i][rt_j];")) << Big;
  EXPECT_EQ(R.Proposals[0].Spec->Geometry.at("grid.x"), "ceil_div(ceil_div(N, BX), 8)");
  EXPECT_EQ(R.Proposals[1].Spec->Geometry.at("grid.y"), "ceil_div(ceil_div(M, BLOCK / BX), 4)");
  const std::string &Two = R.Applied[2];
  EXPECT_TRUE(has(Two, "int col = blockIdx.x * 128 + threadIdx.x;")) << Two;
  EXPECT_TRUE(has(Two, "int row = blockIdx.y * 128 + threadIdx.y;")) << Two;
  EXPECT_TRUE(has(Two, "__shared__ float rt_As[128][16];")) << Two;
  EXPECT_TRUE(has(Two, "rt_As[rt_i][rt_kk] = rt_row < m && rt_p < k ? A[(size_t)rt_row * k + rt_p] : 0.0f;"))
      << Two;
  EXPECT_TRUE(has(Two, "rt_Bs[rt_kk][rt_j] = rt_p < k && rt_col < n ? B[(size_t)rt_p * n + rt_col] : 0.0f;"))
      << Two;
  EXPECT_TRUE(has(Two, "rt_acc[rt_i][rt_j] += rt_a[rt_i] * rt_b[rt_j];")) << Two;
  EXPECT_TRUE(has(Two, "if ((rt_row < m) && (rt_col < n))\n        C[(size_t)rt_row * n + rt_col] = rt_acc[rt_i][rt_j];"))
      << Two;
  ASSERT_TRUE(R.Proposals[2].Spec.has_value());
  EXPECT_EQ(R.Proposals[2].Spec->Geometry.at("grid.x"), "ceil_div(ceil_div(N, BX), 8)");
  EXPECT_EQ(R.Proposals[2].Spec->Geometry.at("grid.y"), "ceil_div(ceil_div(M, BLOCK / BX), 8)");

  const std::string &Rows = R.Applied[3];
  EXPECT_TRUE(has(Rows, "int row = blockIdx.y * blockDim.y * 4 + threadIdx.y;")) << Rows;
  EXPECT_TRUE(has(Rows, "rt_ok[rt_r] = (rt_row < m) && (col < n);")) << Rows;
  EXPECT_TRUE(has(Rows, "float rt_b = B[(size_t)p * n + col];")) << Rows;
  EXPECT_TRUE(has(Rows, "rt_acc[rt_r] += A[(size_t)rt_row * k + p] * rt_b;")) << Rows;
  ASSERT_TRUE(R.Proposals[3].Spec.has_value());
  EXPECT_EQ(R.Proposals[3].Spec->Geometry.size(), 1u);
  EXPECT_EQ(R.Proposals[3].Spec->Geometry.at("grid.y"), "ceil_div(ceil_div(M, BLOCK / BX), 4)");
}

TEST(RegisterTiling, SpecChangeParsesAndCoversTheMatrix) {
  Result R = run("register-tiling", {Sgemm, "sgemm", {{16, 16, 1}},
                                     {{"grid.x", "ceil_div(N, BX)"},
                                      {"grid.y", "ceil_div(M, BLOCK / BX)"}}});
  ASSERT_EQ(R.Proposals.size(), 4u) << R.Skip;
  measure::ValueMap Env{{"M", 2000}, {"N", 2048}, {"BLOCK", 256}, {"BX", 16}};
  auto Eval = [&](const std::string &Text) -> int64_t {
    auto E = measure::IntExpr::parse(Text);
    EXPECT_TRUE(bool(E)) << err(E.takeError());
    if (!E)
      return -1;
    auto V = E->evaluate(Env);
    EXPECT_TRUE(bool(V)) << err(V.takeError());
    return V ? *V : -1;
  };
  // 2000 rows: 125 blocks of 16 rows before; 128-row blocks need 16.
  for (unsigned I : {0u, 2u}) {
    EXPECT_EQ(Eval(R.Proposals[I].Spec->Geometry.at("grid.y")), 16);
    EXPECT_EQ(Eval(R.Proposals[I].Spec->Geometry.at("grid.x")), 16);
  }
  // 64-row blocks: 32 of them; 2048 columns: 32.
  EXPECT_EQ(Eval(R.Proposals[1].Spec->Geometry.at("grid.y")), 32);
  EXPECT_EQ(Eval(R.Proposals[1].Spec->Geometry.at("grid.x")), 32);
  EXPECT_EQ(Eval(R.Proposals[3].Spec->Geometry.at("grid.y")), 32); // ceil(125 / 4)
}

TEST(RegisterTiling, EarlyReturnAlphaBetaAndDouble) {
  std::string Code = R"(__global__ void dg(int m, int n, int k, double alpha, const double *A,
                   const double *B, double beta, double *C) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= m || col >= n)
    return;
  double acc = 0.0;
  for (int p = 0; p < k; p++)
    acc = acc + B[p * n + col] * A[row * k + p];
  C[row * n + col] = alpha * acc + beta * C[row * n + col];
}
)";
  Result R = run("register-tiling", {Code, "dg", {{32, 8, 1}}, {}});
  // Doubles: block-tiled 128 x 64 (8 x 4 per thread) and 64 x 64 (double2
  // loads), then two-level, rows.
  ASSERT_EQ(R.Proposals.size(), 4u) << R.Skip;
  EXPECT_TRUE(has(R.Proposals[0].Summary, "block-tiled 128 x 64: 256 threads, 8 x 4 outputs"))
      << R.Proposals[0].Summary;
  EXPECT_TRUE(has(R.Applied[0], "__shared__ __align__(16) double rt_As[2][8][128];"))
      << R.Applied[0];
  EXPECT_TRUE(has(R.Applied[0], "double rt_acc[8][4];")) << R.Applied[0];
  EXPECT_TRUE(has(R.Proposals[1].Summary, "block-tiled 64 x 64")) << R.Proposals[1].Summary;
  const std::string &Big = R.Applied[1];
  EXPECT_TRUE(has(Big, "__shared__ __align__(16) double rt_As[2][8][64];")) << Big;
  EXPECT_TRUE(has(Big, "*reinterpret_cast<const double2 *>(&rt_Bs[rt_s][rt_kk][")) << Big;
  EXPECT_TRUE(has(Big, "rt_acc[rt_i][rt_j] = rt_acc[rt_i][rt_j] + rt_b[rt_j] * rt_a[rt_i];")) << Big;
  EXPECT_TRUE(has(Big, "if (!(rt_row >= m) && !(rt_col >= n))\n"
                       "        C[rt_row * n + rt_col] = alpha * rt_acc[rt_i][rt_j] + beta * C[rt_row * n + rt_col];"))
      << Big;
  const std::string &Two = R.Applied[2];
  // Doubles: at most 4 x 4 per thread; no early return before the barriers.
  EXPECT_TRUE(has(Two, "double rt_acc[4][2];")) << Two;
  EXPECT_FALSE(has(Two, "return;")) << Two;
  EXPECT_TRUE(has(Two, "rt_acc[rt_i][rt_j] = rt_acc[rt_i][rt_j] + rt_b[rt_j] * rt_a[rt_i];")) << Two;
  EXPECT_TRUE(has(Two, "if (!(rt_row >= m) && !(rt_col >= n))\n"
                       "        C[rt_row * n + rt_col] = alpha * rt_acc[rt_i][rt_j] + beta * C[rt_row * n + rt_col];"))
      << Two;
  // No geometry in the request: no spec change, and the rationale says so.
  EXPECT_FALSE(R.Proposals[0].Spec.has_value());
  EXPECT_TRUE(has(R.Proposals[0].Rationale, "must be divided")) << R.Proposals[0].Rationale;
}

// The products the model recognises, however written: each gets the
// block-tiled rewrite first, with its own store and the vector checks on
// the dimension the model proves unit-stride.
TEST(RegisterTiling, MatchesTheModelsProductsWhateverTheSpelling) {
  auto Gemm = [](const std::string &Params, const std::string &Body) {
    return "__global__ void g(" + Params + ") {\n" + Body + "\n}\n";
  };
  const std::string P = "const float *A, const float *B, float *C, int m, int n, int k";
  const std::string RC = "  int col = blockIdx.x * blockDim.x + threadIdx.x;\n"
                         "  int row = blockIdx.y * blockDim.y + threadIdx.y;\n";
  struct Row {
    const char *Name;
    std::string Code;
    std::vector<std::string> Want;
  };
  std::vector<Row> Table = {
      {"ijk", Gemm(P, RC + "  if (row < m && col < n) {\n    float acc = 0.0f;\n"
                           "    for (int p = 0; p < k; ++p)\n"
                           "      acc += A[row * k + p] * B[p * n + col];\n"
                           "    C[row * n + col] = acc;\n  }"),
       {"rt_va = (k) % 4 == 0", "rt_vb = (n) % 4 == 0", "C[rt_row * n + rt_col] = rt_acc[rt_i][rt_j];"}},
      {"B first, fmaf", Gemm(P, RC + "  if (row < m && col < n) {\n    float acc = 0.0f;\n"
                                     "    for (int p = 0; p < k; ++p)\n"
                                     "      acc = fmaf(B[p * n + col], A[row * k + p], acc);\n"
                                     "    C[row * n + col] = acc;\n  }"),
       {"rt_acc[rt_i][rt_j] = fmaf(rt_b[rt_j], rt_a[rt_i], rt_acc[rt_i][rt_j]);"}},
      {"A transposed", Gemm(P, RC + "  if (row < m && col < n) {\n    float acc = 0.0f;\n"
                                    "    for (int p = 0; p < k; ++p)\n"
                                    "      acc += A[p * m + row] * B[p * n + col];\n"
                                    "    C[row * n + col] = acc;\n  }"),
       // A is unit-stride along its rows: the vector check is on m.
       {"rt_va = (m) % 4 == 0", "(&A[1 * m + 0] - &A[0 * m + 0]) % 4 == 0", "A[rt_cc * m + rt_rr]"}},
      {"B transposed", Gemm(P, RC + "  if (row < m && col < n) {\n    float acc = 0.0f;\n"
                                    "    for (int p = 0; p < k; ++p)\n"
                                    "      acc += A[row * k + p] * B[col * k + p];\n"
                                    "    C[row * n + col] = acc;\n  }"),
       {"rt_vb = (k) % 4 == 0", "B[rt_cc * k + rt_rr]"}},
      {"size_t", Gemm(P, "  size_t col = (size_t)blockIdx.x * blockDim.x + threadIdx.x;\n"
                         "  size_t row = (size_t)blockIdx.y * blockDim.y + threadIdx.y;\n"
                         "  if (row < m && col < n) {\n    float acc = 0.0f;\n"
                         "    for (size_t p = 0; p < k; ++p)\n"
                         "      acc += A[row * k + p] * B[p * n + col];\n"
                         "    C[row * n + col] = acc;\n  }"),
       {"const size_t rt_row = blockIdx.y * 128", "for (size_t rt_k0 = 0; rt_k0 < k; rt_k0 += 8)"}},
      {"batched", Gemm("const float *A, const float *B, float *C, int n, int batch",
                       RC + "  int b = blockIdx.z;\n"
                            "  if (row < n && col < n && b < batch) {\n"
                            "    const float *a = A + (size_t)b * n * n;\n"
                            "    const float *bm = B + (size_t)b * n * n;\n"
                            "    float acc = 0.0f;\n"
                            "    for (int p = 0; p < n; ++p)\n"
                            "      acc += a[(size_t)row * n + p] * bm[(size_t)p * n + col];\n"
                            "    C[(size_t)b * n * n + (size_t)row * n + col] = acc;\n  }"),
       {"const float *a = A + (size_t)b * n * n;\n  const float *bm = B + (size_t)b * n * n;\n"
        "  if (!((b < batch)))\n    return; // the same for the whole block",
        "reinterpret_cast<unsigned long long>(&a[(size_t)0 * n + 0]) % 16 == 0",
        "C[(size_t)b * n * n + (size_t)rt_row * n + rt_col] = rt_acc[rt_i][rt_j];"}},
      {"PMPP, two guards", Gemm(P, RC + "  float acc = 0.0f;\n"
                                        "  if (row < m && col < n) {\n"
                                        "    for (int p = 0; p < k; ++p)\n"
                                        "      acc += A[row * k + p] * B[p * n + col];\n  }\n"
                                        "  if (row < m && col < n)\n"
                                        "    C[row * n + col] = acc;"),
       {"if ((rt_row < m) && (rt_col < n))\n        C[rt_row * n + rt_col] = rt_acc[rt_i][rt_j];"}},
      {"PMPP, guarded loop alone", Gemm(P, RC + "  float acc = 0;\n"
                                                "  if (row < m && col < n)\n"
                                                "    for (int p = 0; p < k; p++)\n"
                                                "      acc += A[row * k + p] * B[p * n + col];\n"
                                                "  if (row < m && col < n) C[row * n + col] = acc;"),
       {"rt_acc[rt_i][rt_j] = 0;", "C[rt_row * n + rt_col] = rt_acc[rt_i][rt_j];"}},
      {"alpha/beta", Gemm(P + ", float alpha, float beta",
                          RC + "  if (row >= m || col >= n) return;\n  float acc = 0.0f;\n"
                               "  for (int p = 0; p < k; ++p)\n"
                               "    acc += A[row * k + p] * B[p * n + col];\n"
                               "  C[row * n + col] = alpha * acc + beta * C[row * n + col];"),
       {"if (!(rt_row >= m) && !(rt_col >= n))\n        C[rt_row * n + rt_col] = alpha * "
        "rt_acc[rt_i][rt_j] + beta * C[rt_row * n + rt_col];"}},
      {"double", Gemm("const double *A, const double *B, double *C, int m, int n, int k",
                      RC + "  if (row < m && col < n) {\n    double acc = 0.0;\n"
                           "    for (int p = 0; p < k; ++p)\n"
                           "      acc += A[row * k + p] * B[p * n + col];\n"
                           "    C[row * n + col] = acc;\n  }"),
       {"double2", "double rt_acc[8][4];", "rt_va = (k) % 2 == 0"}},
  };
  for (const Row &T : Table) {
    Result R = run("register-tiling",
                   {T.Code, "g", {{16, 16, 1}},
                    {{"grid.x", "ceil_div(N, 16)"}, {"grid.y", "ceil_div(M, 16)"}}});
    ASSERT_FALSE(R.Proposals.empty()) << T.Name << ": " << R.Skip;
    EXPECT_TRUE(has(R.Proposals[0].Summary, "block-tiled")) << T.Name << ": " << R.Proposals[0].Summary;
    for (const std::string &W : T.Want)
      EXPECT_TRUE(has(R.Applied[0], W)) << T.Name << ": no '" << W << "' in\n" << R.Applied[0];
    // The block-uniform loads are hoisted, nothing else of the original
    // loop stays.
    EXPECT_FALSE(has(R.Applied[0], "acc += A[")) << T.Name << "\n" << R.Applied[0];
  }

  // Declines, each with the model's reason.
  auto Skip = [&](const std::string &Code, std::array<int64_t, 3> Block) {
    Result R = run("register-tiling", {Code, "g", Block, {}});
    EXPECT_TRUE(R.Proposals.empty()) << Code;
    return R.Skip;
  };
  std::string Tiled = Gemm("const float *A, const float *B, float *C, int n",
                           "  __shared__ float As[16][16], Bs[16][16];\n"
                           "  int col = blockIdx.x * 16 + threadIdx.x;\n"
                           "  int row = blockIdx.y * 16 + threadIdx.y;\n"
                           "  float acc = 0.0f;\n"
                           "  for (int t = 0; t < n; t += 16) {\n"
                           "    As[threadIdx.y][threadIdx.x] = A[row * n + t + threadIdx.x];\n"
                           "    Bs[threadIdx.y][threadIdx.x] = B[(t + threadIdx.y) * n + col];\n"
                           "    __syncthreads();\n"
                           "    for (int p = 0; p < 16; ++p)\n"
                           "      acc += As[threadIdx.y][p] * Bs[p][threadIdx.x];\n"
                           "    __syncthreads();\n  }\n"
                           "  C[row * n + col] = acc;");
  std::string Why = Skip(Tiled, {16, 16, 1});
  EXPECT_TRUE(has(Why, "already tiled: As is read from shared memory")) << Why;
  std::string Ikj = Gemm("const float *A, const float *B, float *C, int n",
                         "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                         "  if (i < n)\n"
                         "    for (int p = 0; p < n; ++p)\n"
                         "      for (int j = 0; j < n; ++j)\n"
                         "        C[i * n + j] += A[i * n + p] * B[p * n + j];");
  Why = Skip(Ikj, {256, 1, 1});
  EXPECT_TRUE(has(Why, "accumulates in memory (loop order ikj)")) << Why;
  std::string Dot = Gemm("const float *x, const float *y, float *out, int n",
                         "  float acc = 0.0f;\n"
                         "  for (int p = 0; p < n; ++p) acc += x[p] * y[p];\n"
                         "  if (threadIdx.x == 0) out[blockIdx.x] = acc;");
  Why = Skip(Dot, {256, 1, 1});
  EXPECT_TRUE(has(Why, "the model recognises no matrix product")) << Why;
}

TEST(RegisterTiling, Preconditions) {
  auto Skip = [](std::string Code) {
    Result R = run("register-tiling", {Code, "sgemm", {{16, 16, 1}}, {}});
    EXPECT_TRUE(R.Proposals.empty());
    return R.Skip;
  };
  std::string NoGuard = Sgemm;
  NoGuard.replace(NoGuard.find("if (row < m && col < n) "), 24, "");
  EXPECT_TRUE(has(Skip(NoGuard), "no bounds check")) << Skip(NoGuard);
  std::string Swapped = Sgemm;
  Swapped.replace(Swapped.find("blockIdx.y * blockDim.y + threadIdx.y"), 37,
                  "blockIdx.x * blockDim.y + threadIdx.y");
  EXPECT_FALSE(Skip(Swapped).empty());
  std::string Thread = Sgemm;
  Thread.replace(Thread.find("C[(size_t)row * n + col] = acc;"), 31,
                 "C[(size_t)row * n + col] = acc + threadIdx.x;");
  EXPECT_TRUE(has(Skip(Thread), "uses 'threadIdx' directly")) << Skip(Thread);
  std::string Elementwise = R"(__global__ void sgemm(const float *A, float *C, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) C[i] = A[i];
})";
  EXPECT_TRUE(has(Skip(Elementwise), "the model recognises no matrix product")) << Skip(Elementwise);
}

} // namespace
