//===- LegacyRuntimeHazards.h - legacy-runtime-hazards ---------*- C++ -*-===//
///
/// \file
/// Legacy code that still compiles under CUDA 13 but breaks when it runs:
///
/// - a symbol named by a string (`cudaMemcpyToSymbol("coeffs", ...)`), which
///   CUDA 5.0 removed: the call fails with cudaErrorInvalidSymbol. The fix
///   passes the `__device__`/`__constant__` variable of that name.
/// - warp-synchronous shared-memory code that relies on the lanes of a warp
///   running in lockstep, which Volta's independent thread scheduling ended:
///   steps of an in-warp reduction (`s[t] += s[t + 16]; s[t] += s[t + 8];`,
///   usually through a `volatile` pointer) with no `__syncwarp()` between
///   them, and tagged shared-memory histograms (`do { ... } while (h[b] != v)`).
///   The fix of a reduction step separates its read from its write with
///   `__syncwarp()`, only where all 32 lanes run the steps: directly under
///   `if (t < 32)` with `t` the thread index, or in a helper every call of
///   which every lane reaches (frontend::warpUniformAcrossCalls).
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_PASSES_PORT_LEGACYRUNTIMEHAZARDS_H
#define FORGE_PASSES_PORT_LEGACYRUNTIMEHAZARDS_H

#include "../PortPass.h"
#include "forge/Frontend/Divergence.h"
#include <memory>

namespace forge::passes {

class LegacyRuntimeHazards : public PortPass {
public:
  llvm::StringRef name() const override { return "legacy-runtime-hazards"; }
  void registerMatchers(clang::ast_matchers::MatchFinder &Finder) override;
  void check(const clang::ast_matchers::MatchFinder::MatchResult &R, PassContext &C) override;

private:
  void checkSymbolName(const clang::CallExpr &Call, const clang::StringLiteral &Name,
                       clang::ASTContext &Ctx, PassContext &C);
  void checkWarpSteps(const clang::CompoundStmt &Body, clang::ASTContext &Ctx, PassContext &C);
  void checkTaggedLoop(const clang::DoStmt &Loop, clang::ASTContext &Ctx, PassContext &C);
  /// Whether all 32 lanes of a warp run S: directly under `if (t < 32)` in
  /// its function, or, in a helper, in every calling context (Why says
  /// what is not known otherwise).
  bool wholeWarpRuns(const clang::Stmt &S, const clang::Stmt &Block, clang::ASTContext &Ctx,
                     std::string &Why);

  /// One per parse (a pass object serves one AST), built on first use.
  std::unique_ptr<frontend::CallSiteIndex> Calls;
};

} // namespace forge::passes

#endif
