//===- GatherScatterTest.cpp - The gather and scatter templates -----------===//
//
// What they refuse and why, the structure of their text (coalesced index
// reads through the read-only cache, the indexed side, ITEMS accesses in
// flight), their specs (the gather's indices over the whole table, the
// scatter's identity permutation), and, with a CUDA toolkit, that other
// configurations compile for sm_90 without spilling.
//
//===----------------------------------------------------------------------===//
#include "CompileCheck.h"
#include "forge/Build/CudaToolkit.h"
#include "forge/Measure/LaunchSpec.h"
#include "forge/Templates/GatherScatter.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include <gtest/gtest.h>
#include <set>

using namespace forge;
using namespace forge::templates;
using namespace llvm;

namespace {

std::string err(Error E) { return toString(std::move(E)); }

Request indexed(OpKind K, int64_t N, Scalar T = Scalar::F32) {
  Request R;
  R.Kind = K;
  R.Type = T;
  R.Shape = {N};
  return R;
}

TEST(GatherScatterTemplate, RefusalsSayWhy) {
  Request R = indexed(OpKind::Gather, 3000000000LL);
  EXPECT_EQ(err(instantiateGather(R).takeError()),
            "the gather template's indices are 32-bit (int): n must be at most 2147483647, not "
            "3000000000");
  R.Kind = OpKind::Scatter;
  EXPECT_EQ(err(instantiate(R).takeError()),
            "the scatter template's indices are 32-bit (int): n must be at most 2147483647, not "
            "3000000000");
  R = indexed(OpKind::Gather, 100);
  R.Shape = {10, 10};
  EXPECT_EQ(err(instantiate(R).takeError()), "a gather takes 1 extent, not 2");
  R = indexed(OpKind::Scatter, -1);
  EXPECT_EQ(err(instantiate(R).takeError()), "a scatter: every extent must be positive, not -1");
  R = indexed(OpKind::Gather, 100);
  R.Name = "9lives";
  EXPECT_EQ(err(instantiate(R).takeError()), "the kernel's name '9lives' is not a C identifier");
}

TEST(GatherScatterTemplate, TheGather) {
  Request R = indexed(OpKind::Gather, 1 << 20, Scalar::F64);
  Expected<Instance> I = instantiate(R);
  ASSERT_TRUE(bool(I)) << err(I.takeError());
  EXPECT_EQ(I->Template, "gather");
  EXPECT_EQ(I->Kernel, "gather");
  const std::string &S = I->Source;
  EXPECT_NE(S.find("template <int BLOCK, int ITEMS>\n__global__ void __launch_bounds__(BLOCK) "
                   "gather(\n    const double *__restrict__ in, const int *__restrict__ idx, "
                   "double *__restrict__ out,\n    long long n) {"),
            std::string::npos)
      << S;
  // Coalesced positions, indices first, then the indexed reads, then the stores.
  size_t Idx = S.find("fg_j[fg_k] = __ldg(idx + fg_i);");
  size_t Read = S.find("fg_v[fg_k] = __ldg(in + fg_j[fg_k]);");
  size_t Store = S.find("out[fg_i] = fg_v[fg_k];");
  ASSERT_NE(Idx, std::string::npos);
  ASSERT_NE(Read, std::string::npos);
  ASSERT_NE(Store, std::string::npos);
  EXPECT_LT(Idx, Read);
  EXPECT_LT(Read, Store);
  EXPECT_NE(S.find("const long long fg_i = fg_base + fg_k * BLOCK + threadIdx.x;"),
            std::string::npos);
  EXPECT_NE(S.find("inline cudaError_t forge_gather(const double *in, const int *idx, double "
                   "*out, long long n,\n                                cudaStream_t stream = 0)"),
            std::string::npos);
  EXPECT_NE(S.find("  constexpr int BLOCK = 256, ITEMS = 4, WAVES = 8;\n  gather<BLOCK, ITEMS><<<\n"
                   "      (unsigned)((n + BLOCK * ITEMS - 1) / (BLOCK * ITEMS) < (long long)sms * "
                   "WAVES\n"),
            std::string::npos)
      << S;
  EXPECT_NE(S.find("      BLOCK, 0, stream>>>(in, idx, out, n);"), std::string::npos);
  const Json &J = I->Spec;
  EXPECT_EQ(J["args"], Json({"in", "idx", "out", "n"}));
  EXPECT_EQ(J["buffers"][1]["dtype"], "i32");
  EXPECT_EQ(J["buffers"][1]["init"],
            Json({{"kind", "uniform"}, {"min", 0}, {"max", (1 << 20) - 1}}));
  EXPECT_EQ(J["bytes"], "(4 + 2 * 8) * N");
  EXPECT_EQ(J["grid"], "min(SMS * WAVES, ceil_div(N, BLOCK * ITEMS))");
  // One element: the only index is 0 (a uniform init needs min < max).
  I = instantiate(indexed(OpKind::Gather, 1));
  ASSERT_TRUE(bool(I)) << err(I.takeError());
  EXPECT_EQ(I->Spec["buffers"][1]["init"], Json({{"kind", "constant"}, {"value", 0}}));
}

TEST(GatherScatterTemplate, TheScatterSaysItNeedsDistinctIndices) {
  Request R = indexed(OpKind::Scatter, 4099, Scalar::F16);
  R.Name = "perm";
  Expected<Instance> I = instantiate(R);
  ASSERT_TRUE(bool(I)) << err(I.takeError());
  EXPECT_EQ(I->Template, "scatter");
  const std::string &S = I->Source;
  EXPECT_NE(S.find("#include <cuda_fp16.h>"), std::string::npos);
  size_t Loads = S.find("fg_v[fg_k] = __ldg(in + fg_i);");
  size_t Store = S.find("out[fg_j[fg_k]] = fg_v[fg_k];");
  ASSERT_NE(Loads, std::string::npos);
  ASSERT_NE(Store, std::string::npos);
  EXPECT_LT(Loads, Store);
  EXPECT_NE(S.find("fg_j[fg_k] = __ldg(idx + fg_i);"), std::string::npos);
  // The file comment and the wrapper's say that duplicates are undefined.
  std::string Flat = S;
  for (size_t At; (At = Flat.find("\n// ")) != std::string::npos;)
    Flat.replace(At, 4, " ");
  EXPECT_NE(Flat.find("the result is defined only when no two indices are equal"),
            std::string::npos)
      << S;
  EXPECT_NE(Flat.find("the idx[i] must be distinct and lie in [0, n) (with duplicates, which "
                      "write lands is unspecified)"),
            std::string::npos)
      << S;
  EXPECT_EQ(I->Spec["buffers"][1]["init"], Json({{"kind", "iota"}}));
  EXPECT_EQ(I->Spec["bytes"], "(4 + 2 * 2) * N");
  ASSERT_GE(I->Notes.size(), 2u);
  EXPECT_NE(I->Notes[1].find("optimistic"), std::string::npos);
  Expected<measure::LaunchSpec> P = measure::parseLaunchSpec(I->Spec, "perm.json");
  ASSERT_TRUE(bool(P)) << err(P.takeError());
  auto G = P->geometry({});
  ASSERT_TRUE(bool(G)) << err(G.takeError());
  EXPECT_EQ(G->Grid[0], 5); // ceil(4099 / 1024)
  G = P->geometry({{"N", 100000000}, {"WAVES", 2}});
  ASSERT_TRUE(bool(G)) << err(G.takeError());
  EXPECT_EQ(G->Grid[0], 264);
  auto C = P->satisfiesConstraints({{"BLOCK", 1024}, {"ITEMS", 16}});
  ASSERT_TRUE(bool(C));
  EXPECT_FALSE(*C);
}

TEST(GatherScatterTemplate, EveryElementSize) {
  for (Scalar T : {Scalar::I8, Scalar::U16, Scalar::BF16, Scalar::F32, Scalar::U32, Scalar::F64,
                   Scalar::U64})
    for (OpKind K : {OpKind::Gather, OpKind::Scatter}) {
      Expected<Instance> I = instantiate(indexed(K, 1000, T));
      ASSERT_TRUE(bool(I)) << err(I.takeError());
      EXPECT_NE(I->Source.find("const " + scalarInfo(T).Cuda.str() + " *__restrict__ in"),
                std::string::npos);
    }
}

TEST(GatherScatterTemplate, SamplesCoverSizesAndOddCounts) {
  for (auto Samples : {gatherSamples(), scatterSamples()}) {
    ASSERT_GE(Samples.size(), 3u);
    std::set<unsigned> Bytes;
    bool Large = false;
    for (const Request &R : Samples) {
      Bytes.insert(scalarInfo(R.Type).Bytes);
      Large |= R.Shape[0] > 132 * 8 * 256 * 4;
      EXPECT_NE(R.Shape[0] % 2, 0) << R.Name;
    }
    EXPECT_GE(Bytes.size(), 3u);
    EXPECT_TRUE(Large);
  }
}

TEST(GatherScatterTemplate, ConfigurationsCompileWithoutSpills) {
  Expected<build::CudaToolkit> TK = build::CudaToolkit::find();
  if (!TK)
    GTEST_SKIP() << "no CUDA toolkit: " << err(TK.takeError());
  std::string All;
  for (OpKind K : {OpKind::Gather, OpKind::Scatter}) {
    Request R = indexed(K, 1000, Scalar::F64);
    R.Name = K == OpKind::Gather ? "g" : "s";
    Expected<Instance> I = instantiate(R);
    ASSERT_TRUE(bool(I)) << err(I.takeError());
    All += I->Source;
    for (auto [Block, Items] : {std::pair{1024, 8}, {512, 16}, {128, 1}})
      All += formatv("template __global__ void {0}<{1}, {2}>(const double *, const int *, "
                     "double *, long long);\n",
                     R.Name, Block, Items)
                 .str();
  }
  Expected<test::CompileReport> P = test::compileForSm90(*TK, All, "forge-gather");
  ASSERT_TRUE(bool(P)) << err(P.takeError());
  ASSERT_TRUE(P->Ok) << P->Stderr;
  EXPECT_EQ(test::expectNoSpills(*P), 8u) << P->Stderr;
}

} // namespace
