//===- ReductionTest.cpp - Atomic and loop-carried reductions -------------===//
#include "AnalysisTestUtil.h"

using namespace forge::analysis;
using namespace forge::analysis::test;

namespace {

const Reduction &byTarget(const KernelModel &M, llvm::StringRef Target) {
  for (const Reduction &R : M.Reductions)
    if (R.Target == Target)
      return R;
  ADD_FAILURE() << "no reduction into '" << Target.str() << "'";
  static Reduction None;
  return None;
}

const Reduction *reduction(const KernelModel &M, ReductionKind K) {
  for (const Reduction &R : M.Reductions)
    if (R.Kind == K)
      return &R;
  return nullptr;
}

TEST(Reduction, DotProductWithOneAtomicAddPerThread) {
  KernelModel M = analyze(R"(
__global__ void dot(const float *a, const float *b, float *result, int n) {
  int tid = threadIdx.x + blockIdx.x * blockDim.x;
  float prod = 0.f;
  if (tid < n) prod = a[tid] * b[tid];
  atomicAdd(result, prod);
})",
                          "dot");
  ASSERT_EQ(M.Reductions.size(), 1u);
  const Reduction &R = M.Reductions[0];
  EXPECT_EQ(R.Kind, ReductionKind::Atomic);
  EXPECT_EQ(R.Op, ReductionOp::Add);
  EXPECT_EQ(R.Scope, ReductionScope::Grid);
  EXPECT_EQ(R.Target, "result[0]");
  EXPECT_EQ(R.Operand, "prod");
  EXPECT_EQ(R.OperandUniform.Level, Uniformity::ThreadVarying);
  EXPECT_TRUE(R.FloatingPoint);
  const Pattern *P = pattern(M, PatternKind::Reduction);
  ASSERT_NE(P, nullptr);
  EXPECT_EQ(P->Summary, "atomic reduction (+) into result[0]: one address for the whole grid");
}

TEST(Reduction, PerBlockAtomicMaxAfterAGridStrideMax) {
  KernelModel M = analyze(R"(
__global__ void maxabs(const float *v, int n, int *out) {
  float m = -1e30f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    m = fmaxf(m, fabsf(v[i]));
  atomicMax(&out[blockIdx.x], __float_as_int(m));
})",
                          "maxabs");
  ASSERT_EQ(M.Reductions.size(), 2u);
  const Reduction *L = reduction(M, ReductionKind::LoopCarried);
  ASSERT_NE(L, nullptr);
  EXPECT_EQ(L->Op, ReductionOp::Max);
  EXPECT_EQ(L->Target, "m");
  EXPECT_EQ(L->Init, "-1e30f");
  EXPECT_EQ(L->Operand, "fabsf(v[i])");
  ASSERT_EQ(L->Loops.size(), 1u);
  EXPECT_EQ(M.Loops[L->Loops[0]].StepK, StepKind::GridStride);
  const Reduction *A = reduction(M, ReductionKind::Atomic);
  ASSERT_NE(A, nullptr);
  EXPECT_EQ(A->Op, ReductionOp::Max);
  EXPECT_EQ(A->Scope, ReductionScope::Block);
}

TEST(Reduction, RowSumPerThread) {
  KernelModel M = analyze(R"(
__global__ void rowsum(const float *m, float *s, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float acc = 0.0f;
    for (int c = 0; c < cols; c++)
      acc = acc + m[r * cols + c];
    s[r] = acc;
  }
})",
                          "rowsum");
  ASSERT_EQ(M.Reductions.size(), 1u);
  const Reduction &R = M.Reductions[0];
  EXPECT_EQ(R.Kind, ReductionKind::LoopCarried);
  EXPECT_EQ(R.Op, ReductionOp::Add);
  EXPECT_EQ(R.Operand, "m[r * cols + c]");
  EXPECT_EQ(R.Init, "0.0f");
  const Pattern *P = pattern(M, PatternKind::Reduction);
  ASSERT_NE(P, nullptr);
  EXPECT_EQ(P->Summary, "loop-carried reduction of 'acc' (+) over c in [0, cols)");
  const Pattern *Row = pattern(M, PatternKind::RowLoop);
  ASSERT_NE(Row, nullptr);
  EXPECT_EQ(Row->Reduction, int(R.Id));
  EXPECT_NE(Row->Summary.find("strided by cols"), std::string::npos) << Row->Summary;
}

TEST(Reduction, MaxWrittenAsATernaryAndAsAnIf) {
  KernelModel M = analyze(R"(
__global__ void colmax(const int *m, int *hi, int *lo, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= cols) return;
  int best = m[c], worst = m[c];
  for (int r = 1; r < rows; ++r) {
    int v = m[r * cols + c];
    best = v > best ? v : best;
    if (v < worst) worst = v;
  }
  hi[c] = best;
  lo[c] = worst;
})",
                          "colmax");
  ASSERT_EQ(M.Reductions.size(), 2u);
  EXPECT_EQ(M.Reductions[0].Target, "best");
  EXPECT_EQ(M.Reductions[0].Op, ReductionOp::Max);
  EXPECT_FALSE(M.Reductions[0].FloatingPoint);
  EXPECT_EQ(M.Reductions[1].Target, "worst");
  EXPECT_EQ(M.Reductions[1].Op, ReductionOp::Min);
  EXPECT_TRUE(M.Reductions[1].Companions.empty());
}

TEST(Reduction, ArgmaxKeepsItsIndex) {
  KernelModel M = analyze(R"(
__global__ void argmax_rows(const float *x, int *arg, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float *p = x + (size_t)r * cols;
  float best = p[0];
  int bi = 0;
  for (int c = 1; c < cols; ++c) {
    float v = p[c];
    if (v > best) { best = v; bi = c; }
  }
  arg[r] = bi;
})",
                          "argmax_rows");
  ASSERT_EQ(M.Reductions.size(), 1u);
  const Reduction &R = M.Reductions[0];
  EXPECT_EQ(R.Op, ReductionOp::ArgMax);
  EXPECT_EQ(R.Target, "best");
  ASSERT_EQ(R.Companions.size(), 1u);
  EXPECT_EQ(R.Companions[0], "bi");
  EXPECT_EQ(R.Init, "p[0]");
  EXPECT_NE(pattern(M, PatternKind::Reduction)->Summary.find("argmax of 'best' (with 'bi')"),
            std::string::npos);
}

TEST(Reduction, OtherAssociativeOpsAndAResetPerRow) {
  KernelModel M = analyze(R"(
__global__ void bits(const unsigned *w, unsigned *o, const float *f, float *p, int n, int k) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned x = 0u, a = ~0u;
  float prod;
  for (int i = 0; i < n; ++i) {
    prod = 1.f;
    for (int j = 0; j < k; ++j)
      prod *= f[i * k + j];
    p[i] = prod;
    x ^= w[i * n + t];
    a &= w[i];
  }
  o[t] = x | a;
})",
                          "bits");
  ASSERT_EQ(M.Reductions.size(), 3u);
  // prod is reset in each i iteration: a reduction over j only.
  const Reduction &P = byTarget(M, "prod");
  EXPECT_EQ(P.Op, ReductionOp::Mul);
  EXPECT_EQ(P.Init, "1.f");
  ASSERT_EQ(P.Loops.size(), 1u);
  EXPECT_EQ(M.Loops[P.Loops[0]].Var, "j");
  EXPECT_EQ(byTarget(M, "x").Op, ReductionOp::Xor);
  EXPECT_EQ(M.Loops[byTarget(M, "x").Loops[0]].Var, "i");
  EXPECT_EQ(byTarget(M, "a").Op, ReductionOp::And);
  EXPECT_EQ(byTarget(M, "a").OperandUniform.Level, Uniformity::GridUniform);
  EXPECT_EQ(byTarget(M, "x").OperandUniform.Level, Uniformity::ThreadVarying);
}

TEST(Reduction, ANonAssociativeUpdateIsRefusedWithTheReason) {
  KernelModel M = analyze(R"(
__global__ void ema(const float *x, float *y, int n) {
  float s = 0.f, t = 0.f;
  for (int i = 0; i < n; ++i) {
    s = 0.5f * s + x[i];
    t += x[i];
    y[i] = t;
  }
})",
                          "ema");
  ASSERT_EQ(M.Reductions.size(), 0u);
  bool Said = false;
  for (const Note &N : M.Notes)
    Said |= N.Text == "'t' is not a reduction over the loop at line 4: the loop also reads it here";
  EXPECT_TRUE(Said);
}

TEST(Reduction, HistogramAtDataDependentAddresses) {
  KernelModel M = analyze(R"(
__global__ void histo(const unsigned char *data, unsigned *bins, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&bins[data[i]], 1u);
})",
                          "histo");
  EXPECT_TRUE(M.Reductions.empty()) << "a data-dependent address is not one reduction target";
  const Pattern *P = pattern(M, PatternKind::Histogram);
  ASSERT_NE(P, nullptr);
  EXPECT_EQ(P->Summary, "histogram: atomic increments of 'bins' at data-dependent addresses");
  EXPECT_EQ(P->role("bins"), "bins");
  const Access &A = access(M, "atomicAdd(&bins[data[i]], 1u)");
  EXPECT_EQ(A.Warp.Class, AccessClass::DataDependent);
  EXPECT_EQ(A.Warp.Reason, "'data[i]' is loaded from memory: data-dependent");
}

TEST(Reduction, AtomicsThroughDeviceWrappers) {
  // The whole body of the wrapper is the builtin on its parameters: the
  // call is the atomic, its address and value are the call's arguments.
  KernelModel M = analyze(R"(
__device__ void accumulate(float v, float *acc) { atomicAdd(acc, v); }
__device__ int orInto(int *w, int bits) { return atomicOr(w, bits); }
__device__ void bump(unsigned *bin) { atomicAdd(bin, 1u); }
__global__ void k(const int *x, const float *y, const unsigned char *d, float *sum, int *flags,
                  unsigned *bins, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    accumulate(y[i], sum);
    orInto(flags, x[i] & 7);
    bump(&bins[d[i]]);
  }
})",
                          "k");
  const Access &S = access(M, "accumulate(y[i], sum)");
  EXPECT_EQ(S.Kind, AccessKind::Atomic);
  EXPECT_EQ(S.Atomic, AtomicOp::Add);
  EXPECT_EQ(S.Callee, "atomicAdd");
  EXPECT_EQ(S.Wrapper, "accumulate");
  EXPECT_EQ(S.AddressArg, 1u);
  EXPECT_EQ(S.ValueArg, 0);
  EXPECT_EQ(S.Buffer, "sum");
  const Access &F = access(M, "orInto(flags, x[i] & 7)");
  EXPECT_EQ(F.Atomic, AtomicOp::Or);
  EXPECT_EQ(F.Buffer, "flags");
  const Reduction &RS = byTarget(M, "sum[0]");
  EXPECT_EQ(RS.Op, ReductionOp::Add);
  EXPECT_EQ(RS.Operand, "y[i]");
  EXPECT_TRUE(RS.FloatingPoint);
  EXPECT_EQ(byTarget(M, "flags[0]").Op, ReductionOp::Or);
  // The constant inside the wrapper is the value: a histogram of counts.
  const Access &B = access(M, "bump(&bins[d[i]])");
  EXPECT_EQ(B.Atomic, AtomicOp::Add);
  EXPECT_EQ(B.ValueArg, -1);
  EXPECT_EQ(B.ValueText, "1u");
  EXPECT_EQ(B.Warp.Class, AccessClass::DataDependent);
  const Pattern *H = pattern(M, PatternKind::Histogram);
  ASSERT_NE(H, nullptr);
  EXPECT_TRUE(llvm::StringRef(H->Summary).contains("increments")) << H->Summary;
}

TEST(Reduction, DeviceFunctionsThatAreNotAtomicWrappers) {
  // More than the atomic, a changed address, a compare-and-swap, a
  // converted value: the
  // model does not see the call as an atomic.
  KernelModel M = analyze(R"(
__device__ void twice(float *p, float v) { atomicAdd(p, v); atomicAdd(p, v); }
__device__ void shifted(float *p, float v) { atomicAdd(p + 1, v); }
__device__ int cas(int *p, int v) { return atomicCAS(p, 0, v); }
__device__ void converted(float *p, int v) { atomicAdd(p, (float)v); }
__global__ void k(const float *x, float *s, int *t, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    twice(s, x[i]);
    shifted(s, x[i]);
    cas(t, i);
    converted(s, i);
  }
})",
                          "k");
  for (const Access &A : M.Accesses)
    EXPECT_NE(A.Kind, AccessKind::Atomic) << A.Text;
  EXPECT_TRUE(M.Reductions.empty());
}

TEST(Reduction, AtomicIncWithoutALimitIsAnAddOfOne) {
  KernelModel M = analyze(R"(
__global__ void k(const unsigned char *d, unsigned *bins, unsigned *wrapped, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    atomicInc(&bins[d[i]], 0xffffffffu);
    atomicInc(&wrapped[d[i]], 99u);
  }
})",
                          "k");
  const Access &A = access(M, "atomicInc(&bins[d[i]], 0xffffffffu)");
  EXPECT_EQ(A.Atomic, AtomicOp::Add);
  EXPECT_EQ(A.Callee, "atomicInc");
  EXPECT_EQ(A.ValueArg, -1);
  EXPECT_EQ(A.ValueText, "1u");
  // Another limit wraps: not an add.
  EXPECT_EQ(access(M, "atomicInc(&wrapped[d[i]], 99u)").Atomic, AtomicOp::Inc);
}

} // namespace
