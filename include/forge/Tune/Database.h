//===- Tune/Database.h - The tuning database --------------------*- C++ -*-===//
///
/// \file
/// A JSON file, committed by users next to their sources, that keeps every
/// measured configuration of a kernel and the best one, so a second run on
/// the same key reuses the measurements and an interrupted run continues
/// where it stopped. Records are keyed by kernel identity (name plus a hash
/// of its source file and the files it includes), target, GPU model,
/// problem-size bucket and toolkit version (DESIGN.md).
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_TUNE_DATABASE_H
#define FORGE_TUNE_DATABASE_H

#include "forge/Measure/WorkerProtocol.h"
#include "forge/Support/Json.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace forge::tune {

struct DbKey {
  std::string Kernel;     ///< qualified name
  std::string SourceHash; ///< sha256 of the file and its local includes
  std::string Target;     ///< "sm_90"
  std::string Gpu;        ///< "NVIDIA H200"; "predicted" without one
  std::string Sizes;      ///< the size bucket, "N=2^24"
  std::string Toolkit;    ///< "13.0"
  bool operator==(const DbKey &O) const;
  std::string str() const; ///< one line, for messages
};

struct DbMeasurement {
  std::string Config; ///< SearchSpace::key
  std::map<std::string, int64_t> Values;
  /// Ok or the rejection; the file keeps its name ("ok", "wrong", ...).
  measure::CandidateStatus Status = measure::CandidateStatus::Missing;
  double CostNs = 0;  ///< normalised median (see docs/tune.md); 0 unless ok
  double MedianNs = 0;
  double Noise = 0;
  std::string Detail;
  std::string When;   ///< ISO date of the measurement
};

/// A write-back that passed every check before it was written: the tuned
/// source compiled for its targets, launched what the spec launches and
/// matched the original on the GPU. Hash covers the tuned text and what
/// else decides those checks (TuneSession::checkIdentity); a later run
/// that writes the same text for the same Config reuses the outcome instead
/// of parsing, compiling and running it again.
struct DbCheck {
  std::string Hash;
  std::string Config; ///< the configuration written
  double BaselineNs = 0, BestNs = 0, Speedup = 0, Noise = 0;
  std::string When; ///< ISO date of the check
};

struct DbRecord {
  DbKey Key;
  std::vector<DbMeasurement> Measurements;
  std::optional<std::string> Best; ///< a Config
  std::string Strategy;
  /// The sweep that wrote it ran to the end (false while it runs and after
  /// an interrupt): `--retune=auto` reuses only a complete record.
  bool Complete = true;
  std::optional<DbCheck> Checked; ///< the last write-back's check
  const DbMeasurement *find(llvm::StringRef Config) const;
  /// Adds or replaces the measurement of M.Config.
  void put(DbMeasurement M);
};

class TuningDatabase {
public:
  /// Reads Path; a missing file is an empty database. Malformed content (an
  /// unknown status among it) is an error that names the JSON path, and
  /// nothing is lost: the file is left as it is.
  static llvm::Expected<TuningDatabase> load(llvm::StringRef Path);
  /// The database in Text, read as load() reads a file; Path names it in
  /// errors.
  static llvm::Expected<TuningDatabase> parse(llvm::StringRef Text,
                                              llvm::StringRef Path);
  /// Writes atomically.
  llvm::Error save(llvm::StringRef Path) const;
  /// Read-modify-write under an exclusive lock on Path + ".lock", so that
  /// parallel runs (a parallel build tuning several kernels) each keep
  /// their records: Path is read again, Change applied, and the result
  /// written atomically. A file that is not a valid database is an error,
  /// and it is left as it is.
  static llvm::Error update(llvm::StringRef Path,
                            llvm::function_ref<void(TuningDatabase &)> Change);

  DbRecord &record(const DbKey &K);
  const DbRecord *find(const DbKey &K) const;
  const std::vector<DbRecord> &records() const { return Records; }

  Json toJson() const;

private:
  std::vector<DbRecord> Records;
};

/// sha256 of File and, recursively, of the files it includes with quotes
/// that exist next to it (or next to the includer); then of each of Also
/// (the user headers a depfile lists, reached through -I and <...>) that
/// this walk did not reach, in the order of their absolute paths. Without
/// such files the identity is the walk's alone, as before Also existed.
llvm::Expected<std::string> sourceIdentity(llvm::StringRef File,
                                           llvm::ArrayRef<std::string> Also = {});

/// "N=2^24,M=2^10": each size rounded to the nearest power of two, so
/// nearby sizes share tuned values.
std::string sizeBucket(const std::vector<std::pair<std::string, int64_t>> &Sizes);

} // namespace forge::tune

#endif
