//===- Tune/Strategy.h - Search strategies ----------------------*- C++ -*-===//
///
/// \file
/// Strategies propose configurations in batches (a batch is compiled in one
/// nvcc run and measured in one worker process), and learn from the costs.
/// They all share one interface, take a seed and a budget, and are named on
/// the command line: exhaustive, random, greedy (hill climbing with
/// restarts), annealing (simulated annealing) and genetic.
///
/// The Evaluator memoises: a configuration is measured once, and the
/// budget counts distinct measured configurations, so a strategy that comes
/// back to a point pays nothing. Replay mode evaluates from a recorded
/// cache, so every strategy is tested without a GPU.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_TUNE_STRATEGY_H
#define FORGE_TUNE_STRATEGY_H

#include "forge/Measure/WorkerProtocol.h"
#include "forge/Tune/Space.h"
#include "llvm/Support/Error.h"
#include <chrono>
#include <memory>
#include <optional>

namespace forge::tune {

/// What measuring one configuration gave.
struct Evaluation {
  bool Ok = false;     ///< compiled, correct and timed
  double Cost = 0;     ///< median time in ns when Ok; lower is better
  /// Ok, CompileFailed, Wrong, Crashed, ...; Missing until measured.
  measure::CandidateStatus Status = measure::CandidateStatus::Missing;
  std::string Detail;
};

/// Measures batches of configurations: the measurement machinery in a
/// tuning run, a recorded cache in replay mode.
using BatchMeasure =
    std::function<std::vector<Evaluation>(const std::vector<Config> &)>;

struct Budget {
  size_t MaxEvaluations = 0; ///< distinct configurations measured; 0: none
  double MaxSeconds = 0;     ///< wall time; 0: none
};

/// Memoising front of a BatchMeasure that enforces the budget and keeps the
/// history and the best configuration.
class Evaluator {
public:
  Evaluator(const SearchSpace &Space, BatchMeasure Measure, Budget B);

  /// Costs of Batch, in order; configurations measured before come from the
  /// memo. When the budget runs out part way, only the first ones that fit
  /// are measured and the result is shorter than Batch. Invalid
  /// configurations are not measured (Status Invalid).
  std::vector<Evaluation> evaluate(const std::vector<Config> &Batch);

  /// Whether the budget allows another distinct measurement. The seconds
  /// are checked when a batch starts, so the batch in flight may overrun.
  bool exhausted() const;
  size_t evaluations() const { return Measured; }
  /// Distinct valid configurations with a result, measured or preloaded.
  size_t known() const { return Memo.size(); }
  const SearchSpace &space() const { return Space; }

  /// The cheapest Ok configuration, measured or preloaded; the first found
  /// on ties.
  std::optional<Config> best() const { return Best; }
  double bestCost() const { return BestCost; }
  /// Every distinct configuration measured, in order (preloaded ones are
  /// not).
  const std::vector<std::pair<Config, Evaluation>> &history() const {
    return History;
  }
  /// A memoised result, if any.
  const Evaluation *lookup(const Config &C) const;

  /// Seeds the memo with a result measured earlier (the tuning database);
  /// it does not count against the budget, and can become the best. A
  /// configuration the space deems invalid is ignored.
  void preload(const Config &C, const Evaluation &E);

private:
  /// Memoises a result and updates the best.
  void record(const Config &C, const Evaluation &E);

  const SearchSpace &Space;
  BatchMeasure Measure;
  Budget B;
  std::chrono::steady_clock::time_point Start;
  std::map<Config, Evaluation> Memo;
  std::vector<std::pair<Config, Evaluation>> History;
  size_t Measured = 0;
  std::optional<Config> Best;
  double BestCost = 0;
};

class Strategy {
public:
  virtual ~Strategy() = default;
  virtual llvm::StringRef name() const = 0;
  /// Searches until the space or the budget is exhausted. Deterministic
  /// for a given seed and measurement results.
  virtual void run(Evaluator &E, uint64_t Seed) = 0;
};

/// "exhaustive", "random", "greedy", "annealing", "genetic"; an unknown name
/// is an error that lists the known ones.
llvm::Expected<std::unique_ptr<Strategy>> createStrategy(llvm::StringRef Name);
std::vector<std::string> strategyNames();

/// Replay mode: costs from a recorded cache, key (SearchSpace::key) ->
/// evaluation. A configuration missing from the cache evaluates as
/// Status Missing (not Ok).
BatchMeasure replayMeasure(const SearchSpace &Space,
                           std::map<std::string, Evaluation> Cache);

} // namespace forge::tune

#endif
