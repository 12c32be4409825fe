//===- Templates/RowSoftmax.h - Softmax of every row of a matrix -*- C++ -*-===//
///
/// \file
/// The row-softmax template (docs/templates.md, "row-softmax"):
/// out[r][c] = exp(in[r][c] - max_r) / sum_c exp(in[r][c] - max_r) for a
/// row-major rows x cols matrix of f32, f16 or bf16 (computed in float), in
/// ONE launch of one kernel with three paths chosen by cols at run time:
///
/// - cols <= 32 * WARP_ITEMS: a warp per row, the row read once into
///   registers (WARP_ITEMS per lane), shuffle reductions for the maximum
///   and the sum, the row written once;
/// - cols <= BLOCK * ITEMS: a block per row, the row in registers (ITEMS
///   per thread), reductions through shared memory;
/// - longer rows: a block per row, a first pass keeping a running maximum
///   and a sum rescaled when the maximum grows (online softmax), then a
///   second pass that reads the row again and writes it.
///
/// 16-byte loads and stores when a row of both matrices is 16-byte aligned
/// (checked at run time, per row), one element at a time otherwise. The
/// rows are a grid-stride loop, so any grid is correct.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_TEMPLATES_ROWSOFTMAX_H
#define FORGE_TEMPLATES_ROWSOFTMAX_H

#include "forge/Templates/Template.h"
#include "llvm/Support/Error.h"
#include <vector>

namespace forge::templates {

/// The row softmax as a kernel of its own: kernel `<Name>(in, out, rows,
/// cols)` over R.Shape = {rows, cols}, its host wrapper `forge_<Name>` and
/// its spec (tunables BLOCK, WARP_ITEMS, ITEMS, defaults chosen for cols).
llvm::Expected<Instance> instantiateRowSoftmax(const Request &R);
std::vector<Request> rowSoftmaxSamples();

} // namespace forge::templates

#endif
