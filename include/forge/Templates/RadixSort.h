//===- Templates/RadixSort.h - An onesweep-style LSD radix sort -*- C++ -*-===//
///
/// \file
/// The "radix-sort" template (docs/templates.md): a stable LSD radix sort of
/// 4-byte keys (u32, i32, f32; ascending or descending), optionally moving
/// 4-byte values with them, in ONE launch of one kernel:
///
/// - 8-bit digits, 4 passes ping-ponging keys -> keys_tmp -> keys, so the
///   result ends in keys (and values);
/// - a histogram phase counts the digits of all 4 passes in one read;
/// - each pass ranks tiles of BLOCK * ITEMS keys inside the block (a warp
///   multi-split with ballots and per-warp digit counters in shared
///   memory), publishes the tile's per-digit counts with a decoupled
///   look-back (one 32-bit status word per (tile, digit): a 2-bit flag and
///   a 30-bit count), and scatters the keys through shared memory so that
///   each digit's keys go out in runs of consecutive addresses
///   (Adinets and Merrill, "Onesweep", 2022);
/// - the phases are chained by tickets: blocks loop taking work items from
///   a counter; an item of a later phase waits until the finished items
///   reach the phase's first ticket. Any grid sorts correctly.
///
/// The host wrapper (shared with the merge sort, SortCommon.h):
///   size_t forge_<name>_scratch_bytes(long long n);
///   cudaError_t forge_<name>(K *keys, [V *values,] K *keys_tmp,
///       [V *values_tmp,] void *scratch, size_t scratch_bytes, long long n,
///       cudaStream_t stream = 0);
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_TEMPLATES_RADIXSORT_H
#define FORGE_TEMPLATES_RADIXSORT_H

#include "forge/Templates/Template.h"
#include "llvm/Support/Error.h"
#include <vector>

namespace forge::templates {

/// The most keys one launch sorts: a status word's count is 30 bits, and
/// the last tile's padding counts too.
constexpr int64_t RadixSortMaxKeys = (int64_t(1) << 30) - 32768;

/// The radix sort of R: a Sort of 4-byte keys (and values) with an empty
/// or "radix" Algorithm; the error says what it refuses and why.
llvm::Expected<Instance> instantiateRadixSort(const Request &R);

/// u32, i32 descending, f32, u32 with u32 values, and a large u32 sort.
std::vector<Request> radixSortSamples();

} // namespace forge::templates

#endif
