//===- Measure/SpecDraft.h - A first launch spec from the source -*- C++ -*-===//
///
/// \file
/// `forge-port spec` drafts a launch spec from what the KernelIndex knows: the
/// kernel's parameters (pointers become buffers, with in/out/inout roles from
/// constness and the writes the kernel makes; the rest become scalars), its
/// template arguments, and the launch geometry of a launch site. The user
/// edits the sizes; the draft is always a valid spec.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_MEASURE_SPECDRAFT_H
#define FORGE_MEASURE_SPECDRAFT_H

#include "forge/Frontend/KernelIndex.h"
#include "forge/Analysis/KernelModel.h"
#include "forge/Frontend/CudaParser.h"
#include "forge/Support/Json.h"
#include "llvm/Support/Error.h"

namespace forge::measure {

struct DraftOptions {
  int64_t ProblemSize = 1 << 24; ///< the value of the size N
};

/// The draft for Kernel (name or qualified name) in Index, as spec JSON
/// that parseLaunchSpec accepts. Fails, listing the kernels, when the name
/// matches none or several.
/// With the kernel's Model (lib/Analysis), the sizes, buffer counts and
/// grid come from its guards and indices (analysis::inferProblemShape) and
/// every guess is listed in the spec's "notes"; without it every count is N.
llvm::Expected<Json> draftLaunchSpec(const frontend::FileIndex &Index, llvm::StringRef Kernel,
                                     const DraftOptions &Opts = {},
                                     analysis::KernelModel *Model = nullptr);

struct DraftResult {
  Json Spec;
  /// The file's index (its tunables, launches), for callers that go on.
  frontend::FileIndex Index;
  /// Parse errors of the file (the draft is from what was recovered).
  unsigned ParseErrors = 0;
};

/// The driver of `forge-port spec`: indexes File, analyses Kernel (when it
/// is defined in File) and drafts its spec. Parse diagnostics go to Diags.
llvm::Expected<DraftResult> draftSpecForFile(const frontend::Toolchain &TC,
                                             const frontend::ParseOptions &Parse,
                                             llvm::StringRef File, llvm::StringRef Kernel,
                                             const DraftOptions &Opts,
                                             frontend::ParseDiagnostics &Diags);

/// The spec dtype of a C++ element type ("float" -> "f32"), or empty.
std::string dtypeOfCType(llvm::StringRef Type);

} // namespace forge::measure

#endif
