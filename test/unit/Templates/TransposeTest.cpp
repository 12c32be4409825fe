//===- TransposeTest.cpp - The transpose template -------------------------===//
//
// What it refuses and why, the structure of its text (the padded shared
// tile, guarded edge tiles, the loop over row tiles beyond grid.y's
// limit, the wrapper's fold), its spec (tunables, constraints, the 2D
// geometry at several configurations), and, with a CUDA toolkit, that the
// configurations the constraints allow compile for sm_90 without spilling.
//
//===----------------------------------------------------------------------===//
#include "CompileCheck.h"
#include "forge/Build/CudaToolkit.h"
#include "forge/Measure/LaunchSpec.h"
#include "forge/Templates/Transpose.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include <gtest/gtest.h>

using namespace forge;
using namespace forge::templates;
using namespace llvm;

namespace {

std::string err(Error E) { return toString(std::move(E)); }

Request transpose(int64_t Rows, int64_t Cols, Scalar T = Scalar::F32) {
  Request R;
  R.Kind = OpKind::Transpose;
  R.Type = T;
  R.Shape = {Rows, Cols};
  return R;
}

TEST(TransposeTemplate, RefusalsSayWhy) {
  EXPECT_EQ(err(instantiate(transpose(10, 10, Scalar::U8)).takeError()),
            "the transpose template takes 2-, 4- or 8-byte elements, not u8");
  EXPECT_EQ(err(instantiate(transpose(3000000000LL, 2)).takeError()),
            "the transpose template takes rows and cols up to 2147483647 (int), not 3000000000 x 2");
  Request R = transpose(10, 10);
  R.Shape = {100};
  EXPECT_EQ(err(instantiate(R).takeError()), "a transpose takes 2 extents, not 1");
  R.Shape = {10, 0};
  EXPECT_EQ(err(instantiate(R).takeError()), "a transpose: every extent must be positive, not 0");
}

TEST(TransposeTemplate, TheTiledKernelAndTheWrapper) {
  Request R = transpose(8192, 8192);
  Expected<Instance> I = instantiate(R);
  ASSERT_TRUE(bool(I)) << err(I.takeError());
  EXPECT_EQ(I->Template, "transpose");
  EXPECT_EQ(I->Kernel, "transpose");
  const std::string &S = I->Source;
  EXPECT_NE(S.find("template <int TILE, int BLOCK_ROWS>\n__global__ void "
                   "__launch_bounds__(TILE * BLOCK_ROWS, 2048 / (TILE * BLOCK_ROWS)) transpose(\n"
                   "    const float *__restrict__ in, float *__restrict__ out, int rows, int cols) "
                   "{"),
            std::string::npos)
      << S;
  EXPECT_NE(S.find("__shared__ float ft_tile[TILE][TILE + 1];"), std::string::npos);
  // Rows in, columns out, each guarded; a barrier between.
  size_t Read = S.find("ft_tile[threadIdx.y + ft_j][threadIdx.x] = __ldg(in + ft_r * cols + ft_c);");
  size_t Sync = S.find("__syncthreads();", Read);
  size_t Write = S.find("out[ft_c * rows + ft_r] = ft_tile[threadIdx.x][threadIdx.y + ft_j];");
  ASSERT_NE(Read, std::string::npos);
  ASSERT_NE(Write, std::string::npos);
  EXPECT_LT(Read, Sync);
  EXPECT_LT(Sync, Write);
  EXPECT_EQ(StringRef(S).count("if (ft_r < rows && ft_c < cols)"), 2u);
  // Row tiles beyond grid.y.
  EXPECT_NE(S.find("for (long long ft_ty = blockIdx.y; ft_ty < ft_tiles_y; ft_ty += gridDim.y)"),
            std::string::npos);
  EXPECT_NE(S.find("inline cudaError_t forge_transpose(const float *in, float *out, int rows, "
                   "int cols,\n"),
            std::string::npos);
  EXPECT_NE(S.find("  constexpr int TILE = 64, BLOCK_ROWS = 8;\n  transpose<TILE, BLOCK_ROWS><<<\n"
                   "      dim3((unsigned)(((long long)cols + TILE - 1) / TILE),\n"
                   "           (unsigned)(((long long)rows + TILE - 1) / TILE < 65535\n"),
            std::string::npos)
      << S;
  EXPECT_NE(S.find("      dim3(TILE, BLOCK_ROWS), 0, stream>>>(in, out, rows, cols);"),
            std::string::npos);
}

TEST(TransposeTemplate, TwoByteElementsPadByAWord) {
  Expected<Instance> I = instantiate(transpose(100, 100, Scalar::F16));
  ASSERT_TRUE(bool(I)) << err(I.takeError());
  EXPECT_NE(I->Source.find("#include <cuda_fp16.h>"), std::string::npos);
  EXPECT_NE(I->Source.find("__shared__ __half ft_tile[TILE][TILE + 2];"), std::string::npos);
  EXPECT_EQ(I->Spec["constraints"][2], "TILE * (TILE + 2) * 2 <= 49152");
  I = instantiate(transpose(100, 100, Scalar::F64));
  ASSERT_TRUE(bool(I)) << err(I.takeError());
  EXPECT_NE(I->Source.find("__shared__ double ft_tile[TILE][TILE + 1];"), std::string::npos);
  EXPECT_EQ(I->Spec["constraints"][2], "TILE * (TILE + 1) * 8 <= 49152");
}

TEST(TransposeTemplate, SpecGeometryAtSeveralConfigurations) {
  Expected<Instance> I = instantiate(transpose(4194319, 3));
  ASSERT_TRUE(bool(I)) << err(I.takeError());
  const Json &J = I->Spec;
  EXPECT_EQ(J["template_args"], Json({"TILE", "BLOCK_ROWS"}));
  EXPECT_EQ(J["args"], Json({"in", "out", "rows", "cols"}));
  EXPECT_EQ(J["bytes"], "2 * 4 * ROWS * COLS");
  EXPECT_EQ(J["flops"], "0");
  Expected<measure::LaunchSpec> S = measure::parseLaunchSpec(J, "t.json");
  ASSERT_TRUE(bool(S)) << err(S.takeError());
  ASSERT_EQ(S->Tunables.size(), 2u);
  EXPECT_EQ(S->Tunables[0].Values, (std::vector<int64_t>{32, 64}));
  EXPECT_EQ(S->Tunables[0].defaultValue(), 64);
  EXPECT_EQ(S->Tunables[1].defaultValue(), 8);
  // 65537 row tiles of 64: grid.y is capped.
  auto G = S->geometry({});
  ASSERT_TRUE(bool(G)) << err(G.takeError());
  EXPECT_EQ(G->Grid[0], 1);
  EXPECT_EQ(G->Grid[1], 65535);
  EXPECT_EQ(G->Block[0], 64);
  EXPECT_EQ(G->Block[1], 8);
  G = S->geometry({{"ROWS", 1001}, {"COLS", 777}, {"TILE", 32}, {"BLOCK_ROWS", 4}});
  ASSERT_TRUE(bool(G)) << err(G.takeError());
  EXPECT_EQ(G->Grid[0], 25);
  EXPECT_EQ(G->Grid[1], 32);
  EXPECT_EQ(G->Block[0], 32);
  EXPECT_EQ(G->Block[1], 4);
  auto Ok = [&](int64_t Tile, int64_t Rows) {
    auto C = S->satisfiesConstraints({{"TILE", Tile}, {"BLOCK_ROWS", Rows}});
    return C && *C;
  };
  EXPECT_TRUE(Ok(32, 32));
  EXPECT_TRUE(Ok(64, 16));
  EXPECT_FALSE(Ok(64, 32)); // 2048 threads
  // 8-byte elements: a 64 x 65 tile is 33280 bytes, within 48 KiB.
  I = instantiate(transpose(100, 100, Scalar::F64));
  ASSERT_TRUE(bool(I)) << err(I.takeError());
  S = measure::parseLaunchSpec(I->Spec, "t64.json");
  ASSERT_TRUE(bool(S)) << err(S.takeError());
  EXPECT_TRUE(Ok(64, 16));
}

TEST(TransposeTemplate, SamplesCoverOddShapesAndTheFold) {
  std::vector<Request> Samples = transposeSamples();
  ASSERT_GE(Samples.size(), 3u);
  bool Row = false, Fold = false, Odd = true;
  for (const Request &R : Samples) {
    EXPECT_TRUE(StringRef(R.Name).starts_with("transpose_")) << R.Name;
    Row |= R.Shape[0] == 1;
    Fold |= (R.Shape[0] + 63) / 64 > 65535;
    Odd &= R.Shape[1] % 32 != 0;
  }
  EXPECT_TRUE(Row);
  EXPECT_TRUE(Fold);
  EXPECT_TRUE(Odd);
}

TEST(TransposeTemplate, ConfigurationsCompileWithoutSpills) {
  Expected<build::CudaToolkit> TK = build::CudaToolkit::find();
  if (!TK)
    GTEST_SKIP() << "no CUDA toolkit: " << err(TK.takeError());
  std::string All;
  for (Scalar T : {Scalar::F32, Scalar::F64, Scalar::U16}) {
    Request R = transpose(100, 100, T);
    R.Name = "t_" + scalarInfo(T).Dtype.str();
    Expected<Instance> I = instantiate(R);
    ASSERT_TRUE(bool(I)) << err(I.takeError());
    All += I->Source;
    for (auto [Tile, Rows] : {std::pair{32, 8}, {32, 32}, {64, 16}, {64, 4}})
      All += formatv("template __global__ void {0}<{1}, {2}>(const {3} *, {3} *, int, int);\n",
                     R.Name, Tile, Rows, scalarInfo(T).Cuda)
                 .str();
  }
  Expected<test::CompileReport> P = test::compileForSm90(*TK, All, "forge-transpose");
  ASSERT_TRUE(bool(P)) << err(P.takeError());
  ASSERT_TRUE(P->Ok) << P->Stderr;
  EXPECT_EQ(test::expectNoSpills(*P), 15u) << P->Stderr;
}

} // namespace
