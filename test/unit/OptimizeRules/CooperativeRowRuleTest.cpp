//===- CooperativeRowRuleTest.cpp - cooperative-row on many spellings -----===//
//
// The rule on per-thread row loops written in many ways (index spellings,
// guard styles, loop and accumulator types, row pointers, grid-stride row
// loops, 2D launches), parsed against the mock CUDA headers: each must be
// shared by the lanes of a warp with a butterfly after it; and on kernels
// it must refuse, with the reason. The lit tests (test/passes/
// cooperative-row/) cover the command line, real CUDA headers and nvcc.
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

namespace {

using forge::testing::err;

/// Math functions the mock headers do not declare.
const char *Prelude = "__device__ float fmaxf(float, float);\n"
                      "__device__ float fminf(float, float);\n"
                      "__device__ double fmax(double, double);\n"
                      "__device__ float expf(float);\n"
                      "__device__ float fabsf(float);\n";

struct Outcome {
  std::vector<agent::Proposal> Proposals;
  std::string Skip;
  std::string Applied; ///< the first proposal applied
};

Outcome run(const std::string &Body, const std::string &Kernel,
            std::optional<std::array<int64_t, 3>> Block = std::array<int64_t, 3>{256, 1, 1},
            std::map<std::string, std::string> Geometry = {}) {
  forge::testing::RuleRunOptions Opts;
  Opts.Block = Block;
  Opts.Geometry = std::move(Geometry);
  forge::testing::RuleRun R =
      forge::testing::runRule("cooperative-row", std::string(Prelude) + Body, Kernel, Opts);
  Outcome O;
  O.Proposals = std::move(R.Proposals);
  O.Skip = std::move(R.Skip);
  if (!R.Applied.empty())
    O.Applied = R.Applied.front();
  return O;
}

using forge::testing::has;

struct Spelling {
  const char *Name;
  const char *Code;
  /// Lines the rewrite must contain (the shared loop, the butterfly, ...).
  std::vector<const char *> Has;
};

// Kernels are all named k.
const Spelling Positives[] = {
    {"int index, braces guard",
     R"(__global__ void k(const float *A, const float *x, float *y, int m, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < m) {
    float s = 0.0f;
    for (int c = 0; c < n; ++c)
      s += A[row * n + c] * x[c];
    y[row] = s;
  }
})",
     {"for (int c = c_rest + lane; c < n; c += 32)", "float4 A_v",
      "s += __shfl_xor_sync(0xffffffff, s, offset);", "if (lane == 0)"}},
    {"threadIdx first, early return, postfix increment",
     R"(__global__ void k(const float *A, float *y, int m, int n) {
  int i = threadIdx.x + blockDim.x * blockIdx.x;
  if (i >= m) return;
  float acc = 0;
  for (int j = 0; j < n; j++) acc += A[i * n + j];
  y[i] = acc;
})",
     {"int i = orig_tid + blockDim.x * orig_bid;", "j += 32",
      "acc += __shfl_xor_sync(0xffffffff, acc, offset);"}},
    {"size_t casts and a row offset local",
     R"(__global__ void k(const float *A, float *y, int m, int n) {
  size_t r = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (r < (size_t)m) {
    size_t base = r * (size_t)n;
    float t = 0;
    for (int c = 0; c < n; c += 1)
      t += A[base + c];
    y[r] = t;
  }
})",
     {"size_t r = (size_t)orig_bid * blockDim.x + orig_tid;", "c += 32",
      "t += __shfl_xor_sync(0xffffffff, t, offset);"}},
    {"row pointer, locals for the ids",
     R"(__global__ void k(const float *A, float *y, int m, int n) {
  const int tid = threadIdx.x;
  const int bid = blockIdx.x;
  const int nthreads = blockDim.x;
  const int row = bid * nthreads + tid;
  if (row < m) {
    const float *a = A + row * n;
    float mx = a[0];
    for (int c = 1; c < n; ++c)
      mx = fmaxf(mx, a[c]);
    y[row] = mx;
  }
})",
     {"const int tid = orig_tid;", "const int bid = orig_bid;", "c += 32",
      "mx = fmaxf(mx, __shfl_xor_sync(0xffffffff, mx, offset));"}},
    {"ternary max, unsigned loop",
     R"(__global__ void k(const int *A, int *y, unsigned m, unsigned n) {
  unsigned row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < m) {
    int best = -2147483647;
    for (unsigned c = 0; c < n; ++c)
      best = A[row * n + c] > best ? A[row * n + c] : best;
    y[row] = best;
  }
})",
     {"c += 32", "best = best < __shfl_xor_sync(0xffffffff, best, offset) ? "
                 "__shfl_xor_sync(0xffffffff, best, offset) : best;"}},
    {"double, a grid-stride loop over rows",
     R"(__global__ void k(const double *A, double *y, int m, int n) {
  for (int r = blockIdx.x * blockDim.x + threadIdx.x; r < m; r += gridDim.x * blockDim.x) {
    double s = 0.0;
    for (int c = 0; c < n; ++c)
      s += A[(long)r * n + c] * A[(long)r * n + c];
    y[r] = s;
  }
})",
     {"r += orig_grid * blockDim.x", "double2 A_v", "c += 32"}},
    {"a 2D grid: rows along x, batches along y",
     R"(__global__ void k(const float *A, float *y, int m, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  int b = blockIdx.y;
  if (row < m && b < 8) {
    float s = 0;
    for (int c = 0; c < n; ++c)
      s += A[(b * m + row) * n + c];
    y[b * m + row] = s;
  }
})",
     {"int b = blockIdx.y;", "c += 32", "y[b * m + row] = s;"}},
    {"a product reduction",
     R"(__global__ void k(const float *A, float *y, int m, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < m) {
    float p = 1.0f;
    for (int c = 0; c < n; ++c)
      p *= A[row * n + c];
    y[row] = p;
  }
})",
     {"p *= __shfl_xor_sync(0xffffffff, p, offset);"}},
    {"two outputs and two reductions in one loop",
     R"(__global__ void k(const float *A, float *mean, float *peak, int m, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < m) {
    float s = 0, mx = -1e30f;
    for (int c = 0; c < n; ++c) {
      float v = A[row * n + c];
      s += v;
      mx = fmaxf(mx, v);
    }
    mean[row] = s / n;
    peak[row] = mx;
  }
})",
     {"s += __shfl_xor_sync(0xffffffff, s, offset);",
      "mx = fmaxf(mx, __shfl_xor_sync(0xffffffff, mx, offset));", "mean[row] = s / n;",
      "peak[row] = mx;"}},
    {"softmax in place, 3 passes",
     R"(__global__ void k(float *x, int rows, int cols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    float *p = x + row * cols;
    float mx = p[0];
    for (int j = 1; j < cols; ++j)
      mx = fmaxf(mx, p[j]);
    float sum = 0;
    for (int j = 0; j < cols; ++j)
      sum += expf(p[j] - mx);
    for (int j = 0; j < cols; ++j)
      p[j] = expf(p[j] - mx) / sum;
  }
})",
     {"__syncwarp();", "p[j] = expf(p[j] - mx) / sum;",
      "sum += __shfl_xor_sync(0xffffffff, sum, offset);"}},
    {"an argmax from the first element: (value, position) pairs, the earlier among equals",
     R"(__global__ void k(const float *A, int *y, int m, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < m) {
    float b = A[row * n];
    int bi = 0;
    for (int c = 1; c < n; ++c)
      if (A[row * n + c] > b) {
        b = A[row * n + c];
        bi = c;
      }
    y[row] = bi;
  }
})",
     {"const float b_other = __shfl_xor_sync(0xffffffff, b, offset);",
      "const int bi_other = __shfl_xor_sync(0xffffffff, bi, offset);",
      "if (b_other > b || (b_other == b && bi_other < bi)) {", "y[row] = bi;"}},
    {"an argmin of unsigned values with a size_t position",
     R"(__global__ void k(const unsigned *A, unsigned long *y, int m, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= m)
    return;
  unsigned lo = 0xffffffffu;
  unsigned long at = 0;
  for (int c = 0; c < n; ++c) {
    unsigned v = A[(unsigned long)row * n + c];
    if (v < lo) {
      lo = v;
      at = c;
    }
  }
  y[row] = at;
})",
     {"if (lo_other < lo || (lo_other == lo && at_other < at)) {"}},
};

TEST(CooperativeRow, SharesRowLoopsWrittenInManyWays) {
  for (const Spelling &S : Positives) {
    SCOPED_TRACE(S.Name);
    Outcome O = run(S.Code, "k");
    ASSERT_EQ(O.Proposals.size(), 2u) << O.Skip;
    EXPECT_TRUE(has(O.Applied, "if (blockDim.x % 32 != 0) {")) << O.Applied;
    EXPECT_TRUE(has(O.Applied, "const unsigned int warp_id = blockIdx.x * (blockDim.x / 32) + "
                               "threadIdx.x / 32;"))
        << O.Applied;
    for (const char *L : S.Has)
      EXPECT_TRUE(has(O.Applied, L)) << "missing: " << L << "\n" << O.Applied;
    EXPECT_TRUE(has(O.Proposals[1].Summary, "one block per row")) << O.Proposals[1].Summary;
  }
}

// A running value stored at each element (the model's serial scan) is
// scanned by the warp: one proposal (no block per row), the lanes' operands
// scanned with __shfl_up_sync, the carry broadcast from the last lane.
TEST(CooperativeRow, ScansARowWithAWarp) {
  Outcome O = run(R"(__global__ void k(const float *A, float *B, int m, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < m) {
    float s = 0;
    for (int c = 0; c < n; ++c) {
      B[row * n + c] = s;
      s += A[row * n + c];
    }
  }
})",
                  "k");
  ASSERT_EQ(O.Proposals.size(), 1u) << O.Skip;
  EXPECT_TRUE(has(O.Proposals[0].Summary, "row scan (exclusive, +) of 's'"))
      << O.Proposals[0].Summary;
  EXPECT_TRUE(has(O.Proposals[0].Rationale, "re-associated")) << O.Proposals[0].Rationale;
  for (const char *L : {"const float s_up = __shfl_up_sync(s_mask, s_scan, offset);",
                        "s = __shfl_sync(s_mask, s, s_lanes - 1); // the carry: the last lane's "
                        "value",
                        "s = __shfl_sync(0xffffffff, s, 31); // the carry: lane 31's value"})
    EXPECT_TRUE(has(O.Applied, L)) << "missing: " << L << "\n" << O.Applied;
}

TEST(CooperativeRow, SpecChangeGrowsTheGridByAWarpOrABlock) {
  Outcome O = run(Positives[0].Code, "k", std::array<int64_t, 3>{128, 1, 1},
                  {{"grid.x", "ceil_div(M, BLOCK)"}, {"block.x", "BLOCK"}});
  ASSERT_EQ(O.Proposals.size(), 2u) << O.Skip;
  measure::ValueMap Env{{"M", 1001}, {"BLOCK", 128}};
  auto Eval = [&](const agent::Proposal &P) -> int64_t {
    if (!P.Spec)
      return -1;
    auto E = measure::IntExpr::parse(P.Spec->Geometry.at("grid.x"));
    EXPECT_TRUE(bool(E)) << err(E.takeError());
    if (!E)
      return -1;
    auto V = E->evaluate(Env);
    EXPECT_TRUE(bool(V)) << err(V.takeError());
    return V ? *V : -1;
  };
  EXPECT_EQ(Eval(O.Proposals[0]), 8 * 32);  // 8 blocks of 128 rows, a warp per row
  EXPECT_EQ(Eval(O.Proposals[1]), 8 * 128); // a block per row
  EXPECT_FALSE(O.Proposals[0].Spec->Justification.empty());
  EXPECT_TRUE(O.Proposals[0].Spec->NewTunables.empty());
}

TEST(CooperativeRow, UnknownBlockStillGuardedOnTheDevice) {
  Outcome O = run(Positives[0].Code, "k", std::nullopt);
  ASSERT_FALSE(O.Proposals.empty()) << O.Skip;
  EXPECT_TRUE(has(O.Applied, "if (blockDim.x % 32 != 0) {"));
  EXPECT_TRUE(has(O.Proposals[0].Rationale, "launch it with gridDim.x = 32 x the original"));
}

struct Refusal {
  const char *Name;
  const char *Code;
  const char *Why;
  std::array<int64_t, 3> Block = {256, 1, 1};
};

const Refusal Refusals[] = {
    {"column-major product",
     R"(__global__ void k(const float *A, const float *x, float *y, int m, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < m) {
    float s = 0;
    for (int c = 0; c < n; ++c)
      s += A[c * m + row] * x[c];
    y[row] = s;
  }
})",
     "which is already coalesced across the warp"},
    {"row read along with a coalesced column",
     R"(__global__ void k(const float *A, const float *B, float *y, int m, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < m) {
    float s = 0;
    for (int c = 0; c < n; ++c)
      s += A[row * n + c] * B[c * m + row];
    y[row] = s;
  }
})",
     "down a column (coalesced now)"},
    {"a running value that is not a scan (a decayed sum written per element)",
     R"(__global__ void k(const float *A, float *B, int m, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < m) {
    float s = 0;
    for (int c = 0; c < n; ++c) {
      s = s * 0.5f + A[row * n + c];
      B[row * n + c] = s;
    }
  }
})",
     "carries 's'"},
    {"a write at a fixed element inside the loop",
     R"(__global__ void k(const float *A, float *y, int m, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < m) {
    for (int c = 0; c < n; ++c)
      y[row] = A[row * n + c];
  }
})",
     "at an element that does not move with 'c'"},
    {"early exit",
     R"(__global__ void k(const float *A, float *y, int m, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < m) {
    float s = 0;
    for (int c = 0; c < n; ++c) {
      if (A[row * n + c] == 0.0f)
        return;
      s += A[row * n + c];
    }
    y[row] = s;
  }
})",
     "may leave early"},
    {"an exit test besides the bound",
     R"(__global__ void k(const float *A, float *y, int m, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < m) {
    float s = 0;
    for (int c = 0; c < n && A[row * n + c] != 0.0f; ++c)
      s += A[row * n + c];
    y[row] = s;
  }
})",
     "also tests"},
    {"argmax with a non-strict comparison (the last of equal values)",
     R"(__global__ void k(const float *A, int *y, int m, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < m) {
    float b = A[row * n];
    int bi = 0;
    for (int c = 1; c < n; ++c)
      if (A[row * n + c] >= b) {
        b = A[row * n + c];
        bi = c;
      }
    y[row] = bi;
  }
})",
     "only a strict comparison is rewritten"},
    {"barrier in the kernel",
     R"(__global__ void k(const float *A, float *y, int m, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  __syncthreads();
  if (row < m) {
    float s = 0;
    for (int c = 0; c < n; ++c)
      s += A[row * n + c];
    y[row] = s;
  }
})",
     "'__syncthreads'"},
    {"the accumulator updated outside the row loop too",
     R"(__global__ void k(const float *A, float *y, int m, int n, int reps) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < m) {
    float s = 0;
    for (int r = 0; r < reps; ++r) {
      s += 1.0f;
      for (int c = 0; c < n; ++c)
        s += A[row * n + c];
    }
    y[row] = s;
  }
})",
     "also updated outside the row loop"},
    {"a block that is not whole warps",
     R"(__global__ void k(const float *A, float *y, int m, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < m) {
    float s = 0;
    for (int c = 0; c < n; ++c)
      s += A[row * n + c];
    y[row] = s;
  }
})",
     "blockDim.x is not a multiple of 32",
     {48, 1, 1}},
    {"elementwise",
     R"(__global__ void k(const float *a, float *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    b[i] = a[i] + 1.0f;
})",
     "no per-thread row loop"},
    {"a short compile-time row",
     R"(__global__ void k(const float *A, float *y, int m) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < m) {
    float s = 0;
    for (int c = 0; c < 4; ++c)
      s += A[row * 4 + c];
    y[row] = s;
  }
})",
     "too short for a warp"},
};

TEST(CooperativeRow, RefusesWithTheReason) {
  for (const Refusal &R : Refusals) {
    SCOPED_TRACE(R.Name);
    Outcome O = run(R.Code, "k", R.Block);
    EXPECT_TRUE(O.Proposals.empty()) << O.Applied;
    EXPECT_TRUE(has(O.Skip, R.Why)) << O.Skip;
  }
}

} // namespace

namespace {

// Rows walked by one thread of a block: the block's threads share them, the
// launch stays, and the writes keep the guard. Kernels are all named k.
const Spelling SinglePositives[] = {
    {"if (threadIdx.x == 0) around the row",
     R"(__global__ void k(const float *a, float *out, int n) {
  int row = blockIdx.x;
  if (threadIdx.x == 0) {
    float s = 0;
    for (int c = 0; c < n; ++c)
      s += a[row * n + c];
    out[row] = s;
  }
})",
     {"for (int c = c_rest + lane; c < n; c += lanes)",
      "const float s_other = __shfl_down_sync(warp_mask, s, offset);",
      "if (lane % 32 + offset < warp_lanes)", "for (int w = 1; w < (lanes + 31) / 32; ++w)",
      "if (threadIdx.x == 0)\n      out[row] = s;"}},
    {"early return, then a 2D grid's row in size_t",
     R"(__global__ void k(const double *a, double *out, size_t n) {
  if (threadIdx.x != 0)
    return;
  size_t row = (size_t)blockIdx.y * gridDim.x + blockIdx.x;
  double s = 0;
  for (size_t c = 0; c < n; c++)
    s += a[row * n + c];
  out[row] = s;
})",
     {"for (size_t c = c_rest + lane; c < n; c += lanes)", "__shared__ double s_part[32];",
      "if (threadIdx.x == 0)\n    out[row] = s;"}},
    {"a thread-index local in the guard with the row bound, a min seeded with the first element",
     R"(__global__ void k(const int *a, int *out, int m, int n) {
  int t = threadIdx.x;
  int row = blockIdx.x;
  if (row < m && t == 0) {
    int lo = a[row * n];
    for (int c = 1; c < n; ++c)
      lo = a[row * n + c] < lo ? a[row * n + c] : lo;
    out[row] = lo;
  }
})",
     {"if (row < m) {", "for (int c = c_rest + lane; c < n; c += lanes)",
      "if (row < m && t == 0)\n      out[row] = lo;"}},
    {"grid-stride rows of a 2D block, both thread indices tested",
     R"(__global__ void k(const float *A, const float *x, float *y, int m, int n) {
  for (int row = blockIdx.x; row < m; row += gridDim.x)
    if (threadIdx.x == 0 && threadIdx.y == 0) {
      float acc = 1.0f;
      for (int c = 0; c < n; ++c)
        acc += A[(size_t)row * n + c] * x[c];
      y[row] = acc;
    }
})",
     {"const int lane = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);",
      "if (lane != 0)", "if (threadIdx.x == 0 && threadIdx.y == 0)"}},
};

TEST(CooperativeRow, SharesRowsOfOneThreadAmongTheBlock) {
  for (const Spelling &S : SinglePositives) {
    SCOPED_TRACE(S.Name);
    Outcome O = run(S.Code, "k", std::array<int64_t, 3>{96, 1, 1}, {{"grid.x", "M"}});
    ASSERT_EQ(O.Proposals.size(), 1u) << O.Skip;
    EXPECT_FALSE(O.Proposals[0].Spec.has_value()) << "the launch must not change";
    for (const char *H : S.Has)
      EXPECT_TRUE(has(O.Applied, H)) << "missing: " << H << "\n" << O.Applied;
    // No fallback and no remapped thread: the block keeps its own indices.
    EXPECT_FALSE(has(O.Applied, "orig_tid")) << O.Applied;
    EXPECT_FALSE(has(O.Applied, "0xffffffff, ")) << O.Applied;
  }
}

const Refusal SingleRefusals[] = {
    {"a write inside the row",
     R"(__global__ void k(const float *a, float *b, int n) {
  int row = blockIdx.x;
  if (threadIdx.x == 0)
    for (int c = 0; c < n; ++c)
      b[row * n + c] = 2.0f * a[row * n + c];
})",
     "only rows that are read are shared"},
    {"the result read by the other threads without a barrier",
     R"(__global__ void k(const float *a, float *out, float *y, int n) {
  int row = blockIdx.x;
  if (threadIdx.x == 0) {
    float s = 0;
    for (int c = 0; c < n; ++c)
      s += a[row * n + c];
    out[row] = s;
  }
  y[row * blockDim.x + threadIdx.x] = out[row];
})",
     "with no __syncthreads() between"},
    {"the accumulator read outside the guard",
     R"(__global__ void k(const float *a, float *out, int n) {
  int row = blockIdx.x;
  float s = 0;
  if (threadIdx.x == 0)
    for (int c = 0; c < n; ++c)
      s += a[row * n + c];
  out[row] = s;
})",
     "is computed in the guarded region and read outside it"},
    {"a second thread-varying guard",
     R"(__global__ void k(const float *a, float *out, int n) {
  int row = blockIdx.x;
  if (threadIdx.x < 64)
    if (threadIdx.x == 0) {
      float s = 0;
      for (int c = 0; c < n; ++c)
        s += a[row * n + c];
      out[row] = s;
    }
})",
     "more than one condition that differs between threads"},
    {"a guard on a thread that may not exist",
     R"(__global__ void k(const float *a, float *out, int n) {
  int row = blockIdx.x;
  if (threadIdx.x == 40) {
    float s = 0;
    for (int c = 0; c < n; ++c)
      s += a[row * n + c];
    out[row] = s;
  }
})",
     "cannot show thread 0 of every block to pass"},
    {"a block of one thread",
     R"(__global__ void k(const float *a, float *out, int n) {
  int row = blockIdx.x;
  if (threadIdx.x == 0) {
    float s = 0;
    for (int c = 0; c < n; ++c)
      s += a[row * n + c];
    out[row] = s;
  }
})",
     "the block has 1 thread", {1, 1, 1}},
};

TEST(CooperativeRow, RefusesRowsOfOneThreadWithTheReason) {
  for (const Refusal &R : SingleRefusals) {
    SCOPED_TRACE(R.Name);
    Outcome O = run(R.Code, "k", R.Block);
    EXPECT_TRUE(O.Proposals.empty()) << O.Applied;
    EXPECT_TRUE(has(O.Skip, R.Why)) << O.Skip;
  }
}

} // namespace
