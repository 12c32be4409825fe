//===- ArchGuards.h - arch-guards ------------------------------*- C++ -*-===//
///
/// \file
/// `#if __CUDA_ARCH__ == 800` selects exactly one compute capability, so a
/// port to a later target silently drops the guarded code. The pass flags
/// `==` and `!=` comparisons of `__CUDA_ARCH__` in `#if`/`#elif` conditions
/// (also when a macro used in the condition expands to one) where they make
/// a later target lose the code path of the target before it for good: the
/// chain is evaluated for every plain target (sm_75 ... sm_121, and each
/// value the chain names), inside the chains that enclose it, and a guard
/// whose excluded targets get the path back later (`== 800 || >= 900`) or
/// that loses it by an explicit bound (`< 900`) is deliberate. It rewrites
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
    size_t TokOp = 0;            ///< the operator among the condition's tokens
    int ExprOp = -1;             ///< the operator in Branch::Expr (-1: not evaluable)
  };
  /// One `#if`/`#elif` of a conditional chain.
  struct Branch {
    clang::SourceLocation DirectiveLoc;
    std::vector<Comparison> Cmps;
    /// The condition as evaluable tokens: numbers in decimal, "__CUDA_ARCH__",
    /// operators and parentheses as spelt, "$" for what depends on more than
    /// the target (a function-like macro, `__has_include`, ...). `defined`
    /// and other macros are resolved where the directive stands.
    std::vector<std::string> Expr;
    bool MentionsArch = false; ///< tests __CUDA_ARCH__ in any way
    bool Plain = false;        ///< the whole condition is one comparison
    bool HasNotEqual = false;
  };
  /// Where a chain stands inside an enclosing one: the enclosing chain's
  /// conditions up to the branch it is in (all of them for its `#else`).
  struct Enclosing {
    std::vector<std::vector<std::string>> Conditions;
    bool InElse = false;
  };
  struct Chain {
    std::vector<Branch> Branches;
    /// Where each branch's code ends: the next #elif, #else or #endif.
    std::vector<clang::SourceLocation> Ends;
    bool InElse = false;
    /// The arch chains this one is nested in, outermost first.
    std::vector<Enclosing> Outer;
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
  /// How a note names path Path of Ch, seen from branch Self.
  std::string pathName(const Chain &Ch, size_t Path, size_t Self) const;
  Branch scanCondition(clang::SourceLocation DirectiveLoc);

  clang::Preprocessor *PP = nullptr;
  PassContext *Ctx = nullptr;
  std::map<unsigned, Chain> Open; ///< by the #if's raw location
  std::vector<unsigned> Nest;     ///< the open chains, outermost first
  std::vector<Pending> Found;
};

} // namespace forge::passes

#endif
