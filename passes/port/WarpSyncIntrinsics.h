//===- WarpSyncIntrinsics.h - warp-sync-intrinsics -------------*- C++ -*-===//
///
/// \file
/// Warp shuffles and votes without _sync (__shfl, __shfl_up, __shfl_down,
/// __shfl_xor, __any, __all, __ballot) do not exist in CUDA 13. Each call is
/// rewritten to the _sync form with a full mask when every lane of the warp
/// provably reaches it; otherwise the pass warns and explains. Works on files
/// that no longer compile: an undeclared call is still in the AST.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_PASSES_PORT_WARPSYNCINTRINSICS_H
#define FORGE_PASSES_PORT_WARPSYNCINTRINSICS_H

#include "../PortPass.h"

namespace forge::passes {

class WarpSyncIntrinsics : public PortPass {
public:
  llvm::StringRef name() const override { return "warp-sync-intrinsics"; }
  bool wantsSide(frontend::Side S) const override { return S == frontend::Side::Device; }
  void registerMatchers(clang::ast_matchers::MatchFinder &Finder) override;
  void check(const clang::ast_matchers::MatchFinder::MatchResult &R, PassContext &C) override;
};

} // namespace forge::passes

#endif
