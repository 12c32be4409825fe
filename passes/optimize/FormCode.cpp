//===- passes/optimize/FormCode.cpp - Source code from the kernel model ---===//
#include "FormCode.h"
#include "RuleUtil.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DynamicRecursiveASTVisitor.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"
#include <climits>
#include <functional>
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

std::optional<std::string> renderForm(const analysis::IndexForm &F, const analysis::AtomTable &T,
                                      bool Wide) {
  if (F.overflowed())
    return std::nullopt;
  std::function<std::optional<std::string>(analysis::AtomId)> Atom;
  std::function<std::optional<std::string>(const analysis::IndexForm &)> Form;
  Atom = [&](analysis::AtomId Id) -> std::optional<std::string> {
    const analysis::Atom &A = T[Id];
    switch (A.Kind) {
    case analysis::AtomKind::ThreadIdx:
    case analysis::AtomKind::BlockIdx:
    case analysis::AtomKind::BlockDim:
    case analysis::AtomKind::GridDim:
    case analysis::AtomKind::Param:
    case analysis::AtomKind::TemplateParam:
      return Wide ? "(long long)" + A.Name : A.Name;
    case analysis::AtomKind::Div:
    case analysis::AtomKind::Mod:
    case analysis::AtomKind::Min:
    case analysis::AtomKind::Max: {
      auto L = Form(A.Operands[0]), R = Form(A.Operands[1]);
      if (!L || !R)
        return std::nullopt;
      if (A.Kind == analysis::AtomKind::Div)
        return "(" + *L + ") / (" + *R + ")";
      if (A.Kind == analysis::AtomKind::Mod)
        return "(" + *L + ") % (" + *R + ")";
      return std::string(A.Kind == analysis::AtomKind::Min ? "min(" : "max(") + *L + ", " + *R + ")";
    }
    default:
      return std::nullopt;
    }
  };
  Form = [&](const analysis::IndexForm &G) -> std::optional<std::string> {
    if (G.overflowed())
      return std::nullopt;
    std::string Out;
    for (const auto &[M, C] : G.terms()) {
      std::string Term;
      int64_t Coef = C;
      bool Neg = Coef < 0;
      uint64_t Mag = Neg ? uint64_t(0) - uint64_t(Coef) : uint64_t(Coef);
      std::vector<std::string> Parts;
      if (M.empty() || Mag != 1)
        Parts.push_back(std::to_string(Mag) + (Wide ? "ll" : ""));
      for (analysis::AtomId A : M) {
        auto S = Atom(A);
        if (!S)
          return std::nullopt;
        Parts.push_back(*S);
      }
      Term = join(Parts, " * ");
      if (Out.empty())
        Out = (Neg ? "-" : "") + Term;
      else
        Out += (Neg ? " - " : " + ") + Term;
    }
    return Out.empty() ? std::string(Wide ? "0ll" : "0") : Out;
  };
  return Form(F);
}

std::optional<int64_t>
evaluateForm(const analysis::IndexForm &F, const analysis::AtomTable &T,
             function_ref<std::optional<int64_t>(const analysis::Atom &)> Leaf) {
  std::function<std::optional<int64_t>(const analysis::IndexForm &)> Form;
  auto Atom = [&](analysis::AtomId Id) -> std::optional<int64_t> {
    const analysis::Atom &A = T[Id];
    switch (A.Kind) {
    case analysis::AtomKind::Div:
    case analysis::AtomKind::Mod:
    case analysis::AtomKind::Min:
    case analysis::AtomKind::Max: {
      auto L = Form(A.Operands[0]), R = Form(A.Operands[1]);
      if (!L || !R || ((A.Kind == analysis::AtomKind::Div || A.Kind == analysis::AtomKind::Mod) && *R == 0))
        return std::nullopt;
      switch (A.Kind) {
      case analysis::AtomKind::Div:
        return *L / *R;
      case analysis::AtomKind::Mod:
        return *L % *R;
      case analysis::AtomKind::Min:
        return std::min(*L, *R);
      default:
        return std::max(*L, *R);
      }
    }
    default:
      return Leaf(A);
    }
  };
  Form = [&](const analysis::IndexForm &G) -> std::optional<int64_t> {
    if (G.overflowed())
      return std::nullopt;
    int64_t Sum = 0;
    for (const auto &[M, C] : G.terms()) {
      int64_t Term = C;
      for (analysis::AtomId X : M) {
        auto V = Atom(X);
        if (!V || MulOverflow(Term, *V, Term))
          return std::nullopt;
      }
      if (AddOverflow(Sum, Term, Sum))
        return std::nullopt;
    }
    return Sum;
  };
  return Form(F);
}

std::optional<int64_t> evaluateForm(const analysis::IndexForm &F, const analysis::AtomTable &T,
                                    const agent::RuleInput &In, const measure::ValueMap &Env) {
  const measure::LaunchSpec *Spec = In.Request.Spec;
  return evaluateForm(F, T, [&](const analysis::Atom &A) -> std::optional<int64_t> {
    switch (A.Kind) {
    case analysis::AtomKind::BlockDim:
      if (!In.Request.Block)
        return std::nullopt;
      return (*In.Request.Block)[A.Dim - 'x'];
    case analysis::AtomKind::Param: {
      const auto *P = dyn_cast_or_null<ParmVarDecl>(A.Decl);
      auto Idx = P ? paramIndex(In.Kernel, P) : std::nullopt;
      if (!Spec || !Idx || *Idx >= Spec->Args.size())
        return std::nullopt;
      const measure::Scalar *S = Spec->findScalar(Spec->Args[*Idx]);
      if (!S)
        return std::nullopt;
      auto V = Spec->scalarValue(*S, Env);
      if (!V) {
        consumeError(V.takeError());
        return std::nullopt;
      }
      if (const auto *I = std::get_if<int64_t>(&*V))
        return *I;
      return std::nullopt;
    }
    default:
      return std::nullopt;
    }
  });
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

class Effects : public DynamicRecursiveASTVisitor {
public:
  Effects(ASTContext &Ctx, function_ref<bool(const Expr *)> Allowed, unsigned Depth)
      : Ctx(Ctx), SM(Ctx.getSourceManager()), Allowed(Allowed), Depth(Depth) {}

  std::string Found;

  bool VisitCallExpr(CallExpr *C) override {
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
    // A call the rule accounts for as its own write: a store helper
    // (`put(out, i, v)`) that the model makes the rule's store.
    if (Allowed(C))
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
  bool VisitBinaryOperator(BinaryOperator *B) override {
    return B->isAssignmentOp() ? write(B->getLHS(), B) : true;
  }
  bool VisitUnaryOperator(UnaryOperator *U) override {
    return U->isIncrementDecrementOp() ? write(U->getSubExpr(), U) : true;
  }
  bool VisitGCCAsmStmt(GCCAsmStmt *S) override { return found("has inline assembly", S); }
  bool VisitMSAsmStmt(MSAsmStmt *S) override { return found("has inline assembly", S); }
  bool VisitCXXNewExpr(CXXNewExpr *E) override { return found("allocates memory", E); }
  bool VisitCXXDeleteExpr(CXXDeleteExpr *E) override { return found("frees memory", E); }

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
