//===- ScanTemplateTest.cpp - the scan-template rule on many spellings ----===//
#include "RuleHarness.h"
#include "gtest/gtest.h"

using namespace forge::testing;

namespace {

struct ScanCase {
  const char *Name, *Code;
  const char *Summary; ///< a piece of the first proposal's summary
  const char *Head;    ///< the declaration, kept as written
};

const ScanCase Spellings[] = {
    {"serial inclusive", R"(__global__ void k(const float *in, float *out, int n) {
  if (threadIdx.x || blockIdx.x) return;
  float acc = 0;
  for (int i = 0; i < n; ++i) { acc += in[i]; out[i] = acc; }
})",
     "inclusive scan (+) of in into out", "__global__ void k(const float *in, float *out, int n)"},
    {"exclusive, size_t count, extern C", R"(extern "C" __global__ void k(const int *src, int *dst, size_t count) {
  int running = 0;
  for (size_t i = 0; i < count; i++) { dst[i] = running; running = running + src[i]; }
})",
     "exclusive scan (+) of src into dst", "__global__ void k(const int *src, int *dst, size_t count)"},
    {"running max of unsigned", R"(__global__ void k(const unsigned *keys, unsigned *best, unsigned len) {
  unsigned m = 0;
  for (unsigned i = 0; i < len; ++i) { m = max(m, keys[i]); best[i] = m; }
})",
     "inclusive scan (max) of keys into best", "__global__ void k(const unsigned *keys, unsigned *best, unsigned len)"},
    {"in place", R"(__global__ void k(float *data, int n) {
  float s = 0;
  for (int i = 0; i < n; ++i) { s += data[i]; data[i] = s; }
})",
     "inclusive scan (+) of data into data", "__global__ void k(float *data, int n)"},
    {"one block in shared memory, scratch ignored", R"(__global__ void k(const float *in, float *out, unsigned *flags, int n) {
  __shared__ float temp[1024];
  int tid = threadIdx.x;
  temp[tid] = tid < n ? in[tid] : 0.0f;
  __syncthreads();
  for (int off = 1; off < blockDim.x; off *= 2) {
    float t = tid >= off ? temp[tid - off] : 0.0f;
    __syncthreads();
    temp[tid] += t;
    __syncthreads();
  }
  if (tid < n) { out[tid] = temp[tid]; if (tid == 0) flags[0] = 1u; }
})",
     "", ""},
};

TEST(ScanTemplate, ReplacesEverySpellingKeepingTheDeclaration) {
  for (const ScanCase &C : Spellings) {
    SCOPED_TRACE(C.Name);
    RuleRun R = runRule("scan-template", C.Code, "k");
    ASSERT_FALSE(R.Proposals.empty()) << R.Skip;
    if (*C.Summary) {
      EXPECT_TRUE(has(R.Proposals[0].Summary, C.Summary)) << R.Proposals[0].Summary;
      EXPECT_TRUE(has(R.Applied[0], C.Head)) << R.Applied[0];
      // 16 then 8 elements per thread, nothing else without a block.
      ASSERT_EQ(R.Proposals.size(), 2u);
      EXPECT_TRUE(has(R.Applied[1], "constexpr int fs_items = 8;"));
    }
    const std::string &A = R.Applied[0];
    EXPECT_TRUE(has(A, "__device__ unsigned long long forge_scan_status_k[1048576u];")) << A;
    EXPECT_TRUE(has(A, "constexpr int fs_items = 16;")) << A;
    EXPECT_TRUE(has(A, "atomicAdd(&forge_scan_ticket_k, 1u)")) << A;
    EXPECT_FALSE(R.Proposals[0].Spec);
  }
}

TEST(ScanTemplate, SharedScanIsProposedInBothOrders) {
  RuleRun R = runRule("scan-template", Spellings[4].Code, "k");
  ASSERT_EQ(R.Proposals.size(), 3u) << R.Skip;
  EXPECT_TRUE(has(R.Proposals[0].Summary, "inclusive scan (+) of in into out"));
  EXPECT_TRUE(has(R.Proposals[2].Summary, "exclusive scan (+) of in into out"));
  EXPECT_TRUE(has(R.Proposals[0].Rationale, "the check against the original decides"));
  // The scratch pointer stays in the signature and is not touched.
  EXPECT_TRUE(has(R.Applied[0], "__global__ void k(const float *in, float *out, unsigned *flags, int n) {"));
  EXPECT_FALSE(has(R.Applied[0], "flags[0]"));
}

TEST(ScanTemplate, KnownBlockAddsAGridOfResidentWaves) {
  RuleRunOptions O;
  O.Block = {{256, 1, 1}};
  O.Geometry = {{"grid.x", "1"}, {"block.x", "256"}};
  O.SmCount = 132;
  RuleRun R = runRule("scan-template", Spellings[0].Code, "k", O);
  ASSERT_EQ(R.Proposals.size(), 3u) << R.Skip;
  ASSERT_TRUE(R.Proposals[0].Spec);
  EXPECT_EQ(R.Proposals[0].Spec->Geometry.at("grid.x"), "132 * FORGE_GRID_WAVES * 8");
  EXPECT_EQ(R.Proposals[0].Spec->NewTunables.at("FORGE_GRID_WAVES"),
            (std::vector<int64_t>{1, 2, 4, 8}));
  EXPECT_FALSE(R.Proposals[1].Spec);
}

TEST(ScanTemplate, Preconditions) {
  auto Skip = [](const char *Code) {
    RuleRun R = runRule("scan-template", Code, "k");
    EXPECT_TRUE(R.Proposals.empty());
    return R.Skip;
  };
  EXPECT_TRUE(has(Skip(R"(__global__ void k(const float *x, float *y, int n) {
  float s = 0; for (int i = 0; i < n; ++i) s += x[i]; y[0] = s; })"),
                  "no scan recognised"));
  EXPECT_TRUE(has(Skip(R"(__global__ void k(const short *x, short *y, int n) {
  short s = 0; for (int i = 0; i < n; ++i) { s += x[i]; y[i] = s; } })"),
                  "4-byte arithmetic types"));
  EXPECT_TRUE(has(Skip(R"(__global__ void k(const float *a, const float *b, float *y, int n) {
  float s = 0; for (int i = 0; i < n; ++i) { s += a[i] - b[i]; y[i] = s; } })"),
                  "2 pointer parameters of the element type are read"));
  EXPECT_TRUE(has(Skip(R"(__global__ void k(const float *x, float *y) {
  float s = 0; for (int i = 0; i < 1024; ++i) { s += x[i]; y[i] = s; } })"),
                  "no integer parameter gives the element count"));
  EXPECT_TRUE(has(Skip(R"(__global__ void k(const float *x, float *y, int n, int fs_n) {
  float s = 0; for (int i = 0; i < n; ++i) { s += x[i]; if (i < n) y[i] = s; } })"),
                  "uses the template's prefix fs_"));
  EXPECT_TRUE(has(Skip(R"(__global__ void k(const float *x, float *y, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x; float s = 0;
  for (int j = 0; j < 4; ++j) { s += x[4 * t + j]; y[4 * t + j] = s; } })"),
                  "restarts in every thread"));
}

} // namespace
