//===- Agent/EditBlocks.h - SEARCH/REPLACE edit blocks ----------*- C++ -*-===//
///
/// \file
/// Proposals for `forge-port optimize`, from a model or from the built-in
/// expert rules, come as SEARCH/REPLACE blocks (DESIGN.md: more robust than
/// unified diffs):
///
///     path/to/kernel.cu            (optional: the file; default the main one)
///     <<<<<<< SEARCH
///     text that is in the file now
///     =======
///     the text to put there instead
///     >>>>>>> REPLACE
///
/// Parsing is tolerant of what models do (code fences around blocks, blank
/// lines, CRLF, trailing blanks on marker lines) and strict about what
/// matters: an unterminated block, or a reply with no block at all, is an
/// error that says where. Applying finds each SEARCH text exactly once in
/// the file (exactly, else line by line ignoring indentation and trailing
/// blanks); text found nowhere, or in several places, is an error naming the
/// block and the lines. The result is a PatchSet, so overlapping blocks are
/// conflicts and nothing is written here.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_AGENT_EDITBLOCKS_H
#define FORGE_AGENT_EDITBLOCKS_H

#include "forge/Patch/PatchSet.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"
#include <string>
#include <vector>

namespace forge::agent {

struct EditBlock {
  std::string File;    ///< as the reply names it; empty: the main file
  std::string Search;  ///< without its final newline
  std::string Replace; ///< without its final newline
  unsigned Line = 0;   ///< 1-based line of the SEARCH marker in the reply
};

/// The blocks of Reply, in order. Fails when there is none ("no
/// SEARCH/REPLACE block in the reply"), when a block is not terminated,
/// lacks its "=======" divider, or has an empty SEARCH part (an insertion
/// point must be given as text to replace).
llvm::Expected<std::vector<EditBlock>> parseEditBlocks(llvm::StringRef Reply);

/// The edits Blocks make. A block without a file applies to MainFile; a
/// named file must be MainFile or one of OtherFiles (compared by file name
/// when the reply gives no directory), anything else is an error. Origin
/// tags the edits ("expert:restrict", "model round 2").
llvm::Expected<patch::PatchSet>
applyEditBlocks(llvm::ArrayRef<EditBlock> Blocks, llvm::StringRef MainFile,
                llvm::ArrayRef<std::string> OtherFiles,
                const patch::ContentsProvider &Contents,
                llvm::StringRef Origin);

/// Edits (a reply's text) applied to Source, the contents of File, in
/// memory: parse, apply, and the new text. Errors as the two steps give.
llvm::Expected<std::string> applyEditText(llvm::StringRef Edits, llvm::StringRef File,
                                          llvm::StringRef Source, llvm::StringRef Origin);

/// One edit of the main file: Length bytes at Offset become Text (Length 0
/// inserts).
struct SourceEdit {
  unsigned Offset = 0;
  unsigned Length = 0;
  std::string Text;
};

/// Source with Edits applied. Edits may come in any order; they must lie in
/// Source and not overlap (two insertions at one offset are an error, since
/// their order would be arbitrary).
llvm::Expected<std::string> applySourceEdits(llvm::StringRef Source,
                                             llvm::ArrayRef<SourceEdit> Edits);

/// Edits as SEARCH/REPLACE blocks (above) for the
/// main file (no file line). Each block's SEARCH part is the whole lines its
/// edits touch, extended by neighbouring lines until it occurs exactly once
/// in Source; edits whose lines are at most MergeGap lines apart share one
/// block, and so do blocks that would overlap after the extension. Fails
/// for bad edits (as applySourceEdits), when no extension is unique, or
/// when a line of the block would read as a block marker.
llvm::Expected<std::string> renderEditBlocks(llvm::StringRef Source,
                                             llvm::ArrayRef<SourceEdit> Edits,
                                             unsigned MergeGap = 2);

} // namespace forge::agent

#endif
