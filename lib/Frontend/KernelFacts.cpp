//===- Frontend/KernelFacts.cpp -------------------------------------------===//
#include "forge/Frontend/KernelFacts.h"
#include "clang/AST/DynamicRecursiveASTVisitor.h"
#include "clang/AST/ExprCXX.h"

using namespace clang;

namespace forge::frontend {

std::vector<SharedVariable> staticSharedVariables(const FunctionDecl &FD, ASTContext &Ctx) {
  struct Collector : DynamicRecursiveASTVisitor {
    ASTContext *Ctx;
    std::vector<SharedVariable> Vars;
    bool VisitVarDecl(VarDecl *V) override {
      QualType T = V->getType();
      if (!V->hasAttr<CUDASharedAttr>() || V->hasExternalStorage() || T->isDependentType() ||
          T->isIncompleteType() || V->isInvalidDecl())
        return true;
      Vars.push_back({V, uint64_t(Ctx->getTypeSizeInChars(T).getQuantity())});
      return true;
    }
  } C;
  C.Ctx = &Ctx;
  if (const Stmt *Body = FD.getBody())
    C.TraverseStmt(const_cast<Stmt *>(Body));
  return C.Vars;
}

uint64_t totalBytes(const std::vector<SharedVariable> &Vars) {
  uint64_t N = 0;
  for (const SharedVariable &V : Vars)
    N += V.Bytes;
  return N;
}

std::optional<int64_t> constantInt(const Expr *E, ASTContext &Ctx) {
  if (!E || E->isValueDependent())
    return std::nullopt;
  Expr::EvalResult R;
  if (E->EvaluateAsInt(R, Ctx))
    return R.Val.getInt().getExtValue();
  return std::nullopt;
}

std::optional<int64_t> constantThreadsPerBlock(const Expr *E, ASTContext &Ctx) {
  if (!E)
    return std::nullopt;
  const Expr *X = E->IgnoreImplicit();
  if (const auto *T = dyn_cast<MaterializeTemporaryExpr>(X))
    X = T->getSubExpr()->IgnoreImplicit();
  if (const auto *FC = dyn_cast<CXXFunctionalCastExpr>(X))
    X = FC->getSubExpr()->IgnoreImplicit();
  if (const auto *CE = dyn_cast<CXXConstructExpr>(X)) {
    if (CE->getNumArgs() == 1)
      return constantThreadsPerBlock(CE->getArg(0), Ctx);
    int64_t N = 1;
    for (const Expr *A : CE->arguments()) {
      auto V = constantInt(A, Ctx);
      if (!V)
        return std::nullopt;
      N *= *V;
    }
    return N;
  }
  return constantInt(X, Ctx);
}

} // namespace forge::frontend
