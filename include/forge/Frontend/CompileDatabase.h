//===- Frontend/CompileDatabase.h - compile_commands.json, loaded once -*- C++ -*-===//
///
/// \file
/// A compilation database read once for a run: every lookup of a file's
/// command (its raw arguments for the build-flag notes, its flags translated
/// for Clang, the translation units of a project) reads the loaded entries
/// instead of loading compile_commands.json again. Lookups may come from
/// several threads (units ported at once).
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_FRONTEND_COMPILEDATABASE_H
#define FORGE_FRONTEND_COMPILEDATABASE_H

#include "forge/Frontend/CudaInvocation.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace forge::frontend {

class CompileDatabase {
public:
  /// Loads the compilation database of BuildDir (compile_commands.json, or
  /// whatever Clang's tooling detects there).
  static llvm::Expected<std::shared_ptr<const CompileDatabase>> load(llvm::StringRef BuildDir);

  const std::string &buildDir() const { return BuildDir; }

  /// The command of File's first entry; an error names a file without one.
  llvm::Expected<clang::tooling::CompileCommand> commandOf(llvm::StringRef File) const;
  /// Its arguments, as the database gives them.
  llvm::Expected<std::vector<std::string>> argumentsOf(llvm::StringRef File) const;
  /// Its flags translated for Clang (translateCompileCommand).
  llvm::Expected<TranslatedFlags> flagsOf(llvm::StringRef File) const;
  /// Every entry, in the database's order.
  std::vector<clang::tooling::CompileCommand> allCommands() const;

private:
  CompileDatabase(std::string BuildDir,
                  std::unique_ptr<clang::tooling::CompilationDatabase> DB)
      : BuildDir(std::move(BuildDir)), DB(std::move(DB)) {}

  std::string BuildDir;
  std::unique_ptr<clang::tooling::CompilationDatabase> DB;
  /// Clang's databases are not documented as safe for concurrent lookups.
  mutable std::mutex Lock;
};

/// Whether a compile command (its arguments, the compiler first) compiles
/// File as CUDA: a .cu file, or any file with '-x cu'/'-x cuda'.
bool compilesAsCuda(llvm::StringRef File, llvm::ArrayRef<std::string> Args);

/// Whether File is C or C++ host code by its name (.c .cc .cpp .cxx .C):
/// what nvcc compiles with the host compiler alone unless told '-x cu'.
bool isHostSourceName(llvm::StringRef File);

/// Whether File is C by its name (.c; .C is C++), as gcc and nvcc decide:
/// nvcc hands it to the host compiler as C ('-x c').
bool isCSourceName(llvm::StringRef File);

/// Whether nvcc builds File with the host compiler alone: a host source
/// (isHostSourceName) that neither its compile command (Command, the
/// compiler first; empty when there is none) nor the extra arguments
/// compile as CUDA. Such a unit has no device side.
bool isHostUnit(llvm::StringRef File, llvm::ArrayRef<std::string> Command,
                llvm::ArrayRef<std::string> ExtraArgs);

/// Whether nvcc builds File as C: a .c (isCSourceName) that is a host unit
/// (isHostUnit). C has no kernels.
bool isCUnit(llvm::StringRef File, llvm::ArrayRef<std::string> Command,
             llvm::ArrayRef<std::string> ExtraArgs);

/// File's compile command (its arguments, the compiler first) in BuildDir's
/// database; empty when BuildDir is empty or the database or the entry is
/// missing (the parse options say why).
std::vector<std::string> compileCommandIn(llvm::StringRef BuildDir, llvm::StringRef File);

} // namespace forge::frontend

#endif
