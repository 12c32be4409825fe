//===- LaunchSpecTest.cpp - Launch spec parsing, checks and round trip ----===//
#include "forge/Measure/LaunchSpec.h"
#include "forge/Support/Error.h"
#include "llvm/ADT/StringExtras.h"
#include "gtest/gtest.h"

using namespace forge;
using namespace forge::measure;

namespace {

const std::string Inputs = FORGE_MEASURE_TEST_INPUTS;

Json saxpyJson() {
  auto J = readJsonFile(Inputs + "/saxpy.json");
  if (!J) {
    ADD_FAILURE() << llvm::toString(J.takeError());
    return Json::object();
  }
  return *J;
}

LaunchSpec saxpy() {
  auto S = readLaunchSpec(Inputs + "/saxpy.json");
  if (!S) {
    ADD_FAILURE() << llvm::toString(S.takeError());
    return LaunchSpec();
  }
  return std::move(*S);
}

/// The whole error message for J, "" when it parses; marks non-usage errors.
std::string errorsOf(const Json &J) {
  auto S = parseLaunchSpec(J, "spec.json");
  if (S)
    return "";
  std::string Msg;
  llvm::handleAllErrors(S.takeError(), [&](const llvm::ErrorInfoBase &E) {
    Msg = (E.isA<UsageError>() ? "" : "(not a usage error) ") + E.message();
  });
  return Msg;
}

std::string fileErrors(llvm::StringRef Name) {
  auto S = readLaunchSpec(Inputs + "/" + Name.str());
  if (S)
    return "";
  std::string Msg;
  llvm::handleAllErrors(S.takeError(), [&](const llvm::ErrorInfoBase &E) {
    Msg = (E.isA<UsageError>() ? "" : "(not a usage error) ") + E.message();
  });
  return Msg;
}

//===----------------------------------------------------------------------===//
// The valid saxpy spec
//===----------------------------------------------------------------------===//

TEST(LaunchSpec, SaxpyFields) {
  LaunchSpec S = saxpy();
  EXPECT_EQ(S.Kernel, "saxpy");
  EXPECT_EQ(S.Origin, Inputs + "/saxpy.json");
  ASSERT_EQ(S.Sizes.size(), 1u);
  EXPECT_EQ(S.Sizes[0].first, "N");
  EXPECT_EQ(S.Sizes[0].second, 1 << 20);
  EXPECT_EQ(S.Args, (std::vector<std::string>{"n", "a", "x", "y"}));

  ASSERT_EQ(S.Buffers.size(), 2u);
  const Buffer *X = S.findBuffer("x");
  ASSERT_NE(X, nullptr);
  EXPECT_EQ(X->Type, DType::F32);
  EXPECT_EQ(X->Role, BufferRole::In);
  EXPECT_EQ(X->Count.text(), "N");
  ASSERT_TRUE(X->Init.has_value());
  EXPECT_EQ(X->Init->Kind, InitKind::Uniform);
  EXPECT_EQ(X->Init->Min, -1.0);
  EXPECT_EQ(X->Init->Max, 1.0);
  const Buffer *Y = S.findBuffer("y");
  ASSERT_NE(Y, nullptr);
  EXPECT_EQ(Y->Role, BufferRole::InOut);
  EXPECT_EQ(Y->Init->Kind, InitKind::Normal);

  ASSERT_EQ(S.Scalars.size(), 2u);
  ASSERT_TRUE(std::holds_alternative<IntExpr>(S.Scalars[0].Value));
  EXPECT_EQ(std::get<IntExpr>(S.Scalars[0].Value).text(), "N");
  ASSERT_TRUE(std::holds_alternative<double>(S.Scalars[1].Value));
  EXPECT_EQ(std::get<double>(S.Scalars[1].Value), 2.5);

  const Tunable *Block = S.findTunable("BLOCK");
  ASSERT_NE(Block, nullptr);
  EXPECT_EQ(Block->Values, (std::vector<int64_t>{128, 256, 512}));
  EXPECT_EQ(Block->defaultValue(), 256);
  ASSERT_EQ(S.Constraints.size(), 1u);
  EXPECT_EQ(S.Constraints[0].text(), "BLOCK % 32 == 0");
  ASSERT_TRUE(S.Bytes && S.Flops);
  EXPECT_EQ(S.Bytes->text(), "3 * 4 * N");
  EXPECT_FALSE(S.AllowLowerPrecision);
}

TEST(LaunchSpec, SaxpyGeometry) {
  LaunchSpec S = saxpy();
  auto G = S.geometry({{"BLOCK", 256}, {"N", 1 << 20}});
  ASSERT_TRUE(bool(G)) << llvm::toString(G.takeError());
  EXPECT_EQ(G->Grid, (std::array<int64_t, 3>{4096, 1, 1}));
  EXPECT_EQ(G->Block, (std::array<int64_t, 3>{256, 1, 1}));
  EXPECT_EQ(G->SharedMemBytes, 0);

  // A size that does not divide evenly rounds the grid up.
  auto G2 = S.geometry({{"BLOCK", 512}, {"N", 1000}});
  ASSERT_TRUE(bool(G2)) << llvm::toString(G2.takeError());
  EXPECT_EQ(G2->Grid[0], 2);
  EXPECT_EQ(G2->Block[0], 512);

  // Defaults: N from sizes, BLOCK from its default (256).
  auto G3 = S.geometry({});
  ASSERT_TRUE(bool(G3)) << llvm::toString(G3.takeError());
  EXPECT_EQ(G3->Grid[0], 4096);
}

TEST(LaunchSpec, GeometryErrors) {
  LaunchSpec S = saxpy();
  auto Unknown = S.geometry({{"WARPS", 4}});
  ASSERT_FALSE(bool(Unknown));
  EXPECT_EQ(llvm::toString(Unknown.takeError()),
            "unknown size or tunable 'WARPS' (known: N, BLOCK)");
  auto TooBig = S.geometry({{"BLOCK", 2048}});
  ASSERT_FALSE(bool(TooBig));
  EXPECT_EQ(llvm::toString(TooBig.takeError()),
            "$.block: x = 2048 exceeds the limit of 1024");
  auto Zero = S.geometry({{"BLOCK", 0}});
  ASSERT_FALSE(bool(Zero));
  EXPECT_EQ(llvm::toString(Zero.takeError()),
            "$.grid: division by zero at column 1 in 'ceil_div(N, BLOCK)'");
  auto Empty = S.geometry({{"N", 0}});
  ASSERT_FALSE(bool(Empty));
  EXPECT_EQ(llvm::toString(Empty.takeError()),
            "$.grid: 'ceil_div(N, BLOCK)' evaluates to 0; a launch dimension "
            "must be at least 1");
}

TEST(LaunchSpec, Constraints) {
  LaunchSpec S = saxpy();
  for (int64_t B : {128, 256, 512}) {
    auto Ok = S.satisfiesConstraints({{"BLOCK", B}});
    ASSERT_TRUE(bool(Ok)) << llvm::toString(Ok.takeError());
    EXPECT_TRUE(*Ok) << B;
  }
  auto Bad = S.satisfiesConstraints({{"BLOCK", 96 + 1}});
  ASSERT_TRUE(bool(Bad)) << llvm::toString(Bad.takeError());
  EXPECT_FALSE(*Bad);
}

TEST(LaunchSpec, BytesTolerancesAndScalars) {
  LaunchSpec S = saxpy();
  auto XBytes = S.bufferBytes(*S.findBuffer("x"));
  ASSERT_TRUE(bool(XBytes)) << llvm::toString(XBytes.takeError());
  EXPECT_EQ(*XBytes, 4u << 20);
  auto Small = S.bufferBytes(*S.findBuffer("x"), {{"N", 10}});
  ASSERT_TRUE(bool(Small)) << llvm::toString(Small.takeError());
  EXPECT_EQ(*Small, 40u);

  // x falls back to the spec-wide tolerance, y has its own.
  EXPECT_EQ(S.toleranceFor(*S.findBuffer("x")).RelL2, 1e-5);
  EXPECT_EQ(S.toleranceFor(*S.findBuffer("y")).RelL2, 1e-6);
  EXPECT_FALSE(S.toleranceFor(*S.findBuffer("y")).MaxAbs.has_value());

  auto N = S.scalarValue(*S.findScalar("n"));
  ASSERT_TRUE(bool(N)) << llvm::toString(N.takeError());
  EXPECT_EQ(std::get<int64_t>(*N), 1 << 20);
  auto A = S.scalarValue(*S.findScalar("a"));
  ASSERT_TRUE(bool(A)) << llvm::toString(A.takeError());
  EXPECT_EQ(std::get<double>(*A), 2.5);
  // n is an int: a size past INT32_MAX must not be truncated silently.
  auto Big = S.scalarValue(*S.findScalar("n"), {{"N", int64_t(1) << 31}});
  ASSERT_FALSE(bool(Big));
  EXPECT_EQ(llvm::toString(Big.takeError()),
            "scalar 'n': 2147483648 is out of range for dtype 'i32'");
}

TEST(LaunchSpec, DTypes) {
  EXPECT_EQ(dtypeSize(DType::F16), 2u);
  EXPECT_EQ(dtypeSize(DType::BF16), 2u);
  EXPECT_EQ(dtypeSize(DType::F32), 4u);
  EXPECT_EQ(dtypeSize(DType::F64), 8u);
  EXPECT_EQ(dtypeSize(DType::I8), 1u);
  EXPECT_EQ(dtypeSize(DType::U64), 8u);
  EXPECT_EQ(parseDType("bf16"), DType::BF16);
  EXPECT_EQ(parseDType("float"), std::nullopt);
  EXPECT_EQ(dtypeName(DType::U32), "u32");
  EXPECT_EQ(defaultTolerance(DType::F32).RelL2, 1e-5);
  EXPECT_EQ(defaultTolerance(DType::F64).RelL2, 1e-12);
  EXPECT_EQ(defaultTolerance(DType::F16).RelL2, 1e-2);
  EXPECT_EQ(defaultTolerance(DType::BF16).RelL2, 1e-2);
  EXPECT_EQ(defaultTolerance(DType::I32).MaxAbs, 0.0);
}

TEST(LaunchSpec, RoundTrip) {
  Json Original = saxpyJson();
  LaunchSpec S = saxpy();
  Json Written = toJson(S);
  // The fixture is written in canonical form, so nothing may change.
  EXPECT_EQ(Written, Original) << Written.dump(2);
  auto Again = parseLaunchSpec(Written, "round-trip");
  ASSERT_TRUE(bool(Again)) << llvm::toString(Again.takeError());
  EXPECT_EQ(toJson(*Again), Written);
}

TEST(LaunchSpec, RoundTripOfEveryInitKindAndMultiDimGeometry) {
  Json J = saxpyJson();
  J["template_args"] = {"float", "4"};
  J["buffers"][0]["init"] = {{"kind", "constant"}, {"value", 3.0}};
  J["buffers"][1]["init"] = {{"kind", "file"}, {"path", "y.bin"}};
  J["buffers"].push_back({{"name", "idx"},
                          {"dtype", "i32"},
                          {"count", "N"},
                          {"init", {{"kind", "iota"}}},
                          {"role", "in"}});
  J["buffers"].push_back({{"name", "out"},
                          {"dtype", "f16"},
                          {"count", "N / 2"},
                          {"role", "out"},
                          {"tolerance", {{"max_abs", 0.5}}}});
  J["args"] = {"n", "a", "x", "y", "idx", "out"};
  J["grid"] = {"ceil_div(N, BLOCK)", "2", "1"};
  J["block"] = {"BLOCK", "1"};
  J["shared_mem"] = "BLOCK * 4";
  J["tunables"][0].erase("default");
  J["tunables"].push_back({{"name", "ITEMS"}, {"values", {1, 2, 4}}});
  J["constraints"].push_back("BLOCK * ITEMS <= 1024");
  J.erase("tolerance");
  J["allow_lower_precision"] = true;
  auto S = parseLaunchSpec(J, "multi.json");
  ASSERT_TRUE(bool(S)) << llvm::toString(S.takeError());
  // Compared without key order: template_args was added last to J.
  EXPECT_EQ(nlohmann::json::parse(toJson(*S).dump()),
            nlohmann::json::parse(J.dump()))
      << toJson(*S).dump(2);

  auto G = S->geometry({{"BLOCK", 128}, {"N", 1024}});
  ASSERT_TRUE(bool(G)) << llvm::toString(G.takeError());
  EXPECT_EQ(G->Grid, (std::array<int64_t, 3>{8, 2, 1}));
  EXPECT_EQ(G->Block, (std::array<int64_t, 3>{128, 1, 1}));
  EXPECT_EQ(G->SharedMemBytes, 512);
  EXPECT_EQ(S->findTunable("BLOCK")->defaultValue(), 128);
  auto C = S->satisfiesConstraints({{"BLOCK", 512}, {"ITEMS", 4}});
  ASSERT_TRUE(bool(C)) << llvm::toString(C.takeError());
  EXPECT_FALSE(*C);
  // f16 output with only max_abs set keeps the f16 rel_l2 default.
  Tolerance T = S->toleranceFor(*S->findBuffer("out"));
  EXPECT_EQ(T.RelL2, 1e-2);
  EXPECT_EQ(T.MaxAbs, 0.5);
}

//===----------------------------------------------------------------------===//
// Malformed specs: every error names its JSON path
//===----------------------------------------------------------------------===//

TEST(LaunchSpecErrors, BadRole) {
  Json J = saxpyJson();
  J["buffers"][1]["role"] = "input";
  EXPECT_EQ(errorsOf(J), "spec.json: $.buffers[1].role: expected one of "
                         "\"in\", \"out\", \"inout\", got \"input\"");
}

TEST(LaunchSpecErrors, UnknownIdentifierInGrid) {
  Json J = saxpyJson();
  J["grid"] = {"ceil_div(M, BLOCK)"};
  EXPECT_EQ(errorsOf(J), "spec.json: $.grid[0]: unknown identifier 'M' "
                         "(known: N, BLOCK)");
}

TEST(LaunchSpecErrors, SyntaxErrorInBlock) {
  Json J = saxpyJson();
  J["block"] = "(BLOCK";
  EXPECT_EQ(errorsOf(J),
            "spec.json: $.block: expected ')' at column 7 in '(BLOCK'");
}

TEST(LaunchSpecErrors, MissingRequiredFields) {
  Json J = saxpyJson();
  J.erase("kernel");
  J.erase("grid");
  J["buffers"][0].erase("count");
  EXPECT_EQ(errorsOf(J), "spec.json: $.kernel: missing required field\n"
                         "spec.json: $.buffers[0].count: missing required "
                         "field\n"
                         "spec.json: $.grid: missing required field");
}

TEST(LaunchSpecErrors, DuplicateNames) {
  Json J = saxpyJson();
  J["buffers"][1]["name"] = "x";
  J["sizes"]["BLOCK"] = 4;
  EXPECT_EQ(errorsOf(J),
            "spec.json: $.tunables[0].name: duplicate name \"BLOCK\" among "
            "sizes and tunables\n"
            "spec.json: $.buffers[1].name: duplicate name \"x\" among "
            "buffers and scalars\n"
            "spec.json: $.args[3]: 'y' is not a buffer or scalar (declared: "
            "a, n, x)");
}

TEST(LaunchSpecErrors, ArgsMustMatchBuffersAndScalars) {
  Json J = saxpyJson();
  J["args"] = {"n", "alpha", "x", "y", "x"};
  EXPECT_EQ(errorsOf(J),
            "spec.json: $.args[1]: 'alpha' is not a buffer or scalar "
            "(declared: a, n, x, y)\n"
            "spec.json: $.args[4]: 'x' is passed twice\n"
            "spec.json: $.scalars[1].name: 'a' is not passed to the kernel; "
            "add it to $.args");
}

TEST(LaunchSpecErrors, TunableDefaultNotAmongValues) {
  Json J = saxpyJson();
  J["tunables"][0]["default"] = 64;
  EXPECT_EQ(errorsOf(J), "spec.json: $.tunables[0].default: 64 is not among "
                         "the values");
}

TEST(LaunchSpecErrors, TunableValues) {
  Json J = saxpyJson();
  J["tunables"][0]["values"] = {128, 128, "256"};
  EXPECT_EQ(errorsOf(J),
            "spec.json: $.tunables[0].values[1]: duplicate value 128\n"
            "spec.json: $.tunables[0].values[2]: expected an integer, got "
            "\"256\"");
  J["tunables"][0]["values"] = Json::array();
  EXPECT_EQ(errorsOf(J),
            "spec.json: $.tunables[0].values: expected at least one value");
}

TEST(LaunchSpecErrors, ExpressionsUseOnlySizesAndTunables) {
  Json J = saxpyJson();
  J["constraints"] = {"BLOCK % WARP == 0"};
  J["buffers"][0]["count"] = "n";
  J["bytes"] = "3 * 4 * N * sizeof";
  EXPECT_EQ(errorsOf(J),
            "spec.json: $.buffers[0].count: unknown identifier 'n' (known: "
            "N, BLOCK)\n"
            "spec.json: $.constraints[0]: unknown identifier 'WARP' (known: "
            "N, BLOCK)\n"
            "spec.json: $.bytes: unknown identifier 'sizeof' (known: N, "
            "BLOCK)");
}

TEST(LaunchSpecErrors, BadDTypeAndScalarValue) {
  Json J = saxpyJson();
  J["buffers"][0]["dtype"] = "float";
  J["scalars"][0]["value"] = 2.5;
  J["scalars"][1]["dtype"] = "u8";
  J["scalars"][1]["value"] = 300;
  EXPECT_EQ(errorsOf(J),
            "spec.json: $.buffers[0].dtype: expected one of \"f16\", "
            "\"bf16\", \"f32\", \"f64\", \"i8\", \"i16\", \"i32\", \"i64\", \"u8\", "
            "\"u16\", \"u32\", \"u64\", got \"float\"\n"
            "spec.json: $.scalars[0].value: expected an integer for dtype "
            "'i32', got 2.5\n"
            "spec.json: $.scalars[1].value: 300 is out of range for dtype "
            "'u8'");
}

TEST(LaunchSpecErrors, InitAndRoleRules) {
  Json J = saxpyJson();
  J["buffers"][0]["init"] = {{"kind", "uniform"}, {"min", 1}, {"max", 0}};
  J["buffers"][0]["tolerance"] = {{"rel_l2", 1e-3}};
  J["buffers"][1]["role"] = "out";
  EXPECT_EQ(errorsOf(J),
            "spec.json: $.buffers[0].init.max: max must be greater than min\n"
            "spec.json: $.buffers[0].tolerance: an 'in' buffer is not "
            "compared; tolerance applies to 'out' and 'inout' buffers\n"
            "spec.json: $.buffers[1].init: an 'out' buffer is filled with NaN "
            "before every run; use role 'inout' to give it initial contents");

  Json K = saxpyJson();
  K["buffers"][0].erase("init");
  K["buffers"][1]["init"] = {{"kind", "normal"}, {"value", 1}};
  K["buffers"][1]["dtype"] = "i32";
  EXPECT_EQ(errorsOf(K),
            "spec.json: $.buffers[0].init: missing required field (an 'in' "
            "buffer needs initial contents)\n"
            "spec.json: $.buffers[1].init.value: unknown field for kind "
            "'normal'; expected one of \"kind\", \"mean\", \"stddev\"\n"
            "spec.json: $.buffers[1].init.kind: 'normal' needs a "
            "floating-point dtype, got 'i32'; use 'uniform'");

  Json L = saxpyJson();
  L["buffers"][1]["init"] = {{"kind", "constant"}, {"vaule", 1}};
  EXPECT_EQ(errorsOf(L),
            "spec.json: $.buffers[1].init.vaule: unknown field for kind "
            "'constant'; did you mean \"value\"?\n"
            "spec.json: $.buffers[1].init.value: missing required field");
}

TEST(LaunchSpecErrors, UnknownFieldsAreTyposNotExtensions) {
  Json J = saxpyJson();
  J["tunable"] = Json::array();
  J["buffers"][0]["stride"] = 2;
  EXPECT_EQ(errorsOf(J),
            "spec.json: $.tunable: unknown field; did you mean \"tunables\"?\n"
            "spec.json: $.buffers[0].stride: unknown field; expected one of "
            "\"name\", \"dtype\", \"count\", \"init\", \"role\", "
            "\"tolerance\"");
}

TEST(LaunchSpecErrors, GeometryShapeAndSizes) {
  Json J = saxpyJson();
  J["grid"] = {"1", "1", "1", "1"};
  J["block"] = Json::array();
  J["sizes"]["N"] = -1;
  J["sizes"]["max"] = 3;
  J["kernel"] = "saxpy<float>";
  EXPECT_EQ(errorsOf(J),
            "spec.json: $.kernel: expected a qualified C++ name such as "
            "\"ns::kernel\", got \"saxpy<float>\"; put template arguments in "
            "$.template_args\n"
            "spec.json: $.sizes.N: expected a non-negative integer, got -1\n"
            "spec.json: $.sizes.max: size names must be identifiers other "
            "than min, max and ceil_div\n"
            "spec.json: $.grid: expected 1 to 3 dimensions, got 4\n"
            "spec.json: $.block: expected 1 to 3 dimensions, got 0");
}

TEST(LaunchSpecErrors, TopLevelNotAnObject) {
  EXPECT_EQ(errorsOf(Json::array({1, 2})),
            "spec.json: $: expected an object, got an array");
  EXPECT_EQ(errorsOf(Json("saxpy")),
            "spec.json: $: expected an object, got \"saxpy\"");
}

TEST(LaunchSpecErrors, NotJsonAtAll) {
  std::string Path = Inputs + "/not-json.json";
  EXPECT_EQ(fileErrors("not-json.json"),
            Path + ": invalid JSON: parse error at line 1, column 1: "
                   "syntax error while parsing value - "
                   "invalid literal; last read: 'k'");
}

TEST(LaunchSpecErrors, MissingFile) {
  std::string Msg = fileErrors("no-such-spec.json");
  EXPECT_NE(Msg.find("no-such-spec.json"), std::string::npos) << Msg;
}

TEST(LaunchSpecErrors, RightKeysWrongTypes) {
  std::string Path = Inputs + "/wrong-types.json";
  std::string P = Path + ": ";
  EXPECT_EQ(fileErrors("wrong-types.json"),
            P + "$.kernel: expected a string, got an array\n" +
            P + "$.sizes.N: expected an integer, got \"1048576\"\n" +
            P + "$.tunables[0].values: expected an array, got 256\n" +
            P + "$.buffers: expected an array, got an object\n" +
            P + "$.scalars[0].value: expected a number or an expression "
                "string, got true\n" +
            P + "$.args: expected an array, got \"n, x\"\n" +
            P + "$.block[1]: expected an expression string, got null\n" +
            P + "$.constraints: expected an array, got \"BLOCK % 32 == 0\"\n" +
            P + "$.tolerance.rel_l2: expected a number, got \"1e-5\"\n" +
            P + "$.allow_lower_precision: expected a boolean, got \"no\"");
}

} // namespace

namespace {

/// Every field replaced by every kind of JSON value: parsing must return a
/// spec or usage errors that name JSON paths, never throw or abort.
TEST(LaunchSpecErrors, EveryFieldEveryTypeNeverAborts) {
  const Json Junk[] = {nullptr,        true,
                       -3,             1.5,
                       "",             "x(",
                       Json::array(),  Json::array({nullptr, 1}),
                       Json::object(), Json::object({{"k", 1}})};
  const Json Base = saxpyJson();
  std::vector<std::pair<std::string, Json::json_pointer>> Fields;
  for (auto It = Base.begin(); It != Base.end(); ++It)
    Fields.emplace_back("$." + It.key(), Json::json_pointer("/" + It.key()));
  for (const char *Sub : {"/buffers/0", "/scalars/1", "/tunables/0",
                          "/buffers/0/init", "/tolerance"}) {
    Json::json_pointer Ptr(Sub);
    for (auto It = Base.at(Ptr).begin(); It != Base.at(Ptr).end(); ++It) {
      std::string Path = "$";
      for (llvm::StringRef Rest = llvm::StringRef(Sub).drop_front(); ;) {
        auto [Tok, Tail] = Rest.split('/');
        Path += llvm::all_of(Tok, [](char C) { return llvm::isDigit(C); }) ? "[" + Tok.str() + "]"
                                                 : "." + Tok.str();
        if (Tail.empty())
          break;
        Rest = Tail;
      }
      Fields.emplace_back(Path + "." + It.key(), Ptr / It.key());
    }
  }
  for (const auto &[Path, Ptr] : Fields) {
    for (const Json &V : Junk) {
      Json J = Base;
      J[Ptr] = V;
      std::string Errors = errorsOf(J);
      if (Errors.empty())
        continue; // e.g. -3 is a valid shared_mem expression
      // An empty object or array can be valid yet leave names undeclared,
      // so the error may land on a use rather than on Path itself; every
      // line must still be a usage error that names a JSON path.
      llvm::SmallVector<llvm::StringRef, 8> Lines;
      llvm::StringRef(Errors).split(Lines, '\n');
      for (llvm::StringRef L : Lines)
        EXPECT_TRUE(L.starts_with("spec.json: $"))
            << Path << " = " << V.dump() << ":\n"
            << Errors;
      if (!V.is_object() && !V.is_array() && Path != "$.sizes") {
        EXPECT_TRUE(llvm::StringRef(Errors).contains(Path) ||
                    Path.find(".init.") != std::string::npos)
            << Path << " = " << V.dump() << ":\n"
            << Errors;
      }
    }
  }
}

} // namespace
