//===- SearchTestUtil.h - Shared helpers of the Search unit tests -*- C++ -*-===//
#ifndef FORGE_TEST_UNIT_SEARCH_SEARCHTESTUTIL_H
#define FORGE_TEST_UNIT_SEARCH_SEARCHTESTUTIL_H

#include "forge/Search/Archive.h"
#include <optional>
#include <string>
#include <vector>

namespace forge::search::test {

/// Parsing against the mock CUDA headers of test/Inputs.
SourceParse mockParse();

/// A cell by its band names ("shared", "4-7", "4-wide", "50-75 %").
Descriptor cell(llvm::StringRef Memory, llvm::StringRef Work, llvm::StringRef Vector,
                llvm::StringRef Occupancy);

/// A correct, measured variant.
Variant variant(std::string Id, std::vector<std::string> Parents, std::string Origin,
                double Ns, Descriptor D, unsigned Generation = 0);

} // namespace forge::search::test

#endif
