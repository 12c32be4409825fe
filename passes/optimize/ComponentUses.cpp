//===- passes/optimize/ComponentUses.cpp - A builtin's components, renumbered ===//
#include "ComponentUses.h"
#include "RuleAst.h"
#include "forge/Frontend/CudaBuiltins.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Stmt.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/STLExtras.h"

using namespace clang;
using namespace llvm;

namespace forge::passes {

ComponentUses::ComponentUses(const SourceManager &SM, StringRef Var, StringRef Dims,
                             std::string AsmWhy)
    : SM(SM), Var(Var.str()), Dims(Dims.str()), AsmWhy(std::move(AsmWhy)) {}

bool ComponentUses::VisitGCCAsmStmt(GCCAsmStmt *) {
  fail(AsmWhy);
  return true;
}

bool ComponentUses::VisitCallExpr(CallExpr *C) {
  std::string N = calleeNameOf(C);
  if (std::string W = callHazard(N); !W.empty()) {
    fail(std::move(W));
    return true;
  }
  const FunctionDecl *FD = C->getDirectCallee();
  // Cooperative groups read the hardware's thread and block numbers inside
  // their headers, where the renumbering does not reach.
  if (FD && StringRef(FD->getQualifiedNameAsString()).contains("cooperative_groups::")) {
    fail("the kernel uses cooperative groups ('" + N +
         "'), which read the hardware's thread and block numbers where the renumbering "
         "cannot reach");
    return true;
  }
  if (!FD) {
    if (!isa<CXXOperatorCallExpr>(C) &&
        !isa<UnresolvedLookupExpr>(C->getCallee()->IgnoreParenImpCasts()))
      fail("the kernel calls through a function pointer");
    return true;
  }
  const FunctionDecl *Def = FD->getDefinition();
  if (Def && !SM.isInSystemHeader(Def->getLocation()) && Seen.insert(Def).second) {
    bool Was = Inside;
    Inside = true;
    TraverseStmt(Def->getBody());
    Inside = Was;
  }
  return true;
}

bool ComponentUses::VisitExpr(Expr *E) {
  if (isa<ParenExpr, ImplicitCastExpr>(E))
    return true;
  if (std::string W = exprHazard(E); !W.empty()) {
    fail(std::move(W));
    return true;
  }
  auto B = frontend::cudaBuiltin(E);
  if (!B || B->Var != Var)
    return true;
  if (!StringRef(Dims).contains(B->Dim)) {
    if (!Inside)
      Components.push_back(E->getSourceRange());
    return true;
  }
  std::string Name = Var + "." + std::string(1, B->Dim);
  if (Inside) {
    fail("a device function the kernel calls reads '" + Name + "'");
    return true;
  }
  SourceRange R = E->getSourceRange();
  if (R.getBegin().isMacroID() || R.getEnd().isMacroID()) {
    fail("'" + Name + "' is written inside a macro expansion");
    return true;
  }
  Ids.push_back({R, B->Dim});
  Components.push_back(R);
  return true;
}

bool ComponentUses::VisitDeclRefExpr(DeclRefExpr *D) {
  if (!Inside && frontend::isCudaBuiltinVar(D->getDecl()) && D->getDecl()->getName() == Var)
    Whole.push_back(D);
  return true;
}

std::string renumberComponents(
    const agent::RuleInput &In, ComponentUses &U, StringRef Var,
    const std::array<StringRef, 3> &Bases,
    function_ref<std::vector<std::string>(const std::array<std::string, 3> &)> Head,
    EditCollector &C) {
  const CompoundStmt *Body = kernelBody(In.Kernel);
  if (!Body || Body->body_empty())
    return "the kernel has no body";
  U.TraverseStmt(const_cast<CompoundStmt *>(Body));
  if (!U.Why.empty())
    return U.Why;
  std::set<std::string> Taken;
  std::array<std::string, 3> Names;
  for (size_t K = 0; K < Bases.size(); ++K)
    Names[K] = freshName(Bases[K], In.Kernel, Taken);
  std::set<std::pair<unsigned, unsigned>> Done;
  for (const auto &[R, Dim] : U.Ids) {
    auto Off = C.rangeOf(R);
    if (!Off)
      return "'" + Var.str() + "." + std::string(1, Dim) + "' is not plain text of the main file";
    if (Done.insert(*Off).second)
      C.add({Off->first, Off->second - Off->first, Dim == 'x' ? Names[1] : Names[2]});
  }
  // The builtin as a whole (a uint3) cannot be renumbered by its components.
  std::vector<std::pair<unsigned, unsigned>> Components;
  for (SourceRange R : U.Components)
    if (auto Off = C.rangeOf(R))
      Components.push_back(*Off);
  for (const DeclRefExpr *D : U.Whole) {
    auto Off = C.rangeOf(D->getSourceRange());
    bool Covered = Off && any_of(Components, [&](auto P) {
                     return P.first <= Off->first && Off->second <= P.second;
                   });
    if (!Covered)
      return "'" + Var.str() + "' is used as a whole, not by its components";
  }
  auto First = C.rangeOfStatement(Body->body_front());
  if (!First)
    return "the kernel's first statement is not plain text of the main file";
  std::string Ind = lineIndent(In.Source, First->first).str();
  // At the top of the body, above the comments of its first statement (a
  // head an earlier rewrite wrote there, say), when the brace ends its line.
  auto Brace = C.offsetOf(Body->getLBracLoc());
  size_t Eol = Brace ? In.Source.find('\n', *Brace) : StringRef::npos;
  if (Brace && Eol != StringRef::npos && Eol < First->first &&
      In.Source.slice(*Brace + 1, Eol).trim().empty()) {
    C.add({unsigned(Eol + 1), 0, Ind + indentLines(Head(Names), Ind) + "\n"});
    return "";
  }
  C.add({First->first, 0, indentLines(Head(Names), Ind) + "\n" + Ind});
  return "";
}

} // namespace forge::passes
