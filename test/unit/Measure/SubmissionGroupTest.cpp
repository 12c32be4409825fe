//===- SubmissionGroupTest.cpp - several sessions, one submission per round ===//
#include "forge/Measure/SubmissionGroup.h"
#include "forge/Support/Error.h"
#include "gtest/gtest.h"
#include <thread>

using namespace forge;
using namespace forge::measure;

namespace {

/// Records each run() (one submission) and answers every directory with an
/// exit status from its name's length, and one result line per directory.
class RecordingExecutor final : public Executor {
public:
  std::vector<std::vector<std::string>> Submissions;
  bool Fail = false;
  llvm::StringRef name() const override { return "recording"; }
  unsigned candidatesPerJob() const override { return 3; }
  std::string jobStore() const override { return "/store"; }
  llvm::Expected<std::vector<JobRun>> run(const std::vector<std::string> &Dirs,
                                          const ExecutorHooks &H) override {
    Submissions.push_back(Dirs);
    if (Fail)
      return makeError("sbatch: error: Batch job submission failed");
    if (H.OnStatus)
      H.OnStatus("1 array");
    std::vector<JobRun> Runs;
    for (const std::string &D : Dirs) {
      CandidateResult C;
      C.Id = "from " + D;
      if (H.OnResult)
        H.OnResult(D, C);
      JobRun J;
      J.Dir = D;
      J.Finished = true;
      J.ExitCode = int(D.size());
      Runs.push_back(J);
    }
    return Runs;
  }
};

struct Seen {
  std::vector<std::string> Results, Statuses;
};

ExecutorHooks hooksInto(Seen &S) {
  ExecutorHooks H;
  H.OnResult = [&S](llvm::StringRef Dir, const CandidateResult &C) {
    S.Results.push_back(Dir.str() + ": " + C.Id);
  };
  H.OnStatus = [&S](llvm::StringRef T) { S.Statuses.push_back(T.str()); };
  return H;
}

// Three sessions: a round goes out when every member is waiting or gone,
// as one run() of the executor over all their directories; each member gets
// its own runs in its own order and only its own result lines.
TEST(SubmissionGroup, ARoundIsOneSubmissionForEveryMember) {
  RecordingExecutor Inner;
  SubmissionGroup G(Inner);
  auto A = G.join(), B = G.join(), C = G.join();
  EXPECT_EQ(A->name(), "recording");
  EXPECT_EQ(A->candidatesPerJob(), 3u);
  EXPECT_EQ(A->jobStore(), "/store");
  Seen SA, SB;
  std::vector<JobRun> RA1, RA2, RB;
  std::thread TA([&] {
    ExecutorHooks H = hooksInto(SA);
    auto R = A->run({"a1", "shared", "a22"}, H);
    ASSERT_TRUE(bool(R));
    RA1 = std::move(*R);
    R = A->run({"a333"}, H); // the second round: B has left by then
    ASSERT_TRUE(bool(R));
    RA2 = std::move(*R);
    A.reset();
  });
  std::thread TB([&] {
    auto R = B->run({"shared", "b1"}, hooksInto(SB));
    ASSERT_TRUE(bool(R));
    RB = std::move(*R);
    B.reset();
  });
  // C asks for nothing: until it leaves, no round can go out.
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(G.rounds(), 0u);
  C.reset();
  TA.join();
  TB.join();

  ASSERT_EQ(Inner.Submissions.size(), 2u);
  std::vector<std::string> First = Inner.Submissions[0];
  std::sort(First.begin(), First.end());
  // "shared" is run once for both members.
  EXPECT_EQ(First, (std::vector<std::string>{"a1", "a22", "b1", "shared"}));
  EXPECT_EQ(Inner.Submissions[1], (std::vector<std::string>{"a333"}));
  EXPECT_EQ(G.rounds(), 2u);

  ASSERT_EQ(RA1.size(), 3u);
  EXPECT_EQ(RA1[0].Dir, "a1");
  EXPECT_EQ(RA1[0].ExitCode, 2);
  EXPECT_EQ(RA1[1].Dir, "shared");
  EXPECT_EQ(RA1[2].ExitCode, 3);
  ASSERT_EQ(RA2.size(), 1u);
  EXPECT_EQ(RA2[0].ExitCode, 4);
  ASSERT_EQ(RB.size(), 2u);
  EXPECT_EQ(RB[0].Dir, "shared");
  EXPECT_EQ(RB[1].Dir, "b1");
  EXPECT_EQ(RB[1].ExitCode, 2);

  std::sort(SB.Results.begin(), SB.Results.end());
  EXPECT_EQ(SB.Results, (std::vector<std::string>{"b1: from b1", "shared: from shared"}));
  EXPECT_EQ(SA.Results.size(), 4u); // a1, shared, a22; then a333
  // The first round's status went to one of its members, the second's to A.
  EXPECT_EQ(SA.Statuses.size() + SB.Statuses.size(), 2u);
  EXPECT_GE(SA.Statuses.size(), 1u);
}

// A member alone runs at once; a failed submission reaches every member of
// its round as an error.
TEST(SubmissionGroup, AFailedSubmissionFailsEveryMemberOfItsRound) {
  RecordingExecutor Inner;
  SubmissionGroup G(Inner);
  {
    auto Alone = G.join();
    auto R = Alone->run({"x"}, {});
    ASSERT_TRUE(bool(R));
    EXPECT_EQ(R->size(), 1u);
  }
  Inner.Fail = true;
  auto A = G.join(), B = G.join();
  std::string EA, EB;
  std::thread TA([&] {
    auto R = A->run({"a"}, {});
    EA = R ? "no error" : llvm::toString(R.takeError());
  });
  std::thread TB([&] {
    auto R = B->run({"b"}, {});
    EB = R ? "no error" : llvm::toString(R.takeError());
  });
  TA.join();
  TB.join();
  EXPECT_EQ(Inner.Submissions.size(), 2u);
  EXPECT_EQ(Inner.Submissions[1].size(), 2u);
  EXPECT_EQ(EA, "sbatch: error: Batch job submission failed");
  EXPECT_EQ(EB, EA);
}

} // namespace

namespace {
// A member that stays idle (its session busy elsewhere) holds a round back
// for GatherS at most.
TEST(SubmissionGroup, AnIdleMemberHoldsARoundBackForGatherSecondsAtMost) {
  RecordingExecutor Inner;
  SubmissionGroup G(Inner, /*GatherS=*/0.3);
  auto A = G.join(), Idle = G.join();
  auto T0 = std::chrono::steady_clock::now();
  auto R = A->run({"a"}, {});
  double Waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - T0).count();
  ASSERT_TRUE(bool(R));
  EXPECT_EQ(R->size(), 1u);
  EXPECT_GE(Waited, 0.29);
  EXPECT_LT(Waited, 5.0);
  EXPECT_EQ(G.rounds(), 1u);
}
} // namespace
