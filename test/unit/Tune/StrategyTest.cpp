//===- StrategyTest.cpp - every strategy on replayed caches ---------------===//
#include "TuneTestUtil.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"
#include <algorithm>
#include <set>

using namespace forge::tune;
using namespace forge::tune::test;
using forge::measure::CandidateStatus;

namespace {

const RecordedCache &bowl() {
  static RecordedCache C = llvm::cantFail(loadBowl());
  return C;
}
const RecordedCache &gemm() {
  static RecordedCache C = llvm::cantFail(loadGemm());
  return C;
}

/// What one run did, as seen by the strategy and by the measurement.
struct Outcome {
  std::vector<Config> History;
  std::vector<Config> Measured; ///< every configuration passed to Measure
  size_t Evaluations = 0;
  std::optional<Config> Best;
  double BestCost = 0;
};

Outcome
runStrategy(llvm::StringRef Name, const SearchSpace &Space,
            BatchMeasure Measure, Budget B, uint64_t Seed,
            const std::vector<std::pair<Config, Evaluation>> &Preload = {}) {
  Outcome R;
  BatchMeasure Spy = [&](const std::vector<Config> &Batch) {
    R.Measured.insert(R.Measured.end(), Batch.begin(), Batch.end());
    return Measure(Batch);
  };
  Evaluator E(Space, Spy, B);
  for (const auto &[C, Ev] : Preload)
    E.preload(C, Ev);
  auto S = createStrategy(Name);
  EXPECT_TRUE(bool(S)) << llvm::toString(S.takeError());
  if (!S)
    return R;
  EXPECT_EQ((*S)->name(), Name);
  (*S)->run(E, Seed);
  for (const auto &H : E.history())
    R.History.push_back(H.first);
  R.Evaluations = E.evaluations();
  R.Best = E.best();
  R.BestCost = E.bestCost();
  return R;
}

Outcome runOnCache(llvm::StringRef Name, const RecordedCache &Cache, Budget B,
                   uint64_t Seed) {
  return runStrategy(Name, Cache.Space,
                     replayMeasure(Cache.Space, Cache.Results), B, Seed);
}

/// Nothing measured twice, nothing invalid measured.
void expectSane(const Outcome &R, const SearchSpace &Space) {
  std::set<Config> Distinct(R.Measured.begin(), R.Measured.end());
  EXPECT_EQ(Distinct.size(), R.Measured.size()) << "measured twice";
  EXPECT_EQ(R.Measured, R.History);
  EXPECT_EQ(R.Evaluations, R.History.size());
  for (const Config &C : R.Measured)
    EXPECT_TRUE(Space.valid(C)) << Space.key(C);
}

TEST(Strategy, NamesAndErrors) {
  EXPECT_EQ(strategyNames(),
            (std::vector<std::string>{"exhaustive", "random", "greedy",
                                      "annealing", "genetic"}));
  for (const std::string &N : strategyNames()) {
    auto S = createStrategy(N);
    ASSERT_TRUE(bool(S)) << llvm::toString(S.takeError());
    EXPECT_EQ((*S)->name(), N);
  }
  auto Bad = createStrategy("bayesian");
  ASSERT_FALSE(bool(Bad));
  std::string Msg = llvm::toString(Bad.takeError());
  EXPECT_NE(Msg.find("bayesian"), std::string::npos);
  EXPECT_NE(Msg.find("exhaustive, random, greedy, annealing, genetic"),
            std::string::npos)
      << Msg;
}

TEST(Strategy, ExhaustiveGoesInOrder) {
  const RecordedCache &C = bowl();
  Outcome R = runOnCache("exhaustive", C, Budget{70, 0}, 1);
  std::vector<Config> Want = C.Space.enumerateValid(70);
  EXPECT_EQ(R.History, Want);
  EXPECT_EQ(R.Evaluations, 70u);
}

class EachStrategy : public ::testing::TestWithParam<std::string> {};

TEST_P(EachStrategy, FindsTheOptimumWhenTheBudgetAllowsTheWholeSpace) {
  for (const RecordedCache *C : {&bowl(), &gemm()}) {
    size_t Valid = C->validCount();
    for (size_t Max : {size_t(0), Valid}) {
      Outcome R = runOnCache(GetParam(), *C, Budget{Max, 0}, 7);
      expectSane(R, C->Space);
      // Every valid configuration was measured, once, and then it stopped.
      EXPECT_EQ(R.Evaluations, Valid);
      ASSERT_TRUE(R.Best);
      EXPECT_EQ(R.BestCost, C->optimum());
    }
  }
}

TEST_P(EachStrategy, RespectsTheBudgetExactly) {
  for (const RecordedCache *C : {&bowl(), &gemm()}) {
    size_t Valid = C->validCount();
    for (size_t Max : {size_t(1), size_t(5), size_t(17), size_t(30), size_t(63),
                       Valid - 1}) {
      for (uint64_t Seed : {1, 2}) {
        Outcome R = runOnCache(GetParam(), *C, Budget{Max, 0}, Seed);
        expectSane(R, C->Space);
        EXPECT_EQ(R.Measured.size(), Max) << "budget " << Max;
      }
    }
  }
}

TEST_P(EachStrategy, IsDeterministicForASeed) {
  for (const RecordedCache *C : {&bowl(), &gemm()}) {
    for (uint64_t Seed : {1, 99}) {
      Outcome A = runOnCache(GetParam(), *C, Budget{40, 0}, Seed);
      Outcome B = runOnCache(GetParam(), *C, Budget{40, 0}, Seed);
      EXPECT_EQ(A.History, B.History);
    }
    // The stochastic ones go elsewhere with another seed.
    Outcome A = runOnCache(GetParam(), *C, Budget{40, 0}, 1);
    Outcome B = runOnCache(GetParam(), *C, Budget{40, 0}, 2);
    if (GetParam() == "exhaustive")
      EXPECT_EQ(A.History, B.History);
    else
      EXPECT_NE(A.History, B.History);
  }
}

TEST_P(EachStrategy, ToleratesFailedConfigurations) {
  // The bowl with its whole floor broken: everything within 25% of the
  // optimum crashed or gave wrong results.
  const RecordedCache &C = bowl();
  double Opt = C.optimum();
  std::map<std::string, Evaluation> Broken = C.Results;
  double NextBest = std::numeric_limits<double>::infinity();
  size_t Failed = 0;
  for (auto &[Key, E] : Broken) {
    if (E.Ok && E.Cost <= 1.25 * Opt) {
      E = Evaluation{false, 0,
                     Failed++ % 2 ? CandidateStatus::Crashed
                                  : CandidateStatus::Wrong,
                     ""};
      continue;
    }
    if (E.Ok)
      NextBest = std::min(NextBest, E.Cost);
  }
  ASSERT_GT(Failed, 5u);
  for (uint64_t Seed : {1, 2, 3}) {
    Outcome R = runStrategy(GetParam(), C.Space, replayMeasure(C.Space, Broken),
                            Budget{}, Seed);
    expectSane(R, C.Space);
    EXPECT_EQ(R.Evaluations, C.validCount());
    ASSERT_TRUE(R.Best);
    EXPECT_EQ(R.BestCost, NextBest);
    EXPECT_TRUE(Broken.at(C.Space.key(*R.Best)).Ok);
  }

  // Nothing works at all: it ends, with no best.
  std::map<std::string, Evaluation> AllFail;
  Outcome R = runStrategy(GetParam(), C.Space, replayMeasure(C.Space, AllFail),
                          Budget{}, 1);
  expectSane(R, C.Space);
  EXPECT_EQ(R.Evaluations, C.validCount());
  EXPECT_FALSE(R.Best);
}

TEST_P(EachStrategy, StartsFromPreloadedResults) {
  const RecordedCache &C = gemm();
  // The database already has the optimum and some others.
  std::vector<std::pair<Config, Evaluation>> Preload;
  for (const auto &[Key, E] : C.Results) {
    Config Cf;
    ASSERT_TRUE(C.Space.fromKey(Key, Cf));
    if (E.Ok && (E.Cost == C.optimum() || Preload.size() < 10))
      Preload.emplace_back(Cf, E);
  }
  Outcome R =
      runStrategy(GetParam(), C.Space, replayMeasure(C.Space, C.Results),
                  Budget{20, 0}, 3, Preload);
  expectSane(R, C.Space);
  EXPECT_EQ(R.Evaluations, 20u);
  for (const auto &[Cf, E] : Preload)
    EXPECT_EQ(std::count(R.History.begin(), R.History.end(), Cf), 0);
  EXPECT_EQ(R.BestCost, C.optimum());

  // With the whole space preloaded there is nothing to do.
  Preload.clear();
  for (const Config &Cf : C.Space.enumerateValid())
    Preload.emplace_back(Cf, Evaluation{true, 1, CandidateStatus::Ok, ""});
  R = runStrategy(GetParam(), C.Space, replayMeasure(C.Space, C.Results),
                  Budget{}, 3, Preload);
  EXPECT_EQ(R.Evaluations, 0u);
}

/// Three parameters of 50 values where 3 configurations are valid.
TEST_P(EachStrategy, EndsOnAnAlmostEntirelyInvalidSpace) {
  std::vector<int64_t> Vals;
  for (int I = 0; I < 50; ++I)
    Vals.push_back(I);
  SearchSpace S({{"A", Vals, ""}, {"B", Vals, ""}, {"C", Vals, ""}},
                [](const std::map<std::string, int64_t> &V) {
                  return V.at("A") == V.at("B") && V.at("B") == V.at("C") &&
                         V.at("A") % 20 == 3;
                });
  BatchMeasure M = [&](const std::vector<Config> &Batch) {
    std::vector<Evaluation> Out;
    for (const Config &C : Batch)
      Out.push_back({true, 100.0 - double(C[0]), CandidateStatus::Ok, ""});
    return Out;
  };
  Outcome R = runStrategy(GetParam(), S, M, Budget{}, 5);
  expectSane(R, S);
  EXPECT_EQ(R.Evaluations, 3u);
  ASSERT_TRUE(R.Best);
  EXPECT_EQ(*R.Best, (Config{43, 43, 43}));
}

/// 10^8 configurations, too many to list, one in a million valid: the
/// random draws give up rather than loop.
TEST_P(EachStrategy, EndsOnAHugeSparseSpace) {
  std::vector<int64_t> Vals;
  for (int I = 0; I < 100; ++I)
    Vals.push_back(I);
  SearchSpace S(
      {{"A", Vals, ""}, {"B", Vals, ""}, {"C", Vals, ""}, {"D", Vals, ""}},
      [](const std::map<std::string, int64_t> &V) {
        return V.at("A") == V.at("B") && V.at("C") == V.at("D") &&
               V.at("A") == V.at("C");
      });
  BatchMeasure M = [](const std::vector<Config> &Batch) {
    return std::vector<Evaluation>(Batch.size(),
                                   {true, 1, CandidateStatus::Ok, ""});
  };
  // The exhaustive scan minds the clock; the others give up on their own.
  Budget B{0, GetParam() == "exhaustive" ? 0.5 : 0};
  auto Start = std::chrono::steady_clock::now();
  Outcome R = runStrategy(GetParam(), S, M, B, 5);
  std::chrono::duration<double> Took = std::chrono::steady_clock::now() - Start;
  expectSane(R, S);
  EXPECT_LT(Took.count(), 30);
}

/// 2^30 configurations, mostly valid: the unlisted paths keep the budget.
TEST_P(EachStrategy, KeepsTheBudgetOnAHugeSpace) {
  std::vector<int64_t> Vals;
  for (int I = 0; I < 32; ++I)
    Vals.push_back(I);
  std::vector<Parameter> Params;
  for (int I = 0; I < 6; ++I)
    Params.push_back({"P" + std::to_string(I), Vals, ""});
  SearchSpace S(Params, [](const std::map<std::string, int64_t> &V) {
    return V.at("P0") + V.at("P1") < 50;
  });
  BatchMeasure M = [](const std::vector<Config> &Batch) {
    std::vector<Evaluation> Out;
    for (const Config &C : Batch) {
      double Cost = 0;
      for (size_t I = 0; I < C.size(); ++I)
        Cost += (double(C[I]) - 10) * (double(C[I]) - 10);
      Out.push_back({true, 1 + Cost, CandidateStatus::Ok, ""});
    }
    return Out;
  };
  for (uint64_t Seed : {1, 2}) {
    Outcome R = runStrategy(GetParam(), S, M, Budget{150, 0}, Seed);
    expectSane(R, S);
    EXPECT_EQ(R.Evaluations, 150u);
    Outcome Again = runStrategy(GetParam(), S, M, Budget{150, 0}, Seed);
    EXPECT_EQ(R.History, Again.History);
  }
}

TEST_P(EachStrategy, HandlesDegenerateSpaces) {
  BatchMeasure M = [](const std::vector<Config> &Batch) {
    return std::vector<Evaluation>(Batch.size(),
                                   {true, 3, CandidateStatus::Ok, ""});
  };
  // No parameters: the one empty configuration (the kernel as written).
  SearchSpace One;
  Outcome R = runStrategy(GetParam(), One, M, Budget{}, 1);
  EXPECT_EQ(R.History, std::vector<Config>{Config{}});
  ASSERT_TRUE(R.Best);

  // A parameter without values, or nothing valid: nothing to measure.
  SearchSpace Empty({{"A", {1, 2}, ""}, {"B", {}, ""}});
  EXPECT_EQ(runStrategy(GetParam(), Empty, M, Budget{}, 1).Evaluations, 0u);
  SearchSpace None(
      {{"A", {1, 2, 3}, ""}},
      [](const std::map<std::string, int64_t> &) { return false; });
  EXPECT_EQ(runStrategy(GetParam(), None, M, Budget{}, 1).Evaluations, 0u);

  // A single value per parameter, and isolated valid points (no valid
  // neighbours at all).
  SearchSpace Single({{"A", {4}, ""}, {"B", {8}, ""}});
  EXPECT_EQ(runStrategy(GetParam(), Single, M, Budget{}, 1).Evaluations, 1u);
  SearchSpace Checker({{"A", {0, 1, 2, 3, 4, 5}, ""}, {"B", {0, 1, 2, 3}, ""}},
                      [](const std::map<std::string, int64_t> &V) {
                        return (V.at("A") + V.at("B")) % 2 == 0;
                      });
  R = runStrategy(GetParam(), Checker, M, Budget{}, 1);
  expectSane(R, Checker);
  EXPECT_EQ(R.Evaluations, 12u);
}

INSTANTIATE_TEST_SUITE_P(Tune, EachStrategy,
                         ::testing::ValuesIn(strategyNames()),
                         [](const auto &Info) { return Info.param; });

//===----------------------------------------------------------------------===//
// How close each strategy gets with a quarter of the space
//===----------------------------------------------------------------------===//

/// best / optimum after measuring 25% of the valid configurations, the
/// median of seeds 1, 2 and 3.
double quarterBudgetRatio(llvm::StringRef Name, const RecordedCache &C) {
  size_t Max = (C.validCount() + 3) / 4;
  std::vector<double> Ratios;
  for (uint64_t Seed : {1, 2, 3}) {
    Outcome R = runOnCache(Name, C, Budget{Max, 0}, Seed);
    EXPECT_EQ(R.Evaluations, Max);
    Ratios.push_back(R.Best ? R.BestCost / C.optimum()
                            : std::numeric_limits<double>::infinity());
  }
  std::sort(Ratios.begin(), Ratios.end());
  return Ratios[1];
}

TEST(StrategyQuality, QuarterBudgetGetsClose) {
  struct Bound {
    const char *Strategy;
    double Bowl, Gemm; // the largest acceptable best/optimum
  };
  // Exhaustive only sees the first quarter in order, so it has no bound;
  // random sampling gets a looser one than the searches that learn.
  const Bound Bounds[] = {{"exhaustive", 0, 0},
                          {"random", 1.25, 1.10},
                          {"greedy", 1.10, 1.10},
                          {"annealing", 1.10, 1.10},
                          {"genetic", 1.10, 1.10}};
  llvm::outs() << llvm::format("%-11s %12s %12s\n", "strategy", "bowl2d",
                               "gemm3d");
  for (const Bound &B : Bounds) {
    double Bowl = quarterBudgetRatio(B.Strategy, bowl());
    double Gemm = quarterBudgetRatio(B.Strategy, gemm());
    llvm::outs() << llvm::format("%-11s %12.3f %12.3f\n", B.Strategy, Bowl,
                                 Gemm);
    if (B.Bowl > 0) {
      EXPECT_LE(Bowl, B.Bowl) << B.Strategy << " on bowl2d";
      EXPECT_LE(Gemm, B.Gemm) << B.Strategy << " on gemm3d";
    }
  }
  llvm::outs().flush();
}

} // namespace
