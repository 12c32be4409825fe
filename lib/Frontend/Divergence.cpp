//===- Frontend/Divergence.cpp --------------------------------------------===//
#include "forge/Frontend/Divergence.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace clang;

namespace forge::frontend {

namespace {
/// Thread-invariant builtins (warpSize, blockDim, gridDim); threadIdx and
/// blockIdx differ between threads (blockIdx is uniform within a warp, but
/// keep the rule simple and conservative).
bool isUniformBuiltin(StringRef Name) {
  return Name == "warpSize" || Name == "blockDim" || Name == "gridDim";
}

class UniformExpr : public RecursiveASTVisitor<UniformExpr> {
public:
  explicit UniformExpr(ASTContext &Ctx) : Ctx(Ctx) {}
  bool Uniform = true;

  bool VisitDeclRefExpr(DeclRefExpr *E) {
    const ValueDecl *D = E->getDecl();
    if (isa<EnumConstantDecl>(D) || isa<NonTypeTemplateParmDecl>(D) || isa<FunctionDecl>(D))
      return true;
    if (const auto *VD = dyn_cast<VarDecl>(D)) {
      if (isUniformBuiltin(VD->getName()))
        return true;
      if (VD->isConstexpr() || (VD->getType().isConstQualified() && VD->hasInit() &&
                                VD->getInit()->isEvaluatable(Ctx)))
        return true;
      // Kernel parameters are the same in every thread.
      if (const auto *P = dyn_cast<ParmVarDecl>(VD))
        if (const auto *FD = dyn_cast<FunctionDecl>(P->getDeclContext()))
          if (FD->hasAttr<CUDAGlobalAttr>())
            return true;
      if (LoopVars.count(VD))
        return true;
    }
    Uniform = false;
    return false;
  }
  bool VisitCallExpr(CallExpr *E) {
    // A call may return anything per thread (e.g. a lane id).
    Uniform = false;
    return false;
  }
  llvm::SmallPtrSet<const VarDecl *, 4> LoopVars;

private:
  ASTContext &Ctx;
};

bool uniform(ASTContext &Ctx, const Expr *E, const llvm::SmallPtrSet<const VarDecl *, 4> &Loop) {
  if (!E)
    return true;
  UniformExpr V(Ctx);
  V.LoopVars = Loop;
  V.TraverseStmt(const_cast<Expr *>(E));
  return V.Uniform;
}

/// A for-loop whose induction variables start, step and stop uniformly.
bool uniformFor(ASTContext &Ctx, const ForStmt *F) {
  llvm::SmallPtrSet<const VarDecl *, 4> Vars;
  if (const auto *DS = dyn_cast_or_null<DeclStmt>(F->getInit())) {
    for (const Decl *D : DS->decls())
      if (const auto *VD = dyn_cast<VarDecl>(D)) {
        if (!uniform(Ctx, VD->getInit(), Vars))
          return false;
        Vars.insert(VD);
      }
  } else if (F->getInit()) {
    return false;
  }
  return uniform(Ctx, F->getCond(), Vars) && uniform(Ctx, F->getInc(), Vars);
}

bool contains(const Stmt *Parent, const Stmt *Child) {
  if (!Parent || !Child)
    return false;
  return Parent->getSourceRange().fullyContains(Child->getSourceRange());
}
} // namespace

bool isWarpUniform(ASTContext &Ctx, const Expr *E) { return uniform(Ctx, E, {}); }

Uniformity warpUniformAt(ASTContext &Ctx, const Stmt &S) {
  Uniformity U;
  auto Fail = [&](const Stmt *At, const char *Why) {
    U.Uniform = false;
    U.Reason = Why;
    U.Where = At->getBeginLoc();
    return U;
  };
  DynTypedNode Node = DynTypedNode::create(S);
  const Stmt *Prev = &S;
  const FunctionDecl *Fn = nullptr;
  while (true) {
    auto Parents = Ctx.getParents(Node);
    if (Parents.empty())
      break;
    Node = Parents[0];
    if ((Fn = Node.get<FunctionDecl>()))
      break;
    const Stmt *P = Node.get<Stmt>();
    if (!P)
      continue;
    if (const auto *If = dyn_cast<IfStmt>(P)) {
      if (!contains(If->getCond(), Prev) && !uniform(Ctx, If->getCond(), {}))
        return Fail(If, "the call is under divergent control flow");
    } else if (const auto *CO = dyn_cast<ConditionalOperator>(P)) {
      if (!contains(CO->getCond(), Prev) && !uniform(Ctx, CO->getCond(), {}))
        return Fail(CO, "the call is under divergent control flow");
    } else if (const auto *BO = dyn_cast<BinaryOperator>(P)) {
      if (BO->isLogicalOp() && contains(BO->getRHS(), Prev) && !uniform(Ctx, BO->getLHS(), {}))
        return Fail(BO, "the call is under divergent control flow");
    } else if (const auto *F = dyn_cast<ForStmt>(P)) {
      if (!uniformFor(Ctx, F))
        return Fail(F, "the call is in a loop whose trip count may differ between threads");
    } else if (isa<WhileStmt>(P) || isa<DoStmt>(P) || isa<SwitchStmt>(P) ||
               isa<CXXForRangeStmt>(P)) {
      const Expr *Cond = nullptr;
      if (const auto *W = dyn_cast<WhileStmt>(P))
        Cond = W->getCond();
      else if (const auto *D = dyn_cast<DoStmt>(P))
        Cond = D->getCond();
      else if (const auto *Sw = dyn_cast<SwitchStmt>(P))
        Cond = Sw->getCond();
      if (!Cond || !uniform(Ctx, Cond, {}))
        return Fail(P, "the call is under divergent control flow");
    }
    Prev = P;
  }
  // An earlier return under a condition leaves some lanes behind.
  if (Fn && Fn->getBody()) {
    struct Returns : RecursiveASTVisitor<Returns> {
      const SourceManager *SM;
      SourceLocation Before;
      const Stmt *Found = nullptr;
      bool VisitReturnStmt(ReturnStmt *R) {
        if (SM->isBeforeInTranslationUnit(R->getBeginLoc(), Before))
          Found = R;
        return !Found;
      }
    } RV;
    RV.SM = &Ctx.getSourceManager();
    RV.Before = S.getBeginLoc();
    RV.TraverseStmt(Fn->getBody());
    if (RV.Found)
      return Fail(RV.Found, "some lanes may have returned before the call");
  }
  return U;
}

} // namespace forge::frontend
