//===- Analysis/AstUtil.cpp -----------------------------------------------===//
#include "AstUtil.h"
#include "forge/Analysis/SourceSpan.h"
#include "clang/AST/Attr.h"
#include "clang/AST/DynamicRecursiveASTVisitor.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

using namespace clang;
using namespace llvm;

namespace forge::analysis {

SourceSpan SourceSpan::of(const ASTContext &Ctx, SourceRange R) {
  SourceSpan S;
  if (R.isInvalid())
    return S;
  const SourceManager &SM = Ctx.getSourceManager();
  PresumedLoc B = SM.getPresumedLoc(SM.getExpansionLoc(R.getBegin()));
  PresumedLoc E = SM.getPresumedLoc(SM.getExpansionLoc(R.getEnd()));
  if (B.isInvalid())
    return S;
  S.Line = B.getLine();
  S.Column = B.getColumn();
  S.EndLine = E.isValid() ? E.getLine() : S.Line;
  return S;
}

std::string textOf(const Stmt *S, const ASTContext &Ctx) {
  if (!S)
    return "";
  const SourceManager &SM = Ctx.getSourceManager();
  CharSourceRange CR = Lexer::makeFileCharRange(CharSourceRange::getTokenRange(S->getSourceRange()),
                                                SM, Ctx.getLangOpts());
  if (CR.isInvalid())
    return "";
  bool Invalid = false;
  StringRef T = Lexer::getSourceText(CR, SM, Ctx.getLangOpts(), &Invalid);
  if (Invalid)
    return "";
  // One line, single spaces: the text goes into one-line reports.
  std::string Out;
  bool Space = false;
  for (char C : T) {
    if (C == '\n' || C == '\t' || C == '\r' || C == ' ') {
      Space = !Out.empty();
      continue;
    }
    if (Space)
      Out += ' ';
    Space = false;
    Out += C;
  }
  return Out;
}

unsigned lineOf(const ASTContext &Ctx, SourceLocation Loc) {
  if (Loc.isInvalid())
    return 0;
  const SourceManager &SM = Ctx.getSourceManager();
  PresumedLoc P = SM.getPresumedLoc(SM.getExpansionLoc(Loc));
  return P.isValid() ? P.getLine() : 0;
}

StringRef calleeName(const CallExpr *C) {
  if (!C)
    return "";
  if (const FunctionDecl *FD = C->getDirectCallee())
    if (const IdentifierInfo *II = FD->getIdentifier())
      return II->getName();
  const Expr *Callee = C->getCallee()->IgnoreParenImpCasts();
  if (const auto *U = dyn_cast<UnresolvedLookupExpr>(Callee))
    if (U->getName().isIdentifier())
      return U->getName().getAsIdentifierInfo()->getName();
  if (const auto *D = dyn_cast<DeclRefExpr>(Callee))
    if (const IdentifierInfo *II = D->getDecl()->getIdentifier())
      return II->getName();
  return "";
}

const Expr *stripIntCasts(const Expr *E) {
  while (E) {
    const Expr *Next = E->IgnoreParenImpCasts();
    if (const auto *C = dyn_cast<ExplicitCastExpr>(Next)) {
      QualType To = C->getType(), From = C->getSubExpr()->getType();
      if (isIntegerLike(To) && isIntegerLike(From))
        Next = C->getSubExpr();
    }
    if (Next == E)
      break;
    E = Next;
  }
  return E;
}

std::optional<int64_t> constantInt(const Expr *E, const ASTContext &Ctx) {
  if (!E || E->isValueDependent() || E->isTypeDependent() || E->containsErrors())
    return std::nullopt;
  if (!E->getType()->isIntegralOrEnumerationType())
    return std::nullopt;
  Expr::EvalResult R;
  if (!E->EvaluateAsInt(R, Ctx))
    return std::nullopt;
  const APSInt &V = R.Val.getInt();
  if (V.getSignificantBits() > 64)
    return std::nullopt;
  return V.getExtValue();
}

bool isIntegerLike(QualType T) {
  if (T.isNull())
    return false;
  T = T.getCanonicalType();
  return T->isIntegralOrEnumerationType() || T->isBooleanType();
}

std::optional<int64_t> constantArraySize(QualType T) {
  if (const auto *CA = dyn_cast_or_null<ConstantArrayType>(T->getAsArrayTypeUnsafe()))
    return int64_t(CA->getSize().getZExtValue());
  return std::nullopt;
}

std::string typeSpelling(QualType T, const ASTContext &Ctx) {
  PrintingPolicy PP(Ctx.getLangOpts());
  PP.SuppressTagKeyword = true;
  return T.getUnqualifiedType().getAsString(PP);
}

uint64_t typeBytes(QualType T, const ASTContext &Ctx) {
  if (T.isNull() || T->isDependentType() || T->isIncompleteType() || T->isVoidType())
    return 0;
  return uint64_t(Ctx.getTypeSizeInChars(T).getQuantity());
}

bool isBlockSync(StringRef Callee) {
  return Callee.starts_with("__syncthreads") || Callee == "__barrier_sync" ||
         Callee == "sync"; // cooperative groups' block.sync()
}

bool isAtomicCallee(StringRef Callee) { return Callee.starts_with("atomic"); }

namespace {
/// F's definition when it is a __device__ function of user code (not a
/// template instantiation) whose body is one statement, and that statement.
std::pair<const FunctionDecl *, const Stmt *> oneStatementHelper(const FunctionDecl *F) {
  F = F ? F->getDefinition() : nullptr;
  if (!F || !F->hasAttr<CUDADeviceAttr>() || F->isTemplateInstantiation() ||
      F->getASTContext().getSourceManager().isInSystemHeader(F->getLocation()))
    return {nullptr, nullptr};
  const auto *Body = dyn_cast_or_null<CompoundStmt>(F->getBody());
  if (!Body || Body->size() != 1)
    return {nullptr, nullptr};
  return {F, Body->body_front()};
}

/// The position of the parameter of F that A names, -1 when it names none.
int paramIndexIn(const FunctionDecl *F, const Expr *A) {
  const auto *D = dyn_cast<DeclRefExpr>(A->IgnoreParenImpCasts());
  const auto *P = D ? dyn_cast<ParmVarDecl>(D->getDecl()) : nullptr;
  return P && P->getDeclContext() == F ? int(P->getFunctionScopeIndex()) : -1;
}
} // namespace

std::optional<AtomicWrapper> atomicWrapperOf(const FunctionDecl *F) {
  const Stmt *S;
  std::tie(F, S) = oneStatementHelper(F);
  if (!F)
    return std::nullopt;
  const SourceManager &SM = F->getASTContext().getSourceManager();
  if (const auto *R = dyn_cast<ReturnStmt>(S))
    S = R->getRetValue();
  const auto *E = dyn_cast_or_null<Expr>(S);
  if (!E)
    return std::nullopt;
  E = E->IgnoreParenCasts();
  if (const auto *EW = dyn_cast<ExprWithCleanups>(E))
    E = EW->getSubExpr()->IgnoreParenCasts();
  const auto *C = dyn_cast<CallExpr>(E);
  const FunctionDecl *B = C ? C->getDirectCallee() : nullptr;
  if (!B || !B->getIdentifier() || !isAtomicCallee(B->getName()) || C->getNumArgs() != 2 ||
      !SM.isInSystemHeader(B->getLocation()) || B->getName().starts_with("atomicCAS"))
    return std::nullopt;
  auto ParamOf = [&](const Expr *A) { return paramIndexIn(F, A); };
  int Addr = ParamOf(C->getArg(0));
  if (Addr < 0)
    return std::nullopt;
  AtomicWrapper W;
  W.Builtin = B->getName().str();
  W.AddressParam = unsigned(Addr);
  W.ValueParam = ParamOf(C->getArg(1));
  if (W.ValueParam == Addr)
    return std::nullopt;
  if (W.ValueParam < 0) {
    const Expr *V = C->getArg(1);
    if (V->isValueDependent() || !V->isEvaluatable(F->getASTContext()))
      return std::nullopt;
    W.ValueText = Lexer::getSourceText(CharSourceRange::getTokenRange(V->getSourceRange()), SM,
                                       F->getASTContext().getLangOpts())
                      .str();
    if (W.ValueText.empty())
      return std::nullopt;
  }
  return W;
}

std::optional<StoreWrapper> storeWrapperOf(const FunctionDecl *F) {
  const Stmt *S;
  std::tie(F, S) = oneStatementHelper(F);
  if (!F || F->isTemplated() || !F->getReturnType()->isVoidType())
    return std::nullopt;
  const auto *E = dyn_cast<Expr>(S);
  if (const auto *EW = dyn_cast_or_null<ExprWithCleanups>(E))
    E = EW->getSubExpr();
  const auto *B = dyn_cast_or_null<BinaryOperator>(E ? E->IgnoreParens() : nullptr);
  if (!B || B->getOpcode() != BO_Assign)
    return std::nullopt;
  auto ParamOf = [&](const Expr *A) { return paramIndexIn(F, A); };
  StoreWrapper W;
  int Ptr = -1;
  const Expr *L = B->getLHS()->IgnoreParens();
  if (const auto *Sub = dyn_cast<ArraySubscriptExpr>(L)) {
    Ptr = ParamOf(subscriptBase(Sub));
    W.IndexParam = ParamOf(subscriptIndex(Sub));
    if (W.IndexParam < 0 ||
        !F->getParamDecl(unsigned(W.IndexParam))->getType()->isIntegerType())
      return std::nullopt;
  } else if (const auto *U = dyn_cast<UnaryOperator>(L); U && U->getOpcode() == UO_Deref) {
    Ptr = ParamOf(U->getSubExpr());
  }
  int Value = ParamOf(B->getRHS());
  if (Ptr < 0 || Value < 0 || Value == Ptr || Value == W.IndexParam ||
      !F->getParamDecl(unsigned(Ptr))->getType()->isPointerType() ||
      !L->getType()->isScalarType())
    return std::nullopt;
  W.PointerParam = unsigned(Ptr);
  W.ValueParam = unsigned(Value);
  return W;
}

namespace {
class MentionFinder : public DynamicRecursiveASTVisitor {
public:
  explicit MentionFinder(const ValueDecl *V) : V(V) {}
  bool Found = false;
  bool VisitDeclRefExpr(DeclRefExpr *E) override {
    Found |= E->getDecl() == V;
    return !Found;
  }

private:
  const ValueDecl *V;
};

class ContainsFinder : public DynamicRecursiveASTVisitor {
public:
  explicit ContainsFinder(const Stmt *A) : A(A) {}
  bool Found = false;
  bool VisitStmt(Stmt *S) override {
    Found |= S == A;
    return !Found;
  }

private:
  const Stmt *A;
};
} // namespace

static bool isAddressLike(const Expr *E) {
  QualType T = E->IgnoreParenImpCasts()->getType();
  return T->isAnyPointerType() || T->isArrayType();
}

const Expr *subscriptBase(const ArraySubscriptExpr *A) {
  if (isAddressLike(A->getLHS()) && !isAddressLike(A->getRHS()))
    return A->getLHS();
  if (isAddressLike(A->getRHS()) && !isAddressLike(A->getLHS()))
    return A->getRHS();
  return A->getBase();
}

const Expr *subscriptIndex(const ArraySubscriptExpr *A) {
  return subscriptBase(A) == A->getLHS() ? A->getRHS() : A->getLHS();
}

std::optional<AssignmentView> asAssignment(const Stmt *S) {
  if (const auto *B = dyn_cast_or_null<BinaryOperator>(S)) {
    if (!B->isAssignmentOp())
      return std::nullopt;
    return AssignmentView{B->getLHS(), B->getRHS(), B->getOpcode()};
  }
  if (const auto *C = dyn_cast_or_null<CXXOperatorCallExpr>(S)) {
    if (!C->isAssignmentOp() || C->getNumArgs() != 2)
      return std::nullopt;
    return AssignmentView{C->getArg(0), C->getArg(1),
                          BinaryOperator::getOverloadedOpcode(C->getOperator())};
  }
  return std::nullopt;
}

bool readsMemory(const Expr *E) {
  class Finder : public DynamicRecursiveASTVisitor {
  public:
    bool Found = false;
    bool VisitArraySubscriptExpr(ArraySubscriptExpr *A) override {
      const auto *D = dyn_cast<DeclRefExpr>(subscriptBase(A)->IgnoreParenImpCasts());
      const auto *V = D ? dyn_cast<VarDecl>(D->getDecl()) : nullptr;
      if (!(V && V->hasLocalStorage() && !isa<ParmVarDecl>(V) && V->getType()->isArrayType()))
        Found = true;
      return !Found;
    }
    bool VisitUnaryOperator(UnaryOperator *U) override {
      Found |= U->getOpcode() == UO_Deref;
      return !Found;
    }
    bool VisitCallExpr(CallExpr *C) override {
      StringRef N = calleeName(C);
      Found |= N == "__ldg" || N == "__ldcg" || N == "__ldca" || N == "__ldcs" || N == "__ldlu" ||
               N == "__ldcv";
      return !Found;
    }
  } F;
  if (E)
    F.TraverseStmt(const_cast<Expr *>(E));
  return F.Found;
}

bool mentions(const Stmt *S, const ValueDecl *V) {
  if (!S || !V)
    return false;
  MentionFinder F(V);
  F.TraverseStmt(const_cast<Stmt *>(S));
  return F.Found;
}

bool contains(const Stmt *S, const Stmt *A) {
  if (!S || !A)
    return false;
  if (S == A)
    return true;
  ContainsFinder F(A);
  F.TraverseStmt(const_cast<Stmt *>(S));
  return F.Found;
}

} // namespace forge::analysis
