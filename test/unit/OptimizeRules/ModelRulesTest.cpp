//===- ModelRulesTest.cpp - transpose-tile, coalesced-remap on many spellings ===//
//
// The rules that rewrite from the kernel model, on tables of kernels written
// in different ways (names, index orders, casts, locals, guard styles,
// element types): each must be recognised and rewritten to the same
// structure, and each refusal must say why. The lit tests
// (test/passes/<rule>/) cover the command line, real CUDA headers and nvcc.
//
//===----------------------------------------------------------------------===//
#include "ExpertRule.h"
#include "RuleHarness.h"
#include "forge/Agent/EditBlocks.h"
#include "forge/Agent/ExpertProposer.h"
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

Result run(llvm::StringRef Rule, const std::string &Code, const std::string &Kernel,
           std::optional<std::array<int64_t, 3>> Block = std::nullopt,
           std::map<std::string, std::string> Geometry = {}) {
  forge::testing::RuleRunOptions O;
  O.Block = Block;
  O.Geometry = std::move(Geometry);
  return forge::testing::runRule(Rule, Code, Kernel, O);
}

//===----------------------------------------------------------------------===//
// transpose-tile
//===----------------------------------------------------------------------===//

struct TransposeCase {
  const char *Name, *Code;
  /// The tile's load and store as the generic loop must write them.
  const char *Load, *Store;
  /// The fast path's first indices of the load and the store (and steps).
  const char *LoadAt, *StoreAt;
};

const TransposeCase TransposeSpellings[] = {
    {"canonical", R"(__global__ void k(const float *in, float *out, int rows, int cols) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < cols && y < rows)
    out[x * rows + y] = in[y * cols + x];
})",
     "forge_tile[forge_e / 32][forge_e % 32] = in[y * cols + x];",
     "out[x * rows + y] = forge_tile[forge_e % 32][forge_e / 32];",
     "forge_py * cols + forge_px, forge_step = cols;", "forge_px * rows + forge_py, forge_step = rows;"},
    {"commuted positions, size_t, early return with ||",
     R"(__global__ void k(const float *src, float *dst, int w, int h) {
  unsigned c = threadIdx.x + blockIdx.x * blockDim.x;
  unsigned r = threadIdx.y + blockIdx.y * blockDim.y;
  if (c >= w || r >= h) return;
  dst[(size_t)c * h + r] = src[(size_t)r * w + c];
})",
     "= src[r * w + c];", "dst[c * h + r] = forge_tile",
     "forge_py * w + forge_px, forge_step = w;", "forge_px * h + forge_py, forge_step = h;"},
    {"separate early returns, index locals",
     R"(__global__ void k(const double *a, double *b, int n) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= n) return;
  if (col >= n) return;
  int from = row * n + col, to = col * n + row;
  b[to] = a[from];
})",
     "= a[row * n + col];", "b[col * n + row] = forge_tile",
     "forge_py * n + forge_px, forge_step = n;", "forge_px * n + forge_py, forge_step = n;"},
    {"swapped roles: strided reads, coalesced writes",
     R"(__global__ void k(const float *A, float *B, int M, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < M && j < N)
    B[j * M + i] = A[i * N + j];
})",
     "= A[i * N + j];", "B[j * M + i] = forge_tile",
     "forge_px * N + forge_py, forge_step = N;", "forge_py * M + forge_px, forge_step = M;"},
    {"nested ifs, value in a local, scale and conversion",
     R"(__global__ void k(const float *in, double *out, float alpha, int rows, int cols) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < cols) {
    if (y < rows) {
      float v = in[y * cols + x];
      out[x * rows + y] = (double)(alpha * v);
    }
  }
})",
     "= in[y * cols + x];", "out[x * rows + y] = (double)(alpha * forge_tile[forge_e % 32][forge_e / 32]);",
     "forge_py * cols + forge_px, forge_step = cols;", "forge_px * rows + forge_py, forge_step = rows;"},
    {"positions inline, int elements",
     R"(__global__ void k(const int *in, int *out, int R, int C) {
  if (blockIdx.x * blockDim.x + threadIdx.x < C && blockIdx.y * blockDim.y + threadIdx.y < R)
    out[(blockIdx.x * blockDim.x + threadIdx.x) * R + blockIdx.y * blockDim.y + threadIdx.y] =
        in[(blockIdx.y * blockDim.y + threadIdx.y) * C + blockIdx.x * blockDim.x + threadIdx.x];
})",
     "= in[y * C + x];", "out[x * R + y] = forge_tile",
     "forge_py * C + forge_px, forge_step = C;", "forge_px * R + forge_py, forge_step = R;"},
    {"__ldg and a uniform local scale",
     R"(__global__ void k(const float *in, float *out, int rows, int cols, float s) {
  const float scale = 2.0f * s;
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (y < rows && x < cols)
    out[x * rows + y] = scale * __ldg(&in[y * cols + x]);
})",
     "= __ldg(&in[y * cols + x]);", "out[x * rows + y] = scale * forge_tile",
     "forge_py * cols + forge_px, forge_step = cols;", "forge_px * rows + forge_py, forge_step = rows;"},
};

TEST(TransposeTile, RewritesEverySpellingToTheSameTile) {
  for (const TransposeCase &C : TransposeSpellings) {
    SCOPED_TRACE(C.Name);
    Result R = run("transpose-tile", C.Code, "k", {{32, 8, 1}});
    // 32 x 32 tiles first, then 64 x 64.
    ASSERT_EQ(R.Applied.size(), 2u) << R.Skip;
    for (int V = 0; V < 2; ++V) {
      SCOPED_TRACE(V ? "64 x 64" : "32 x 32");
      const std::string &A = R.Applied[V];
      EXPECT_TRUE(has(A, V ? "[64][64 + 1];" : "[32][32 + 1];")) << A;
      // The generic loop's tile elements for the tile's side.
      auto Side = [&](std::string T) {
        for (const char *Op : {"forge_e / ", "forge_e % "})
          for (size_t At = 0; (At = T.find(std::string(Op) + "32", At)) != std::string::npos;)
            T.replace(At + 10, 2, V ? "64" : "32"), At += 12;
        return T;
      };
      EXPECT_TRUE(has(A, Side(C.Load))) << A;
      EXPECT_TRUE(has(A, Side(C.Store))) << A;
      // Other blocks stride over the tile with the whole block.
      EXPECT_TRUE(has(A, V ? "forge_e < 64 * 64; forge_e += forge_threads"
                           : "forge_e < 32 * 32; forge_e += forge_threads"))
          << A;
      // The fast path: a 32 x 8 block checked on the device, a constant
      // trip count, indices hoisted, no division per element, the guard
      // only on edge tiles.
      EXPECT_TRUE(has(A, "const bool forge_fast = blockDim.x == 32 && blockDim.y == 8 && "
                         "blockDim.z == 1;"))
          << A;
      EXPECT_TRUE(has(A, V ? "const bool forge_full = " : "const bool forge_full = ")) << A;
      EXPECT_TRUE(has(A, V ? " + 63 < " : " + 31 < ")) << A;
      EXPECT_TRUE(has(A, std::string("const long long forge_at = ") + C.LoadAt)) << A;
      EXPECT_TRUE(has(A, std::string("const long long forge_at = ") + C.StoreAt)) << A;
      EXPECT_TRUE(has(A, V ? "for (int forge_r = 0; forge_r < 8; ++forge_r) {"
                           : "for (int forge_r = 0; forge_r < 4; ++forge_r) {"))
          << A;
      EXPECT_TRUE(has(A, V ? "forge_tile[threadIdx.y + 8 * forge_r][threadIdx.x + 32 * forge_c] = "
                           : "forge_tile[threadIdx.y + 8 * forge_r][threadIdx.x] = "))
          << A;
      EXPECT_TRUE(has(A, "if (forge_full) {")) << A;
      for (size_t At = 0; (At = A.find("if (forge_fast) {", At)) != std::string::npos; ++At) {
        std::string Fast = A.substr(At, A.find("} else {\n        #pragma unroll 4", At) - At);
        EXPECT_FALSE(has(Fast, " % ") || has(Fast, " / ")) << Fast;
        EXPECT_TRUE(has(Fast, "forge_at + 8 * forge_r * forge_step")) << Fast;
      }
      // Every thread reaches both barriers.
      size_t Syncs = 0;
      for (size_t At = 0; (At = A.find("__syncthreads()", At)) != std::string::npos; ++At)
        ++Syncs;
      EXPECT_EQ(Syncs, 2u) << A;
      // Nothing of the old body is left but what the rewrite writes again.
      EXPECT_FALSE(has(A, "return;")) << A;
    }
  }
}

TEST(TransposeTile, FastPathBlockAndTileVariants) {
  const char *Code = TransposeSpellings[0].Code;
  // The request's block sets the fast path's rows of threads.
  Result R = run("transpose-tile", Code, "k", {{32, 16, 1}});
  ASSERT_EQ(R.Applied.size(), 2u) << R.Skip;
  EXPECT_TRUE(has(R.Applied[0], "blockDim.x == 32 && blockDim.y == 16 && blockDim.z == 1"))
      << R.Applied[0];
  EXPECT_TRUE(has(R.Applied[0], "forge_r < 2; ++forge_r")) << R.Applied[0];
  EXPECT_TRUE(has(R.Applied[1], "forge_r < 4; ++forge_r")) << R.Applied[1];
  // Other blocks: the fast path is for 32 x 8.
  R = run("transpose-tile", Code, "k", {{16, 16, 1}});
  ASSERT_EQ(R.Applied.size(), 2u) << R.Skip;
  EXPECT_TRUE(has(R.Applied[0], "blockDim.x == 32 && blockDim.y == 8 && blockDim.z == 1"));
  // Elements wider than 8 bytes: 32 x 32 tiles only.
  R = run("transpose-tile", R"(struct S4 { double a, b; };
__global__ void k(const S4 *in, S4 *out, int rows, int cols) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < cols && y < rows)
    out[x * rows + y] = in[y * cols + x];
})",
          "k", {{32, 8, 1}});
  ASSERT_EQ(R.Proposals.size(), 1u) << R.Skip;
  EXPECT_TRUE(has(R.Applied[0], "__shared__ S4 forge_tile[32][32 + 1];")) << R.Applied[0];
  // A guard with a lower bound: the full-tile test takes the tile's corner
  // where each term is tightest.
  R = run("transpose-tile", R"(__global__ void k(const float *in, float *out, int rows, int cols, int x0) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= x0 && x < cols && y < rows)
    out[x * rows + y] = in[y * cols + x];
})",
          "k", {{32, 8, 1}});
  ASSERT_EQ(R.Applied.size(), 2u) << R.Skip;
  EXPECT_TRUE(has(R.Applied[0], "const bool forge_full = forge_x0 >= x0 && forge_x0 + 31 < cols && "
                                "forge_y0 + 31 < rows;"))
      << R.Applied[0];
}

TEST(TransposeTile, OneTilePerBlockThroughTheSpec) {
  const char *Code = TransposeSpellings[0].Code;
  measure::ValueMap Env{{"R", 1031}, {"C", 777}};
  auto Eval = [&](const std::string &Text) -> int64_t {
    auto E = measure::IntExpr::parse(Text);
    EXPECT_TRUE(bool(E)) << err(E.takeError());
    if (!E)
      return -1;
    auto V = E->evaluate(Env);
    EXPECT_TRUE(bool(V)) << err(V.takeError());
    return V ? *V : -1;
  };
  Result R = run("transpose-tile", Code, "k", {{32, 8, 1}},
                 {{"grid.x", "ceil_div(C, 32)"}, {"grid.y", "ceil_div(R, 8)"}});
  ASSERT_EQ(R.Proposals.size(), 2u) << R.Skip;
  ASSERT_TRUE(R.Proposals[0].Spec);
  const auto &G = R.Proposals[0].Spec->Geometry;
  EXPECT_EQ(G.count("grid.x"), 0u); // 32 wide already
  EXPECT_EQ(Eval(G.at("grid.y")), 33); // ceil(1031 / 32)
  EXPECT_FALSE(R.Proposals[0].Spec->Justification.empty());
  // 64 x 64 tiles: one per block along both.
  ASSERT_TRUE(R.Proposals[1].Spec);
  EXPECT_EQ(Eval(R.Proposals[1].Spec->Geometry.at("grid.x")), 13); // ceil(777 / 64)
  EXPECT_EQ(Eval(R.Proposals[1].Spec->Geometry.at("grid.y")), 17); // ceil(1031 / 64)
  // 16 x 16 blocks: half the blocks along both.
  R = run("transpose-tile", Code, "k", {{16, 16, 1}},
          {{"grid.x", "ceil_div(C, 16)"}, {"grid.y", "ceil_div(R, 16)"}});
  ASSERT_EQ(R.Proposals.size(), 2u) << R.Skip;
  EXPECT_EQ(Eval(R.Proposals[0].Spec->Geometry.at("grid.x")), 25); // ceil(777 / 32)
  EXPECT_EQ(Eval(R.Proposals[0].Spec->Geometry.at("grid.y")), 33);
  // Without the geometry the grid stays.
  R = run("transpose-tile", Code, "k");
  ASSERT_EQ(R.Proposals.size(), 2u) << R.Skip;
  EXPECT_FALSE(R.Proposals[0].Spec);
}

TEST(TransposeTile, ConstantBlockStridesKeepTheOriginalBodyForOtherBlocks) {
  const char *Code = R"(#define TILE 32
__global__ void k(const float *in, float *out, int rows, int cols) {
  const int x = TILE * blockIdx.x + threadIdx.x;
  const int y = blockIdx.y * (TILE / 4) + threadIdx.y;
  if (x < cols && y < rows)
    out[(size_t)x * rows + y] = in[(size_t)y * cols + x];
})";
  Result R = run("transpose-tile", Code, "k", {{32, 8, 1}},
                 {{"grid.x", "ceil_div(C, 32)"}, {"grid.y", "ceil_div(R, 8)"}});
  ASSERT_EQ(R.Applied.size(), 2u) << R.Skip;
  const std::string &A = R.Applied[0];
  EXPECT_TRUE(has(A, "if (blockDim.x != 32 || blockDim.y != 8) {")) << A;
  // The fast path is for the block the positions fix.
  EXPECT_TRUE(has(A, "const bool forge_fast = blockDim.x == 32 && blockDim.y == 8 && "
                     "blockDim.z == 1;"))
      << A;
  EXPECT_TRUE(has(A, "    const int y = blockIdx.y * (TILE / 4) + threadIdx.y;\n")) << A;
  EXPECT_TRUE(has(A, "= in[y * cols + x];")) << A;
  // The fallback needs the original grid: no spec change.
  EXPECT_FALSE(R.Proposals[0].Spec);
  EXPECT_TRUE(has(R.Proposals[0].Rationale, "the grid stays as it is")) << R.Proposals[0].Rationale;
  // Positions fixed to 16 x 16 blocks: the fast path (32 lanes) would never
  // run, so there is none.
  R = run("transpose-tile", R"(__global__ void k(const float *in, float *out, int rows, int cols) {
  const int x = 16 * blockIdx.x + threadIdx.x;
  const int y = 16 * blockIdx.y + threadIdx.y;
  if (x < cols && y < rows)
    out[(size_t)x * rows + y] = in[(size_t)y * cols + x];
})",
          "k", {{16, 16, 1}});
  ASSERT_EQ(R.Applied.size(), 2u) << R.Skip;
  EXPECT_TRUE(has(R.Applied[0], "if (blockDim.x != 16 || blockDim.y != 16) {")) << R.Applied[0];
  EXPECT_FALSE(has(R.Applied[0], "forge_fast")) << R.Applied[0];
}

TEST(TransposeTile, FlatIndexOverA1DGrid) {
  const char *Code = R"(__global__ void k(const float *in, float *out, int rows, int cols) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < rows * cols) {
    int r = t / cols;
    int c = t % cols;
    out[c * rows + r] = in[t];
  }
})";
  // A 256-thread block is 32 x 8 for the fast path; the blocks of the 1D
  // grid take the tiles in turn; the element guard adds the column's range.
  Result R = run("transpose-tile", Code, "k", {{256, 1, 1}}, {{"grid.x", "ceil_div(R * C, 256)"}});
  ASSERT_EQ(R.Applied.size(), 2u) << R.Skip;
  // The launch stays 1D; the grid shrinks to about one block per tile (32 x
  // 32 and 64 x 64 elements for a grid of one thread per element).
  ASSERT_EQ(R.Proposals.size(), 2u);
  const char *Grids[] = {"ceil_div((ceil_div(R * C, 256)) * 256, 1024)",
                         "ceil_div((ceil_div(R * C, 256)) * 256, 4096)"};
  for (size_t I = 0; I < 2; ++I) {
    const agent::Proposal &P = R.Proposals[I];
    ASSERT_TRUE(P.Spec) << "the grid of one block per tile";
    EXPECT_EQ(P.Spec->Geometry.size(), 1u);
    EXPECT_EQ(P.Spec->Geometry.at("grid.x"), Grids[I]);
  }
  const std::string &A = R.Applied[0];
  EXPECT_TRUE(has(A, "const bool forge_fast = blockDim.x == 256 && blockDim.y == 1 && blockDim.z == 1;")) << A;
  EXPECT_TRUE(has(A, "const unsigned forge_lane = threadIdx.x % 32, forge_row = threadIdx.x / 32;")) << A;
  EXPECT_TRUE(has(A, "for (long long forge_k = blockIdx.x; forge_k < forge_tiles; forge_k += gridDim.x) {")) << A;
  EXPECT_TRUE(has(A, "const long long forge_tiles_x = (cols + 31LL) / 32, forge_tiles_y = (rows + 31LL) / 32;")) << A;
  EXPECT_TRUE(has(A, "if (r * cols + c < (long long)cols * rows && c < cols)")) << A;
  EXPECT_TRUE(has(A, "forge_tile[forge_e / 32][forge_e % 32] = in[r * cols + c];")) << A;
  EXPECT_TRUE(has(A, "out[c * rows + r] = forge_tile[forge_e % 32][forge_e / 32];")) << A;
  EXPECT_TRUE(has(A, "const long long forge_at = forge_py * cols + forge_px, forge_step = cols;")) << A;
  EXPECT_TRUE(has(A, "const bool forge_full = forge_y0 * cols + forge_x0 + 31 * (long long)cols + 31 < "
                     "(long long)cols * rows && forge_x0 + 31 < cols;"))
      << A;
  // threadIdx.y only where forge_t numbers the block's threads.
  EXPECT_EQ(A.find("threadIdx.y"), A.rfind("threadIdx.y")) << A;
  // 128-thread blocks: 32 x 4; 96 threads (not 32 x 2^k): the fast path
  // stays 32 x 8 and 96-thread blocks take the generic loop.
  R = run("transpose-tile", Code, "k", {{128, 1, 1}});
  ASSERT_EQ(R.Applied.size(), 2u) << R.Skip;
  EXPECT_TRUE(has(R.Applied[0], "blockDim.x == 128 && blockDim.y == 1")) << R.Applied[0];
  EXPECT_TRUE(has(R.Applied[0], "forge_r < 8; ++forge_r")) << R.Applied[0];
  R = run("transpose-tile", Code, "k", {{96, 1, 1}});
  ASSERT_EQ(R.Applied.size(), 2u) << R.Skip;
  EXPECT_TRUE(has(R.Applied[0], "blockDim.x == 256 && blockDim.y == 1")) << R.Applied[0];

  // A bound that is not a multiple of the row: the rows up to ceil(n / d),
  // the last one in part (the element guard is the kernel's).
  R = run("transpose-tile", R"(__global__ void k(const float *in, float *out, int rows, int cols, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  out[(t % cols) * rows + t / cols] = in[t];
})",
          "k", {{256, 1, 1}});
  ASSERT_EQ(R.Applied.size(), 2u) << R.Skip;
  EXPECT_TRUE(has(R.Applied[0], "forge_tiles_y = ((-1ll + (long long)cols + (long long)n) / ((long long)cols) + 31LL) / 32;"))
      << R.Applied[0];
  EXPECT_TRUE(has(R.Applied[0], "if (y * cols + x < n && x < cols)")) << R.Applied[0];

  // Refusals, each with its reason.
  auto Skip = [](const char *Code) {
    Result R = run("transpose-tile", Code, "k", {{256, 1, 1}});
    EXPECT_TRUE(R.Proposals.empty());
    return R.Skip;
  };
  std::string Why = Skip(R"(__global__ void k(const float *in, float *out, int rows, int cols) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < rows * cols) out[(t % cols) * rows + t / cols] = in[(t / cols) * rows + t % cols];
})");
  EXPECT_TRUE(has(Why, "is split into rows of 'cols' elements, but the rows of")) << Why;
  Why = Skip(R"(__global__ void k(const float *in, float *out, int rows, int cols) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < rows * cols) out[(t % cols) * rows + t / cols] = in[t] * (t % cols);
})");
  EXPECT_TRUE(has(Why, "the stored value")) << Why;
  Why = Skip(R"(__global__ void k(const float *in, float *out, int rows, int cols) {
  int t = blockIdx.x * blockDim.x + threadIdx.x + 1;
  if (t < rows * cols) out[(t % cols) * rows + t / cols] = in[t];
})");
  EXPECT_TRUE(has(Why, "is not the thread's position")) << Why;
  Why = Skip(R"(__global__ void k(const float *in, float *out, int rows, int cols) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  out[(t % cols) * rows + t / cols] = in[t];
})");
  EXPECT_TRUE(has(Why, "is not guarded")) << Why;
  Why = Skip(R"(__global__ void k(const float *in, float *out, int rows, int cols) {
  for (int t = threadIdx.x; t < rows * cols; t += blockDim.x)
    out[(t % cols) * rows + t / cols] = in[t];
})");
  EXPECT_TRUE(has(Why, "is not a grid-stride loop over the flat index")) << Why;
}

TEST(TransposeTile, Preconditions) {
  auto Skip = [](const char *Code) {
    Result R = run("transpose-tile", Code, "k", {{32, 8, 1}});
    EXPECT_TRUE(R.Proposals.empty());
    return R.Skip;
  };
  std::string Why = Skip(R"(__global__ void k(float *a, int n) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < n && y < n) a[x * n + y] = a[y * n + x];
})");
  EXPECT_TRUE(has(Why, "recognises no transpose")) << Why;
  Why = Skip(R"(__global__ void k(const float *in, float *out, int rows, int cols) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (y < rows) out[x * rows + y] = in[y * cols + x];
})");
  EXPECT_TRUE(has(Why, "does not bound x from above")) << Why;
  Why = Skip(R"(__global__ void k(const float *in, float *out, int rows, int cols) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < cols && y < rows) out[x * rows + y] = in[y * cols + x] * y;
})");
  EXPECT_TRUE(has(Why, "uses 'y', which varies between threads")) << Why;
  Why = Skip(R"(__global__ void k(const float *in, float *out, float *sum, int rows, int cols) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < cols && y < rows) { out[x * rows + y] = in[y * cols + x]; atomicAdd(sum, 1.0f); }
})");
  EXPECT_TRUE(has(Why, "the kernel also writes 'atomicAdd(sum, 1.0f)'")) << Why;
  Why = Skip(R"(__global__ void k(const float *in, float *out, int rows, int cols) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < cols && y < rows && in[y * cols + x] > 0.f) out[x * rows + y] = in[y * cols + x];
})");
  EXPECT_EQ(Why, "the guard 'in[y * cols + x] > 0.f' is not a comparison of integers");
}

//===----------------------------------------------------------------------===//
// coalesced-remap
//===----------------------------------------------------------------------===//

struct ChunkCase {
  const char *Name, *Code, *K;
  /// A piece of the rewritten loop body that must be there.
  const char *Piece;
};

const ChunkCase ChunkSpellings[] = {
    {"base = t * 8, guard per element", R"(__global__ void k(const float *in, float *out, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int base = t * 8;
  for (int k = 0; k < 8; ++k) {
    int i = base + k;
    if (i < n) out[i] = 2.0f * in[i];
  }
})",
     "8", "int i = forge_i;"},
    {"index inline, commuted thread index", R"(__global__ void k(const float *in, float *out, int n) {
  int tid = threadIdx.x + blockDim.x * blockIdx.x;
  for (int k = 0; k < 8; k++)
    if (tid * 8 + k < n) out[tid * 8 + k] = in[tid * 8 + k] + 1.0f;
})",
     "8", "if (forge_i < n) out[forge_i] = in[forge_i] + 1.0f;"},
    {"own range j = t*K .. t*K+K", R"(__global__ void k(const double *x, double *y, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  for (int j = t * 8; j < t * 8 + 8; ++j)
    if (j < n) y[j] = x[j] * x[j];
})",
     "8", "if (forge_i < n) y[forge_i] = x[forge_i] * x[forge_i];"},
    {"min(n, start + 8)", R"(__global__ void k(const float *a, float *b, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int start = t * 8;
  int end = min(n, start + 8);
  for (int i = start; i < end; ++i)
    b[i] = a[i] - 3.0f;
})",
     "8", "if (forge_i >= n) continue;"},
    {"min(start + 8, n), swapped operands", R"(__global__ void k(const float *a, float *b, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = t * 8; i < min(t * 8 + 8, n); ++i)
    b[i] = a[i] - 3.0f;
})",
     "8", "if (forge_i >= n) continue;"},
    {"early return and an extra exit test", R"(__global__ void k(const int *in, int *out, int n) {
  int base = (blockIdx.x * blockDim.x + threadIdx.x) * 4;
  if (base >= n) return;
  for (int k = 0; k < 4 && base + k < n; ++k)
    out[base + k] = in[base + k] ^ 5;
})",
     "4", "if (!(forge_i < n)) continue;"},
    {"if (i >= n) continue", R"(__global__ void k(const float *in, float *out, float s, int n) {
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  for (int q = 0; q < 16; ++q) {
    int i = g * 16 + q;
    if (i >= n) continue;
    out[i] = in[i] * s;
  }
})",
     "16", "if (i >= n) continue;"},
    {"long long index, in place", R"(__global__ void k(float *v, long long n) {
  long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < 8; ++k) {
    long long i = t * 8 + k;
    if (i < n) v[i] = v[i] * 0.5f;
  }
})",
     "8", "long long i = forge_i;"},
};

TEST(CoalescedRemap, RemapsEverySpelling) {
  for (const ChunkCase &C : ChunkSpellings) {
    SCOPED_TRACE(C.Name);
    Result R = run("coalesced-remap", C.Code, "k", {{256, 1, 1}});
    ASSERT_EQ(R.Applied.size(), 1u) << R.Skip;
    const std::string &A = R.Applied[0];
    EXPECT_TRUE(has(A, std::string("for (int forge_k = 0; forge_k < ") + C.K + "; ++forge_k)"))
        << A;
    EXPECT_TRUE(has(A, "(long long)forge_k * blockDim.x + threadIdx.x;")) << A;
    EXPECT_TRUE(has(A, C.Piece)) << A;
    // The block's first element: K * blockIdx.x * blockDim.x.
    EXPECT_TRUE(has(A, std::string(C.K) + " * (long long)blockIdx.x * blockDim.x") ||
                has(A, std::string(C.K) + " * (long long)blockDim.x * blockIdx.x"))
        << A;
    EXPECT_TRUE(has(A, "#pragma unroll")) << A;
    // The block keeps its elements: no spec change.
    EXPECT_FALSE(R.Proposals[0].Spec);
  }
}

TEST(CoalescedRemap, Preconditions) {
  auto Skip = [](const char *Code) {
    Result R = run("coalesced-remap", Code, "k", {{256, 1, 1}});
    EXPECT_TRUE(R.Proposals.empty());
    return R.Skip;
  };
  // A scan: the running sum crosses iterations.
  std::string Why = Skip(R"(__global__ void k(const float *in, float *out, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  float run = 0.0f;
  for (int k = 0; k < 8; ++k) {
    int i = t * 8 + k;
    if (i < n) { run += in[i]; out[i] = run; }
  }
})");
  EXPECT_TRUE(has(Why, "'run' carries a value from one iteration to the next")) << Why;
  // The thread's last element written by every iteration.
  Why = Skip(R"(__global__ void k(const float *in, float *out, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < 8; ++k)
    if (t * 8 + 7 < n) out[t * 8 + 7] = in[t * 8 + k];
})");
  EXPECT_TRUE(has(Why, "is not the iteration's own element")) << Why;
  // The position as a value.
  Why = Skip(R"(__global__ void k(const float *in, float *out, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < 8; ++k) {
    int i = t * 8 + k;
    if (i < n) out[i] = in[i] + (float)(k & 1);
  }
})");
  EXPECT_TRUE(has(Why, "uses 'k' other than through the element index")) << Why;
  // A shared-memory staging buffer.
  Why = Skip(R"(__global__ void k(const float *in, float *out, int n) {
  __shared__ float s[2048];
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < 8; ++k) {
    int i = t * 8 + k;
    if (i < n) { s[threadIdx.x * 8 + k] = in[i]; out[i] = s[threadIdx.x * 8 + k]; }
  }
})");
  EXPECT_TRUE(has(Why, "in shared memory")) << Why;
  // The chunk's start varies with threadIdx.y too.
  Why = Skip(R"(__global__ void k(const float *in, float *out, int n) {
  int t = (blockIdx.x * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  for (int k = 0; k < 8; ++k) {
    int i = t * 8 + k;
    if (i < n) out[i] = in[i];
  }
})");
  EXPECT_TRUE(has(Why, "differs between the threads of a block other than through threadIdx.x"))
      << Why;
  // Whole chunks only.
  Why = Skip(R"(__global__ void k(const float *in, float *out, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t * 8 + 8 > n) return;
  for (int k = 0; k < 8; ++k)
    out[t * 8 + k] = in[t * 8 + k];
})");
  EXPECT_TRUE(has(Why, "varies between threads")) << Why;
}

} // namespace
