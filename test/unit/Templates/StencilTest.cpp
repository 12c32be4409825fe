//===- StencilTest.cpp - The stencil template ------------------------------===//
//
// What the stencil template refuses (and why), its spec (tunables,
// constraints, geometry, bytes and flops) for 1D, 2D, separable and 3D
// requests, the structure of its text (16-byte loads, the barriers, the
// ring of planes, the wrapper's launch), and, with a CUDA toolkit, that
// several configurations compile for sm_90 without spills and with the
// shared memory the spec's constraint counts.
//
//===----------------------------------------------------------------------===//
#include "CompileCheck.h"
#include "forge/Build/CudaToolkit.h"
#include "forge/Measure/IntExpr.h"
#include "forge/Measure/LaunchSpec.h"
#include "forge/Templates/Stencil.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include <gtest/gtest.h>

using namespace forge;
using namespace forge::templates;
using namespace llvm;

namespace {

std::string err(Error E) { return toString(std::move(E)); }

Request stencil(std::vector<int64_t> Shape, std::vector<int> Filter, Scalar T = Scalar::F32,
                StringRef Border = "clamp") {
  Request R;
  R.Kind = OpKind::Stencil;
  R.Type = T;
  R.Shape = std::move(Shape);
  R.Filter = std::move(Filter);
  R.Border = Border.str();
  return R;
}

size_t occurrences(StringRef Text, StringRef What) {
  size_t N = 0;
  for (size_t At = Text.find(What); At != StringRef::npos; At = Text.find(What, At + 1))
    ++N;
  return N;
}

std::string refusal(const Request &R) {
  Expected<Instance> I = instantiateStencil(R);
  if (I)
    return "(accepted)";
  return err(I.takeError());
}

/// The spec's shared-memory constraint (the last), without its bound.
std::string sharedExpr(const Json &Spec) {
  std::string C = Spec["constraints"].back().get<std::string>();
  StringRef S(C);
  EXPECT_TRUE(S.consume_back(" <= 49152")) << C;
  return S.str();
}

TEST(StencilTemplate, RefusalsSayWhy) {
  EXPECT_EQ(refusal(stencil({2, 3, 4, 5}, {3, 3, 3, 3})),
            "the stencil template takes 1, 2 or 3 extents ({n}, {height, width} or {depth, "
            "height, width}), not 4");
  EXPECT_EQ(refusal(stencil({100, 0}, {3, 3})), "a stencil: every extent must be positive, not 0");
  EXPECT_EQ(refusal(stencil({3000000000}, {3})),
            "the stencil template takes extents up to 2146435072, not 3000000000");
  EXPECT_EQ(refusal(stencil({100, 100}, {3, 3}, Scalar::F16)),
            "the stencil template takes f32 or f64 elements, not f16");
  EXPECT_EQ(refusal(stencil({100, 100}, {3, 3}, Scalar::I32)),
            "the stencil template takes f32 or f64 elements, not i32");
  EXPECT_EQ(refusal(stencil({100, 100}, {3})),
            "the stencil template needs a filter extent per axis: 2 for a 2D shape, not 1");
  EXPECT_EQ(refusal(stencil({100, 100}, {3, 4})),
            "the stencil template takes odd filter extents from 1 to 31, not 4");
  EXPECT_EQ(refusal(stencil({100, 100}, {33, 3})),
            "the stencil template takes odd filter extents from 1 to 31, not 33");
  EXPECT_EQ(refusal(stencil({100, 100}, {3, 3}, Scalar::F32, "wrap")),
            "the stencil template's border is 'clamp' or 'zero', not 'wrap'");
  Request R = stencil({10, 10, 10}, {3, 3, 3});
  R.Separable = true;
  EXPECT_EQ(refusal(R), "the stencil template's separable filter is 2D (a row and a column "
                        "pass), not 3D");
  // No tile of the 3D march fits: 16 planes of (32 + 16) x (2 + 14) doubles.
  EXPECT_EQ(refusal(stencil({64, 64, 64}, {15, 15, 15}, Scalar::F64)),
            "the stencil template's smallest tile and its halo for a 15x15x15 filter of f64 do "
            "not fit 49152 bytes of shared memory");
  // Through the catalog.
  EXPECT_EQ(err(instantiate(stencil({100, 100}, {3, 3}, Scalar::U8)).takeError()),
            "the stencil template takes f32 or f64 elements, not u8");
}

TEST(StencilTemplate, TwoDimensionalSpecAndText) {
  Request R = stencil({4096, 4096}, {3, 3});
  R.Description = "3x3 convolution of a 4096x4096 image";
  Expected<Instance> I = instantiate(R);
  ASSERT_TRUE(bool(I)) << err(I.takeError());
  EXPECT_EQ(I->Template, "stencil");
  EXPECT_EQ(I->Kernel, "stencil");
  EXPECT_EQ(I->Wrapper, "forge_stencil");
  const Json &S = I->Spec;
  EXPECT_EQ(S["template_args"], Json({"TX", "BY", "OY"}));
  EXPECT_EQ(S["grid"], Json({"ceil_div(W, TX)", "ceil_div(H, BY * OY)"}));
  EXPECT_EQ(S["block"], Json({"TX", "BY"}));
  EXPECT_EQ(S["args"], Json({"in", "w", "out", "height", "width"}));
  EXPECT_EQ(S["buffers"][1]["name"], "w");
  EXPECT_EQ(S["buffers"][1]["count"], "9");
  EXPECT_EQ(S["buffers"][1]["role"], "in");
  EXPECT_EQ(S["buffers"][2]["role"], "out");
  EXPECT_EQ(S["bytes"], "8 * H * W");
  EXPECT_EQ(S["flops"], "18 * H * W");
  EXPECT_EQ(sharedExpr(S), "((TX + 8) * (BY * OY + 2)) * 4 + 52");
  EXPECT_EQ(S["constraints"][0], "TX * BY <= 1024");

  Expected<measure::LaunchSpec> L = measure::parseLaunchSpec(S, "s.json");
  ASSERT_TRUE(bool(L)) << err(L.takeError());
  auto G = L->geometry({});
  ASSERT_TRUE(bool(G)) << err(G.takeError());
  EXPECT_EQ(G->Grid[0], 128);
  EXPECT_EQ(G->Grid[1], 64);
  EXPECT_EQ(G->Block[0], 32);
  EXPECT_EQ(G->Block[1], 8);
  auto Ok = L->satisfiesConstraints({});
  ASSERT_TRUE(bool(Ok));
  EXPECT_TRUE(*Ok);
  // Too many threads; too much shared memory ((128 + 8) * 258 * 4 bytes).
  for (const measure::ValueMap &Bad :
       std::vector<measure::ValueMap>{{{"TX", 128}, {"BY", 16}}, {{"TX", 128}, {"OY", 16}, {"BY", 16}},
                                      {{"TX", 128}, {"BY", 8}, {"OY", 16}}}) {
    auto C = L->satisfiesConstraints(Bad);
    ASSERT_TRUE(bool(C));
    EXPECT_FALSE(*C);
  }

  StringRef T = I->Source;
  EXPECT_NE(T.find("Asked for: \"3x3 convolution of a 4096x4096 image\""), StringRef::npos);
  EXPECT_NE(T.find("template <int TX, int BY, int OY>\n__global__ void __launch_bounds__(TX * BY) "
                   "stencil(const float *__restrict__ in,\n    const float *__restrict__ w, float "
                   "*__restrict__ out, int height, int width) {"),
            StringRef::npos);
  EXPECT_NE(T.find("namespace stencil_stencil {"), StringRef::npos);
  EXPECT_NE(T.find("constexpr int FH = 3, FW = 3;"), StringRef::npos);
  EXPECT_NE(T.find("constexpr int HL = 4;"), StringRef::npos);
  EXPECT_NE(T.find("constexpr bool ZERO = false;"), StringRef::npos);
  // 16-byte loads through the read-only cache, 16-byte shared stores.
  EXPECT_NE(T.find("const float4 q = __ldg(reinterpret_cast<const float4 *>(p));"),
            StringRef::npos);
  EXPECT_NE(T.find("*reinterpret_cast<float4 *>(p) = make_float4(v[0], v[1], v[2], v[3]);"),
            StringRef::npos);
  EXPECT_NE(T.find("aligned16(in) && width % VEC == 0 && x0 + TX <= width"), StringRef::npos);
  // One barrier; OY outputs a thread; each shared value read once.
  EXPECT_EQ(occurrences(T, "__syncthreads()"), 1u);
  EXPECT_NE(T.find("T acc[OY];"), StringRef::npos);
  EXPECT_NE(T.find("acc[k] += s_w[(r - k) * FW + dx] * v;"), StringRef::npos);
  // One launch with literal template arguments; no intermediate buffer.
  EXPECT_EQ(occurrences(T, "<<<"), 1u);
  EXPECT_EQ(T.find("cudaMalloc"), StringRef::npos);
  EXPECT_NE(T.find("inline cudaError_t forge_stencil(const float *in, const float *w, float *out,\n"
                   "    int height, int width,\n    cudaStream_t stream = 0) {"),
            StringRef::npos);
  EXPECT_NE(T.find("stencil<32, 8, 8><<<dim3((width + 31) / 32, (height + 63) / 64), dim3(32, 8), "
                   "0,\n      stream>>>(in, w, out, height, width);"),
            StringRef::npos);

  // The zero border and a wider filter: its radius and halo.
  R = stencil({513, 1030}, {5, 7}, Scalar::F32, "zero");
  R.Name = "z";
  I = instantiate(R);
  ASSERT_TRUE(bool(I)) << err(I.takeError());
  T = I->Source;
  EXPECT_NE(T.find("constexpr bool ZERO = true;"), StringRef::npos);
  EXPECT_NE(T.find("constexpr int FH = 5, FW = 7;"), StringRef::npos);
  EXPECT_NE(T.find("namespace z_stencil {"), StringRef::npos);
  EXPECT_EQ(I->Spec["flops"], "70 * H * W");
  EXPECT_EQ(sharedExpr(I->Spec), "((TX + 8) * (BY * OY + 4)) * 4 + 156");
}

TEST(StencilTemplate, DoublesAndLargeFiltersTakeSmallerTiles) {
  Request R = stencil({333, 1002}, {5, 5}, Scalar::F64);
  Expected<Instance> I = instantiateStencil(R);
  ASSERT_TRUE(bool(I)) << err(I.takeError());
  StringRef T = I->Source;
  EXPECT_NE(T.find("typedef double T;"), StringRef::npos);
  EXPECT_NE(T.find("constexpr int VEC = 2;"), StringRef::npos);
  EXPECT_NE(T.find("const double2 q = __ldg(reinterpret_cast<const double2 *>(p));"),
            StringRef::npos);
  EXPECT_NE(T.find("constexpr int HL = 2;"), StringRef::npos);
  EXPECT_EQ(I->Spec["bytes"], "16 * H * W");
  EXPECT_EQ(I->Spec["buffers"][0]["dtype"], "f64");

  // 31 x 31 doubles: the 32 x 64 tile with its halo (94 rows of 64) does not
  // fit, the 32 x 32 one (62 rows) does.
  R = stencil({1000, 1000}, {31, 31}, Scalar::F64);
  I = instantiateStencil(R);
  ASSERT_TRUE(bool(I)) << err(I.takeError());
  EXPECT_EQ(I->Spec["tunables"][1]["default"], 8);
  EXPECT_EQ(I->Spec["tunables"][2]["default"], 4);
  EXPECT_NE(I->Source.find("stencil<32, 8, 4><<<dim3((width + 31) / 32, (height + 31) / 32)"),
            std::string::npos);
  Expected<measure::LaunchSpec> L = measure::parseLaunchSpec(I->Spec, "l.json");
  ASSERT_TRUE(bool(L)) << err(L.takeError());
  auto Ok = L->satisfiesConstraints({});
  ASSERT_TRUE(bool(Ok));
  EXPECT_TRUE(*Ok);
  auto Big = L->satisfiesConstraints({{"BY", 8}, {"OY", 8}});
  ASSERT_TRUE(bool(Big));
  EXPECT_FALSE(*Big);
}

TEST(StencilTemplate, SeparableInOneLaunch) {
  Request R = stencil({4096, 4096}, {7, 7}, Scalar::F32, "zero");
  R.Separable = true;
  R.Name = "sep";
  Expected<Instance> I = instantiate(R);
  ASSERT_TRUE(bool(I)) << err(I.takeError());
  const Json &S = I->Spec;
  EXPECT_EQ(S["args"], Json({"in", "wr", "wc", "out", "height", "width"}));
  EXPECT_EQ(S["buffers"][1]["count"], "7");
  EXPECT_EQ(S["buffers"][2]["count"], "7");
  EXPECT_EQ(S["flops"], "28 * H * W");
  EXPECT_EQ(S["bytes"], "8 * H * W");
  EXPECT_EQ(sharedExpr(S), "((TX + 8) * (BY * OY + 6) + TX * (BY * OY + 6)) * 4 + 72");
  StringRef T = I->Source;
  // The row pass into shared memory, a barrier, the column pass.
  EXPECT_EQ(occurrences(T, "__syncthreads()"), 2u);
  EXPECT_NE(T.find("__shared__ T s_rows[ROWS * TX];"), StringRef::npos);
  EXPECT_NE(T.find("s_rows[r * TX + tx] = a;"), StringRef::npos);
  EXPECT_NE(T.find("acc[k] += s_w[FW + r - k] * v;"), StringRef::npos);
  EXPECT_EQ(T.find("constexpr int TAPS"), StringRef::npos);
  EXPECT_EQ(occurrences(T, "<<<"), 1u);
  EXPECT_EQ(T.find("cudaMalloc"), StringRef::npos);
  EXPECT_NE(T.find("inline cudaError_t forge_sep(const float *in, const float *wr, const float "
                   "*wc, float *out,\n    int height, int width,"),
            StringRef::npos);
  EXPECT_NE(T.find("stream>>>(in, wr, wc, out, height, width);"), StringRef::npos);
  EXPECT_NE(join(I->Notes, "\n").find("wr (the row pass"), std::string::npos);
}

TEST(StencilTemplate, ThreeDimensionalMarch) {
  Request R = stencil({256, 256, 256}, {3, 3, 3});
  R.Name = "vol";
  Expected<Instance> I = instantiate(R);
  ASSERT_TRUE(bool(I)) << err(I.takeError());
  const Json &S = I->Spec;
  EXPECT_EQ(S["template_args"], Json({"TX", "BY", "OY", "ZC"}));
  EXPECT_EQ(S["grid"], Json({"ceil_div(W, TX)", "ceil_div(H, BY * OY)", "ceil_div(D, ZC)"}));
  EXPECT_EQ(S["args"], Json({"in", "w", "out", "depth", "height", "width"}));
  EXPECT_EQ(S["sizes"]["D"], 256);
  EXPECT_EQ(S["buffers"][1]["count"], "27");
  EXPECT_EQ(S["flops"], "54 * D * H * W");
  EXPECT_EQ(S["bytes"], "8 * D * H * W");
  EXPECT_EQ(sharedExpr(S), "(4 * (TX + 8) * (BY * OY + 2)) * 4 + 124");
  Expected<measure::LaunchSpec> L = measure::parseLaunchSpec(S, "v.json");
  ASSERT_TRUE(bool(L)) << err(L.takeError());
  auto G = L->geometry({});
  ASSERT_TRUE(bool(G)) << err(G.takeError());
  EXPECT_EQ(G->Grid[0], 8);
  EXPECT_EQ(G->Grid[1], 8);
  EXPECT_EQ(G->Grid[2], 16);
  StringRef T = I->Source;
  EXPECT_NE(T.find("template <int TX, int BY, int OY, int ZC>"), StringRef::npos);
  EXPECT_NE(T.find("constexpr int NT = TX * BY, TH = BY * OY, SLOTS = FD + 1;"), StringRef::npos);
  // One barrier a plane: store the plane in flight, sync, load the next.
  EXPECT_EQ(occurrences(T, "__syncthreads()"), 1u);
  size_t Store = T.find("tile.store(s_in + ((j + FD - 1) % SLOTS) * PLANE, tid);");
  size_t Sync = T.find("__syncthreads();", Store);
  size_t Next = T.find("const int p = z + 1 + RZ;", Sync);
  size_t Math = T.find("acc[k] += s_w[(dz * FH + r - k) * FW + dx] * v;", Next);
  EXPECT_NE(Store, StringRef::npos);
  EXPECT_NE(Math, StringRef::npos);
  EXPECT_TRUE(Store < Sync && Sync < Next && Next < Math);
  EXPECT_NE(T.find("vol<32, 8, 4, 16><<<dim3((width + 31) / 32, (height + 31) / 32, (depth + 15) "
                   "/ 16),\n      dim3(32, 8), 0, stream>>>(in, w, out, depth, height, width);"),
            StringRef::npos);
}

TEST(StencilTemplate, OneDimensional) {
  Request R = stencil({1 << 24}, {7}, Scalar::F32, "zero");
  R.Name = "line";
  Expected<Instance> I = instantiate(R);
  ASSERT_TRUE(bool(I)) << err(I.takeError());
  const Json &S = I->Spec;
  EXPECT_EQ(S["template_args"], Json({"BLOCK", "ITEMS"}));
  EXPECT_EQ(S["grid"], "ceil_div(N, BLOCK * ITEMS)");
  EXPECT_EQ(S["block"], "BLOCK");
  EXPECT_EQ(S["args"], Json({"in", "w", "out", "n"}));
  EXPECT_EQ(S["flops"], "14 * N");
  EXPECT_EQ(sharedExpr(S), "(BLOCK * ITEMS + 8) * 4 + 44");
  StringRef T = I->Source;
  EXPECT_NE(T.find("constexpr int FW = 7;"), StringRef::npos);
  EXPECT_EQ(T.find("constexpr int FH"), StringRef::npos);
  EXPECT_NE(T.find("line<256, 8><<<(n + 2047) / 2048, 256, 0, stream>>>(in, w, out, n);"),
            StringRef::npos);
  EXPECT_NE(T.find("aligned16(in) && x0 + TILE <= n"), StringRef::npos);
}

/// The samples' defaults and a few other configurations (explicitly
/// instantiated) compile for sm_90; the defaults do not spill, and ptxas
/// reports the shared memory the spec's constraint counts (less its slack).
TEST(StencilTemplate, ConfigurationsCompileWithTheSharedMemoryTheSpecCounts) {
  Expected<build::CudaToolkit> TK = build::CudaToolkit::find();
  if (!TK)
    GTEST_SKIP() << "no CUDA toolkit: " << err(TK.takeError());
  struct Config {
    std::string Kernel;
    std::vector<int> Args;
    std::string Shared; // the spec's expression
    bool Default;
  };
  std::vector<Config> Configs;
  std::string All;
  auto Add = [&](Request R, std::vector<std::vector<int>> More) {
    Expected<Instance> I = instantiateStencil(R);
    ASSERT_TRUE(bool(I)) << err(I.takeError());
    All += I->Source;
    std::vector<int> Defaults;
    for (const Json &T : I->Spec["tunables"])
      Defaults.push_back(T["default"].get<int>());
    Configs.push_back({R.Name, Defaults, sharedExpr(I->Spec), true});
    StringRef Cuda = R.Type == Scalar::F64 ? "double" : "float";
    std::string Params = formatv("const {0} *, const {0} *, {1}{0} *, int", Cuda,
                                 R.Separable ? formatv("const {0} *, ", Cuda).str() : "")
                             .str();
    for (size_t K = 1; K < R.Shape.size(); ++K)
      Params += ", int";
    for (const std::vector<int> &A : More) {
      All += formatv("template __global__ void {0}<{1}>({2});\n", R.Name,
                     join(map_range(A, [](int V) { return std::to_string(V); }), ", "), Params)
                 .str();
      Configs.push_back({R.Name, A, sharedExpr(I->Spec), false});
    }
  };
  Request R = stencil({4096, 4096}, {7, 7});
  R.Name = "s7";
  Add(R, {{64, 4, 8}, {128, 1, 16}, {32, 16, 2}});
  R = stencil({4096, 4096}, {7, 7}, Scalar::F32, "zero");
  R.Separable = true;
  R.Name = "sp7";
  Add(R, {{64, 4, 4}, {32, 32, 1}});
  R = stencil({300, 300, 300}, {3, 5, 3}, Scalar::F64, "zero");
  R.Name = "v35";
  Add(R, {{64, 4, 2, 8}, {32, 16, 1, 64}});
  R = stencil({1 << 20}, {9}, Scalar::F64);
  R.Name = "l9";
  Add(R, {{1024, 1}, {64, 16}});

  Expected<test::CompileReport> P = test::compileForSm90(*TK, All, "forge-stencil");
  ASSERT_TRUE(bool(P)) << err(P.takeError());
  ASSERT_TRUE(P->Ok) << P->Stderr;
  // Each entry ("_Z2s7ILi64ELi4ELi8EEvPKfS1_Pfii") is one of Configs.
  unsigned Seen = 0;
  for (const test::PtxasKernel &K : P->Kernels) {
    const Config *Current = nullptr;
    for (const Config &C : Configs) {
      std::string Mangled = std::to_string(C.Kernel.size()) + C.Kernel + "I";
      for (int A : C.Args)
        Mangled += "Li" + std::to_string(A) + "E";
      if (StringRef(K.Entry).contains("_Z" + Mangled + "E"))
        Current = &C;
    }
    EXPECT_NE(Current, nullptr) << K.Entry;
    if (!Current)
      continue;
    if (Current->Default) {
      EXPECT_EQ(K.SpillStores, 0u) << Current->Kernel << " spills: " << K.Entry;
    }
    ++Seen;
    measure::ValueMap Env;
    const char *Names1D[] = {"BLOCK", "ITEMS"};
    const char *Names[] = {"TX", "BY", "OY", "ZC"};
    for (size_t I = 0; I < Current->Args.size(); ++I)
      Env[Current->Args.size() == 2 ? Names1D[I] : Names[I]] = Current->Args[I];
    Expected<measure::IntExpr> E = measure::IntExpr::parse(Current->Shared);
    ASSERT_TRUE(bool(E)) << err(E.takeError());
    Expected<int64_t> Want = E->evaluate(Env);
    ASSERT_TRUE(bool(Want)) << err(Want.takeError());
    EXPECT_LE(int64_t(K.SmemBytes), *Want) << Current->Kernel;
    EXPECT_GE(int64_t(K.SmemBytes) + 16, *Want) << Current->Kernel;
  }
  EXPECT_EQ(Seen, Configs.size()) << P->Stderr;
}

} // namespace
