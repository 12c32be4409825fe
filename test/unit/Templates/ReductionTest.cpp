//===- ReductionTest.cpp - The reduction template -------------------------===//
//
// What the reduction template refuses (and why), its spec (tunables, the
// grid's constraint, buffers and tolerances, bytes and flops), the
// structure of its text (16-byte loads with the run-time alignment check,
// the shuffle tree, the ticket and its reset, no floating-point atomics),
// each operator's identity and combination, and, with a CUDA toolkit, that
// the corners of its tuning space compile for sm_90 without spilling.
//
//===----------------------------------------------------------------------===//
#include "CompileCheck.h"
#include "forge/Measure/LaunchSpec.h"
#include "forge/Templates/Reduction.h"
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

Request reduce(StringRef Op, Scalar T = Scalar::F32, int64_t N = 1 << 24) {
  Request R;
  R.Kind = OpKind::Reduce;
  R.Type = T;
  R.Operator = Op.str();
  R.Shape = {N};
  return R;
}

size_t occurrences(StringRef Text, StringRef What) {
  size_t N = 0;
  for (size_t At = Text.find(What); At != StringRef::npos; At = Text.find(What, At + 1))
    ++N;
  return N;
}

bool has(StringRef Text, StringRef What) { return Text.contains(What); }

TEST(ReductionTemplate, RefusalsSayWhy) {
  EXPECT_EQ(err(instantiateReduction(reduce("-")).takeError()),
            "the reduction template reduces with +, *, max, min, argmax or argmin, not '-'");
  EXPECT_EQ(err(instantiate(reduce("+", Scalar::I8)).takeError()),
            "the reduction template takes f16, bf16, f32, f64, i32, u32, i64 or u64 elements, "
            "not i8");
  EXPECT_EQ(err(instantiateReduction(reduce("+", Scalar::U16)).takeError()),
            "the reduction template takes f16, bf16, f32, f64, i32, u32, i64 or u64 elements, "
            "not u16");
  Request R = reduce("+");
  R.Shape = {10, 10};
  EXPECT_EQ(err(instantiateReduction(R).takeError()), "a reduction takes 1 extent, not 2");
  R.Shape = {0};
  EXPECT_EQ(err(instantiateReduction(R).takeError()),
            "a reduction: every extent must be positive, not 0");
  R = reduce("max");
  R.Name = "9lives";
  EXPECT_EQ(err(instantiateReduction(R).takeError()),
            "the kernel's name '9lives' is not a C identifier");
  R.Name = "sum-of";
  EXPECT_EQ(err(instantiateReduction(R).takeError()),
            "the kernel's name 'sum-of' is not a C identifier");
  R = reduce("+");
  R.SMs = 0;
  EXPECT_EQ(err(instantiateReduction(R).takeError()),
            "the reduction template needs 1 to 4096 SMs, not 0");
}

TEST(ReductionTemplate, SpecTunablesConstraintAndWork) {
  Request R = reduce("+", Scalar::F32, 1 << 26);
  R.Name = "sum64m";
  Expected<Instance> I = instantiate(R);
  ASSERT_TRUE(bool(I)) << err(I.takeError());
  EXPECT_EQ(I->Template, "reduction");
  EXPECT_EQ(I->Kernel, "sum64m");
  EXPECT_EQ(I->Wrapper, "forge_sum64m");
  const Json &S = I->Spec;
  EXPECT_EQ(S["template_args"], Json({"BLOCK", "ITEMS"}));
  std::vector<std::string> Args = S["args"];
  EXPECT_EQ(join(Args, ","), "in,out,n");
  std::map<std::string, int64_t> Defaults;
  for (const Json &T : S["tunables"])
    Defaults[T["name"]] = T["default"];
  EXPECT_EQ(Defaults, (std::map<std::string, int64_t>{{"BLOCK", 256}, {"ITEMS", 4}, {"WAVES", 8}}));
  EXPECT_EQ(S["grid"], "SMS * WAVES");
  EXPECT_EQ(S["sizes"]["SMS"], 132);
  EXPECT_EQ(S["bytes"], "4 * N + 4");
  EXPECT_EQ(S["flops"], "N");
  EXPECT_EQ(S["buffers"][1]["count"], "1");
  // The tolerance allows reassociation, growing with sqrt(n).
  double Tol = S["buffers"][1]["tolerance"]["rel_l2"];
  // (4 eps sqrt(n): 2e-3 at 2^26; the sum of 2^26 uniform [-1, 1) values
  // is about 4700, its rounding across orders about 1e-3 absolute).
  EXPECT_GT(Tol, 1e-3);
  EXPECT_LT(Tol, 4e-3);
  R.Shape = {1000};
  Expected<Instance> Small = instantiate(R);
  ASSERT_TRUE(bool(Small)) << err(Small.takeError());
  EXPECT_EQ(Small->Spec["buffers"][1]["tolerance"]["rel_l2"], 1e-5);
  R.Shape = {1 << 26};

  Expected<measure::LaunchSpec> L = measure::parseLaunchSpec(S, "sum.json");
  ASSERT_TRUE(bool(L)) << err(L.takeError());
  auto G = L->geometry({});
  ASSERT_TRUE(bool(G)) << err(G.takeError());
  EXPECT_EQ(G->Grid[0], 132 * 8);
  EXPECT_EQ(G->Block[0], 256);
  G = L->geometry({{"BLOCK", 1024}, {"WAVES", 16}});
  ASSERT_TRUE(bool(G)) << err(G.takeError());
  EXPECT_EQ(G->Grid[0], 132 * 16);
  // The partials hold 4096 blocks: 300 SMs at 16 waves do not fit.
  R.SMs = 300;
  I = instantiate(R);
  ASSERT_TRUE(bool(I)) << err(I.takeError());
  L = measure::parseLaunchSpec(I->Spec, "sum.json");
  ASSERT_TRUE(bool(L)) << err(L.takeError());
  auto C = L->satisfiesConstraints({{"WAVES", 16}});
  ASSERT_TRUE(bool(C));
  EXPECT_FALSE(*C);
  C = L->satisfiesConstraints({{"WAVES", 8}});
  ASSERT_TRUE(bool(C));
  EXPECT_TRUE(*C);

  // Exact outputs: integers, max and min; no flops outside floating + and *.
  I = instantiate(reduce("max"));
  ASSERT_TRUE(bool(I)) << err(I.takeError());
  EXPECT_FALSE(I->Spec["buffers"][1].contains("tolerance"));
  EXPECT_EQ(I->Spec["flops"], "0");
  I = instantiate(reduce("+", Scalar::U64));
  ASSERT_TRUE(bool(I)) << err(I.takeError());
  EXPECT_FALSE(I->Spec["buffers"][1].contains("tolerance"));
  EXPECT_EQ(I->Spec["bytes"], "8 * N + 8");
  // A product's inputs stay near 1.
  I = instantiate(reduce("*", Scalar::F64));
  ASSERT_TRUE(bool(I)) << err(I.takeError());
  EXPECT_EQ(I->Spec["buffers"][0]["init"]["min"], 0.999);
  EXPECT_EQ(I->Spec["buffers"][0]["init"]["max"], 1.001);
}

TEST(ReductionTemplate, ArgReductionsReturnValueAndIndex) {
  Request R = reduce("argmax", Scalar::F32, 1000);
  R.Name = "best";
  Expected<Instance> I = instantiate(R);
  ASSERT_TRUE(bool(I)) << err(I.takeError());
  std::vector<std::string> Args = I->Spec["args"];
  EXPECT_EQ(join(Args, ","), "in,value,index,n");
  EXPECT_EQ(I->Spec["buffers"][2]["dtype"], "i64");
  EXPECT_EQ(I->Spec["bytes"], "4 * N + 12");
  const std::string &S = I->Source;
  EXPECT_TRUE(has(S, "inline cudaError_t forge_best(\n    const float *in, float *value, long "
                     "long *index, long long n, cudaStream_t stream = 0) {"));
  EXPECT_TRUE(has(S, "__device__ long long best_partial_index[best_max_blocks];"));
  // Ties go to the lower index; NaN loses to every number.
  EXPECT_TRUE(has(S, "return bi < ai; // equal (or both NaN): the lower index"));
  EXPECT_TRUE(has(S, "return anan; // a number beats NaN"));
  EXPECT_TRUE(has(S, "return bv > av;"));
  EXPECT_TRUE(has(S, "index[0] = total_index == best_none ? -1 : total_index;"));
  // Every element's index is passed along: head, vectors, tail.
  EXPECT_TRUE(has(S, "best_take(acc, acc_index, (in[i]), i);"));
  EXPECT_TRUE(has(S, "best_fold(acc, acc_index, q[k], head + (v + k * BLOCK) * VEC);"));
  // The index travels through the shuffle tree with the value.
  EXPECT_TRUE(has(S, "const long long oi = __shfl_down_sync(0xffffffffu, i, d);"));

  R = reduce("argmin", Scalar::U32, 1000);
  R.Name = "worst";
  I = instantiate(R);
  ASSERT_TRUE(bool(I)) << err(I.takeError());
  EXPECT_TRUE(has(I->Source, "if (bv != av)\n    return bv < av;\n  return bi < ai;"));
  EXPECT_TRUE(has(I->Source, "unsigned int total = 0xffffffffu;"));
  EXPECT_FALSE(has(I->Source, "bnan"));
}

TEST(ReductionTemplate, TheTextHasTheStructureItClaims) {
  Request R = reduce("+");
  Expected<Instance> I = instantiate(R);
  ASSERT_TRUE(bool(I)) << err(I.takeError());
  const std::string &S = I->Source;
  // The default name, the kernel's template parameters and the wrapper.
  EXPECT_TRUE(has(S, "template <int BLOCK, int ITEMS>\n__global__ void __launch_bounds__(BLOCK) "
                     "reduction(\n    const float *__restrict__ in, float *__restrict__ out, "
                     "long long n) {"));
  EXPECT_TRUE(has(S, "reduction<256, 4><<<(unsigned int)blocks, 256, 0, stream>>>(in, out, n);"));
  EXPECT_TRUE(has(S, "const int WAVES = 8;"));
  EXPECT_TRUE(has(S, "cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device)"));
  // 16-byte loads after a head peeled to the first 16-byte boundary.
  EXPECT_TRUE(has(S, "(((16u - (address & 15u)) & 15u) / sizeof(float))"));
  EXPECT_TRUE(has(S, "const uint4 *body = reinterpret_cast<const uint4 *>(in + head);"));
  EXPECT_TRUE(has(S, "q[k] = __ldg(body + v + k * BLOCK);"));
  EXPECT_TRUE(has(S, "constexpr int VEC = 4;"));
  // The shuffle tree, the warps through shared memory.
  EXPECT_TRUE(has(S, "v = reduction_op(v, __shfl_down_sync(0xffffffffu, v, d));"));
  EXPECT_TRUE(has(S, "__shared__ float warp_total[BLOCK / 32];"));
  // The ticket: fenced partials, the last block reads them from L2 and
  // resets the ticket. The only atomic is the ticket's.
  EXPECT_TRUE(has(S, "__device__ float reduction_partial[reduction_max_blocks];"));
  EXPECT_TRUE(has(S, "__device__ unsigned int reduction_ticket;"));
  EXPECT_TRUE(has(S, "last = atomicAdd(&reduction_ticket, 1u) == gridDim.x - 1;"));
  EXPECT_TRUE(has(S, "__ldcg(&reduction_partial[b])"));
  EXPECT_TRUE(has(S, "reduction_ticket = 0u;"));
  EXPECT_EQ(occurrences(S, "atomicAdd"), 1u);
  EXPECT_EQ(occurrences(S, "__threadfence()"), 2u);
  EXPECT_TRUE(has(S, "if (gridDim.x > reduction_max_blocks)\n    __trap();"));
  EXPECT_TRUE(has(S, "constexpr unsigned int reduction_max_blocks = 4096u;"));
}

TEST(ReductionTemplate, OperatorsAndTypes) {
  struct Case {
    const char *Op;
    Scalar T;
    std::vector<const char *> Want;
  };
  std::vector<Case> Cases = {
      {"*", Scalar::F32, {"return a * b;", "float acc = (float)1;"}},
      // fmax ignores NaN, so NaN is the identity of a floating max.
      {"max", Scalar::F32, {"return fmaxf(a, b);", "float acc = __int_as_float(0x7fc00000);"}},
      {"min", Scalar::F64,
       {"return fmin(a, b);", "double acc = __longlong_as_double(0x7ff8000000000000LL);"}},
      {"max", Scalar::I32, {"return a > b ? a : b;", "int acc = (-2147483647 - 1);"}},
      {"min", Scalar::U64, {"return a < b ? a : b;", "unsigned long long acc = 0xffffffffffffffffull;"}},
      // Signed integers wrap through their unsigned type.
      {"+", Scalar::I32, {"return (int)((unsigned int)a + (unsigned int)b);"}},
      {"*", Scalar::I64, {"return (long long)((unsigned long long)a * (unsigned long long)b);"}},
      {"+", Scalar::U32, {"return a + b;", "constexpr int VEC = 4;"}},
      {"+", Scalar::F64, {"constexpr int VEC = 2;", "double e[2];"}},
      // 16-bit types accumulate in float and round once.
      {"+", Scalar::F16,
       {"#include <cuda_fp16.h>", "constexpr int VEC = 8;", "__half e[8];",
        "acc = reduction_op(acc, __half2float(e[k]));", "out[0] = __float2half_rn(total);"}},
      {"max", Scalar::BF16,
       {"#include <cuda_bf16.h>", "__bfloat162float(in[i])", "out[0] = __float2bfloat16_rn(total);"}},
  };
  for (const Case &C : Cases) {
    SCOPED_TRACE(std::string(C.Op) + " " + scalarInfo(C.T).Dtype.str());
    Expected<Instance> I = instantiate(reduce(C.Op, C.T));
    ASSERT_TRUE(bool(I)) << err(I.takeError());
    for (const char *W : C.Want)
      EXPECT_TRUE(has(I->Source, W)) << W << "\n" << I->Source;
  }
}

TEST(ReductionTemplate, EveryFileScopeNameCarriesTheInstanceName) {
  Request R = reduce("argmin", Scalar::I64);
  R.Name = "lo";
  Expected<Instance> I = instantiate(R);
  ASSERT_TRUE(bool(I)) << err(I.takeError());
  for (const char *Decl :
       {"constexpr long long lo_none", "constexpr unsigned int lo_max_blocks",
        "bool lo_first(", "void lo_take(", "__device__ long long lo_partial[",
        "__device__ long long lo_partial_index[", "__device__ unsigned int lo_ticket;",
        "void lo_fold(", "void lo_warp_reduce(", "void lo_block_reduce(",
        "__launch_bounds__(BLOCK) lo(", "inline cudaError_t forge_lo("})
    EXPECT_TRUE(has(I->Source, Decl)) << Decl;
  EXPECT_FALSE(has(I->Source, "reduction_"));
}

TEST(ReductionTemplate, SamplesCoverTypesOperatorsAndSizes) {
  std::vector<Request> Samples = reductionSamples();
  ASSERT_GE(Samples.size(), 3u);
  std::set<std::string> Names, Ops, Types;
  bool Large = false, Odd = false;
  for (const Request &R : Samples) {
    EXPECT_TRUE(StringRef(R.Name).starts_with("reduction_")) << R.Name;
    Names.insert(R.Name);
    Ops.insert(R.Operator);
    Types.insert(scalarInfo(R.Type).Dtype.str());
    Large |= R.Shape[0] > 4 * 132 * 256 * 4;
    Odd |= R.Shape[0] % 4 != 0;
    EXPECT_LE(R.Shape[0], 8 << 20) << "the GPU check should run in seconds";
  }
  EXPECT_EQ(Names.size(), Samples.size());
  EXPECT_EQ(Ops, (std::set<std::string>{"+", "*", "max", "min", "argmax", "argmin"}));
  EXPECT_GE(Types.size(), 6u);
  EXPECT_TRUE(Large);
  EXPECT_TRUE(Odd);
}

/// The corners of the tuning space (and the 16-bit and 8-byte types)
/// compile without spilling.
TEST(ReductionTemplate, ConfigurationsCompileWithoutSpills) {
  Expected<build::CudaToolkit> TK = build::CudaToolkit::find();
  if (!TK)
    GTEST_SKIP() << "no CUDA toolkit: " << err(TK.takeError());
  std::string All;
  unsigned Want = 0;
  auto Add = [&](StringRef Name, StringRef Op, Scalar T) {
    Request R = reduce(Op, T);
    R.Name = Name.str();
    Expected<Instance> I = instantiateReduction(R);
    ASSERT_TRUE(bool(I)) << err(I.takeError());
    All += I->Source;
    StringRef Cuda = scalarInfo(T).Cuda;
    bool Arg = Op.starts_with("arg");
    for (auto [B, It] : {std::pair{1024, 8}, std::pair{128, 1}, std::pair{512, 16}}) {
      All += formatv("template __global__ void {0}<{1}, {2}>(const {3} *, {3} *, {4}long long);\n",
                     Name, B, It, Cuda, Arg ? "long long *, " : "")
                 .str();
      ++Want;
    }
    ++Want; // the wrapper's instantiation
  };
  Add("rsum", "+", Scalar::F32);
  Add("rargmax", "argmax", Scalar::F64);
  Add("rmin", "min", Scalar::BF16);
  Add("rprod", "*", Scalar::I64);
  Expected<test::CompileReport> P = test::compileForSm90(*TK, All, "forge-reduction");
  ASSERT_TRUE(bool(P)) << err(P.takeError());
  ASSERT_TRUE(P->Ok) << P->Stderr;
  EXPECT_EQ(P->Kernels.size(), Want) << P->Stderr;
  for (const test::PtxasKernel &K : P->Kernels) {
    EXPECT_EQ(K.SpillStores, 0u) << K.Entry;
    EXPECT_EQ(K.SpillLoads, 0u) << K.Entry;
    EXPECT_EQ(K.StackBytes, 0u) << K.Entry;
  }
}

} // namespace
