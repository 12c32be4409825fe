//===- WarpSyncIntrinsics.h - warp-sync-intrinsics -------------*- C++ -*-===//
///
/// \file
/// Warp shuffles and votes without _sync (__shfl, __shfl_up, __shfl_down,
/// __shfl_xor, __any, __all, __ballot) do not exist in CUDA 13. Each call is
/// rewritten to the _sync form with a full mask when every lane of the warp
/// provably reaches it in every calling context (through device functions
/// and templates). Under an `if` that all lanes reach, the mask is a ballot
/// of its condition taken just before it; otherwise the pass warns and
/// explains. Works on files that no longer compile: an undeclared call is
/// still in the AST.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_PASSES_PORT_WARPSYNCINTRINSICS_H
#define FORGE_PASSES_PORT_WARPSYNCINTRINSICS_H

#include "../PortPass.h"
#include "forge/Frontend/Divergence.h"
#include "llvm/ADT/DenseMap.h"
#include <memory>

namespace forge::passes {

class WarpSyncIntrinsics : public PortPass {
public:
  llvm::StringRef name() const override { return "warp-sync-intrinsics"; }
  bool wantsSide(frontend::Side S) const override { return S == frontend::Side::Device; }
  void registerMatchers(clang::ast_matchers::MatchFinder &Finder) override;
  void check(const clang::ast_matchers::MatchFinder::MatchResult &R, PassContext &C) override;

private:
  /// The edits that declare a ballot mask before If and pass it to the call,
  /// or why there are none.
  struct BallotFix {
    std::vector<clang::FixItHint> Fixes;
    std::string Note;   ///< what the mask is, or "no ballot fix: why"
    clang::SourceLocation NoteAt;
  };
  BallotFix ballotFix(const clang::Stmt &Site, const frontend::Uniformity &U,
                      llvm::StringRef Sync, clang::SourceLocation NameLoc,
                      clang::SourceLocation AfterParen, PassContext &C);

  /// One per parse (a pass object serves one AST), built on first use.
  std::unique_ptr<frontend::CallSiteIndex> Calls;
  /// The mask declared before each `if`, shared by the calls under it.
  llvm::DenseMap<const clang::IfStmt *, std::string> Masks;
};

} // namespace forge::passes

#endif
