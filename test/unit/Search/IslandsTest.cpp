//===- IslandsTest.cpp - Seeded selection, migration and crossover --------===//
#include "SearchTestUtil.h"
#include "forge/Search/Islands.h"
#include "gtest/gtest.h"
#include <set>

using namespace forge;
using namespace forge::search;
using namespace forge::search::test;

namespace {

/// Twelve variants in six cells, times 100 .. 1200 ns ("v1" fastest).
Archive twelve() {
  Archive A(0.0);
  const char *Mem[] = {"global", "shared", "register"};
  const char *Vec[] = {"scalar", "4-wide"};
  A.insert(variant("orig", {}, "original", 5000, cell("global", "1", "scalar", "<25 %")));
  for (int I = 1; I <= 12; ++I) {
    Descriptor D = cell(Mem[I % 3], "1", Vec[(I / 3) % 2], ">=75 %");
    A.insert(variant("v" + std::to_string(I), {"orig"}, "tuner", 100.0 * I, D, 1));
  }
  return A;
}

std::vector<std::string> selections(uint64_t Seed, const Archive &A, unsigned N = 40) {
  IslandOptions O;
  O.Islands = 2;
  O.Population = 6;
  O.EliteProbability = 0.25;
  Islands I(O, Seed);
  for (int K = 1; K <= 12; ++K)
    if (auto R = I.add(K % 2, "v" + std::to_string(K), A); !R)
      ADD_FAILURE() << llvm::toString(R.takeError());
  std::vector<std::string> Out;
  for (unsigned K = 0; K < N; ++K) {
    auto S = I.selectParent(K % 2, A);
    if (!S) {
      ADD_FAILURE() << llvm::toString(S.takeError());
      return Out;
    }
    Out.push_back(S->Id + (S->FromArchive ? "*" : ""));
  }
  return Out;
}

TEST(Islands, SameSeedSameChoicesDifferentSeedDiffers) {
  Archive A = twelve();
  std::vector<std::string> S1 = selections(42, A), S2 = selections(42, A), S3 = selections(7, A);
  EXPECT_EQ(S1, S2);
  EXPECT_NE(S1, S3);
  // Both kinds of choice occur.
  EXPECT_TRUE(std::any_of(S1.begin(), S1.end(), [](const std::string &S) { return S.back() == '*'; }));
  EXPECT_TRUE(std::any_of(S1.begin(), S1.end(), [](const std::string &S) { return S.back() != '*'; }));
}

TEST(Islands, FixedDrawsOfTheGenerator) {
  // The bounded draws are ours, not a standard distribution's: these values
  // hold on every standard library.
  IslandOptions O;
  Islands I(O, 12345);
  std::mt19937_64 Ref(12345);
  uint64_t X = Ref();
  EXPECT_EQ(I.uniform(1000), X % 1000);
  Islands J(O, 12345);
  std::vector<uint64_t> A, B;
  for (int K = 0; K < 20; ++K) {
    A.push_back(J.uniform(7));
  }
  Islands L(O, 12345);
  for (int K = 0; K < 20; ++K)
    B.push_back(L.uniform(7));
  EXPECT_EQ(A, B);
  for (uint64_t V : A)
    EXPECT_LT(V, 7u);
  Islands U(O, 99);
  for (int K = 0; K < 100; ++K) {
    double D = U.unit();
    EXPECT_GE(D, 0.0);
    EXPECT_LT(D, 1.0);
  }
}

TEST(Islands, TournamentPicksTheFasterOfTwo) {
  Archive A = twelve();
  IslandOptions O;
  O.Islands = 1;
  O.Population = 2;
  O.EliteProbability = 0;
  Islands I(O, 1);
  ASSERT_TRUE(bool(I.add(0, "v9", A)));
  ASSERT_TRUE(bool(I.add(0, "v4", A)));
  // With two members the tournament always draws both: v4 (400 ns) wins.
  for (int K = 0; K < 20; ++K) {
    auto S = I.selectParent(0, A);
    ASSERT_TRUE(bool(S)) << llvm::toString(S.takeError());
    EXPECT_EQ(S->Id, "v4");
    EXPECT_FALSE(S->FromArchive);
  }
  // Elite probability 1: always an archive elite.
  O.EliteProbability = 1;
  Islands E(O, 1);
  ASSERT_TRUE(bool(E.add(0, "v9", A)));
  std::set<std::string> EliteIds;
  for (const Variant *V : A.elites())
    EliteIds.insert(V->Id);
  for (int K = 0; K < 20; ++K) {
    auto S = E.selectParent(0, A);
    ASSERT_TRUE(bool(S));
    EXPECT_TRUE(S->FromArchive);
    EXPECT_TRUE(EliteIds.count(S->Id)) << S->Id;
  }
}

TEST(Islands, AddKeepsTheBestWhenFull) {
  Archive A = twelve();
  IslandOptions O;
  O.Islands = 1;
  O.Population = 2;
  Islands I(O, 3);
  EXPECT_EQ(*I.add(0, "v5", A), AddOutcome::Added);
  EXPECT_EQ(*I.add(0, "v7", A), AddOutcome::Added);
  EXPECT_EQ(*I.add(0, "v7", A), AddOutcome::AlreadyThere);
  EXPECT_EQ(*I.add(0, "v9", A), AddOutcome::Rejected);
  EXPECT_EQ(*I.add(0, "v2", A), AddOutcome::ReplacedWorst);
  EXPECT_EQ(I.population(0), (std::vector<std::string>{"v5", "v2"}));
  auto Bad = I.add(0, "ghost", A);
  ASSERT_FALSE(bool(Bad));
  EXPECT_NE(llvm::toString(Bad.takeError()).find("'ghost'"), std::string::npos);
  auto Range = I.add(3, "v1", A);
  ASSERT_FALSE(bool(Range));
  llvm::consumeError(Range.takeError());
}

TEST(Islands, RingMigrationBestReplacesWorst) {
  Archive A = twelve();
  IslandOptions O;
  O.Islands = 3;
  O.Population = 2;
  O.MigrationInterval = 4;
  Islands I(O, 5);
  // Island 0: v1 (best), v10; island 1: v2, v11; island 2: v3, v12.
  for (int K = 0; K < 3; ++K) {
    ASSERT_TRUE(bool(I.add(K, "v" + std::to_string(K + 1), A)));
    ASSERT_TRUE(bool(I.add(K, "v" + std::to_string(K + 10), A)));
  }
  EXPECT_FALSE(I.migrationDue(3));
  EXPECT_TRUE(I.migrationDue(4));
  EXPECT_TRUE(I.migrationDue(8));
  EXPECT_FALSE(I.migrationDue(0));

  std::vector<Migration> M = I.migrate(A);
  ASSERT_EQ(M.size(), 3u);
  EXPECT_EQ(M[0].From, 0u);
  EXPECT_EQ(M[0].To, 1u);
  EXPECT_EQ(M[0].Migrant, "v1");
  EXPECT_EQ(M[0].Replaced, "v11");
  EXPECT_EQ(M[1].Migrant, "v2");
  EXPECT_EQ(M[1].Replaced, "v12");
  EXPECT_EQ(M[2].From, 2u);
  EXPECT_EQ(M[2].To, 0u); // the ring closes
  EXPECT_EQ(M[2].Migrant, "v3");
  EXPECT_EQ(M[2].Replaced, "v10");
  EXPECT_EQ(I.population(0), (std::vector<std::string>{"v1", "v3"}));
  EXPECT_EQ(I.population(1), (std::vector<std::string>{"v2", "v1"}));
  EXPECT_EQ(I.population(2), (std::vector<std::string>{"v3", "v2"}));

  // Next time every island's best (v1, v1, v2) is already there or not:
  // island 1 sends v1 to island 2, island 0's v1 is already in island 1.
  std::vector<Migration> M2 = I.migrate(A);
  ASSERT_EQ(M2.size(), 3u);
  EXPECT_TRUE(M2[0].Skipped);
  EXPECT_EQ(M2[1].Migrant, "v1");
  EXPECT_EQ(M2[1].Replaced, "v3");
  EXPECT_EQ(M2[2].Migrant, "v2");
  EXPECT_EQ(M2[2].Replaced, "v3");
}

TEST(Islands, MigrationIntoRoomJoins) {
  Archive A = twelve();
  IslandOptions O;
  O.Islands = 2;
  O.Population = 4;
  Islands I(O, 5);
  ASSERT_TRUE(bool(I.add(0, "v6", A)));
  std::vector<Migration> M = I.migrate(A);
  ASSERT_EQ(M.size(), 1u); // the empty island sends nothing
  EXPECT_EQ(M[0].Migrant, "v6");
  EXPECT_TRUE(M[0].Replaced.empty());
  EXPECT_EQ(I.population(1), (std::vector<std::string>{"v6"}));
}

TEST(Islands, CrossoverPicksElitesOfDifferentCells) {
  Archive A = twelve();
  IslandOptions O;
  Islands I(O, 11);
  std::set<std::pair<std::string, std::string>> Seen;
  for (int K = 0; K < 200; ++K) {
    auto P = I.crossoverPair(A);
    ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
    const Variant *X = A.find(P->first), *Y = A.find(P->second);
    ASSERT_TRUE(X && Y);
    EXPECT_FALSE(X->Desc.sameCell(Y->Desc)) << X->Id << " " << Y->Id;
    EXPECT_EQ(A.elite(X->Desc), X);
    EXPECT_EQ(A.elite(Y->Desc), Y);
    Seen.insert(*P);
  }
  EXPECT_GT(Seen.size(), 10u); // not stuck on one pair

  // Same seed, same pairs.
  Islands J1(O, 99), J2(O, 99);
  for (int K = 0; K < 10; ++K)
    EXPECT_EQ(*J1.crossoverPair(A), *J2.crossoverPair(A));

  Archive One;
  One.insert(variant("a", {}, "original", 10, cell("global", "1", "scalar", "<25 %")));
  One.insert(variant("b", {"a"}, "tuner", 5, cell("global", "1", "scalar", "<25 %")));
  auto None = I.crossoverPair(One);
  ASSERT_FALSE(bool(None));
  EXPECT_NE(llvm::toString(None.takeError()).find("two cells"), std::string::npos);
}

TEST(Islands, EmptyIslandFallsBackToTheArchive) {
  Archive Empty;
  IslandOptions O;
  O.EliteProbability = 0;
  Islands I(O, 1);
  auto S = I.selectParent(0, Empty);
  ASSERT_FALSE(bool(S));
  llvm::consumeError(S.takeError());
  Archive A = twelve();
  auto T = I.selectParent(0, A);
  ASSERT_TRUE(bool(T)) << llvm::toString(T.takeError());
  EXPECT_TRUE(T->FromArchive);
}

} // namespace
