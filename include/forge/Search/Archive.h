//===- Search/Archive.h - The MAP-Elites archive of kernel variants -*- C++ -*-===//
///
/// \file
/// The quality-diversity memory of `optimize --search evolve`: one elite
/// (the fastest correct variant seen) per cell of behavioural descriptors
/// (Descriptors.h), plus the history of every correct, measured variant so
/// that a winner's lineage can be told back to the original.
///
/// A variant enters only when it was checked correct and timed. It takes a
/// cell that is empty, or replaces the cell's elite when it is faster beyond
/// the relative noise; a variant within the noise keeps the incumbent, as
/// DESIGN.md's "a difference smaller than the measured noise is no
/// difference" asks. Every evaluation, whether it entered or not, is
/// counted per origin with noteEvaluation(), which the report shows as the
/// evaluations spent per proposer.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_SEARCH_ARCHIVE_H
#define FORGE_SEARCH_ARCHIVE_H

#include "forge/Search/Descriptors.h"
#include "forge/Support/Json.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace forge::search {

/// One kernel variant as the search saw it.
struct Variant {
  std::string Id;
  /// The variant(s) it was made from: one for a mutation, two for a
  /// crossover (the first is the line the lineage follows), none for the
  /// original.
  std::vector<std::string> Parents;
  /// The source text, or (when Source is empty) where it is kept.
  std::string Source;
  std::string SourcePath;
  /// What produced it: "original", "expert:transpose-tile", "tuner",
  /// "template:gemm", "model", "crossover".
  std::string Origin;
  unsigned Generation = 0;
  unsigned Island = 0;
  /// Median kernel time; unset when it was not measured.
  std::optional<double> MedianNs;
  /// Passed the check against the original.
  bool Correct = false;
  Descriptor Desc;
};

enum class InsertOutcome {
  NewCell,            ///< took an empty cell
  Replaced,           ///< beat the cell's elite beyond the noise
  RejectedSlower,     ///< not faster than the elite beyond the noise
  RejectedIncorrect,  ///< failed the check: never enters
  RejectedUnmeasured, ///< no time: never enters
  RejectedDuplicate,  ///< its id is already known
};

llvm::StringRef insertOutcomeName(InsertOutcome O); ///< "new-cell", "replaced", ...

struct InsertResult {
  InsertOutcome Outcome = InsertOutcome::RejectedUnmeasured;
  /// The cell's elite before the insertion (empty for a new cell).
  std::string Incumbent;
  /// The incumbent's time over the variant's (>1: faster); 0 when there is
  /// no incumbent or the variant was not measured.
  double SpeedupOverIncumbent = 0;

  bool entered() const {
    return Outcome == InsertOutcome::NewCell || Outcome == InsertOutcome::Replaced;
  }
};

/// One step of a lineage, from the original to the variant asked about.
struct LineageStep {
  std::string Id;
  std::string Origin;
  unsigned Generation = 0;
  double MedianNs = 0;
  /// The parent's time over this one's (1.25: 25 % faster); 1 for the
  /// original.
  double GainOverParent = 1;
  /// Other parents of a crossover.
  std::vector<std::string> OtherParents;
};

class Archive {
public:
  /// RelativeNoise: a variant replaces an elite only when its time is below
  /// elite * (1 - RelativeNoise).
  explicit Archive(double RelativeNoise = 0.02) : Noise(RelativeNoise) {}

  /// Places V (see InsertOutcome). A correct, measured variant is kept in
  /// the history even when it loses its cell, so that islands may hold it
  /// and lineages pass through it.
  InsertResult insert(Variant V);
  /// Counts one evaluation (compiled, checked and timed, or failing on the
  /// way) of a proposal from Origin, whether or not it entered.
  void noteEvaluation(llvm::StringRef Origin);

  /// A variant of the history, or null.
  const Variant *find(llvm::StringRef Id) const;
  /// The elite of a cell, or null.
  const Variant *elite(const Descriptor &Cell) const;
  /// Every elite, in cell order.
  std::vector<const Variant *> elites() const;
  /// The fastest elite, or null when the archive is empty.
  const Variant *best() const;
  /// The original: the first variant inserted without parents, or null.
  const Variant *original() const;
  size_t cellCount() const { return Cells.size(); }
  /// Filled cells over all cells (NumCells).
  double coverage() const { return double(Cells.size()) / NumCells; }
  /// Variants in the history (entered at least once, or kept as history).
  size_t size() const { return History.size(); }

  /// The first-parent chain from the original to Id. Fails when Id or an
  /// ancestor is not in the history.
  llvm::Expected<std::vector<LineageStep>> lineage(llvm::StringRef Id) const;

  /// Evaluations per origin, by origin name.
  const std::map<std::string, unsigned> &evaluations() const { return Evaluations; }
  unsigned totalEvaluations() const;

  double relativeNoise() const { return Noise; }

  /// {"version": 1, "relative_noise", "variants": [...], "cells": [{"key",
  /// "elite"}], "evaluations": {origin: n}}.
  Json toJson() const;
  /// Strict: every field checked, elites must be variants of the history
  /// whose descriptor is their cell's; errors name the JSON path.
  static llvm::Expected<Archive> fromJson(const Json &J, llvm::StringRef Origin);
  static llvm::Expected<Archive> fromJsonText(llvm::StringRef Text, llvm::StringRef Origin);

private:
  double Noise;
  /// Insertion order, for determinism.
  std::vector<Variant> History;
  std::map<std::string, size_t> ById;
  /// Cell index -> history index of its elite.
  std::map<unsigned, size_t> Cells;
  std::map<std::string, unsigned> Evaluations;
};

Json toJson(const Variant &V);
llvm::Expected<Variant> variantFromJson(const Json &J, llvm::StringRef Origin,
                                        llvm::StringRef Path = "$");

} // namespace forge::search

#endif
