//===- ArchGuards.h - arch-guards ------------------------------*- C++ -*-===//
///
/// \file
/// `#if __CUDA_ARCH__ == 800` selects exactly one compute capability, so a
/// port to a later target silently drops the guarded code. The pass flags
/// `==` and `!=` comparisons of `__CUDA_ARCH__` in `#if`/`#elif` conditions
/// (also when a macro used in the condition expands to one) and rewrites
/// `==` to `>=` only when that is safe: the condition is that single
/// comparison, written in the directive itself, no later branch of the chain
/// would be shadowed, and the guarded code holds no arch-specific assembly
/// (wgmma, setmaxnreg, tcgen05), for which it proposes the feature macros.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_PASSES_PORT_ARCHGUARDS_H
#define FORGE_PASSES_PORT_ARCHGUARDS_H

#include "../PortPass.h"
#include "clang/Basic/SourceLocation.h"
#include <map>
#include <string>
#include <vector>

namespace forge::passes {

class ArchGuards : public PortPass {
public:
  llvm::StringRef name() const override { return "arch-guards"; }
  /// Conditions are in user files whatever the side; __CUDA_ARCH__ is only
  /// defined on the device side, where macros in conditions can be expanded.
  bool wantsSide(frontend::Side S) const override { return S == frontend::Side::Device; }
  void registerPPCallbacks(clang::Preprocessor &PP, PassContext &C) override;
  void finish(PassContext &C) override;

  /// One `__CUDA_ARCH__ ==/!= N` comparison found in a condition.
  struct Comparison {
    clang::SourceLocation Begin; ///< first token, or the macro name in the directive
    clang::SourceLocation OpLoc; ///< the operator (only when written in the directive)
    bool ArchFirst = true;       ///< `__CUDA_ARCH__ == N`, not `N == __CUDA_ARCH__`
    bool Equal = true;           ///< `==`, not `!=`
    std::string Value;           ///< as written: "800"
    std::string Macro;           ///< the macro of the directive it came from, if any
    clang::SourceLocation MacroDef;
  };
  /// One `#if`/`#elif` of a conditional chain.
  struct Branch {
    clang::SourceLocation DirectiveLoc;
    std::vector<Comparison> Cmps;
    bool MentionsArch = false; ///< tests __CUDA_ARCH__ in any way
    bool Plain = false;        ///< the whole condition is one comparison
    bool HasNotEqual = false;
  };
  struct Chain {
    std::vector<Branch> Branches;
    /// Where each branch's code ends: the next #elif, #else or #endif.
    std::vector<clang::SourceLocation> Ends;
  };
  struct Pending {
    clang::SourceLocation Loc;
    std::string Message;
    std::vector<clang::FixItHint> Fixes;
    std::vector<std::pair<clang::SourceLocation, std::string>> Notes;
  };

  // Called by the preprocessor callbacks.
  void onBranch(clang::SourceLocation Loc, clang::SourceLocation IfLoc, bool IsIf);
  void onEnd(clang::SourceLocation Loc, clang::SourceLocation IfLoc, bool IsEndif);

private:
  void finalize(const Chain &Ch);
  Branch scanCondition(clang::SourceLocation DirectiveLoc);

  clang::Preprocessor *PP = nullptr;
  PassContext *Ctx = nullptr;
  std::map<unsigned, Chain> Open; ///< by the #if's raw location
  std::vector<Pending> Found;
};

} // namespace forge::passes

#endif
