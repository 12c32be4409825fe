//===- Frontend/KernelFacts.h - Small facts about kernels -------*- C++ -*-===//
///
/// \file
/// Facts that several passes need about one kernel or one launch, computed
/// one way: the statically sized shared memory a body declares, and the
/// values the host code fixes for a launch (its grid and block when they
/// are known before it runs).
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_FRONTEND_KERNELFACTS_H
#define FORGE_FRONTEND_KERNELFACTS_H

#include "clang/AST/ASTContext.h"
#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <vector>

namespace clang {
class ExprMutationAnalyzer;
}

namespace forge::frontend {

struct SharedVariable {
  const clang::VarDecl *Var;
  uint64_t Bytes;
};

/// The __shared__ variables of FD's own body with a known size: extern
/// (dynamic), unsized, dependent and invalid declarations are left out.
std::vector<SharedVariable> staticSharedVariables(const clang::FunctionDecl &FD,
                                                  clang::ASTContext &Ctx);

uint64_t totalBytes(const std::vector<SharedVariable> &Vars);

/// E's value when it is an integer constant expression.
std::optional<int64_t> constantInt(const clang::Expr *E, clang::ASTContext &Ctx);

/// Values that host code fixes before a launch: integer constant
/// expressions, variables whose value at the use is their initialiser
/// (const, or a local the function never changes after its definition:
/// no assignment, increment, non-const reference or address taken, as
/// clang's ExprMutationAnalyzer finds), simple arithmetic of those, and
/// dim3 values built from them (`dim3 block(32, 8); k<<<g, block>>>`).
class HostValues {
public:
  explicit HostValues(clang::ASTContext &Ctx);
  ~HostValues();

  std::optional<int64_t> intValue(const clang::Expr *E, int Depth = 0);
  /// The three components of a dim3 (or integer) value; missing ones are 1.
  std::optional<std::array<int64_t, 3>> dims(const clang::Expr *E);
  /// The three components of a dim3-valued expression, as expressions
  /// (default arguments included).
  std::optional<std::array<const clang::Expr *, 3>> dim3Parts(const clang::Expr *E,
                                                              int Depth = 0);
  /// The initialiser of the variable E names, when that is its value at E.
  const clang::Expr *stableInit(const clang::Expr *E);
  /// Whether the function that declares local VD may change it after its
  /// definition.
  bool isMutated(const clang::VarDecl *VD);

  static bool isDim3(clang::QualType T);

private:
  clang::ASTContext &Ctx;
  std::map<const clang::Stmt *, std::unique_ptr<clang::ExprMutationAnalyzer>> Mutation;
};

/// Threads per block of a launch's block argument when the host code fixes
/// it (HostValues): `256`, `dim3(16, 16)` or a local `dim3 block(32, 8)`.
std::optional<int64_t> constantThreadsPerBlock(const clang::Expr *Block,
                                               clang::ASTContext &Ctx);
/// The same with the caller's HostValues, whose mutation analyses are kept
/// for the next launch in the same function (a host function with a
/// hundred launches is analysed once, not once per launch).
std::optional<int64_t> constantThreadsPerBlock(const clang::Expr *Block, HostValues &Values);

/// The dimensions of a launch argument that the host code fixes
/// (HostValues): an integer, or a dim3.
std::optional<std::array<int64_t, 3>> constantDims(const clang::Expr *E,
                                                   clang::ASTContext &Ctx);

} // namespace forge::frontend

#endif
