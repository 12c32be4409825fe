//===- AccessClassTest.cpp - Index forms and warp access classes ----------===//
//
// Kernels written in different styles: each access's class, stride, element
// type and index form.
//
//===----------------------------------------------------------------------===//
#include "AnalysisTestUtil.h"

using namespace forge::analysis;
using namespace forge::analysis::test;

namespace {

TEST(AccessClass, SaxpyIsCoalescedEverywhere) {
  KernelModel M = analyze(R"(
__global__ void saxpy(int n, float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
})",
                          "saxpy");
  ASSERT_EQ(M.Accesses.size(), 3u);
  const Access &St = access(M, "y[i]", AccessKind::Store);
  EXPECT_EQ(St.Warp.Class, AccessClass::Coalesced);
  EXPECT_EQ(St.ElementType, "float");
  EXPECT_EQ(St.ElementBytes, 4u);
  EXPECT_EQ(St.IndexText, "blockIdx.x * blockDim.x + threadIdx.x");
  EXPECT_EQ(St.ParamIndex, 3);
  const Access &Ld = access(M, "x[i]");
  EXPECT_EQ(Ld.Kind, AccessKind::Load);
  EXPECT_EQ(Ld.Warp.constantStride(), 1);
  EXPECT_EQ(Ld.G.render(), "i < n");
}

TEST(AccessClass, ConstantAndSymbolicStrides) {
  KernelModel M = analyze(R"(
__global__ void strides(const double *in, double *out, int ld) {
  unsigned t = threadIdx.x + blockDim.x * blockIdx.x;
  out[2 * t] = in[t * ld];
  out[2 * t + 1] = in[t * ld + 1];
})",
                          "strides");
  const Access &Even = access(M, "out[2 * t]");
  EXPECT_EQ(Even.Warp.Class, AccessClass::Strided);
  EXPECT_EQ(Even.Warp.constantStride(), 2);
  EXPECT_EQ(Even.ElementBytes, 8u);
  const Access &Row = access(M, "in[t * ld]");
  EXPECT_EQ(Row.Warp.Class, AccessClass::Strided);
  EXPECT_EQ(stride(M, Row), "ld");
  EXPECT_FALSE(Row.Warp.constantStride());
}

TEST(AccessClass, BroadcastAndPerBlockAddresses) {
  KernelModel M = analyze(R"(
__global__ void bias(float *y, const float *b, const float *scale, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float s = scale[0];
  y[i] = y[i] * s + b[blockIdx.x];
})",
                          "bias");
  EXPECT_EQ(access(M, "scale[0]").Warp.Class, AccessClass::Broadcast);
  const Access &B = access(M, "b[blockIdx.x]");
  EXPECT_EQ(B.Warp.Class, AccessClass::Broadcast);
  EXPECT_TRUE(B.Warp.Stride && B.Warp.Stride->isZero());
  EXPECT_EQ(access(M, "y[i]", AccessKind::Store).Warp.Class, AccessClass::Coalesced);
}

TEST(AccessClass, SizeTCastsAndLocalPointers) {
  // A row pointer derived from a parameter, size_t arithmetic and casts.
  KernelModel M = analyze(R"(
__global__ void rowscale(float *__restrict__ mat, const float *f, size_t cols) {
  const size_t r = blockIdx.y;
  float *row = mat + r * cols;
  for (size_t c = threadIdx.x; c < cols; c += blockDim.x)
    row[c] = row[c] * f[static_cast<size_t>(r)];
})",
                          "rowscale");
  const Access &W = access(M, "row[c]", AccessKind::Store);
  EXPECT_EQ(W.Buffer, "mat");
  EXPECT_EQ(W.Space, MemorySpace::Global);
  EXPECT_EQ(W.Warp.Class, AccessClass::Coalesced);
  EXPECT_EQ(W.IndexText, "blockIdx.y * cols + c");
  EXPECT_EQ(access(M, "f[static_cast<size_t>(r)]").Warp.Class, AccessClass::Broadcast);
  ASSERT_EQ(M.Loops.size(), 1u);
  EXPECT_EQ(M.Loops[0].StepK, StepKind::BlockStride);
}

TEST(AccessClass, AssignedPointerParameterAndPointerIncrements) {
  KernelModel M = analyze(R"(
__global__ void walk(const float *src, float *dst, int n, int stride) {
  src += blockIdx.x * n;
  const float *p = src + threadIdx.x;
  float acc = 0;
  for (int k = 0; k < 4; ++k) {
    acc += *p;
    p += stride;
  }
  dst[blockIdx.x * blockDim.x + threadIdx.x] = acc;
})",
                          "walk");
  const Access &D = access(M, "*p");
  EXPECT_EQ(D.Buffer, "src");
  EXPECT_EQ(D.Warp.Class, AccessClass::Coalesced);
  // p moves by stride per iteration: a derived induction variable.
  EXPECT_NE(D.IndexText.find("stride * it(k)"), std::string::npos) << D.IndexText;
}

TEST(AccessClass, LaneAndWarpArithmeticFoldsBack) {
  KernelModel M = analyze(R"(
__global__ void lanes(const float *in, float *out, const float *tbl) {
  int lane = threadIdx.x & 31;
  int warp = threadIdx.x >> 5;
  out[blockIdx.x * blockDim.x + threadIdx.x] = in[warp * 32 + lane] + tbl[threadIdx.x / 4];
})",
                          "lanes");
  const Access &In = access(M, "in[warp * 32 + lane]");
  EXPECT_EQ(In.Warp.Class, AccessClass::Coalesced);
  EXPECT_EQ(In.IndexText, "threadIdx.x");
  const Access &T = access(M, "tbl[threadIdx.x / 4]");
  EXPECT_EQ(T.Warp.Class, AccessClass::Coalesced);
  EXPECT_EQ(T.Warp.LanesPerElement, 4);
}

TEST(AccessClass, OneDimensionalIndexSplitIntoRowAndColumn) {
  KernelModel M = analyze(R"(
__global__ void flip(const int *in, int *out, int w, int h) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= w * h) return;
  int x = idx % w, y = idx / w;
  out[y * w + x] = in[x * h + y];
})",
                          "flip");
  // A transpose through the flat index (the row idx / w, the column
  // idx % w): the store coalesced, the load strided.
  const Access &Out = access(M, "out[y * w + x]");
  EXPECT_EQ(Out.Warp.Class, AccessClass::Transposed);
  EXPECT_EQ(Out.Warp.constantStride(), 1);
  EXPECT_EQ(Out.IndexText, "blockIdx.x * blockDim.x + threadIdx.x");
  const Access &In = access(M, "in[x * h + y]");
  EXPECT_EQ(In.Warp.Class, AccessClass::Transposed);
  EXPECT_TRUE(In.Warp.FlatSplit.has_value());
  EXPECT_EQ(stride(M, In), "h");
  EXPECT_EQ(In.Warp.Assumption, "'w' >= 32");
  EXPECT_EQ(Out.G.render(), "idx < w * h");
}

TEST(AccessClass, Float4ReinterpretationCountsInVectors) {
  KernelModel M = analyze(R"(
__global__ void copy4(const float *in, float *out, int n4) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n4)
    reinterpret_cast<float4 *>(out)[i] = reinterpret_cast<const float4 *>(in)[i];
})",
                          "copy4");
  const Access &L = access(M, "reinterpret_cast<const float4 *>(in)[i]");
  EXPECT_EQ(L.Buffer, "in");
  EXPECT_EQ(L.ElementType, "float4");
  EXPECT_EQ(L.ElementBytes, 16u);
  EXPECT_EQ(L.Warp.Class, AccessClass::Coalesced);
}

TEST(AccessClass, TwoDimensionalBlockWithAKnownShape) {
  const char *Code = R"(
__global__ void tile2d(const float *a, float *b, int pitch) {
  int x = blockIdx.x * 32 + threadIdx.x;
  int y = blockIdx.y * 8 + threadIdx.y;
  b[y * pitch + x] = a[x * pitch + y] + a[threadIdx.y];
})";
  KernelModel M = analyze(Code, "tile2d", block(32, 8));
  EXPECT_EQ(access(M, "b[y * pitch + x]").Warp.Class, AccessClass::Transposed);
  EXPECT_EQ(access(M, "a[x * pitch + y]").Warp.Class, AccessClass::Transposed);
  EXPECT_EQ(stride(M, access(M, "a[x * pitch + y]")), "pitch");
  // threadIdx.y is the same across a warp of a 32-wide block.
  EXPECT_EQ(access(M, "a[threadIdx.y]").Warp.Class, AccessClass::Broadcast);
}

TEST(AccessClass, SharedMemoryTilesAreModelledToo) {
  KernelModel M = analyze(R"(
#define TS 16
__global__ void smem(const float *in, float *out) {
  __shared__ float tile[TS][TS + 1];
  tile[threadIdx.y][threadIdx.x] = in[threadIdx.y * TS + threadIdx.x];
  __syncthreads();
  out[threadIdx.y * TS + threadIdx.x] = tile[threadIdx.x][threadIdx.y];
})",
                          "smem");
  const Access &S = access(M, "tile[threadIdx.y][threadIdx.x]");
  EXPECT_EQ(S.Space, MemorySpace::Shared);
  EXPECT_EQ(S.Kind, AccessKind::Store);
  EXPECT_EQ(S.IndexText, "threadIdx.x + 17 * threadIdx.y");
  EXPECT_EQ(access(M, "tile[threadIdx.x][threadIdx.y]").Warp.Class, AccessClass::Transposed);
  EXPECT_EQ(stride(M, access(M, "tile[threadIdx.x][threadIdx.y]")), "17");
}

TEST(AccessClass, AtomicsAndLdgThroughTheirPointer) {
  KernelModel M = analyze(R"(
__global__ void counts(const float *__restrict__ v, float *sum, int *hits, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = __ldg(v + i);
  atomicAdd(sum + blockIdx.x, x);
  atomicAdd(&hits[i], 1);
})",
                          "counts");
  const Access &L = access(M, "__ldg(v + i)");
  EXPECT_EQ(L.Kind, AccessKind::Load);
  EXPECT_EQ(L.Callee, "__ldg");
  EXPECT_EQ(L.Warp.Class, AccessClass::Coalesced);
  const Access &S = access(M, "atomicAdd(sum + blockIdx.x, x)");
  EXPECT_EQ(S.Kind, AccessKind::Atomic);
  EXPECT_EQ(S.Atomic, AtomicOp::Add);
  EXPECT_EQ(S.Warp.Class, AccessClass::Broadcast);
  EXPECT_EQ(access(M, "atomicAdd(&hits[i], 1)").Warp.Class, AccessClass::Coalesced);
  EXPECT_EQ(access(M, "atomicAdd(&hits[i], 1)").ElementType, "int");
}

TEST(AccessClass, StructParametersDeviceFunctionsAndVectorStores) {
  KernelModel M = analyze(R"(
struct Params { int n; const float *x; float *y; float alpha; };
__device__ __forceinline__ int globalIndex() { return blockIdx.x * blockDim.x + threadIdx.x; }
__device__ int twice(int v) { return 2 * v; }
__global__ void pk(Params p, const int4 *in, int4 *out) {
  int i = globalIndex();
  if (i < p.n) p.y[i] = p.alpha * p.x[twice(i)];
  int4 v = in[i];
  v.x += 1;
  out[i] = v;
})",
                          "pk");
  const Access &Y = access(M, "p.y[i]");
  EXPECT_EQ(Y.Buffer, "p.y");
  EXPECT_EQ(Y.Space, MemorySpace::Global);
  EXPECT_EQ(Y.Warp.Class, AccessClass::Coalesced);
  EXPECT_EQ(Y.G.render(), "i < p.n");
  // A small device function's result is its return expression.
  EXPECT_EQ(access(M, "p.x[twice(i)]").Warp.constantStride(), 2);
  // out[i] = v assigns a class type: a call of operator=, still a store.
  EXPECT_EQ(access(M, "out[i]").Kind, AccessKind::Store);
  EXPECT_EQ(access(M, "out[i]").ElementBytes, 16u);
}

// An operator the analysis does not follow keeps its operands: over loaded
// values it is data-dependent, over the thread index it is unknown, and a
// mask or remainder of it is never taken for an address every lane shares.
TEST(AccessClass, UnfollowedOperatorsKeepWhatTheyDependOn) {
  KernelModel M = analyze(R"(
__global__ void k(const int *a, const int *b, unsigned *h, unsigned *g, float *o, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    atomicAdd(&h[(a[i] ^ b[i]) & 127], 1u);
    atomicAdd(&g[(i | 1) % 64], 1u);
    o[(blockIdx.x ^ 3) * 2] = 0.f;
  }
})",
                          "k");
  const Access &H = access(M, "atomicAdd(&h[(a[i] ^ b[i]) & 127], 1u)", AccessKind::Atomic);
  EXPECT_EQ(H.Warp.Class, AccessClass::DataDependent);
  EXPECT_FALSE(H.IndexKnown);
  const Access &G = access(M, "atomicAdd(&g[(i | 1) % 64], 1u)", AccessKind::Atomic);
  EXPECT_EQ(G.Warp.Class, AccessClass::Unknown);
  // Only the block index: still one address per block.
  const Access &O = access(M, "o[(blockIdx.x ^ 3) * 2]", AccessKind::Store);
  EXPECT_EQ(O.Warp.Class, AccessClass::Broadcast);
}

} // namespace

namespace {
// A store through a __device__ helper whose whole body is the store is that
// store, at the call's arguments: `put(out, e, v)` is out[e], `set(&y[i], v)`
// is y[i]; the written buffer is known, and the chunk pattern sees it.
TEST(AccessClass, StoresThroughDeviceHelpers) {
  KernelModel M = analyze(R"(
__device__ void put(float *p, int i, float v) { p[i] = v; }
__device__ void set(float *p, float v) { *p = v; }
__global__ void k(const float *in, float *out, float *y, float a, int n) {
  int first = 8 * (blockIdx.x * blockDim.x + threadIdx.x);
  for (int e = first; e < first + 8 && e < n; e++)
    put(out, e, a * in[e]);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    set(&y[i], in[i]);
})",
                          "k");
  const Access &P = access(M, "put(out, e, a * in[e])");
  EXPECT_EQ(P.Kind, AccessKind::Store);
  EXPECT_EQ(P.Wrapper, "put");
  EXPECT_EQ(P.Callee, "put");
  EXPECT_EQ(P.AddressArg, 0u);
  EXPECT_EQ(P.IndexArg, 1);
  EXPECT_EQ(P.ValueArg, 2);
  EXPECT_EQ(P.Buffer, "out");
  EXPECT_EQ(P.Warp.Class, AccessClass::Strided);
  EXPECT_EQ(P.Warp.constantStride(), 8);
  EXPECT_EQ(P.Index, access(M, "in[e]").Index);
  const Access &S = access(M, "set(&y[i], in[i])");
  EXPECT_EQ(S.Kind, AccessKind::Store);
  EXPECT_EQ(S.IndexArg, -1);
  EXPECT_EQ(S.Buffer, "y");
  EXPECT_EQ(S.Warp.Class, AccessClass::Coalesced);
  const Pattern *C = pattern(M, PatternKind::Chunk);
  ASSERT_NE(C, nullptr);
  EXPECT_TRUE(llvm::StringRef(C->Summary).contains("of out, in")) << C->Summary;
}

// Helpers that do more than one plain store of a parameter are calls the
// model does not see into: no store is made up for them.
TEST(AccessClass, DeviceFunctionsThatAreNotStoreHelpers) {
  KernelModel M = analyze(R"(
__device__ void twice(float *p, int i, float v) { p[i] = v; p[i + 1] = v; }
__device__ void scaled(float *p, int i, float v) { p[i] = 2.f * v; }
__device__ void added(float *p, int i, float v) { p[i] += v; }
__device__ void shifted(float *p, int i, float v) { p[i + 1] = v; }
template <typename T> __device__ void generic(T *p, int i, T v) { p[i] = v; }
__global__ void k(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    twice(y, i, x[i]);
    scaled(y, i, x[i]);
    added(y, i, x[i]);
    shifted(y, i, x[i]);
    generic(y, i, x[i]);
  }
})",
                          "k");
  for (const Access &A : M.Accesses)
    EXPECT_EQ(A.Kind, AccessKind::Load) << A.Text;
}
} // namespace
