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

#include "forge/Frontend/Toolchain.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"
#include <string>
#include <vector>

namespace forge::frontend {

enum class Side { Host, Device };

/// Where the prelude is mapped in the parser's virtual file system.
inline constexpr const char *PreludeDir = "/__forge__/include";
inline constexpr const char *PreludeName = "forge_nvcc_compat.h";
/// The prelude's text (lib/Frontend/NvccCompatPrelude.cpp).
llvm::StringRef nvccCompatPrelude();

struct ParseOptions {
  /// Device target of the device-side parse ("sm_90a"). Empty: the first
  /// arch found in the user's flags, else sm_80.
  std::string Arch;
  /// Extra Clang arguments: after '--' on the command line, or translated
  /// from a compilation database entry.
  std::vector<std::string> ExtraArgs;
  /// Force-include the nvcc-compatibility prelude.
  bool NvccCompat = true;
  /// Keep parse warnings (by default only errors are shown).
  bool ShowWarnings = false;
};

/// Clang driver arguments (argv[0] first, the file last) for one side.
std::vector<std::string> buildClangCommand(const Toolchain &TC,
                                           const ParseOptions &Opts,
                                           llvm::StringRef File, Side S);

/// The device arch the options select (see ParseOptions::Arch).
std::string effectiveArch(const ParseOptions &Opts);

/// nvcc flags translated to Clang's.
struct TranslatedFlags {
  std::vector<std::string> ClangArgs;
  std::vector<std::string> Archs; ///< "sm_80", "sm_90a", ... in order.
  std::vector<std::string> Ignored;
  bool RelocatableDeviceCode = false;
};

/// Translates an nvcc (or clang) command line. Arguments[0] is the compiler;
/// the source file and output options are dropped.
TranslatedFlags translateNvccFlags(llvm::ArrayRef<std::string> Arguments);

/// Reads compile_commands.json from BuildDir and returns the translated
/// flags for File.
llvm::Expected<TranslatedFlags> flagsFromCompilationDatabase(llvm::StringRef BuildDir,
                                                            llvm::StringRef File);

} // namespace forge::frontend

#endif
