//===- Analysis/AnalyzeFile.h - The model of every kernel of a file -*- C++ -*-===//
///
/// \file
/// The driver behind `forge-port analyze`: parses the device side of a file,
/// finds its kernels (definitions in the main file, template patterns
/// included) and analyses them. The models it returns are detached from
/// the AST, which is gone when it returns.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_ANALYSIS_ANALYZEFILE_H
#define FORGE_ANALYSIS_ANALYZEFILE_H

#include "forge/Analysis/KernelModel.h"
#include "forge/Frontend/CudaParser.h"
#include "forge/Support/Json.h"
#include "llvm/Support/Error.h"
#include <string>
#include <vector>

namespace forge::analysis {

struct AnalyzeResult {
  std::string File;
  /// In source order; detached (no AST pointers).
  std::vector<KernelModel> Kernels;
  /// Errors the parse reported (the models are from what was recovered).
  unsigned ParseErrors = 0;
};

/// Analyses Kernel (a qualified name, or a name that is unique) of File, or
/// every kernel defined in File when Kernel is empty. Fails when the file
/// cannot be parsed at all or the kernel is not defined there (the message
/// lists the kernels that are). Parse diagnostics go to Diags.
llvm::Expected<AnalyzeResult> analyzeFile(const frontend::Toolchain &TC,
                                          const frontend::ParseOptions &Parse, llvm::StringRef File,
                                          llvm::StringRef Kernel, const AnalysisOptions &Opts,
                                          frontend::ParseDiagnostics &Diags);

/// Every kernel's text report, separated by blank lines.
std::string renderText(const AnalyzeResult &R);
/// {"file", "parse_errors", "kernels": [...]}.
Json toJson(const AnalyzeResult &R);

} // namespace forge::analysis

#endif
