//===- Templates/Reduction.h - A single-pass, deterministic reduction -*- C++ -*-===//
///
/// \file
/// The reduction template (docs/templates.md, "reduction"): one value from
/// n elements with +, *, max or min, or the (value, index) pair of argmax
/// and argmin, in ONE launch of one kernel:
///
/// - Each thread folds a grid-stride share of the input: the elements
///   before the first 16-byte boundary one at a time, then 16-byte vectors,
///   ITEMS of them loaded at a time, then the tail. The address is checked
///   at run time, so any pointer works.
/// - A warp shuffle tree, the block's warps through shared memory, and one
///   partial per block in a __device__ array of the generated file.
/// - The blocks count themselves on a __device__ ticket; the last one folds
///   every partial in block order, writes the result and resets the ticket.
///   No floating-point atomics: the result is the same run to run for one
///   grid (the wrapper's grid depends only on n and the device's SMs).
///
/// Tunables (the kernel's template parameters BLOCK and ITEMS, and WAVES
/// in the grid SMS * WAVES).
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_TEMPLATES_REDUCTION_H
#define FORGE_TEMPLATES_REDUCTION_H

#include "forge/Templates/Template.h"
#include "llvm/Support/Error.h"
#include <vector>

namespace forge::templates {

/// The most blocks (partials) one launch of a reduction instance takes.
constexpr int ReductionMaxBlocks = 4096;

/// The reduction as a kernel of its own: kernel `<Name>(in, out, n)` (or
/// `(in, value, index, n)` for argmax/argmin) over R.Shape[0] elements of
/// R.Type (f16, bf16, f32, f64, i32, u32, i64, u64) with R.Operator, its
/// host wrapper `forge_<Name>` and its spec. The error says what it does not
/// support.
llvm::Expected<Instance> instantiateReduction(const Request &R);
std::vector<Request> reductionSamples();

} // namespace forge::templates

#endif
