//===- Experience/Experience.h - What transformations paid off -*- C++ -*-===//
///
/// \file
/// The experience library (docs/experience.md): a plain JSON file that
/// records, for each transformation the optimiser kept or rejected, the
/// kernel pattern it applied to, the architecture and the measured gain.
/// Later runs rank their proposals with it, so that a rewrite that never
/// helped on this pattern and architecture is tried last, and give its
/// relevant entries to a model.
///
/// The pattern is read from the analysis model, never from names: two
/// kernels that compute the same thing the same way share a key whatever
/// their kernels and variables are called.
///
/// \code
///   std::string Key = experience::patternKey(Model);
///   std::string Family = experience::patternFamily(Model);
///   auto Lib = experience::Experience::load(experience::defaultPath());
///   Order = Lib->rank(Origins, Key, Family, "sm_90");
///   ...
///   if (Error E = Lib->record({Entry}))  // locked, re-read, merged, renamed
/// \endcode
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_EXPERIENCE_EXPERIENCE_H
#define FORGE_EXPERIENCE_EXPERIENCE_H

#include "forge/Support/Json.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <ctime>
#include <optional>
#include <string>
#include <vector>

namespace forge::analysis {
class KernelModel;
} // namespace forge::analysis

namespace forge::experience {

//===----------------------------------------------------------------------===//
// Pattern keys
//===----------------------------------------------------------------------===//

/// A short, stable, name-free signature of what a kernel computes and how
/// it touches memory, built from the recognised computations, the warp
/// access classes of its global accesses and the shape of its loops, each
/// part sorted and deduplicated:
/// "reduction(atomic,add,grid)|access:broadcast,coalesced|loops:none".
/// Sizes a tuner changes (chunk sizes, unroll factors) are left out, so
/// that a kernel and its tuned variants share a key.
std::string patternKey(const analysis::KernelModel &M);

/// A coarser key for fallback ranking: the kinds of the recognised
/// computations only ("reduction", "matrix-vector", "stencil"), a
/// loop-carried reduction counted only when nothing else was recognised;
/// "none" when nothing was.
std::string patternFamily(const analysis::KernelModel &M);

//===----------------------------------------------------------------------===//
// Entries
//===----------------------------------------------------------------------===//

/// What became of a transformation.
enum class Verdict {
  Kept,      ///< it applied, checked and was faster: kept
  Rejected,  ///< a validation stage failed (Entry::Stage says which)
  Slower,    ///< slower than the kernel it changed, beyond the noise
  NotFaster, ///< within the noise
};

/// "kept", "rejected", "slower", "not-faster"; none for another name.
llvm::StringRef verdictName(Verdict V);
std::optional<Verdict> parseVerdict(llvm::StringRef Name);

struct Entry {
  /// The proposal's origin as the optimiser records it: "expert:vectorize",
  /// "tuner", "model", "template:sort".
  std::string Transformation;
  std::string Pattern; ///< patternKey of the kernel it applied to
  std::string Family;  ///< patternFamily of the same
  std::string Arch;    ///< the target, "sm_90"
  std::string Gpu;     ///< the GPU it was measured on, "NVIDIA H200"; may be empty
  Verdict V = Verdict::Rejected;
  /// For Rejected: the stage that failed ("compile", "correctness").
  std::string Stage;
  /// The measured speed-up (old time / new time); 0 when none was measured.
  double Gain = 0;
  std::string Kernel, File; ///< information only; never used to match
  /// UTC, "2026-12-01T10:20:30Z"; record() fills it when empty.
  std::string Time;
  /// The forge-port that wrote it; record() fills it when empty.
  std::string ForgeVersion;
  /// Members this version does not know (a user's "note"), kept as they are.
  Json Extra = Json::object();

  bool helped() const { return V == Verdict::Kept; }
  bool operator==(const Entry &O) const;
};

/// The JSON form of one entry, as the file holds it.
Json toJson(const Entry &E);
/// Entry::Time as seconds since the epoch; none when it is not in that form.
std::optional<std::time_t> parseUtc(llvm::StringRef Text);

//===----------------------------------------------------------------------===//
// Ranking and summaries
//===----------------------------------------------------------------------===//

/// What the entries say of one transformation.
struct Tally {
  unsigned Tried = 0, Kept = 0;
  /// Geometric mean of the gains of the kept entries that have one; 0
  /// when none has.
  double MeanGain = 0;
  /// The geometric mean over every try, a try not kept counting as 1x:
  /// what trying it is expected to give.
  double ExpectedGain = 1;
  /// Counts of the verdicts not kept ("rejected (correctness)", "slower").
  std::vector<std::pair<std::string, unsigned>> Failures;
  /// "kept 3 of 3, mean 7.1x", "rejected 2 of 2 (correctness)".
  std::string describe() const;
};

Tally tally(llvm::ArrayRef<const Entry *> Entries);

/// One row of `forge-port experience list`.
struct Summary {
  std::string Transformation, Pattern, Arch;
  Tally T;
};

//===----------------------------------------------------------------------===//
// The store
//===----------------------------------------------------------------------===//

/// Which entries prune() drops: those that match every criterion given
/// (none given: only exact duplicates are dropped).
struct PruneOptions {
  std::optional<unsigned> OlderThanDays;
  std::string Transformation;
  std::string Arch;
  /// The time "older than" counts from; now when unset.
  std::optional<std::time_t> Now;
};

struct PruneResult {
  unsigned Expired = 0, Matched = 0, Duplicates = 0;
  unsigned removed() const { return Expired + Matched + Duplicates; }
  unsigned Kept = 0;
};

enum class ExportFormat { Json, Csv };

class Experience {
public:
  /// Reads Path; a missing (or empty) file is an empty library. Malformed
  /// JSON, another version or a mistyped field is an error that names the
  /// file and the field ("exp.json: $.entries[2].gain: expected a number").
  static llvm::Expected<Experience> load(llvm::StringRef Path);
  /// The same, from text (Origin names it in errors); path() is Origin.
  static llvm::Expected<Experience> parse(llvm::StringRef Text, llvm::StringRef Origin);

  llvm::StringRef path() const { return Path; }
  const std::vector<Entry> &entries() const { return Entries; }

  /// Appends New to the file, safely when other processes write it at the
  /// same time: an exclusive lock on "<path>.lock", the file re-read, the
  /// entries appended, the whole written to a temporary file in the same
  /// directory and renamed over it, the lock released. Directories are
  /// created. Empty Time and ForgeVersion are filled. On success entries()
  /// is what the file now holds; on an error (the file became malformed,
  /// cannot be written) the file is unchanged.
  llvm::Error record(llvm::ArrayRef<Entry> New);

  /// Drops entries (PruneOptions) and exact duplicates, under the same
  /// lock as record(); with DryRun, counts and leaves the file alone.
  llvm::Expected<PruneResult> prune(const PruneOptions &Opts, bool DryRun = false);

  /// Writes the entries to Out ("-": stdout) atomically: JSON in the
  /// file's own format, or CSV with a header row.
  llvm::Error exportTo(llvm::StringRef Out, ExportFormat F) const;
  std::string render(ExportFormat F) const;

  /// Candidates (transformation names) reordered by what helped: those
  /// that helped first, by their expected gain; those never tried in
  /// between, in their given order; those that never helped last, the ones
  /// with the most evidence against them at the very end. Each candidate
  /// is judged on the most specific entries there are for it: the same
  /// pattern and arch (weight 1), the same family and arch (1/2), the same
  /// pattern on any arch (1/4), the same family on any arch (1/8); the
  /// weight scales the gain and the evidence. Stable and deterministic.
  std::vector<std::string> rank(llvm::ArrayRef<std::string> Candidates, llvm::StringRef Pattern,
                                llvm::StringRef Family, llvm::StringRef Arch) const;

  /// The entries that bear on this pattern and arch as short lines for a
  /// model prompt, most specific first, at most Max transformations:
  /// "on this pattern (K) and sm_90: expert:a kept 3 of 3, mean 7.1x;
  /// expert:b rejected 2 of 2 (correctness)". Empty when nothing is known.
  std::vector<std::string> promptLines(llvm::StringRef Pattern, llvm::StringRef Family,
                                       llvm::StringRef Arch, size_t Max = 8) const;

  /// One row per (transformation, pattern, arch), sorted by pattern,
  /// transformation and arch.
  std::vector<Summary> summaries() const;
  /// The entries whose transformation, pattern or family is What.
  std::vector<const Entry *> select(llvm::StringRef What) const;

  /// `forge-port experience list` and `show`: an aligned table, and one
  /// line per entry.
  static std::string renderTable(llvm::ArrayRef<Summary> Rows);
  static std::string renderEntries(llvm::ArrayRef<const Entry *> Rows);

  /// Exposed for tests: the entries as they would be written.
  Json toJson() const;

private:
  std::string Path;
  std::vector<Entry> Entries;
  /// Top-level members this version does not know, kept.
  Json Extra = Json::object();
};

/// Drops from Entries what Opts selects and exact duplicates (the first
/// copy stays); the counts of what went.
PruneResult pruneEntries(std::vector<Entry> &Entries, const PruneOptions &Opts);

/// $FORGE_EXPERIENCE, else $XDG_CACHE_HOME/forge/experience.json, else
/// ~/.cache/forge/experience.json; an error when none is known or when
/// FORGE_EXPERIENCE is "off" (`optimize` then runs without one).
llvm::Expected<std::string> defaultPath();

} // namespace forge::experience

#endif
