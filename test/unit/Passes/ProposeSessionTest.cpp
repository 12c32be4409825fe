//===- ProposeSessionTest.cpp - The propose driver without the CLI --------===//
#include "ExpertRule.h"
#include "forge/Agent/ProposeSession.h"
#include "forge/Config.h"
#include "forge/Support/Error.h"
#include "forge/Support/FileUtil.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "gtest/gtest.h"

using namespace forge;

namespace {

const char *Scale = R"CU(__global__ void scale(const float *x, float *y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i];
}
void launch(const float *x, float *y, int n) { scale<<<(n + 255) / 256, 256>>>(x, y, 2.0f, n); }
)CU";

class ProposeSessionTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("forge-propose-session", Dir));
    File = (Dir + "/scale.cu").str();
    ASSERT_FALSE(bool(writeFileAtomically(File, Scale)));
    TC.ResourceDir = FORGE_CLANG_RESOURCE_DIR;
    O.File = File;
    O.Kernel = "scale";
    O.Target = &llvm::cantFail(arch::lookupTarget("sm_90"));
    O.ExtraArgs = {"-nocudainc", "-nocudalib", "-isystem", FORGE_TEST_INPUTS "/mock-cuda",
                   "-include", "cuda_runtime.h"};
    O.Toolchain = &TC;
    // launch() has no caller in the file: restrict needs the promise.
    O.AssumeNoAlias = true;
  }
  void TearDown() override { llvm::sys::fs::remove_directories(Dir); }
  void rules(llvm::StringRef Globs) {
    auto R = passes::selectExpertRules(Globs);
    ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
    O.Rules = *R;
  }

  llvm::SmallString<128> Dir;
  std::string File;
  frontend::Toolchain TC;
  agent::ProposeOptions O;
};

TEST_F(ProposeSessionTest, ShowsProposalsAndWhyOthersDoNotApply) {
  rules("restrict,unroll");
  auto R = agent::ProposeSession(O).run();
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  ASSERT_EQ(R->Proposals.size(), 1u);
  EXPECT_EQ(R->Proposals[0].Origin, "expert:restrict");
  EXPECT_NE(R->Proposals[0].Edits.find("__restrict__"), std::string::npos);
  ASSERT_EQ(R->Skipped.size(), 1u);
  EXPECT_EQ(R->Skipped[0].Rule, "unroll");
  EXPECT_FALSE(R->empty());
  EXPECT_EQ(*readFile(File), Scale); // never written
}

TEST_F(ProposeSessionTest, WithoutAssumeNoAliasRestrictDeclinesALaunchItCannotTrace) {
  rules("restrict");
  O.AssumeNoAlias = false;
  auto R = agent::ProposeSession(O).run();
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_TRUE(R->Proposals.empty());
  ASSERT_EQ(R->Skipped.size(), 1u);
  EXPECT_EQ(R->Skipped[0].Reason,
            "the launch at line 5 is not shown to pass distinct allocations for 'x' and 'y', and "
            "one of them is written: 'x' is a parameter of 'launch', whose callers are not in "
            "this file; pass --assume-no-alias to promise it");
}

TEST_F(ProposeSessionTest, AppliesRuleAfterRuleAndWritesOnlyElsewhere) {
  rules("restrict,launch-bounds");
  O.Apply = true;
  O.Output.K = OutputChoice::Kind::File;
  O.Output.Path = (Dir + "/out.cu").str();
  auto R = agent::ProposeSession(O).run();
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  ASSERT_EQ(R->Steps.size(), 2u);
  ASSERT_TRUE(R->Steps[0].Applied);
  ASSERT_TRUE(R->Steps[1].Applied) << (R->Steps[1].Skipped.empty() ? ""
                                                                   : R->Steps[1].Skipped[0].Reason);
  // launch-bounds read the block size (256) from the launch in the file.
  EXPECT_NE(R->Source.find("__launch_bounds__(256)"), std::string::npos) << R->Source;
  EXPECT_NE(R->Source.find("__restrict__"), std::string::npos);
  EXPECT_EQ(*readFile(O.Output.Path), R->Source);
  EXPECT_EQ(*readFile(File), Scale);

  O.Output.Path = File; // -o naming the input
  auto Same = agent::ProposeSession(O).run();
  ASSERT_FALSE(bool(Same));
  EXPECT_NE(llvm::toString(Same.takeError()).find("never rewrites its input"), std::string::npos);
}

TEST_F(ProposeSessionTest, UsageErrors) {
  rules("*");
  O.Kernel.clear();
  auto NoKernel = agent::ProposeSession(O).run();
  ASSERT_FALSE(bool(NoKernel));
  EXPECT_NE(llvm::toString(NoKernel.takeError()).find("--kernel is required"), std::string::npos);
  O.Kernel = "nope";
  auto Missing = agent::ProposeSession(O).run();
  ASSERT_FALSE(bool(Missing));
  EXPECT_NE(llvm::toString(Missing.takeError()).find("kernel 'nope' is not defined"),
            std::string::npos);
}

} // namespace
