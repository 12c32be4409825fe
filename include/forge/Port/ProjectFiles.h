//===- Port/ProjectFiles.h - The files of a project ------------*- C++ -*-===//
///
/// \file
/// What project mode (`forge-port -p build/ --all`, `forge-port --all DIR`)
/// needs to know about a project's files: its translation units, its root
/// (a fix-it in a file under it is applied; never one in a system or CUDA
/// header), its build files, and a scratch tree in which some files read as
/// their patched text while everything else is the project as it is on
/// disk (nvcc checks a result against the project's patched headers there).
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_PORT_PROJECTFILES_H
#define FORGE_PORT_PROJECTFILES_H

#include "forge/Frontend/CompileDatabase.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace forge::port {

/// True when Path is Dir or lies below it (both absolute and normalised).
bool isUnder(llvm::StringRef Path, llvm::StringRef Dir);

/// Path written relative to the directory FromDir ("../src/k.cu"); both
/// absolute and normalised.
std::string relativePath(llvm::StringRef Path, llvm::StringRef FromDir);

/// The translation units of a compilation database.
struct DatabaseSources {
  /// The entries' CUDA files (a .cu file, one compiled with '-x cu', or a
  /// C/C++ file that includes cuda_runtime.h, cuda_runtime_api.h or cuda.h:
  /// host code that CUDA 13's removals break too), absolute, in the
  /// database's order, each once.
  std::vector<std::string> Units;
  /// The deepest directory that holds every entry's file and directory:
  /// the project root.
  std::string Root;
  /// Entries that are not CUDA (C++ and C files without the CUDA
  /// runtime's header): how many.
  unsigned Skipped = 0;
};
DatabaseSources compileDatabaseSources(const frontend::CompileDatabase &DB);
/// The same, loading BuildDir's database (a usage error when there is none).
llvm::Expected<DatabaseSources> compileDatabaseSources(llvm::StringRef BuildDir);

/// The CUDA sources under a directory tree, without a compilation database.
struct TreeSources {
  /// Every .cu file, and every C/C++ file that includes the CUDA runtime's
  /// header, that no other file of the tree includes, sorted.
  std::vector<std::string> Units;
  /// .cu files that another one includes beside itself (`#include
  /// "kernel.cu"`, or `<kernel.cu>` as legacy code with -I. has it): they
  /// are ported as part of their includer, not on their own. File, includer.
  std::vector<std::pair<std::string, std::string>> Included;
};
/// Hidden directories and CMake build trees (a CMakeCache.txt) are skipped.
llvm::Expected<TreeSources> cudaSourcesUnder(llvm::StringRef Dir);

/// Makefiles (Makefile*, GNUmakefile, *.mk, make.config) and CMake files
/// (CMakeLists.txt, *.cmake) under Dir, sorted; the same directories are
/// skipped as by cudaSourcesUnder.
std::vector<std::string> buildFilesUnder(llvm::StringRef Dir);

/// What a mirrored tree of the project needs to build by itself: sources
/// and headers (.cu .cuh .c .cc .cpp .h .hpp ...), build files, configure
/// scripts and their inputs (.am .ac .in) under Dir, sorted; data files
/// are not among them.
std::vector<std::string> projectSourcesUnder(llvm::StringRef Dir);

/// A temporary directory mirroring Root in which the given files (absolute,
/// under Root) read as their new contents and every other path under Root
/// as on disk: directories on the way to a replaced file are recreated,
/// everything else in them is a symbolic link to the original. A quoted
/// #include thus finds the patched header beside the patched file, as it
/// will once both are written. Removed with the object.
class OverlayTree {
public:
  OverlayTree() = default;
  OverlayTree(OverlayTree &&O) noexcept;
  OverlayTree &operator=(OverlayTree &&O) noexcept;
  OverlayTree(const OverlayTree &) = delete;
  OverlayTree &operator=(const OverlayTree &) = delete;
  ~OverlayTree();

  static llvm::Expected<OverlayTree> make(llvm::StringRef Root,
                                          const std::map<std::string, std::string> &Files);
  /// Where Original (absolute, under Root) is in the tree.
  std::string pathOf(llvm::StringRef Original) const;
  /// A directory argument remapped into the tree when it is under Root.
  std::string mapDirectory(llvm::StringRef Dir) const;
  const std::string &path() const { return Dir; }

private:
  std::string Root, Dir;
};

/// The files a port runs on and its project root, from the command line.
struct PortInputs {
  std::vector<std::string> Files;
  /// Empty: each file's own directory.
  std::string ProjectRoot;
  /// BuildDir's compilation database, loaded once for the run; null when
  /// BuildDir is empty or it could not be loaded (outside project mode, each
  /// file's lookup then says why).
  std::shared_ptr<const frontend::CompileDatabase> Database;
  /// What was found, for the user ("12 CUDA translation unit(s) in ...").
  std::vector<std::string> Notes;
};
/// Project mode (All): the CUDA translation units of the compilation
/// database in BuildDir when Inputs is empty, else the given files and the
/// units under the one directory among them (cudaSourcesUnder), whose root
/// is that directory. Otherwise Inputs are files (a directory is a usage
/// error) and the root is that of BuildDir's database, if any.
llvm::Expected<PortInputs> portInputs(llvm::ArrayRef<std::string> Inputs,
                                      llvm::StringRef BuildDir, bool All);

/// Rewrites the quoted #include lines of Text, a file that lived in FromDir
/// and is written to ToDir, whose target exists relative to FromDir but not
/// to ToDir, so that they name the same file from ToDir. Returns the names
/// rewritten ("kernel.cu -> ../src/kernel.cu").
std::vector<std::string> rebaseQuotedIncludes(std::string &Text, llvm::StringRef FromDir,
                                              llvm::StringRef ToDir);

} // namespace forge::port

#endif
