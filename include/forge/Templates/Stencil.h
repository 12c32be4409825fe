//===- Templates/Stencil.h - Stencils and convolutions with a fixed filter -*- C++ -*-===//
///
/// \file
/// The template "stencil" (docs/templates.md): a 1D, 2D or 3D correlation
/// with a filter given per axis (odd extents, outermost first),
///
///   out[p] = sum over the offsets o of the filter of
///            w[o] * in[border(p + o - radius)],
///
/// the filter not flipped, the weights an input buffer of the kernel, the
/// border "clamp" (the nearest edge element) or "zero". A 2D filter may be
/// separable: w[dy][dx] = wc[dy] * wr[dx], a row pass then a column pass.
///
/// Every variant is one launch of one kernel:
///
/// - A block stages its tile of outputs plus the halo in shared memory
///   (16-byte loads for the tile's rows when they are aligned and whole,
///   element loads otherwise), the weights beside it, and a thread computes
///   OY outputs of one column from registers, so a value read from shared
///   memory serves every output of the column it touches.
/// - 3D: a block marches along z over ZC planes, keeping the FD planes an
///   output plane reads plus the next one in a ring of shared planes; the
///   next plane's loads are in flight while the current plane is computed.
/// - Separable: the row pass of the tile and its vertical halo goes to
///   shared memory, the column pass reads it (no global intermediate, no
///   second launch).
///
/// Kernels and wrappers (T is float or double; extents as in Shape):
///
///   template <int BLOCK, int ITEMS> stencil(const T *in, const T *w, T *out, int n)
///   template <int TX, int BY, int OY> stencil(in, w, out, int height, int width)
///   template <int TX, int BY, int OY> stencil(in, wr, wc, out, int height, int width)
///   template <int TX, int BY, int OY, int ZC> stencil(in, w, out, int depth, int height, int width)
///
/// and `cudaError_t forge_<Name>(the same arguments, cudaStream_t stream = 0)`.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_TEMPLATES_STENCIL_H
#define FORGE_TEMPLATES_STENCIL_H

#include "forge/Templates/Template.h"
#include "llvm/Support/Error.h"
#include <vector>

namespace forge::templates {

/// The stencil of R (Kind Stencil; Shape {n}, {height, width} or {depth,
/// height, width}; Filter of the same rank; Border "clamp" or "zero"; Type
/// f32 or f64; Separable for a 2D filter only). The error says what it
/// does not support.
llvm::Expected<Instance> instantiateStencil(const Request &R);

/// 1D, 2D, separable and 3D samples, both borders, f32 and f64, odd sizes.
std::vector<Request> stencilSamples();

} // namespace forge::templates

#endif
