//===- Patch/PatchSet.h - Edits to many files from many passes -*- C++ -*-===//
///
/// \file
/// A PatchSet collects the tooling::Replacements that passes propose, per
/// file, and remembers which pass proposed each one. Passes never write
/// files; they add to a PatchSet, and overlapping edits come back as errors
/// instead of being merged silently (see docs/patch.md).
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_PATCH_PATCHSET_H
#define FORGE_PATCH_PATCHSET_H

#include "clang/Tooling/Core/Replacement.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace forge::patch {

/// Gives the current contents of a file. Lets callers diff and verify edits
/// against in-memory buffers (editor state, a pass pipeline) as well as disk.
using ContentsProvider =
    std::function<llvm::Expected<std::string>(llvm::StringRef File)>;

/// Reads files from disk with forge::readFile.
ContentsProvider diskContents();

/// One edit and every pass that proposed it.
struct Edit {
  clang::tooling::Replacement Replacement;
  /// More than one entry when several passes proposed the identical edit.
  llvm::SmallVector<std::string, 1> Origins;

  /// The origins joined with ", ", for messages.
  std::string originText() const;
};

/// Raised when two different edits touch the same text. Callers such as the
/// agent loop branch on it to drop one proposal and keep going.
class ConflictError : public llvm::ErrorInfo<ConflictError> {
public:
  static char ID;
  ConflictError(std::string File, clang::tooling::Replacement New,
                std::string NewOrigin, clang::tooling::Replacement Existing,
                std::string ExistingOrigin)
      : File(std::move(File)), New(std::move(New)),
        NewOrigin(std::move(NewOrigin)), Existing(std::move(Existing)),
        ExistingOrigin(std::move(ExistingOrigin)) {}
  void log(llvm::raw_ostream &OS) const override;
  std::error_code convertToErrorCode() const override {
    return llvm::inconvertibleErrorCode();
  }

  std::string File;
  clang::tooling::Replacement New;
  std::string NewOrigin;
  clang::tooling::Replacement Existing;
  std::string ExistingOrigin;
};

/// Edits for any number of files, each tagged with the pass that made it.
class PatchSet {
public:
  /// Adds \p R, proposed by \p Origin. An edit identical to one already in
  /// the set is accepted (two passes proposing the same fix). An edit that
  /// overlaps a different one fails with a ConflictError and leaves the set
  /// unchanged. Overlap means: ranges sharing a byte, an insertion strictly
  /// inside a replaced range, or two different insertions at one offset
  /// (their order would be arbitrary). An insertion at either end of a
  /// replaced range is not a conflict: it lands before or after the new text.
  llvm::Error add(const clang::tooling::Replacement &R, llvm::StringRef Origin);

  /// Adds every edit of \p Other with its origins; all or nothing.
  llvm::Error add(const PatchSet &Other);

  /// The files with at least one edit, sorted.
  std::vector<std::string> files() const;

  /// The edits for \p File, sorted by offset (empty when there are none).
  llvm::ArrayRef<Edit> editsFor(llvm::StringRef File) const;

  /// The edits for \p File as a tooling::Replacements set.
  clang::tooling::Replacements replacementsFor(llvm::StringRef File) const;

  bool empty() const { return Files.empty(); }
  /// The number of distinct edits over all files.
  size_t size() const;

  /// Applies the edits for \p File to \p OriginalContents. Fails, naming the
  /// edit and its origin, when an edit reaches past the end of the contents.
  llvm::Expected<std::string> applyTo(llvm::StringRef File,
                                      llvm::StringRef OriginalContents) const;

  /// A unified diff over every file in the set, files in sorted order, with
  /// "a/" and "b/" labels (so `patch -p1` and `git apply` take it). A path
  /// under \p RelativeTo is shown relative to it; a leading '/' is dropped.
  llvm::Expected<std::string> diff(const ContentsProvider &Contents,
                                   unsigned Context = 3,
                                   llvm::StringRef RelativeTo = "") const;

  /// The key a file path is stored under: lexically normalised, so that
  /// "./a.cu" and "a.cu" name the same file.
  static std::string normalizePath(llvm::StringRef File);

private:
  llvm::Error addEdit(const Edit &E, llvm::StringRef Origin);

  std::map<std::string, std::vector<Edit>> Files;
};

/// A replacement built from an offset, for callers without a SourceManager.
clang::tooling::Replacement makeReplacement(llvm::StringRef File,
                                            unsigned Offset, unsigned Length,
                                            llvm::StringRef Text);

/// The byte offset of 1-based \p Line and \p Column (in bytes, like clang)
/// in \p Contents. Column may be one past the last character of the line
/// (the newline, or the end of the file).
llvm::Expected<unsigned> offsetForLineColumn(llvm::StringRef Contents,
                                             unsigned Line, unsigned Column);

/// The 1-based line and column of \p Offset (which may equal the size).
llvm::Expected<std::pair<unsigned, unsigned>>
lineColumnForOffset(llvm::StringRef Contents, unsigned Offset);

/// A replacement of \p Length bytes at a 1-based line and column, checked
/// against \p Contents.
llvm::Expected<clang::tooling::Replacement>
makeReplacementAt(llvm::StringRef File, llvm::StringRef Contents, unsigned Line,
                  unsigned Column, unsigned Length, llvm::StringRef Text);

} // namespace forge::patch

#endif
