//===- SpaceTest.cpp - search spaces: enumeration, keys, neighbours -------===//
#include "forge/Tune/Space.h"
#include "gtest/gtest.h"
#include <set>

using namespace forge::tune;

namespace {

SearchSpace blockItems() {
  return SearchSpace(
      {{"BLOCK", {64, 128, 256}, "launch"}, {"ITEMS", {1, 2, 4}, "macro"}},
      [](const std::map<std::string, int64_t> &V) {
        return V.at("BLOCK") * V.at("ITEMS") <= 512;
      });
}

TEST(SearchSpace, CartesianSizeAndSaturation) {
  EXPECT_EQ(blockItems().cartesianSize(), 9u);
  EXPECT_EQ(SearchSpace().cartesianSize(), 1u); // one empty configuration
  EXPECT_EQ(SearchSpace({{"A", {}, ""}, {"B", {1, 2}, ""}}).cartesianSize(),
            0u);

  std::vector<int64_t> Many(1 << 16);
  std::vector<Parameter> Params;
  for (int I = 0; I < 5; ++I) // 2^80 configurations
    Params.push_back({"P" + std::to_string(I), Many, ""});
  EXPECT_EQ(SearchSpace(Params).cartesianSize(), UINT64_MAX);
}

TEST(SearchSpace, ValidityChecksRangeAndPredicate) {
  SearchSpace S = blockItems();
  EXPECT_TRUE(S.valid({0, 0}));
  EXPECT_TRUE(S.valid({2, 1}));  // 256*2
  EXPECT_FALSE(S.valid({2, 2})); // 256*4
  EXPECT_FALSE(S.valid({3, 0})); // index out of range
  EXPECT_FALSE(S.valid({0}));    // wrong arity
  EXPECT_FALSE(S.valid({0, 0, 0}));
}

TEST(SearchSpace, EnumeratesLexicographically) {
  SearchSpace S = blockItems();
  std::vector<Config> Want = {{0, 0}, {0, 1}, {0, 2}, {1, 0},
                              {1, 1}, {1, 2}, {2, 0}, {2, 1}};
  EXPECT_EQ(S.enumerateValid(), Want);
  EXPECT_EQ(S.enumerateValid(3),
            std::vector<Config>(Want.begin(), Want.begin() + 3));
  Config C = {0, 2};
  ASSERT_TRUE(S.advance(C));
  EXPECT_EQ(C, (Config{1, 0}));
  C = {2, 2};
  EXPECT_FALSE(S.advance(C));

  // No parameters: the one (empty) configuration.
  EXPECT_EQ(SearchSpace().enumerateValid(), std::vector<Config>{Config{}});
  EXPECT_TRUE(SearchSpace({{"A", {}, ""}}).enumerateValid().empty());
}

TEST(SearchSpace, KeysRoundTrip) {
  SearchSpace S = blockItems();
  EXPECT_EQ(S.key({2, 1}), "BLOCK=256,ITEMS=2");
  for (const Config &C : S.enumerateValid()) {
    Config Back;
    ASSERT_TRUE(S.fromKey(S.key(C), Back)) << S.key(C);
    EXPECT_EQ(Back, C);
  }
  Config C;
  EXPECT_TRUE(S.fromKey("ITEMS=4, BLOCK=64", C)); // any order, spaces
  EXPECT_EQ(C, (Config{0, 2}));
  EXPECT_FALSE(S.fromKey("BLOCK=64", C));                  // missing
  EXPECT_FALSE(S.fromKey("BLOCK=64,ITEMS=3", C));          // not a value
  EXPECT_FALSE(S.fromKey("BLOCK=64,ITEMS=1,X=2", C));      // unknown name
  EXPECT_FALSE(S.fromKey("BLOCK=64,BLOCK=64,ITEMS=1", C)); // twice
  EXPECT_FALSE(S.fromKey("BLOCK=sixty,ITEMS=1", C));       // not a number
  EXPECT_FALSE(S.fromKey("", C));
  // fromKey finds the configuration; validity is a separate question.
  EXPECT_TRUE(S.fromKey("BLOCK=256,ITEMS=4", C));
  EXPECT_FALSE(S.valid(C));

  SearchSpace Neg({{"OFF", {-8, 0, 8}, ""}});
  EXPECT_TRUE(Neg.fromKey(Neg.key({0}), C));
  EXPECT_EQ(Neg.key({0}), "OFF=-8");
  EXPECT_EQ(C, Config{0});
}

TEST(SearchSpace, ValuesAndFromValues) {
  SearchSpace S = blockItems();
  std::map<std::string, int64_t> V = S.values({1, 2});
  EXPECT_EQ(V.at("BLOCK"), 128);
  EXPECT_EQ(V.at("ITEMS"), 4);
  Config C;
  ASSERT_TRUE(S.fromValues(V, C));
  EXPECT_EQ(C, (Config{1, 2}));
  EXPECT_FALSE(S.fromValues({{"BLOCK", 128}}, C));
  EXPECT_FALSE(S.fromValues({{"BLOCK", 100}, {"ITEMS", 1}}, C));
}

TEST(SearchSpace, NeighboursStepOneIndexAndStayValid) {
  SearchSpace S = blockItems();
  // 128x2: down/up in BLOCK (64x2, 256x2), down/up in ITEMS (128x1, 128x4).
  EXPECT_EQ(S.neighbours({1, 1}),
            (std::vector<Config>{{0, 1}, {2, 1}, {1, 0}, {1, 2}}));
  // 256x1: 512x1 does not exist, 256x2 is valid.
  EXPECT_EQ(S.neighbours({2, 0}), (std::vector<Config>{{1, 0}, {2, 1}}));
  // 128x4: 256x4 is invalid.
  EXPECT_EQ(S.neighbours({1, 2}), (std::vector<Config>{{0, 2}, {1, 1}}));
  EXPECT_TRUE(S.neighbours({1}).empty());
}

TEST(SearchSpace, RandomValidIsValidAndCoversTheSpace) {
  SearchSpace S = blockItems();
  std::mt19937_64 Rng(1);
  std::set<Config> Seen;
  for (int I = 0; I < 400; ++I) {
    Config C;
    ASSERT_TRUE(S.randomValid(Rng, C));
    EXPECT_TRUE(S.valid(C));
    Seen.insert(C);
  }
  EXPECT_EQ(Seen.size(), 8u);

  // Same seed, same draws.
  std::mt19937_64 A(42), B(42);
  for (int I = 0; I < 20; ++I) {
    Config X, Y;
    ASSERT_TRUE(S.randomValid(A, X));
    ASSERT_TRUE(S.randomValid(B, Y));
    EXPECT_EQ(X, Y);
  }
}

TEST(SearchSpace, RandomValidGivesUpOnAnAlmostEmptySpace) {
  std::vector<int64_t> Vals(100);
  for (int I = 0; I < 100; ++I)
    Vals[I] = I;
  SearchSpace S({{"A", Vals, ""}, {"B", Vals, ""}, {"C", Vals, ""}},
                [](const std::map<std::string, int64_t> &V) {
                  return V.at("A") == 7 && V.at("B") == 7 && V.at("C") == 7;
                });
  std::mt19937_64 Rng(3);
  Config C;
  EXPECT_FALSE(S.randomValid(Rng, C, 100));
  EXPECT_FALSE(SearchSpace({{"A", {}, ""}}).randomValid(Rng, C));
}

TEST(SearchSpace, DrawsAreUniformAndBounded) {
  std::mt19937_64 Rng(5);
  std::vector<int> Count(6);
  for (int I = 0; I < 60000; ++I) {
    uint64_t X = drawBelow(Rng, 6);
    ASSERT_LT(X, 6u);
    ++Count[X];
  }
  for (int C : Count)
    EXPECT_NEAR(C, 10000, 500);
  EXPECT_EQ(drawBelow(Rng, 1), 0u);
  for (int I = 0; I < 1000; ++I) {
    double U = drawUnit(Rng);
    ASSERT_GE(U, 0.0);
    ASSERT_LT(U, 1.0);
  }
}

} // namespace
