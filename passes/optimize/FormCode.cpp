//===- passes/optimize/FormCode.cpp - Source code from the kernel model ---===//
#include "FormCode.h"
#include "RuleUtil.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include <climits>
#include <vector>

using namespace clang;
using namespace llvm;
using forge::analysis::Atom;
using forge::analysis::AtomId;
using forge::analysis::AtomKind;
using forge::analysis::CmpOp;
using forge::analysis::IndexForm;

namespace forge::passes {

std::optional<std::string> FormRenderer::atomText(AtomId A) {
  if (auto It = Names.find(A); It != Names.end())
    return It->second;
  const Atom &At = T[A];
  std::string Dim(1, At.Dim);
  switch (At.Kind) {
  case AtomKind::ThreadIdx:
    return "threadIdx." + Dim;
  case AtomKind::BlockIdx:
    return "blockIdx." + Dim;
  case AtomKind::BlockDim:
    return "blockDim." + Dim;
  case AtomKind::GridDim:
    return "gridDim." + Dim;
  case AtomKind::Param:
  case AtomKind::TemplateParam:
    return At.Name;
  case AtomKind::LoopVar:
  case AtomKind::LoopIter:
    Why = "'" + T.render(IndexForm::atom(A)) + "' is a loop variable";
    return std::nullopt;
  case AtomKind::Unknown:
    Why = "'" + At.Name + "' is not known: " + At.Reason;
    return std::nullopt;
  default:
    Why = "'" + T.render(IndexForm::atom(A)) + "' is a quotient, remainder, clamp or selection";
    return std::nullopt;
  }
}

std::optional<std::string> FormRenderer::render(const IndexForm &F) {
  if (F.overflowed()) {
    Why = "a coefficient overflows 64 bits";
    return std::nullopt;
  }
  using Term = std::pair<const IndexForm::Monomial *, int64_t>;
  std::vector<Term> Named, Other, Constant;
  for (const auto &[M, C] : F.terms()) {
    if (M.empty())
      Constant.push_back({&M, C});
    else if (any_of(M, [&](AtomId A) { return Names.count(A); }))
      Named.push_back({&M, C});
    else
      Other.push_back({&M, C});
  }
  // Products are computed in 64 bits by casting their first factor (the
  // rule's own atoms are 64-bit already and come first). A sum of single
  // 32-bit atoms is widened at its first one.
  bool SumNeedsWidening =
      Named.empty() && Other.size() + Constant.size() > 1 &&
      none_of(Other, [](const Term &X) { return X.first->size() > 1 || X.second != 1; });
  std::string Out;
  bool First = true;
  for (const std::vector<Term> *Group : {&Named, &Other, &Constant}) {
    for (const auto &[M, C] : *Group) {
      std::vector<std::string> Factors;
      bool Wide = M->size() == 1 && (C == 1 || C == -1) && !SumNeedsWidening;
      SumNeedsWidening = false;
      for (bool NamedPass : {true, false})
        for (AtomId A : *M) {
          if (bool(Names.count(A)) != NamedPass)
            continue;
          auto Text = atomText(A);
          if (!Text)
            return std::nullopt;
          if (!NamedPass && !Wide)
            Factors.push_back("(long long)" + *Text);
          else
            Factors.push_back(*Text);
          Wide = true;
        }
      uint64_t Abs = C < 0 ? uint64_t(0) - uint64_t(C) : uint64_t(C);
      std::string Lit = std::to_string(Abs) + (Abs > uint64_t(INT_MAX) ? "LL" : "");
      std::string Text;
      if (Factors.empty())
        Text = Lit;
      else
        Text = (Abs == 1 ? "" : Lit + " * ") + join(Factors, " * ");
      if (First)
        Out = (C < 0 ? "-" : "") + Text;
      else
        Out += (C < 0 ? " - " : " + ") + Text;
      First = false;
    }
  }
  return First ? std::string("0") : Out;
}

std::optional<std::string> FormRenderer::render(const IndexForm &Lhs, CmpOp Op,
                                                const IndexForm &Rhs) {
  auto L = render(Lhs), R = render(Rhs);
  if (!L || !R)
    return std::nullopt;
  return *L + " " + analysis::cmpOpSpelling(Op).str() + " " + *R;
}

bool hasNegativeTerm(const IndexForm &F) {
  return any_of(F.terms(), [](const auto &T) { return T.second < 0; });
}

namespace {

/// Calls that synchronise, communicate between threads, touch memory or
/// the outside world; everything else declared in a system header is taken
/// as a pure function (math, conversions, intrinsics that compute).
bool impureSystemFunction(StringRef N) {
  static const char *const Prefixes[] = {
      "atomic",  "__shfl",   "__sync",    "__threadfence", "__ballot", "__any",   "__all",
      "__match", "__reduce", "__nanosleep", "__trap",      "__brkpt",  "__prof",  "__assert",
      "__st",    "__activemask", "cuda",  "printf",        "malloc",   "free",    "memcpy",
      "memset",  "clock",    "assert",    "__cp_async",    "__pipeline", "__fence", "abort",
      "exit",    "__barrier", "__isShared"};
  for (const char *P : Prefixes)
    if (N.starts_with(P))
      return true;
  return false;
}

class Effects : public RecursiveASTVisitor<Effects> {
public:
  Effects(ASTContext &Ctx, function_ref<bool(const Expr *)> Allowed, unsigned Depth)
      : Ctx(Ctx), SM(Ctx.getSourceManager()), Allowed(Allowed), Depth(Depth) {}

  std::string Found;

  bool VisitCallExpr(CallExpr *C) {
    if (isa<CXXOperatorCallExpr>(C) &&
        cast<CXXOperatorCallExpr>(C)->isAssignmentOp()) // class-type assignment
      return write(C->getArg(0), C);
    if (isa<CXXMemberCallExpr>(C) &&
        !isa_and_nonnull<CXXConversionDecl>(cast<CXXMemberCallExpr>(C)->getMethodDecl()))
      return found("calls '" + textOf(C->getCallee(), Ctx) + "'", C);
    const FunctionDecl *FD = C->getDirectCallee();
    if (!FD)
      return found("calls through a function pointer", C);
    std::string Name = FD->getNameAsString();
    if (impureSystemFunction(Name))
      return found("calls '" + Name + "'", C);
    if (FD->getBuiltinID() || SM.isInSystemHeader(SM.getExpansionLoc(FD->getLocation())) ||
        isa<CXXOperatorCallExpr>(C))
      return true;
    // A user function is pure when its body is one `return` of a pure
    // expression.
    const FunctionDecl *Def = FD->getDefinition();
    const auto *Body = Def ? dyn_cast_or_null<CompoundStmt>(Def->getBody()) : nullptr;
    const auto *Ret =
        Body && Body->size() == 1 ? dyn_cast<ReturnStmt>(Body->body_front()) : nullptr;
    if (!Ret || !Ret->getRetValue() || Depth > 3)
      return found("calls '" + Name + "', whose effects are not analysed", C);
    Effects Inner(Ctx, [](const Expr *) { return false; }, Depth + 1);
    Inner.TraverseStmt(const_cast<Expr *>(Ret->getRetValue()));
    if (!Inner.Found.empty())
      return found("calls '" + Name + "', which " + Inner.Found, C);
    return true;
  }
  bool VisitBinaryOperator(BinaryOperator *B) {
    return B->isAssignmentOp() ? write(B->getLHS(), B) : true;
  }
  bool VisitUnaryOperator(UnaryOperator *U) {
    return U->isIncrementDecrementOp() ? write(U->getSubExpr(), U) : true;
  }
  bool VisitGCCAsmStmt(GCCAsmStmt *S) { return found("has inline assembly", S); }
  bool VisitMSAsmStmt(MSAsmStmt *S) { return found("has inline assembly", S); }
  bool VisitCXXNewExpr(CXXNewExpr *E) { return found("allocates memory", E); }
  bool VisitCXXDeleteExpr(CXXDeleteExpr *E) { return found("frees memory", E); }

private:
  bool found(std::string What, const Stmt *S) {
    if (Found.empty())
      Found = What + " (line " +
              std::to_string(SM.getPresumedLineNumber(SM.getExpansionLoc(S->getBeginLoc()))) +
              ")";
    return false;
  }
  bool write(const Expr *LHS, const Stmt *At) {
    const Expr *X = LHS->IgnoreParenImpCasts();
    if (const auto *D = dyn_cast<DeclRefExpr>(X))
      if (const auto *V = dyn_cast<VarDecl>(D->getDecl());
          V && V->hasLocalStorage() && !V->getType()->isReferenceType())
        return true;
    if (Allowed(LHS))
      return true;
    return found("writes '" + textOf(LHS, Ctx) + "'", At);
  }
  ASTContext &Ctx;
  const SourceManager &SM;
  function_ref<bool(const Expr *)> Allowed;
  unsigned Depth;
};

} // namespace

std::string effectsOf(const Stmt *S, const FunctionDecl &, ASTContext &Ctx,
                      function_ref<bool(const Expr *)> AllowedWrite) {
  Effects E(Ctx, AllowedWrite, 0);
  E.TraverseStmt(const_cast<Stmt *>(S));
  return E.Found;
}

} // namespace forge::passes
