// Reads and writes through kernel pointer parameters (ParamAccess.h).
#include "forge/Frontend/ParamAccess.h"
#include "forge/Config.h"
#include "forge/Frontend/CudaParser.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/DeclTemplate.h"
#include "llvm/Support/Error.h"
#include "gtest/gtest.h"

using namespace forge::frontend;

namespace {

/// "read", "write", "readwrite", "none", with "?" appended when Unknown.
std::string describe(const PointerAccess &A) {
  std::string S = A.Read && A.Written ? "readwrite" : A.Written ? "write" : A.Read ? "read" : "none";
  return A.Unknown ? S + "?" : S;
}

/// Parses Code for the device and describes each parameter of Kernel.
std::vector<std::string> access(const std::string &Code, const std::string &Kernel) {
  Toolchain TC;
  TC.ResourceDir = FORGE_CLANG_RESOURCE_DIR;
  ParseOptions Opts;
  Opts.ExtraArgs = {"-nocudainc", "-nocudalib", "-isystem", FORGE_TEST_INPUTS "/mock-cuda",
                    "-include", "cuda_runtime.h"};
  ParseRequest Req;
  Req.File = "/tmp/x.cu";
  Req.S = Side::Device;
  Req.Contents = Code;
  ParseDiagnostics Diags(&llvm::errs());
  std::vector<std::string> Out;
  bool Found = false;
  llvm::Error E = parseCuda(TC, Opts, Req, Diags,
                            [&](clang::ASTContext &Ctx, clang::CompilerInstance &,
                                const PreprocessorFacts &) {
                              for (const clang::Decl *D : Ctx.getTranslationUnitDecl()->decls()) {
                                const auto *FD = llvm::dyn_cast<clang::FunctionDecl>(D);
                                if (const auto *TD = llvm::dyn_cast<clang::FunctionTemplateDecl>(D))
                                  FD = TD->getTemplatedDecl();
                                if (!FD || FD->getName() != Kernel || !FD->hasBody())
                                  continue;
                                Found = true;
                                for (const PointerAccess &A : analyzePointerParams(*FD, Ctx))
                                  Out.push_back(describe(A));
                              }
                            });
  EXPECT_FALSE(E) << llvm::toString(std::move(E));
  EXPECT_EQ(Diags.errors(), 0u);
  EXPECT_TRUE(Found) << "no kernel " << Kernel;
  return Out;
}

using V = std::vector<std::string>;

TEST(ParamAccess, Saxpy) {
  EXPECT_EQ(access(R"(
__global__ void saxpy(int n, float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
})", "saxpy"),
            (V{"none", "none", "read", "readwrite"}));
}

TEST(ParamAccess, OutOnlyAndUnused) {
  EXPECT_EQ(access(R"(
struct P { float x, y; };
__global__ void fill(float *out, P *pts, float *unused, int *flag, float v) {
  out[threadIdx.x] = v;
  *(out + blockDim.x + threadIdx.x) = v;
  pts[threadIdx.x].y = v;
  pts->x = 0;
  if (unused == nullptr || (size_t)unused % 16) return;
  if (flag) *flag = 1;
})", "fill"),
            (V{"write", "write", "none", "write", "none"}));
}

TEST(ParamAccess, Atomics) {
  EXPECT_EQ(access(R"(
__global__ void hist(const int *in, int *bins, float *sum) {
  atomicAdd(&bins[in[threadIdx.x]], 1);
  atomicAdd(sum, 1.0f);
})", "hist"),
            (V{"read", "readwrite", "readwrite"}));
}

TEST(ParamAccess, CompoundAndIncrement) {
  EXPECT_EQ(access(R"(
__global__ void k(float *a, int *b) {
  a[threadIdx.x] *= 2.0f;
  b[0]++;
})", "k"),
            (V{"readwrite", "readwrite"}));
}

TEST(ParamAccess, ThroughLocalPointers) {
  EXPECT_EQ(access(R"(
__global__ void rows(const float *in, float *out, float *other, int n) {
  int r = blockIdx.x;
  const float *src = in + r * n;
  float *dst;
  dst = out + r * n;
  float *q = other;
  q += n;
  float acc = 0;
  for (int c = 0; c < n; ++c) acc += src[c];
  dst[threadIdx.x] = acc;
  float v = *q;
  (void)v;
  float &ref = out[0];
  ref = acc;
})", "rows"),
            (V{"read", "write", "read", "none"}));
}

TEST(ParamAccess, DeviceHelper) {
  EXPECT_EQ(access(R"(
__device__ void store(float *p, int i, float v) { p[i] = v; }
__device__ float load(float *p, int i) { return p[i]; }
__device__ void twice(float *p, int i, float v) { store(p, i, v); }
__device__ void bump(float &x) { x += 1; }
__global__ void k(float *a, float *b, float *c, float *d) {
  twice(a + 1, threadIdx.x, 1.0f);
  c[0] = load(b, threadIdx.x);
  bump(d[threadIdx.x]);
})", "k"),
            (V{"write", "read", "write", "readwrite"}));
}

TEST(ParamAccess, VectorisedStore) {
  EXPECT_EQ(access(R"(
__global__ void copy4(const float *__restrict__ in, float *__restrict__ out) {
  int i = threadIdx.x;
  float4 v = reinterpret_cast<const float4 *>(in)[i];
  reinterpret_cast<float4 *>(out)[i] = v;
})", "copy4"),
            (V{"read", "write"}));
}

TEST(ParamAccess, UnknownCalleeAndEscapes) {
  EXPECT_EQ(access(R"(
extern __device__ void opaque(float *p);
__device__ float *slot;
__global__ void k(float *a, float *b, const float *c, float *d) {
  opaque(a);
  slot = b;
  const_cast<float *>(c)[0] = 1;
  asm volatile("st.global.f32 [%0], %1;" :: "l"(d), "f"(1.0f));
})", "k"),
            (V{"readwrite?", "readwrite?", "readwrite?", "readwrite?"}));
}

TEST(ParamAccess, AsmOperandsOnObjects) {
  EXPECT_EQ(access(R"(
__global__ void k(const float *in, float *out) {
  asm("mov.f32 %0, %1;" : "=f"(out[0]) : "f"(in[0]));
})", "k"),
            (V{"read", "write"}));
}

TEST(ParamAccess, TemplateKernel) {
  const char *Code = R"(
template <typename T> __device__ void put(T *p, int i, T v) { p[i] = v; }
template <typename T, int ITEMS>
__global__ void axpy(T a, const T *x, T *y, T *z, int n) {
  for (int i = 0; i < ITEMS; ++i) {
    int j = threadIdx.x * ITEMS + i;
    if (j < n) y[j] += a * x[j];
    put(z, j, a);
  }
}
%s)";
  std::string Uninstantiated = Code;
  Uninstantiated.replace(Uninstantiated.find("%s"), 2, "");
  // The pattern alone: the dependent call to put() cannot be resolved.
  EXPECT_EQ(access(Uninstantiated, "axpy"), (V{"none", "read", "readwrite", "readwrite?", "none"}));
  std::string Instantiated = Code;
  Instantiated.replace(Instantiated.find("%s"), 2,
                       "template __global__ void axpy<float, 4>(float, const float *, float *, "
                       "float *, int);");
  EXPECT_EQ(access(Instantiated, "axpy"), (V{"none", "read", "readwrite", "write", "none"}));
}

TEST(ParamAccess, DepthLimitAndRecursion) {
  EXPECT_EQ(access(R"(
__device__ void f5(float *p) { p[0] = 1; }
__device__ void f4(float *p) { f5(p); }
__device__ void f3(float *p) { f4(p); }
__device__ void f2(float *p) { f3(p); }
__device__ void f1(float *p) { f2(p); }
__device__ void g1(float *p) { g1(p + 1); p[0] = 2; }
__global__ void k(float *deep, float *rec) { f1(deep); g1(rec); })", "k"),
            (V{"readwrite?", "write"}));
}

} // namespace
