//===- Patch/UnifiedDiff.h - Line diffs in unified format ------*- C++ -*-===//
///
/// \file
/// A line diff (Myers' O(ND) algorithm in linear space) printed in the
/// unified format that `patch -p1` and `git apply` accept. The tool prints it
/// for `--diff`, and the agent loop shows it to models and in transcripts.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_PATCH_UNIFIEDDIFF_H
#define FORGE_PATCH_UNIFIEDDIFF_H

#include "llvm/ADT/StringRef.h"
#include <string>

namespace forge::patch {

/// The unified diff from \p OldText to \p NewText with \p Context lines of
/// context, headed "--- OldLabel" and "+++ NewLabel". Identical texts give
/// an empty string. A last line without a newline is marked with
/// "\ No newline at end of file".
std::string unifiedDiff(llvm::StringRef OldText, llvm::StringRef NewText,
                        llvm::StringRef OldLabel, llvm::StringRef NewLabel,
                        unsigned Context = 3);

} // namespace forge::patch

#endif
