//===- TuneTestUtil.h - Recorded caches for the tuning tests ----*- C++ -*-===//
///
/// \file
/// Loads a recorded cache (Inputs/*.json):
///   {"space": [{"name": .., "values": [..]}, ...],
///    "results": {"A=1,B=2": {"status": "ok", "cost_ns": 123.0}, ...}}
/// The constraints are code (the spec's predicate), given by the test.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_TEST_UNIT_TUNE_TUNETESTUTIL_H
#define FORGE_TEST_UNIT_TUNE_TUNETESTUTIL_H

#include "forge/Support/Json.h"
#include "forge/Tune/Strategy.h"
#include <limits>
#include <memory>

namespace forge::tune::test {

inline const std::string InputsDir = FORGE_TUNE_TEST_INPUTS;

struct RecordedCache {
  SearchSpace Space;
  std::map<std::string, Evaluation> Results;

  /// The cheapest Ok result among valid configurations.
  double optimum() const {
    double Best = std::numeric_limits<double>::infinity();
    for (const auto &[Key, E] : Results) {
      Config C;
      if (E.Ok && Space.fromKey(Key, C) && Space.valid(C))
        Best = std::min(Best, E.Cost);
    }
    return Best;
  }
  size_t validCount() const { return Space.enumerateValid().size(); }
};

/// Reads Inputs/<Name>; an error names what is wrong.
inline llvm::Expected<RecordedCache> loadCache(const std::string &Name,
                                               SearchSpace::Predicate Valid) {
  llvm::Expected<Json> J = readJsonFile(InputsDir + "/" + Name);
  if (!J)
    return J.takeError();
  RecordedCache Out;
  try {
    std::vector<Parameter> Params;
    for (const Json &P : J->at("space")) {
      Parameter Param;
      Param.Name = P.at("name").get<std::string>();
      Param.Values = P.at("values").get<std::vector<int64_t>>();
      Param.Origin = "macro";
      Params.push_back(std::move(Param));
    }
    Out.Space = SearchSpace(std::move(Params), std::move(Valid));
    for (const auto &[Key, R] : J->at("results").items()) {
      Evaluation E;
      std::string Status = R.at("status").get<std::string>();
      auto S = measure::parseCandidateStatus(Status);
      if (!S)
        return llvm::createStringError(
            llvm::inconvertibleErrorCode(),
            Name + ": " + Key + ": unknown status '" + Status + "'");
      E.Status = *S;
      E.Ok = E.Status == measure::CandidateStatus::Ok;
      if (E.Ok)
        E.Cost = R.at("cost_ns").get<double>();
      if (R.contains("detail"))
        E.Detail = R.at("detail").get<std::string>();
      Out.Results.emplace(Key, std::move(E));
    }
  } catch (const std::exception &Ex) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   Name + ": " + Ex.what());
  }
  return std::move(Out);
}

/// (a) A block reduction: BLOCK in 32..1024 step 32, ITEMS in 1..16,
/// BLOCK*ITEMS <= 4096; a bowl with occupancy ripples, some crashes.
inline llvm::Expected<RecordedCache> loadBowl() {
  return loadCache("bowl2d.json", [](const std::map<std::string, int64_t> &V) {
    return V.at("BLOCK") * V.at("ITEMS") <= 4096;
  });
}

/// (b) A tiled GEMM: BM x BN x STAGES, (BM+BN)*STAGES <= 1024 and
/// BM*BN <= 16384; flat near the optimum, with crashes, wrong results, a
/// compile failure and one configuration never recorded.
inline llvm::Expected<RecordedCache> loadGemm() {
  return loadCache("gemm3d.json", [](const std::map<std::string, int64_t> &V) {
    int64_t BM = V.at("BM"), BN = V.at("BN");
    return (BM + BN) * V.at("STAGES") <= 1024 && BM * BN <= 16384;
  });
}

} // namespace forge::tune::test

#endif
