//===- Analysis/ProblemShape.h - How big a kernel's problem is -*- C++ -*-===//
///
/// \file
/// The problem a kernel expects, read from its model: how many elements of
/// each buffer it may touch and how many threads it needs along each grid
/// dimension, both as forms over the kernel's parameters (and blockDim /
/// gridDim where the launch decides). `forge-port spec` drafts its sizes,
/// buffer counts and grid from it.
///
/// Each index is bounded where it runs: the guard terms that hold there
/// (`x < cols && y < rows` bounds `in[y * cols + x]` by `rows * cols - 1`),
/// the bounds of the loops around it (`for (c = 0; c < cols; ++c)`), the
/// ranges of the thread and block indices, clamps, `/` and `%`. An index
/// the analysis cannot bound (a gather, a loop with no bound) says why.
/// Parameters are taken to be non-negative; that is said once.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_ANALYSIS_PROBLEMSHAPE_H
#define FORGE_ANALYSIS_PROBLEMSHAPE_H

#include "forge/Analysis/IndexForm.h"
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace forge::analysis {

class KernelModel;

/// The elements of one buffer the kernel may touch.
struct BufferExtent {
  std::string Buffer;
  int ParamIndex = -1;
  /// The largest index + 1, over symbols (parameters, template parameters,
  /// blockDim, gridDim); none when some access cannot be bounded.
  std::optional<IndexForm> Count;
  /// The bytes of the element Count counts (its first access's type; 0 when
  /// not known, as for a template's T).
  uint64_t ElementBytes = 0;
  /// Why Count is missing, or what it assumes.
  std::string Why;
  /// The access that reaches the largest index ("in[y * w + x]", line).
  std::string From;
  unsigned Line = 0;
  /// Some access may be below the start of the buffer (an offset read the
  /// guard does not keep in range): the kernel expects a pointer into a
  /// larger allocation.
  bool MayReadBefore = false;
  /// Count is rounded up to the terms of its highest degree (`nx * ny *
  /// nz` for an interior stencil's `nx * ny * nz - nx * ny - nx - 1`).
  bool Rounded = false;
  /// The kernel stores to the buffer, but its stores may not reach every
  /// element of Count (an interior stencil's output, a rounded count).
  bool WrittenInPart = false;
};

/// The threads (or blocks) a kernel needs along one grid dimension.
struct ThreadExtent {
  /// ceil_div(Limit, Scale) threads along the dimension (blocks when
  /// PerBlock: the guard bounds blockIdx alone).
  IndexForm Limit;
  /// A constant, or a form over symbols (`ITEMS` for `(blockIdx.x *
  /// blockDim.x + threadIdx.x) * ITEMS`).
  IndexForm Scale = IndexForm::constant(1);
  bool PerBlock = false;
  /// The dimension is covered by a grid-stride loop: any grid is correct;
  /// Limit is the loop's bound (one element per thread).
  bool GridStride = false;
  /// The guard or loop it comes from, as written, and its line.
  std::string From;
  unsigned Line = 0;
};

struct ProblemShape {
  /// One per buffer parameter the kernel accesses, in parameter order.
  std::vector<BufferExtent> Buffers;
  /// x, y, z.
  std::array<std::optional<ThreadExtent>, 3> Threads;
  /// What the shape assumes.
  std::vector<std::string> Notes;
};

/// Reads the problem shape from a model. Needs only the model's plain data
/// (it works on a detached model); may add atoms to its table.
ProblemShape inferProblemShape(KernelModel &M);

} // namespace forge::analysis

#endif
