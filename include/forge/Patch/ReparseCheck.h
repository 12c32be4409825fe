//===- Patch/ReparseCheck.h - Edits must not add parse errors --*- C++ -*-===//
///
/// \file
/// The extension point for checking a patch with the Clang frontend: a
/// PatchSet is accepted only if re-parsing each patched file gives no more
/// errors than the original had. The parser is passed in, so this library
/// does not depend on how files are parsed and can be tested without Clang.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_PATCH_REPARSECHECK_H
#define FORGE_PATCH_REPARSECHECK_H

#include "forge/Patch/PatchSet.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"

namespace forge::patch {

/// Parses \p Contents as the text of \p File and returns the number of
/// errors; fails only when the parse could not run at all.
using ReparseFn = llvm::function_ref<llvm::Expected<unsigned>(
    llvm::StringRef File, llvm::StringRef Contents)>;

/// Parses every file of \p Patches before and after applying its edits and
/// fails, naming the file, both counts and the passes whose edits it holds,
/// when a file has more errors afterwards. Files that already had errors may
/// keep them (passes must work on code with errors, DESIGN.md).
llvm::Error verifyNoNewErrors(const PatchSet &Patches,
                              const ContentsProvider &Contents,
                              ReparseFn Reparse);

} // namespace forge::patch

#endif
