//===- Templates/Scan.h - A single-pass scan with decoupled look-back -*- C++ -*-===//
///
/// \file
/// A library-class prefix scan (inclusive or exclusive, +, max or min over
/// a 4-byte element type), written as plain CUDA text so that it can
/// replace the body of a user's kernel with the same signature:
///
/// - Tiles of blockDim * Items consecutive elements are handed out in the
///   order blocks ask for them (a ticket counter), so a block only ever
///   waits on tiles that running blocks hold, for any grid and any block.
/// - A warp reads its part of the tile in rounds of 4 elements a lane, so
///   every load and store of the warp covers consecutive addresses (one
///   16-byte access a lane when both pointers are aligned and the tile is
///   whole); a lane scans its 4 in registers, the warp the round's groups
///   with shuffles, the rounds are chained by the warp's running total and
///   the block combines its warps' totals through shared memory.
/// - Decoupled look-back (Merrill and Garland, 2016): a tile publishes its
///   aggregate at once and its inclusive prefix when it knows it; the first
///   warp of the next tile reads 32 predecessors at a time and stops at the
///   nearest published prefix. A status is one 64-bit word (the value's 32
///   bits, a 2-bit kind and a 30-bit launch epoch), so its value and its
///   mark are seen together without a fence.
/// - The state (statuses, ticket, finished-block count, epoch) lives in
///   __device__ variables of the generated file. The last block of a launch
///   resets the ticket and advances the epoch, so launches need no cleared
///   scratch. Launches of one instantiation must not overlap in time (one
///   stream, or ordered by events); a tile count above MaxTiles traps.
///
/// No cuBLAS, CUB or Thrust: the suite compares against those.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_TEMPLATES_SCAN_H
#define FORGE_TEMPLATES_SCAN_H

#include "forge/Templates/Template.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <string>
#include <vector>

namespace forge::templates {

enum class ScanOp { Add, Max, Min };
enum class ScanOrder { Inclusive, Exclusive };

llvm::StringRef scanOpName(ScanOp Op);          ///< "+", "max", "min"
llvm::StringRef scanOrderName(ScanOrder Order); ///< "inclusive", "exclusive"

struct ScanParams {
  /// The kernel's declaration up to its body, exactly as the user wrote it
  /// ("__global__ void scan(const float *x, float *y, int n)").
  std::string Head;
  /// A name the generated globals are made unique with ("scan").
  std::string Tag;
  /// The input and output pointers and the element count, as expressions
  /// over the kernel's parameters.
  std::string In, Out, Count;
  /// The element type: a 4-byte arithmetic type ("float", "int",
  /// "unsigned int").
  std::string ElementType;
  bool FloatingPoint = false;
  bool Signed = true;
  ScanOp Op = ScanOp::Add;
  ScanOrder Order = ScanOrder::Inclusive;
  /// Elements per thread: a multiple of 4 up to 32 (a thread loads 4 at a
  /// time, as one 16-byte load when the pointers are aligned).
  int Items = 8;
  /// Statuses kept: the most tiles one launch may have (a power of two).
  unsigned MaxTiles = 1u << 20;
};

/// The parameters' problems in words ("Items must be 1..32"), or success.
llvm::Error checkScanParams(const ScanParams &P);

/// File-scope declarations the kernel needs (its look-back state), to go
/// before the kernel's definition.
std::string scanPreamble(const ScanParams &P);

/// The kernel's definition: Head followed by the template's body.
std::string scanKernel(const ScanParams &P);

/// The scan as a kernel of its own (`forge-port new`): kernel `scan(in, out,
/// n)` over R.Shape[0] elements with R.Operator (+, max, min), its host
/// wrapper `forge_scan` and its spec (tunables BLOCK and WAVES).
llvm::Expected<Instance> instantiateScan(const Request &R);
std::vector<Request> scanSamples();

} // namespace forge::templates

#endif
