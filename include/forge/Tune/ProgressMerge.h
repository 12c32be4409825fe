//===- Tune/ProgressMerge.h - One progress line for several sweeps -*- C++ -*-===//
///
/// \file
/// Sweeps that run at once (the targets of a cluster run, each on its
/// partition; the files of a campaign) report progress each on its own
/// thread; the user sees one line. Counts are summed, the ETA is the
/// longest, and the last event is named by its sweep. Costs of different
/// sweeps do not compare (other GPUs, other kernels): the best shown is the
/// latest sweep's best, named by it.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_TUNE_PROGRESSMERGE_H
#define FORGE_TUNE_PROGRESSMERGE_H

#include "forge/Tune/Tuner.h"
#include <functional>
#include <memory>

namespace forge::tune {

class ProgressMerge {
public:
  /// Names[I] names sweep I in the line; Out receives the merged progress
  /// (called under a lock, from the sweeps' threads).
  ProgressMerge(std::vector<std::string> Names, std::function<void(const TuneProgress &)> Out);
  /// The progress callback for sweep I (it may outlive the ProgressMerge).
  std::function<void(const TuneProgress &)> sweep(size_t I) const;

private:
  struct State;
  std::shared_ptr<State> S;
};

} // namespace forge::tune

#endif
