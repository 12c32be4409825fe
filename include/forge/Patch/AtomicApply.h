//===- Patch/AtomicApply.h - Write a PatchSet to disk ----------*- C++ -*-===//
///
/// \file
/// Writes patched files so that a failed run never leaves a half-written or
/// changed user file (DESIGN.md, `-i` and `-o`): every new text is computed
/// before the first write, each file is replaced atomically, and files
/// already written are restored if a later write fails.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_PATCH_ATOMICAPPLY_H
#define FORGE_PATCH_ATOMICAPPLY_H

#include "forge/Patch/PatchSet.h"
#include "llvm/Support/Error.h"
#include <functional>
#include <string>
#include <vector>

namespace forge::patch {

/// Writes one file; the default is forge::writeFileAtomically. A seam for
/// tests and for callers that stage files elsewhere.
using FileWriter =
    std::function<llvm::Error(llvm::StringRef Path, llvm::StringRef Contents)>;

struct ApplyOptions {
  /// When set ("-o"), the patched text of the one input is written here and
  /// the input is left alone. "-" means stdout.
  std::string OutputPath;
  /// The input for OutputPath. Defaults to the only file in the set; needed
  /// when the set is empty (then the input is copied unchanged).
  std::string InputPath;
  /// Where the original texts come from; defaults to diskContents(). On a
  /// failed write, already written files are restored to these texts.
  ContentsProvider Contents;
  /// How files are written; defaults to forge::writeFileAtomically.
  FileWriter Writer;
};

/// Applies \p Patches to the files they name (in place), or writes the
/// single patched file to Opts.OutputPath. Reads and patches every file
/// before writing any; if a write fails, restores the files already written
/// (best effort) and returns an error naming the file. \p Written, when
/// given, receives the paths that were written and kept.
llvm::Error applyToFiles(const PatchSet &Patches, const ApplyOptions &Opts = {},
                         std::vector<std::string> *Written = nullptr);

} // namespace forge::patch

#endif
