//===- Templates/MergeSort.h - A merge sort with merge-path partitions -*- C++ -*-===//
///
/// \file
/// The "merge-sort" template (docs/templates.md): a stable merge sort of
/// 4-byte keys (u32, i32, f32; ascending or descending), optionally moving
/// 4-byte values with them, in ONE launch of one kernel:
///
/// - phase 0 sorts tiles of BLOCK * ITEMS keys inside the block: each
///   thread sorts its ITEMS keys in registers (odd-even transposition),
///   then the block merges runs of ITEMS, 2 * ITEMS, ... through shared
///   memory, each thread finding its ITEMS outputs by a merge-path search;
/// - merge passes of runs TILE, 2 * TILE, ... each write one tile of output
///   per work item: the block finds the tile's split points in the two
///   runs with a parallel (BLOCK/2-ary) diagonal search in global memory,
///   loads its parts into shared memory and merges them as in phase 0;
/// - the phases ping-pong between keys and keys_tmp so that the last one
///   writes keys, and are chained by tickets within the launch, as in the
///   radix sort. Any grid sorts correctly.
///
/// The host wrapper is the radix sort's (SortCommon.h); it needs no
/// scratch (forge_<name>_scratch_bytes gives 0).
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_TEMPLATES_MERGESORT_H
#define FORGE_TEMPLATES_MERGESORT_H

#include "forge/Templates/Template.h"
#include "llvm/Support/Error.h"
#include <vector>

namespace forge::templates {

/// The most keys one launch sorts (32-bit positions).
constexpr int64_t MergeSortMaxKeys = 2147483647;

/// The merge sort of R: a Sort of 4-byte keys (and values) with an empty
/// or "merge" Algorithm; the error says what it refuses and why.
llvm::Expected<Instance> instantiateMergeSort(const Request &R);

/// u32, i32 descending with f32 values, f32 with f32 values.
std::vector<Request> mergeSortSamples();

} // namespace forge::templates

#endif
