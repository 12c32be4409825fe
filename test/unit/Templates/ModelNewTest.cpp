//===- ModelNewTest.cpp - `forge-port new --llm`: references, prompt, reply -===//
#include "forge/Templates/Description.h"
#include "forge/Templates/ModelNew.h"
#include "forge/Arch/TargetInfo.h"
#include "llvm/Support/Error.h"
#include <gtest/gtest.h>

using namespace forge;
using namespace forge::templates;

namespace {

std::string err(llvm::Error E) { return llvm::toString(std::move(E)); }

std::vector<std::string> templatesOf(const std::vector<ModelReference> &Refs) {
  std::vector<std::string> Out;
  for (const ModelReference &R : Refs)
    Out.push_back(R.Template);
  return Out;
}

//===-- What the words name ----------------------------------------------===//

TEST(DescriptionHints, TheSpecificOperationComesFirst) {
  // The operator of a scan is not a reduction of its own.
  DescriptionHints H = descriptionHints("prefix sum of 1M doubles");
  EXPECT_EQ(H.Kinds, std::vector<OpKind>{OpKind::Scan});
  EXPECT_EQ(descriptionHints("exclusive max-scan of 1000 floats").Kinds,
            std::vector<OpKind>{OpKind::Scan});
  // A reduction said in words stays.
  EXPECT_EQ(descriptionHints("histogram then reduce with max").Kinds,
            (std::vector<OpKind>{OpKind::Histogram, OpKind::Reduce}));
  ASSERT_TRUE(H.Type.has_value());
  EXPECT_EQ(*H.Type, Scalar::F64);
}

TEST(DescriptionHints, RefusedDescriptionsStillNameTheirOperations) {
  // Refused by the parser (two operations), read by the hints.
  DescriptionHints H = descriptionHints("sum of squares of 1M floats");
  EXPECT_EQ(H.Kinds, (std::vector<OpKind>{OpKind::Reduce, OpKind::Map}));
  EXPECT_EQ(H.Type, Scalar::F32);
  // Operations the templates do not have, near ones they do.
  EXPECT_EQ(descriptionHints("dot product of 1M floats").Kinds,
            std::vector<OpKind>{OpKind::Reduce});
  EXPECT_EQ(descriptionHints("median of 1M doubles").Kinds, std::vector<OpKind>{OpKind::Sort});
  DescriptionHints None = descriptionHints("frobnicate 10 floats");
  EXPECT_TRUE(None.Kinds.empty());
  EXPECT_EQ(None.Unknown, std::vector<std::string>{"frobnicate"});
}

//===-- References --------------------------------------------------------===//

TEST(ModelReferences, ARequestNoTemplateComputesGetsItsOperationsTemplates) {
  // The parser reads it; the sorts take 4-byte keys only.
  auto P = parseDescription("sort 1M doubles");
  ASSERT_TRUE(bool(P)) << err(P.takeError());
  ASSERT_FALSE(bool(instantiate(*P)));
  auto Refs = chooseReferences("sort 1M doubles", &*P);
  EXPECT_EQ(templatesOf(Refs), (std::vector<std::string>{"radix-sort", "merge-sort"}));
  for (const ModelReference &R : Refs) {
    EXPECT_EQ(R.Req.Kind, OpKind::Sort);
    EXPECT_EQ(R.Why, "the same operation (sort)");
    EXPECT_FALSE(R.Inst.Source.empty());
    EXPECT_TRUE(R.Inst.Spec.is_object());
  }
}

TEST(ModelReferences, AParsedRequestIsItsOwnFirstReference) {
  auto P = parseDescription("exclusive max-scan of 1000 floats");
  ASSERT_TRUE(bool(P)) << err(P.takeError());
  auto Refs = chooseReferences("exclusive max-scan of 1000 floats", &*P, 2);
  ASSERT_EQ(Refs.size(), 1u); // one scan template; nothing else named
  EXPECT_EQ(Refs[0].Sample, "your-request");
  EXPECT_EQ(Refs[0].Template, "scan");
  EXPECT_EQ(Refs[0].Req.Shape, std::vector<int64_t>{1000});
}

TEST(ModelReferences, UnparsedDescriptionsUseTheirWordsAndTheNearestType) {
  auto Refs = chooseReferences("dot product of two vectors of 1M floats", nullptr);
  ASSERT_EQ(Refs.size(), 1u);
  EXPECT_EQ(Refs[0].Template, "reduction");
  EXPECT_EQ(Refs[0].Sample, "reduction_sum_f32");
  // Doubles: the f64 sample of the reduction.
  Refs = chooseReferences("dot product of two vectors of 1M doubles", nullptr);
  ASSERT_EQ(Refs.size(), 1u);
  EXPECT_EQ(Refs[0].Req.Type, Scalar::F64);
  // Two operations named: one reference each, in the order said.
  Refs = chooseReferences("sum of squares of 1M floats", nullptr);
  EXPECT_EQ(templatesOf(Refs), (std::vector<std::string>{"reduction", "map"}));
  EXPECT_EQ(Refs[1].Req.Type, Scalar::F32);
}

TEST(ModelReferences, NothingRecognisedGetsTheFormatExample) {
  auto Refs = chooseReferences("frobnicate 10 floats", nullptr);
  ASSERT_EQ(Refs.size(), 1u);
  EXPECT_EQ(Refs[0].Template, "map");
  EXPECT_NE(Refs[0].Why.find("format"), std::string::npos);
  EXPECT_TRUE(chooseReferences("sort 1M doubles", nullptr, 0).empty());
}

//===-- The prompt --------------------------------------------------------===//

TEST(ModelPrompt, ShowsTheDescriptionTheCatalogAndTheReferences) {
  ModelNewAsk A;
  A.Description = "dot product of two vectors of 1M floats";
  A.Understood = "no template computes it: a dot product is not an operation of the templates";
  A.Name = "mydot";
  auto T = arch::lookupTarget("sm_90");
  ASSERT_TRUE(bool(T)) << err(T.takeError());
  A.Target = &*T;
  A.References = chooseReferences(A.Description, nullptr);
  ASSERT_EQ(A.References.size(), 1u);
  std::string P = buildModelNewPrompt(A);
  EXPECT_NE(P.find("## Description\ndot product of two vectors of 1M floats\n"), std::string::npos);
  EXPECT_NE(P.find("no template computes it: a dot product"), std::string::npos);
  EXPECT_NE(P.find("sm_90 (compute capability 9.0)"), std::string::npos);
  // Every template of the catalog, one line each.
  for (const TemplateInfo &I : templateCatalog())
    EXPECT_NE(P.find("- " + I.Name.str() + " ("), std::string::npos) << I.Name.str();
  EXPECT_NE(P.find("## Reference 1: template 'reduction', sample 'reduction_sum_f32'"),
            std::string::npos);
  // The reference's file and spec, fenced.
  EXPECT_NE(P.find("```cuda\n" + A.References[0].Inst.Source), std::string::npos);
  EXPECT_NE(P.find("```json\n{\n \"kernel\": \"reduction_sum_f32\""), std::string::npos);
  EXPECT_NE(P.find("named `mydot`"), std::string::npos);
  EXPECT_NE(modelNewSystemPrompt().find("exactly two fenced code blocks"), llvm::StringRef::npos);
  std::string R = buildModelNewRepair("compile", "dot.cu:16:3: error: Unknown modifier '.bogus'");
  EXPECT_NE(R.find("failed the compile check:\ndot.cu:16:3: error: Unknown modifier"),
            std::string::npos);
}

//===-- The reply ---------------------------------------------------------===//

const char *const Kernel = "__global__ void k(float *x) { x[0] = 1; }\n";
const char *const Spec = "{\"kernel\": \"k\"}\n";

std::string fenced(llvm::StringRef Lang, llvm::StringRef Body, llvm::StringRef Fence = "```") {
  return (Fence + Lang + "\n" + Body + Fence + "\n").str();
}

TEST(ModelReply, TwoTaggedBlocksWithProseAround) {
  std::string Reply = "Here it is.\n\n" + fenced("cuda", Kernel) + "\nand the spec:\n" +
                      fenced("json", Spec) + "Enjoy.\n";
  auto R = parseModelNewReply(Reply);
  ASSERT_TRUE(bool(R)) << err(R.takeError());
  EXPECT_EQ(R->Source, Kernel);
  EXPECT_EQ(R->Spec["kernel"], "k");
  // The spec first, CRLF line ends, other spellings of the tag, a longer
  // fence around text that holds a shorter one.
  std::string Inner = std::string("// ```not a fence```\n") + Kernel;
  Reply = "```JSON\r\n{\"kernel\": \"k\"}\r\n```\r\n" + fenced("cu", Inner, "````");
  R = parseModelNewReply(Reply);
  ASSERT_TRUE(bool(R)) << err(R.takeError());
  EXPECT_EQ(R->Source, Inner);
}

TEST(ModelReply, MalformedRepliesSayWhatIsWrong) {
  auto Fails = [](const std::string &Reply) {
    auto R = parseModelNewReply(Reply);
    return R ? std::string("(parsed)") : err(R.takeError());
  };
  EXPECT_EQ(Fails("I cannot help with that."),
            "the reply has no fenced code block: it must hold one ```cuda block (the kernel "
            "file) and one ```json block (its spec)");
  EXPECT_EQ(Fails(fenced("cuda", Kernel)), "the reply has no ```json block (the kernel's launch "
                                           "spec)");
  EXPECT_EQ(Fails(fenced("json", Spec)), "the reply has no ```cuda block (the kernel file)");
  EXPECT_EQ(Fails(fenced("cuda", Kernel) + fenced("cuda", Kernel) + fenced("json", Spec)),
            "the reply has two cuda blocks (lines 1 and 4); it must hold one");
  EXPECT_EQ(Fails(fenced("", Kernel) + fenced("json", Spec)),
            "the code block on line 1 of the reply has no language: tag the kernel ```cuda and "
            "its spec ```json");
  EXPECT_EQ(Fails(fenced("cuda", Kernel) + fenced("json", Spec) + fenced("bash", "nvcc k.cu\n")),
            "the code block on line 7 of the reply is 'bash': the reply must hold one cuda block "
            "(the kernel file) and one json block (its spec), nothing else fenced");
  EXPECT_EQ(Fails(fenced("cuda", Kernel) + "```json\n{\"kernel\": \"k\"}\n"),
            "the code block opened on line 4 of the reply is not closed");
  EXPECT_EQ(Fails(fenced("cuda", "\n  \n") + fenced("json", Spec)),
            "the cuda block on line 1 of the reply is empty");
  EXPECT_EQ(Fails(fenced("cuda", Kernel) + fenced("json", "[1, 2]\n")),
            "the json block on line 4 of the reply is not a JSON object (a launch spec)");
  std::string Bad = Fails(fenced("cuda", Kernel) + fenced("json", "{\"kernel\": }\n"));
  EXPECT_EQ(Bad.rfind("the json block on line 4 of the reply: invalid JSON", 0), 0u) << Bad;
}

} // namespace
