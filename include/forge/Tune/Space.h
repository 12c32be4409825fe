//===- Tune/Space.h - The search space of a tuning run ----------*- C++ -*-===//
///
/// \file
/// A search space is a list of parameters, each with its candidate values,
/// and a validity predicate (the spec's constraints, the target's limits,
/// static pruning). A configuration is one value index per parameter, so
/// strategies can step to neighbouring values without knowing what the
/// values mean.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_TUNE_SPACE_H
#define FORGE_TUNE_SPACE_H

#include <cstdint>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace forge::tune {

struct Parameter {
  std::string Name;
  std::vector<int64_t> Values; ///< in increasing order where that means something
  std::string Origin;          ///< "template", "macro", "launch", ... (KernelIndex)
};

/// One index into each parameter's Values.
using Config = std::vector<size_t>;

class SearchSpace {
public:
  using Predicate = std::function<bool(const std::map<std::string, int64_t> &)>;

  SearchSpace() = default;
  SearchSpace(std::vector<Parameter> Params, Predicate Valid = nullptr);

  size_t dimensions() const { return Params.size(); }
  const Parameter &parameter(size_t I) const { return Params[I]; }
  const std::vector<Parameter> &parameters() const { return Params; }

  /// The number of configurations before the predicate (saturates at
  /// UINT64_MAX).
  uint64_t cartesianSize() const;

  /// Whether every index is in range and the predicate holds.
  bool valid(const Config &C) const;

  /// Name -> value.
  std::map<std::string, int64_t> values(const Config &C) const;

  /// The configuration with these values; false when a value is not a
  /// candidate.
  bool fromValues(const std::map<std::string, int64_t> &V, Config &Out) const;

  /// "BLOCK=256,ITEMS=4": the key of a configuration in caches and the
  /// tuning database.
  std::string key(const Config &C) const;
  bool fromKey(const std::string &Key, Config &Out) const;

  /// Every valid configuration in lexicographic order (the first parameter
  /// varies slowest), at most Limit (0: all).
  std::vector<Config> enumerateValid(size_t Limit = 0) const;

  /// Steps C to the next configuration in that order, valid or not (the
  /// first one is all zeros); false, leaving C unspecified, after the last.
  bool advance(Config &C) const;

  /// Valid configurations that differ from C in one parameter by one index
  /// step (up or down), by parameter, the step down first.
  std::vector<Config> neighbours(const Config &C) const;

  /// A uniformly drawn valid configuration; false when none was found in
  /// MaxTries draws (a space that is almost entirely invalid).
  bool randomValid(std::mt19937_64 &Rng, Config &Out,
                   unsigned MaxTries = 10000) const;

private:
  std::vector<Parameter> Params;
  Predicate Valid;
};

/// A uniform draw from [0, N), N > 0, from the engine's raw output, so a
/// seed gives the same draws with every standard library
/// (std::uniform_int_distribution is implementation-defined).
uint64_t drawBelow(std::mt19937_64 &Rng, uint64_t N);

/// A uniform draw from [0, 1) with 53 random bits.
double drawUnit(std::mt19937_64 &Rng);

} // namespace forge::tune

#endif
