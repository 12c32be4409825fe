//===- AllocationsTest.cpp - Where launch arguments point -----------------===//
//
// Each source launches `k`; the test traces two of the launch's pointer
// arguments (by index) and compares them. Parsed with the real CUDA headers
// (thrust included).
//
//===----------------------------------------------------------------------===//
#include "AnalysisTestUtil.h"
#include "forge/Analysis/Allocations.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "gtest/gtest.h"

using namespace forge::analysis;
using namespace forge::analysis::test;

namespace {

struct Traced {
  AliasVerdict Verdict = AliasVerdict::Unknown;
  AllocationOrigin A, B;
  unsigned Launches = 0;
};

/// Traces arguments I and J of the Nth launch of `k` in Code.
Traced traceLaunch(const std::string &Code, unsigned I, unsigned J, unsigned N = 0) {
  Traced T;
  withModel(
      Code, "k", {},
      [&](KernelModel &, clang::ASTContext &Ctx, const clang::FunctionDecl &K) {
        std::vector<const clang::CallExpr *> Calls = callsOf(K, Ctx);
        T.Launches = Calls.size();
        if (N >= Calls.size()) {
          ADD_FAILURE() << "no launch " << N << " of k";
          return;
        }
        T.A = traceAllocation(Calls[N]->getArg(I), Ctx);
        T.B = traceAllocation(Calls[N]->getArg(J), Ctx);
        T.Verdict = compareOrigins(T.A, T.B);
      },
      /*RealCuda=*/true);
  return T;
}

const char *Kernel = "__global__ void k(const float *a, float *b, int n) {\n"
                     "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                     "  if (i < n) b[i] = a[i];\n"
                     "}\n";

std::string withKernel(const std::string &Host) { return Kernel + Host; }

TEST(Allocations, DistinctCudaMallocs) {
  Traced T = traceLaunch(withKernel(R"(
void run(int n) {
  float *x, *y;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc((void **)&y, n * sizeof(float));
  k<<<1, 256>>>(x, y, n);
}
)"),
                         0, 1);
  EXPECT_EQ(T.Verdict, AliasVerdict::Distinct);
  EXPECT_EQ(T.A.Kind, AllocationOrigin::Allocation);
  EXPECT_EQ(T.A.describe(), "the cudaMalloc at line 8");
  EXPECT_EQ(T.B.describe(), "the cudaMalloc at line 9");
}

TEST(Allocations, PointerAndPointerPlusOneAreSame) {
  Traced T = traceLaunch(withKernel(R"(
void run(int n) {
  float *p;
  cudaMalloc(&p, (n + 1) * sizeof(float));
  k<<<1, 256>>>(p, p + 1, n);
}
)"),
                         0, 1);
  EXPECT_EQ(T.Verdict, AliasVerdict::Same);
  EXPECT_EQ(T.B.Offset, "1");
}

TEST(Allocations, LocalInitialisedFromOffsetIsSame) {
  Traced T = traceLaunch(withKernel(R"(
void run(int n) {
  float *p;
  cudaMalloc(&p, (n + 1) * sizeof(float));
  float *q = p + 1;
  k<<<1, 256>>>(p, q, n);
}
)"),
                         0, 1);
  EXPECT_EQ(T.Verdict, AliasVerdict::Same);
  EXPECT_EQ(T.B.Offset, "1");
}

TEST(Allocations, AddressOfElementIsSame) {
  Traced T = traceLaunch(withKernel(R"(
void run(int n, int k0) {
  float *p;
  cudaMallocManaged(&p, 2 * n * sizeof(float));
  k<<<1, 256>>>(&p[k0], (float *)p, n);
}
)"),
                         0, 1);
  EXPECT_EQ(T.Verdict, AliasVerdict::Same);
  EXPECT_EQ(T.A.Offset, "k0");
  EXPECT_EQ(T.A.describe(), "the cudaMallocManaged at line 8 (offset k0)");
}

TEST(Allocations, HostParameterWithDistinctBuffersFromItsCaller) {
  Traced T = traceLaunch(withKernel(R"(
static void launch(const float *a, float *b, int n) { k<<<1, 256>>>(a, b, n); }
int main() {
  float *x, *y;
  cudaMalloc(&x, 1024);
  cudaMallocAsync(&y, 1024, 0);
  launch(x, y, 256);
  return 0;
}
)"),
                         0, 1);
  EXPECT_EQ(T.Verdict, AliasVerdict::Distinct) << T.A.Why << T.B.Why;
}

TEST(Allocations, HostParameterWithTheSameBufferFromItsCaller) {
  Traced T = traceLaunch(withKernel(R"(
static void launch(const float *a, float *b, int n) { k<<<1, 256>>>(a, b, n); }
int main() {
  float *x;
  cudaMalloc(&x, 1024);
  launch(x, x + 128, 128);
  return 0;
}
)"),
                         0, 1);
  EXPECT_EQ(T.Verdict, AliasVerdict::Same);
}

TEST(Allocations, CallersPassingDisjointSetsAreDistinctOverlappingUnknown) {
  std::string Host = R"(
static void launch(const float *a, float *b, int n) { k<<<1, 256>>>(a, b, n); }
int main() {
  float *x, *y, *u, *v;
  cudaMalloc(&x, 1024); cudaMalloc(&y, 1024); cudaMalloc(&u, 1024); cudaMalloc(&v, 1024);
  launch(x, y, 256);
  launch(u, SECOND, 256);
  return 0;
}
)";
  std::string Disjoint = Host, Crossed = Host;
  Disjoint.replace(Disjoint.find("SECOND"), 6, "v");
  Crossed.replace(Crossed.find("SECOND"), 6, "x");
  Traced D = traceLaunch(withKernel(Disjoint), 0, 1);
  EXPECT_EQ(D.Verdict, AliasVerdict::Distinct);
  EXPECT_EQ(D.A.Sites.size(), 2u);
  // a is x or u, b is y or x: the first call is fine, but the sets overlap.
  Traced C = traceLaunch(withKernel(Crossed), 0, 1);
  EXPECT_EQ(C.Verdict, AliasVerdict::Unknown);
}

TEST(Allocations, HostParameterWithoutCallerIsUnknown) {
  Traced T = traceLaunch(withKernel(R"(
void run(float *a, float *b, int n) { k<<<1, 256>>>(a, b, n); }
)"),
                         0, 1);
  EXPECT_EQ(T.Verdict, AliasVerdict::Unknown);
  EXPECT_EQ(T.A.Why, "'a' is a parameter of 'run', whose callers are not in this file");
}

TEST(Allocations, StructMemberIsUnknown) {
  Traced T = traceLaunch(withKernel(R"(
struct Buffers { float *in, *out; };
void run(Buffers &s, int n) {
  cudaMalloc(&s.in, n * 4);
  cudaMalloc(&s.out, n * 4);
  k<<<1, 256>>>(s.in, s.out, n);
}
)"),
                         0, 1);
  EXPECT_EQ(T.Verdict, AliasVerdict::Unknown);
  EXPECT_EQ(T.A.Why, "'s.in' is a member of a struct or class, whose value is not followed");
}

TEST(Allocations, PointerArrayElementIsUnknown) {
  Traced T = traceLaunch(withKernel(R"(
void run(int n) {
  float *bufs[2];
  cudaMalloc(&bufs[0], n * 4);
  cudaMalloc(&bufs[1], n * 4);
  k<<<1, 256>>>(bufs[0], bufs[1], n);
}
)"),
                         0, 1);
  EXPECT_EQ(T.Verdict, AliasVerdict::Unknown);
  EXPECT_NE(T.A.Why.find("an element of an array of pointers"), std::string::npos) << T.A.Why;
}

TEST(Allocations, ReassignedPointerIsUnknown) {
  Traced T = traceLaunch(withKernel(R"(
void run(int n, bool swap) {
  float *x, *y;
  cudaMalloc(&x, n * 4);
  cudaMalloc(&y, n * 4);
  float *p = x;
  if (swap)
    p = y;
  k<<<1, 256>>>(p, y, n);
}
)"),
                         0, 1);
  EXPECT_EQ(T.A.Sites.size(), 2u);
  EXPECT_EQ(T.Verdict, AliasVerdict::Unknown);
}

TEST(Allocations, EscapedAddressIsUnknown) {
  Traced T = traceLaunch(withKernel(R"(
void fill(float **p, int n);
void run(int n) {
  float *x, *y;
  cudaMalloc(&x, n * 4);
  cudaMalloc(&y, n * 4);
  fill(&y, n);
  k<<<1, 256>>>(x, y, n);
}
)"),
                         0, 1);
  EXPECT_EQ(T.Verdict, AliasVerdict::Unknown);
  EXPECT_EQ(T.B.Why, "the address of 'y' is taken at line 11: it may be changed unseen");
}

TEST(Allocations, DeviceAndStaticArraysAreDistinctObjects) {
  Traced T = traceLaunch(withKernel(R"(
__device__ float in[1024];
__managed__ float out[1024];
void run() { k<<<4, 256>>>(in, out + 0, 1024); }
)"),
                         0, 1);
  EXPECT_EQ(T.Verdict, AliasVerdict::Distinct);
  EXPECT_EQ(T.A.describe(), "the __device__ array 'in'");
  EXPECT_EQ(T.B.describe(), "the global array 'out' (offset 0)");
}

TEST(Allocations, ThrustVectorsAreDistinct) {
  Traced T = traceLaunch("#include <thrust/device_vector.h>\n" + withKernel(R"(
void run(int n) {
  thrust::device_vector<float> x(n), y(n);
  k<<<1, 256>>>(thrust::raw_pointer_cast(x.data()), thrust::raw_pointer_cast(&y[0]), n);
}
)"),
                         0, 1);
  EXPECT_EQ(T.Verdict, AliasVerdict::Distinct) << T.A.Why << " | " << T.B.Why;
  EXPECT_EQ(T.A.describe(), "the storage of 'x'");
}

TEST(Allocations, MallocAndNewAreDistinct) {
  Traced T = traceLaunch(withKernel(R"(
#include <cstdlib>
void run(int n) {
  float *x = (float *)malloc(n * sizeof(float));
  float *y = new float[n];
  k<<<1, 256>>>(x, y, n);
}
)"),
                         0, 1);
  EXPECT_EQ(T.Verdict, AliasVerdict::Distinct);
  EXPECT_EQ(T.A.describe(), "the malloc at line 8");
  EXPECT_EQ(T.B.describe(), "the new[] at line 9");
}

TEST(Allocations, OneCallInALoopIsOneAllocation) {
  // prev is null or the allocation of cur's call: the same allocation as
  // far as the trace can tell (it does not tell iterations apart).
  Traced T = traceLaunch(withKernel(R"(
void run(int n) {
  float *prev = nullptr, *cur = nullptr;
  for (int r = 0; r < 2; ++r) {
    prev = cur;
    cudaMalloc(&cur, n * 4);
  }
  k<<<1, 256>>>(prev, cur, n);
}
)"),
                         0, 1);
  EXPECT_EQ(T.Verdict, AliasVerdict::Same);
}

TEST(Allocations, NullPointerIsDistinctFromAll) {
  Traced T = traceLaunch(withKernel(R"(
void run(int n) {
  float *y;
  cudaMalloc(&y, n * 4);
  k<<<1, 256>>>(nullptr, y, n);
}
)"),
                         0, 1);
  EXPECT_EQ(T.Verdict, AliasVerdict::Distinct);
  EXPECT_EQ(T.A.Kind, AllocationOrigin::Null);
}

TEST(Allocations, UninitialisedAndUnknownCallsAreUnknown) {
  Traced T = traceLaunch(withKernel(R"(
float *make(int n);
void run(int n) {
  float *x;
  float *y = make(n);
  k<<<1, 256>>>(x, y, n);
}
)"),
                         0, 1);
  EXPECT_EQ(T.Verdict, AliasVerdict::Unknown);
  EXPECT_EQ(T.A.Why, "'x' is given no value that can be followed");
  EXPECT_EQ(T.B.Why, "'make(n)' is returned by a call that is not followed");
}

} // namespace
