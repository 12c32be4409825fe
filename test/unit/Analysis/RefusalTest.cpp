//===- RefusalTest.cpp - What the model must not claim --------------------===//
//
// Indices the analysis cannot follow are unknown or data-dependent, with
// the reason in words, and no pattern is claimed over them.
//
//===----------------------------------------------------------------------===//
#include "AnalysisTestUtil.h"

using namespace forge::analysis;
using namespace forge::analysis::test;

namespace {

bool hasNote(const KernelModel &M, llvm::StringRef Text) {
  for (const Note &N : M.Notes)
    if (llvm::StringRef(N.Text).contains(Text))
      return true;
  return false;
}

TEST(Refusal, IndirectIndexIsAGather) {
  KernelModel M = analyze(R"(
__global__ void gather(const int *idx, const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[idx[i]];
})",
                          "gather");
  const Access &G = access(M, "in[idx[i]]");
  EXPECT_EQ(G.Warp.Class, AccessClass::DataDependent);
  EXPECT_FALSE(G.IndexKnown);
  EXPECT_EQ(G.IndexWhy, "'idx[i]' is loaded from memory: data-dependent");
  EXPECT_EQ(access(M, "idx[i]").Warp.Class, AccessClass::Coalesced);
  EXPECT_EQ(pattern(M, PatternKind::Elementwise), nullptr);
  EXPECT_TRUE(hasNote(M, "'in[idx[i]]': 'idx[i]' is loaded from memory: data-dependent"));
}

TEST(Refusal, ScatterThroughALoadedIndex) {
  KernelModel M = analyze(R"(
__global__ void scatter(const int *perm, const float *src, float *dst, int n) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i >= n) return;
  int to = perm[i];
  dst[to] = src[i];
})",
                          "scatter");
  const Access &S = access(M, "dst[to]");
  EXPECT_EQ(S.Kind, AccessKind::Store);
  EXPECT_EQ(S.Warp.Class, AccessClass::DataDependent);
  EXPECT_EQ(S.Warp.Reason, "'perm[i]' is loaded from memory: data-dependent");
}

TEST(Refusal, PointerChasingThroughAnIndexArray) {
  KernelModel M = analyze(R"(
__global__ void chase(const int *next, const float *val, float *out, int n, int steps) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int j = i;
  for (int s = 0; s < steps; ++s) j = next[j];
  out[i] = val[j];
})",
                          "chase");
  const Access &V = access(M, "val[j]");
  EXPECT_EQ(V.Warp.Class, AccessClass::DataDependent);
  EXPECT_EQ(V.IndexWhy, "'j' is computed by the for loop at line 6, which loads it from memory "
                        "('j = next[j]'): data-dependent");
  EXPECT_EQ(access(M, "next[j]").Warp.Class, AccessClass::DataDependent);
}

TEST(Refusal, PointersLoadedFromMemory) {
  KernelModel M = analyze(R"(
struct List { float *data; };
__global__ void rows_of_ptrs(float **rows, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = rows[i][3];
})",
                          "rows_of_ptrs");
  const Access &R = access(M, "rows[i][3]");
  EXPECT_EQ(R.Space, MemorySpace::Unknown);
  EXPECT_EQ(R.Warp.Class, AccessClass::DataDependent);
  EXPECT_EQ(R.Warp.Reason, "the pointer 'rows[i]' is loaded from memory");
  EXPECT_EQ(access(M, "rows[i]").ElementType, "float *");
  EXPECT_EQ(pattern(M, PatternKind::Elementwise), nullptr);
}

TEST(Refusal, IndexFromADataDependentWhileLoop) {
  KernelModel M = analyze(R"(
__global__ void search(const int *keys, const int *queries, int *pos, int n, int q) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= q) return;
  int lo = 0;
  while (lo < n && keys[lo] < queries[t]) lo++;
  pos[t] = keys[lo];
})",
                          "search");
  ASSERT_EQ(M.Loops.size(), 1u);
  EXPECT_EQ(M.Loops[0].ExtraCondText, "keys[lo] < queries[t]");
  EXPECT_EQ(M.Loops[0].TripUniform.Level, Uniformity::ThreadVarying);
  const Access &K = access(M, "keys[lo]", AccessKind::Load);
  (void)K;
  const Access *After = nullptr;
  for (const Access &A : M.Accesses)
    if (A.Text == "keys[lo]" && A.Loc.Line == 7)
      After = &A;
  ASSERT_NE(After, nullptr);
  EXPECT_EQ(After->Warp.Class, AccessClass::DataDependent);
  EXPECT_EQ(After->IndexWhy, "'lo' is computed by the while loop at line 6, whose trip count is "
                             "data-dependent ('lo < n && keys[lo] < queries[t]' reads memory)");
  EXPECT_TRUE(M.Reductions.empty()) << "'lo' is an induction variable, not an accumulator";
}

TEST(Refusal, NonAffineSquareIndex) {
  KernelModel M = analyze(R"(
__global__ void square_idx(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i * i < n) out[i] = in[i * i];
})",
                          "square_idx");
  const Access &A = access(M, "in[i * i]");
  EXPECT_FALSE(A.Affine);
  EXPECT_EQ(A.Warp.Class, AccessClass::Unknown);
  EXPECT_NE(A.Warp.Reason.find("is not affine in 'threadIdx.x'"), std::string::npos)
      << A.Warp.Reason;
  EXPECT_NE(A.IndexWhy.find("the index is not affine"), std::string::npos) << A.IndexWhy;
}

TEST(Refusal, FloatToIntAndCallsAreNamed) {
  KernelModel M = analyze(R"(
__device__ int hash(int x);
__global__ void odd(const float *in, float *out, const float *pos, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int b = (int)(pos[i] * n);
  out[i] = in[b] + in[hash(i)];
})",
                          "odd");
  const Access &B = access(M, "in[b]");
  EXPECT_EQ(B.Warp.Class, AccessClass::DataDependent);
  EXPECT_EQ(B.Warp.Reason, "'(int)(pos[i] * n)' converts a floating-point value computed from "
                           "memory: data-dependent");
  const Access &H = access(M, "in[hash(i)]");
  EXPECT_EQ(H.Warp.Class, AccessClass::Unknown);
  EXPECT_EQ(H.Warp.Reason, "'hash(i)' is the result of a call to 'hash'");
}

TEST(Refusal, VariablesAssignedUnderDivergentBranchesAndSwitches) {
  KernelModel M = analyze(R"(
__global__ void branchy(const float *in, float *out, int n, int mode) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j;
  switch (mode) {
  case 0: j = i; break;
  default: j = n - 1 - i; break;
  }
  int k = i;
  if (in[i] > 0.f) k = i + 1;
  out[i] = in[j] + in[k];
})",
                          "branchy");
  const Access &J = access(M, "in[j]");
  EXPECT_EQ(J.Warp.Class, AccessClass::Unknown);
  EXPECT_EQ(J.Warp.Reason, "'j' is assigned in the switch at line 5");
  // k is i or i + 1 depending on data: both arms move with the thread.
  const Access &K = access(M, "in[k]");
  EXPECT_EQ(K.Warp.Class, AccessClass::Coalesced);
  EXPECT_NE(K.IndexText.find("?"), std::string::npos) << K.IndexText;
}

TEST(Refusal, GotoMakesReassignedValuesUnknown) {
  KernelModel M = analyze(R"(
__global__ void gotos(int *a, int n) {
  int i = threadIdx.x;
again:
  if (a[i] > n) { i += 1; goto again; }
  a[i] = 0;
})",
                          "gotos");
  const Access &S = access(M, "a[i]", AccessKind::Store);
  EXPECT_EQ(S.Warp.Class, AccessClass::Unknown);
  EXPECT_EQ(S.Warp.Reason, "'i' is assigned in a kernel that uses goto");
  EXPECT_TRUE(hasNote(M, "the kernel uses goto"));
  EXPECT_EQ(pattern(M, PatternKind::Elementwise), nullptr);
}

} // namespace
