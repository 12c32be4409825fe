//===- Templates/GatherScatter.h - Indexed reads and writes ----*- C++ -*-===//
///
/// \file
/// out[i] = in[idx[i]] (gather) and out[idx[i]] = in[i] (scatter) over n
/// elements of any 1-, 2-, 4- or 8-byte type with 32-bit indices
/// (docs/templates.md, "gather" and "scatter"):
///
/// - A grid-stride loop hands a block BLOCK * ITEMS consecutive positions
///   per pass, thread t taking positions t, t + BLOCK, ...: the reads of
///   idx (and of in for a scatter, of out for a gather) are coalesced; a
///   thread loads its ITEMS indices, then issues its ITEMS indexed accesses,
///   so ITEMS random reads (or writes) are in flight per thread.
/// - idx and in are read through the read-only cache (__ldg): the kernel
///   never writes them.
/// - The indices must lie in [0, n). A scatter's result is defined only
///   when no two indices are equal (a permutation): with duplicates, which
///   write lands is unspecified.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_TEMPLATES_GATHERSCATTER_H
#define FORGE_TEMPLATES_GATHERSCATTER_H

#include "forge/Templates/Template.h"
#include "llvm/Support/Error.h"
#include <vector>

namespace forge::templates {

/// The gather as a kernel of its own: `<Name><BLOCK, ITEMS>(in, idx, out,
/// n)`, its host wrapper `forge_<Name>` and its spec (tunables BLOCK, ITEMS,
/// WAVES; idx uniform in [0, n - 1]).
llvm::Expected<Instance> instantiateGather(const Request &R);
std::vector<Request> gatherSamples();

/// The scatter, likewise. Its spec fills idx with the identity permutation
/// ("iota"): every element is written once, but the writes are coalesced,
/// so a timing with that spec is optimistic.
llvm::Expected<Instance> instantiateScatter(const Request &R);
std::vector<Request> scatterSamples();

} // namespace forge::templates

#endif
