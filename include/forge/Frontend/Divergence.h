//===- Frontend/Divergence.h - Does every lane reach this? -----*- C++ -*-===//
///
/// \file
/// A conservative test of whether all 32 lanes of a warp reach a statement
/// together. Within its function (warpUniformAt): no enclosing branch, loop
/// or short-circuit whose condition may differ between threads, and no
/// earlier conditional return. Conditions over literals, constants,
/// template parameters, kernel parameters, warpSize/blockDim/gridDim and
/// loop counters whose own bounds are uniform count as uniform; so does
/// `threadIdx.x < C` for a multiple C of 32 in a kernel whose every launch
/// in the file has blocks whose rows are whole warps. Anything else
/// (threadIdx, a local variable of unknown origin) does not.
///
/// Across calls (warpUniformAcrossCalls): the statement's function is
/// checked, then, unless it is a kernel (where all lanes start together),
/// every call of it in the translation unit, recursively through device
/// functions and templates. A function with no call seen, or used other
/// than by a direct call, is not known, and not known counts as divergent.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_FRONTEND_DIVERGENCE_H
#define FORGE_FRONTEND_DIVERGENCE_H

#include "clang/AST/ASTContext.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include <string>
#include <vector>

namespace forge::frontend {

struct Uniformity {
  /// Why lanes may not all be there.
  enum class Cause {
    None,        ///< uniform
    Branch,      ///< an if, ?:, &&/||, switch or while whose condition varies
    Loop,        ///< a for loop whose trip count may vary
    EarlyReturn, ///< an earlier return some lanes may have taken
    Caller,      ///< a call of the function (or of one that calls it) is divergent
    Unknown      ///< a caller was not seen (none, through a pointer, too deep)
  };
  bool Uniform = true;
  std::string Reason;          ///< why not, for a note
  clang::SourceLocation Where; ///< the construct (or the call) that makes it divergent
  Cause Why = Cause::None;
  /// Branch, Loop, EarlyReturn: the statement in the function itself; Caller:
  /// the divergent call.
  const clang::Stmt *Construct = nullptr;
  const clang::Expr *Cond = nullptr; ///< Branch: the condition
};

/// Every direct call of each function in a translation unit (resolved, and
/// in uninstantiated templates through the names a dependent call may
/// resolve to), its other uses, and the chevron launches of each kernel.
/// Functions are keyed by their template pattern, so all specializations of
/// a template are one function. Built once per AST.
class CallSiteIndex {
public:
  explicit CallSiteIndex(clang::ASTContext &Ctx);

  struct Site {
    const clang::Expr *E;             ///< the call (or the other use)
    const clang::FunctionDecl *Caller; ///< the function it is written in, if any
  };
  llvm::ArrayRef<Site> callsOf(const clang::FunctionDecl *F) const;
  /// Uses that are not a direct call: an address taken, a reference bound.
  llvm::ArrayRef<Site> otherUsesOf(const clang::FunctionDecl *F) const;
  llvm::ArrayRef<const clang::CallExpr *> launchesOf(const clang::FunctionDecl *Kernel) const;

  /// The key of F: its template pattern's canonical declaration.
  static const clang::FunctionDecl *key(const clang::FunctionDecl *F);

private:
  llvm::DenseMap<const clang::FunctionDecl *, std::vector<Site>> Calls, Others;
  llvm::DenseMap<const clang::FunctionDecl *, std::vector<const clang::CallExpr *>> Launches;
};

/// Within S's function. With Calls, `threadIdx.x < 32 * k` in a kernel may be
/// proved uniform from the kernel's launches.
Uniformity warpUniformAt(clang::ASTContext &Ctx, const clang::Stmt &S,
                         const CallSiteIndex *Calls = nullptr);

/// In every calling context of S's function, up to MaxDepth calls deep.
Uniformity warpUniformAcrossCalls(clang::ASTContext &Ctx, const clang::Stmt &S,
                                  const CallSiteIndex &Calls, unsigned MaxDepth = 8);

/// The function S is written in (a lambda's body counts as its definer's).
const clang::FunctionDecl *enclosingFunction(clang::ASTContext &Ctx, const clang::Stmt &S);

/// True when E's value is the same in every thread of a warp (see above).
bool isWarpUniform(clang::ASTContext &Ctx, const clang::Expr *E);

} // namespace forge::frontend

#endif
