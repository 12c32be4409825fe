//===- TranscriptTest.cpp - the names in transcripts, read back -----------===//
#include "forge/Agent/Transcript.h"
#include "forge/Support/FileUtil.h"
#include "gtest/gtest.h"
#include "llvm/Support/FileSystem.h"
#include <iterator>

using namespace forge;
using namespace forge::agent;

namespace {

// The spellings are the transcript format (docs/transcript-format.md).
TEST(Transcript, EveryStageRoundTripsThroughItsName) {
  const char *Names[] = {"parse", "apply",   "reparse", "contract",    "scope",
                         "scan",  "compile", "repair",  "correctness", "timing"};
  for (size_t I = 0; I < std::size(Names); ++I) {
    Stage S = Stage(I);
    EXPECT_EQ(stageName(S), Names[I]);
    EXPECT_EQ(parseStage(Names[I]), S) << Names[I];
  }
  EXPECT_EQ(parseStage("Parse"), std::nullopt);
  EXPECT_EQ(parseStage(""), std::nullopt);
  EXPECT_EQ(stageName(std::optional<Stage>()), "");
}

TEST(Transcript, EveryVerdictRoundTripsThroughItsName) {
  const char *Names[] = {"accepted",   "rejected",  "slower",
                         "not-faster", "unmeasured", "superseded"};
  for (size_t I = 0; I < std::size(Names); ++I) {
    Verdict V = Verdict(I);
    EXPECT_EQ(verdictName(V), Names[I]);
    EXPECT_EQ(parseVerdict(Names[I]), V) << Names[I];
  }
  EXPECT_EQ(parseVerdict("not_faster"), std::nullopt);
  EXPECT_EQ(verdictName(std::optional<Verdict>()), "");
}

class ReplayLoad : public ::testing::Test {
protected:
  void SetUp() override {
    llvm::SmallString<128> P;
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("forge-transcript-test", P));
    Dir = P.str().str();
  }
  void TearDown() override { llvm::sys::fs::remove_directories(Dir); }

  /// The error of loading a transcript whose one proposal is Proposal.
  std::string load(const std::string &Proposal) {
    std::string Path = Dir + "/t.json";
    std::string Text = R"({"forge_transcript": 1, "measurements": [], "rounds": [)"
                       R"({"round": 1, "accepted": -1, "proposals": [)" +
                       Proposal + "]}]}";
    EXPECT_FALSE(bool(writeFileAtomically(Path, Text)));
    auto R = Replay::load(Path);
    std::string E = R ? "no error" : llvm::toString(R.takeError());
    size_t At = E.find("t.json");
    return At == std::string::npos ? E : E.substr(At);
  }

  std::string Dir;
};

TEST_F(ReplayLoad, KnownNamesLoad) {
  EXPECT_EQ(load(R"({"origin": "model", "verdict": "not-faster", "status": "ok",)"
                 R"( "stages": [{"stage": "parse", "passed": true}, {"stage": "timing"}]})"),
            "no error");
}

TEST_F(ReplayLoad, AnUnknownNameIsAnErrorWithItsPath) {
  EXPECT_EQ(load(R"({"origin": "model", "verdict": "exploded"})"),
            "t.json: $.rounds[0].proposals[0].verdict: unknown verdict 'exploded'");
  EXPECT_EQ(load(R"({"origin": "model", "verdict": "accepted", "status": "fine"})"),
            "t.json: $.rounds[0].proposals[0].status: unknown status 'fine'");
  EXPECT_EQ(load(R"({"origin": "model", "verdict": "rejected",)"
                 R"( "stages": [{"stage": "parse"}, {"stage": "lint"}]})"),
            "t.json: $.rounds[0].proposals[0].stages[1].stage: unknown stage 'lint'");
  EXPECT_EQ(load(R"({"origin": "model", "verdict": 3})"),
            "t.json: $.rounds[0].proposals[0].verdict: expected a string");
  EXPECT_EQ(load(R"("not a proposal")"),
            "t.json: $.rounds[0].proposals[0]: expected an object");
}

// A transcript is a file anyone can edit: its "trusted" flag does not
// exempt a replayed proposal (or its repair) from the scope.
TEST_F(ReplayLoad, AReplayedProposalIsNeverTrusted) {
  std::string Path = Dir + "/t.json";
  std::string Text =
      R"({"forge_transcript": 1, "measurements": [], "rounds": [)"
      R"({"round": 1, "accepted": -1, "proposals": [)"
      R"({"origin": "expert:restrict", "trusted": true, "reply": "x", "verdict": "rejected",)"
      R"( "repair": {"origin": "tuner", "trusted": true, "reply": "y"}}]}]})";
  ASSERT_FALSE(bool(writeFileAtomically(Path, Text)));
  auto R = Replay::load(Path);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  ProposalRequest Q;
  Q.Round = 1;
  auto Props = (*R)->propose(Q);
  ASSERT_TRUE(bool(Props));
  ASSERT_EQ(Props->size(), 1u);
  EXPECT_EQ((*Props)[0].Origin, "expert:restrict");
  EXPECT_FALSE((*Props)[0].Trusted);
  auto Rep = (*R)->repair(Q, (*Props)[0]);
  ASSERT_TRUE(bool(Rep));
  ASSERT_TRUE(Rep->has_value());
  EXPECT_FALSE((*Rep)->Trusted);
  // The flag's type is still checked.
  EXPECT_EQ(load(R"({"origin": "tuner", "trusted": "yes"})"),
            "t.json: $.rounds[0].proposals[0].trusted: expected true or false");
}

// A tunable value of 2^63 or more is refused, not read back as negative.
TEST_F(ReplayLoad, ATunableValueBeyondInt64IsAnError) {
  auto With = [&](const char *V) {
    return load(std::string(R"({"origin": "model", "spec_change": {"new_tunables": {"T": [8, )") +
                V + R"(]}, "justification": "wider"}})");
  };
  EXPECT_EQ(With("9223372036854775807"), "no error");
  EXPECT_EQ(With("9223372036854775808"),
            "t.json: $.rounds[0].proposals[0].spec_change.new_tunables.T[1]: "
            "integer out of range");
  EXPECT_EQ(With("1.5"), "t.json: $.rounds[0].proposals[0].spec_change.new_tunables.T[1]: "
                         "expected an integer");
}

// Replay::parse is load() without the file (the fuzz target's entry).
TEST(ReplayParse, ReadsTextAsLoadReadsAFile) {
  auto Good = Replay::parse(R"({"forge_transcript": 1, "rounds": [], "measurements": [],)"
                            R"( "measured": true, "options": {"rounds": 3}})",
                            "mem.json");
  ASSERT_TRUE(bool(Good)) << llvm::toString(Good.takeError());
  EXPECT_TRUE((*Good)->options().Measured);
  EXPECT_EQ((*Good)->options().Rounds, 3u);
  auto Truncated = Replay::parse(R"({"forge_transcript": 1, "rou)", "mem.json");
  ASSERT_FALSE(bool(Truncated));
  EXPECT_NE(llvm::toString(Truncated.takeError()).find("mem.json: invalid JSON"),
            std::string::npos);
  auto NoRounds = Replay::parse(R"({"forge_transcript": 1, "measurements": []})", "mem.json");
  ASSERT_FALSE(bool(NoRounds));
  EXPECT_NE(llvm::toString(NoRounds.takeError()).find("mem.json: $.rounds"),
            std::string::npos);
}

} // namespace
