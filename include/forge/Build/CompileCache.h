//===- Build/CompileCache.h - Content-addressed compile cache --*- C++ -*-===//
///
/// \file
/// A directory of finished compiles keyed by what determines their output:
/// the source text, the texts of the project headers it includes (found by a
/// textual scan of #include lines) and of CompileJob::Dependencies, the full
/// nvcc flag list (without the input and output paths) and nvcc's version.
/// Successful and failed compiles are stored (a broken candidate is not
/// recompiled); timeouts and crashes are not, since they may not repeat.
///
/// Layout: <dir>/<key[0..2]>/<key>/{result.json,output}. An entry is written
/// in a temporary directory and renamed into place, so readers see a whole
/// entry or none.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_BUILD_COMPILECACHE_H
#define FORGE_BUILD_COMPILECACHE_H

#include "forge/Build/CompileResult.h"
#include "llvm/ADT/ArrayRef.h"
#include <optional>

namespace forge::build {

struct CompileJob;

class CompileCache {
public:
  explicit CompileCache(std::string Directory);

  /// $FORGE_CACHE_DIR, else $XDG_CACHE_HOME/forge/compile, else
  /// ~/.cache/forge/compile.
  static std::string defaultDirectory();

  const std::string &directory() const { return Dir; }

  /// The key of Job. KeyArgs is the nvcc argument list with the input and
  /// output paths left out; VersionTag names the compiler. Headers under
  /// SystemPrefixes (the toolkit root) and /usr/include are not hashed: the
  /// version tag stands for them. Fails when the source or a listed
  /// dependency cannot be read.
  static llvm::Expected<std::string>
  computeKey(const CompileJob &Job, llvm::ArrayRef<std::string> KeyArgs,
             llvm::StringRef VersionTag,
             llvm::ArrayRef<std::string> SystemPrefixes = {});

  /// The project headers Source includes, transitively: quoted or angled
  /// includes that resolve next to the including file or in IncludeDirs.
  /// Headers under SystemPrefixes (the CUDA toolkit) are left out.
  static std::vector<std::string>
  scanIncludes(llvm::StringRef Source, llvm::ArrayRef<std::string> IncludeDirs,
               llvm::ArrayRef<std::string> SystemPrefixes = {});

  /// The stored result for Key, its output copied to OutputPath (when the
  /// compile produced one and OutputPath is not empty). nullopt on a miss or
  /// an unreadable entry. The result has CacheHit set.
  std::optional<CompileResult> lookup(llvm::StringRef Key,
                                      llvm::StringRef OutputPath) const;

  /// Stores R (and OutputFile, when not empty) under Key.
  llvm::Error store(llvm::StringRef Key, const CompileResult &R,
                    llvm::StringRef OutputFile) const;

  /// Whether an entry exists for Key.
  bool contains(llvm::StringRef Key) const;

private:
  std::string entryDir(llvm::StringRef Key) const;
  std::string Dir;
};

} // namespace forge::build

#endif
