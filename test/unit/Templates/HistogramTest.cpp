//===- HistogramTest.cpp - The histogram template -------------------------===//
//
// What the histogram template refuses (and why), its spec (the bins'
// zeroed inout buffer, tunables and the shared-memory constraint), the
// structure of its text (privatised copies in shared memory, one atomicAdd
// per non-zero bin, 16-byte loads, the ignored samples, the wrapper's
// zero_first), the global-atomic fallback for many bins, and, with a CUDA
// toolkit, that the corners of its tuning space compile without spilling.
//
//===----------------------------------------------------------------------===//
#include "CompileCheck.h"
#include "forge/Measure/LaunchSpec.h"
#include "forge/Templates/Histogram.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include <gtest/gtest.h>
#include <map>
#include <set>

using namespace forge;
using namespace forge::templates;
using namespace llvm;

namespace {

std::string err(Error E) { return toString(std::move(E)); }

Request histogram(Scalar T, int Bins, int64_t N = 1 << 24) {
  Request R;
  R.Kind = OpKind::Histogram;
  R.Type = T;
  R.Bins = Bins;
  R.Shape = {N};
  return R;
}

bool has(StringRef Text, StringRef What) { return Text.contains(What); }

std::map<std::string, Json> tunables(const Json &Spec) {
  std::map<std::string, Json> M;
  for (const Json &T : Spec["tunables"])
    M[T["name"]] = T;
  return M;
}

TEST(HistogramTemplate, RefusalsSayWhy) {
  EXPECT_EQ(err(instantiate(histogram(Scalar::F32, 256)).takeError()),
            "the histogram template counts integer samples (i8, u8, i16, u16, i32, u32, i64, "
            "u64), not f32: map floating-point samples to bin indices first");
  EXPECT_EQ(err(instantiateHistogram(histogram(Scalar::BF16, 256)).takeError()),
            "the histogram template counts integer samples (i8, u8, i16, u16, i32, u32, i64, "
            "u64), not bf16: map floating-point samples to bin indices first");
  EXPECT_EQ(err(instantiateHistogram(histogram(Scalar::U8, 0)).takeError()),
            "a histogram needs at least 1 bin, not 0");
  Request R = histogram(Scalar::U8, 256);
  R.Shape = {16, 16};
  EXPECT_EQ(err(instantiateHistogram(R).takeError()), "a histogram takes 1 extent, not 2");
  R.Shape = {-5};
  EXPECT_EQ(err(instantiateHistogram(R).takeError()),
            "a histogram: every extent must be positive, not -5");
  R.Shape = {100};
  R.Name = "hist 2";
  EXPECT_EQ(err(instantiateHistogram(R).takeError()),
            "the kernel's name 'hist 2' is not a C identifier");
}

TEST(HistogramTemplate, SpecBinsTunablesAndConstraints) {
  Request R = histogram(Scalar::U8, 256, 1 << 26);
  R.Name = "h8";
  Expected<Instance> I = instantiate(R);
  ASSERT_TRUE(bool(I)) << err(I.takeError());
  EXPECT_EQ(I->Template, "histogram");
  const Json &S = I->Spec;
  EXPECT_EQ(S["template_args"], Json({"BLOCK", "ITEMS", "COPIES"}));
  std::vector<std::string> Args = S["args"];
  EXPECT_EQ(join(Args, ","), "in,bins,n");
  EXPECT_EQ(S["sizes"]["BINS"], 256);
  // The bins: u32, inout, zeroed, compared exactly (no tolerance).
  const Json &Bins = S["buffers"][1];
  EXPECT_EQ(Bins["dtype"], "u32");
  EXPECT_EQ(Bins["count"], "BINS");
  EXPECT_EQ(Bins["role"], "inout");
  EXPECT_EQ(Bins["init"]["kind"], "constant");
  EXPECT_EQ(Bins["init"]["value"], 0);
  EXPECT_FALSE(Bins.contains("tolerance"));
  // u8 samples over the whole type: [0, 255], some of them past the bins
  // for fewer bins.
  EXPECT_EQ(S["buffers"][0]["init"]["min"], 0);
  EXPECT_EQ(S["buffers"][0]["init"]["max"], 255);
  auto T = tunables(S);
  EXPECT_EQ(T["COPIES"]["default"], 8);
  EXPECT_EQ(T["COPIES"]["values"], Json({1, 2, 4, 8, 16, 32}));
  EXPECT_EQ(T["BLOCK"]["default"], 256);
  EXPECT_EQ(T["ITEMS"]["default"], 2);
  EXPECT_EQ(T["WAVES"]["default"], 4);
  EXPECT_EQ(S["constraints"], Json({"COPIES * 32 <= BLOCK", "COPIES * BINS <= 12288"}));
  EXPECT_EQ(S["bytes"], "1 * N + 8 * BINS");

  Expected<measure::LaunchSpec> L = measure::parseLaunchSpec(S, "h8.json");
  ASSERT_TRUE(bool(L)) << err(L.takeError());
  auto G = L->geometry({});
  ASSERT_TRUE(bool(G)) << err(G.takeError());
  EXPECT_EQ(G->Grid[0], 132 * 4);
  // 32 copies need 1024 threads (one per warp).
  auto C = L->satisfiesConstraints({{"COPIES", 32}, {"BLOCK", 512}});
  ASSERT_TRUE(bool(C));
  EXPECT_FALSE(*C);
  C = L->satisfiesConstraints({{"COPIES", 32}, {"BLOCK", 1024}});
  ASSERT_TRUE(bool(C));
  EXPECT_TRUE(*C);

  // Signed samples reach below 0 and past the last bin, within the type.
  I = instantiate(histogram(Scalar::I32, 1000));
  ASSERT_TRUE(bool(I)) << err(I.takeError());
  EXPECT_EQ(I->Spec["buffers"][0]["init"]["min"], -126);
  EXPECT_EQ(I->Spec["buffers"][0]["init"]["max"], 1125);
  T = tunables(I->Spec);
  EXPECT_EQ(T["COPIES"]["default"], 4);               // 16 KB of counts
  EXPECT_EQ(T["COPIES"]["values"], Json({1, 2, 4, 8})); // 32 KB at most
  I = instantiate(histogram(Scalar::I8, 1000));
  ASSERT_TRUE(bool(I)) << err(I.takeError());
  EXPECT_EQ(I->Spec["buffers"][0]["init"]["min"], -126);
  EXPECT_EQ(I->Spec["buffers"][0]["init"]["max"], 127);
}

TEST(HistogramTemplate, TheTextHasTheStructureItClaims) {
  Expected<Instance> I = instantiate(histogram(Scalar::U8, 100));
  ASSERT_TRUE(bool(I)) << err(I.takeError());
  const std::string &S = I->Source;
  EXPECT_TRUE(has(S, "template <int BLOCK, int ITEMS, int COPIES>\n__global__ void "
                     "__launch_bounds__(BLOCK) histogram(\n    const unsigned char *__restrict__ "
                     "in, unsigned int *__restrict__ bins, long long n) {"));
  // Privatised copies, warp w into copy w % COPIES.
  EXPECT_TRUE(has(S, "__shared__ unsigned int counts[COPIES * histogram_bins];"));
  EXPECT_TRUE(has(S, "unsigned int *hist = counts + (threadIdx.x / 32 % COPIES) * histogram_bins;"));
  EXPECT_TRUE(has(S, "constexpr unsigned int histogram_bins = 100u;"));
  // Out-of-range samples are ignored (one unsigned comparison).
  EXPECT_TRUE(has(S, "const unsigned int b = (unsigned int)x;\n  if (b < histogram_bins)\n    "
                     "atomicAdd(&hist[b], 1u);"));
  // 16 u8 samples per 16-byte load, after the peeled head.
  EXPECT_TRUE(has(S, "constexpr int VEC = 16;"));
  EXPECT_TRUE(has(S, "unsigned char e[16];"));
  EXPECT_TRUE(has(S, "q[k] = __ldg(body + v + k * BLOCK);"));
  EXPECT_TRUE(has(S, "(((16u - (address & 15u)) & 15u) / sizeof(unsigned char))"));
  // One atomicAdd per non-zero bin of the block.
  EXPECT_TRUE(has(S, "if (c != 0u)\n      atomicAdd(&bins[b], c);"));
  // The wrapper adds unless asked to zero first.
  EXPECT_TRUE(has(S, "inline cudaError_t forge_histogram(\n    const unsigned char *in, unsigned "
                     "int *bins, long long n, cudaStream_t stream = 0,\n    bool zero_first = "
                     "false) {"));
  EXPECT_TRUE(has(S, "cudaMemsetAsync(bins, 0, histogram_bins * sizeof(unsigned int), stream);"));
  EXPECT_TRUE(has(S, "histogram<256, 2, 8><<<(unsigned int)blocks, 256, 0, stream>>>(in, bins, n);"));

  // 8-byte samples compare in 64 bits; signed ones wrap to huge values.
  I = instantiate(histogram(Scalar::I64, 50));
  ASSERT_TRUE(bool(I)) << err(I.takeError());
  EXPECT_TRUE(has(I->Source, "const unsigned long long b = (unsigned long long)x;"));
  EXPECT_TRUE(has(I->Source, "constexpr int VEC = 2;"));
  EXPECT_TRUE(has(I->Source, "a negative sample converts to a huge unsigned value"));
}

TEST(HistogramTemplate, ManyBinsUseGlobalAtomics) {
  Request R = histogram(Scalar::I32, HistogramMaxSharedBins + 1);
  R.Name = "wide";
  Expected<Instance> I = instantiate(R);
  ASSERT_TRUE(bool(I)) << err(I.takeError());
  const std::string &S = I->Source;
  EXPECT_FALSE(has(S, "__shared__"));
  EXPECT_FALSE(has(S, "__syncthreads"));
  EXPECT_TRUE(has(S, "unsigned int *hist = bins;"));
  EXPECT_TRUE(has(S, "constexpr int wide_max_copies = 1;"));
  EXPECT_TRUE(has(S, "wide<256, 2, 1><<<"));
  EXPECT_EQ(tunables(I->Spec)["COPIES"]["values"], Json({1}));
  EXPECT_EQ(I->Spec["constraints"], Json({"COPIES * 32 <= BLOCK"}));
  ASSERT_FALSE(I->Notes.empty());
  EXPECT_TRUE(has(I->Notes[0], "global atomics"));
  // The most bins that still fit: one copy of 48 KiB.
  R.Bins = HistogramMaxSharedBins;
  I = instantiate(R);
  ASSERT_TRUE(bool(I)) << err(I.takeError());
  EXPECT_TRUE(has(I->Source, "__shared__ unsigned int counts[COPIES * wide_bins];"));
  EXPECT_EQ(tunables(I->Spec)["COPIES"]["values"], Json({1}));
}

TEST(HistogramTemplate, SamplesCoverTypesBinsAndBothModes) {
  std::vector<Request> Samples = histogramSamples();
  ASSERT_GE(Samples.size(), 3u);
  std::set<std::string> Names, Types;
  bool Global = false, Few = false, Large = false;
  for (const Request &R : Samples) {
    EXPECT_TRUE(StringRef(R.Name).starts_with("histogram_")) << R.Name;
    Names.insert(R.Name);
    Types.insert(scalarInfo(R.Type).Dtype.str());
    Global |= R.Bins > HistogramMaxSharedBins;
    Few |= R.Bins < 32;
    Large |= R.Shape[0] > 1000000;
  }
  EXPECT_EQ(Names.size(), Samples.size());
  EXPECT_TRUE(Types.count("u8") && Types.count("i32") && Types.count("u32"));
  EXPECT_TRUE(Global);
  EXPECT_TRUE(Few);
  EXPECT_TRUE(Large);
}

TEST(HistogramTemplate, ConfigurationsCompileWithoutSpills) {
  Expected<build::CudaToolkit> TK = build::CudaToolkit::find();
  if (!TK)
    GTEST_SKIP() << "no CUDA toolkit: " << err(TK.takeError());
  std::string All;
  unsigned Want = 0;
  auto Add = [&](StringRef Name, Scalar T, int Bins,
                 std::vector<std::array<int, 3>> Configs) {
    Request R = histogram(T, Bins);
    R.Name = Name.str();
    Expected<Instance> I = instantiateHistogram(R);
    ASSERT_TRUE(bool(I)) << err(I.takeError());
    All += I->Source;
    for (auto [B, It, C] : Configs) {
      All += formatv("template __global__ void {0}<{1}, {2}, {3}>(const {4} *, unsigned int *, "
                     "long long);\n",
                     Name, B, It, C, scalarInfo(T).Cuda)
                 .str();
      ++Want;
    }
    ++Want;
  };
  Add("h8", Scalar::U8, 256, {{1024, 4, 32}, {128, 1, 1}, {512, 16, 16}});
  Add("h32", Scalar::U32, 7, {{1024, 16, 32}, {32, 1, 1}});
  Add("h16", Scalar::I16, 12288, {{1024, 4, 1}});
  Add("h64", Scalar::U64, 100000, {{1024, 16, 1}});
  Expected<test::CompileReport> P = test::compileForSm90(*TK, All, "forge-histogram");
  ASSERT_TRUE(bool(P)) << err(P.takeError());
  ASSERT_TRUE(P->Ok) << P->Stderr;
  EXPECT_EQ(P->Kernels.size(), Want) << P->Stderr;
  for (const test::PtxasKernel &K : P->Kernels) {
    EXPECT_EQ(K.SpillStores, 0u) << K.Entry;
    EXPECT_EQ(K.StackBytes, 0u) << K.Entry;
  }
}

} // namespace
