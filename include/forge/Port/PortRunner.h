//===- Port/PortRunner.h - Run the porting passes over a file --*- C++ -*-===//
#ifndef FORGE_PORT_PORTRUNNER_H
#define FORGE_PORT_PORTRUNNER_H

#include "forge/Port/PortDiagnostics.h"
#include "forge/Port/PortPass.h"
#include "forge/Frontend/CudaParser.h"
#include "forge/Frontend/KernelIndex.h"
#include <map>
#include <set>

namespace forge::port {

/// A launch's shape where its block size is a compile-time constant, for
/// the occupancy comparison.
struct LaunchShape {
  int64_t Threads = 0;
  int64_t DynamicShared = 0;
  bool DynamicSharedKnown = true; ///< false: not a compile-time constant
  frontend::Location Loc;
};

struct PassRunOptions {
  const arch::TargetInfo *Target = nullptr;
  const arch::TargetInfo *Source = nullptr;
  std::vector<const PassInfo *> Passes;
  frontend::ParseOptions Parse; ///< its Arch is replaced by Target
  /// When set, the kernel index of the file is built from the same parses
  /// (the host side always, the device side when a pass parses it).
  frontend::KernelIndexBuilder *Index = nullptr;
  /// When set, the user's files either side's preprocessor entered are
  /// added (PreprocessorFacts::Files).
  std::set<std::string> *Files = nullptr;
  /// A C/C++ unit that nvcc compiles with the host compiler alone (a .cpp
  /// without '-x cu'): no device code of it is ever compiled, so its
  /// device side is not parsed.
  bool HostOnly = false;
};

/// Parses File for the host and for the target's device side, runs every
/// selected pass on each, and reports through Diag (findings and fixes)
/// and ParseDiags (the compiler's own errors). Fails only when Clang cannot
/// run.
llvm::Error runPortPasses(const frontend::Toolchain &TC, const PassRunOptions &Opts,
                          llvm::StringRef File, PortDiagnostics &Diag,
                          frontend::ParseDiagnostics &ParseDiags);

/// Counts the errors Clang reports for Contents parsed as File, both sides
/// (the host side alone when HostOnly),
/// for the target (the re-parse check of a patched file), less those that
/// one of the Explaining passes reports itself (PortPass::explainsParseError),
/// as runPortPasses counts them. Overlay: other files (absolute paths, the
/// patched project headers) read with these texts. Messages, when set,
/// receives the errors counted ("file:line:col: message").
llvm::Expected<unsigned>
countParseErrors(const frontend::Toolchain &TC, const frontend::ParseOptions &Opts,
                 llvm::StringRef File, llvm::StringRef Contents,
                 llvm::ArrayRef<const PassInfo *> Explaining = {},
                 const std::map<std::string, std::string> &Overlay = {},
                 std::vector<std::string> *Messages = nullptr, bool HostOnly = false);

} // namespace forge::port

#endif
