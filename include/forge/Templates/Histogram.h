//===- Templates/Histogram.h - A shared-memory privatised histogram -*- C++ -*-===//
///
/// \file
/// The histogram template (docs/templates.md, "histogram"): counts integer
/// samples into `unsigned int` bins [0, Bins) in ONE launch of one kernel.
///
/// - Each block counts into its own copies of the bins in shared memory
///   (COPIES of them, warp w using copy w % COPIES, which spreads the
///   atomics of a small number of bins), then adds its counts to the global
///   bins with one atomicAdd per non-zero bin.
/// - Samples are read as 16-byte vectors where the address allows it (16
///   u8 samples or 4 i32 a load), with the head before the first 16-byte
///   boundary and the tail read one at a time.
/// - Samples outside [0, Bins) are ignored. The kernel ADDS to the bins:
///   zero them first for a fresh histogram (the wrapper's zero_first).
/// - Bins whose counts do not fit 48 KiB of shared memory (above 12288)
///   are counted with global atomics directly.
///
/// Integer samples only (i8, u8, i16, u16, i32, u32, i64, u64): a
/// floating-point sample is refused, since binning it needs a range and a
/// rule the request does not give.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_TEMPLATES_HISTOGRAM_H
#define FORGE_TEMPLATES_HISTOGRAM_H

#include "forge/Templates/Template.h"
#include "llvm/Support/Error.h"
#include <vector>

namespace forge::templates {

/// The most bins counted in shared memory: 48 KiB of static shared memory
/// (the limit without an opt-in), 4 bytes a counter.
constexpr int HistogramMaxSharedBins = 12288;

/// The histogram as a kernel of its own: kernel `<Name>(in, bins, n)` over
/// R.Shape[0] samples of R.Type into R.Bins bins, its host wrapper
/// `forge_<Name>` and its spec (tunables BLOCK, ITEMS, COPIES, WAVES).
llvm::Expected<Instance> instantiateHistogram(const Request &R);
std::vector<Request> histogramSamples();

} // namespace forge::templates

#endif
