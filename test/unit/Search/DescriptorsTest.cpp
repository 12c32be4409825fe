//===- DescriptorsTest.cpp - Descriptors measured from real kernels -------===//
#include "SearchTestUtil.h"
#include "forge/Arch/Occupancy.h"
#include "forge/Frontend/KernelLookup.h"
#include "forge/Search/Descriptors.h"
#include "clang/AST/ASTContext.h"
#include "gtest/gtest.h"
#include <set>

using namespace forge;
using namespace forge::search;
using namespace forge::search::test;

namespace {

const arch::TargetInfo &sm90() {
  auto T = arch::lookupTarget("sm_90");
  if (!T) {
    llvm::consumeError(T.takeError());
    std::abort();
  }
  return *T;
}

/// 32 registers, 256 threads, no shared memory: full occupancy on sm_90.
CompileFacts light(int Threads = 256) {
  CompileFacts C;
  C.Registers = 32;
  C.BlockThreads = Threads;
  return C;
}

Descriptor describeOk(const std::string &Code, llvm::StringRef Kernel,
                      const CompileFacts &C = light()) {
  auto D = describeSource(Code, Kernel, C, sm90(), mockParse());
  if (!D) {
    ADD_FAILURE() << llvm::toString(D.takeError());
    return {};
  }
  return *D;
}

const char *Elementwise = R"(
__global__ void saxpy(float a, const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
)";

const char *Float4Elementwise = R"(
__global__ void scale4(const float *in, float *out, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i * 4 < n) {
    float4 v = reinterpret_cast<const float4 *>(in)[i];
    v.x *= s; v.y *= s; v.z *= s; v.w *= s;
    reinterpret_cast<float4 *>(out)[i] = v;
  }
}
)";

const char *GridStride = R"(
__global__ void scaleGs(const float *in, float *out, float s, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    out[i] = s * in[i];
}
)";

const char *TransposeTile = R"(
#define TILE 32
__global__ void transposeTile(const float *in, float *out, int w, int h) {
  __shared__ float tile[TILE][TILE + 1];
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  if (x < w && y < h) tile[threadIdx.y][threadIdx.x] = in[y * w + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  if (x < h && y < w) out[y * h + x] = tile[threadIdx.x][threadIdx.y];
}
)";

// 64x64 block tile staged in shared memory, 4x4 outputs per thread.
const char *RegisterGemm = R"(
#define BM 64
#define BN 64
#define BK 8
#define TM 4
#define TN 4
__global__ void sgemmReg(const float *A, const float *B, float *C, int N) {
  __shared__ float As[BK][BM];
  __shared__ float Bs[BK][BN];
  float acc[TM][TN] = {};
  int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  int row0 = blockIdx.y * BM + ty * TM, col0 = blockIdx.x * BN + tx * TN;
  for (int k0 = 0; k0 < N; k0 += BK) {
    for (int l = threadIdx.x; l < BK * BM; l += blockDim.x) {
      As[l / BM][l % BM] = A[(blockIdx.y * BM + l % BM) * N + k0 + l / BM];
      Bs[l / BN][l % BN] = B[(k0 + l / BN) * N + blockIdx.x * BN + l % BN];
    }
    __syncthreads();
    for (int k = 0; k < BK; ++k)
      for (int i = 0; i < TM; ++i)
        for (int j = 0; j < TN; ++j)
          acc[i][j] += As[k][ty * TM + i] * Bs[k][tx * TN + j];
    __syncthreads();
  }
  for (int i = 0; i < TM; ++i)
    for (int j = 0; j < TN; ++j)
      C[(row0 + i) * N + col0 + j] = acc[i][j];
}
)";

const char *SharedStencil = R"(
#define R 2
#define BS 256
__global__ void stencil1d(const float *in, float *out, int n) {
  __shared__ float s[BS + 2 * R];
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  int l = threadIdx.x + R;
  s[l] = in[min(g, n - 1)];
  if (threadIdx.x < R) {
    s[l - R] = in[max(g - R, 0)];
    s[l + BS] = in[min(g + BS, n - 1)];
  }
  __syncthreads();
  if (g < n) {
    float acc = 0.f;
    for (int k = -R; k <= R; ++k) acc += s[l + k];
    out[g] = acc;
  }
}
)";

const char *WarpReduction = R"(
__global__ void warpSum(const float *in, float *out, int n) {
  float v = 0.f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    v += in[i];
  for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffff, v, o);
  if ((threadIdx.x & 31) == 0) atomicAdd(out, v);
}
)";

const char *NaiveGemm = R"(
__global__ void sgemmNaive(const float *A, const float *B, float *C, int N) {
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < N && c < N) {
    float s = 0.f;
    for (int k = 0; k < N; ++k) s += A[r * N + k] * B[k * N + c];
    C[r * N + c] = s;
  }
}
)";

const char *TwoAccumulators = R"(
__global__ void gemm1x2(const float *A, const float *B, float *C, int N) {
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  int c = (blockIdx.x * blockDim.x + threadIdx.x) * 2;
  float s0 = 0.f, s1 = 0.f;
  for (int k = 0; k < N; ++k) {
    float a = A[r * N + k];
    s0 += a * B[k * N + c];
    s1 += a * B[k * N + c + 1];
  }
  C[r * N + c] = s0;
  C[r * N + c + 1] = s1;
}
)";

const char *Float2Chunk = R"(
__global__ void chunk2(const float2 *in, float2 *out, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < 4; ++k) {
    int i = t * 4 + k;
    if (i < n) out[i] = make_float2(in[i].x * 2.f, in[i].y * 2.f);
  }
}
)";

// A per-thread array that is filled but never accumulated is not a tile.
const char *LocalCopy = R"(
__global__ void viaLocal(const float *in, float *out, int n) {
  float v[4];
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < 4; ++k) v[k] = in[t * 4 + k];
  for (int k = 0; k < 4; ++k) out[t * 4 + k] = v[k] + 1.f;
}
)";

TEST(Descriptors, NaiveElementwise) {
  Descriptor D = describeOk(Elementwise, "saxpy");
  EXPECT_EQ(D.key(), "global/1/scalar/>=75 %") << D.WorkWhy;
  EXPECT_EQ(D.ItemsPerThread, 1u);
  EXPECT_TRUE(D.ItemsExact);
  EXPECT_DOUBLE_EQ(D.OccupancyFraction, 1.0);
}

TEST(Descriptors, Float4Elementwise) {
  Descriptor D = describeOk(Float4Elementwise, "scale4");
  EXPECT_EQ(D.Vector, VectorWidth::Four) << D.VectorWhy;
  EXPECT_EQ(D.VectorLanes, 4u);
  EXPECT_EQ(D.Memory, MemoryStrategy::Global);
  // One float4 store is one output: the width is the other descriptor.
  EXPECT_EQ(D.Work, WorkBand::One) << D.WorkWhy;
  EXPECT_EQ(vectorWidthName(D.Vector), "4-wide");
}

TEST(Descriptors, GridStrideLoopUsesTheLaunch) {
  // Without the launch the grid-stride trips are unknown: counted once.
  Descriptor Bare = describeOk(GridStride, "scaleGs");
  EXPECT_EQ(Bare.Work, WorkBand::One);
  EXPECT_FALSE(Bare.ItemsExact);
  EXPECT_NE(Bare.WorkWhy.find("not known without the launch"), std::string::npos) << Bare.WorkWhy;

  // 2^20 elements over 256 blocks of 256 threads: 16 per thread.
  CompileFacts C = light();
  C.Block = {{256, 1, 1}};
  C.Grid = {{256, 1, 1}};
  C.Scalars["n"] = 1 << 20;
  Descriptor D = describeOk(GridStride, "scaleGs", C);
  EXPECT_EQ(D.ItemsPerThread, 16u) << D.WorkWhy;
  EXPECT_TRUE(D.ItemsExact);
  EXPECT_EQ(D.Work, WorkBand::EightPlus);

  // 2^20 over 1024 blocks: 4 per thread.
  C.Grid = {{1024, 1, 1}};
  EXPECT_EQ(describeOk(GridStride, "scaleGs", C).Work, WorkBand::FourToSeven);
}

TEST(Descriptors, SharedTransposeTile) {
  CompileFacts C = light(1024);
  C.StaticShared = 32 * 33 * 4;
  Descriptor D = describeOk(TransposeTile, "transposeTile", C);
  EXPECT_EQ(D.Memory, MemoryStrategy::Shared) << D.MemoryWhy;
  EXPECT_NE(D.MemoryWhy.find("tile"), std::string::npos);
  EXPECT_EQ(D.Work, WorkBand::One);
  EXPECT_EQ(D.Vector, VectorWidth::Scalar);
  EXPECT_EQ(D.Occupancy, OccupancyBand::AtLeast75) << D.OccupancyWhy;
}

TEST(Descriptors, RegisterTiledGemm) {
  CompileFacts C;
  C.Registers = 128;
  C.BlockThreads = 256;
  C.StaticShared = 2 * 8 * 64 * 4;
  Descriptor D = describeOk(RegisterGemm, "sgemmReg", C);
  EXPECT_EQ(D.Memory, MemoryStrategy::Register) << D.MemoryWhy;
  EXPECT_NE(D.MemoryWhy.find("'acc'"), std::string::npos) << D.MemoryWhy;
  EXPECT_EQ(D.ItemsPerThread, 16u) << D.WorkWhy;
  EXPECT_EQ(D.Work, WorkBand::EightPlus);
  // 128 registers x 256 threads: 2 blocks, 16 of 64 warps.
  EXPECT_EQ(D.Occupancy, OccupancyBand::From25To50) << D.OccupancyWhy;
  EXPECT_DOUBLE_EQ(D.OccupancyFraction, 0.25);
}

TEST(Descriptors, RegisterTileNeedsTheBodyFacts) {
  // The model alone does not see per-thread arrays: without BodyFacts the
  // same kernel reads as shared-memory staging.
  CompileFacts C = light();
  forge::analysis::KernelModel Model;
  std::optional<Descriptor> WithBody;
  SourceParse P = mockParse();
  frontend::ParseRequest Req;
  Req.File = P.File;
  Req.S = frontend::Side::Device;
  Req.Contents = RegisterGemm;
  frontend::ParseDiagnostics Diags(nullptr);
  llvm::Error E = frontend::parseCuda(
      P.TC, P.Parse, Req, Diags,
      [&](clang::ASTContext &Ctx, clang::CompilerInstance &, const frontend::PreprocessorFacts &) {
        auto K = frontend::findKernel(Ctx, "sgemmReg", P.File);
        ASSERT_TRUE(bool(K)) << llvm::toString(K.takeError());
        auto M = analysis::analyzeKernel(Ctx, **K);
        ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
        BodyFacts B = bodyFacts(**K, Ctx);
        EXPECT_EQ(B.RegisterArrays, 1u);
        EXPECT_EQ(B.RegisterArrayElements, 16u);
        auto D = describe(*M, C, sm90(), &B);
        ASSERT_TRUE(bool(D)) << llvm::toString(D.takeError());
        WithBody = *D;
        M->detach();
        Model = std::move(*M);
      });
  ASSERT_FALSE(bool(E)) << llvm::toString(std::move(E));
  ASSERT_TRUE(WithBody);
  EXPECT_EQ(WithBody->Memory, MemoryStrategy::Register);
  auto Without = describe(Model, C, sm90());
  ASSERT_TRUE(bool(Without)) << llvm::toString(Without.takeError());
  EXPECT_EQ(Without->Memory, MemoryStrategy::Shared) << Without->MemoryWhy;
}

TEST(Descriptors, SharedStencil) {
  Descriptor D = describeOk(SharedStencil, "stencil1d");
  EXPECT_EQ(D.Memory, MemoryStrategy::Shared) << D.MemoryWhy;
  EXPECT_EQ(D.Work, WorkBand::One) << D.WorkWhy;
  EXPECT_EQ(D.Vector, VectorWidth::Scalar);
}

TEST(Descriptors, WarpShuffleReductionCountsItsLoads) {
  CompileFacts C = light();
  C.Block = {{256, 1, 1}};
  C.Grid = {{132 * 8, 1, 1}};
  C.Scalars["n"] = 1 << 24;
  Descriptor D = describeOk(WarpReduction, "warpSum", C);
  EXPECT_EQ(D.Memory, MemoryStrategy::Global) << D.MemoryWhy;
  // 2^24 / (1056 * 256) = 62.06: 63 loads for the first thread.
  EXPECT_EQ(D.ItemsPerThread, 63u) << D.WorkWhy;
  EXPECT_NE(D.WorkWhy.find("loads"), std::string::npos) << D.WorkWhy;
  EXPECT_EQ(D.Work, WorkBand::EightPlus);
}

TEST(Descriptors, NaiveGemm) {
  Descriptor D = describeOk(NaiveGemm, "sgemmNaive");
  EXPECT_EQ(D.key(), "global/1/scalar/>=75 %") << D.MemoryWhy << "; " << D.WorkWhy;
}

TEST(Descriptors, SeveralAccumulatorsAreARegisterTile) {
  Descriptor D = describeOk(TwoAccumulators, "gemm1x2");
  EXPECT_EQ(D.Memory, MemoryStrategy::Register) << D.MemoryWhy;
  EXPECT_NE(D.MemoryWhy.find("2 per-thread accumulators"), std::string::npos) << D.MemoryWhy;
  EXPECT_EQ(D.ItemsPerThread, 2u) << D.WorkWhy;
  EXPECT_EQ(D.Work, WorkBand::TwoToThree);
}

TEST(Descriptors, Float2Chunk) {
  Descriptor D = describeOk(Float2Chunk, "chunk2");
  EXPECT_EQ(D.Vector, VectorWidth::Two) << D.VectorWhy;
  EXPECT_EQ(D.ItemsPerThread, 4u) << D.WorkWhy;
  EXPECT_EQ(D.Work, WorkBand::FourToSeven);
}

TEST(Descriptors, LocalArrayWithoutAccumulationIsNotATile) {
  Descriptor D = describeOk(LocalCopy, "viaLocal");
  EXPECT_EQ(D.Memory, MemoryStrategy::Global) << D.MemoryWhy;
  EXPECT_EQ(D.Work, WorkBand::FourToSeven) << D.WorkWhy;
}

TEST(Descriptors, OccupancyBandsFollowTheArchDatabase) {
  CompileFacts C = light();
  C.Registers = 64; // 4 blocks of 256 at 64 registers: 32 of 64 warps
  EXPECT_EQ(describeOk(Elementwise, "saxpy", C).Occupancy, OccupancyBand::From50To75);
  C.Registers = 255; // 1 block: 8 of 64 warps
  EXPECT_EQ(describeOk(Elementwise, "saxpy", C).Occupancy, OccupancyBand::Below25);
  C.Registers = 32;
  C.DynamicShared = 100 * 1024; // 2 blocks of 228 KB
  EXPECT_EQ(describeOk(Elementwise, "saxpy", C).Occupancy, OccupancyBand::From25To50);
}

TEST(Descriptors, ABlockThatCannotLaunchIsAnError) {
  CompileFacts C = light(2048);
  auto D = describeSource(Elementwise, "saxpy", C, sm90(), mockParse());
  ASSERT_FALSE(bool(D));
  bool IsLimit = false;
  llvm::handleAllErrors(
      D.takeError(), [&](const arch::LaunchLimitError &) { IsLimit = true; },
      [](const llvm::ErrorInfoBase &) {});
  EXPECT_TRUE(IsLimit);
}

TEST(Descriptors, UnknownKernelIsAnError) {
  auto D = describeSource(Elementwise, "nope", light(), sm90(), mockParse());
  ASSERT_FALSE(bool(D));
  EXPECT_NE(llvm::toString(D.takeError()).find("nope"), std::string::npos);
}

TEST(Descriptors, BandsOfCounts) {
  EXPECT_EQ(workBandOf(0), WorkBand::One);
  EXPECT_EQ(workBandOf(1), WorkBand::One);
  EXPECT_EQ(workBandOf(3), WorkBand::TwoToThree);
  EXPECT_EQ(workBandOf(4), WorkBand::FourToSeven);
  EXPECT_EQ(workBandOf(7), WorkBand::FourToSeven);
  EXPECT_EQ(workBandOf(8), WorkBand::EightPlus);
  EXPECT_EQ(occupancyBandOf(0.249), OccupancyBand::Below25);
  EXPECT_EQ(occupancyBandOf(0.25), OccupancyBand::From25To50);
  EXPECT_EQ(occupancyBandOf(0.5), OccupancyBand::From50To75);
  EXPECT_EQ(occupancyBandOf(0.75), OccupancyBand::AtLeast75);
  EXPECT_EQ(vectorWidthOf(3), VectorWidth::Scalar);
  EXPECT_EQ(vectorWidthOf(8), VectorWidth::Four);
}

TEST(Descriptors, CellIndexRoundTripsEveryCell) {
  std::set<std::string> Keys;
  for (unsigned I = 0; I < NumCells; ++I) {
    Descriptor D = Descriptor::fromCellIndex(I);
    EXPECT_EQ(D.cellIndex(), I);
    Keys.insert(D.key());
  }
  EXPECT_EQ(Keys.size(), size_t(NumCells));
  EXPECT_EQ(NumCells, 144u);
}

TEST(Descriptors, JsonRoundTripAndStrictRead) {
  Descriptor D = describeOk(Float2Chunk, "chunk2");
  auto Back = descriptorFromJson(toJson(D), "d.json");
  ASSERT_TRUE(bool(Back)) << llvm::toString(Back.takeError());
  EXPECT_EQ(Back->key(), D.key());
  EXPECT_EQ(Back->ItemsPerThread, D.ItemsPerThread);
  EXPECT_EQ(Back->WorkWhy, D.WorkWhy);

  Json Bad = toJson(D);
  Bad["work"] = "9-12";
  auto E = descriptorFromJson(Bad, "d.json");
  ASSERT_FALSE(bool(E));
  EXPECT_NE(llvm::toString(E.takeError()).find("$.work: unknown band '9-12'"), std::string::npos);
  Json Missing = toJson(D);
  Missing.erase("memory");
  auto E2 = descriptorFromJson(Missing, "d.json");
  ASSERT_FALSE(bool(E2));
  EXPECT_NE(llvm::toString(E2.takeError()).find("memory"), std::string::npos);
}

} // namespace
