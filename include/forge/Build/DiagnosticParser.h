//===- Build/DiagnosticParser.h - Parse nvcc's messages --------*- C++ -*-===//
///
/// \file
/// Pure functions over nvcc's stderr. Recognised forms (CUDA 13):
///
///   file(12): error: identifier "x" is undefined              front end
///   file(7): warning #177-D: variable "y" was declared ...
///             argument types are: (float)                     continuation
///             detected during instantiation of "..." at line 4 of f.cu (note)
///   file:12:5: error: ...   file:1:10: fatal error: ...       host compiler
///   cc1plus: fatal error: ...
///   nvcc fatal   : Unsupported gpu architecture 'compute_95'
///   ptxas error   : Entry function '_Z3fooPf' uses too much shared data ...
///   ptxas /tmp/x.ptx, line 42; error   : Instruction 'wgmma.fence' ...
///   nvlink error   : Undefined reference to '_Z3extv' in '...'
///
/// Source echoes, carets, "N errors detected", "compilation terminated.",
/// "In function" context lines and the generic "Remark: The warnings can be
/// suppressed ..." hint are skipped; `ptxas info` lines are resource usage
/// (see ResourceUsage.h).
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_BUILD_DIAGNOSTICPARSER_H
#define FORGE_BUILD_DIAGNOSTICPARSER_H

#include "forge/Build/CompileResult.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include <optional>

namespace forge::build {

std::vector<CompilerDiagnostic> parseDiagnostics(llvm::StringRef Log);

/// A source location recovered from PTX.
struct PtxSourceLocation {
  std::string File;
  unsigned Line = 0;
  unsigned Column = 0;
};

/// Maps PTX lines back to CUDA source through the `.loc FILE LINE COL`
/// directives (emitted with -lineinfo or -G) and the `.file N "path"` table.
class PtxLineMap {
public:
  explicit PtxLineMap(llvm::StringRef PtxText);
  /// The location of the nearest .loc at or above PtxLine (1-based) in the
  /// same function body; nullopt without one.
  std::optional<PtxSourceLocation> lookup(unsigned PtxLine) const;
  bool hasLineInfo() const { return !Locs.empty(); }

private:
  struct Loc {
    unsigned PtxLine;
    unsigned FileIndex;
    unsigned Line;
    unsigned Column;
  };
  std::vector<Loc> Locs;                 ///< Sorted by PtxLine.
  std::vector<unsigned> FunctionStarts;  ///< PTX lines that open a function.
  std::map<unsigned, std::string> Files;
};

/// Fills File/Line/Column of ptxas diagnostics that carry a PTX line, using
/// ReadPtx to get the text of the PTX file they name (nullopt: unavailable).
/// Returns how many diagnostics were mapped.
unsigned mapPtxDiagnostics(
    std::vector<CompilerDiagnostic> &Diags,
    llvm::function_ref<std::optional<std::string>(llvm::StringRef)> ReadPtx);

} // namespace forge::build

#endif
