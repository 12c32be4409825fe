//===- EvaluatorTest.cpp - memo, budget, best, history, replay ------------===//
#include "TuneTestUtil.h"
#include "gtest/gtest.h"
#include <thread>

using namespace forge::tune;
using namespace forge::tune::test;
using forge::measure::CandidateStatus;

namespace {

/// A 4x4 space, A+B <= 5 (so {3,3} is invalid); cost 100 - 10*A - B.
SearchSpace square() {
  return SearchSpace({{"A", {0, 1, 2, 3}, ""}, {"B", {0, 1, 2, 3}, ""}},
                     [](const std::map<std::string, int64_t> &V) {
                       return V.at("A") + V.at("B") <= 5;
                     });
}

/// Counts what reaches the measurement and fails configurations with B == 2.
struct CountingMeasure {
  std::vector<Config> Seen;
  size_t Calls = 0;
  BatchMeasure fn(const SearchSpace &S) {
    return [this, &S](const std::vector<Config> &Batch) {
      ++Calls;
      std::vector<Evaluation> Out;
      for (const Config &C : Batch) {
        Seen.push_back(C);
        auto V = S.values(C);
        Evaluation E;
        E.Ok = V["B"] != 2;
        E.Status = E.Ok ? CandidateStatus::Ok : CandidateStatus::Crashed;
        E.Cost = E.Ok ? 100.0 - 10 * V["A"] - V["B"] : 0;
        Out.push_back(E);
      }
      return Out;
    };
  }
};

TEST(Evaluator, MemoisesAndCountsDistinctConfigurations) {
  SearchSpace S = square();
  CountingMeasure M;
  Evaluator E(S, M.fn(S), Budget{});
  std::vector<Evaluation> R = E.evaluate({{0, 0}, {1, 0}, {0, 0}});
  ASSERT_EQ(R.size(), 3u);
  EXPECT_EQ(R[0].Cost, 100);
  EXPECT_EQ(R[1].Cost, 90);
  EXPECT_EQ(R[2].Cost, 100);
  EXPECT_EQ(M.Seen.size(), 2u); // the duplicate is measured once
  EXPECT_EQ(E.evaluations(), 2u);

  R = E.evaluate({{1, 0}, {0, 0}});
  EXPECT_EQ(R.size(), 2u);
  EXPECT_EQ(M.Calls, 1u); // all from the memo: no measurement at all
  EXPECT_EQ(E.evaluations(), 2u);

  ASSERT_TRUE(E.lookup({1, 0}));
  EXPECT_EQ(E.lookup({1, 0})->Cost, 90);
  EXPECT_FALSE(E.lookup({2, 0}));
  ASSERT_EQ(E.history().size(), 2u);
  EXPECT_EQ(E.history()[0].first, (Config{0, 0}));
  EXPECT_EQ(E.history()[1].first, (Config{1, 0}));
}

TEST(Evaluator, InvalidConfigurationsAreNotMeasured) {
  SearchSpace S = square();
  CountingMeasure M;
  Evaluator E(S, M.fn(S), Budget{1, 0});
  std::vector<Evaluation> R = E.evaluate({{3, 3}, {4, 0}, {0}, {0, 1}});
  ASSERT_EQ(R.size(), 4u);
  for (int I = 0; I < 3; ++I) {
    EXPECT_FALSE(R[I].Ok);
    EXPECT_EQ(R[I].Status, CandidateStatus::Invalid);
  }
  EXPECT_TRUE(R[3].Ok);
  EXPECT_EQ(M.Seen, (std::vector<Config>{{0, 1}}));
  EXPECT_EQ(E.evaluations(), 1u);
  EXPECT_TRUE(E.exhausted());
  // Invalid ones cost nothing even when the budget is spent.
  EXPECT_EQ(E.evaluate({{3, 3}}).size(), 1u);
}

TEST(Evaluator, BudgetCutsABatchShort) {
  SearchSpace S = square();
  CountingMeasure M;
  Evaluator E(S, M.fn(S), Budget{3, 0});
  std::vector<Evaluation> R = E.evaluate({{0, 0}, {0, 1}});
  EXPECT_EQ(R.size(), 2u);
  EXPECT_FALSE(E.exhausted());
  // Room for one more: {0,0} is memoised, {1,0} fits, {1,1} does not.
  R = E.evaluate({{0, 0}, {1, 0}, {0, 0}, {1, 1}, {0, 1}});
  ASSERT_EQ(R.size(), 3u);
  EXPECT_EQ(R[1].Cost, 90);
  EXPECT_EQ(E.evaluations(), 3u);
  EXPECT_TRUE(E.exhausted());
  EXPECT_TRUE(E.evaluate({{2, 0}}).empty());
  EXPECT_EQ(E.evaluate({{0, 1}, {2, 0}}).size(), 1u); // the memoised prefix
  EXPECT_EQ(M.Seen.size(), 3u);
  EXPECT_EQ(E.history().size(), 3u);
}

TEST(Evaluator, SecondsBudget) {
  SearchSpace S = square();
  size_t Measured = 0;
  BatchMeasure Slow = [&](const std::vector<Config> &Batch) {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    Measured += Batch.size();
    return std::vector<Evaluation>(Batch.size(),
                                   Evaluation{true, 1, CandidateStatus::Ok, ""});
  };
  Evaluator E(S, Slow, Budget{0, 0.2});
  EXPECT_FALSE(E.exhausted());
  // The batch that starts in time finishes, even past the limit.
  EXPECT_EQ(E.evaluate({{0, 0}, {0, 1}, {0, 2}}).size(), 3u);
  EXPECT_TRUE(E.exhausted());
  EXPECT_TRUE(E.evaluate({{1, 0}}).empty());
  EXPECT_EQ(E.evaluate({{0, 2}}).size(), 1u);
  EXPECT_EQ(Measured, 3u);

  // A strategy under a seconds budget stops after the batch that overran.
  auto Bowl = loadBowl();
  ASSERT_TRUE(bool(Bowl)) << llvm::toString(Bowl.takeError());
  BatchMeasure Replay = replayMeasure(Bowl->Space, Bowl->Results);
  BatchMeasure SlowReplay = [&](const std::vector<Config> &Batch) {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    return Replay(Batch);
  };
  for (const std::string &Name : strategyNames()) {
    Evaluator E2(Bowl->Space, SlowReplay, Budget{0, 0.2});
    auto Strategy = createStrategy(Name);
    ASSERT_TRUE(bool(Strategy)) << llvm::toString(Strategy.takeError());
    (*Strategy)->run(E2, 1);
    EXPECT_GE(E2.evaluations(), 1u) << Name;
    EXPECT_LE(E2.evaluations(), 64u) << Name; // one batch at most
    EXPECT_TRUE(E2.exhausted()) << Name;
  }
}

TEST(Evaluator, BestIsTheCheapestOkFirstOnTies) {
  SearchSpace S({{"A", {0, 1, 2, 3, 4}, ""}});
  std::map<std::string, Evaluation> Cache = {
      {"A=0", {true, 50, CandidateStatus::Ok, ""}},
      // A zero cost that must not win.
      {"A=1", {false, 0, CandidateStatus::Crashed, ""}},
      {"A=2", {true, 20, CandidateStatus::Ok, ""}},
      {"A=3", {true, 20, CandidateStatus::Ok, ""}},
      {"A=4", {true, 10, CandidateStatus::Ok, ""}}};
  Evaluator E(S, replayMeasure(S, Cache), Budget{});
  EXPECT_FALSE(E.best());
  E.evaluate({{1}});
  EXPECT_FALSE(E.best()); // nothing Ok yet
  E.evaluate({{0}, {3}, {2}});
  ASSERT_TRUE(E.best());
  EXPECT_EQ(*E.best(), Config{3}); // 3 was found before 2
  EXPECT_EQ(E.bestCost(), 20);
  E.evaluate({{4}});
  EXPECT_EQ(*E.best(), Config{4});
  EXPECT_EQ(E.bestCost(), 10);
}

TEST(Evaluator, PreloadIsFreeAndCanBeBest) {
  SearchSpace S = square();
  CountingMeasure M;
  Evaluator E(S, M.fn(S), Budget{1, 0});
  E.preload({3, 1}, {true, 5, CandidateStatus::Ok, "from the database"});
  E.preload({3, 3}, {true, 1, CandidateStatus::Ok, ""}); // invalid now: ignored
  EXPECT_EQ(E.evaluations(), 0u);
  EXPECT_EQ(E.known(), 1u);
  EXPECT_FALSE(E.lookup({3, 3}));
  ASSERT_TRUE(E.best());
  EXPECT_EQ(*E.best(), (Config{3, 1}));
  EXPECT_TRUE(E.history().empty());

  std::vector<Evaluation> R = E.evaluate({{3, 1}, {0, 0}, {1, 0}});
  ASSERT_EQ(R.size(), 2u);
  EXPECT_EQ(R[0].Detail, "from the database");
  EXPECT_EQ(M.Seen, (std::vector<Config>{{0, 0}}));
  EXPECT_EQ(*E.best(), (Config{3, 1}));
}

TEST(Evaluator, ShortMeasurementsAreMissing) {
  SearchSpace S = square();
  BatchMeasure Short = [](const std::vector<Config> &Batch) {
    return std::vector<Evaluation>(1,
                                   Evaluation{true, 7, CandidateStatus::Ok, ""});
  };
  Evaluator E(S, Short, Budget{});
  std::vector<Evaluation> R = E.evaluate({{0, 0}, {0, 1}});
  ASSERT_EQ(R.size(), 2u);
  EXPECT_TRUE(R[0].Ok);
  EXPECT_FALSE(R[1].Ok);
  EXPECT_EQ(R[1].Status, CandidateStatus::Missing);
  EXPECT_EQ(E.evaluations(), 2u);
}

TEST(Replay, ReadsTheRecordedCache) {
  auto Cache = loadGemm();
  ASSERT_TRUE(bool(Cache)) << llvm::toString(Cache.takeError());
  const SearchSpace &S = Cache->Space;
  BatchMeasure M = replayMeasure(S, Cache->Results);
  Config Ok, Crashed, Missing;
  ASSERT_TRUE(S.fromKey("BM=96,BN=96,STAGES=4", Ok));
  ASSERT_TRUE(S.fromKey("BM=128,BN=128,STAGES=4", Crashed));
  ASSERT_TRUE(S.fromKey("BM=32,BN=96,STAGES=5", Missing));
  ASSERT_TRUE(S.valid(Missing));
  std::vector<Evaluation> R = M({Ok, Crashed, Missing});
  ASSERT_EQ(R.size(), 3u);
  EXPECT_TRUE(R[0].Ok);
  EXPECT_DOUBLE_EQ(R[0].Cost, Cache->optimum());
  EXPECT_EQ(R[1].Status, CandidateStatus::Crashed);
  EXPECT_FALSE(R[1].Ok);
  EXPECT_EQ(R[2].Status, CandidateStatus::Missing);
  EXPECT_FALSE(R[2].Ok);

  // Every recorded key is a valid configuration of the space.
  for (const auto &[Key, E] : Cache->Results) {
    Config C;
    ASSERT_TRUE(S.fromKey(Key, C)) << Key;
    EXPECT_TRUE(S.valid(C)) << Key;
  }
}

} // namespace
