//===- Support/Output.h - Where a rewritten source goes --------*- C++ -*-===//
///
/// \file
/// `-o FILE`, `-o -`, `-i` and `--diff`, as the drivers of port, tune and
/// optimize take them. A driver writes files itself (atomically, and only a
/// result that passed its checks); stdout is the tool's, so for Stdout and
/// Diff the driver returns the text and the tool prints it.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_SUPPORT_OUTPUT_H
#define FORGE_SUPPORT_OUTPUT_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <string>

namespace forge {

struct OutputChoice {
  enum class Kind {
    None,    ///< report only
    File,    ///< -o FILE
    Stdout,  ///< -o -
    InPlace, ///< -i: the input file itself, atomically
    Diff,    ///< --diff: a unified diff on stdout
    /// -o DIR (port): a mirrored tree of the project under DIR, written by
    /// the port driver itself.
    Tree,
  };
  Kind K = Kind::None;
  std::string Path; ///< for File and Tree

  bool writes() const { return K != Kind::None; }
  /// From the three options; a usage error when more than one is given.
  static llvm::Expected<OutputChoice> fromFlags(llvm::StringRef OutputPath, bool InPlace,
                                                bool Diff);
  /// Writes Contents, the result for the file Input, atomically: to the -o
  /// file, or over Input for -i when Changed. Stdout and Diff are the
  /// caller's to print; nothing is written for them.
  llvm::Error write(llvm::StringRef Input, llvm::StringRef Contents, bool Changed) const;
};

/// A working directory: the one the user named (created if missing, and
/// kept), or a temporary one removed when this goes out of scope.
class ScratchDir {
public:
  ScratchDir() = default;
  ScratchDir(const ScratchDir &) = delete;
  ScratchDir &operator=(const ScratchDir &) = delete;
  ~ScratchDir();
  /// UserPath, or a new temporary directory named Prefix-XXXXXX in
  /// TempParent (empty: the system's temporary directory).
  llvm::Expected<std::string> make(llvm::StringRef UserPath, llvm::StringRef Prefix,
                                   llvm::StringRef TempParent = "");

private:
  std::string Path;
  bool Keep = true;
};

} // namespace forge

#endif
