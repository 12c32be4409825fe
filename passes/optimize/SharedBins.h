//===- passes/optimize/SharedBins.h - A histogram kept in shared memory -*- C++ -*-===//
///
/// \file
/// The textbook shared-memory histogram ("CUDA by Example", ch. 9): each
/// block zeroes a `__shared__` array of bins, counts into it with atomics at
/// data-dependent addresses, and flushes it to global memory after a
/// barrier:
///
///     __shared__ unsigned int local[256];
///     for (b = threadIdx.x; b < 256; b += blockDim.x) local[b] = 0;
///     __syncthreads();
///     for (i = ...; i < n; i += stride) atomicAdd(&local[data[i]], 1u);
///     __syncthreads();
///     for (b = threadIdx.x; b < 256; b += blockDim.x) atomicAdd(&hist[b], local[b]);
///
/// findSharedBins checks, in the kernel model's terms, that the array is
/// only zeroed before the barrier that opens the counting, touched by the
/// counting atomic between the two barriers, and read after the barrier
/// that closes it by a flush that adds (or, per block, stores) every bin
/// once into a global array. histogram-privatize then rewrites the counting
/// statement alone (lane copies, 16-byte loads) and folds the copies back
/// into the array before its flush, which stays as written.
/// docs/passes/histogram-privatize.md, "Bins already in shared memory".
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_PASSES_OPTIMIZE_SHAREDBINS_H
#define FORGE_PASSES_OPTIMIZE_SHAREDBINS_H

#include "RuleUtil.h"
#include "forge/Analysis/KernelModel.h"
#include <cstdint>
#include <string>

namespace clang {
class CompoundStmt;
class Stmt;
class VarDecl;
} // namespace clang

namespace forge::passes {

struct SharedBins {
  /// The kernel updates a __shared__ array at a data-dependent address.
  bool Found = false;
  /// Set when it does, but not in the form the rewrite takes: why not.
  std::string Why;
  /// The counting atomic (set whenever Found), the array and its constant
  /// number of elements.
  const analysis::Access *Count = nullptr;
  const clang::VarDecl *Array = nullptr;
  int64_t Size = 0;
  /// The kernel's static shared memory (the array included), in bytes.
  int64_t StaticBytes = 0;
  /// The statement of the kernel's body that holds the counting atomic, and
  /// the lines of the barriers around it.
  const clang::Stmt *CountStmt = nullptr;
  unsigned OpenLine = 0, CloseLine = 0;
  /// The flush as written ("atomicAdd(&hist[b], local[b])").
  std::string Flush;
  /// Set when the flush writes a histogram per block (its address or guard
  /// reads blockIdx or gridDim, or it is not an atomic): the global write.
  /// Which block counts an element then decides the result, so the
  /// elements must stay with their blocks.
  std::string PerBlock;
};

/// The shared-memory histogram of the kernel, if any, and whether its
/// zeroing, counting and flush are in the form above.
SharedBins findSharedBins(const RuleInput &In, const analysis::KernelModel &M,
                          const clang::CompoundStmt *Body);

} // namespace forge::passes

#endif
