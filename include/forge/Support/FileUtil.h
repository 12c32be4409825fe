//===- Support/FileUtil.h - Reading and atomic writing ---------*- C++ -*-===//
#ifndef FORGE_SUPPORT_FILEUTIL_H
#define FORGE_SUPPORT_FILEUTIL_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <functional>
#include <string>
#include <vector>

namespace forge {

/// Path made absolute (against the current directory) and lexically
/// normalised ("a/../b" -> "b"); symbolic links are not resolved.
std::string absolutePath(llvm::StringRef Path);

/// Reads a whole file; the error names the file and the reason.
llvm::Expected<std::string> readFile(llvm::StringRef Path);

/// Writes Contents to Path through a temporary file in the same directory
/// and a rename, so that readers see the old or the new file, never a part.
/// "-" writes to stdout.
llvm::Error writeFileAtomically(llvm::StringRef Path, llvm::StringRef Contents);

/// The directory that holds the running executable.
std::string executableDir(const char *Argv0);

/// Forge's directory in the user's cache: $XDG_CACHE_HOME/forge, else
/// ~/.cache/forge; "" when no home directory is known.
std::string userCacheDir();

/// An exclusive advisory lock (flock) on a lock file, held until this goes
/// out of scope: one writer of a tuning database at a time, one tuning run
/// measuring on a GPU at a time. The file is created when missing and kept.
class FileLock {
public:
  /// Waits for the lock; OnWait, when set, is called once first if another
  /// process holds it.
  static llvm::Expected<FileLock> acquire(llvm::StringRef Path,
                                          std::function<void()> OnWait = nullptr);
  FileLock(FileLock &&O) : FD(O.FD) { O.FD = -1; }
  FileLock &operator=(FileLock &&) = delete;
  ~FileLock();

private:
  explicit FileLock(int FD) : FD(FD) {}
  int FD = -1;
};

/// Makefile-style dependencies, as `cc -MD` writes them: "Target: Deps..."
/// with spaces, '#' and '$' escaped, one dependency per continued line.
std::string renderDepfile(llvm::StringRef Target, llvm::ArrayRef<std::string> Deps);

/// The prerequisites of every rule of a Makefile-style depfile (as
/// renderDepfile, nvcc -MD or clang -MD write them), unescaped, in order,
/// each once; an error names a text that has no "target:".
llvm::Expected<std::vector<std::string>> parseDepfile(llvm::StringRef Text,
                                                      llvm::StringRef Name);

} // namespace forge

#endif
