//===- OptimizeSessionTest.cpp - The optimize driver without the CLI ------===//
//
// The driver with the expert rules and no GPU: every proposal goes through
// the stages up to a real nvcc compile, nothing is kept, the user's file is
// not written, and the transcript it keeps replays to the same decisions.
//
//===----------------------------------------------------------------------===//
#include "ExpertRule.h"
#include "forge/Agent/OptimizeSession.h"
#include "forge/Config.h"
#include "forge/Support/Error.h"
#include "forge/Support/FileUtil.h"
#include "llvm/Support/FileSystem.h"
#include "gtest/gtest.h"

using namespace forge;

namespace {

class OptimizeSessionTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("forge-optimize-session", Dir));
    std::string In = FORGE_SOURCE_DIR "/test/tools/Inputs/optimize/";
    File = (Dir + "/scale.cu").str();
    auto Text = readFile(In + "scale.cu");
    ASSERT_TRUE(bool(Text));
    Original = *Text;
    ASSERT_FALSE(bool(writeFileAtomically(File, Original)));
    auto S = measure::readLaunchSpec(In + "scale.json");
    ASSERT_TRUE(bool(S)) << llvm::toString(S.takeError());
    Spec = std::move(*S);
    TC.ResourceDir = FORGE_CLANG_RESOURCE_DIR;
    TC.CudaPath = FORGE_DEFAULT_CUDA_PATH;
    O.File = File;
    O.Spec = &Spec;
    O.SpecPath = In + "scale.json";
    O.Target = &llvm::cantFail(arch::lookupTarget("sm_90"));
    auto R = passes::selectExpertRules("restrict,unroll");
    ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
    O.Rules = *R;
    O.CudaPath = FORGE_DEFAULT_CUDA_PATH;
    O.Toolchain = &TC;
    O.Output.K = OutputChoice::Kind::InPlace;
    O.TranscriptPath = (Dir + "/t.json").str();
    O.ToolVersion = "forge-port test";
    O.Date = "2026-12-01";
  }
  void TearDown() override { llvm::sys::fs::remove_directories(Dir); }

  llvm::SmallString<128> Dir;
  std::string File, Original;
  measure::LaunchSpec Spec;
  frontend::Toolchain TC;
  agent::OptimizeSessionOptions O;
};

TEST_F(OptimizeSessionTest, WithoutAGpuNothingIsKeptAndTheTranscriptReplays) {
  std::vector<std::string> Records;
  O.OnRecord = [&](unsigned Round, const agent::ProposalRecord &P) {
    Records.push_back(P.P.Origin + ":" + agent::verdictName(P.Verdict).str());
  };
  agent::OptimizeSession Session(O);
  auto R = Session.run();
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_EQ(Session.proposerName(), "expert"); // no GPU: no tuner
  const agent::OptimizeResult &Res = R->Result;
  EXPECT_FALSE(Res.Measured);
  ASSERT_EQ(Res.Rounds.size(), 1u);
  ASSERT_EQ(Res.Rounds[0].Proposals.size(), 1u);
  const agent::ProposalRecord &P = Res.Rounds[0].Proposals[0];
  EXPECT_EQ(P.P.Origin, "expert:restrict");
  EXPECT_EQ(P.Verdict, agent::Verdict::Unmeasured);
  // It passed every stage up to the compile.
  ASSERT_FALSE(P.Stages.empty());
  EXPECT_EQ(P.Stages.back().Stage, agent::Stage::Compile);
  EXPECT_TRUE(P.Stages.back().Passed) << P.Stages.back().Detail;
  EXPECT_EQ(Records, std::vector<std::string>{"expert:restrict:unmeasured"});
  // unroll was asked and did not apply.
  bool UnrollSkipped = false;
  for (const auto &[Who, Why] : Res.Rounds[0].NotProposed)
    UnrollSkipped |= Who == "expert:unroll" && !Why.empty();
  EXPECT_TRUE(UnrollSkipped);
  EXPECT_EQ(Res.FinalSource, Original);
  EXPECT_TRUE(R->Diff.empty());
  EXPECT_FALSE(R->failed());
  EXPECT_EQ(*readFile(File), Original);
  EXPECT_EQ(Session.loopOptions().Target, O.Target);

  // The transcript replays to the same decisions, with no GPU and no rules.
  agent::OptimizeSessionOptions Again = O;
  Again.ReplayPath = O.TranscriptPath;
  Again.TranscriptPath.clear();
  Again.Rules.clear();
  auto Replayed = agent::OptimizeSession(Again).run();
  ASSERT_TRUE(bool(Replayed)) << llvm::toString(Replayed.takeError());
  EXPECT_TRUE(Replayed->Replayed);
  EXPECT_TRUE(Replayed->ReplayDifferences.empty());
  EXPECT_EQ(Replayed->Result.Rounds.size(), 1u);
}

TEST_F(OptimizeSessionTest, BadOptionsAreUsageErrors) {
  O.Scope = "everywhere";
  auto A = agent::OptimizeSession(O).run();
  ASSERT_FALSE(bool(A));
  llvm::Error E = A.takeError();
  EXPECT_TRUE(E.isA<UsageError>());
  EXPECT_NE(llvm::toString(std::move(E)).find("--scope 'everywhere'"), std::string::npos);
  O.Scope = "kernel";
  O.Threshold = 1.5;
  auto B = agent::OptimizeSession(O).run();
  ASSERT_FALSE(bool(B));
  EXPECT_NE(llvm::toString(B.takeError()).find("--threshold"), std::string::npos);
  EXPECT_EQ(*readFile(File), Original);
}

} // namespace
