//===- SortTest.cpp - The radix-sort and merge-sort templates --------------===//
//
// What the two sorts refuse (and why), which one instantiate() picks, their
// specs (tunables, constraints, scratch, bytes), the structure of their
// text (the warp multi-split, the look-back status words, the tickets, the
// parallel split search, the shared wrapper signature), and, with a CUDA
// toolkit, that other configurations compile for sm_90 without spilling.
//
//===----------------------------------------------------------------------===//
#include "CompileCheck.h"
#include "forge/Build/CudaToolkit.h"
#include "forge/Measure/LaunchSpec.h"
#include "forge/Templates/MergeSort.h"
#include "forge/Templates/RadixSort.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include <gtest/gtest.h>

using namespace forge;
using namespace forge::templates;
using namespace llvm;

namespace {

std::string err(Error E) { return toString(std::move(E)); }

Request sort(int64_t N, Scalar K = Scalar::U32, std::optional<Scalar> V = std::nullopt) {
  Request R;
  R.Kind = OpKind::Sort;
  R.Type = K;
  R.Shape = {N};
  R.ValueType = V;
  return R;
}

bool has(StringRef Text, StringRef What) { return Text.contains(What); }

measure::LaunchSpec parsed(const Instance &I) {
  Expected<measure::LaunchSpec> S = measure::parseLaunchSpec(I.Spec, I.Kernel + ".json");
  EXPECT_TRUE(bool(S)) << (S ? "" : err(S.takeError()));
  return S ? std::move(*S) : measure::LaunchSpec();
}

bool constraintsHold(const measure::LaunchSpec &S, const measure::ValueMap &V) {
  Expected<bool> C = S.satisfiesConstraints(V);
  EXPECT_TRUE(bool(C)) << (C ? "" : err(C.takeError()));
  return C && *C;
}

TEST(SortTemplates, RefusalsSayWhy) {
  EXPECT_EQ(err(instantiateRadixSort(sort(1000, Scalar::F64)).takeError()),
            "the radix sort takes 4-byte keys (u32, i32, f32), not f64");
  EXPECT_EQ(err(instantiateMergeSort(sort(1000, Scalar::U16)).takeError()),
            "the merge sort takes 4-byte keys (u32, i32, f32), not u16");
  EXPECT_EQ(err(instantiateRadixSort(sort(1000, Scalar::U32, Scalar::F64)).takeError()),
            "the radix sort takes 4-byte values (u32, i32, f32), not f64");
  // Neither sorts 64-bit keys: instantiate() gives both reasons.
  EXPECT_EQ(err(instantiate(sort(1000, Scalar::U64)).takeError()),
            "the radix sort takes 4-byte keys (u32, i32, f32), not u64; "
            "the merge sort takes 4-byte keys (u32, i32, f32), not u64");
  Request R = sort(1000);
  R.Shape = {10, 10};
  EXPECT_EQ(err(instantiateRadixSort(R).takeError()), "a sort takes 1 extent, not 2");
  R.Shape = {0};
  EXPECT_EQ(err(instantiateMergeSort(R).takeError()),
            "a sort: every extent must be positive, not 0");
  R = sort(1000);
  R.Algorithm = "merge";
  EXPECT_EQ(err(instantiateRadixSort(R).takeError()),
            "the radix sort is not the 'merge' sort that was asked for");
  R.Algorithm = "radix";
  EXPECT_EQ(err(instantiateMergeSort(R).takeError()),
            "the merge sort is not the 'radix' sort that was asked for");
  R.Algorithm = "bitonic";
  EXPECT_NE(err(instantiate(R).takeError()).find("no 'bitonic' template computes a sort"),
            std::string::npos);
  R = sort(1000);
  R.Kind = OpKind::Scan;
  EXPECT_EQ(err(instantiateRadixSort(R).takeError()),
            "the radix sort computes a sort, not a scan");
  EXPECT_EQ(err(instantiateMergeSort(sort(MergeSortMaxKeys + 1)).takeError()),
            "the merge sort sorts at most 2147483647 keys in one launch, not 2147483648");
}

TEST(SortTemplates, RadixFirstMergeWhenAskedOrWhenRadixRefuses) {
  Expected<Instance> I = instantiate(sort(1 << 20));
  ASSERT_TRUE(bool(I)) << err(I.takeError());
  EXPECT_EQ(I->Template, "radix-sort");
  EXPECT_EQ(I->Kernel, "radix_sort");
  Request R = sort(1 << 20, Scalar::F32, Scalar::I32);
  R.Algorithm = "merge";
  I = instantiate(R);
  ASSERT_TRUE(bool(I)) << err(I.takeError());
  EXPECT_EQ(I->Template, "merge-sort");
  EXPECT_EQ(I->Kernel, "merge_sort");
  R.Algorithm = "radix";
  I = instantiate(R);
  ASSERT_TRUE(bool(I)) << err(I.takeError());
  EXPECT_EQ(I->Template, "radix-sort");
  // More keys than the radix sort's 30-bit counts hold: the merge sort.
  I = instantiate(sort(RadixSortMaxKeys + 1));
  ASSERT_TRUE(bool(I)) << err(I.takeError());
  EXPECT_EQ(I->Template, "merge-sort");
  EXPECT_EQ(err(instantiateRadixSort(sort(RadixSortMaxKeys + 1)).takeError()),
            "the radix sort sorts at most 1073709056 keys in one launch, not 1073709057");
}

TEST(SortTemplates, RadixSpec) {
  Request R = sort(1 << 24, Scalar::F32, Scalar::U32);
  R.SMs = 132;
  Expected<Instance> I = instantiateRadixSort(R);
  ASSERT_TRUE(bool(I)) << err(I.takeError());
  const Json &J = I->Spec;
  EXPECT_EQ(J["template_args"], Json::array({"BLOCK", "ITEMS"}));
  EXPECT_EQ(J["args"], Json::array({"keys", "values", "keys_tmp", "values_tmp", "scratch", "n"}));
  EXPECT_EQ(J["grid"], "SMS * WAVES");
  EXPECT_EQ(J["block"], "BLOCK");
  EXPECT_EQ(J["bytes"], "2 * 8 * N");
  EXPECT_EQ(J["flops"], "0");
  EXPECT_EQ(J["buffers"][0]["role"], "inout");
  EXPECT_EQ(J["buffers"][1]["init"]["kind"], "iota");
  EXPECT_EQ(J["buffers"][4]["name"], "scratch");
  // Sized for the smallest tile the tunables allow: no count may depend on
  // a tunable (every configuration's outputs are compared).
  EXPECT_EQ(J["buffers"][4]["count"], "512 * ceil_div(N, 256 * 8)");
  EXPECT_EQ(J["tunables"][0]["name"], "BLOCK");
  EXPECT_EQ(J["tunables"][0]["default"], 256); // 384 for keys alone
  EXPECT_EQ(J["tunables"][1]["name"], "ITEMS");
  EXPECT_EQ(J["tunables"][1]["default"], 16);
  EXPECT_EQ(J["tunables"][2]["name"], "WAVES");
  measure::LaunchSpec S = parsed(*I);
  EXPECT_TRUE(constraintsHold(S, {}));
  EXPECT_TRUE(constraintsHold(S, {{"BLOCK", 256}, {"ITEMS", 24}}));
  EXPECT_TRUE(constraintsHold(S, {{"BLOCK", 1024}, {"ITEMS", 8}}));
  // A tile over the 48 KiB of static shared memory, a block without a
  // thread per digit.
  EXPECT_FALSE(constraintsHold(S, {{"BLOCK", 512}, {"ITEMS", 24}}));
  EXPECT_FALSE(constraintsHold(S, {{"BLOCK", 128}, {"ITEMS", 16}}));
  Expected<measure::Geometry> G = S.geometry({{"WAVES", 3}});
  ASSERT_TRUE(bool(G)) << err(G.takeError());
  EXPECT_EQ(G->Grid[0], 396);
  EXPECT_EQ(G->Block[0], 256);
  // The scratch: 2 * 256 statuses for each of the 8192 tiles of 2048 keys
  // (the smallest tile).
  Expected<uint64_t> Bytes = S.bufferBytes(S.Buffers[4]);
  ASSERT_TRUE(bool(Bytes)) << err(Bytes.takeError());
  EXPECT_EQ(*Bytes, 8192u * 512 * 4);
  Expected<Instance> Keys = instantiateRadixSort(sort(1 << 24));
  ASSERT_TRUE(bool(Keys)) << err(Keys.takeError());
  EXPECT_EQ(Keys->Spec["tunables"][0]["default"], 384);
  EXPECT_EQ(Keys->Spec["constraints"][2], "4 * BLOCK * ITEMS + 2176 <= 49152");
  EXPECT_EQ(J["constraints"][2], "5 * BLOCK * ITEMS + 2176 <= 49152");
}

TEST(SortTemplates, MergeSpec) {
  Request R = sort(1 << 24, Scalar::I32);
  R.Algorithm = "merge";
  R.Descending = true;
  Expected<Instance> I = instantiate(R);
  ASSERT_TRUE(bool(I)) << err(I.takeError());
  const Json &J = I->Spec;
  EXPECT_EQ(J["args"], Json::array({"keys", "keys_tmp", "n"}));
  EXPECT_EQ(J["template_args"], Json::array({"BLOCK", "ITEMS"}));
  EXPECT_EQ(J["bytes"], "2 * 4 * N");
  EXPECT_EQ(J["buffers"].size(), 2u);
  EXPECT_EQ(J["buffers"][0]["init"]["min"], -2147483648ll);
  EXPECT_EQ(J["tunables"][0]["default"], 256);
  EXPECT_EQ(J["tunables"][1]["default"], 15);
  measure::LaunchSpec S = parsed(*I);
  EXPECT_TRUE(constraintsHold(S, {}));
  EXPECT_TRUE(constraintsHold(S, {{"BLOCK", 1024}, {"ITEMS", 11}}));
  EXPECT_FALSE(constraintsHold(S, {{"BLOCK", 1024}, {"ITEMS", 15}}));
  // With values the tile takes twice the shared memory.
  R.ValueType = Scalar::F32;
  I = instantiate(R);
  ASSERT_TRUE(bool(I)) << err(I.takeError());
  S = parsed(*I);
  EXPECT_TRUE(constraintsHold(S, {}));
  EXPECT_FALSE(constraintsHold(S, {{"BLOCK", 512}, {"ITEMS", 15}}));
  EXPECT_EQ(I->Spec["bytes"], "2 * 8 * N");
  EXPECT_NE(I->Notes[0].find("14 phases for these 16777216 keys"), std::string::npos)
      << I->Notes[0];
}

TEST(SortTemplates, RadixText) {
  Request R = sort(1000003);
  R.Name = "rs";
  Expected<Instance> I = instantiateRadixSort(R);
  ASSERT_TRUE(bool(I)) << err(I.takeError());
  StringRef T = I->Source;
  // One kernel, its tunables as template parameters, the default launched.
  EXPECT_TRUE(has(T, "template <int BLOCK, int ITEMS>\n__global__ void __launch_bounds__(BLOCK)\n"
                     "    rs(unsigned int *keys, unsigned int *keys_tmp, unsigned int *scratch, "
                     "long long n)"));
  // WAVES spelt as a constant of that name, so that tune writes back its
  // choice (the grid is the spec's SMS * WAVES).
  EXPECT_TRUE(has(T, "  const int WAVES = 2;\n  rs<384, 16><<<sms * WAVES, 384, 0, stream>>>(keys, "
                     "keys_tmp, (unsigned int *)scratch, n);"));
  EXPECT_TRUE(has(T, "inline cudaError_t forge_rs(unsigned int *keys, unsigned int *keys_tmp, "
                     "void *scratch, size_t scratch_bytes,\n                            long "
                     "long n, cudaStream_t stream = 0)"));
  EXPECT_TRUE(has(T, "inline size_t forge_rs_scratch_bytes(long long n)"));
  // Tickets, the finished items a phase waits for, the reset.
  EXPECT_TRUE(has(T, "s_item = atomicAdd(&rs_ticket, 1u);"));
  EXPECT_TRUE(has(T, "const unsigned int need = hist_items + pass * tiles;"));
  EXPECT_TRUE(has(T, "while (*(volatile unsigned int *)&rs_done < need)"));
  EXPECT_TRUE(has(T, "*(volatile unsigned int *)&rs_ticket = 0u;"));
  // The histogram of all 4 passes in one read; the warp multi-split.
  EXPECT_TRUE(has(T, "atomicAdd(&s.digits[p][(b[u] >> (8 * p)) & 255u], 1u);"));
  EXPECT_TRUE(has(T, "__ballot_sync(0xffffffffu, bit)"));
  EXPECT_TRUE(has(T, "__popc(peers & lanes_below)"));
  // The look-back: flag and count in one word, spinning until published.
  EXPECT_TRUE(has(T, "(tile == 0 ? PREFIX : AGGREGATE) | total"));
  EXPECT_TRUE(has(T, "& ~COUNT) == 0u)"));
  EXPECT_TRUE(has(T, "PREFIX | (before + total)"));
  // Keys leave through shared memory; the last pass turns bits back to keys.
  EXPECT_TRUE(has(T, "dst_keys[s_offset[(b >> shift) & 255u] + p] = last ? rs_from_bits(b) : b;"));
  EXPECT_TRUE(has(T, "return k;")); // u32 keys are their own bits
  EXPECT_FALSE(has(T, "dst_values"));
  EXPECT_FALSE(has(T, "s_digit["));
  EXPECT_FALSE(has(T, "@"));
}

TEST(SortTemplates, RadixTextPairsDescendingFloats) {
  Request R = sort(5000, Scalar::F32, Scalar::I32);
  R.Descending = true;
  Expected<Instance> I = instantiateRadixSort(R);
  ASSERT_TRUE(bool(I)) << err(I.takeError());
  StringRef T = I->Source;
  EXPECT_TRUE(has(T, "radix_sort(float *keys, int *values, float *keys_tmp, int *values_tmp, "
                     "unsigned int *scratch, long long n)"));
  EXPECT_TRUE(has(T, "return ~((k & 0x80000000u) ? ~k : (k | 0x80000000u));"));
  EXPECT_TRUE(has(T, "return ((~b) & 0x80000000u) ? ((~b) & 0x7fffffffu) : ~(~b);"));
  EXPECT_TRUE(has(T, "dst_values[s_offset[s_digit[p]] + p] = s.tile[p];"));
  EXPECT_TRUE(has(T, "value[i] = at < count ? __ldcg(src_values + at) : 0u;"));
  EXPECT_TRUE(has(T, "radix_sort<256, 16><<<"));
  EXPECT_TRUE(has(T, "-0.0 before +0.0"));
  EXPECT_FALSE(has(T, "@"));
  Request S = sort(5000, Scalar::I32);
  S.Descending = true;
  I = instantiateRadixSort(S);
  ASSERT_TRUE(bool(I)) << err(I.takeError());
  EXPECT_TRUE(has(I->Source, "return ~(k ^ 0x80000000u);"));
  EXPECT_TRUE(has(I->Source, "return (~b) ^ 0x80000000u;"));
}

TEST(SortTemplates, MergeText) {
  Request R = sort(65537, Scalar::F32, Scalar::F32);
  R.Name = "ms";
  Expected<Instance> I = instantiateMergeSort(R);
  ASSERT_TRUE(bool(I)) << err(I.takeError());
  StringRef T = I->Source;
  EXPECT_TRUE(has(T, "template <int BLOCK, int ITEMS>\n__global__ void __launch_bounds__(BLOCK) "
                     "ms(float *keys, float *values, float *keys_tmp, float *values_tmp, long "
                     "long n)"));
  EXPECT_TRUE(has(T, "  const int WAVES = 4;\n  ms<256, 15><<<sms * WAVES, 256, 0, stream>>>(keys, "
                     "values, keys_tmp, values_tmp, n);"));
  // The same wrapper signature as the radix sort's.
  EXPECT_TRUE(has(T, "inline cudaError_t forge_ms(float *keys, float *values, float *keys_tmp, "
                     "float *values_tmp, void *scratch, size_t scratch_bytes,"));
  EXPECT_TRUE(has(T, "inline size_t forge_ms_scratch_bytes(long long) { return 0; }"));
  // Tickets chain the phases.
  EXPECT_TRUE(has(T, "s_item = atomicAdd(&ms_ticket, 1u);"));
  EXPECT_TRUE(has(T, "while (*(volatile unsigned int *)&ms_done < phase * tiles)"));
  // Stable: odd-even transposition swaps only keys out of order, the merge
  // takes A first on ties.
  EXPECT_TRUE(has(T, "if (key[i + 1] < key[i]) {"));
  EXPECT_TRUE(has(T, "const bool take_a = j >= b_end || (i < a_end && ka <= kb);"));
  // The parallel split search in global memory, the merge in shared memory.
  EXPECT_TRUE(has(T, "atomicMax(&s_lo[half], m + 1);"));
  EXPECT_TRUE(has(T, "atomicMin(&s_hi[half], m);"));
  EXPECT_TRUE(has(T, "ms_merge<ITEMS>(s_keys, 0u, na, na, valid - na, min(tid * ITEMS, valid), "
                     "key, s_values, value);"));
  EXPECT_TRUE(has(T, "dst_keys[first + p] = last ? ms_from_bits(b) : b;"));
  EXPECT_TRUE(has(T, "dst_values[first + p] = s_values[p];"));
  EXPECT_FALSE(has(T, "@"));
  I = instantiateMergeSort(sort(1000));
  ASSERT_TRUE(bool(I)) << err(I.takeError());
  EXPECT_FALSE(has(I->Source, "s_values"));
  EXPECT_FALSE(has(I->Source, "value["));
  EXPECT_FALSE(has(I->Source, "@"));
}

TEST(SortTemplates, SamplesCoverTheVariants) {
  std::vector<Request> Radix = radixSortSamples(), Merge = mergeSortSamples();
  ASSERT_GE(Radix.size(), 5u);
  ASSERT_GE(Merge.size(), 3u);
  bool Desc = false, Pairs = false, Float = false, Large = false;
  for (const Request &R : Radix) {
    EXPECT_TRUE(StringRef(R.Name).starts_with("radix_sort"));
    Desc |= R.Descending;
    Pairs |= R.ValueType.has_value();
    Float |= R.Type == Scalar::F32;
    Large |= R.Shape[0] >= 4000000;
    EXPECT_NE(R.Shape[0] % 4, 0) << R.Name;
    ASSERT_TRUE(bool(instantiate(R)));
    EXPECT_EQ(instantiate(R)->Template, "radix-sort");
  }
  EXPECT_TRUE(Desc && Pairs && Float && Large);
  for (const Request &R : Merge) {
    EXPECT_TRUE(StringRef(R.Name).starts_with("merge_sort"));
    Expected<Instance> I = instantiate(R);
    ASSERT_TRUE(bool(I)) << err(I.takeError());
    EXPECT_EQ(I->Template, "merge-sort");
  }
}

/// Other configurations than the defaults (explicitly instantiated) compile
/// for sm_90 without spills.
TEST(SortTemplates, ConfigurationsCompileWithoutSpills) {
  Expected<build::CudaToolkit> TK = build::CudaToolkit::find();
  if (!TK)
    GTEST_SKIP() << "no CUDA toolkit: " << err(TK.takeError());
  std::string All;
  auto Add = [&](Expected<Instance> I, StringRef Params,
                 std::vector<std::pair<int, int>> Configs) {
    ASSERT_TRUE(bool(I)) << err(I.takeError());
    All += I->Source;
    for (auto [B, N] : Configs)
      All += formatv("template __global__ void {0}<{1}, {2}>({3});\n", I->Kernel, B, N, Params);
  };
  Request R = sort(1000, Scalar::U32);
  R.Name = "cfg_radix";
  Add(instantiateRadixSort(R), "unsigned int *, unsigned int *, unsigned int *, long long",
      {{256, 8}, {256, 24}, {512, 16}, {1024, 8}});
  R = sort(1000, Scalar::F32, Scalar::I32);
  R.Name = "cfg_radix_pairs";
  Add(instantiateRadixSort(R), "float *, int *, float *, int *, unsigned int *, long long",
      {{256, 24}, {512, 16}});
  R = sort(1000, Scalar::I32);
  R.Name = "cfg_merge";
  Add(instantiateMergeSort(R), "int *, int *, long long", {{128, 7}, {512, 11}, {1024, 11}});
  R = sort(1000, Scalar::U32, Scalar::F32);
  R.Name = "cfg_merge_pairs";
  Add(instantiateMergeSort(R), "unsigned int *, float *, unsigned int *, float *, long long",
      {{128, 23}, {512, 7}});
  Expected<test::CompileReport> P = test::compileForSm90(*TK, All, "forge-sort");
  ASSERT_TRUE(bool(P)) << err(P.takeError());
  ASSERT_TRUE(P->Ok) << P->Stderr;
  // 11 explicit configurations and the 4 defaults the wrappers launch.
  EXPECT_EQ(test::expectNoSpills(*P, "cfg_"), 15u) << P->Stderr;
}

} // namespace
