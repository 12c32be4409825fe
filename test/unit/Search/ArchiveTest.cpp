//===- ArchiveTest.cpp - MAP-Elites insertion, lineage, JSON --------------===//
#include "SearchTestUtil.h"
#include "forge/Search/Archive.h"
#include "gtest/gtest.h"

using namespace forge;
using namespace forge::search;
using namespace forge::search::test;

namespace {

Descriptor globalCell() { return cell("global", "1", "scalar", ">=75 %"); }
Descriptor sharedCell() { return cell("shared", "1", "scalar", ">=75 %"); }
Descriptor vectorCell() { return cell("global", "1", "4-wide", ">=75 %"); }

TEST(Archive, NewCellThenReplacementBeyondNoise) {
  Archive A(0.05);
  InsertResult R0 = A.insert(variant("orig", {}, "original", 1000, globalCell()));
  EXPECT_EQ(R0.Outcome, InsertOutcome::NewCell);
  EXPECT_TRUE(R0.Incumbent.empty());
  EXPECT_EQ(A.cellCount(), 1u);

  // 4 % faster: within the 5 % noise, the incumbent stays.
  InsertResult R1 = A.insert(variant("v1", {"orig"}, "tuner", 960, globalCell(), 1));
  EXPECT_EQ(R1.Outcome, InsertOutcome::RejectedSlower);
  EXPECT_EQ(R1.Incumbent, "orig");
  EXPECT_NEAR(R1.SpeedupOverIncumbent, 1000.0 / 960, 1e-12);
  EXPECT_EQ(A.elite(globalCell())->Id, "orig");

  // Slower: rejected.
  EXPECT_EQ(A.insert(variant("v2", {"orig"}, "tuner", 1500, globalCell(), 1)).Outcome,
            InsertOutcome::RejectedSlower);

  // 20 % faster: replaces.
  InsertResult R3 = A.insert(variant("v3", {"orig"}, "expert:coalesce", 800, globalCell(), 1));
  EXPECT_EQ(R3.Outcome, InsertOutcome::Replaced);
  EXPECT_EQ(R3.Incumbent, "orig");
  EXPECT_EQ(A.elite(globalCell())->Id, "v3");
  EXPECT_EQ(A.cellCount(), 1u);

  // Another cell.
  EXPECT_EQ(A.insert(variant("v4", {"v3"}, "expert:transpose-tile", 2000, sharedCell(), 2)).Outcome,
            InsertOutcome::NewCell);
  EXPECT_EQ(A.cellCount(), 2u);
  EXPECT_DOUBLE_EQ(A.coverage(), 2.0 / NumCells);
  EXPECT_EQ(A.best()->Id, "v3");
  EXPECT_EQ(A.original()->Id, "orig");
  // Losers stay in the history for lineages.
  EXPECT_NE(A.find("v1"), nullptr);
  EXPECT_EQ(A.size(), 5u);
  std::vector<const Variant *> E = A.elites();
  ASSERT_EQ(E.size(), 2u);
}

TEST(Archive, IncorrectOrUnmeasuredNeverEnters) {
  Archive A;
  Variant Bad = variant("bad", {}, "model", 10, globalCell());
  Bad.Correct = false;
  EXPECT_EQ(A.insert(Bad).Outcome, InsertOutcome::RejectedIncorrect);
  Variant NoTime = variant("notime", {}, "model", 10, globalCell());
  NoTime.MedianNs.reset();
  EXPECT_EQ(A.insert(NoTime).Outcome, InsertOutcome::RejectedUnmeasured);
  Variant Zero = variant("zero", {}, "model", 0, globalCell());
  EXPECT_EQ(A.insert(Zero).Outcome, InsertOutcome::RejectedUnmeasured);
  EXPECT_EQ(A.cellCount(), 0u);
  EXPECT_EQ(A.size(), 0u);
  EXPECT_EQ(A.find("bad"), nullptr);
  EXPECT_EQ(A.best(), nullptr);

  // Even a much faster incorrect variant does not displace an elite.
  A.insert(variant("orig", {}, "original", 1000, globalCell()));
  Variant Fast = variant("fast", {"orig"}, "model", 1, globalCell());
  Fast.Correct = false;
  EXPECT_EQ(A.insert(Fast).Outcome, InsertOutcome::RejectedIncorrect);
  EXPECT_EQ(A.elite(globalCell())->Id, "orig");
  // Ids are unique.
  EXPECT_EQ(A.insert(variant("orig", {}, "original", 10, sharedCell())).Outcome,
            InsertOutcome::RejectedDuplicate);
  EXPECT_EQ(A.cellCount(), 1u);
}

TEST(Archive, EvaluationsPerOriginCountEveryEvaluation) {
  Archive A;
  A.noteEvaluation("expert:transpose-tile");
  A.noteEvaluation("tuner");
  A.noteEvaluation("tuner");
  A.noteEvaluation("model"); // failed to compile: counted, never inserted
  EXPECT_EQ(A.evaluations().at("tuner"), 2u);
  EXPECT_EQ(A.evaluations().at("expert:transpose-tile"), 1u);
  EXPECT_EQ(A.evaluations().at("model"), 1u);
  EXPECT_EQ(A.totalEvaluations(), 4u);
  EXPECT_EQ(A.cellCount(), 0u);
}

Archive lineageArchive() {
  Archive A(0.02);
  A.insert(variant("orig", {}, "original", 1000, globalCell()));
  A.insert(variant("g1", {"orig"}, "expert:coalesce", 800, globalCell(), 1));
  A.insert(variant("g2", {"g1"}, "expert:transpose-tile", 500, sharedCell(), 2));
  A.insert(variant("v", {"orig"}, "expert:vectorize", 900, vectorCell(), 1));
  A.insert(variant("x", {"g2", "v"}, "crossover", 400, vectorCell(), 3));
  return A;
}

TEST(Archive, LineageBackToTheOriginal) {
  Archive A = lineageArchive();
  auto L = A.lineage("x");
  ASSERT_TRUE(bool(L)) << llvm::toString(L.takeError());
  ASSERT_EQ(L->size(), 4u);
  EXPECT_EQ((*L)[0].Id, "orig");
  EXPECT_EQ((*L)[0].Origin, "original");
  EXPECT_DOUBLE_EQ((*L)[0].GainOverParent, 1.0);
  EXPECT_EQ((*L)[1].Id, "g1");
  EXPECT_EQ((*L)[1].Origin, "expert:coalesce");
  EXPECT_EQ((*L)[1].Generation, 1u);
  EXPECT_DOUBLE_EQ((*L)[1].GainOverParent, 1.25);
  EXPECT_EQ((*L)[2].Origin, "expert:transpose-tile");
  EXPECT_DOUBLE_EQ((*L)[2].GainOverParent, 1.6);
  EXPECT_EQ((*L)[3].Id, "x");
  EXPECT_EQ((*L)[3].Origin, "crossover");
  EXPECT_EQ((*L)[3].Generation, 3u);
  EXPECT_DOUBLE_EQ((*L)[3].GainOverParent, 1.25);
  ASSERT_EQ((*L)[3].OtherParents.size(), 1u);
  EXPECT_EQ((*L)[3].OtherParents[0], "v");

  auto Missing = A.lineage("nope");
  ASSERT_FALSE(bool(Missing));
  EXPECT_NE(llvm::toString(Missing.takeError()).find("no variant 'nope'"), std::string::npos);
}

TEST(Archive, LineageWithAMissingParentIsAnError) {
  Archive A;
  A.insert(variant("orphan", {"gone"}, "model", 10, globalCell(), 4));
  auto L = A.lineage("orphan");
  ASSERT_FALSE(bool(L));
  EXPECT_NE(llvm::toString(L.takeError()).find("parent 'gone'"), std::string::npos);
}

TEST(Archive, JsonRoundTrip) {
  Archive A = lineageArchive();
  A.noteEvaluation("tuner");
  A.noteEvaluation("crossover");
  A.noteEvaluation("crossover");
  std::string Text = A.toJson().dump(2);
  auto B = Archive::fromJsonText(Text, "archive.json");
  ASSERT_TRUE(bool(B)) << llvm::toString(B.takeError());
  EXPECT_EQ(B->toJson().dump(2), Text);
  EXPECT_EQ(B->cellCount(), A.cellCount());
  EXPECT_EQ(B->best()->Id, "x");
  EXPECT_EQ(B->evaluations().at("crossover"), 2u);
  EXPECT_DOUBLE_EQ(B->relativeNoise(), 0.02);
  auto L = B->lineage("x");
  ASSERT_TRUE(bool(L)) << llvm::toString(L.takeError());
  EXPECT_EQ(L->size(), 4u);
  // The restored archive keeps deciding the same way.
  EXPECT_EQ(B->insert(variant("y", {"x"}, "tuner", 395, vectorCell(), 4)).Outcome,
            InsertOutcome::RejectedSlower);
  EXPECT_EQ(B->insert(variant("z", {"x"}, "tuner", 300, vectorCell(), 4)).Outcome,
            InsertOutcome::Replaced);
}

std::string errorOf(const std::string &Text) {
  auto A = Archive::fromJsonText(Text, "a.json");
  if (A)
    return "(accepted)";
  return llvm::toString(A.takeError());
}

TEST(Archive, MalformedJsonIsAnErrorNotAnAbort) {
  Archive A = lineageArchive();
  Json Good = A.toJson();

  EXPECT_NE(errorOf("{\"version\": 1,").find("a.json"), std::string::npos);
  EXPECT_NE(errorOf("[1, 2]").find("expected an object"), std::string::npos) << errorOf("[1, 2]");

  Json J = Good;
  J["version"] = 2;
  EXPECT_NE(errorOf(J.dump()).find("$.version"), std::string::npos);

  J = Good;
  J["variants"][1]["median_ns"] = "fast";
  EXPECT_NE(errorOf(J.dump()).find("$.variants[1].median_ns"), std::string::npos)
      << errorOf(J.dump());

  J = Good;
  J["variants"][1]["median_ns"] = -3;
  EXPECT_NE(errorOf(J.dump()).find("positive"), std::string::npos);

  J = Good;
  J["variants"][2]["correct"] = false;
  EXPECT_NE(errorOf(J.dump()).find("incorrect"), std::string::npos);

  J = Good;
  J["variants"][0]["descriptor"]["occupancy"] = "lots";
  EXPECT_NE(errorOf(J.dump()).find("$.variants[0].descriptor.occupancy"), std::string::npos)
      << errorOf(J.dump());

  J = Good;
  J["cells"][0]["elite"] = "ghost";
  EXPECT_NE(errorOf(J.dump()).find("no variant 'ghost'"), std::string::npos);

  J = Good;
  J["cells"][0]["key"] = "shared/8+/4-wide/<25 %";
  EXPECT_NE(errorOf(J.dump()).find("is not the cell of"), std::string::npos);

  J = Good;
  J["variants"][1]["id"] = "orig";
  EXPECT_NE(errorOf(J.dump()).find("duplicate id"), std::string::npos);

  J = Good;
  J["variants"][1]["parents"] = {"nobody"};
  EXPECT_NE(errorOf(J.dump()).find("parent 'nobody'"), std::string::npos);

  J = Good;
  J["evaluations"]["tuner"] = -1;
  EXPECT_NE(errorOf(J.dump()).find("$.evaluations.tuner"), std::string::npos) << errorOf(J.dump());

  J = Good;
  J.erase("cells");
  EXPECT_NE(errorOf(J.dump()).find("cells"), std::string::npos);
}

} // namespace
