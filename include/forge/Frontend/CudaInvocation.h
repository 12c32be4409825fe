//===- Frontend/CudaInvocation.h - Clang command lines for CUDA -*- C++ -*-===//
///
/// \file
/// Builds the Clang command line that parses a CUDA file the way nvcc would
/// compile it: one side (host or device) at a time, for one target, with the
/// nvcc-compatibility prelude. Also turns nvcc flags from a compilation
/// database into Clang's.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_FRONTEND_CUDAINVOCATION_H
#define FORGE_FRONTEND_CUDAINVOCATION_H

#include "forge/Arch/TargetInfo.h"
#include "forge/Frontend/Toolchain.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"
#include <string>
#include <vector>

namespace forge::frontend {

class CompileDatabase;

enum class Side { Host, Device };

/// Where the prelude is mapped in the parser's virtual file system.
inline constexpr const char *PreludeDir = "/__forge__/include";
inline constexpr const char *PreludeName = "forge_nvcc_compat.h";
/// Under PreludeDir: a directory holding only the host compiler's omp.h.
inline constexpr const char *OmpDir = "omp";
/// Under PreludeDir: an empty main file, the one the precompiled prefix
/// (PrefixCache.h) is built from.
inline constexpr const char *PrefixMainName = "forge_prefix.cu";
/// The prelude's text (lib/Frontend/NvccCompatPrelude.cpp).
llvm::StringRef nvccCompatPrelude();

struct ParseOptions {
  /// Device target of the device-side parse. Null: sm_80 (makeParseOptions
  /// sets it from the command line or the user's flags).
  const arch::TargetInfo *Target = nullptr;
  /// Extra Clang arguments: after '--' on the command line, or translated
  /// from a compilation database entry.
  std::vector<std::string> ExtraArgs;
  /// nvcc-only flags of a compilation database entry that change what nvcc
  /// accepts or generates (--extended-lambda, --expt-relaxed-constexpr,
  /// -use_fast_math, ...): not for Clang, given to nvcc when it validates.
  std::vector<std::string> NvccArgs;
  /// Force-include the nvcc-compatibility prelude.
  bool NvccCompat = true;
  /// A unit nvcc hands to the host compiler alone (a .cpp without `-x cu`):
  /// its host side is parsed as C++ (C for a .c) the way nvcc's host
  /// compiler sees it (`-D__NVCC__`, the toolkit's include directories, the
  /// `__CUDACC_VER_*__` macros), not as CUDA; it has no device side.
  /// makeParseOptions sets it for a C unit (isCUnit).
  bool HostCompiler = false;
  /// Keep parse warnings (by default only errors are shown).
  bool ShowWarnings = false;

  const arch::TargetInfo &target() const { return Target ? *Target : arch::defaultTarget(); }
};

/// Clang driver arguments (argv[0] first, the file last) for one side.
std::vector<std::string> buildClangCommand(const Toolchain &TC,
                                           const ParseOptions &Opts,
                                           llvm::StringRef File, Side S);


/// nvcc flags translated to Clang's.
struct TranslatedFlags {
  std::vector<std::string> ClangArgs;
  std::vector<std::string> Archs; ///< "sm_80", "sm_90a", ... in order.
  std::vector<std::string> Ignored;
  /// nvcc flags that Clang has no use for but nvcc needs to build the file
  /// as the project does (ParseOptions::NvccArgs); also in Ignored.
  std::vector<std::string> NvccArgs;
  bool RelocatableDeviceCode = false;
};

/// Translates an nvcc (or clang) command line. Arguments[0] is the compiler;
/// the source file and output options are dropped.
TranslatedFlags translateNvccFlags(llvm::ArrayRef<std::string> Arguments);

/// The translated flags of one compile command (a compilation database
/// entry's arguments, run in Directory): nvcc's --options-file files are
/// read, and relative -I directories made relative to Directory.
TranslatedFlags translateCompileCommand(llvm::ArrayRef<std::string> CommandLine,
                                        llvm::StringRef Directory);

/// Loads the compilation database in BuildDir and returns the translated
/// flags for File (CompileDatabase::flagsOf; load it once to look up
/// several files).
llvm::Expected<TranslatedFlags> flagsFromCompilationDatabase(llvm::StringRef BuildDir,
                                                            llvm::StringRef File);

/// The nvcc spelling of the Clang arguments that matter to a compile (-I,
/// -isystem, -D, -std=, -fopenmp, -fgpu-rdc): the user's flags after '--' as nvcc
/// takes them.
/// Clang-only flags are dropped.
std::vector<std::string> nvccFlagsFromClangArgs(llvm::ArrayRef<std::string> ClangArgs);

/// The parse options for File: the flags of BuildDir's compilation database
/// (when BuildDir is not empty), then ExtraArgs. The target is Target when
/// given, else the first arch of those flags (nvcc's -arch/-gencode or
/// Clang's --cuda-gpu-arch), else sm_80; an arch name in the flags that the
/// Arch database does not know is a usage error. A C unit (isCUnit) is read
/// as its host compiler reads it (HostCompiler).
llvm::Expected<ParseOptions> makeParseOptions(llvm::StringRef File, llvm::StringRef BuildDir,
                                              const arch::TargetInfo *Target,
                                              llvm::ArrayRef<std::string> ExtraArgs);
/// The same with a database already loaded (null: none).
llvm::Expected<ParseOptions> makeParseOptions(llvm::StringRef File, const CompileDatabase *DB,
                                              const arch::TargetInfo *Target,
                                              llvm::ArrayRef<std::string> ExtraArgs);

} // namespace forge::frontend

#endif
