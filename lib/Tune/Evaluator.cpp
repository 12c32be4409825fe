//===- Evaluator.cpp - Memoised, budgeted measurement ---------------------===//
#include "forge/Tune/Strategy.h"
#include <cmath>
#include <limits>

using namespace forge::tune;
using forge::measure::CandidateStatus;

Evaluator::Evaluator(const SearchSpace &Space, BatchMeasure Measure, Budget B)
    : Space(Space), Measure(std::move(Measure)), B(B),
      Start(std::chrono::steady_clock::now()) {}

bool Evaluator::exhausted() const {
  if (B.MaxEvaluations && Measured >= B.MaxEvaluations)
    return true;
  if (B.MaxSeconds > 0) {
    std::chrono::duration<double> Elapsed =
        std::chrono::steady_clock::now() - Start;
    if (Elapsed.count() >= B.MaxSeconds)
      return true;
  }
  return false;
}

const Evaluation *Evaluator::lookup(const Config &C) const {
  auto It = Memo.find(C);
  return It == Memo.end() ? nullptr : &It->second;
}

void Evaluator::record(const Config &C, const Evaluation &E) {
  Memo[C] = E;
  if (E.Ok && std::isfinite(E.Cost) && (!Best || E.Cost < BestCost)) {
    Best = C;
    BestCost = E.Cost;
  }
}

void Evaluator::preload(const Config &C, const Evaluation &E) {
  if (Space.valid(C))
    record(C, E);
}

std::vector<Evaluation> Evaluator::evaluate(const std::vector<Config> &Batch) {
  // How many distinct new configurations this batch may measure.
  size_t Room = std::numeric_limits<size_t>::max();
  if (exhausted())
    Room = 0;
  else if (B.MaxEvaluations)
    Room = B.MaxEvaluations - Measured;

  // The prefix of Batch that fits, and the new configurations in it.
  std::vector<Config> New;
  std::map<Config, size_t> Pending;
  size_t End = Batch.size();
  for (size_t I = 0; I < Batch.size(); ++I) {
    const Config &C = Batch[I];
    if (!Space.valid(C) || Memo.count(C) || Pending.count(C))
      continue;
    if (New.size() == Room) {
      End = I;
      break;
    }
    Pending.emplace(C, New.size());
    New.push_back(C);
  }

  if (!New.empty()) {
    std::vector<Evaluation> Results = Measure(New);
    for (size_t I = 0; I < New.size(); ++I) {
      Evaluation E;
      if (I < Results.size()) {
        E = std::move(Results[I]);
      } else {
        E.Status = CandidateStatus::Missing;
        E.Detail = "the measurement returned no result for it";
      }
      record(New[I], E);
      History.emplace_back(New[I], std::move(E));
      ++Measured;
    }
  }

  std::vector<Evaluation> Out;
  Out.reserve(End);
  for (size_t I = 0; I < End; ++I) {
    if (const Evaluation *E = lookup(Batch[I])) {
      Out.push_back(*E);
      continue;
    }
    Evaluation Invalid;
    Invalid.Status = CandidateStatus::Invalid;
    Invalid.Detail = "outside the search space or its constraints";
    Out.push_back(std::move(Invalid));
  }
  return Out;
}
