//===- Frontend/CudaBuiltins.cpp ------------------------------------------===//
#include "forge/Frontend/CudaBuiltins.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"

using namespace clang;

namespace forge::frontend {

static bool isIndexVar(StringRef Name) {
  return Name == "threadIdx" || Name == "blockIdx" || Name == "blockDim" || Name == "gridDim";
}

std::optional<BuiltinRef> cudaBuiltin(const Expr *E) {
  if (!E)
    return std::nullopt;
  E = E->IgnoreParenImpCasts();
  if (const auto *POE = dyn_cast<PseudoObjectExpr>(E))
    E = POE->getSyntacticForm()->IgnoreParens();
  const Expr *Base = nullptr;
  StringRef Field;
  if (const auto *P = dyn_cast<MSPropertyRefExpr>(E)) {
    Base = P->getBaseExpr();
    Field = P->getPropertyDecl()->getName();
  } else if (const auto *M = dyn_cast<MemberExpr>(E)) {
    Base = M->getBase();
    if (const IdentifierInfo *II = M->getMemberDecl()->getIdentifier())
      Field = II->getName();
  }
  if (!Base || (Field != "x" && Field != "y" && Field != "z"))
    return std::nullopt;
  Base = Base->IgnoreParenImpCasts();
  if (const auto *OVE = dyn_cast<OpaqueValueExpr>(Base)) {
    if (!OVE->getSourceExpr())
      return std::nullopt;
    Base = OVE->getSourceExpr()->IgnoreParenImpCasts();
  }
  const auto *DRE = dyn_cast<DeclRefExpr>(Base);
  const auto *VD = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
  if (!VD || !VD->getIdentifier() || !isIndexVar(VD->getName()))
    return std::nullopt;
  return BuiltinRef{VD->getName(), Field[0]};
}

bool isCudaBuiltin(const Expr *E, StringRef Var, char Dim) {
  auto B = cudaBuiltin(E);
  return B && B->Var == Var && B->Dim == Dim;
}

bool isCudaBuiltinVar(const ValueDecl *D) {
  const auto *VD = dyn_cast_or_null<VarDecl>(D);
  if (!VD || !VD->getIdentifier())
    return false;
  return isIndexVar(VD->getName());
}

} // namespace forge::frontend
