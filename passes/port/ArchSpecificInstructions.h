//===- ArchSpecificInstructions.h - arch-specific-instructions -*- C++ -*-===//
///
/// \file
/// Some PTX instructions assemble only on some targets: wgmma only for
/// sm_90a, tcgen05 only for the arch- and family-specific targets of family
/// 10x, setmaxnreg only for arch- or family-specific targets (sm_90a and
/// later), TMA (cp.async.bulk) and thread-block clusters only for sm_90 and
/// later, cp.async only for sm_80 and later. The device side is parsed for
/// the target, so code guarded out for it is not in the AST: every inline
/// asm statement, __cluster_dims__ kernel or this_cluster() call that is
/// left, and that the target lacks the feature for, is an error.
///
/// Hopper-only asm (wgmma, setmaxnreg) gets a fix-it that guards it with the
/// feature macro: where the file has a portable path (a later branch of the
/// enclosing #if chain, or the else of an enclosing if constexpr) the target
/// is made to take it; otherwise the statement itself is wrapped in
/// #if ... #else __trap(); #endif (wgmma) or #if ... #endif (setmaxnreg,
/// which only redistributes registers).
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_PASSES_PORT_ARCHSPECIFICINSTRUCTIONS_H
#define FORGE_PASSES_PORT_ARCHSPECIFICINSTRUCTIONS_H

#include "../PortPass.h"
#include "clang/Basic/SourceLocation.h"
#include <string>
#include <vector>

namespace clang {
class GCCAsmStmt;
} // namespace clang

namespace forge::passes {

class ArchSpecificInstructions : public PortPass {
public:
  llvm::StringRef name() const override { return "arch-specific-instructions"; }
  bool wantsSide(frontend::Side S) const override { return S == frontend::Side::Device; }
  void registerPPCallbacks(clang::Preprocessor &PP, PassContext &C) override;
  void registerMatchers(clang::ast_matchers::MatchFinder &Finder) override;
  void check(const clang::ast_matchers::MatchFinder::MatchResult &R, PassContext &C) override;
  void finish(PassContext &C) override;

  /// One branch of a preprocessor conditional (#if/#elif/#else, ...).
  struct CondBranch {
    enum Kind { If, Ifdef, Ifndef, Elif, Else, Other } K;
    unsigned Offset; ///< of the directive keyword ("if", "elif", ...)
    clang::SourceLocation Loc;
  };
  /// An #if ... #endif chain of one file.
  struct CondChain {
    clang::FileID FID;
    std::vector<CondBranch> Branches;
    unsigned EndOffset = 0; ///< of the "endif" keyword
    bool Closed = false;
  };
  /// Called by the preprocessor callbacks.
  void onBranch(CondBranch::Kind K, clang::SourceLocation Loc, bool Opens);
  void onEndif(clang::SourceLocation Loc);

private:
  /// A finding held until finish(), where the fix-its can see every
  /// flagged statement of the file (to group them and pick one guard).
  struct Pending {
    clang::SourceLocation Loc;
    std::string Message;
    arch::Feature F;
    const clang::GCCAsmStmt *Asm = nullptr;
  };
  void reportAsm(const Pending &P, PassContext &C);

  clang::SourceManager *SM = nullptr;
  std::vector<CondChain> Chains;
  std::vector<unsigned> Open; ///< indices into Chains
  std::vector<Pending> Found;
};

} // namespace forge::passes

#endif
