//===- Support/Glob.h - clang-tidy style selection lists -------*- C++ -*-===//
///
/// \file
/// `--checks=*,-arch-*` and `--rules=restrict,unroll`: comma-separated globs,
/// a leading '-' removes what it matches, later entries win.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_SUPPORT_GLOB_H
#define FORGE_SUPPORT_GLOB_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <vector>

namespace forge {

/// The indices of Names a glob list selects, in Names' order. Option and
/// What name the flag and the kind of thing in messages ("--rules", "rule").
/// A bad pattern, or an entry that matches nothing, is a usage error that
/// lists the known names.
llvm::Expected<std::vector<size_t>> selectByGlobs(llvm::ArrayRef<llvm::StringRef> Names,
                                                  llvm::StringRef Globs, llvm::StringRef Option,
                                                  llvm::StringRef What);

} // namespace forge

#endif
