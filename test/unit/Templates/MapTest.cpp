//===- MapTest.cpp - The map template -------------------------------------===//
//
// The map's expression checker (what it accepts, how it spells it again,
// what it refuses and why: the expression ends up in generated code), the
// instance's text (16-byte vectors behind a run-time alignment test, the
// element function, loads only of the inputs the expression reads), its
// spec, and, with a CUDA toolkit, that other configurations compile for
// sm_90 without spilling.
//
//===----------------------------------------------------------------------===//
#include "CompileCheck.h"
#include "forge/Build/CudaToolkit.h"
#include "forge/Measure/LaunchSpec.h"
#include "forge/Templates/Map.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include <gtest/gtest.h>
#include <set>

using namespace forge;
using namespace forge::templates;
using namespace llvm;

namespace {

std::string err(Error E) { return toString(std::move(E)); }

Request map(StringRef Expr, int Inputs, Scalar T = Scalar::F32, int64_t N = 1 << 20) {
  Request R;
  R.Kind = OpKind::Map;
  R.Type = T;
  R.Operator = Expr.str();
  R.Inputs = Inputs;
  R.Shape = {N};
  return R;
}

/// The refusal of Expr over Inputs inputs of type T ("" when accepted).
std::string refusal(StringRef Expr, int Inputs, Scalar T = Scalar::F32) {
  Expected<MapExpression> M = parseMapExpression(Expr, Inputs, T);
  return M ? "" : err(M.takeError());
}

/// The text the checker spells Expr as.
std::string spelt(StringRef Expr, int Inputs, Scalar T = Scalar::F32) {
  Expected<MapExpression> M = parseMapExpression(Expr, Inputs, T);
  return M ? M->Text : "refused: " + err(M.takeError());
}

TEST(MapExpression, AcceptedAndSpeltFromTheTokens) {
  EXPECT_EQ(spelt("a+b", 2), "a + b");
  EXPECT_EQ(spelt("2.5f * a + b", 2), "2.5f * a + b");
  EXPECT_EQ(spelt("sqrtf(fabsf(a))", 1), "sqrtf(fabsf(a))");
  EXPECT_EQ(spelt("a * b + c", 3), "a * b + c");
  EXPECT_EQ(spelt("fmaxf(a,-b)>0.5f?a:(b)", 2), "fmaxf(a, -b) > 0.5f ? a : (b)");
  EXPECT_EQ(spelt("- -a", 1), "-(-a)");
  EXPECT_EQ(spelt("a - -b", 2), "a - -b");
  EXPECT_EQ(spelt("1e-3f * a + .5 + 3.e+2 + 2E5", 1), "1e-3f * a + .5 + 3.e+2 + 2E5");
  EXPECT_EQ(spelt("fmaf(a, b, c) + d", 4), "fmaf(a, b, c) + d");
  EXPECT_EQ(spelt("\ta  &&  !b ", 2), "a && !b");
  // Integer types take %, shifts and bitwise operators, and hexadecimal.
  EXPECT_EQ(spelt("(a ^ b) + (c >> 2) % 0x10u", 3, Scalar::U32), "(a ^ b) + (c >> 2) % 0x10u");
  EXPECT_EQ(spelt("~a & 255", 1, Scalar::I32), "~a & 255");
  EXPECT_EQ(spelt("max(a, b) - min(a, 0)", 2, Scalar::I32), "max(a, b) - min(a, 0)");
  // No input at all is fine: a fill.
  EXPECT_EQ(spelt("1.0f", 1), "1.0f");
}

TEST(MapExpression, UsesAndOperations) {
  Expected<MapExpression> M = parseMapExpression("2.5f * a + b", 2, Scalar::F32);
  ASSERT_TRUE(bool(M)) << err(M.takeError());
  EXPECT_EQ(M->Uses, 3u);
  EXPECT_EQ(M->Operations, 2u);
  M = parseMapExpression("sqrtf(fabsf(c)) - -a", 4, Scalar::F32);
  ASSERT_TRUE(bool(M)) << err(M.takeError());
  EXPECT_EQ(M->Uses, 0b101u);
  EXPECT_EQ(M->Operations, 4u); // sqrtf, fabsf, -, unary -
  M = parseMapExpression("a > 0 ? a : +d", 4, Scalar::F32);
  ASSERT_TRUE(bool(M)) << err(M.takeError());
  EXPECT_EQ(M->Uses, 0b1001u);
  EXPECT_EQ(M->Operations, 2u); // >, ?: (unary + is free)
}

TEST(MapExpression, RefusalsSayWhy) {
  // What could escape into the generated code.
  EXPECT_EQ(refusal("a; system(\"rm\")", 1),
            "map expression 'a; system(\"rm\")': ';' is not allowed; a map expression holds only "
            "its inputs, numeric literals, operators, parentheses and calls of the allowed math "
            "functions (column 2)");
  EXPECT_EQ(refusal("a) + (a", 1),
            "map expression 'a) + (a': unexpected ')' after the expression (column 2)");
  EXPECT_EQ(refusal("a) { asm(\"trap;\"); } (a", 1).substr(0, 67),
            "map expression 'a) { asm(\"trap;\"); } (a': '{' is not allowed; a map");
  EXPECT_EQ(refusal("{a}", 1).substr(0, 41), "map expression '{a}': '{' is not allowed;");
  EXPECT_EQ(refusal("\"a\"", 1),
            "map expression '\"a\"': string and character literals are not allowed (column 1)");
  EXPECT_EQ(refusal("printf(\"%d\", a)", 1).substr(0, 79),
            "map expression 'printf(\"%d\", a)': string and character literals are not allowed");
  EXPECT_EQ(refusal("printf(a)", 1),
            "map expression 'printf(a)': 'printf' is neither an input (a) nor one of the math "
            "functions a map may call (docs/templates.md) (column 1)");
  EXPECT_EQ(refusal("a + out", 2), "map expression 'a + out': 'out' is neither an input (a, b) "
                                   "nor one of the math functions a map may call "
                                   "(docs/templates.md) (column 5)");
  EXPECT_EQ(refusal("a /* */", 1), "map expression 'a /* */': comments are not allowed (column 3)");
  EXPECT_EQ(refusal("a // x", 1), "map expression 'a // x': comments are not allowed (column 3)");
  EXPECT_EQ(refusal("a\nb", 2), "map expression 'a\nb': a map expression is one line (column 2)");
  EXPECT_NE(refusal("#define a", 1).find("'#' is not allowed"), std::string::npos);
  EXPECT_NE(refusal("a[0]", 1).find("'[' is not allowed"), std::string::npos);
  EXPECT_NE(refusal("a.x", 1).find("'.' is not allowed"), std::string::npos);
  EXPECT_NE(refusal("a\\", 1).find("'\\' is not allowed"), std::string::npos);
  EXPECT_NE(refusal("a\x01", 1).find("the byte 0x01 is not allowed"), std::string::npos);
  EXPECT_EQ(refusal("a = b", 2), "map expression 'a = b': assignments are not allowed (column 3)");
  EXPECT_EQ(refusal("a += 1", 1), "map expression 'a += 1': assignments are not allowed (column 3)");
  EXPECT_NE(refusal("a++", 1).find("'++' is not allowed"), std::string::npos);
  EXPECT_NE(refusal("__builtin_trap()", 1).find("'__builtin_trap' is neither an input"),
            std::string::npos);
  EXPECT_NE(refusal("(float)a", 1).find("'float' is neither an input"), std::string::npos);
  // Inputs, calls, arity.
  EXPECT_EQ(refusal("a + c", 2),
            "map expression 'a + c': 'c' is not an input: the map has 2 (a, b) (column 5)");
  EXPECT_EQ(refusal("sqrtf(a, b)", 2),
            "map expression 'sqrtf(a, b)': 'sqrtf' takes 1 argument, not 2 (column 1)");
  EXPECT_EQ(refusal("fmaf(a, b)", 2),
            "map expression 'fmaf(a, b)': 'fmaf' takes 3 arguments, not 2 (column 1)");
  EXPECT_EQ(refusal("sqrtf + a", 1), "map expression 'sqrtf + a': 'sqrtf' must be called (column 1)");
  EXPECT_EQ(refusal("a(b)", 2), "map expression 'a(b)': 'a' is an input, not a function (column 1)");
  // Floating types refuse the integer operators.
  EXPECT_EQ(refusal("a % b", 2),
            "map expression 'a % b': '%' needs integer operands; a f32 map computes in float "
            "(column 3)");
  EXPECT_EQ(refusal("a << 1", 1, Scalar::F64),
            "map expression 'a << 1': '<<' needs integer operands; a f64 map computes in double "
            "(column 3)");
  EXPECT_NE(refusal("~a", 1, Scalar::F16).find("'~' needs integer operands; a f16 map computes "
                                                "in float"),
            std::string::npos);
  // Syntax.
  EXPECT_EQ(refusal("a +", 1), "map expression 'a +': expected an operand at the end (column 4)");
  EXPECT_EQ(refusal("(a", 1), "map expression '(a': expected ')' (column 3)");
  EXPECT_EQ(refusal("a b", 2), "map expression 'a b': unexpected 'b' after the expression (column 3)");
  EXPECT_EQ(refusal("a ? b", 2), "map expression 'a ? b': expected ':' of '?:' (column 6)");
  EXPECT_EQ(refusal("* a", 1), "map expression '* a': expected an operand, not '*' (column 1)");
  EXPECT_NE(refusal("1e + a", 1).find("'1e' is not a numeric literal"), std::string::npos);
  EXPECT_NE(refusal("08 * a", 1).find("'08' is not a numeric literal"), std::string::npos);
  EXPECT_NE(refusal("1.5u * a", 1).find("'1.5u' is not a numeric literal"), std::string::npos);
  EXPECT_NE(refusal("1_km * a", 1).find("'1_km' is not a numeric literal"), std::string::npos);
  EXPECT_NE(refusal(std::string(100, '(') + "a" + std::string(100, ')'), 1)
                .find("nested more than 64 deep"),
            std::string::npos);
  EXPECT_EQ(refusal("  ", 1), "the map expression is empty; write one over a ('2.0f * a')");
  EXPECT_EQ(refusal("a", 5), "a map reads 1 to 4 inputs (a, b, c, d), not 5");
  EXPECT_EQ(refusal(std::string(3000, 'a'), 1),
            "the map expression is longer than 2000 characters");
}

TEST(MapTemplate, RefusalsSayWhy) {
  EXPECT_EQ(err(instantiateMap(map("a", 1, Scalar::I64)).takeError()),
            "the map template takes f32, f64, f16, bf16, i32 or u32 elements, not i64");
  EXPECT_EQ(err(instantiateMap(map("a", 1, Scalar::U8)).takeError()),
            "the map template takes f32, f64, f16, bf16, i32 or u32 elements, not u8");
  Request R = map("a + b", 2);
  R.Shape = {10, 10};
  EXPECT_EQ(err(instantiateMap(R).takeError()), "a map takes 1 extent, not 2");
  R.Shape = {0};
  EXPECT_EQ(err(instantiateMap(R).takeError()), "a map: every extent must be positive, not 0");
  R = map("a + b", 2);
  R.Name = "k(); void x";
  EXPECT_EQ(err(instantiateMap(R).takeError()), "the kernel's name 'k(); void x' is not a C identifier");
  // The catalog's dispatch gives the checker's message.
  EXPECT_EQ(err(instantiate(map("a; b", 2)).takeError()),
            "map expression 'a; b': ';' is not allowed; a map expression holds only its inputs, "
            "numeric literals, operators, parentheses and calls of the allowed math functions "
            "(column 2)");
}

TEST(MapTemplate, TheKernelTheElementFunctionAndTheWrapper) {
  Request R = map("2.5f*a+b", 2);
  R.Name = "axpy";
  Expected<Instance> I = instantiateMap(R);
  ASSERT_TRUE(bool(I)) << err(I.takeError());
  EXPECT_EQ(I->Template, "map");
  EXPECT_EQ(I->Kernel, "axpy");
  EXPECT_EQ(I->Wrapper, "forge_axpy");
  const std::string &S = I->Source;
  // The expression as parsed, in the element function.
  EXPECT_NE(S.find("__device__ __forceinline__ float axpy_element(const float a, const float b) "
                   "{\n  return (float)(2.5f * a + b);\n}"),
            std::string::npos)
      << S;
  // The user's spelling only in the opening comment.
  size_t Raw = S.find("2.5f*a+b");
  ASSERT_NE(Raw, std::string::npos);
  EXPECT_EQ(S.find("2.5f*a+b", Raw + 1), std::string::npos);
  EXPECT_EQ(S.substr(S.rfind('\n', Raw) + 1, 13), "// Computes: ");
  EXPECT_NE(S.find("template <int BLOCK, int ITEMS>\n__global__ void __launch_bounds__(BLOCK) "
                   "axpy(\n    const float *__restrict__ a,\n    const float *__restrict__ b,\n"
                   "    float *__restrict__ out, long long n) {"),
            std::string::npos)
      << S;
  // 16-byte vectors behind the run-time alignment test of every pointer.
  EXPECT_NE(S.find("const bool fm_aligned = (((unsigned long long)a | (unsigned long long)b |"),
            std::string::npos);
  EXPECT_NE(S.find("(unsigned long long)out) & 15ull) == 0;"), std::string::npos);
  EXPECT_NE(S.find("fm_av[fm_k] = __ldg(reinterpret_cast<const uint4 *>(a) + fm_v);"),
            std::string::npos);
  EXPECT_NE(S.find("fm_bv[fm_k] = __ldg(reinterpret_cast<const uint4 *>(b) + fm_v);"),
            std::string::npos);
  EXPECT_NE(S.find("reinterpret_cast<uint4 *>(out)[fm_v] = fm_w;"), std::string::npos);
  // The tail after the last vector, and the scalar loop.
  EXPECT_NE(S.find("const long long fm_i = fm_vectors * VEC + (long long)blockIdx.x * BLOCK + "
                   "threadIdx.x;"),
            std::string::npos);
  EXPECT_NE(S.find("fm_as[fm_k] = __ldg(a + fm_i);"), std::string::npos);
  // The wrapper launches the default configuration with literal arguments.
  EXPECT_NE(S.find("inline cudaError_t forge_axpy(const float *a,\n"
                   "                              const float *b,\n"
                   "                              float *out, long long n, cudaStream_t stream = 0)"),
            std::string::npos)
      << S;
  // The wrapper's constants are the spec's tunables, the grid computed from
  // them inside the launch (so that tune's write-back reaches it).
  EXPECT_NE(S.find("  constexpr int BLOCK = 256, ITEMS = 4, WAVES = 8;\n"
                   "  constexpr long long VEC = 16 / sizeof(float);"),
            std::string::npos);
  EXPECT_NE(S.find("  axpy<BLOCK, ITEMS><<<\n"
                   "      (unsigned)((n + BLOCK * ITEMS * VEC - 1) / (BLOCK * ITEMS * VEC) < "
                   "(long long)sms * WAVES\n"),
            std::string::npos)
      << S;
  EXPECT_NE(S.find("      BLOCK, 0, stream>>>(a, b, out, n);"), std::string::npos);
  EXPECT_NE(S.find("cudaDevAttrMultiProcessorCount"), std::string::npos);
}

TEST(MapTemplate, HalfPrecisionComputesInFloat) {
  Request R = map("sqrtf(fabsf(a))", 1, Scalar::F16);
  R.Name = "h";
  Expected<Instance> I = instantiateMap(R);
  ASSERT_TRUE(bool(I)) << err(I.takeError());
  EXPECT_NE(I->Source.find("#include <cuda_fp16.h>"), std::string::npos);
  EXPECT_NE(I->Source.find("__device__ __forceinline__ __half h_element(const __half fm_a) {\n"
                           "  const float a = __half2float(fm_a);\n"
                           "  return __float2half_rn((float)(sqrtf(fabsf(a))));\n}"),
            std::string::npos)
      << I->Source;
  R.Type = Scalar::BF16;
  I = instantiateMap(R);
  ASSERT_TRUE(bool(I)) << err(I.takeError());
  EXPECT_NE(I->Source.find("#include <cuda_bf16.h>"), std::string::npos);
  EXPECT_NE(I->Source.find("__float2bfloat16_rn((float)(sqrtf(fabsf(a))))"), std::string::npos);
  EXPECT_EQ(I->Spec["grid"], "min(SMS * WAVES, ceil_div(N, BLOCK * ITEMS * 8))");
}

TEST(MapTemplate, InputsTheExpressionDoesNotReadAreNeverLoaded) {
  Request R = map("a * a", 3);
  R.Name = "sq";
  Expected<Instance> I = instantiateMap(R);
  ASSERT_TRUE(bool(I)) << err(I.takeError());
  EXPECT_EQ(I->Source.find("__ldg(b"), std::string::npos);
  EXPECT_EQ(I->Source.find("__ldg(reinterpret_cast<const uint4 *>(c)"), std::string::npos);
  EXPECT_EQ(I->Source.find("(unsigned long long)b"), std::string::npos);
  // They stay parameters, in order.
  EXPECT_NE(I->Source.find("      BLOCK, 0, stream>>>(a, b, c, out, n);"),
            std::string::npos);
  EXPECT_EQ(I->Spec["args"], Json({"a", "b", "c", "out", "n"}));
  EXPECT_EQ(I->Spec["bytes"], "2 * 4 * N");
  EXPECT_EQ(I->Spec["constraints"], Json({"BLOCK * ITEMS * 1 <= 8192"}));
  ASSERT_FALSE(I->Notes.empty());
  EXPECT_EQ(I->Notes[0], "the expression reads 1 of the 3 inputs: the others are never loaded");
}

TEST(MapTemplate, SpecTunablesConstraintsAndGeometry) {
  Request R = map("a * b + c", 3, Scalar::F64, 1000003);
  R.Name = "fma3";
  R.SMs = 132;
  Expected<Instance> I = instantiateMap(R);
  ASSERT_TRUE(bool(I)) << err(I.takeError());
  const Json &J = I->Spec;
  EXPECT_EQ(J["template_args"], Json({"BLOCK", "ITEMS"}));
  EXPECT_EQ(J["grid"], "min(SMS * WAVES, ceil_div(N, BLOCK * ITEMS * 2))");
  EXPECT_EQ(J["block"], "BLOCK");
  EXPECT_EQ(J["bytes"], "4 * 8 * N");
  EXPECT_EQ(J["flops"], "2 * N");
  EXPECT_EQ(J["constraints"], Json({"BLOCK * ITEMS * 3 <= 8192"}));
  ASSERT_EQ(J["buffers"].size(), 4u);
  EXPECT_EQ(J["buffers"][3]["role"], "out");
  EXPECT_EQ(J["scalars"][0]["dtype"], "i64");
  Expected<measure::LaunchSpec> S = measure::parseLaunchSpec(J, "fma3.json");
  ASSERT_TRUE(bool(S)) << err(S.takeError());
  ASSERT_EQ(S->Tunables.size(), 3u);
  EXPECT_EQ(S->Tunables[0].Name, "BLOCK");
  EXPECT_EQ(S->Tunables[0].defaultValue(), 256);
  EXPECT_EQ(S->Tunables[1].Name, "ITEMS");
  EXPECT_EQ(S->Tunables[1].defaultValue(), 4);
  EXPECT_EQ(S->Tunables[2].Name, "WAVES");
  EXPECT_EQ(S->Tunables[2].defaultValue(), 8);
  // 1000003 doubles: 500001 vectors, 489 blocks of 256 * 4 at the defaults.
  auto G = S->geometry({});
  ASSERT_TRUE(bool(G)) << err(G.takeError());
  EXPECT_EQ(G->Grid[0], 489);
  // More: WAVES blocks per SM.
  G = S->geometry({{"N", 1 << 26}});
  ASSERT_TRUE(bool(G)) << err(G.takeError());
  EXPECT_EQ(G->Grid[0], 132 * 8);
  EXPECT_EQ(G->Block[0], 256);
  // A small n: one block per BLOCK * ITEMS vectors.
  G = S->geometry({{"N", 5000}, {"BLOCK", 128}, {"ITEMS", 2}});
  ASSERT_TRUE(bool(G)) << err(G.takeError());
  EXPECT_EQ(G->Grid[0], 10); // ceil(5000 / (128 * 2 * 2))
  auto C = S->satisfiesConstraints({{"BLOCK", 1024}, {"ITEMS", 8}});
  ASSERT_TRUE(bool(C));
  EXPECT_FALSE(*C); // 4 vectors of 3 inputs a thread at 1024 threads: too many registers
  C = S->satisfiesConstraints({{"BLOCK", 512}, {"ITEMS", 4}});
  ASSERT_TRUE(bool(C));
  EXPECT_TRUE(*C);
  // Integer maps count no flops.
  I = instantiateMap(map("a * b + c", 3, Scalar::I32));
  ASSERT_TRUE(bool(I)) << err(I.takeError());
  EXPECT_EQ(I->Spec["flops"], "0");
  EXPECT_EQ(I->Spec["grid"], "min(SMS * WAVES, ceil_div(N, BLOCK * ITEMS * 4))");
}

TEST(MapTemplate, SamplesCoverTypesInputsAndOddSizes) {
  std::vector<Request> Samples = mapSamples();
  ASSERT_GE(Samples.size(), 3u);
  std::set<Scalar> Types;
  std::set<int> Inputs;
  bool Large = false;
  for (const Request &R : Samples) {
    EXPECT_TRUE(StringRef(R.Name).starts_with("map_")) << R.Name;
    EXPECT_NE(R.Shape[0] % 4, 0) << R.Name;
    Types.insert(R.Type);
    Inputs.insert(R.Inputs);
    Large |= R.Shape[0] > 132 * 8 * 256 * 4 * 4;
  }
  EXPECT_EQ(Types.size(), 6u);
  EXPECT_EQ(Inputs.size(), 4u);
  EXPECT_TRUE(Large) << "no sample runs several passes of a full grid";
}

/// Other configurations than the wrapper's, explicitly instantiated, compile
/// for sm_90 without spills (the spec's constraint keeps the registers in
/// bounds).
TEST(MapTemplate, ConfigurationsCompileWithoutSpills) {
  Expected<build::CudaToolkit> TK = build::CudaToolkit::find();
  if (!TK)
    GTEST_SKIP() << "no CUDA toolkit: " << err(TK.takeError());
  std::string All;
  auto Add = [&](StringRef Name, StringRef Expr, int Inputs, Scalar T,
                 std::vector<std::pair<int, int>> Configs) {
    Request R = map(Expr, Inputs, T);
    R.Name = Name.str();
    Expected<Instance> I = instantiateMap(R);
    ASSERT_TRUE(bool(I)) << err(I.takeError());
    All += I->Source;
    std::string Ty = scalarInfo(T).Cuda.str();
    std::string Params;
    for (int K = 0; K < Inputs; ++K)
      Params += "const " + Ty + " *, ";
    for (auto [Block, Items] : Configs) {
      ASSERT_LE(Block * Items * Inputs, 8192);
      All += formatv("template __global__ void {0}<{1}, {2}>({3}{4} *, long long);\n", Name,
                     Block, Items, Params, Ty)
                 .str();
    }
  };
  Add("m4", "fmaf(a, b, c) * d", 4, Scalar::F64, {{256, 8}, {512, 4}, {1024, 2}});
  Add("m1", "expf(a)", 1, Scalar::F32, {{1024, 8}, {128, 1}});
  Add("mh", "a * b + c", 3, Scalar::BF16, {{512, 4}, {128, 8}});
  Expected<test::CompileReport> P = test::compileForSm90(*TK, All, "forge-map");
  ASSERT_TRUE(bool(P)) << err(P.takeError());
  ASSERT_TRUE(P->Ok) << P->Stderr;
  // The three wrappers' configurations and the seven explicit ones.
  EXPECT_EQ(test::expectNoSpills(*P), 10u) << P->Stderr;
}

} // namespace
