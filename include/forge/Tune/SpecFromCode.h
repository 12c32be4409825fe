//===- Tune/SpecFromCode.h - Tuning a program with no spec -----*- C++ -*-===//
///
/// \file
/// `forge-port tune app.cu --kernel K --run "{exe} ..."` tunes a kernel
/// inside the user's program without a launch spec: the tunables are what
/// the code holds for the kernel (forge-port list): its integer template
/// parameters, the constants and macros its launches' block and template
/// arguments come from, a block size written at the launch, its unroll
/// counts and launch bounds. Each must be one the write-back can write
/// into the source (tune/WriteBack.h); the others are left out with the
/// reason. The spec around them is `forge-port spec`'s draft (its buffers
/// and geometry are not used in program mode).
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_TUNE_SPECFROMCODE_H
#define FORGE_TUNE_SPECFROMCODE_H

#include "forge/Frontend/CudaParser.h"
#include "forge/Measure/LaunchSpec.h"
#include "forge/Support/Json.h"
#include "llvm/Support/Error.h"
#include <string>
#include <vector>

namespace forge::tune {

struct CodeSpec {
  measure::LaunchSpec Spec;
  Json SpecJson;
  /// What was tuned, what was left out and why.
  std::vector<std::string> Notes;
};

/// The spec of Kernel in File for tuning inside its program. Fails when
/// the kernel is unknown or nothing of it can be tuned (the message says
/// what the file offers and why each candidate was left out).
llvm::Expected<CodeSpec> programSpecFromCode(const frontend::Toolchain &TC,
                                             const frontend::ParseOptions &Parse,
                                             llvm::StringRef File, llvm::StringRef Kernel,
                                             frontend::ParseDiagnostics &Diags);

} // namespace forge::tune

#endif
