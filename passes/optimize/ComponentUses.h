//===- passes/optimize/ComponentUses.h - A builtin's components, renumbered -*- C++ -*-===//
///
/// \file
/// The rules that renumber a CUDA builtin (warp-axis: the threads of a
/// block, threadIdx.x/.y; block-order: the blocks of a grid, blockIdx.x/.y)
/// replace each reference to a component in the kernel's text by a local
/// that holds the new number. What they share:
///
/// - ComponentUses: the walk that finds those references and the first
///   reason they cannot all be replaced (a component inside a macro
///   expansion, a device function of the file that reads one, inline
///   assembly, a call through a function pointer, cooperative groups,
///   which read the hardware's numbers in their headers); rules subclass it for
///   hazards of their own (callHazard, exprHazard, and Visit* overrides);
/// - renumberComponents: the edits (the references replaced, the head that
///   computes the new numbers), and the refusal of the builtin used as a
///   whole (`uint3 t = threadIdx;`), which no component edit covers.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_PASSES_OPTIMIZE_COMPONENTUSES_H
#define FORGE_PASSES_OPTIMIZE_COMPONENTUSES_H

#include "RuleUtil.h"
#include "clang/AST/DynamicRecursiveASTVisitor.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include <array>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace clang {
class SourceManager;
} // namespace clang

namespace forge::passes {

class ComponentUses : public clang::DynamicRecursiveASTVisitor {
public:
  /// Var: "threadIdx" or "blockIdx"; Dims: the components the rule
  /// replaces ("xy"); AsmWhy: the refusal for inline assembly.
  ComponentUses(const clang::SourceManager &SM, llvm::StringRef Var, llvm::StringRef Dims,
                std::string AsmWhy);

  /// The first reason found, or "".
  std::string Why;
  /// The references to the components in Dims, in the kernel's own text.
  std::vector<std::pair<clang::SourceRange, char>> Ids;
  /// Every component reference of Var in the kernel's text (other
  /// components too), which cover its DeclRefExprs.
  std::vector<clang::SourceRange> Components;
  /// The references to Var itself in the kernel's text.
  std::vector<const clang::DeclRefExpr *> Whole;

  bool VisitGCCAsmStmt(clang::GCCAsmStmt *A) override;
  bool VisitCallExpr(clang::CallExpr *C) override;
  bool VisitExpr(clang::Expr *E) override;
  bool VisitDeclRefExpr(clang::DeclRefExpr *D) override;

protected:
  /// The rule's refusal of a call by its callee's name, or "" (walked into
  /// when the callee is a device function of the file).
  virtual std::string callHazard(llvm::StringRef Name) { return ""; }
  /// The rule's refusal of an expression, or "".
  virtual std::string exprHazard(const clang::Expr *E) { return ""; }
  void fail(std::string W) {
    if (Why.empty())
      Why = std::move(W);
  }
  /// Whether the walk is inside a device function the kernel calls.
  bool inside() const { return Inside; }

  const clang::SourceManager &SM;

private:
  std::string Var, Dims, AsmWhy;
  std::set<const clang::FunctionDecl *> Seen;
  bool Inside = false;
};

/// The renumbering's edits, added to C: U walked over the kernel's body,
/// fresh names made from Bases (the first for a helper of the head, then
/// the names that replace the x and y components), every reference in
/// U.Ids replaced, and the lines Head(names) put before the kernel's first
/// statement. Returns why it cannot be done (U's reason, "'threadIdx' is
/// used as a whole, not by its components", ...), or "".
std::string renumberComponents(
    const agent::RuleInput &In, ComponentUses &U, llvm::StringRef Var,
    const std::array<llvm::StringRef, 3> &Bases,
    llvm::function_ref<std::vector<std::string>(const std::array<std::string, 3> &)> Head,
    EditCollector &C);

} // namespace forge::passes

#endif
