//===- Search/Islands.h - Island populations over the archive -*- C++ -*-===//
///
/// \file
/// The island model of `optimize --search evolve`: N islands, each with a
/// population of at most P variants (ids of the archive's history), evolve
/// side by side and exchange their best every K generations along a ring.
///
/// Every random choice comes from one std::mt19937_64 seeded explicitly
/// (never from the clock), and bounded draws are made here rather than by
/// the standard distributions, whose output differs between standard
/// libraries: the same seed and the same calls give the same choices on
/// every machine.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_SEARCH_ISLANDS_H
#define FORGE_SEARCH_ISLANDS_H

#include "forge/Search/Archive.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace forge::search {

struct IslandOptions {
  unsigned Islands = 4;
  unsigned Population = 8;
  /// migrationDue() every this many generations (0: never).
  unsigned MigrationInterval = 3;
  /// The chance that selectParent() takes a random archive elite instead of
  /// a tournament winner of the island (diversity).
  double EliteProbability = 0.1;
};

/// What addToIsland did.
enum class AddOutcome {
  Added,         ///< the population had room
  ReplacedWorst, ///< the population was full and the newcomer was faster than its worst
  Rejected,      ///< full, and the newcomer was not faster than the worst
  AlreadyThere,
};

/// One migrant of a migration.
struct Migration {
  unsigned From = 0, To = 0;
  std::string Migrant;
  /// The receiver's worst that it replaced; empty when the receiver had
  /// room, or the migrant was already there (then Skipped).
  std::string Replaced;
  bool Skipped = false;
};

/// How a parent was chosen.
struct Selection {
  std::string Id;
  /// From the archive's elites rather than the island's tournament.
  bool FromArchive = false;
};

class Islands {
public:
  /// Opts is taken as given, with at least one island and a population of
  /// at least one.
  Islands(const IslandOptions &Opts, uint64_t Seed);

  unsigned count() const { return unsigned(Pops.size()); }
  const std::vector<std::string> &population(unsigned Island) const { return Pops.at(Island); }
  const IslandOptions &options() const { return Opts; }

  /// Adds a variant of A's history to an island: while there is room it
  /// joins; when full it replaces the slowest member if it is faster.
  /// Fails when Island is out of range or Id is not in A's history.
  llvm::Expected<AddOutcome> add(unsigned Island, llvm::StringRef Id, const Archive &A);
  /// Adds Id to every island (the original, at the start).
  llvm::Error seedAll(llvm::StringRef Id, const Archive &A);

  /// A parent for the next proposal on Island: with EliteProbability a
  /// random elite of A, otherwise the faster of two members drawn at
  /// random (a tournament of 2; one member is its own winner). Fails when
  /// the island is empty and A has no elite.
  llvm::Expected<Selection> selectParent(unsigned Island, const Archive &A);

  /// Two elites of A from different cells, for a crossover prompt. Fails
  /// when A has fewer than two cells.
  llvm::Expected<std::pair<std::string, std::string>> crossoverPair(const Archive &A);

  /// Whether generation Gen (1-based) ends with a migration.
  bool migrationDue(unsigned Gen) const {
    return Opts.MigrationInterval && Gen > 0 && Gen % Opts.MigrationInterval == 0;
  }
  /// Ring migration: every island's best (chosen before any move) goes to
  /// the next island, replacing the receiver's worst (or joining when there
  /// is room). An island of one, or an empty island, sends nothing.
  std::vector<Migration> migrate(const Archive &A);

  /// The island's fastest and slowest members (empty when it is empty).
  std::string bestOf(unsigned Island, const Archive &A) const;
  std::string worstOf(unsigned Island, const Archive &A) const;

  /// A uniform draw in [0, N) (N > 0) and one in [0, 1), from the seeded
  /// generator; public so that a caller's other choices share the stream.
  uint64_t uniform(uint64_t N);
  double unit();

private:
  double timeOf(const std::string &Id, const Archive &A) const;

  IslandOptions Opts;
  std::mt19937_64 Rng;
  std::vector<std::vector<std::string>> Pops;
};

} // namespace forge::search

#endif
