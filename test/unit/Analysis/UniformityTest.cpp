//===- UniformityTest.cpp - Thread uniformity of expressions --------------===//
//
// isUniform and uniformity() on expressions of small kernels, with the AST
// alive: what a vectorising or coarsening rule must ask before it moves a
// value between threads.
//
//===----------------------------------------------------------------------===//
#include "AnalysisTestUtil.h"
#include "clang/AST/ASTContext.h"

using namespace forge::analysis;
using namespace forge::analysis::test;

namespace {

Uniformity level(KernelModel &M, clang::ASTContext &Ctx, const clang::FunctionDecl &K,
                 llvm::StringRef Text) {
  const clang::Expr *E = findExpr(Ctx, K, Text);
  return E ? M.uniformity(E).Level : Uniformity::ThreadVarying;
}

TEST(Uniformity, BuiltinsParametersAndLoads) {
  withModel(R"(
__global__ void u(const float *x, float *y, const int *cfg, int n, float a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lim = n / 2 + cfg[0];
  float c = x[blockIdx.x];
  if (i < lim) y[i] = x[i] * a + c + threadIdx.x;
})",
            "u", {}, [](KernelModel &M, clang::ASTContext &Ctx, const clang::FunctionDecl &K) {
              EXPECT_EQ(level(M, Ctx, K, "a"), Uniformity::GridUniform);
              EXPECT_EQ(level(M, Ctx, K, "n / 2 + cfg[0]"), Uniformity::GridUniform);
              EXPECT_EQ(level(M, Ctx, K, "blockIdx.x * blockDim.x"), Uniformity::BlockUniform);
              EXPECT_EQ(level(M, Ctx, K, "x[blockIdx.x]"), Uniformity::BlockUniform);
              EXPECT_EQ(level(M, Ctx, K, "i < lim"), Uniformity::ThreadVarying);
              // y[i] = x[i] * a + c + threadIdx.x is not uniform: a rule must
              // not vectorise it as a map of x alone.
              const clang::Expr *V = findExpr(Ctx, K, "x[i] * a + c + threadIdx.x");
              ASSERT_NE(V, nullptr);
              EXPECT_FALSE(M.isUniform(V));
              EXPECT_EQ(M.uniformity(V).Reason, "'x[i]' is loaded at an address that differs "
                                                "between threads");
              EXPECT_TRUE(M.isUniform(findExpr(Ctx, K, "c"), Uniformity::BlockUniform));
            });
}

TEST(Uniformity, ControlDependenceAndLoops) {
  withModel(R"(
__global__ void v(const float *x, float *y, int n) {
  int t = threadIdx.x;
  float s = 0.f;
  for (int k = 0; k < n; ++k) s += x[k];
  float d = 0.f;
  for (int k = 0; k < t; ++k) d += x[k];
  float e = 1.f;
  if (t < 16) e = 2.f;
  int m = 0;
  if (n > 8) m = 5;
  y[0] = s;
  y[1] = d;
  y[2] = e;
  y[3] = m;
})",
            "v", {}, [](KernelModel &M, clang::ASTContext &Ctx, const clang::FunctionDecl &K) {
              // A sum over a uniform loop of uniform loads is uniform.
              const clang::Expr *S = findExpr(Ctx, K, "s", /*Last=*/true);
              EXPECT_TRUE(M.isUniform(S, Uniformity::GridUniform)) << M.uniformity(S).Reason;
              // d's trip count depends on the thread.
              const clang::Expr *D = findExpr(Ctx, K, "d", /*Last=*/true);
              UniformityInfo DU = M.uniformity(D);
              EXPECT_EQ(DU.Level, Uniformity::ThreadVarying);
              EXPECT_NE(DU.Reason.find("how often the loop at line 7 updates 'd' varies"),
                        std::string::npos)
                  << DU.Reason;
              // e is assigned under a thread-varying branch; m under a uniform one.
              UniformityInfo EU = M.uniformity(findExpr(Ctx, K, "e", /*Last=*/true));
              EXPECT_EQ(EU.Level, Uniformity::ThreadVarying);
              EXPECT_EQ(EU.Reason,
                        "'e' is assigned under the condition 't < 16', which is thread-varying");
              EXPECT_TRUE(
                  M.isUniform(findExpr(Ctx, K, "m", /*Last=*/true), Uniformity::GridUniform));
            });
}

TEST(Uniformity, WrittenBuffersWarpVotesAndShuffles) {
  withModel(R"(
__global__ void w(float *buf, const float *ro, int *flag) {
  int lane = threadIdx.x % 32;
  int warp = threadIdx.x / 32;
  float a = buf[0];
  float b = ro[0];
  unsigned vote = __ballot_sync(0xffffffffu, ro[threadIdx.x] > 0.f);
  float bc = __shfl_sync(0xffffffffu, ro[threadIdx.x], 0);
  float sh = __shfl_down_sync(0xffffffffu, b, 1);
  buf[threadIdx.x] = a + b + vote + bc + sh + lane + warp;
})",
            "w", block(128),
            [](KernelModel &M, clang::ASTContext &Ctx, const clang::FunctionDecl &K) {
              UniformityInfo A = M.uniformity(findExpr(Ctx, K, "buf[0]"));
              EXPECT_EQ(A.Level, Uniformity::ThreadVarying);
              EXPECT_EQ(A.Reason, "'buf[0]' reads 'buf', which the kernel also writes");
              EXPECT_EQ(level(M, Ctx, K, "ro[0]"), Uniformity::GridUniform);
              EXPECT_EQ(level(M, Ctx, K, "__ballot_sync(0xffffffffu, ro[threadIdx.x] > 0.f)"),
                        Uniformity::WarpUniform);
              EXPECT_EQ(level(M, Ctx, K, "__shfl_sync(0xffffffffu, ro[threadIdx.x], 0)"),
                        Uniformity::WarpUniform);
              EXPECT_EQ(level(M, Ctx, K, "__shfl_down_sync(0xffffffffu, b, 1)"),
                        Uniformity::ThreadVarying);
              EXPECT_EQ(level(M, Ctx, K, "threadIdx.x / 32"), Uniformity::WarpUniform);
              EXPECT_EQ(level(M, Ctx, K, "threadIdx.x % 32"), Uniformity::ThreadVarying);
            });
}

TEST(Uniformity, DetachedModelsAnswerUnknown) {
  KernelModel M = analyze(R"(
__global__ void d(float *y) { y[threadIdx.x] = 1.f; })",
                          "d");
  EXPECT_FALSE(M.hasAST());
  EXPECT_EQ(M.uniformity(nullptr).Level, Uniformity::ThreadVarying);
  EXPECT_EQ(M.uniformity(nullptr).Reason, "the model was detached from its AST");
  EXPECT_EQ(M.Accesses.front().E, nullptr);
}

} // namespace
