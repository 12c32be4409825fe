//===- TuneSessionTest.cpp - The tune driver without the command line -----===//
//
// The tune driver on measurements recorded on an H200 (replay mode: no
// GPU): the sweep finds the record's optimum, the write-back puts the values
// into the launch, and the tuned source is compiled with the real nvcc for
// the target before anything is written.
//
//===----------------------------------------------------------------------===//
#include "forge/Config.h"
#include "forge/Support/Error.h"
#include "forge/Support/FileUtil.h"
#include "forge/Tune/TuneSession.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "gtest/gtest.h"

using namespace forge;

namespace {

const std::string Kernels = FORGE_SOURCE_DIR "/test/gpu/Inputs/tune";
const std::string Record = FORGE_SOURCE_DIR "/test/tools/Inputs/tune-h200.json";

class TuneSessionTest : public ::testing::Test {
protected:
  void SetUp() override {
    auto S = measure::readLaunchSpec(Kernels + "/sgemm_tiled.json");
    ASSERT_TRUE(bool(S)) << llvm::toString(S.takeError());
    Spec = std::move(*S);
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("forge-tune-session", Dir));
    TC.ResourceDir = FORGE_CLANG_RESOURCE_DIR;
    TC.CudaPath = FORGE_DEFAULT_CUDA_PATH;
    O.Sweep.Source = Kernels + "/sgemm_tiled.cu";
    O.Sweep.Spec = &Spec;
    O.Sweep.Targets = {&llvm::cantFail(arch::lookupTarget("sm_90"))};
    O.Sweep.ReplayPath = Record;
    O.Sweep.JobRoot = (Dir + "/job").str();
    O.CudaPath = FORGE_DEFAULT_CUDA_PATH;
    O.Toolchain = &TC;
    O.OnNote = [this](llvm::StringRef N, bool) { Notes.push_back(N.str()); };
  }
  void TearDown() override { llvm::sys::fs::remove_directories(Dir); }

  measure::LaunchSpec Spec;
  llvm::SmallString<128> Dir;
  frontend::Toolchain TC;
  tune::TuneSessionOptions O;
  std::vector<std::string> Notes;
};

TEST_F(TuneSessionTest, ReplayFindsTheRecordedOptimumAndWritesItBack) {
  O.Output.K = OutputChoice::Kind::Diff;
  tune::TuneSession Session(O);
  auto R = Session.tune();
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_TRUE(R->Replayed);
  EXPECT_EQ(R->ValidConfigs, 17u);
  ASSERT_EQ(R->Targets.size(), 1u);
  const tune::TargetResult &T = R->Targets[0];
  EXPECT_STREQ(T.Target->Name, "sm_90");
  EXPECT_TRUE(T.Measured);
  EXPECT_EQ(T.BestKey, "TILE=64,WPT=16");
  EXPECT_NEAR(T.BestNs / 1000, 727.74, 0.01);
  EXPECT_NEAR(T.BestNs, R->OptimumNs, 1e-6);

  auto W = Session.writeBack(*R);
  ASSERT_TRUE(bool(W)) << llvm::toString(W.takeError());
  // The launch takes its template arguments from these constants.
  EXPECT_NE(W->Contents.find("constexpr int TILE = 64;"), std::string::npos) << W->Contents;
  EXPECT_NE(W->Contents.find("constexpr int WPT = 16;"), std::string::npos) << W->Contents;
  EXPECT_NE(W->Diff.find("+constexpr int TILE = 64;"), std::string::npos) << W->Diff;
  // Diff output writes nothing.
  auto Original = readFile(O.Sweep.Source);
  ASSERT_TRUE(bool(Original));
  EXPECT_NE(Original->find("constexpr int TILE = 16;"), std::string::npos);
}

TEST_F(TuneSessionTest, WritesTheTunedSourceWhereAsked) {
  O.Output.K = OutputChoice::Kind::File;
  O.Output.Path = (Dir + "/tuned.cu").str();
  O.Sweep.Strategy = "greedy";
  O.Sweep.Seed = 2;
  O.Sweep.Limit.MaxEvaluations = 5;
  auto R = tune::TuneSession(O).run();
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_EQ(R->first.Measured, 5u); // the budget
  ASSERT_TRUE(R->second.has_value());
  auto Out = readFile(O.Output.Path);
  ASSERT_TRUE(bool(Out)) << llvm::toString(Out.takeError());
  EXPECT_EQ(*Out, R->second->Contents);
}

TEST_F(TuneSessionTest, BadOptionsAreErrorsBeforeAnythingRuns) {
  O.Sweep.Strategy = "no-such-strategy";
  auto R = tune::TuneSession(O).tune();
  ASSERT_FALSE(bool(R));
  EXPECT_NE(llvm::toString(R.takeError()).find("no-such-strategy"), std::string::npos);
  EXPECT_FALSE(llvm::sys::fs::exists(O.Sweep.JobRoot + "/final"));
}

TEST(TuneBudget, ConfigurationsOrSeconds) {
  auto N = tune::parseBudget("40");
  ASSERT_TRUE(bool(N));
  EXPECT_EQ(N->MaxEvaluations, 40u);
  auto S = tune::parseBudget("90s");
  ASSERT_TRUE(bool(S));
  EXPECT_DOUBLE_EQ(S->MaxSeconds, 90);
  auto M = tune::parseBudget("5m");
  ASSERT_TRUE(bool(M));
  EXPECT_DOUBLE_EQ(M->MaxSeconds, 300);
  for (const char *Bad : {"abc", "-3", "2.5", "0"}) {
    auto B = tune::parseBudget(Bad);
    ASSERT_FALSE(bool(B)) << Bad;
    llvm::Error E = B.takeError();
    EXPECT_TRUE(E.isA<UsageError>()) << Bad;
    llvm::consumeError(std::move(E));
  }
}

} // namespace

/// Without a GPU the values come from the database: the record of this
/// version of the source, else (an edited kernel) the newest record of the
/// same kernel and sizes, with a warning that it is stale.
class TuneFromDatabaseTest : public TuneSessionTest {
protected:
  void SetUp() override {
    TuneSessionTest::SetUp();
    O.Sweep.ReplayPath.clear();
    O.Sweep.DbPath = Record; // read only: nothing is measured
    auto Text = readFile(Kernels + "/sgemm_tiled.cu");
    ASSERT_TRUE(bool(Text));
    Edited = (Dir + "/sgemm_tiled.cu").str();
    ASSERT_FALSE(bool(writeFileAtomically(Edited, *Text + "// edited after tuning\n")));
  }
  std::string Edited;
};

TEST_F(TuneFromDatabaseTest, TheEntryOfThisVersionIsNotStale) {
  auto R = tune::TuneSession(O).tune();
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_FALSE(R->Stale);
  EXPECT_EQ(R->Measured, 0u);
  EXPECT_EQ(R->Targets[0].BestKey, "TILE=64,WPT=16");
}

TEST_F(TuneFromDatabaseTest, AnEditedKernelTakesItsLastValuesWithAWarning) {
  O.Sweep.Source = Edited;
  auto R = tune::TuneSession(O).tune();
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_TRUE(R->Stale);
  EXPECT_NE(R->StaleNote.find("no entry for this version of sgemm_tiled's source"),
            std::string::npos)
      << R->StaleNote;
  EXPECT_EQ(R->Targets[0].BestKey, "TILE=64,WPT=16");
  EXPECT_TRUE(R->Targets[0].Measured);
}

TEST_F(TuneFromDatabaseTest, AGeneratedCopyIsKeyedOnItsOriginal) {
  O.Sweep.Source = Edited; // as the build tree's ported copy
  O.Sweep.IdentitySource = Kernels + "/sgemm_tiled.cu";
  auto R = tune::TuneSession(O).tune();
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_FALSE(R->Stale);
  EXPECT_EQ(R->Targets[0].BestKey, "TILE=64,WPT=16");
}

TEST_F(TuneFromDatabaseTest, NoRecordOfTheKernelKeepsTheDefaults) {
  O.Sweep.Source = Edited;
  O.Sweep.DbPath = (Dir + "/empty.json").str();
  auto R = tune::TuneSession(O).tune();
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_FALSE(R->Stale);
  EXPECT_EQ(R->Targets[0].BestKey, R->DefaultKey);
  EXPECT_FALSE(llvm::sys::fs::exists(O.Sweep.DbPath)); // nothing measured, nothing written
}

TEST(ProgramModeTuning, KernelNamesAsCuptiReportsThem) {
  EXPECT_TRUE(tune::namesKernel("void triad<8>(float*, float const*, float const*, float, int)",
                                "triad"));
  EXPECT_TRUE(tune::namesKernel("void ns::scale<float, 4>(float*, int)", "ns::scale"));
  EXPECT_TRUE(tune::namesKernel("void ns::scale<float, 4>(float*, int)", "scale"));
  EXPECT_TRUE(tune::namesKernel("void (anonymous namespace)::k<std::pair<int, int> >(int)", "k"));
  EXPECT_TRUE(tune::namesKernel("saxpy", "saxpy")); // extern "C": not mangled
  EXPECT_FALSE(tune::namesKernel("void triad2<8>(float*)", "triad"));
  EXPECT_FALSE(tune::namesKernel("void mytriad(float*)", "triad"));
  EXPECT_FALSE(tune::namesKernel("void ns::scale(float*)", "other::scale"));
}
