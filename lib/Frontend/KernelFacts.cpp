//===- Frontend/KernelFacts.cpp -------------------------------------------===//
#include "forge/Frontend/KernelFacts.h"
#include "clang/AST/DynamicRecursiveASTVisitor.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Analysis/Analyses/ExprMutationAnalyzer.h"

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

HostValues::HostValues(ASTContext &Ctx) : Ctx(Ctx) {}
HostValues::~HostValues() = default;

bool HostValues::isMutated(const VarDecl *VD) {
  const auto *Fn = dyn_cast_or_null<FunctionDecl>(VD->getParentFunctionOrMethod());
  if (!Fn || !Fn->hasBody())
    return true;
  const Stmt *Body = Fn->getBody();
  auto &A = Mutation[Body];
  if (!A)
    A = std::make_unique<ExprMutationAnalyzer>(*const_cast<Stmt *>(Body), Ctx);
  return A->isMutated(VD);
}

const Expr *HostValues::stableInit(const Expr *E) {
  const auto *DRE = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
  if (!DRE)
    return nullptr;
  const auto *VD = dyn_cast<VarDecl>(DRE->getDecl());
  if (!VD || !VD->hasInit() || isa<ParmVarDecl>(VD) || VD->getType()->isReferenceType())
    return nullptr;
  if (!VD->getType().isConstQualified() && !VD->isConstexpr() &&
      (!VD->isLocalVarDecl() || VD->isStaticLocal() || isMutated(VD)))
    return nullptr;
  return VD->getInit();
}

std::optional<int64_t> HostValues::intValue(const Expr *E, int Depth) {
  if (!E || E->isValueDependent() || E->isTypeDependent() || Depth > 4)
    return std::nullopt;
  if (const auto *DA = dyn_cast<CXXDefaultArgExpr>(E))
    return intValue(DA->getExpr(), Depth + 1);
  if (auto V = constantInt(E, Ctx))
    return V;
  if (const Expr *Init = stableInit(E))
    return intValue(Init, Depth + 1);
  // n / threads where threads is a stable local: fold simple arithmetic.
  if (const auto *BO = dyn_cast<BinaryOperator>(E->IgnoreParenImpCasts())) {
    auto L = intValue(BO->getLHS(), Depth + 1), R = intValue(BO->getRHS(), Depth + 1);
    if (!L || !R)
      return std::nullopt;
    switch (BO->getOpcode()) {
    case BO_Add: return *L + *R;
    case BO_Sub: return *L - *R;
    case BO_Mul: return *L * *R;
    case BO_Div: return *R ? std::optional<int64_t>(*L / *R) : std::nullopt;
    case BO_Rem: return *R ? std::optional<int64_t>(*L % *R) : std::nullopt;
    case BO_Shl: return *R >= 0 && *R < 63 ? std::optional<int64_t>(*L << *R) : std::nullopt;
    default: return std::nullopt;
    }
  }
  return std::nullopt;
}

bool HostValues::isDim3(QualType T) {
  T = T.getNonReferenceType().getUnqualifiedType();
  if (const auto *RD = T->getAsCXXRecordDecl())
    return RD->getName() == "dim3" || RD->getName() == "uint3";
  return false;
}

std::optional<std::array<const Expr *, 3>> HostValues::dim3Parts(const Expr *E, int Depth) {
  if (!E || Depth > 4)
    return std::nullopt;
  E = E->IgnoreImplicit();
  if (const auto *Tmp = dyn_cast<MaterializeTemporaryExpr>(E))
    E = Tmp->getSubExpr()->IgnoreImplicit();
  if (const auto *FC = dyn_cast<CXXFunctionalCastExpr>(E))
    E = FC->getSubExpr()->IgnoreImplicit();
  if (const auto *CE = dyn_cast<CXXConstructExpr>(E)) {
    if (CE->getNumArgs() == 3)
      return std::array<const Expr *, 3>{CE->getArg(0), CE->getArg(1), CE->getArg(2)};
    if (CE->getNumArgs() == 1) // copy of another dim3
      return dim3Parts(CE->getArg(0), Depth + 1);
    return std::nullopt;
  }
  if (const auto *IL = dyn_cast<InitListExpr>(E)) {
    if (IL->getNumInits() == 3)
      return std::array<const Expr *, 3>{IL->getInit(0), IL->getInit(1), IL->getInit(2)};
    return std::nullopt;
  }
  if (const Expr *Init = stableInit(E))
    return dim3Parts(Init, Depth + 1);
  return std::nullopt;
}

std::optional<std::array<int64_t, 3>> HostValues::dims(const Expr *E) {
  if (!E || E->isValueDependent() || E->isTypeDependent())
    return std::nullopt;
  if (isDim3(E->getType())) {
    auto Parts = dim3Parts(E);
    if (!Parts)
      return std::nullopt;
    std::array<int64_t, 3> D{{1, 1, 1}};
    for (int I = 0; I < 3; ++I) {
      auto V = intValue((*Parts)[I]);
      if (!V)
        return std::nullopt;
      D[I] = *V;
    }
    return D;
  }
  if (E->getType()->isIntegralOrEnumerationType())
    if (auto V = intValue(E))
      return std::array<int64_t, 3>{{*V, 1, 1}};
  return std::nullopt;
}

std::optional<int64_t> constantThreadsPerBlock(const Expr *E, ASTContext &Ctx) {
  HostValues Values(Ctx);
  return constantThreadsPerBlock(E, Values);
}

std::optional<int64_t> constantThreadsPerBlock(const Expr *E, HostValues &Values) {
  auto D = Values.dims(E);
  if (!D)
    return std::nullopt;
  return (*D)[0] * (*D)[1] * (*D)[2];
}

std::optional<std::array<int64_t, 3>> constantDims(const Expr *E, ASTContext &Ctx) {
  return HostValues(Ctx).dims(E);
}

} // namespace forge::frontend
