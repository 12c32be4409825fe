//===- Replay.cpp - Evaluating from a recorded cache ----------------------===//
#include "forge/Tune/Strategy.h"

using namespace forge::tune;
using forge::measure::CandidateStatus;

BatchMeasure
forge::tune::replayMeasure(const SearchSpace &Space,
                           std::map<std::string, Evaluation> Cache) {
  // The measure outlives the caller's space in some uses; keep a copy.
  return [Space, Cache = std::move(Cache)](const std::vector<Config> &Batch) {
    std::vector<Evaluation> Out;
    Out.reserve(Batch.size());
    for (const Config &C : Batch) {
      std::string Key = Space.key(C);
      auto It = Cache.find(Key);
      if (It != Cache.end()) {
        Out.push_back(It->second);
        continue;
      }
      Evaluation Missing;
      Missing.Status = CandidateStatus::Missing;
      Missing.Detail = "not in the recorded cache: " + Key;
      Out.push_back(std::move(Missing));
    }
    return Out;
  };
}
