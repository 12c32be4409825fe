//===- EmbedTest.cpp - Templates as __device__ functions ------------------===//
#include "forge/Templates/Embed.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Regex.h"
#include <gtest/gtest.h>

using namespace forge::templates;
using namespace llvm;

namespace {

/// Every sample of every template embeds: the host wrapper gone (no launch
/// left), the kernel a __device__ function of the same parameters.
TEST(Embed, EverySampleBecomesADeviceFunction) {
  for (const TemplateInfo &T : templateCatalog())
    for (const Request &R : T.Samples()) {
      SCOPED_TRACE(R.Name);
      Expected<Instance> I = T.Instantiate(R);
      ASSERT_TRUE(bool(I)) << toString(I.takeError());
      Expected<std::string> B = embeddableBody(*I);
      ASSERT_TRUE(bool(B)) << toString(B.takeError());
      EXPECT_EQ(B->find("<<<"), std::string::npos);
      EXPECT_EQ(B->find("forge_" + I->Kernel + "("), std::string::npos);
      EXPECT_EQ(B->find("__global__"), std::string::npos);
      EXPECT_EQ(B->find("#include"), std::string::npos);
      EXPECT_NE(B->find("__device__ __forceinline__ void " + I->Kernel + "_body("),
                std::string::npos);
      // Everything before the kernel but the includes is kept, as it was:
      // the state and the helpers.
      std::string NoIncludes;
      for (StringRef Line : split(StringRef(I->Source), '\n'))
        if (!Line.ltrim().starts_with("#include"))
          NoIncludes += Line.str() + "\n";
      std::string Before = B->substr(0, B->find("__device__ __forceinline__ void " + I->Kernel));
      EXPECT_EQ(NoIncludes.find(Before), 0u);
    }
}

TEST(Embed, RefusesTextOfAnotherShape) {
  Instance I;
  I.Template = "t";
  I.Kernel = "k";
  I.Source = "__global__ void k(int *x) {}\n";
  EXPECT_EQ(toString(embeddableBody(I).takeError()),
            "the t template's text has no host wrapper forge_k");
  I.Source = "__global__ void k(int *x) {}\n__global__ void k(float *x) {}\n"
             "inline cudaError_t forge_k(int *x) { return cudaSuccess; }\n";
  EXPECT_EQ(toString(embeddableBody(I).takeError()), "the t template's text defines k twice");
  I.Source = "__device__ void k(int *x) {}\ninline cudaError_t forge_k(int *x);\n";
  EXPECT_EQ(toString(embeddableBody(I).takeError()),
            "the t template's text has no __global__ definition of k");
}

} // namespace
