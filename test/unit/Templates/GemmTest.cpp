//===- GemmTest.cpp - The gemm template ------------------------------------===//
//
// What the gemm template refuses (and why), its spec (tunables, constraints,
// geometry, bytes and flops), the structure of its text (16-byte loads, the
// transposed staging of op(A), one barrier per slab, the wrapper's
// configuration), and, with a CUDA toolkit, that several configurations
// compile for sm_90 without spilling.
//
//===----------------------------------------------------------------------===//
#include "CompileCheck.h"
#include "forge/Build/CudaToolkit.h"
#include "forge/Measure/LaunchSpec.h"
#include "forge/Templates/Gemm.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include <gtest/gtest.h>

using namespace forge;
using namespace forge::templates;
using namespace llvm;

namespace {

std::string err(Error E) { return toString(std::move(E)); }

bool ok(Error E) {
  if (!E)
    return true;
  consumeError(std::move(E));
  return false;
}

Request gemm(int64_t M, int64_t N, int64_t K, Scalar T = Scalar::F32) {
  Request R;
  R.Kind = OpKind::Gemm;
  R.Type = T;
  R.Shape = {M, N, K};
  return R;
}

size_t occurrences(StringRef Text, StringRef What) {
  size_t N = 0;
  for (size_t At = Text.find(What); At != StringRef::npos; At = Text.find(What, At + 1))
    ++N;
  return N;
}

TEST(GemmTemplate, RefusalsSayWhy) {
  Request R = gemm(64, 64, 64, Scalar::F16);
  EXPECT_EQ(err(instantiateGemm(R).takeError()),
            "the gemm template takes f32 or f64 elements, not f16");
  R = gemm(64, 64, 64, Scalar::I32);
  EXPECT_EQ(err(instantiate(R).takeError()), "the gemm template takes f32 or f64 elements, not i32");
  R = gemm(64, 64, 64);
  R.Shape = {64, 64};
  EXPECT_EQ(err(instantiateGemm(R).takeError()), "a gemm takes 3 extents, not 2");
  R.Shape = {64, 0, 64};
  EXPECT_EQ(err(instantiateGemm(R).takeError()), "a gemm: every extent must be positive, not 0");
  R.Shape = {64, 64, 1LL << 31};
  EXPECT_EQ(err(instantiateGemm(R).takeError()),
            "the gemm template takes extents up to 2147483647 (int), not 64 x 64 x 2147483648");
  R = gemm(64, 64, 64);
  R.Batch = 0;
  EXPECT_EQ(err(instantiateGemm(R).takeError()),
            "the gemm template takes 1 to 2147483647 products, not 0");
  R.Batch = 1;
  R.Name = "9lives";
  EXPECT_EQ(err(instantiateGemm(R).takeError()),
            "the kernel's name '9lives' is not a C identifier");
  R.Name.clear();
  R.Kind = OpKind::Scan;
  EXPECT_EQ(err(instantiateGemm(R).takeError()), "the gemm template computes a gemm, not a scan");
}

TEST(GemmTemplate, ConfigurationsItRefuses) {
  GemmConfig C;
  EXPECT_TRUE(ok(checkGemmConfig(C, Scalar::F32)));
  EXPECT_TRUE(ok(checkGemmConfig(defaultGemmConfig(Scalar::F64), Scalar::F64)));
  C.WM = 48;
  EXPECT_EQ(err(checkGemmConfig(C, Scalar::F32)),
            "the gemm template's warp tile 48 x 64 must divide the block tile 128 x 128");
  C = GemmConfig();
  C.WN = 32;
  EXPECT_EQ(err(checkGemmConfig(C, Scalar::F32)),
            "the gemm template's warp tile 32 x 32 must be 32 thread tiles of 8 x 8");
  C = {64, 64, 16, 8, 32, 2, 4};
  EXPECT_EQ(err(checkGemmConfig(C, Scalar::F32)),
            "the gemm template's f32 thread tiles and slab come in vectors of 4: TM, TN and BK "
            "must be multiples of 4");
  // The same thread tile is fine for doubles (vectors of 2).
  EXPECT_TRUE(ok(checkGemmConfig(C, Scalar::F64)));
  C = GemmConfig();
  C.BM = C.BN = 256, C.TM = C.TN = 4, C.WM = 16, C.WN = 32;
  EXPECT_EQ(err(checkGemmConfig(C, Scalar::F32)),
            "the gemm template's block would have 4096 threads, more than 1024");
  C = GemmConfig();
  C.BK = 4;
  EXPECT_EQ(err(checkGemmConfig(C, Scalar::F32)),
            "the gemm template's 256 threads cannot share the loads of a 128 x 4 and a 4 x 128 "
            "slab evenly (16-byte vectors)");
  C = GemmConfig();
  C.MinBlocks = 9;
  EXPECT_EQ(err(checkGemmConfig(C, Scalar::F32)),
            "the gemm template's 9 blocks of 256 threads cannot be resident on one SM (2048 "
            "threads)");
  C = GemmConfig();
  C.BK = 32;
  EXPECT_EQ(err(checkGemmConfig(C, Scalar::F32)),
            "the gemm template's two slabs need 67584 bytes of shared memory, more than 49152");
  Request R = gemm(100, 100, 100);
  EXPECT_EQ(err(instantiateGemm(R, C).takeError()),
            "the gemm template's two slabs need 67584 bytes of shared memory, more than 49152");
}

TEST(GemmTemplate, SpecTunablesConstraintsAndWork) {
  Request R = gemm(4096, 4096, 4096);
  R.Name = "sgemm";
  Expected<Instance> I = instantiate(R);
  ASSERT_TRUE(bool(I)) << err(I.takeError());
  EXPECT_EQ(I->Template, "gemm");
  EXPECT_EQ(I->Kernel, "sgemm");
  EXPECT_EQ(I->Wrapper, "forge_sgemm");
  const Json &S = I->Spec;
  EXPECT_EQ(S["template_args"], Json({"BM", "BN", "BK", "WM", "WN", "TM", "TN", "MINB"}));
  std::vector<std::string> Args = S["args"];
  EXPECT_EQ(join(Args, ","), "A,B,C,M,N,K,batch,alpha,beta");
  std::map<std::string, int64_t> Defaults;
  for (const Json &T : S["tunables"])
    Defaults[T["name"]] = T["default"];
  EXPECT_EQ(Defaults, (std::map<std::string, int64_t>{
                          {"BM", 128}, {"BN", 128}, {"BK", 8}, {"WM", 32}, {"WN", 64},
                          {"TM", 8}, {"TN", 8}, {"MINB", 2}}));
  EXPECT_EQ(S["block"], "(BM / TM) * (BN / TN)");
  EXPECT_EQ(S["flops"], "2 * BATCH * M * N * K");
  EXPECT_EQ(S["bytes"], "4 * BATCH * (M * K + K * N + 2 * M * N)");
  EXPECT_EQ(S["buffers"][2]["role"], "inout");
  EXPECT_EQ(S["scalars"][5]["value"], 0.5);

  Expected<measure::LaunchSpec> L = measure::parseLaunchSpec(S, "sgemm.json");
  ASSERT_TRUE(bool(L)) << err(L.takeError());
  auto G = L->geometry({});
  ASSERT_TRUE(bool(G)) << err(G.takeError());
  EXPECT_EQ(G->Grid[0], 32);
  EXPECT_EQ(G->Grid[1], 32);
  EXPECT_EQ(G->Grid[2], 1);
  EXPECT_EQ(G->Block[0], 256);
  // The constraints are checkGemmConfig's: a valid and an invalid config.
  auto Ok = L->satisfiesConstraints({{"BM", 64}, {"WM", 32}, {"BK", 16}});
  ASSERT_TRUE(bool(Ok));
  EXPECT_TRUE(*Ok);
  EXPECT_TRUE(ok(checkGemmConfig({64, 128, 16, 32, 64, 8, 8}, Scalar::F32)));
  std::vector<measure::ValueMap> Bads = {
      {{"WN", 32}}, {{"BK", 32}}, {{"TM", 16}},
      {{"BM", 256}, {"BN", 256}, {"TM", 4}, {"TN", 4}, {"WM", 16}, {"WN", 32}},
      // 3 blocks of 256 threads at 8 x 8 need more than 65536 registers.
      {{"MINB", 3}}};
  for (const measure::ValueMap &Bad : Bads) {
    auto C = L->satisfiesConstraints(Bad);
    ASSERT_TRUE(bool(C));
    EXPECT_FALSE(*C) << Bad.begin()->first;
  }
  // Batched: the grid's z is the products, capped at 65535 (the kernel
  // loops over the rest), and the counts scale.
  R.Shape = {256, 256, 256};
  R.Batch = 100000;
  I = instantiate(R);
  ASSERT_TRUE(bool(I)) << err(I.takeError());
  L = measure::parseLaunchSpec(I->Spec, "b.json");
  ASSERT_TRUE(bool(L)) << err(L.takeError());
  G = L->geometry({});
  ASSERT_TRUE(bool(G)) << err(G.takeError());
  EXPECT_EQ(G->Grid[2], 65535);
  EXPECT_EQ(I->Spec["buffers"][0]["count"], "BATCH * M * K");
}

TEST(GemmTemplate, TheTextHasTheStructureItClaims) {
  Request R = gemm(513, 257, 129);
  R.Name = "g";
  R.Description = "sgemm 513x257x129";
  Expected<Instance> I = instantiateGemm(R);
  ASSERT_TRUE(bool(I)) << err(I.takeError());
  StringRef T = I->Source;
  EXPECT_NE(T.find("Asked for: \"sgemm 513x257x129\""), StringRef::npos);
  EXPECT_NE(T.find("template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int MINB>\n"
                   "__global__ void __launch_bounds__((BM / TM) * (BN / TN), MINB) g(\n"
                   "    const float *__restrict__ A, const float *__restrict__ B, float "
                   "*__restrict__ C, int M, int N,\n    int K, int batch, float alpha, float "
                   "beta)"),
            StringRef::npos);
  // 16-byte vectors: the global loads of both operands, the shared reads of
  // the inner loop, and C's read and write.
  EXPECT_NE(T.find("typedef float4 fg_V;"), StringRef::npos);
  EXPECT_EQ(occurrences(T, "*reinterpret_cast<const fg_V *>(fg_p)"), 3u);
  EXPECT_NE(T.find("*reinterpret_cast<const fg_V *>(&fg_as[fg_buf][fg_k][fg_tm + fg_g * SUB_M])"),
            StringRef::npos);
  EXPECT_NE(T.find("*reinterpret_cast<const fg_V *>(&fg_bs[fg_buf][fg_k][fg_tn + fg_g * SUB_N])"),
            StringRef::npos);
  EXPECT_NE(T.find("*reinterpret_cast<fg_V *>(fg_p) = fg_q;"), StringRef::npos);
  // A row-major: op(A) staged transposed; B stored as vectors.
  EXPECT_NE(T.find("fg_as[fg_buf][fg_kc + fg_e][fg_r] = fg_ra[fg_i][fg_e];"), StringRef::npos);
  EXPECT_NE(T.find("*reinterpret_cast<fg_V *>(&fg_bs[fg_buf][fg_kr][fg_oc])"), StringRef::npos);
  EXPECT_NE(T.find("const bool fg_avec = K % VW == 0"), StringRef::npos);
  EXPECT_NE(T.find("const bool fg_bvec = N % VW == 0"), StringRef::npos);
  // Two buffers with padded rows, one barrier per slab, next slab in flight.
  EXPECT_NE(T.find("__shared__ __align__(16) fg_T fg_as[2][BK][BM + VW];"), StringRef::npos);
  EXPECT_EQ(occurrences(T, "__syncthreads()"), 1u);
  EXPECT_NE(T.find("fg_load(); // in flight during the multiplication below"), StringRef::npos);
  EXPECT_NE(T.find("fmaf(fg_a[fg_i], fg_b[fg_j], fg_acc[fg_i][fg_j])"), StringRef::npos);
  // Guarded element loads with zero fill at the edges.
  EXPECT_NE(T.find("fg_ra[fg_i][fg_e] = fg_o < M && fg_k + fg_e < K ? fg_p[fg_e] : (fg_T)0;"),
            StringRef::npos);
  // The wrapper: not batched, the configuration as named constants.
  EXPECT_NE(T.find("inline cudaError_t forge_g(const float *A, const float *B, float *C, int M, "
                   "int N, int K,\n                           float alpha, float beta, "
                   "cudaStream_t stream = 0)"),
            StringRef::npos);
  EXPECT_NE(T.find("constexpr int BM = 128, BN = 128, BK = 8, WM = 32, WN = 64, TM = 8, TN = 8, "
                   "MINB = 2;"),
            StringRef::npos);
  EXPECT_NE(T.find("g<BM, BN, BK, WM, WN, TM, TN, MINB><<<\n"
                   "      dim3((N + BN - 1) / BN, (M + BM - 1) / BM < 65535 ? (M + BM - 1) / BM "
                   ": 65535,\n"
                   "           batch < 65535 ? batch : 65535),\n"
                   "      (BM / TM) * (BN / TN), 0, stream>>>(A, B, C, M, N, K, batch, alpha, "
                   "beta);"),
            StringRef::npos);
  EXPECT_NE(T.find("const int batch = 1;"), StringRef::npos);
}

TEST(GemmTemplate, TransposesBatchesAndDoubles) {
  Request R = gemm(300, 200, 100, Scalar::F64);
  R.TransA = R.TransB = true;
  R.Batch = 3;
  R.Name = "d";
  Expected<Instance> I = instantiateGemm(R);
  ASSERT_TRUE(bool(I)) << err(I.takeError());
  StringRef T = I->Source;
  EXPECT_NE(T.find("typedef double2 fg_V;"), StringRef::npos);
  EXPECT_NE(T.find("constexpr int VW = 2;"), StringRef::npos);
  EXPECT_NE(T.find("fma(fg_a[fg_i], fg_b[fg_j], fg_acc[fg_i][fg_j])"), StringRef::npos);
  // A^T: rows along m, stored as vectors; B^T: rows along k, transposed.
  EXPECT_NE(T.find("const bool fg_avec = M % VW == 0"), StringRef::npos);
  EXPECT_NE(T.find("const bool fg_bvec = K % VW == 0"), StringRef::npos);
  EXPECT_NE(T.find("*reinterpret_cast<fg_V *>(&fg_as[fg_buf][fg_kr][fg_oc])"), StringRef::npos);
  EXPECT_NE(T.find("fg_bs[fg_buf][fg_kc + fg_e][fg_r] = fg_rb[fg_i][fg_e];"), StringRef::npos);
  EXPECT_EQ(T.find("fg_as[fg_buf][fg_kc + fg_e][fg_r]"), StringRef::npos);
  // Batched wrapper: batch after K.
  EXPECT_NE(T.find("forge_d(const double *A, const double *B, double *C, int M, int N, int K,\n"
                   "                           int batch, double alpha, double beta,"),
            StringRef::npos);
  EXPECT_EQ(T.find("const int batch = 1;"), StringRef::npos);
  EXPECT_NE(T.find("constexpr int BM = 128, BN = 64, BK = 8, WM = 32, WN = 32, TM = 8, TN = 4, "
                   "MINB = 1;"),
            StringRef::npos);
  EXPECT_EQ(I->Spec["bytes"], "8 * BATCH * (M * K + K * N + 2 * M * N)");
  EXPECT_EQ(I->Spec["buffers"][0]["dtype"], "f64");

  // Another configuration: the wrapper launches it, the spec defaults to it.
  GemmConfig C{64, 64, 16, 32, 32, 4, 8, 4};
  ASSERT_TRUE(ok(checkGemmConfig(C, Scalar::F32)));
  R = gemm(1000, 1000, 1000);
  I = instantiateGemm(R, C);
  ASSERT_TRUE(bool(I)) << err(I.takeError());
  EXPECT_NE(I->Source.find("constexpr int BM = 64, BN = 64, BK = 16, WM = 32, WN = 32, TM = 4, "
                           "TN = 8, MINB = 4;"),
            std::string::npos);
  Expected<measure::LaunchSpec> L = measure::parseLaunchSpec(I->Spec, "c.json");
  ASSERT_TRUE(bool(L)) << err(L.takeError());
  auto G = L->geometry({});
  ASSERT_TRUE(bool(G)) << err(G.takeError());
  EXPECT_EQ(G->Block[0], 128);
  EXPECT_EQ(G->Grid[0], 16);
  auto Ok = L->satisfiesConstraints({});
  ASSERT_TRUE(bool(Ok));
  EXPECT_TRUE(*Ok);

  R.AllowLowerPrecision = true;
  I = instantiateGemm(R);
  ASSERT_TRUE(bool(I));
  EXPECT_NE(join(I->Notes, "\n").find("no tf32 variant yet"), std::string::npos);
}

/// The default configurations (and a few others, explicitly instantiated)
/// compile for sm_90 without spills: ptxas -v reports every kernel.
TEST(GemmTemplate, ConfigurationsCompileWithoutSpills) {
  Expected<build::CudaToolkit> TK = build::CudaToolkit::find();
  if (!TK)
    GTEST_SKIP() << "no CUDA toolkit: " << err(TK.takeError());
  std::string All;
  auto Add = [&](Request R, std::vector<GemmConfig> More) {
    Expected<Instance> I = instantiateGemm(R);
    ASSERT_TRUE(bool(I)) << err(I.takeError());
    All += I->Source;
    for (const GemmConfig &C : More) {
      ASSERT_TRUE(ok(checkGemmConfig(C, R.Type)));
      All += formatv("template __global__ void {0}<{1}, {2}, {3}, {4}, {5}, {6}, {7}, {9}>(const {8} "
                     "*, const {8} *, {8} *, int, int, int, int, {8}, {8});\n",
                     R.Name, C.BM, C.BN, C.BK, C.WM, C.WN, C.TM, C.TN,
                     R.Type == Scalar::F64 ? "double" : "float", C.MinBlocks)
                 .str();
    }
  };
  Request R = gemm(4096, 4096, 4096);
  R.Name = "s";
  Add(R, {{128, 128, 16, 32, 64, 8, 8, 1},
          {64, 64, 8, 32, 32, 4, 8, 4},
          {128, 256, 8, 32, 128, 8, 16, 1}});
  R.Name = "st";
  R.TransA = R.TransB = true;
  Add(R, {});
  R = gemm(2048, 2048, 2048, Scalar::F64);
  R.Name = "d";
  Add(R, {{64, 64, 8, 16, 32, 4, 4, 2}, {64, 64, 16, 32, 32, 4, 8, 2}});

  Expected<test::CompileReport> P = test::compileForSm90(*TK, All, "forge-gemm");
  ASSERT_TRUE(bool(P)) << err(P.takeError());
  ASSERT_TRUE(P->Ok) << P->Stderr;
  EXPECT_EQ(test::expectNoSpills(*P), 8u) << P->Stderr;
}

} // namespace
