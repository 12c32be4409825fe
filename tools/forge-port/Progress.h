//===- forge-port/Progress.h - What a long run shows on stderr -*- C++ -*-===//
///
/// \file
/// The progress lines of measure, tune and optimize (done of total, best so
/// far, ETA), and the local GPU as the GPU subcommands look for it.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_TOOLS_FORGEPORT_PROGRESS_H
#define FORGE_TOOLS_FORGEPORT_PROGRESS_H

#include "forge/Measure/Measurement.h"
#include "forge/Tune/Tuner.h"
#include <functional>
#include <optional>

namespace forge::tool {

/// "[3/12] c2 ok 215.60 us; best 201.10 us (k.cu BLOCK=128); ETA 40 s".
std::function<void(const measure::CandidateResult &, size_t, size_t)> measureProgress();

/// "[8/40] best 1.00 us (BLOCK=128); 12 s elapsed, ETA 48 s; last ...",
/// rewritten in place on a terminal.
std::function<void(const tune::TuneProgress &)> tuneProgress();

/// "[  12 s] round 2/10: ...", rewritten in place on a terminal.
std::function<void(llvm::StringRef)> elapsedProgress();

/// The local GPU (forge-worker and what it reports), or none with a
/// warning that ends in Consequence ("values are predicted").
std::optional<measure::LocalGpu> localGpu(llvm::StringRef WorkerOpt, const char *Argv0,
                                          llvm::StringRef Consequence);

} // namespace forge::tool

#endif
