//===- Agent/SourceCheck.h - What an edit may change -----------*- C++ -*-===//
///
/// \file
/// The static checks of the validation pipeline (stages 3 and 4): a patched
/// source must parse with no more errors than before, keep the kernel's
/// signature and its launches, and change only kernels, the device
/// functions they call and launch configuration (DESIGN.md: model edits are
/// untrusted code). The parse also collects the facts the edit check
/// compares (EditCheck.h); text added by an edit is scanned for lowered
/// precision the spec does not allow.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_AGENT_SOURCECHECK_H
#define FORGE_AGENT_SOURCECHECK_H

#include "forge/Agent/EditCheck.h"
#include "forge/Frontend/CudaInvocation.h"
#include "forge/Frontend/Toolchain.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <string>
#include <vector>

namespace forge::agent {

/// Inclusive 1-based line span.
struct LineSpan {
  unsigned First = 0, Last = 0;
};

/// One line's global memory accesses per thread (static: from the AST).
struct HotLine {
  unsigned Line = 0;
  unsigned Loads = 0, Stores = 0;  ///< as written on the line
  uint64_t Weight = 1;             ///< product of the enclosing constant trip counts
  bool InUnknownLoop = false;      ///< inside a loop whose trip count is not constant
  std::string Text;                ///< the line, trimmed
  uint64_t perThread() const { return (uint64_t(Loads) + Stores) * Weight; }
};

/// The facts of one version of the source that edits are checked against.
struct KernelContract {
  unsigned ParseErrors = 0;
  std::vector<std::string> ErrorMessages;
  bool Found = false; ///< the kernel is defined in the file
  /// Parameter and template parameter types with qualifiers on the pointee
  /// and __restrict__ removed (adding const or restrict keeps the contract):
  /// "template<typename, int> void(float *, float *, int)".
  std::string Signature;
  /// One entry per launch of the kernel in the file: the enclosing function
  /// and the argument count ("main: 4 args").
  std::vector<std::string> Launches;
  /// Lines an edit may touch in the default scope: device and global
  /// function definitions of the main file, and statements that launch a
  /// kernel.
  std::vector<LineSpan> Editable;
  bool editable(unsigned First, unsigned Last) const;
  /// Where the kernel's global memory traffic comes from: each line of the
  /// kernel body that reads or writes through a pointer parameter, with the
  /// accesses one thread makes there (loop trip counts multiplied in where
  /// they are constants). The heaviest first.
  std::vector<HotLine> Hot;
  /// What the edit check compares (EditCheck.h): this version's
  /// file-scope declarations, attributes, static initialisers, asm,
  /// directives, host calls, host function addresses and host globals.
  std::vector<EditFact> Facts;
  /// The kernel's model as `forge-port analyze` prints it: every access
  /// with its index form and warp class, the loops, the recognised
  /// patterns and what could not be followed, each with its line.
  std::string Model;
  /// The experience library's keys of the model (docs/experience.md):
  /// what the kernel computes and how it touches memory, without names.
  std::string Pattern, Family;
};

/// "the responsible lines" of a memory-bound kernel's analysis.
std::string describeHotLines(const std::vector<HotLine> &Hot, unsigned Max = 3);

class SourceChecker {
public:
  /// Opts: the user's flags; the parse is the device side for Target.
  SourceChecker(const frontend::Toolchain &TC, frontend::ParseOptions Opts)
      : TC(TC), Opts(std::move(Opts)) {}
  /// Parses Contents as File for Target. Fails only when Clang cannot run.
  /// Error messages located outside File are redacted.
  llvm::Expected<KernelContract> analyse(llvm::StringRef File, llvm::StringRef Contents,
                                         llvm::StringRef Kernel,
                                         const arch::TargetInfo &Target) const;
  const frontend::Toolchain &toolchain() const { return TC; }
  /// The user's flags, as given (analyse sets the target per call).
  const frontend::ParseOptions &options() const { return Opts; }

private:
  const frontend::Toolchain &TC;
  frontend::ParseOptions Opts;
};

/// Named reasons for lowered precision added between Before and After
/// (half/bfloat types or conversions, fast-math intrinsics such as __expf).
std::vector<std::string> scanForLowerPrecision(llvm::StringRef Before, llvm::StringRef After);

} // namespace forge::agent

#endif
