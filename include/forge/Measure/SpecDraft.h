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
#include "forge/Support/Json.h"
#include "llvm/Support/Error.h"

namespace forge::measure {

struct DraftOptions {
  int64_t ProblemSize = 1 << 24; ///< the value of the size N
};

/// The draft for Kernel (name or qualified name) in Index, as spec JSON
/// that parseLaunchSpec accepts. Fails, listing the kernels, when the name
/// matches none or several.
llvm::Expected<Json> draftLaunchSpec(const frontend::FileIndex &Index, llvm::StringRef Kernel,
                                     const DraftOptions &Opts = {});

/// The spec dtype of a C++ element type ("float" -> "f32"), or empty.
std::string dtypeOfCType(llvm::StringRef Type);

} // namespace forge::measure

#endif
