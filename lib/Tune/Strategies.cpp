//===- Strategies.cpp - Search strategies ---------------------------------===//
///
/// Every strategy stops when the budget is spent or every valid
/// configuration has a result, and each has a bound on work that measures
/// nothing new, so none loops on a space that is almost entirely invalid.
/// Randomness comes only from a std::mt19937_64 seeded with the seed,
/// through drawBelow and drawUnit.
///
//===----------------------------------------------------------------------===//
#include "forge/Support/Error.h"
#include "forge/Tune/Strategy.h"
#include "llvm/ADT/StringExtras.h"
#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

using namespace forge;
using namespace forge::tune;

namespace {

constexpr double Infinity = std::numeric_limits<double>::infinity();

/// Lower is better; anything but an Ok, finite cost is infinitely bad.
double costOf(const Evaluation &E) {
  return E.Ok && std::isfinite(E.Cost) ? E.Cost : Infinity;
}

/// Spaces up to this many configurations (before the predicate) are listed
/// up front, so a strategy knows when it has seen all of them and draws
/// fresh configurations without rejection.
constexpr uint64_t ListLimit = uint64_t(1) << 18;

/// Draws of a random valid configuration that may come back already known
/// before a strategy decides the space has nothing fresh left.
constexpr unsigned FreshTries = 64;

/// What every strategy shares: the evaluator, the generator, and a supply
/// of fresh (not yet known) valid configurations in random order.
class Search {
public:
  Search(Evaluator &E, uint64_t Seed)
      : E(E), Space(E.space()), Rng(Seed),
        Listed(Space.cartesianSize() <= ListLimit) {
    if (!Listed)
      return;
    Order = Space.enumerateValid();
    for (size_t I = Order.size(); I > 1; --I)
      std::swap(Order[I - 1], Order[drawBelow(Rng, I)]);
  }

  /// The budget is spent or every valid configuration has a result.
  bool done() const {
    return E.exhausted() || (Listed && E.known() >= Order.size());
  }

  /// The number of valid configurations, when the space was listed.
  std::optional<size_t> validCount() const {
    if (!Listed)
      return std::nullopt;
    return Order.size();
  }

  /// A valid configuration with no result yet and not in Exclude; false
  /// when none is left (or, in a space too large to list, none was found).
  bool fresh(Config &Out, const std::set<Config> &Exclude = {}) {
    if (Listed) {
      while (Cursor < Order.size()) {
        const Config &C = Order[Cursor++];
        if (!E.lookup(C) && !Exclude.count(C)) {
          Out = C;
          return true;
        }
      }
      return false;
    }
    for (unsigned Try = 0; Try < FreshTries; ++Try) {
      Config C;
      if (!Space.randomValid(Rng, C))
        return false;
      if (!E.lookup(C) && !Exclude.count(C)) {
        Out = std::move(C);
        return true;
      }
    }
    return false;
  }

  /// The memoised cost of C; infinite when it has none.
  double cost(const Config &C) const {
    const Evaluation *R = E.lookup(C);
    return R ? costOf(*R) : Infinity;
  }

  Evaluator &E;
  const SearchSpace &Space;
  std::mt19937_64 Rng;

private:
  bool Listed;
  std::vector<Config> Order;
  size_t Cursor = 0;
};

//===----------------------------------------------------------------------===//
// exhaustive
//===----------------------------------------------------------------------===//

class ExhaustiveStrategy : public Strategy {
public:
  llvm::StringRef name() const override { return "exhaustive"; }

  void run(Evaluator &E, uint64_t Seed) override {
    constexpr size_t BatchSize = 64;
    const SearchSpace &Space = E.space();
    if (Space.cartesianSize() == 0)
      return;
    Config C(Space.dimensions(), 0);
    bool More = true;
    size_t Scanned = 0;
    while (More && !E.exhausted()) {
      std::vector<Config> Batch;
      while (More && Batch.size() < BatchSize) {
        if (Space.valid(C) && !E.lookup(C))
          Batch.push_back(C);
        More = Space.advance(C);
        // A long stretch of invalid configurations still minds the clock.
        if (++Scanned % 4096 == 0 && E.exhausted())
          return;
      }
      if (Batch.empty() || E.evaluate(Batch).size() < Batch.size())
        return;
    }
  }
};

//===----------------------------------------------------------------------===//
// random
//===----------------------------------------------------------------------===//

class RandomStrategy : public Strategy {
public:
  llvm::StringRef name() const override { return "random"; }

  void run(Evaluator &E, uint64_t Seed) override {
    constexpr size_t BatchSize = 16;
    Search S(E, Seed);
    while (!S.done()) {
      std::vector<Config> Batch;
      std::set<Config> InBatch;
      Config C;
      while (Batch.size() < BatchSize && S.fresh(C, InBatch)) {
        InBatch.insert(C);
        Batch.push_back(C);
      }
      if (Batch.empty() || E.evaluate(Batch).size() < Batch.size())
        return;
    }
  }
};

//===----------------------------------------------------------------------===//
// greedy
//===----------------------------------------------------------------------===//

/// Hill climbing with restarts: from a fresh random configuration, measure
/// all neighbours as one batch and move to the best one that is strictly
/// better; at a local optimum, restart from another fresh configuration.
/// Every move lowers the cost and every restart measures something new, so
/// it ends.
class GreedyStrategy : public Strategy {
public:
  llvm::StringRef name() const override { return "greedy"; }

  void run(Evaluator &E, uint64_t Seed) override {
    Search S(E, Seed);
    std::optional<Config> Current;
    double CurrentCost = Infinity;
    while (!S.done()) {
      if (!Current) {
        Config Start;
        if (!S.fresh(Start))
          return;
        std::vector<Evaluation> R = E.evaluate({Start});
        if (R.empty())
          return;
        Current = std::move(Start);
        CurrentCost = costOf(R.front());
        continue;
      }
      std::vector<Config> Next = E.space().neighbours(*Current);
      std::vector<Evaluation> R = E.evaluate(Next);
      if (R.size() < Next.size())
        return; // the budget ran out part way
      std::optional<size_t> Move;
      double MoveCost = CurrentCost;
      for (size_t I = 0; I < R.size(); ++I) {
        double C = costOf(R[I]);
        if (C < MoveCost) {
          Move = I;
          MoveCost = C;
        }
      }
      if (!Move) {
        Current.reset(); // a local optimum: restart
        continue;
      }
      Current = std::move(Next[*Move]);
      CurrentCost = MoveCost;
    }
  }
};

//===----------------------------------------------------------------------===//
// annealing
//===----------------------------------------------------------------------===//

/// Simulated annealing with a few independent chains, so that a batch holds
/// one proposal from each. A chain proposes a random neighbour and takes it
/// when it is better, or worse by delta with probability exp(-delta / T). T
/// starts at a tenth of the first finite cost and cools geometrically; a
/// chain whose proposals find nothing new for a while restarts, reheated,
/// from a fresh configuration.
class AnnealingStrategy : public Strategy {
public:
  llvm::StringRef name() const override { return "annealing"; }

  void run(Evaluator &E, uint64_t Seed) override {
    constexpr size_t Chains = 4;
    constexpr double InitialFraction = 0.1;
    constexpr double Cooling = 0.9;
    constexpr unsigned Patience = 8;

    struct Chain {
      std::optional<Config> Current; ///< none: (re)start
      double Cost = Infinity;
      double T = 0;
      unsigned Idle = 0; ///< proposals in a row that were known already
      bool Retired = false;
    };

    Search S(E, Seed);
    std::vector<Chain> Walk(Chains);
    double T0 = 0;
    while (!S.done()) {
      // One proposal per chain: a random neighbour, or a fresh start.
      std::vector<Config> Batch;
      std::vector<size_t> Owner;
      std::vector<bool> Known;
      std::set<Config> InBatch;
      for (size_t I = 0; I < Walk.size(); ++I) {
        Chain &Ch = Walk[I];
        if (Ch.Retired)
          continue;
        std::vector<Config> Next;
        if (Ch.Current && Ch.Idle < Patience)
          Next = E.space().neighbours(*Ch.Current);
        Config P;
        if (!Next.empty()) {
          P = std::move(Next[drawBelow(S.Rng, Next.size())]);
        } else {
          Ch.Current.reset();
          if (!S.fresh(P, InBatch)) {
            Ch.Retired = true;
            continue;
          }
        }
        Known.push_back(E.lookup(P) || InBatch.count(P));
        InBatch.insert(P);
        Batch.push_back(std::move(P));
        Owner.push_back(I);
      }
      if (Batch.empty())
        return;

      std::vector<Evaluation> R = E.evaluate(Batch);
      if (R.size() < Batch.size())
        return; // the budget ran out part way
      for (size_t J = 0; J < Batch.size(); ++J) {
        double Cost = costOf(R[J]);
        if (T0 == 0 && std::isfinite(Cost) && Cost > 0)
          T0 = InitialFraction * Cost;
        Chain &Ch = Walk[Owner[J]];
        Ch.Idle = Known[J] ? Ch.Idle + 1 : 0;
        if (!Ch.Current) {
          Ch.Current = Batch[J];
          Ch.Cost = Cost;
          Ch.T = T0;
          continue;
        }
        if (Ch.T == 0)
          Ch.T = T0;
        double U = drawUnit(S.Rng);
        bool Accept = Cost < Ch.Cost;
        if (!Accept && std::isfinite(Cost) && Ch.T > 0)
          Accept = U < std::exp(-(Cost - Ch.Cost) / Ch.T);
        if (Accept) {
          Ch.Current = Batch[J];
          Ch.Cost = Cost;
        }
        Ch.T *= Cooling;
      }
    }
  }
};

//===----------------------------------------------------------------------===//
// genetic
//===----------------------------------------------------------------------===//

/// A generational genetic algorithm: tournament selection, uniform
/// crossover, mutation by one index step or a random value, and the best two
/// carried over unchanged. Children must be valid and not measured before;
/// invalid or known children are redrawn, and when that keeps failing the
/// generation is filled with fresh random configurations. Each generation is
/// one batch and measures something new, so it ends.
class GeneticStrategy : public Strategy {
public:
  llvm::StringRef name() const override { return "genetic"; }

  void run(Evaluator &E, uint64_t Seed) override {
    constexpr size_t MaxPopulation = 16;
    constexpr size_t Elites = 2;
    constexpr size_t Tournament = 3;
    constexpr size_t TriesPerChild = 20;

    Search S(E, Seed);
    const SearchSpace &Space = E.space();
    size_t Size = MaxPopulation;
    if (std::optional<size_t> Valid = S.validCount())
      Size = std::min(Size, *Valid);
    if (Size == 0)
      return;

    // The first generation: fresh random configurations.
    std::vector<Config> Batch;
    std::set<Config> InBatch;
    Config C;
    while (Batch.size() < Size && S.fresh(C, InBatch)) {
      InBatch.insert(C);
      Batch.push_back(C);
    }
    std::vector<std::pair<Config, double>> Population;
    if (!evaluateInto(E, Batch, Population))
      return;
    // A best result preloaded from the database joins the first generation.
    if (std::optional<Config> Best = E.best())
      if (!InBatch.count(*Best))
        Population.emplace_back(*Best, S.cost(*Best));

    while (!S.done() && !Population.empty()) {
      std::stable_sort(
          Population.begin(), Population.end(),
          [](const auto &A, const auto &B) { return A.second < B.second; });
      auto select = [&]() -> const Config & {
        size_t Winner = drawBelow(S.Rng, Population.size());
        for (size_t I = 1; I < Tournament; ++I)
          Winner =
              std::min<size_t>(Winner, drawBelow(S.Rng, Population.size()));
        return Population[Winner].first; // sorted: lower index is better
      };

      size_t Keep = std::min(Elites, Population.size());
      size_t Want = Size > Keep ? Size - Keep : 1;
      Batch.clear();
      InBatch.clear();
      for (size_t Try = 0; Batch.size() < Want && Try < Want * TriesPerChild;
           ++Try) {
        // Two statements: the draws must not depend on argument order.
        const Config &Mother = select();
        const Config &Father = select();
        Config Child = crossover(S, Mother, Father);
        mutate(S, Child);
        if (!Space.valid(Child) || E.lookup(Child) || InBatch.count(Child))
          continue;
        InBatch.insert(Child);
        Batch.push_back(std::move(Child));
      }
      while (Batch.size() < Want && S.fresh(C, InBatch)) {
        InBatch.insert(C);
        Batch.push_back(C);
      }
      if (Batch.empty())
        return;

      Population.resize(Keep);
      if (!evaluateInto(E, Batch, Population))
        return;
    }
  }

private:
  /// Measures Batch and appends it with its costs to Population; false when
  /// the batch was empty or cut short.
  static bool evaluateInto(Evaluator &E, const std::vector<Config> &Batch,
                           std::vector<std::pair<Config, double>> &Population) {
    if (Batch.empty())
      return false;
    std::vector<Evaluation> R = E.evaluate(Batch);
    for (size_t I = 0; I < R.size(); ++I)
      Population.emplace_back(Batch[I], costOf(R[I]));
    return R.size() == Batch.size();
  }

  /// Each parameter from either parent.
  static Config crossover(Search &S, const Config &A, const Config &B) {
    Config Child = A;
    for (size_t I = 0; I < Child.size(); ++I)
      if (S.Rng() & 1)
        Child[I] = B[I];
    return Child;
  }

  /// Each parameter mutates with probability 1/dimensions: half the time
  /// by one index step, otherwise to a random value.
  static void mutate(Search &S, Config &C) {
    const SearchSpace &Space = S.Space;
    for (size_t I = 0; I < C.size(); ++I) {
      size_t N = Space.parameter(I).Values.size();
      if (N < 2 || drawBelow(S.Rng, C.size()) != 0)
        continue;
      if (S.Rng() & 1) {
        bool Up = S.Rng() & 1;
        if (C[I] == 0)
          Up = true;
        else if (C[I] + 1 == N)
          Up = false;
        C[I] = Up ? C[I] + 1 : C[I] - 1;
      } else {
        C[I] = drawBelow(S.Rng, N);
      }
    }
  }
};

} // namespace

std::vector<std::string> forge::tune::strategyNames() {
  return {"exhaustive", "random", "greedy", "annealing", "genetic"};
}

llvm::Expected<std::unique_ptr<Strategy>>
forge::tune::createStrategy(llvm::StringRef Name) {
  std::unique_ptr<Strategy> S;
  if (Name == "exhaustive")
    S = std::make_unique<ExhaustiveStrategy>();
  else if (Name == "random")
    S = std::make_unique<RandomStrategy>();
  else if (Name == "greedy")
    S = std::make_unique<GreedyStrategy>();
  else if (Name == "annealing")
    S = std::make_unique<AnnealingStrategy>();
  else if (Name == "genetic")
    S = std::make_unique<GeneticStrategy>();
  else
    return makeUsageError("unknown search strategy '{0}' (known: {1})", Name,
                          llvm::join(strategyNames(), ", "));
  return std::move(S);
}
