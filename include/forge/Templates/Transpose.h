//===- Templates/Transpose.h - A tiled matrix transpose --------*- C++ -*-===//
///
/// \file
/// out[c * rows + r] = in[r * cols + c] for a row-major rows x cols matrix
/// of 2-, 4- or 8-byte elements (docs/templates.md, "transpose"):
///
/// - A block of TILE x BLOCK_ROWS threads moves TILE x TILE tiles through
///   shared memory: it reads a tile's rows (consecutive threads, consecutive
///   columns: coalesced), and writes the tile's columns as rows of out
///   (coalesced again). Each thread moves TILE / BLOCK_ROWS elements each
///   way. The shared tile is padded to TILE + 1 columns (TILE + 2 for 2-byte
///   elements, one 4-byte word) so that reading a column touches 32
///   different banks.
/// - Any rows and cols: edge tiles are guarded element by element. grid.x
///   runs over column tiles, grid.y over row tiles up to 65535, and a block
///   loops over the row tiles y, y + gridDim.y, ... beyond that.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_TEMPLATES_TRANSPOSE_H
#define FORGE_TEMPLATES_TRANSPOSE_H

#include "forge/Templates/Template.h"
#include "llvm/Support/Error.h"
#include <vector>

namespace forge::templates {

/// The transpose as a kernel of its own: `<Name><TILE, BLOCK_ROWS>(in, out,
/// rows, cols)`, its host wrapper `forge_<Name>` and its spec (tunables
/// TILE, BLOCK_ROWS; sizes ROWS, COLS).
llvm::Expected<Instance> instantiateTranspose(const Request &R);
std::vector<Request> transposeSamples();

} // namespace forge::templates

#endif
