//===- Port/BuildFlags.h - GPU arch flags in build files -------*- C++ -*-===//
///
/// \file
/// Build files and compile commands name GPU targets in many spellings
/// (`-arch=sm_20`, `-gencode arch=compute_35,code=sm_35`,
/// `CUDA_ARCHITECTURES 35 50`, `SMS ?= 35 37 50`, ...). CUDA 13's nvcc
/// rejects every target below sm_75; this finds each spelling, says whether
/// nvcc 13 accepts it and, where a token-for-token edit fixes it, gives the
/// replacement. Which targets nvcc 13.0 accepts was read from
/// `nvcc --list-gpu-arch` / `--list-gpu-code` and from compiling for each
/// `a`/`f` variant (docs/build-flags.md); a unit test checks the table
/// against the installed nvcc.
///
/// Depends only on forge/Arch and Support: the port driver reports the
/// findings (docs/build-flags.md says how).
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_PORT_BUILDFLAGS_H
#define FORGE_PORT_BUILDFLAGS_H

#include "forge/Arch/TargetInfo.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <optional>
#include <string>
#include <vector>

namespace forge::port {

/// How a build file is read: its comments and where a value list ends.
enum class BuildFileKind {
  Makefile, ///< Makefile*, makefile*, GNUmakefile, *.mk, *.make, make.* (Rodinia's make.config)
  CMake,    ///< CMakeLists.txt, *.cmake, CMakeCache.txt
  Other,    ///< shell scripts, setup.py, anything else
};

/// The kind of Path, from its file name alone.
BuildFileKind classifyBuildFile(llvm::StringRef Path);

/// What a finding is: Ok (nvcc 13 accepts it and it runs on the target:
/// nothing to say), Note (accepted, but its code does not run on the
/// target: an arch-specific target of another compute capability), Error
/// (nvcc 13 rejects it).
enum class BuildFlagLevel { Ok, Note, Error };

/// One spelling of a GPU target in a build file.
struct BuildFlagFinding {
  /// 1-based line and column (in bytes) of the spelling, its byte offset in
  /// the text and its length. The spelling is the target alone: `sm_20` in
  /// `-arch=sm_20`, `35` in `SMS ?= 35 37`, `3.5` in `"3.5;5.0+PTX"`.
  unsigned Line = 0, Column = 0;
  unsigned Offset = 0, Length = 0;
  std::string Spelling;
  /// The canonical target: "sm_20", "compute_35"; a bare number or a
  /// dotted one reads as "sm_35".
  std::string Arch;
  /// Whether CUDA 13.0's nvcc accepts Arch.
  bool Accepted = false;
  BuildFlagLevel Level = BuildFlagLevel::Ok;
  /// Empty when Level is Ok.
  std::string Message;
  /// What the spelling becomes (same form: `sm_75`, `compute_75`, `75`,
  /// `7.5`); empty where no token-for-token edit fixes it. Rejected targets
  /// become the oldest target nvcc 13 accepts (sm_75); sm_101 becomes
  /// sm_110, its CUDA 13 name.
  std::string Replacement;
};

/// Every spelling of a GPU target in Text (the contents of Path; Path only
/// picks the kind), in order of offset. Comments are skipped: they do not
/// reach nvcc. Bare numbers count only in the value of a variable or
/// property whose name says it lists targets (SMS, GENCODE*, *CUDA_ARCH*,
/// *GPU_ARCH*, *SM_ARCH*, CUDA_ARCHITECTURES, plain ARCH) and only when the
/// number is a compute capability that has existed.
std::vector<BuildFlagFinding> scanBuildFile(llvm::StringRef Path, llvm::StringRef Text,
                                            const arch::TargetInfo &Target);

/// For a compile command (the argument vector of a compile_commands.json
/// entry) that builds for an arch- or family-specific target whose code does
/// not run on Target (sm_90a when porting to sm_100): a note that says so
/// and which flags to use for Target. None when the command names no such
/// target.
std::optional<std::string> compileFlagNote(llvm::ArrayRef<std::string> Args,
                                           const arch::TargetInfo &Target);

/// The targets CUDA 13.0's nvcc accepts for -arch/-code ("sm_75", ...,
/// "sm_90a", "sm_100f", ...), in ascending order.
llvm::ArrayRef<const char *> nvcc13AcceptedTargets();

} // namespace forge::port

#endif
