//===- Search/ArchiveSvg.h - The archive drawn as a grid --------*- C++ -*-===//
///
/// \file
/// The MAP-Elites archive as a plain SVG grid for the optimisation report.
/// The four descriptors are projected onto two axes: each row is a memory
/// strategy and a vector width (global/scalar ... register/4-wide, 9 rows),
/// each column a work-per-thread band and an occupancy band (1/<25 % ...
/// 8+/>=75 %, 16 columns), so every cell of the archive has exactly one
/// place. A filled cell shows its elite's time in microseconds and origin
/// and is coloured by its speedup over the original (red when slower,
/// deepening green when faster); the fastest elite's cell is outlined.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_SEARCH_ARCHIVESVG_H
#define FORGE_SEARCH_ARCHIVESVG_H

#include "forge/Search/Archive.h"
#include "llvm/ADT/StringRef.h"
#include <string>

namespace forge::search {

struct SvgOptions {
  std::string Title = "MAP-Elites archive";
};

/// A standalone SVG document (it can also be inlined into HTML).
std::string renderArchiveSvg(const Archive &A, const SvgOptions &O = {});

/// Text escaped for XML character data and attribute values.
std::string escapeXml(llvm::StringRef S);

/// "12.34 us" from nanoseconds: two decimals below 100 us, one below 10 ms,
/// none above.
std::string formatMicros(double Ns);

} // namespace forge::search

#endif
