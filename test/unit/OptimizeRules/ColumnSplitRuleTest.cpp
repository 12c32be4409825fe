//===- ColumnSplitRuleTest.cpp - column-split on many spellings -----------===//
//
// The rule on per-thread column loops written in many ways (index types, a
// flat index, while loops, pointer walks, guards, operators, 2D grids),
// parsed against the mock CUDA headers with a launch of few threads in the
// same file: each must be split over the block's warps (start and step in
// slices, partials combined in slice order by the last slice to arrive);
// the spec's grid grows by blockDim.x / 32; and the kernels it must refuse,
// with the reason. The lit tests (test/passes/column-split/) cover the
// command line, real CUDA headers and nvcc.
//
//===----------------------------------------------------------------------===//
#include "RuleHarness.h"
#include "forge/Measure/IntExpr.h"
#include "forge/Measure/LaunchSpec.h"
#include "gtest/gtest.h"

using namespace forge;
using forge::testing::has;

namespace {

const char *Prelude = "__device__ float fmaxf(float, float);\n"
                      "__device__ float fminf(float, float);\n";

forge::testing::RuleRun run(const std::string &Code, const std::string &Kernel,
                            std::array<int64_t, 3> Block = {256, 1, 1},
                            const measure::LaunchSpec *Spec = nullptr,
                            std::map<std::string, std::string> Geometry = {}) {
  forge::testing::RuleRunOptions O;
  O.Block = Block;
  O.Geometry = std::move(Geometry);
  O.SmCount = 132;
  O.Spec = Spec;
  return forge::testing::runRule("column-split", std::string(Prelude) + Code, Kernel, O);
}

struct Spelling {
  const char *Name;
  const char *Code;
  std::vector<const char *> Has;
};

// Kernels are all named k and launched with 16 blocks of 256 threads.
const Spelling Positives[] = {
    {"int index, early return",
     R"(__global__ void k(const float *a, float *out, int rows, int cols) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= cols) return;
  float s = 0.f;
  for (int r = 0; r < rows; ++r) s += a[(size_t)r * cols + j];
  out[j] = s;
}
void h(const float *a, float *o) { k<<<16, 256>>>(a, o, 16384, 4096); })",
     {"for (int r = slice; r < rows; r += slices)", "int j = orig_bid * blockDim.x + orig_tid;",
      "s += s_part[k2 * 32 + lane];"}},
    {"threadIdx first, braces guard, postfix, post-loop expression",
     R"(__global__ void k(const float *a, float *out, int rows, int cols, float scale) {
  int c = threadIdx.x + blockDim.x * blockIdx.x;
  if (c < cols) {
    float acc = 0;
    for (int i = 0; i < rows; i++) {
      acc += a[i * cols + c];
    }
    out[c] = acc * scale;
  }
}
void h(const float *a, float *o) { k<<<16, 256>>>(a, o, 16384, 4096, 0.5f); })",
     {"int c = orig_tid + blockDim.x * orig_bid;", "for (int i = slice; i < rows; i += slices) {",
      "out[c] = acc * scale;", "acc += acc_part[k2 * 32 + lane];"}},
    {"size_t flat index stepping by cols",
     R"(__global__ void k(const double *a, double *out, size_t rows, size_t cols) {
  size_t j = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (j >= cols) return;
  double s = 0;
  for (size_t e = j; e < rows * cols; e += cols) s += a[e];
  out[j] = s;
}
void h(const double *a, double *o) { k<<<16, 256>>>(a, o, 16384, 4096); })",
     {"for (size_t e = j + slice * cols; e < rows * cols; e += slices * cols)",
      "__shared__ double s_part[1024];"}},
    {"while loop, integer max",
     R"(__global__ void k(const int *a, int *out, int rows, int cols) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= cols) return;
  int m = a[j];
  int r = 1;
  while (r < rows) {
    m = a[r * cols + j] > m ? a[r * cols + j] : m;
    ++r;
  }
  out[j] = m;
})"
     "\nvoid h(const int *a, int *o) { k<<<16, 256>>>(a, o, 16384, 4096); }",
     {"int r = 1 + slice;", "r += slices;", "m = m < m_part[k2 * 32 + lane] ? m_part[k2 * 32 + lane] : m;"}},
    {"pointer walk in the body, fminf",
     R"(__global__ void k(const float *a, float *out, int rows, int cols) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= cols) return;
  const float *p = a + j;
  float m = 1e30f;
  for (int r = 0; r < rows; ++r) {
    m = fminf(m, *p);
    p += cols;
  }
  out[j] = m;
}
void h(const float *a, float *o) { k<<<16, 256>>>(a, o, 16384, 4096); })",
     {"p += slice * cols;", "p += slices * cols;", "m = fminf(m, m_part[k2 * 32 + lane]);"}},
    {"2D grid, two accumulators, a bias counted once",
     R"(__global__ void k(const float *a, const float *bias, float *out, int rows, int cols) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int b = blockIdx.y;
  if (j >= cols) return;
  float s = bias[j];
  unsigned n = 0;
  for (int r = 0; r < rows; ++r) {
    float v = a[((size_t)b * rows + r) * cols + j];
    s += v;
    n |= v > 0.f ? 1u : 0u;
  }
  out[b * cols + j] = s + n;
}
void h(const float *a, const float *bi, float *o) { k<<<dim3(16, 4), 256>>>(a, bi, o, 8192, 4096); })",
     {"if (slice != 0) s = 0;", "int b = blockIdx.y;", "n |= n_part[k2 * 32 + lane];",
      "s_part[threadIdx.x] = s;"}},
};

TEST(ColumnSplitRule, SplitsColumnLoops) {
  for (const Spelling &S : Positives) {
    SCOPED_TRACE(S.Name);
    auto R = run(S.Code, "k");
    ASSERT_EQ(R.Proposals.size(), 1u) << R.Skip;
    ASSERT_EQ(R.Applied.size(), 1u);
    const std::string &A = R.Applied[0];
    for (const char *Line : S.Has)
      EXPECT_TRUE(has(A, Line)) << "missing '" << Line << "' in\n" << A;
    // The shape every rewrite has: the device check with the original body,
    // the original thread's indices, the counter and its barrier, the
    // last slice's combine.
    EXPECT_TRUE(has(A, "if (blockDim.x % 32 != 0 || blockDim.y != 1 || blockDim.z != 1) {")) << A;
    EXPECT_TRUE(has(A, "const unsigned int orig_thread = blockIdx.x * 32 + lane;")) << A;
    EXPECT_TRUE(has(A, "__syncthreads();")) << A;
    EXPECT_TRUE(has(A, "if (atomicAdd(&arrived[lane], 1u) != (unsigned int)slices - 1u)")) << A;
    EXPECT_TRUE(has(A, "for (int k2 = 1; k2 < slices; ++k2)")) << A;
    EXPECT_EQ(R.Proposals[0].Origin, "expert:column-split");
    // No spec: the rationale says how to launch it.
    EXPECT_FALSE(R.Proposals[0].Spec);
    EXPECT_TRUE(has(R.Proposals[0].Rationale, "launch it with gridDim.x = blockDim.x / 32"))
        << R.Proposals[0].Rationale;
  }
}

measure::LaunchSpec colsumSpec(const std::string &Block, const std::string &Tunables) {
  std::string Text = R"J({"kernel": "k", "sizes": {"ROWS": 16384, "COLS": 4096},
    "buffers": [{"name": "a", "dtype": "f32", "count": "ROWS * COLS", "role": "in", "init": {"kind": "uniform", "min": -1, "max": 1}},
                {"name": "out", "dtype": "f32", "count": "COLS", "role": "out"}],
    "scalars": [{"name": "rows", "dtype": "i32", "value": "ROWS"},
                {"name": "cols", "dtype": "i32", "value": "COLS"}],
    "args": ["a", "out", "rows", "cols"],
    "grid": ["ceil_div(COLS, )J" + Block + R"J()"], "block": [")J" + Block + R"J("])J" +
                     Tunables + "}";
  auto S = measure::parseLaunchSpec(Json::parse(Text), "test.json");
  EXPECT_TRUE(bool(S)) << forge::testing::err(S.takeError());
  return S ? *S : measure::LaunchSpec();
}

const char *Colsum = R"(__global__ void k(const float *a, float *out, int rows, int cols) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= cols) return;
  float s = 0.f;
  for (int r = 0; r < rows; ++r) s += a[(size_t)r * cols + j];
  out[j] = s;
})";

TEST(ColumnSplitRule, SpecGridGrowsByTheSlices) {
  measure::LaunchSpec Spec = colsumSpec("256", "");
  auto R = run(Colsum, "k", {256, 1, 1}, &Spec,
               {{"grid.x", "ceil_div(COLS, 256)"}, {"block.x", "256"}});
  ASSERT_EQ(R.Proposals.size(), 1u) << R.Skip;
  const agent::Proposal &P = R.Proposals[0];
  ASSERT_TRUE(P.Spec);
  EXPECT_EQ(P.Spec->Geometry.at("grid.x"), "(ceil_div(COLS, 256)) * ((256) / 32)");
  // A literal block needs no constraint, and nothing can change it.
  EXPECT_TRUE(P.Spec->NewConstraints.empty());
  EXPECT_TRUE(P.Spec->Values.empty());
  auto G = measure::IntExpr::parse(P.Spec->Geometry.at("grid.x"));
  ASSERT_TRUE(bool(G));
  auto V = G->evaluate({{"COLS", 4096}});
  ASSERT_TRUE(bool(V));
  EXPECT_EQ(*V, 16 * 8);
  EXPECT_TRUE(has(P.Rationale, "on a launch of 4096 threads (the spec's launch)")) << P.Rationale;
  EXPECT_TRUE(has(P.Rationale, "re-associated")) << P.Rationale;
}

TEST(ColumnSplitRule, SpecBlockTunableGrowsAndIsConstrained) {
  measure::LaunchSpec Spec = colsumSpec(
      "BLOCK", R"J(, "tunables": [{"name": "BLOCK", "values": [128, 256, 512], "default": 256}])J");
  auto R = run(Colsum, "k", {256, 1, 1}, &Spec,
               {{"grid.x", "ceil_div(COLS, BLOCK)"}, {"block.x", "BLOCK"}});
  ASSERT_EQ(R.Proposals.size(), 1u) << R.Skip;
  const agent::Proposal &P = R.Proposals[0];
  ASSERT_TRUE(P.Spec);
  EXPECT_EQ(P.Spec->Geometry.at("grid.x"), "(ceil_div(COLS, BLOCK)) * ((BLOCK) / 32)");
  ASSERT_EQ(P.Spec->NewConstraints.size(), 1u);
  EXPECT_EQ(P.Spec->NewConstraints[0], "(BLOCK) % 32 == 0");
  // 1024 is not a candidate; 512 is the largest block the spec allows.
  ASSERT_EQ(P.Spec->Values.count("BLOCK"), 1u);
  EXPECT_EQ(P.Spec->Values.at("BLOCK"), 512);
  EXPECT_TRUE(has(P.Summary, "16 slices")) << P.Summary;
}

struct Refusal {
  const char *Name;
  const char *Code;
  const char *Why;
  std::array<int64_t, 3> Block = {256, 1, 1};
};

const Refusal Refusals[] = {
    {"enough threads",
     R"(__global__ void k(const float *a, float *out, int rows, int cols) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= cols) return;
  float s = 0.f;
  for (int r = 0; r < rows; ++r) s += a[(size_t)r * cols + j];
  out[j] = s;
}
void h(const float *a, float *o) { k<<<2048, 256>>>(a, o, 64, 524288); })",
     "enough threads already"},
    {"a row per thread",
     R"(__global__ void k(const float *a, float *out, int rows, int cols) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= rows) return;
  float s = 0.f;
  for (int c = 0; c < cols; ++c) s += a[(size_t)i * cols + c];
  out[i] = s;
}
void h(const float *a, float *o) { k<<<16, 256>>>(a, o, 4096, 4096); })",
     "the column index is not unit-stride in threadIdx.x"},
    {"no launch",
     R"(__global__ void k(const float *a, float *out, int rows, int cols) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= cols) return;
  float s = 0.f;
  for (int r = 0; r < rows; ++r) s += a[(size_t)r * cols + j];
  out[j] = s;
})",
     "the launch's thread count is not known"},
    {"not a reduction",
     R"(__global__ void k(const float *a, float *out, int rows, int cols) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= cols) return;
  float s = 0.f;
  for (int r = 0; r < rows; ++r) s = s * 0.9f + a[(size_t)r * cols + j];
  out[j] = s;
}
void h(const float *a, float *o) { k<<<16, 256>>>(a, o, 4096, 4096); })",
     "carries 's' from one iteration to the next, and it is not a reduction"},
    {"a store in the loop",
     R"(__global__ void k(const float *a, float *out, float *dbg, int rows, int cols) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= cols) return;
  float s = 0.f;
  for (int r = 0; r < rows; ++r) {
    s += a[(size_t)r * cols + j];
    dbg[j] = 1.f;
  }
  out[j] = s;
}
void h(const float *a, float *o, float *d) { k<<<16, 256>>>(a, o, d, 4096, 4096); })",
     "writes 'dbg[j]': a side effect in the loop"},
    {"a barrier",
     R"(__global__ void k(const float *a, float *out, int rows, int cols) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  __syncthreads();
  if (j >= cols) return;
  float s = 0.f;
  for (int r = 0; r < rows; ++r) s += a[(size_t)r * cols + j];
  out[j] = s;
}
void h(const float *a, float *o) { k<<<16, 256>>>(a, o, 4096, 4096); })",
     "the kernel calls '__syncthreads'"},
    {"a bound of its own per thread",
     R"(__global__ void k(const float *a, const int *len, float *out, int cols) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= cols) return;
  float s = 0.f;
  for (int r = 0; r < len[j]; ++r) s += a[(size_t)r * cols + j];
  out[j] = s;
}
void h(const float *a, const int *l, float *o) { k<<<16, 256>>>(a, l, o, 4096); })",
     "which depends on the thread"},
    {"loop variable used after the loop",
     R"(__global__ void k(const float *a, float *out, int rows, int cols) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= cols) return;
  float s = 0.f;
  int r;
  for (r = 0; r < rows; ++r) s += a[(size_t)r * cols + j];
  out[j] = s / r;
}
void h(const float *a, float *o) { k<<<16, 256>>>(a, o, 4096, 4096); })",
     "'r' is used after the loop"},
    {"a block that is not whole warps",
     R"(__global__ void k(const float *a, float *out, int rows, int cols) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= cols) return;
  float s = 0.f;
  for (int r = 0; r < rows; ++r) s += a[(size_t)r * cols + j];
  out[j] = s;
}
void h(const float *a, float *o) { k<<<41, 100>>>(a, o, 4096, 4096); })",
     "the rewrite needs a 1D block of whole warps", {100, 1, 1}},
};

TEST(ColumnSplitRule, RefusesWithReason) {
  for (const Refusal &X : Refusals) {
    SCOPED_TRACE(X.Name);
    auto R = run(X.Code, "k", X.Block);
    EXPECT_TRUE(R.Proposals.empty());
    EXPECT_TRUE(has(R.Skip, X.Why)) << R.Skip;
  }
}

} // namespace
