//===- RankTest.cpp - Ranking proposals and prompt lines -----------------===//
#include "ExperienceTestUtil.h"

using namespace forge;
using namespace forge::experience;
using namespace forge::experience::test;

namespace {

const char *const P = "reduction(atomic,add,grid)|access:broadcast,coalesced|loops:none";
const char *const Other =
    "reduction(atomic,add,grid)|access:broadcast,coalesced|loops:d1:grid-stride";

/// A library of the given entries (through the file, as a run reads it).
struct Lib {
  TempDir D;
  Experience X;
  explicit Lib(const std::vector<Entry> &Es) : X(load(D)) { EXPECT_FALSE(bool(X.record(Es))); }
  static Experience load(TempDir &D) {
    auto L = Experience::load(D.path("x.json"));
    EXPECT_TRUE(bool(L));
    return std::move(*L);
  }
};

Entry rejected(const char *T, const char *Pattern, const char *Arch, const char *Stage,
               const char *Family = "reduction") {
  Entry E = entry(T, Pattern, Arch, Verdict::Rejected, 0, Family);
  E.Stage = Stage;
  return E;
}
Entry kept(const char *T, const char *Pattern, const char *Arch, double Gain,
           const char *Family = "reduction") {
  return entry(T, Pattern, Arch, Verdict::Kept, Gain, Family);
}

using Names = std::vector<std::string>;

TEST(Rank, NeverHelpedLastHelpedFirstUnknownStable) {
  Lib L({rejected("expert:vectorize", P, "sm_90", "correctness"),
         rejected("expert:vectorize", P, "sm_90", "correctness"),
         kept("expert:hierarchical-reduction", P, "sm_90", 5),
         kept("expert:hierarchical-reduction", P, "sm_90", 7),
         kept("expert:hierarchical-reduction", P, "sm_90", 9)});
  EXPECT_EQ(
      L.X.rank({"expert:vectorize", "expert:restrict", "expert:hierarchical-reduction", "tuner"}, P,
               "reduction", "sm_90"),
      (Names{"expert:hierarchical-reduction", "expert:restrict", "tuner", "expert:vectorize"}));
}

TEST(Rank, HelpedByGeometricMeanOverTries) {
  // a: 2x and 8x (geometric 4, arithmetic 5); b: 4.9x; c: 10x once in two
  // tries (expected sqrt(10) = 3.2x).
  Lib L({kept("a", P, "sm_90", 2), kept("a", P, "sm_90", 8), kept("b", P, "sm_90", 4.9),
         kept("c", P, "sm_90", 10), entry("c", P, "sm_90", Verdict::Slower, 0, "reduction")});
  EXPECT_EQ(L.X.rank({"c", "a", "b"}, P, "reduction", "sm_90"), (Names{"b", "a", "c"}));
}

TEST(Rank, NoEntriesKeepsTheOrder) {
  Lib L({});
  Names In = {"z", "a", "m", "a"};
  EXPECT_EQ(L.X.rank(In, P, "reduction", "sm_90"), In);
}

TEST(Rank, MoreEvidenceAgainstGoesFurtherBack) {
  Lib L({rejected("x", P, "sm_90", "compile"), rejected("y", P, "sm_90", "compile"),
         entry("y", P, "sm_90", Verdict::Slower, 0, "reduction"),
         entry("y", P, "sm_90", Verdict::NotFaster, 0, "reduction")});
  EXPECT_EQ(L.X.rank({"y", "x", "u"}, P, "reduction", "sm_90"), (Names{"u", "x", "y"}));
}

TEST(Rank, FallsBackToTheFamilyThenToOtherArchs) {
  // Nothing on P itself: a kernel of the same family on sm_90 says t1
  // helped and t2 did not.
  Lib L(
      {kept("t1", Other, "sm_90", 3), rejected("t2", Other, "sm_90", "correctness"),
       // Another family says nothing about this one.
       rejected("t1", "stencil(2d,r1)|access:coalesced|loops:none", "sm_90", "timing", "stencil")});
  EXPECT_EQ(L.X.rank({"t2", "u", "t1"}, P, "reduction", "sm_90"), (Names{"t1", "u", "t2"}));
  // The same entries on another arch count too, with less weight.
  EXPECT_EQ(L.X.rank({"t2", "u", "t1"}, P, "reduction", "sm_100"), (Names{"t1", "u", "t2"}));
}

TEST(Rank, TheMostSpecificEntriesDecide) {
  // t helped on the family, never on this very pattern and arch: last.
  Lib L({kept("t", Other, "sm_90", 4), kept("t", Other, "sm_90", 4),
         rejected("t", P, "sm_90", "correctness"),
         // s never helped on sm_80, but helped here.
         rejected("s", P, "sm_80", "compile"), kept("s", P, "sm_90", 1.2)});
  EXPECT_EQ(L.X.rank({"t", "u", "s"}, P, "reduction", "sm_90"), (Names{"s", "u", "t"}));
}

TEST(Rank, FallbacksWeighLess) {
  // c: 1.3x on this pattern and arch (log 0.26); b: 1.5x on the family and
  // arch (0.5 * log 1.5 = 0.20); a: 2x on this pattern on another arch
  // (0.25 * log 2 = 0.17); d: 3x on the family on another arch
  // (0.125 * log 3 = 0.14).
  Lib L({kept("a", P, "sm_80", 2), kept("b", Other, "sm_90", 1.5), kept("c", P, "sm_90", 1.3),
         kept("d", Other, "sm_80", 3)});
  EXPECT_EQ(L.X.rank({"d", "a", "b", "c"}, P, "reduction", "sm_90"), (Names{"c", "b", "a", "d"}));
}

TEST(Rank, DeterministicWhateverTheOrderOfTheFile) {
  std::vector<Entry> Es = {kept("a", P, "sm_90", 2),     kept("a", P, "sm_90", 3),
                           kept("b", P, "sm_90", 2.4),   rejected("c", P, "sm_90", "compile"),
                           kept("d", Other, "sm_90", 9), rejected("e", Other, "sm_80", "apply")};
  Lib Forward(Es);
  std::reverse(Es.begin(), Es.end());
  Lib Backward(Es);
  Names In = {"e", "d", "c", "b", "a", "f"};
  Names Want = Forward.X.rank(In, P, "reduction", "sm_90");
  // d: 9x on the family (0.5 * log 9 = 1.10) before a (log sqrt(6) = 0.90)
  // and b (log 2.4 = 0.88); e, never helped on the family on another arch,
  // before c, never helped on this very pattern and arch.
  EXPECT_EQ(Want, (Names{"d", "a", "b", "f", "e", "c"}));
  EXPECT_EQ(Backward.X.rank(In, P, "reduction", "sm_90"), Want);
  EXPECT_EQ(Forward.X.rank(In, P, "reduction", "sm_90"), Want);
}

TEST(Tally, Describes) {
  Entry K1 = kept("t", P, "sm_90", 5), K2 = kept("t", P, "sm_90", 7.2),
        R1 = rejected("t", P, "sm_90", "correctness"), R2 = rejected("t", P, "sm_90", "compile"),
        S = entry("t", P, "sm_90", Verdict::Slower);
  EXPECT_EQ(tally({&K1, &K2}).describe(), "kept 2 of 2, mean 6.0x");
  EXPECT_EQ(tally({&K1, &R1}).describe(), "kept 1 of 2, mean 5.0x");
  EXPECT_EQ(tally({&R1, &R1}).describe(), "rejected 2 of 2 (correctness)");
  EXPECT_EQ(tally({&S}).describe(), "slower 1 of 1");
  EXPECT_EQ(tally({&R2, &S, &R1, &R1}).describe(),
            "kept 0 of 4 (2 rejected (correctness), 1 rejected (compile), 1 slower)");
  Tally T = tally({&K1, &R1});
  EXPECT_NEAR(T.ExpectedGain, std::sqrt(5.0), 1e-9);
  EXPECT_NEAR(tally({&K1, &K2}).MeanGain, std::sqrt(5 * 7.2), 1e-9);
}

TEST(PromptLines, MostSpecificFirstWithinTheLimit) {
  Lib L({kept("expert:hierarchical-reduction", P, "sm_90", 6.5),
         kept("expert:hierarchical-reduction", P, "sm_90", 7.1),
         kept("expert:hierarchical-reduction", P, "sm_90", 7.8),
         rejected("expert:vectorize", P, "sm_90", "correctness"),
         rejected("expert:vectorize", P, "sm_90", "correctness"),
         kept("tuner", Other, "sm_90", 1.3), kept("expert:restrict", P, "sm_80", 1.1),
         kept("expert:hierarchical-reduction", P, "sm_80", 4)});
  auto Lines = L.X.promptLines(P, "reduction", "sm_90", 8);
  ASSERT_EQ(Lines.size(), 3u);
  EXPECT_EQ(Lines[0], std::string("on this pattern (") + P +
                          ") and sm_90: expert:hierarchical-reduction kept 3 of 3, mean 7.1x; "
                          "expert:vectorize rejected 2 of 2 (correctness)");
  EXPECT_EQ(Lines[1],
            "on kernels of the same family (reduction) and sm_90: tuner kept 1 of 1, mean 1.3x");
  EXPECT_EQ(Lines[2], std::string("on this pattern (") + P +
                          ") and other targets (sm_80): expert:restrict kept 1 of 1, mean 1.1x");
  // At most two transformations.
  auto Two = L.X.promptLines(P, "reduction", "sm_90", 2);
  ASSERT_EQ(Two.size(), 1u);
  EXPECT_EQ(Two[0], Lines[0]);
  auto One = L.X.promptLines(P, "reduction", "sm_90", 1);
  ASSERT_EQ(One.size(), 1u);
  EXPECT_EQ(One[0], std::string("on this pattern (") + P +
                        ") and sm_90: expert:hierarchical-reduction kept 3 of 3, mean 7.1x");
  EXPECT_TRUE(
      L.X.promptLines("stencil(2d,r1)|access:coalesced|loops:none", "stencil", "sm_90").empty());
}

TEST(Summaries, OneRowPerTransformationPatternAndArch) {
  Lib L({kept("b", P, "sm_90", 2), kept("b", P, "sm_90", 8), rejected("b", P, "sm_90", "apply"),
         kept("a", P, "sm_90", 3), kept("a", P, "sm_80", 3)});
  auto Rows = L.X.summaries();
  ASSERT_EQ(Rows.size(), 3u);
  EXPECT_EQ(Rows[0].Arch, "sm_80");
  EXPECT_EQ(Rows[1].Transformation, "a");
  EXPECT_EQ(Rows[2].Transformation, "b");
  EXPECT_EQ(Rows[2].T.Kept, 2u);
  EXPECT_EQ(Rows[2].T.Tried, 3u);
  EXPECT_NEAR(Rows[2].T.MeanGain, 4.0, 1e-9);
  EXPECT_EQ(L.X.select("a").size(), 2u);
  EXPECT_EQ(L.X.select(P).size(), 5u);
  EXPECT_EQ(L.X.select("reduction").size(), 5u);
  EXPECT_TRUE(L.X.select("zzz").empty());
}

} // namespace
