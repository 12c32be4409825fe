//===- RowSoftmaxTest.cpp - The row-softmax template ----------------------===//
//
// What the row-softmax template refuses (and why), its spec (the grid of a
// warp or a block per row as the tunables decide, the defaults chosen for
// cols), the structure of its text (the three paths, the shuffle and block
// reductions, the online rescaling, 16-byte loads and stores when a row is
// aligned), and, with a CUDA toolkit, that the corners of its tuning space
// compile without spilling.
//
//===----------------------------------------------------------------------===//
#include "CompileCheck.h"
#include "forge/Measure/LaunchSpec.h"
#include "forge/Templates/RowSoftmax.h"
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

Request softmax(int64_t Rows, int64_t Cols, Scalar T = Scalar::F32) {
  Request R;
  R.Kind = OpKind::RowSoftmax;
  R.Type = T;
  R.Shape = {Rows, Cols};
  return R;
}

bool has(StringRef Text, StringRef What) { return Text.contains(What); }

std::map<std::string, int64_t> defaults(const Json &Spec) {
  std::map<std::string, int64_t> M;
  for (const Json &T : Spec["tunables"])
    M[T["name"]] = T["default"];
  return M;
}

TEST(RowSoftmaxTemplate, RefusalsSayWhy) {
  EXPECT_EQ(err(instantiate(softmax(10, 10, Scalar::F64)).takeError()),
            "the row-softmax template takes f32, f16 or bf16 elements, not f64");
  EXPECT_EQ(err(instantiateRowSoftmax(softmax(10, 10, Scalar::I32)).takeError()),
            "the row-softmax template takes f32, f16 or bf16 elements, not i32");
  Request R = softmax(10, 10);
  R.Shape = {100};
  EXPECT_EQ(err(instantiateRowSoftmax(R).takeError()), "a row softmax takes 2 extents, not 1");
  R.Shape = {10, 0};
  EXPECT_EQ(err(instantiateRowSoftmax(R).takeError()),
            "a row softmax: every extent must be positive, not 0");
  R.Shape = {3, int64_t(1) << 31};
  EXPECT_EQ(err(instantiateRowSoftmax(R).takeError()),
            "the row-softmax template takes int rows and columns (up to 2147483647), not 3 x "
            "2147483648");
  R = softmax(4, 4);
  R.Name = "soft.max";
  EXPECT_EQ(err(instantiateRowSoftmax(R).takeError()),
            "the kernel's name 'soft.max' is not a C identifier");
}

TEST(RowSoftmaxTemplate, SpecGridFollowsThePath) {
  Request R = softmax(4096, 1000);
  R.Name = "sm";
  Expected<Instance> I = instantiate(R);
  ASSERT_TRUE(bool(I)) << err(I.takeError());
  EXPECT_EQ(I->Template, "row-softmax");
  const Json &S = I->Spec;
  EXPECT_EQ(S["template_args"], Json({"BLOCK", "WARP_ITEMS", "ITEMS"}));
  std::vector<std::string> Args = S["args"];
  EXPECT_EQ(join(Args, ","), "in,out,rows,cols");
  EXPECT_EQ(S["buffers"][0]["count"], "R * C");
  EXPECT_EQ(S["scalars"][1]["dtype"], "i32");
  EXPECT_EQ(S["bytes"], "2 * 4 * R * C");
  // 1000 columns: a warp per row, 32 per lane, 4 rows a block of 128.
  EXPECT_EQ(defaults(S), (std::map<std::string, int64_t>{
                             {"BLOCK", 128}, {"WARP_ITEMS", 32}, {"ITEMS", 4}}));
  Expected<measure::LaunchSpec> L = measure::parseLaunchSpec(S, "sm.json");
  ASSERT_TRUE(bool(L)) << err(L.takeError());
  auto G = L->geometry({});
  ASSERT_TRUE(bool(G)) << err(G.takeError());
  EXPECT_EQ(G->Grid[0], 1024);
  EXPECT_EQ(G->Block[0], 128);
  // With fewer items per lane the rows no longer fit a warp: a block per row.
  G = L->geometry({{"WARP_ITEMS", 16}});
  ASSERT_TRUE(bool(G)) << err(G.takeError());
  EXPECT_EQ(G->Grid[0], 4096);
  // Every combination is valid: 1024 threads of 32 a thread fit 64
  // registers (ConfigurationsCompileWithoutSpills).
  EXPECT_FALSE(S.contains("constraints"));

  // Narrow rows of halves: the fewest registers that hold the row, and
  // WARP_ITEMS in whole 16-byte vectors (8 halves).
  I = instantiate(softmax(3001, 77, Scalar::F16));
  ASSERT_TRUE(bool(I)) << err(I.takeError());
  EXPECT_EQ(defaults(I->Spec), (std::map<std::string, int64_t>{
                                   {"BLOCK", 128}, {"WARP_ITEMS", 8}, {"ITEMS", 8}}));
  EXPECT_EQ(I->Spec["tunables"][1]["values"], Json({8, 16, 32}));
  // 5003 columns: a block of 256 per row, the row in registers.
  I = instantiate(softmax(129, 5003, Scalar::BF16));
  ASSERT_TRUE(bool(I)) << err(I.takeError());
  EXPECT_EQ(defaults(I->Spec), (std::map<std::string, int64_t>{
                                   {"BLOCK", 256}, {"WARP_ITEMS", 8}, {"ITEMS", 32}}));
  L = measure::parseLaunchSpec(I->Spec, "b.json");
  ASSERT_TRUE(bool(L)) << err(L.takeError());
  G = L->geometry({});
  ASSERT_TRUE(bool(G)) << err(G.takeError());
  EXPECT_EQ(G->Grid[0], 129);
  // 40001 columns: blocks of 1024, two passes over chunks of 16K.
  I = instantiate(softmax(33, 40001));
  ASSERT_TRUE(bool(I)) << err(I.takeError());
  EXPECT_EQ(defaults(I->Spec), (std::map<std::string, int64_t>{
                                   {"BLOCK", 1024}, {"WARP_ITEMS", 4}, {"ITEMS", 16}}));
  EXPECT_TRUE(has(I->Source, "For this request (40001 columns): a block per row, two passes"));
  ASSERT_GE(I->Notes.size(), 2u);
  EXPECT_TRUE(has(I->Notes[1], "read twice"));
}

TEST(RowSoftmaxTemplate, TheTextHasTheStructureItClaims) {
  Expected<Instance> I = instantiate(softmax(1000, 1000));
  ASSERT_TRUE(bool(I)) << err(I.takeError());
  const std::string &S = I->Source;
  EXPECT_TRUE(has(S, "template <int BLOCK, int WARP_ITEMS, int ITEMS>\n__global__ void "
                     "__launch_bounds__(BLOCK, 1) row_softmax(\n    const float *__restrict__ in, "
                     "float *__restrict__ out, int rows, int cols) {"));
  // The three paths, chosen by cols.
  EXPECT_TRUE(has(S, "if (cols <= 32 * WARP_ITEMS) {\n    // A warp per row."));
  EXPECT_TRUE(has(S, "if (cols <= BLOCK * ITEMS) {\n      // The row in registers."));
  EXPECT_TRUE(has(S, "// Online: each thread keeps the largest element m"));
  // Shuffles for a warp's row, shared memory for a block's.
  EXPECT_TRUE(has(S, "x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, d));"));
  EXPECT_TRUE(has(S, "x += __shfl_xor_sync(0xffffffffu, x, d);"));
  EXPECT_TRUE(has(S, "__shared__ float scratch[32];"));
  // The online rescaling, per chunk and to the row's maximum.
  EXPECT_TRUE(has(S, "if (cm != m)\n        s *= exp2f((m - cm) * 1.4426950408889634f);"));
  EXPECT_TRUE(has(S, "if (m != rm)\n      s *= exp2f((m - rm) * 1.4426950408889634f);"));
  // Masked (-inf) elements give exactly 0.
  EXPECT_TRUE(has(S, "return x == __int_as_float(0xff800000) ? 0.0f : exp2f((x - m) * "
                     "1.4426950408889634f);"));
  // 16-byte loads and stores when the row is aligned, checked per row.
  EXPECT_TRUE(has(S, "const bool vec = (((unsigned long long)src | (unsigned long long)dst) & "
                     "15u) == 0;"));
  EXPECT_TRUE(has(S, "const uint4 q = __ldg(reinterpret_cast<const uint4 *>(row + base));"));
  EXPECT_TRUE(has(S, "__stwb(reinterpret_cast<uint4 *>(row + base), q);"));
  // The wrapper: a warp per row up to 32 * WARP_ITEMS columns.
  EXPECT_TRUE(has(S, "inline cudaError_t forge_row_softmax(\n    const float *in, float *out, int "
                     "rows, int cols, cudaStream_t stream = 0) {"));
  EXPECT_TRUE(has(S, "const long long blocks = cols <= 1024 ? (rows + 4 - 1) / 4 : rows;"));
  EXPECT_TRUE(has(S, "row_softmax<128, 32, 4><<<(unsigned int)blocks, 128, 0, stream>>>"));

  I = instantiate(softmax(10, 100, Scalar::BF16));
  ASSERT_TRUE(bool(I)) << err(I.takeError());
  EXPECT_TRUE(has(I->Source, "#include <cuda_bf16.h>"));
  EXPECT_TRUE(has(I->Source, "v[j * VEC + k] = __bfloat162float(e[k]);"));
  EXPECT_TRUE(has(I->Source, "e[k] = __float2bfloat16_rn(v[j * VEC + k]);"));
  EXPECT_TRUE(has(I->Source, "constexpr int VEC = 8;"));
}

TEST(RowSoftmaxTemplate, SamplesCoverTypesAndPaths) {
  std::vector<Request> Samples = rowSoftmaxSamples();
  ASSERT_GE(Samples.size(), 3u);
  std::set<std::string> Names, Types, Paths;
  for (const Request &R : Samples) {
    EXPECT_TRUE(StringRef(R.Name).starts_with("row_softmax_")) << R.Name;
    Names.insert(R.Name);
    Types.insert(scalarInfo(R.Type).Dtype.str());
    Expected<Instance> I = instantiateRowSoftmax(R);
    ASSERT_TRUE(bool(I)) << err(I.takeError());
    for (const char *P : {"a warp per row", "a block per row, the row in registers",
                          "two passes"})
      if (has(I->Notes[0], P))
        Paths.insert(P);
    EXPECT_LE(R.Shape[0] * R.Shape[1], 8 << 20);
  }
  EXPECT_EQ(Names.size(), Samples.size());
  EXPECT_EQ(Types, (std::set<std::string>{"f32", "f16", "bf16"}));
  EXPECT_EQ(Paths.size(), 3u);
}

TEST(RowSoftmaxTemplate, ConfigurationsCompileWithoutSpills) {
  Expected<build::CudaToolkit> TK = build::CudaToolkit::find();
  if (!TK)
    GTEST_SKIP() << "no CUDA toolkit: " << err(TK.takeError());
  std::string All;
  unsigned Want = 0;
  auto Add = [&](StringRef Name, Scalar T, std::vector<std::array<int, 3>> Configs) {
    Request R = softmax(100, 1000, T);
    R.Name = Name.str();
    Expected<Instance> I = instantiateRowSoftmax(R);
    ASSERT_TRUE(bool(I)) << err(I.takeError());
    All += I->Source;
    for (auto [B, W, It] : Configs) {
      All += formatv("template __global__ void {0}<{1}, {2}, {3}>(const {4} *, {4} *, int, "
                     "int);\n",
                     Name, B, W, It, scalarInfo(T).Cuda)
                 .str();
      ++Want;
    }
    ++Want;
  };
  // The largest (1024 threads, 32 a thread), the smallest, and ones ptxas
  // spilled before __launch_bounds__ had its minimum of 1 block.
  Add("s32", Scalar::F32, {{1024, 32, 32}, {64, 4, 4}, {512, 32, 32}});
  Add("s16", Scalar::F16, {{1024, 32, 32}, {32, 8, 8}, {256, 8, 8}, {256, 16, 16}});
  Add("sbf", Scalar::BF16, {{256, 16, 32}});
  Expected<test::CompileReport> P = test::compileForSm90(*TK, All, "forge-row-softmax");
  ASSERT_TRUE(bool(P)) << err(P.takeError());
  ASSERT_TRUE(P->Ok) << P->Stderr;
  EXPECT_EQ(P->Kernels.size(), Want) << P->Stderr;
  for (const test::PtxasKernel &K : P->Kernels) {
    EXPECT_EQ(K.SpillStores, 0u) << K.Entry;
    EXPECT_EQ(K.StackBytes, 0u) << K.Entry;
  }
}

} // namespace
