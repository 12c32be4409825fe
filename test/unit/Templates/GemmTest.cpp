//===- GemmTest.cpp - The gemm template ------------------------------------===//
//
// What the gemm template refuses (and why), its spec (tunables, constraints,
// geometry, bytes and flops), the structure of its text (16-byte loads, the
// transposed staging of op(A), one barrier per slab, the wrapper's
// configuration), and, with a CUDA toolkit, that several configurations
// compile for sm_90 without spilling. The tf32 tensor-core kernel: when the
// template picks it, what it refuses, its spec (tunables, constraints, the
// tf32 tolerance), its text (cvt.rna, mma.sync, the fragment reads per
// transpose), and one nvcc run for sm_80 and sm_90 whose PTX holds the mmas.
// The f16/bf16 tensor-core kernel: descriptions that pick it, what it
// refuses, its spec (tunables, constraints agreeing with
// checkGemmHalfConfig, the tolerance from the element type and K), its text
// (ldmatrix, mma.sync.m16n8k16, f32 epilogue), and one nvcc run for sm_80
// and sm_90 of several configurations of both types.
//
//===----------------------------------------------------------------------===//
#include "CompileCheck.h"
#include "forge/Build/CudaToolkit.h"
#include "forge/Measure/LaunchSpec.h"
#include "forge/Templates/Description.h"
#include "forge/Templates/Gemm.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include <cmath>
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
  // f16 runs on the tensor cores (GemmHalf below); the FMA kernel refuses it.
  Request R = gemm(64, 64, 64, Scalar::F16);
  EXPECT_EQ(err(instantiateGemm(R, GemmConfig()).takeError()),
            "the gemm template's FMA kernel takes f32 or f64 elements, not f16 (f16 and bf16 run "
            "on the tensor cores)");
  R = gemm(64, 64, 64, Scalar::I32);
  EXPECT_EQ(err(instantiate(R).takeError()),
            "the gemm template takes f32, f64, f16 or bf16 elements, not i32");
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

// One f32 product whose 128 x 256 tiles fill two waves of the SMs takes
// the sweep's fastest configuration (87 % of cuBLAS at 4096^3 on an H100);
// smaller products, batches and doubles keep the type's default.
TEST(GemmTemplate, LargeProductsTakeTheWideTile) {
  GemmConfig Big = defaultGemmConfigFor(gemm(4096, 4096, 4096));
  EXPECT_EQ(std::vector<int>({Big.BM, Big.BN, Big.BK, Big.WM, Big.WN, Big.TM, Big.TN, Big.MinBlocks}),
            std::vector<int>({128, 256, 8, 128, 32, 8, 16, 1}));
  EXPECT_TRUE(ok(checkGemmConfig(Big, Scalar::F32)));
  auto IsDefault = [](const GemmConfig &C, Scalar T) {
    GemmConfig D = defaultGemmConfig(T);
    return C.BM == D.BM && C.BN == D.BN && C.BK == D.BK && C.WM == D.WM && C.WN == D.WN &&
           C.TM == D.TM && C.TN == D.TN && C.MinBlocks == D.MinBlocks;
  };
  // 2048^2: 16 x 8 = 128 wide tiles, under two waves of 132 SMs.
  EXPECT_TRUE(IsDefault(defaultGemmConfigFor(gemm(2048, 2048, 2048)), Scalar::F32));
  Request Batched = gemm(4096, 4096, 64);
  Batched.Batch = 4;
  EXPECT_TRUE(IsDefault(defaultGemmConfigFor(Batched), Scalar::F32));
  EXPECT_TRUE(IsDefault(defaultGemmConfigFor(gemm(4096, 4096, 4096, Scalar::F64)), Scalar::F64));
  // The wrapper carries it.
  auto I = instantiateGemm(gemm(4096, 4096, 4096));
  ASSERT_TRUE(bool(I)) << err(I.takeError());
  EXPECT_NE(I->Source.find("constexpr int BM = 128, BN = 256, BK = 8, WM = 128, WN = 32, TM = 8, "
                           "TN = 16, MINB = 1;"),
            std::string::npos);
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
  // 2048^3 keeps the f32 default (4096^3 takes the wide tile: below).
  Request R = gemm(2048, 2048, 2048);
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
  EXPECT_EQ(G->Grid[0], 16);
  EXPECT_EQ(G->Grid[1], 16);
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

  // Lower precision with an explicit FMA configuration: still the FMA
  // kernel, with a note; f64 ignores the flag (no tf32 for doubles).
  R.AllowLowerPrecision = true;
  I = instantiateGemm(R, C);
  ASSERT_TRUE(bool(I)) << err(I.takeError());
  EXPECT_EQ(I->Source.find("mma.sync"), std::string::npos);
  EXPECT_NE(join(I->Notes, "\n").find("an FMA configuration was asked for"), std::string::npos);
  R = gemm(300, 200, 100, Scalar::F64);
  R.AllowLowerPrecision = true;
  I = instantiateGemm(R);
  ASSERT_TRUE(bool(I)) << err(I.takeError());
  EXPECT_EQ(I->Source.find("mma.sync"), std::string::npos);
  EXPECT_NE(I->Source.find("typedef double2 fg_V;"), std::string::npos);
  EXPECT_NE(join(I->Notes, "\n").find("no tf32 for doubles"), std::string::npos);
  EXPECT_FALSE(I->Spec.contains("allow_lower_precision"));
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

// ---- The tf32 tensor-core kernel -----------------------------------------

TEST(GemmTf32, TheFlagPicksIt) {
  // Without the flag: the FMA kernel.
  Request R = gemm(4096, 4096, 4096);
  Expected<Instance> I = instantiate(R);
  ASSERT_TRUE(bool(I)) << err(I.takeError());
  EXPECT_EQ(I->Source.find("mma.sync"), std::string::npos);
  EXPECT_EQ(I->Spec["template_args"].size(), 8u);
  EXPECT_FALSE(I->Spec.contains("allow_lower_precision"));
  // With it (through the catalog, as forge-port new does): tf32.
  R.AllowLowerPrecision = true;
  R.Name = "tgemm";
  I = instantiate(R);
  ASSERT_TRUE(bool(I)) << err(I.takeError());
  EXPECT_EQ(I->Template, "gemm");
  EXPECT_EQ(I->Kernel, "tgemm");
  EXPECT_EQ(I->Wrapper, "forge_tgemm");
  StringRef T = I->Source;
  EXPECT_EQ(occurrences(T, "asm(\"mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 \""), 1u);
  EXPECT_EQ(occurrences(T, "asm(\"cvt.rna.tf32.f32 %0, %1;\""), 1u);
  EXPECT_EQ(T.find("fmaf(fg_a[fg_i]"), StringRef::npos);
  EXPECT_NE(join(I->Notes, "\n").find("tf32 tensor cores (lower precision allowed): block tile "
                                      "128 x 128 x 8, warp tile 64 x 32 (4 x 4 "
                                      "mma.sync.m16n8k8 tiles), 256 threads"),
            std::string::npos);
  // The spec says it computes in lower precision, with tf32's tolerance.
  const Json &S = I->Spec;
  EXPECT_EQ(S["allow_lower_precision"], true);
  EXPECT_EQ(S["buffers"][2]["name"], "C");
  EXPECT_EQ(S["buffers"][2]["role"], "inout");
  EXPECT_DOUBLE_EQ(S["buffers"][2]["tolerance"]["rel_l2"].get<double>(), 2e-3);
  EXPECT_DOUBLE_EQ(S["buffers"][2]["tolerance"]["max_abs"].get<double>(),
                   3.0 / 2048 * std::sqrt(4096.0));
  Expected<measure::LaunchSpec> L = measure::parseLaunchSpec(S, "tgemm.json");
  ASSERT_TRUE(bool(L)) << err(L.takeError());
  EXPECT_TRUE(L->AllowLowerPrecision);
  measure::Tolerance Tol = L->toleranceFor(L->Buffers[2]);
  ASSERT_TRUE(Tol.RelL2.has_value() && Tol.MaxAbs.has_value());
  EXPECT_DOUBLE_EQ(*Tol.RelL2, 2e-3);
  EXPECT_NEAR(*Tol.MaxAbs, 0.09375, 1e-12);

  // instantiateGemmTf32 takes f32 only; the catalog's f64 choice is above.
  R.Type = Scalar::F64;
  EXPECT_EQ(err(instantiateGemmTf32(R, defaultGemmTf32Config()).takeError()),
            "the tf32 gemm takes f32 elements, not f64");
  R.Type = Scalar::F32;
  R.Shape = {64, 64};
  EXPECT_EQ(err(instantiateGemmTf32(R, defaultGemmTf32Config()).takeError()),
            "a gemm takes 3 extents, not 2");
}

TEST(GemmTf32, ConfigurationsItRefuses) {
  GemmTf32Config C;
  EXPECT_TRUE(ok(checkGemmTf32Config(C, false, false)));
  EXPECT_TRUE(ok(checkGemmTf32Config(C, true, true)));
  C.WM = 24;
  EXPECT_EQ(err(checkGemmTf32Config(C, false, false)),
            "the tf32 gemm's warp tile 24 x 32 is made of m16n8k8 tiles: WM and WN must be "
            "multiples of 16");
  C = GemmTf32Config();
  C.WM = 48;
  EXPECT_EQ(err(checkGemmTf32Config(C, false, false)),
            "the tf32 gemm's warp tile 48 x 32 must divide the block tile 128 x 128");
  C = GemmTf32Config();
  C.BK = 12;
  EXPECT_EQ(err(checkGemmTf32Config(C, false, false)),
            "the tf32 gemm's slab BK = 12 must be a multiple of the mma's k (8)");
  C = GemmTf32Config();
  C.WM = C.WN = 16;
  EXPECT_EQ(err(checkGemmTf32Config(C, false, false)),
            "the tf32 gemm's block would have 2048 threads, more than 1024");
  C = GemmTf32Config();
  C.BM = 64, C.BN = 64, C.WM = C.WN = 16; // 512 threads, a 64 x 8 slab: 128 vectors
  EXPECT_EQ(err(checkGemmTf32Config(C, false, false)),
            "the tf32 gemm's 512 threads cannot share the loads of a 64 x 8 and a 8 x 64 slab "
            "evenly (16-byte vectors)");
  C = GemmTf32Config();
  C.WM = 128, C.WN = 64, C.BM = 128, C.BN = 128;
  EXPECT_EQ(err(checkGemmTf32Config(C, false, false)),
            "the tf32 gemm's warp tile 128 x 64 needs 256 accumulators a thread, more than 128");
  C = GemmTf32Config();
  C.MinBlocks = 9;
  EXPECT_EQ(err(checkGemmTf32Config(C, false, false)),
            "the tf32 gemm's 9 blocks of 256 threads cannot be resident on one SM (2048 "
            "threads)");
  C = GemmTf32Config();
  C.MinBlocks = 3;
  EXPECT_EQ(err(checkGemmTf32Config(C, false, false)),
            "the tf32 gemm's 3 blocks of 256 threads need about 108 registers a thread, more "
            "than 65536 an SM");
  // Shared memory: 2 * (64 * (32 + 4) + 32 * (256 + 8)) * 4 bytes.
  C = {64, 256, 32, 32, 64, 1};
  EXPECT_EQ(err(checkGemmTf32Config(C, false, false)),
            "the tf32 gemm's two slabs need 86016 bytes of shared memory, more than 49152");
  C = {64, 64, 32, 32, 32, 2};
  EXPECT_TRUE(ok(checkGemmTf32Config(C, false, false))); // 2 * (64*36 + 32*72) * 4 = 36864
  C = {128, 64, 32, 32, 32, 1};
  // A as it is: 128 x 36; A^T: 32 x 136 (4352 words against 4608).
  EXPECT_EQ(err(checkGemmTf32Config(C, false, false)),
            "the tf32 gemm's two slabs need 55296 bytes of shared memory, more than 49152");
  EXPECT_EQ(err(checkGemmTf32Config(C, true, false)),
            "the tf32 gemm's two slabs need 53248 bytes of shared memory, more than 49152");
  // instantiateGemmTf32 refuses what the check refuses.
  C = GemmTf32Config();
  C.BK = 12;
  Request R = gemm(100, 100, 100);
  EXPECT_EQ(err(instantiateGemmTf32(R, C).takeError()),
            "the tf32 gemm's slab BK = 12 must be a multiple of the mma's k (8)");
}

TEST(GemmTf32, SpecTunablesAndConstraints) {
  Request R = gemm(1000, 700, 300);
  R.AllowLowerPrecision = true;
  R.TransB = true;
  R.Batch = 3;
  Expected<Instance> I = instantiateGemm(R);
  ASSERT_TRUE(bool(I)) << err(I.takeError());
  const Json &S = I->Spec;
  EXPECT_EQ(S["template_args"], Json({"BM", "BN", "BK", "WM", "WN", "MINB"}));
  std::map<std::string, int64_t> Defaults;
  for (const Json &T : S["tunables"])
    Defaults[T["name"]] = T["default"];
  EXPECT_EQ(Defaults, (std::map<std::string, int64_t>{
                          {"BM", 128}, {"BN", 128}, {"BK", 8}, {"WM", 64}, {"WN", 32},
                          {"MINB", 2}}));
  EXPECT_EQ(S["block"], "(BM / WM) * (BN / WN) * 32");
  EXPECT_EQ(S["flops"], "2 * BATCH * M * N * K");
  EXPECT_EQ(S["bytes"], "4 * BATCH * (M * K + K * N + 2 * M * N)");
  Expected<measure::LaunchSpec> L = measure::parseLaunchSpec(S, "t.json");
  ASSERT_TRUE(bool(L)) << err(L.takeError());
  auto G = L->geometry({});
  ASSERT_TRUE(bool(G)) << err(G.takeError());
  EXPECT_EQ(G->Grid[0], 6);
  EXPECT_EQ(G->Grid[1], 8);
  EXPECT_EQ(G->Grid[2], 3);
  EXPECT_EQ(G->Block[0], 256);
  // The constraints agree with checkGemmTf32Config (B^T's layout).
  std::vector<measure::ValueMap> Configs = {
      {},
      {{"BK", 16}},
      {{"BM", 64}, {"BN", 64}, {"WM", 32}, {"WN", 32}, {"BK", 32}},
      {{"WN", 64}, {"WM", 32}},
      {{"WM", 16}},                       // 32 warps of 16 x 32: 1024 threads
      {{"BK", 32}},                       // two 128 x 36 slabs of each: 73728 bytes
      {{"MINB", 3}},                      // registers
      {{"WM", 128}, {"WN", 64}},          // 256 accumulators
      {{"BM", 64}, {"BN", 64}, {"WM", 16}, {"WN", 16}},  // 512 threads, 128 vectors
  };
  for (const measure::ValueMap &V : Configs) {
    auto Get = [&](const char *N, int D) {
      auto It = V.find(N);
      return It == V.end() ? D : int(It->second);
    };
    GemmTf32Config C{Get("BM", 128), Get("BN", 128), Get("BK", 8),
                     Get("WM", 64),  Get("WN", 32),  Get("MINB", 2)};
    auto Sat = L->satisfiesConstraints(V);
    ASSERT_TRUE(bool(Sat)) << err(Sat.takeError());
    EXPECT_EQ(*Sat, ok(checkGemmTf32Config(C, false, true)))
        << C.BM << " " << C.BN << " " << C.BK << " " << C.WM << " " << C.WN << " "
        << C.MinBlocks;
  }
}

TEST(GemmTf32, TheTextHasTheStructureItClaims) {
  // A and B as they are: A's slab m x k (pad 4), B's k x n (pad 8).
  Request R = gemm(67, 45, 130);
  R.AllowLowerPrecision = true;
  R.Name = "t";
  Expected<Instance> I = instantiateGemm(R);
  ASSERT_TRUE(bool(I)) << err(I.takeError());
  StringRef T = I->Source;
  EXPECT_NE(T.find("template <int BM, int BN, int BK, int WM, int WN, int MINB>\n"
                   "__global__ void __launch_bounds__((BM / WM) * (BN / WN) * 32, MINB) t(\n"
                   "    const float *__restrict__ A, const float *__restrict__ B, float "
                   "*__restrict__ C, int M, int N,\n    int K, int batch, float alpha, float "
                   "beta)"),
            StringRef::npos);
  EXPECT_NE(T.find("#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800\n  __trap();"),
            StringRef::npos);
  EXPECT_NE(T.find("constexpr int A_ROWS = BM, A_COLS = BK, A_PAD = 4;"), StringRef::npos);
  EXPECT_NE(T.find("constexpr int B_ROWS = BK, B_COLS = BN, B_PAD = 8;"), StringRef::npos);
  EXPECT_NE(T.find("__shared__ __align__(16) unsigned fg_as[2][A_ROWS][A_COLS + A_PAD];"),
            StringRef::npos);
  EXPECT_NE(T.find("fg_a[0] = fg_as[fg_buf][fg_m][fg_k];"), StringRef::npos);
  EXPECT_NE(T.find("fg_a[3] = fg_as[fg_buf][fg_m + 8][fg_k + 4];"), StringRef::npos);
  EXPECT_NE(T.find("fg_b[fg_j][1] = fg_bs[fg_buf][fg_k + 4][fg_n];"), StringRef::npos);
  // Rounded once on the way into shared memory, as whole 16-byte vectors.
  EXPECT_EQ(occurrences(T, "make_uint4(fg_tf32("), 2u);
  EXPECT_EQ(occurrences(T, "*reinterpret_cast<const float4 *>(fg_p)"), 2u);
  EXPECT_NE(T.find("const bool fg_avec = K % 4 == 0"), StringRef::npos);
  EXPECT_NE(T.find("const bool fg_bvec = N % 4 == 0"), StringRef::npos);
  // Guarded, zero-filled edge loads; one barrier per slab, the next slab
  // in flight; the grid-stride over products and tiles; C in pairs.
  EXPECT_NE(T.find("fg_ra[fg_i][fg_e] = fg_gr < M && fg_gc + fg_e < K ? fg_p[fg_e] : 0.0f;"),
            StringRef::npos);
  EXPECT_NE(T.find("fg_rb[fg_i][fg_e] = fg_gr < K && fg_gc + fg_e < N ? fg_p[fg_e] : 0.0f;"),
            StringRef::npos);
  EXPECT_EQ(occurrences(T, "__syncthreads()"), 1u);
  EXPECT_NE(T.find("fg_load(); // in flight during the multiplication below"), StringRef::npos);
  EXPECT_NE(T.find("for (int fg_b = blockIdx.z; fg_b < batch; fg_b += gridDim.z)"),
            StringRef::npos);
  EXPECT_NE(T.find("for (int fg_nt = blockIdx.x; fg_nt < fg_ntiles; fg_nt += gridDim.x)"),
            StringRef::npos);
  EXPECT_NE(T.find("*reinterpret_cast<float2 *>(fg_p) = make_float2(fg_v0, fg_v1);"),
            StringRef::npos);
  // The wrapper: the same signature as the FMA kernel's, its constants.
  EXPECT_NE(T.find("inline cudaError_t forge_t(const float *A, const float *B, float *C, int M, "
                   "int N, int K,\n                           float alpha, float beta, "
                   "cudaStream_t stream = 0)"),
            StringRef::npos);
  EXPECT_NE(T.find("constexpr int BM = 128, BN = 128, BK = 8, WM = 64, WN = 32, MINB = 2;"),
            StringRef::npos);
  EXPECT_NE(T.find("t<BM, BN, BK, WM, WN, MINB><<<\n"
                   "      dim3((N + BN - 1) / BN, (M + BM - 1) / BM < 65535 ? (M + BM - 1) / BM "
                   ": 65535,\n"
                   "           batch < 65535 ? batch : 65535),\n"
                   "      (BM / WM) * (BN / WN) * 32, 0, stream>>>(A, B, C, M, N, K, batch, "
                   "alpha, beta);"),
            StringRef::npos);

  // Both transposed and batched: A's slab k x m (pad 8), B's n x k (pad 4),
  // the fragments read across; the batched wrapper.
  R.TransA = R.TransB = true;
  R.Batch = 5;
  I = instantiateGemm(R);
  ASSERT_TRUE(bool(I)) << err(I.takeError());
  T = I->Source;
  EXPECT_NE(T.find("constexpr int A_ROWS = BK, A_COLS = BM, A_PAD = 8;"), StringRef::npos);
  EXPECT_NE(T.find("constexpr int B_ROWS = BN, B_COLS = BK, B_PAD = 4;"), StringRef::npos);
  EXPECT_NE(T.find("fg_a[1] = fg_as[fg_buf][fg_k][fg_m + 8];"), StringRef::npos);
  EXPECT_NE(T.find("fg_a[2] = fg_as[fg_buf][fg_k + 4][fg_m];"), StringRef::npos);
  EXPECT_NE(T.find("fg_b[fg_j][0] = fg_bs[fg_buf][fg_n][fg_k];"), StringRef::npos);
  EXPECT_NE(T.find("const bool fg_avec = M % 4 == 0"), StringRef::npos);
  EXPECT_NE(T.find("const bool fg_bvec = K % 4 == 0"), StringRef::npos);
  EXPECT_NE(T.find("forge_t(const float *A, const float *B, float *C, int M, int N, int K,\n"
                   "                           int batch, float alpha, float beta,"),
            StringRef::npos);
  EXPECT_EQ(T.find("const int batch = 1;"), StringRef::npos);
}

/// One nvcc run for sm_80 and sm_90 (-Werror all-warnings, -Xptxas -v,
/// the PTX kept): every tf32 kernel compiles for both without spills, and
/// the PTX of both holds the mma.sync and cvt.rna instructions.
TEST(GemmTf32, CompilesForSm80AndSm90WithoutSpills) {
  Expected<build::CudaToolkit> TK = build::CudaToolkit::find();
  if (!TK)
    GTEST_SKIP() << "no CUDA toolkit: " << err(TK.takeError());
  std::string All;
  unsigned Kernels = 0;
  auto Add = [&](Request R, std::vector<GemmTf32Config> More) {
    R.AllowLowerPrecision = true;
    Expected<Instance> I = instantiateGemm(R);
    ASSERT_TRUE(bool(I)) << err(I.takeError());
    ASSERT_NE(I->Source.find("mma.sync"), std::string::npos);
    All += I->Source;
    ++Kernels;
    for (const GemmTf32Config &C : More) {
      ASSERT_TRUE(ok(checkGemmTf32Config(C, R.TransA, R.TransB)));
      All += formatv("template __global__ void {0}<{1}, {2}, {3}, {4}, {5}, {6}>(const float *, "
                     "const float *, float *, int, int, int, int, float, float);\n",
                     R.Name, C.BM, C.BN, C.BK, C.WM, C.WN, C.MinBlocks)
                 .str();
      ++Kernels;
    }
  };
  Request R = gemm(67, 45, 130);
  R.Name = "tf_plain";
  Add(R, {{64, 64, 32, 32, 32, 2}, {128, 64, 16, 32, 32, 2}});
  R.Name = "tf_ta";
  R.TransA = true;
  Add(R, {});
  R.Name = "tf_tb";
  R.TransA = false, R.TransB = true;
  Add(R, {{128, 128, 16, 64, 32, 1}});
  R.Name = "tf_tatb_batched";
  R.TransA = true;
  R.Batch = 17;
  Add(R, {});

  SmallString<128> Dir;
  ASSERT_FALSE(sys::fs::createUniqueDirectory("forge-gemm-tf32", Dir));
  SmallString<128> Unit(Dir), Object(Dir);
  sys::path::append(Unit, "tf32.cu");
  sys::path::append(Object, "tf32.o");
  {
    std::error_code EC;
    raw_fd_ostream OS(Unit, EC);
    ASSERT_FALSE(EC) << EC.message();
    OS << All;
  }
  Expected<SubprocessResult> P = runProgram(
      TK->NvccPath,
      {TK->NvccPath, "-gencode", "arch=compute_80,code=sm_80", "-gencode",
       "arch=compute_90,code=sm_90", "-std=c++17", "-Werror", "all-warnings", "-Xptxas", "-v",
       "-keep", "-keep-dir", Dir.str().str(), "-c", Unit.str().str(), "-o", Object.str().str()},
      {600});
  ASSERT_TRUE(bool(P)) << err(P.takeError());
  ASSERT_TRUE(P->ok()) << Unit.str().str() << ":\n" << P->Stderr;
  // ptxas: every kernel once per target, no spills.
  Regex Entry("Compiling entry function '[^']*' for '(sm_[0-9]+)'");
  Regex Spill("([0-9]+) bytes spill stores, ([0-9]+) bytes spill loads");
  std::map<std::string, unsigned> PerTarget;
  SmallVector<StringRef, 128> Lines;
  StringRef(P->Stderr).split(Lines, '\n');
  std::string Current;
  for (StringRef Line : Lines) {
    SmallVector<StringRef, 3> M;
    if (Entry.match(Line, &M)) {
      Current = Line.trim().str();
      ++PerTarget[M[1].str()];
    } else if (Spill.match(Line, &M)) {
      EXPECT_EQ(M[1].str(), "0") << Current;
      EXPECT_EQ(M[2].str(), "0") << Current;
    }
  }
  EXPECT_EQ(PerTarget["sm_80"], Kernels) << P->Stderr;
  EXPECT_EQ(PerTarget["sm_90"], Kernels) << P->Stderr;
  // The PTX of each target: one mma.sync per (m tile, n tile, k step) of
  // every kernel, and the tf32 rounding.
  for (std::string Arch : {"compute_80", "compute_90"}) {
    SmallString<128> Ptx(Dir);
    sys::path::append(Ptx, "tf32." + Arch + ".ptx");
    ErrorOr<std::unique_ptr<MemoryBuffer>> B = MemoryBuffer::getFile(Ptx);
    ASSERT_TRUE(bool(B)) << Ptx.str().str() << ": " << B.getError().message();
    StringRef Text = (*B)->getBuffer();
    EXPECT_GE(occurrences(Text, "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32"),
              16u * Kernels)
        << Arch;
    EXPECT_GE(occurrences(Text, "cvt.rna.tf32.f32"), 8u * Kernels) << Arch;
  }
  sys::fs::remove_directories(Dir);
}

// ---- The f16 / bf16 tensor-core kernel ------------------------------------

TEST(GemmHalf, DescriptionsPickIt) {
  struct Case {
    const char *Text;
    Scalar Type;
    std::vector<int64_t> Shape;
    int64_t Batch;
    bool TransA, TransB;
    const char *Mma;
  } Cases[] = {
      {"half precision GEMM 4096x4096x4096", Scalar::F16, {4096, 4096, 4096}, 1, false, false,
       "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"},
      {"bf16 gemm 1000x700x300 with A transposed", Scalar::BF16, {1000, 700, 300}, 1, true, false,
       "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"},
      {"batched fp16 gemm: 64 products of 256x256x256", Scalar::F16, {256, 256, 256}, 64, false,
       false, "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"},
      {"bfloat16 matrix multiply 512x512x512, B transposed", Scalar::BF16, {512, 512, 512}, 1,
       false, true, "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"},
  };
  for (const Case &C : Cases) {
    SCOPED_TRACE(C.Text);
    Expected<Request> R = parseDescription(C.Text);
    ASSERT_TRUE(bool(R)) << err(R.takeError());
    EXPECT_EQ(R->Kind, OpKind::Gemm);
    EXPECT_EQ(R->Type, C.Type);
    EXPECT_EQ(R->Shape, C.Shape);
    EXPECT_EQ(R->Batch, C.Batch);
    EXPECT_EQ(R->TransA, C.TransA);
    EXPECT_EQ(R->TransB, C.TransB);
    // Through the catalog, as forge-port new does.
    Expected<Instance> I = instantiate(*R);
    ASSERT_TRUE(bool(I)) << err(I.takeError());
    EXPECT_EQ(I->Template, "gemm");
    EXPECT_EQ(occurrences(I->Source, std::string("asm(\"") + C.Mma + " \""), 1u);
    EXPECT_EQ(I->Spec["template_args"], Json({"BM", "BN", "BK", "WM", "WN", "MINB"}));
    const std::string Dtype = C.Type == Scalar::F16 ? "f16" : "bf16";
    EXPECT_EQ(I->Spec["buffers"][0]["dtype"], Dtype);
    EXPECT_EQ(I->Spec["buffers"][1]["dtype"], Dtype);
    EXPECT_EQ(I->Spec["buffers"][2]["dtype"], Dtype);
    EXPECT_EQ(I->Spec["scalars"][4]["dtype"], "f32"); // alpha
    EXPECT_EQ(I->Spec["scalars"][5]["dtype"], "f32"); // beta
    EXPECT_FALSE(I->Spec.contains("allow_lower_precision"));
  }
}

TEST(GemmHalf, ConfigurationsItRefuses) {
  GemmHalfConfig C;
  EXPECT_TRUE(ok(checkGemmHalfConfig(C, false, false)));
  EXPECT_TRUE(ok(checkGemmHalfConfig(C, true, true)));
  C.WN = 24;
  EXPECT_EQ(err(checkGemmHalfConfig(C, false, false)),
            "the f16/bf16 gemm's warp tile 64 x 24 is read in 16 x 16 fragments: WM and WN must "
            "be multiples of 16");
  C = GemmHalfConfig();
  C.WM = 48;
  EXPECT_EQ(err(checkGemmHalfConfig(C, false, false)),
            "the f16/bf16 gemm's warp tile 48 x 32 must divide the block tile 128 x 128");
  C = GemmHalfConfig();
  C.BK = 8; // the tf32 kernel's slab: too thin for k16
  EXPECT_EQ(err(checkGemmHalfConfig(C, false, false)),
            "the f16/bf16 gemm's slab BK = 8 must be a multiple of the mma's k (16)");
  C = GemmHalfConfig();
  C.WM = C.WN = 16;
  EXPECT_EQ(err(checkGemmHalfConfig(C, false, false)),
            "the f16/bf16 gemm's block would have 2048 threads, more than 1024");
  C = {64, 64, 16, 16, 32, 2}; // 256 threads, a 64 x 16 slab: 128 vectors
  EXPECT_EQ(err(checkGemmHalfConfig(C, false, false)),
            "the f16/bf16 gemm's 256 threads cannot share the loads of a 64 x 16 and a 16 x 64 "
            "slab evenly (16-byte vectors)");
  C = {128, 128, 32, 128, 64, 1};
  EXPECT_EQ(err(checkGemmHalfConfig(C, false, false)),
            "the f16/bf16 gemm's warp tile 128 x 64 needs 256 accumulators a thread, more than "
            "128");
  C = GemmHalfConfig();
  C.MinBlocks = 9;
  EXPECT_EQ(err(checkGemmHalfConfig(C, false, false)),
            "the f16/bf16 gemm's 9 blocks of 256 threads cannot be resident on one SM (2048 "
            "threads)");
  C = GemmHalfConfig();
  C.MinBlocks = 3; // 64 + 8 + 4 + 8 + 24 = 108 registers a thread
  EXPECT_EQ(err(checkGemmHalfConfig(C, false, false)),
            "the f16/bf16 gemm's 3 blocks of 256 threads need about 108 registers a thread, more "
            "than 65536 an SM");
  // Shared memory: 2 * (128 * (32 + 8) + 32 * (256 + 8)) * 2 bytes.
  C = {128, 256, 32, 64, 64, 1};
  EXPECT_EQ(err(checkGemmHalfConfig(C, false, false)),
            "the f16/bf16 gemm's two slabs need 54272 bytes of shared memory, more than 49152");
  // The layout counts: A^T 32 x (256 + 8)... and B^T 256 x (32 + 8).
  C = {256, 128, 32, 64, 64, 1};
  EXPECT_EQ(err(checkGemmHalfConfig(C, false, false)),
            "the f16/bf16 gemm's two slabs need 58368 bytes of shared memory, more than 49152");
  EXPECT_EQ(err(checkGemmHalfConfig(C, true, false)),
            "the f16/bf16 gemm's two slabs need 51200 bytes of shared memory, more than 49152");
  C = {128, 128, 32, 64, 32, 2};
  EXPECT_TRUE(ok(checkGemmHalfConfig(C, false, false))); // 2 * (128*40 + 32*136) * 2 = 37888

  // instantiateGemmHalf refuses what the check refuses, and other types.
  C = GemmHalfConfig();
  C.BK = 24;
  Request R = gemm(100, 100, 100, Scalar::F16);
  EXPECT_EQ(err(instantiateGemmHalf(R, C).takeError()),
            "the f16/bf16 gemm's slab BK = 24 must be a multiple of the mma's k (16)");
  R.Type = Scalar::BF16;
  C = {64, 64, 16, 16, 32, 2};
  EXPECT_EQ(err(instantiateGemmHalf(R, C).takeError()),
            "the f16/bf16 gemm's 256 threads cannot share the loads of a 64 x 16 and a 16 x 64 "
            "slab evenly (16-byte vectors)");
  R.Type = Scalar::F32;
  EXPECT_EQ(err(instantiateGemmHalf(R, defaultGemmHalfConfig()).takeError()),
            "the f16/bf16 gemm takes f16 or bf16 elements, not f32");
  R.Type = Scalar::F16;
  R.Shape = {64, 64};
  EXPECT_EQ(err(instantiateGemmHalf(R, defaultGemmHalfConfig()).takeError()),
            "a gemm takes 3 extents, not 2");
}

TEST(GemmHalf, SpecTunablesConstraintsAndTolerance) {
  Request R = gemm(1000, 700, 300, Scalar::F16);
  R.TransA = true;
  R.Batch = 3;
  Expected<Instance> I = instantiateGemm(R);
  ASSERT_TRUE(bool(I)) << err(I.takeError());
  const Json &S = I->Spec;
  std::map<std::string, int64_t> Defaults;
  for (const Json &T : S["tunables"])
    Defaults[T["name"]] = T["default"];
  EXPECT_EQ(Defaults, (std::map<std::string, int64_t>{
                          {"BM", 128}, {"BN", 128}, {"BK", 16}, {"WM", 64}, {"WN", 32},
                          {"MINB", 2}}));
  EXPECT_EQ(S["block"], "(BM / WM) * (BN / WN) * 32");
  EXPECT_EQ(S["flops"], "2 * BATCH * M * N * K");
  EXPECT_EQ(S["bytes"], "2 * BATCH * (M * K + K * N + 2 * M * N)");
  std::vector<std::string> Args = S["args"];
  EXPECT_EQ(join(Args, ","), "A,B,C,M,N,K,batch,alpha,beta");
  // The tolerance: 4 u relative, 2 u (2 sqrt(K) + 1) per element.
  EXPECT_EQ(S["buffers"][2]["role"], "inout");
  EXPECT_DOUBLE_EQ(S["buffers"][2]["tolerance"]["rel_l2"].get<double>(), 4.0 / 2048);
  EXPECT_DOUBLE_EQ(S["buffers"][2]["tolerance"]["max_abs"].get<double>(),
                   2.0 / 2048 * (2 * std::sqrt(300.0) + 1));
  Expected<measure::LaunchSpec> L = measure::parseLaunchSpec(S, "h.json");
  ASSERT_TRUE(bool(L)) << err(L.takeError());
  EXPECT_FALSE(L->AllowLowerPrecision);
  measure::Tolerance Tol = L->toleranceFor(L->Buffers[2]);
  ASSERT_TRUE(Tol.RelL2.has_value() && Tol.MaxAbs.has_value());
  EXPECT_DOUBLE_EQ(*Tol.RelL2, 4.0 / 2048);
  auto G = L->geometry({});
  ASSERT_TRUE(bool(G)) << err(G.takeError());
  EXPECT_EQ(G->Grid[0], 6);
  EXPECT_EQ(G->Grid[1], 8);
  EXPECT_EQ(G->Grid[2], 3);
  EXPECT_EQ(G->Block[0], 256);
  // The constraints agree with checkGemmHalfConfig (A^T's layout).
  std::vector<measure::ValueMap> Configs = {
      {},
      {{"BK", 32}},
      {{"BK", 64}},                                            // 2 * (64*136 + 128*72) * 2
      {{"BM", 64}, {"BN", 64}, {"WM", 32}, {"WN", 32}, {"BK", 32}},
      {{"WN", 64}, {"WM", 32}},
      {{"WM", 16}},                                            // 1024 threads
      {{"WM", 16}, {"WN", 16}},                                // 2048 threads
      {{"MINB", 3}},                                           // registers
      {{"WM", 128}, {"WN", 64}},                               // 256 accumulators
      {{"BM", 64}, {"BN", 64}, {"WM", 16}, {"WN", 32}},        // 256 threads, 128 vectors
      {{"BM", 256}, {"BN", 128}, {"BK", 32}, {"WM", 64}, {"WN", 64}, {"MINB", 1}},
      {{"BM", 128}, {"BN", 256}, {"BK", 32}, {"WM", 64}, {"WN", 64}, {"MINB", 1}},
  };
  for (bool TransB : {false, true}) {
    R.TransB = TransB;
    I = instantiateGemm(R);
    ASSERT_TRUE(bool(I)) << err(I.takeError());
    L = measure::parseLaunchSpec(I->Spec, "h.json");
    ASSERT_TRUE(bool(L)) << err(L.takeError());
    unsigned Accepted = 0;
    for (const measure::ValueMap &V : Configs) {
      auto Get = [&](const char *N, int D) {
        auto It = V.find(N);
        return It == V.end() ? D : int(It->second);
      };
      GemmHalfConfig C{Get("BM", 128), Get("BN", 128), Get("BK", 16),
                       Get("WM", 64),  Get("WN", 32),  Get("MINB", 2)};
      auto Sat = L->satisfiesConstraints(V);
      ASSERT_TRUE(bool(Sat)) << err(Sat.takeError());
      const bool Checked = ok(checkGemmHalfConfig(C, true, TransB));
      EXPECT_EQ(*Sat, Checked) << C.BM << " " << C.BN << " " << C.BK << " " << C.WM << " "
                               << C.WN << " " << C.MinBlocks << " B^T " << TransB;
      Accepted += Checked;
    }
    EXPECT_GE(Accepted, 4u);
  }

  // bf16: the same spec with bf16's u = 2^-8; K = 4096 gives max_abs 1.01.
  R = gemm(4096, 4096, 4096, Scalar::BF16);
  I = instantiateGemm(R);
  ASSERT_TRUE(bool(I)) << err(I.takeError());
  EXPECT_DOUBLE_EQ(I->Spec["buffers"][2]["tolerance"]["rel_l2"].get<double>(), 4.0 / 256);
  EXPECT_NEAR(I->Spec["buffers"][2]["tolerance"]["max_abs"].get<double>(), 1.0078125, 1e-12);
  L = measure::parseLaunchSpec(I->Spec, "b.json");
  ASSERT_TRUE(bool(L)) << err(L.takeError());
  G = L->geometry({});
  ASSERT_TRUE(bool(G)) << err(G.takeError());
  EXPECT_EQ(G->Grid[0], 32);
  EXPECT_EQ(G->Grid[1], 32);
  EXPECT_EQ(G->Grid[2], 1);
  EXPECT_NE(join(I->Notes, "\n").find("bf16 tensor cores: block tile 128 x 128 x 16, warp tile "
                                      "64 x 32 (4 x 4 mma.sync.m16n8k16 tiles), 256 threads"),
            std::string::npos);
}

TEST(GemmHalf, TheTextHasTheStructureItClaims) {
  // A and B as they are: A's slab m x k read as it lies, B's k x n read
  // transposed.
  Request R = gemm(67, 45, 130, Scalar::F16);
  R.Name = "h";
  Expected<Instance> I = instantiateGemm(R);
  ASSERT_TRUE(bool(I)) << err(I.takeError());
  StringRef T = I->Source;
  EXPECT_NE(T.find("#include <cuda_fp16.h>"), StringRef::npos);
  EXPECT_NE(T.find("template <int BM, int BN, int BK, int WM, int WN, int MINB>\n"
                   "__global__ void __launch_bounds__((BM / WM) * (BN / WN) * 32, MINB) h(\n"
                   "    const __half *__restrict__ A, const __half *__restrict__ B, __half "
                   "*__restrict__ C, int M, int N,\n    int K, int batch, float alpha, float "
                   "beta)"),
            StringRef::npos);
  EXPECT_NE(T.find("#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800\n  __trap();"),
            StringRef::npos);
  EXPECT_NE(T.find("constexpr int A_ROWS = BM, A_COLS = BK;"), StringRef::npos);
  EXPECT_NE(T.find("constexpr int B_ROWS = BK, B_COLS = BN;"), StringRef::npos);
  EXPECT_NE(T.find("__shared__ __align__(16) unsigned short fg_as[2][A_ROWS][A_COLS + PAD];"),
            StringRef::npos);
  EXPECT_NE(T.find("const int fg_am = (fg_lq & 1) * 8 + fg_lr, fg_ak = (fg_lq >> 1) * 8;"),
            StringRef::npos);
  EXPECT_NE(T.find("const int fg_bn = (fg_lq >> 1) * 8, fg_bk = (fg_lq & 1) * 8 + fg_lr;"),
            StringRef::npos);
  EXPECT_NE(T.find("fg_ldsm(&fg_as[fg_buf][fg_wm + fg_i * 16 + fg_am][fg_kk + fg_ak], fg_a);"),
            StringRef::npos);
  EXPECT_NE(T.find("fg_ldsm_t(&fg_bs[fg_buf][fg_kk + fg_bk][fg_wn + fg_j * 8 + fg_bn], fg_q);"),
            StringRef::npos);
  EXPECT_EQ(occurrences(T, "\"ldmatrix.sync.aligned.m8n8.x4.shared.b16 "), 1u);
  EXPECT_EQ(occurrences(T, "\"ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 "), 1u);
  EXPECT_EQ(occurrences(T, "asm(\"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 \""), 1u);
  EXPECT_EQ(T.find("cvt.rna"), StringRef::npos);
  // Whole 16-byte vectors in and out of shared memory; guarded element
  // loads with zeros at the edges; one barrier per slab.
  EXPECT_EQ(occurrences(T, "*reinterpret_cast<const uint4 *>(fg_p)"), 2u);
  EXPECT_EQ(occurrences(T, "= fg_ra[fg_i];"), 1u);
  EXPECT_NE(T.find("const bool fg_avec = K % 8 == 0"), StringRef::npos);
  EXPECT_NE(T.find("const bool fg_bvec = N % 8 == 0"), StringRef::npos);
  EXPECT_NE(T.find("const bool fg_cvec = N % 2 == 0 && (((unsigned long long)C) & 3ull) == 0;"),
            StringRef::npos);
  EXPECT_NE(T.find("fg_h[fg_e] = fg_gr < M && fg_gc + fg_e < K ? fg_p[fg_e] : 0u;"),
            StringRef::npos);
  EXPECT_EQ(occurrences(T, "__syncthreads()"), 1u);
  EXPECT_NE(T.find("fg_load(); // in flight during the multiplication below"), StringRef::npos);
  // The epilogue in f32, rounded once; pairs where aligned.
  EXPECT_NE(T.find("const float2 fg_o = __half22float2(*reinterpret_cast<const fg_T2 *>(fg_p));"),
            StringRef::npos);
  EXPECT_NE(T.find("*reinterpret_cast<fg_T2 *>(fg_p) = __floats2half2_rn(fg_v0, fg_v1);"),
            StringRef::npos);
  EXPECT_NE(T.find("fg_p[0] = __float2half_rn(fg_beta0 ? fg_v0 : fmaf(beta, __half2float(fg_p[0]), "
                   "fg_v0));"),
            StringRef::npos);
  // The wrapper: half matrices, float alpha and beta, its constants.
  EXPECT_NE(T.find("inline cudaError_t forge_h(const __half *A, const __half *B, __half *C, int M, "
                   "int N, int K,\n                           float alpha, float beta, "
                   "cudaStream_t stream = 0)"),
            StringRef::npos);
  EXPECT_NE(T.find("constexpr int BM = 128, BN = 128, BK = 16, WM = 64, WN = 32, MINB = 2;"),
            StringRef::npos);
  EXPECT_NE(T.find("h<BM, BN, BK, WM, WN, MINB><<<"), StringRef::npos);

  // bf16, both transposed and batched: A^T read transposed, B^T as it lies.
  R.Type = Scalar::BF16;
  R.TransA = R.TransB = true;
  R.Batch = 5;
  I = instantiateGemm(R);
  ASSERT_TRUE(bool(I)) << err(I.takeError());
  T = I->Source;
  EXPECT_NE(T.find("#include <cuda_bf16.h>"), StringRef::npos);
  EXPECT_NE(T.find("constexpr int A_ROWS = BK, A_COLS = BM;"), StringRef::npos);
  EXPECT_NE(T.find("constexpr int B_ROWS = BN, B_COLS = BK;"), StringRef::npos);
  EXPECT_NE(T.find("const int fg_am = (fg_lq & 1) * 8, fg_ak = (fg_lq >> 1) * 8 + fg_lr;"),
            StringRef::npos);
  EXPECT_NE(T.find("const int fg_bn = (fg_lq >> 1) * 8 + fg_lr, fg_bk = (fg_lq & 1) * 8;"),
            StringRef::npos);
  EXPECT_NE(T.find("fg_ldsm_t(&fg_as[fg_buf][fg_kk + fg_ak][fg_wm + fg_i * 16 + fg_am], fg_a);"),
            StringRef::npos);
  EXPECT_NE(T.find("fg_ldsm(&fg_bs[fg_buf][fg_wn + fg_j * 8 + fg_bn][fg_kk + fg_bk], fg_q);"),
            StringRef::npos);
  EXPECT_EQ(occurrences(T, "asm(\"mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 \""), 1u);
  EXPECT_NE(T.find("__floats2bfloat162_rn(fg_v0, fg_v1)"), StringRef::npos);
  EXPECT_NE(T.find("const bool fg_avec = M % 8 == 0"), StringRef::npos);
  EXPECT_NE(T.find("const bool fg_bvec = K % 8 == 0"), StringRef::npos);
  EXPECT_NE(T.find("forge_h(const __nv_bfloat16 *A, const __nv_bfloat16 *B, __nv_bfloat16 *C, "
                   "int M, int N, int K,\n                           int batch, float alpha, "
                   "float beta,"),
            StringRef::npos);
  EXPECT_EQ(T.find("const int batch = 1;"), StringRef::npos);
}

/// One nvcc run for sm_80 and sm_90 (-Werror all-warnings, -Xptxas -v, the
/// PTX kept): f16 and bf16 kernels of every transpose, at the default and
/// five other configurations, compile for both without spills, and the PTX
/// of both holds the mma.sync.m16n8k16 and ldmatrix instructions.
TEST(GemmHalf, CompilesForSm80AndSm90WithoutSpills) {
  Expected<build::CudaToolkit> TK = build::CudaToolkit::find();
  if (!TK)
    GTEST_SKIP() << "no CUDA toolkit: " << err(TK.takeError());
  std::string All;
  unsigned Kernels = 0, F16 = 0, BF16 = 0;
  auto Add = [&](Request R, std::vector<GemmHalfConfig> More) {
    Expected<Instance> I = instantiateGemm(R);
    ASSERT_TRUE(bool(I)) << err(I.takeError());
    All += I->Source;
    const unsigned N = 1 + More.size();
    Kernels += N;
    (R.Type == Scalar::F16 ? F16 : BF16) += N;
    const char *T = R.Type == Scalar::F16 ? "__half" : "__nv_bfloat16";
    for (const GemmHalfConfig &C : More) {
      ASSERT_TRUE(ok(checkGemmHalfConfig(C, R.TransA, R.TransB)));
      All += formatv("template __global__ void {0}<{1}, {2}, {3}, {4}, {5}, {6}>(const {7} *, "
                     "const {7} *, {7} *, int, int, int, int, float, float);\n",
                     R.Name, C.BM, C.BN, C.BK, C.WM, C.WN, C.MinBlocks, T)
                 .str();
    }
  };
  Request R = gemm(67, 45, 130, Scalar::F16);
  R.Name = "h_plain";
  Add(R, {{64, 64, 32, 32, 32, 2}, {128, 128, 32, 64, 32, 1}});
  R.Name = "h_tb";
  R.TransB = true;
  Add(R, {{128, 128, 32, 64, 64, 1}});
  R.Name = "h_tatb_batched";
  R.TransA = true;
  R.Batch = 17;
  Add(R, {{128, 64, 32, 32, 32, 2}});
  R = gemm(264, 333, 200, Scalar::BF16);
  R.Name = "b_ta";
  R.TransA = true;
  Add(R, {{64, 128, 32, 32, 64, 2}});
  R.Name = "b_plain";
  R.TransA = false;
  Add(R, {});

  SmallString<128> Dir;
  ASSERT_FALSE(sys::fs::createUniqueDirectory("forge-gemm-half", Dir));
  SmallString<128> Unit(Dir), Object(Dir);
  sys::path::append(Unit, "half.cu");
  sys::path::append(Object, "half.o");
  {
    std::error_code EC;
    raw_fd_ostream OS(Unit, EC);
    ASSERT_FALSE(EC) << EC.message();
    OS << All;
  }
  Expected<SubprocessResult> P = runProgram(
      TK->NvccPath,
      {TK->NvccPath, "-gencode", "arch=compute_80,code=sm_80", "-gencode",
       "arch=compute_90,code=sm_90", "-std=c++17", "-Werror", "all-warnings", "-Xptxas", "-v",
       "-keep", "-keep-dir", Dir.str().str(), "-c", Unit.str().str(), "-o", Object.str().str()},
      {600});
  ASSERT_TRUE(bool(P)) << err(P.takeError());
  ASSERT_TRUE(P->ok()) << Unit.str().str() << ":\n" << P->Stderr;
  // ptxas: every kernel once per target, no spills.
  Regex Entry("Compiling entry function '[^']*' for '(sm_[0-9]+)'");
  Regex Spill("([0-9]+) bytes spill stores, ([0-9]+) bytes spill loads");
  std::map<std::string, unsigned> PerTarget;
  SmallVector<StringRef, 128> Lines;
  StringRef(P->Stderr).split(Lines, '\n');
  std::string Current;
  for (StringRef Line : Lines) {
    SmallVector<StringRef, 3> M;
    if (Entry.match(Line, &M)) {
      Current = Line.trim().str();
      ++PerTarget[M[1].str()];
    } else if (Spill.match(Line, &M)) {
      EXPECT_EQ(M[1].str(), "0") << Current;
      EXPECT_EQ(M[2].str(), "0") << Current;
    }
  }
  EXPECT_EQ(Kernels, 10u);
  EXPECT_EQ(PerTarget["sm_80"], Kernels) << P->Stderr;
  EXPECT_EQ(PerTarget["sm_90"], Kernels) << P->Stderr;
  // The PTX of each target: at least one mma per (m tile, n tile) of a
  // 64 x 32 warp tile (4 x 4) for every kernel of its type, and ldmatrix
  // with and without .trans.
  for (std::string Arch : {"compute_80", "compute_90"}) {
    SmallString<128> Ptx(Dir);
    sys::path::append(Ptx, "half." + Arch + ".ptx");
    ErrorOr<std::unique_ptr<MemoryBuffer>> B = MemoryBuffer::getFile(Ptx);
    ASSERT_TRUE(bool(B)) << Ptx.str().str() << ": " << B.getError().message();
    StringRef Text = (*B)->getBuffer();
    EXPECT_GE(occurrences(Text, "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"), 8u * F16)
        << Arch;
    EXPECT_GE(occurrences(Text, "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"),
              8u * BF16)
        << Arch;
    EXPECT_GE(occurrences(Text, "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16"), Kernels) << Arch;
    EXPECT_GE(occurrences(Text, "ldmatrix.sync.aligned.m8n8.x4.shared.b16"), Kernels) << Arch;
  }
  sys::fs::remove_directories(Dir);
}

} // namespace
