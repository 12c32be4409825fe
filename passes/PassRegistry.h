//===- passes/PassRegistry.h - The table of passes -------------*- C++ -*-===//
#ifndef FORGE_PASSES_PASSREGISTRY_H
#define FORGE_PASSES_PASSREGISTRY_H

#include "PortPass.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

namespace forge::passes {

/// Every pass, sorted by name.
llvm::ArrayRef<PassInfo> allPasses();

/// The passes a clang-tidy style glob list selects ("*", "-arch-*",
/// "warp-sync-intrinsics,shared-memory-limits"). An entry that matches no
/// pass is a usage error.
llvm::Expected<std::vector<const PassInfo *>> selectPasses(llvm::StringRef Globs);

} // namespace forge::passes

#endif
