//===- RealCudaTest.cpp - The model on the real CUDA 13 headers -----------===//
//
// With the toolkit's headers, threadIdx.x is a property of a builtin struct
// (a PseudoObjectExpr in the AST), min/max are the CUDA overloads, and
// atomicAdd and __ldg come from the real headers. The model must read them
// as it reads the mock headers.
//
//===----------------------------------------------------------------------===//
#include "AnalysisTestUtil.h"
#include "forge/Config.h"
#include "llvm/Support/FileSystem.h"

using namespace forge::analysis;
using namespace forge::analysis::test;

namespace {

bool haveCuda() {
  return llvm::sys::fs::exists(std::string(FORGE_DEFAULT_CUDA_PATH) + "/include/cuda_runtime.h");
}

const char *Kernels = R"(
#include <cstddef>
template <int R>
__global__ void blur1d(const float *__restrict__ in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float s = 0.f;
  for (int k = -R; k <= R; ++k)
    s += __ldg(&in[min(max(i + k, 0), n - 1)]);
  out[i] = s;
}
template __global__ void blur1d<2>(const float *, float *, int);

__global__ void dot(const float *a, const float *b, float *r, size_t n) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  float v = 0.f;
  for (; i < n; i += (size_t)blockDim.x * gridDim.x) v += a[i] * b[i];
  atomicAdd(r, v);
}

__global__ void mm(const float *A, const float *B, float *C, int n) {
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < n && c < n) {
    float acc = 0.f;
    for (int k = 0; k < n; ++k) acc += A[r * n + k] * B[k * n + c];
    C[r * n + c] = acc;
  }
}
)";

TEST(RealCuda, ClampedStencilThroughLdgAndCudaMinMax) {
  if (!haveCuda())
    GTEST_SKIP() << "no CUDA toolkit at " << FORGE_DEFAULT_CUDA_PATH;
  withModel(
      Kernels, "blur1d", {},
      [](KernelModel &M, clang::ASTContext &, const clang::FunctionDecl &) {
        const Access &L = access(M, "__ldg(&in[min(max(i + k, 0), n - 1)])");
        EXPECT_EQ(L.Warp.Class, AccessClass::Coalesced);
        EXPECT_EQ(L.Callee, "__ldg");
        EXPECT_EQ(L.G.render(), "i < n");
        // -R..R with R a template parameter is not a constant in the
        // pattern: the footprint is kept symbolic.
        ASSERT_EQ(M.Loops.size(), 1u);
        EXPECT_EQ(M.render(*M.Loops[0].Start), "-R");
        EXPECT_EQ(M.render(*M.Loops[0].Bound), "R");
        const Footprint *F = M.footprintOf(L);
        ASSERT_NE(F, nullptr);
        EXPECT_TRUE(F->Symbolic);
        EXPECT_EQ(F->RadiusText, "R");
        EXPECT_EQ(F->Border, BorderMode::Clamped);
        EXPECT_EQ(access(M, "out[i]").IndexText, "blockIdx.x * blockDim.x + threadIdx.x");
      },
      /*RealCuda=*/true);
}

TEST(RealCuda, GridStrideDotAndGemm) {
  if (!haveCuda())
    GTEST_SKIP() << "no CUDA toolkit at " << FORGE_DEFAULT_CUDA_PATH;
  withModel(
      Kernels, "dot", {},
      [](KernelModel &M, clang::ASTContext &, const clang::FunctionDecl &) {
        ASSERT_EQ(M.Loops.size(), 1u);
        EXPECT_EQ(M.Loops[0].StepK, StepKind::GridStride);
        EXPECT_EQ(access(M, "a[i]").Warp.Class, AccessClass::Coalesced);
        ASSERT_EQ(M.Reductions.size(), 2u);
        EXPECT_EQ(M.Reductions[0].Kind, ReductionKind::LoopCarried);
        EXPECT_EQ(M.Reductions[1].Kind, ReductionKind::Atomic);
        EXPECT_EQ(M.Reductions[1].Scope, ReductionScope::Grid);
      },
      true);
  withModel(
      Kernels, "mm", {},
      [](KernelModel &M, clang::ASTContext &, const clang::FunctionDecl &) {
        const Pattern *P = pattern(M, PatternKind::MatrixProduct);
        ASSERT_NE(P, nullptr);
        EXPECT_EQ(P->role("i"), "r");
        EXPECT_EQ(P->role("j"), "c");
        EXPECT_EQ(access(M, "A[r * n + k]").Warp.Class, AccessClass::Broadcast);
        EXPECT_EQ(access(M, "B[k * n + c]").Warp.Class, AccessClass::Coalesced);
      },
      true);
}

} // namespace
