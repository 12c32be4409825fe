//===- TemplateTest.cpp - The template library as a whole -----------------===//
//
// Every template's samples (its own list of requests: element types,
// operators, odd sizes) instantiate, give a launch spec that the real spec
// parser accepts and whose kernel and arguments match the source, and all
// of them compile together in ONE nvcc run (CI has no GPU; the GPU check of
// each sample against a CPU reference is test/gpu/templates/).
//
//===----------------------------------------------------------------------===//
#include "CompileCheck.h"
#include "forge/Build/CudaToolkit.h"
#include "forge/Measure/LaunchSpec.h"
#include "forge/Templates/Template.h"
#include "llvm/ADT/StringExtras.h"
#include <gtest/gtest.h>
#include <set>

using namespace forge;
using namespace forge::templates;
using namespace llvm;

namespace {

std::string err(Error E) { return toString(std::move(E)); }

TEST(TemplateVocabulary, ScalarsByDtypeAndCudaSpelling) {
  EXPECT_EQ(parseScalar("f32"), Scalar::F32);
  EXPECT_EQ(parseScalar("float"), Scalar::F32);
  EXPECT_EQ(parseScalar("unsigned int"), Scalar::U32);
  EXPECT_EQ(parseScalar("uint32_t"), Scalar::U32);
  EXPECT_EQ(parseScalar("half"), Scalar::F16);
  EXPECT_EQ(parseScalar("bf16"), Scalar::BF16);
  EXPECT_FALSE(parseScalar("complex"));
  EXPECT_EQ(scalarInfo(Scalar::F64).Bytes, 8u);
  EXPECT_EQ(scalarInfo(Scalar::U64).Dtype, "u64");
  for (StringRef K : {"map", "reduce", "scan", "sort", "gemm", "stencil", "transpose", "gather",
                      "scatter", "histogram", "row-softmax"})
    EXPECT_EQ(opKindName(*parseOpKind(K)), K);
  EXPECT_FALSE(parseOpKind("fft"));
}

TEST(TemplateVocabulary, UnsupportedRequestsSayWhy) {
  Request R;
  R.Kind = OpKind::Scan;
  R.Type = Scalar::F64;
  R.Shape = {1000};
  EXPECT_EQ(err(instantiate(R).takeError()),
            "the scan template takes 4-byte elements (f32, i32, u32), not f64");
  R.Type = Scalar::F32;
  R.Operator = "*";
  EXPECT_EQ(err(instantiate(R).takeError()),
            "the scan template scans with +, max or min, not '*'");
  R.Operator = "+";
  R.Shape = {10, 10};
  EXPECT_EQ(err(instantiate(R).takeError()), "a scan takes 1 extent, not 2");
  R.Shape = {0};
  EXPECT_EQ(err(instantiate(R).takeError()), "a scan: every extent must be positive, not 0");
  R.Shape = {100};
  R.Algorithm = "merge";
  EXPECT_NE(err(instantiate(R).takeError()).find("no 'merge' template computes a scan"),
            std::string::npos);
}

TEST(TemplateVocabulary, TheScanAsAKernelOfItsOwn) {
  Request R;
  R.Kind = OpKind::Scan;
  R.Shape = {1 << 24};
  R.Inclusive = false;
  R.Operator = "max";
  R.Description = "exclusive max-scan of 16M floats";
  Expected<Instance> I = instantiate(R);
  ASSERT_TRUE(bool(I)) << err(I.takeError());
  EXPECT_EQ(I->Kernel, "scan");
  EXPECT_EQ(I->Wrapper, "forge_scan");
  EXPECT_NE(I->Source.find("__global__ void scan(const float *__restrict__ in, float "
                           "*__restrict__ out, long long n)"),
            std::string::npos);
  EXPECT_NE(I->Source.find("inline cudaError_t forge_scan("), std::string::npos);
  EXPECT_NE(I->Source.find("Asked for: \"exclusive max-scan of 16M floats\""), std::string::npos);
  EXPECT_NE(I->Source.find("the exclusive scan (max)"), std::string::npos);
  EXPECT_EQ(I->Spec["grid"], "SMS * WAVES");
  EXPECT_EQ(I->Spec["sizes"]["N"], 1 << 24);
}

/// Every sample of every template: instantiates, its spec parses, names
/// the kernel the source defines, and passes each argument.
TEST(TemplateCatalog, EverySampleInstantiatesWithASpecTheParserAccepts) {
  std::set<std::string> Names;
  for (const TemplateInfo &T : templateCatalog()) {
    std::vector<Request> Samples = T.Samples();
    EXPECT_GE(Samples.size(), 2u) << T.Name.str() << " has too few samples";
    for (const Request &R : Samples) {
      SCOPED_TRACE(std::string(T.Name) + ": " + R.Name);
      EXPECT_TRUE(Names.insert(R.Name).second) << "two samples are named " << R.Name;
      Expected<Instance> I = T.Instantiate(R);
      ASSERT_TRUE(bool(I)) << err(I.takeError());
      EXPECT_EQ(I->Template, T.Name);
      EXPECT_EQ(I->Kernel, R.Name);
      EXPECT_EQ(I->Wrapper, "forge_" + R.Name);
      EXPECT_NE(I->Source.find(" " + I->Kernel + "("), std::string::npos);
      EXPECT_NE(I->Source.find(" " + I->Wrapper + "("), std::string::npos);
      Expected<measure::LaunchSpec> S = measure::parseLaunchSpec(I->Spec, R.Name + ".json");
      ASSERT_TRUE(bool(S)) << err(S.takeError()) << "\n" << I->Spec.dump(2);
      EXPECT_EQ(S->Kernel, I->Kernel);
      // Every configuration's outputs are compared with the reference's:
      // no buffer may change size with a tunable.
      for (const measure::Buffer &B : S->Buffers)
        for (const std::string &Id : B.Count.identifiers())
          EXPECT_EQ(S->findTunable(Id), nullptr)
              << "the count of '" << B.Name << "' depends on the tunable " << Id;
      // The spec's geometry evaluates at its defaults.
      auto G = S->geometry({});
      EXPECT_TRUE(bool(G)) << (G ? "" : err(G.takeError()));
      auto C = S->satisfiesConstraints({});
      EXPECT_TRUE(C && *C) << (C ? "a constraint fails at the defaults" : err(C.takeError()));
    }
  }
}

/// All samples of all templates in one translation unit, one nvcc run: the
/// generated files must also live together (distinct names, shared
/// includes), as a user's project would hold them.
TEST(TemplateCatalog, EverySampleCompilesWithNvccInOneRun) {
  Expected<build::CudaToolkit> TK = build::CudaToolkit::find();
  if (!TK)
    GTEST_SKIP() << "no CUDA toolkit: " << err(TK.takeError());
  std::string All;
  unsigned Count = 0;
  for (const TemplateInfo &T : templateCatalog())
    for (const Request &R : T.Samples()) {
      Expected<Instance> I = T.Instantiate(R);
      ASSERT_TRUE(bool(I)) << R.Name << ": " << err(I.takeError());
      All += "// ---- " + R.Name + "\n" + I->Source + "\n";
      ++Count;
    }
  Expected<test::CompileReport> R = test::compileForSm90(*TK, All, "forge-templates");
  ASSERT_TRUE(bool(R)) << err(R.takeError());
  EXPECT_TRUE(R->Ok) << Count << " samples in " << R->Unit << ":\n" << R->Stderr;
}

} // namespace

namespace {

TEST(TemplateRequestJson, RoundTripsEveryField) {
  Request R;
  R.Kind = OpKind::Sort;
  R.Type = Scalar::I32;
  R.Shape = {77777};
  R.Descending = true;
  R.ValueType = Scalar::F32;
  R.Algorithm = "merge";
  R.Name = "sort_pairs";
  R.SMs = 108;
  R.Description = "sort 77777 int keys with float values, descending";
  Expected<Request> Back = requestFromJson(requestToJson(R), "r.json");
  ASSERT_TRUE(bool(Back)) << err(Back.takeError());
  EXPECT_EQ(requestToJson(*Back).dump(), requestToJson(R).dump());
  EXPECT_EQ(Back->ValueType, Scalar::F32);
  EXPECT_EQ(Back->SMs, 108);
}

TEST(TemplateRequestJson, BadFieldsAreNamed) {
  auto Bad = [](const char *Text) {
    Expected<Json> J = parseJson(Text, "r.json");
    EXPECT_TRUE(bool(J));
    Expected<Request> R = requestFromJson(*J, "r.json");
    return R ? std::string("accepted") : err(R.takeError());
  };
  EXPECT_EQ(Bad(R"({"shape": [10]})"), "r.json: $.kind: missing; expected a string");
  EXPECT_EQ(Bad(R"({"kind": "fft", "shape": [10]})"), "r.json: $.kind: unknown operation 'fft'");
  EXPECT_EQ(Bad(R"({"kind": "reduce", "shape": [10, "x"]})"),
            "r.json: $.shape[1]: expected an integer");
  EXPECT_EQ(Bad(R"({"kind": "reduce", "type": "complex"})"),
            "r.json: $.type: unknown element type 'complex'");
  EXPECT_EQ(Bad(R"({"kind": "reduce", "shapes": [10]})"), "r.json: $.shapes: unknown field");
  EXPECT_EQ(Bad(R"({"kind": "reduce", "name": "a-b"})"),
            "r.json: $.name: 'a-b' is not a C identifier");
  EXPECT_EQ(Bad(R"({"kind": "stencil", "border": "wrap"})"),
            "r.json: $.border: expected \"clamp\" or \"zero\", got \"wrap\"");
}

} // namespace

namespace {

/// A description ends up in a // comment of the generated file: a control
/// character there (a lone carriage return ends the comment for nvcc)
/// must not let it out.
TEST(TemplateVocabulary, TheDescriptionStaysInItsComment) {
  Request R;
  R.Kind = OpKind::Scan;
  R.Shape = {100};
  R.Description = "sum\rint injected = 1;\n#include </etc/passwd>\v";
  Expected<Instance> I = instantiate(R);
  ASSERT_TRUE(bool(I)) << err(I.takeError());
  EXPECT_EQ(I->Source.find('\r'), std::string::npos);
  EXPECT_EQ(I->Source.find('\v'), std::string::npos);
  EXPECT_NE(I->Source.find("// Asked for: \"sum int injected = 1; #include </etc/passwd> \"."),
            std::string::npos);
}

} // namespace
