//===- Analysis/HostLaunches.cpp - What the host passes a kernel ----------===//
#include "forge/Analysis/HostLaunches.h"
#include "AstUtil.h"
#include "ValueTracker.h"
#include "forge/Analysis/Allocations.h"
#include "forge/Frontend/Divergence.h"
#include "forge/Frontend/KernelFacts.h"
#include "forge/Frontend/KernelLookup.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/DenseMap.h"

using namespace clang;
using namespace llvm;

namespace forge::analysis {
namespace {

class Translator {
public:
  Translator(ASTContext &Ctx, frontend::HostValues &Values,
             const DenseMap<const VarDecl *, std::string> &Params)
      : Ctx(Ctx), Values(Values), Params(Params) {}

  /// E over the kernel's parameter names, with whether it names any.
  std::optional<std::string> form(const Expr *E, bool &NamesParam, unsigned Depth = 0) {
    if (!E || Depth > 8)
      return std::nullopt;
    E = E->IgnoreParenImpCasts();
    if (const auto *C = dyn_cast<ExplicitCastExpr>(E))
      return form(C->getSubExpr(), NamesParam, Depth + 1);
    if (const auto *D = dyn_cast<DeclRefExpr>(E))
      if (const auto *V = dyn_cast<VarDecl>(D->getDecl())) {
        auto It = Params.find(V->getCanonicalDecl());
        if (It != Params.end()) {
          NamesParam = true;
          return It->second;
        }
      }
    if (const auto *B = dyn_cast<BinaryOperator>(E)) {
      const char *Op = nullptr;
      switch (B->getOpcode()) {
      case BO_Add: Op = "+"; break;
      case BO_Sub: Op = "-"; break;
      case BO_Mul: Op = "*"; break;
      case BO_Div: Op = "/"; break;
      case BO_Rem: Op = "%"; break;
      default: break;
      }
      if (Op) {
        auto L = form(B->getLHS(), NamesParam, Depth + 1);
        auto R = form(B->getRHS(), NamesParam, Depth + 1);
        if (!L || !R)
          return std::nullopt;
        bool Multiplicative = *Op != '+' && *Op != '-';
        auto Wrap = [&](const Expr *Side, const std::string &T, bool Right) {
          const auto *SB = dyn_cast<BinaryOperator>(Side->IgnoreParenImpCasts());
          if (!SB)
            return T;
          bool SideAdditive = SB->isAdditiveOp();
          // (a + b) * c, a - (b + c), a / (b * c)
          if ((Multiplicative && SideAdditive) || (Right && *Op != '+' && *Op != '*') ||
              (Right && *Op == '*' && !SB->isMultiplicativeOp()))
            return "(" + T + ")";
          return T;
        };
        return Wrap(B->getLHS(), *L, false) + " " + Op + " " + Wrap(B->getRHS(), *R, true);
      }
    }
    if (auto V = Values.intValue(E))
      return std::to_string(*V);
    // A local defined once from an expression (`size_t bytes = n * 4;`).
    if (const Expr *Init = Values.stableInit(E))
      return form(Init, NamesParam, Depth + 1);
    return std::nullopt;
  }

  /// The elements of Bytes bytes of ElemBytes each, dropping a factor
  /// sizeof(T) of that size where the product has one.
  std::optional<std::string> elements(const Expr *Bytes, uint64_t ElemBytes, bool &NamesParam,
                                      unsigned Depth = 0) {
    if (!Bytes || !ElemBytes || Depth > 8)
      return std::nullopt;
    const Expr *E = Bytes->IgnoreParenImpCasts();
    if (const auto *C = dyn_cast<ExplicitCastExpr>(E))
      return elements(C->getSubExpr(), ElemBytes, NamesParam, Depth + 1);
    if (const Expr *Init = Values.stableInit(E))
      return elements(Init, ElemBytes, NamesParam, Depth + 1);
    if (const auto *B = dyn_cast<BinaryOperator>(E); B && B->getOpcode() == BO_Mul) {
      auto IsElem = [&](const Expr *S) {
        const auto *T = dyn_cast<UnaryExprOrTypeTraitExpr>(S->IgnoreParenImpCasts());
        auto V = T && T->getKind() == UETT_SizeOf ? constantInt(T, Ctx) : std::nullopt;
        return V && uint64_t(*V) == ElemBytes;
      };
      if (IsElem(B->getRHS()))
        return form(B->getLHS(), NamesParam, Depth + 1);
      if (IsElem(B->getLHS()))
        return form(B->getRHS(), NamesParam, Depth + 1);
      bool N1 = false;
      if (auto L = elements(B->getLHS(), ElemBytes, N1, Depth + 1))
        if (auto R = form(B->getRHS(), N1, Depth + 1)) {
          NamesParam |= N1;
          return paren(*L) + " * " + paren(*R);
        }
    }
    auto All = form(E, NamesParam, Depth + 1);
    if (!All)
      return std::nullopt;
    return paren(*All) + " / " + std::to_string(ElemBytes);
  }

private:
  static std::string paren(const std::string &T) {
    return T.find_first_of("+-*/% ") == std::string::npos ? T : "(" + T + ")";
  }
  ASTContext &Ctx;
  frontend::HostValues &Values;
  const DenseMap<const VarDecl *, std::string> &Params;
};

} // namespace

std::vector<HostLaunch> findHostLaunches(ASTContext &Ctx, const FunctionDecl &Kernel) {
  std::vector<HostLaunch> Out;
  // Host values: a local the enclosing function never changes after its
  // definition stands for its initialiser (clang's ExprMutationAnalyzer).
  frontend::HostValues Values(Ctx);
  const FunctionDecl *Def = Kernel.getDefinition() ? Kernel.getDefinition() : &Kernel;
  for (const CallExpr *C : callsOf(Kernel, Ctx)) {
    if (!isa<CUDAKernelCallExpr>(C) || !Ctx.getSourceManager().isInMainFile(C->getBeginLoc()))
      continue;
    const FunctionDecl *F = frontend::enclosingFunction(Ctx, *C);
    if (!F || !F->hasBody() || F->hasAttr<CUDAGlobalAttr>() ||
        (F->hasAttr<CUDADeviceAttr>() && !F->hasAttr<CUDAHostAttr>()))
      continue;
    HostLaunch L;
    L.Line = lineOf(Ctx, C->getBeginLoc());
    L.Function = F->getQualifiedNameAsString();
    unsigned N = std::min<unsigned>(C->getNumArgs(), Def->getNumParams());
    // Variables passed as a parameter as they are: the names host
    // expressions are written in.
    DenseMap<const VarDecl *, std::string> Params;
    for (unsigned I = 0; I < N; ++I) {
      const auto *D = dyn_cast<DeclRefExpr>(C->getArg(I)->IgnoreParenImpCasts());
      const auto *V = D ? dyn_cast<VarDecl>(D->getDecl()) : nullptr;
      const ParmVarDecl *P = Def->getParamDecl(I);
      if (V && P->getIdentifier() && !Params.count(V->getCanonicalDecl()))
        Params[V->getCanonicalDecl()] = P->getName().str();
    }
    Translator T(Ctx, Values, Params);
    for (unsigned I = 0; I < N; ++I) {
      const Expr *A = C->getArg(I);
      const ParmVarDecl *P = Def->getParamDecl(I);
      HostArgument H;
      H.Param = I;
      if (P->getIdentifier())
        H.ParamName = P->getName().str();
      H.Text = textOf(A, Ctx);
      if (P->getType()->isPointerType()) {
        AllocationOrigin O = traceAllocation(A, Ctx);
        if (O.Kind == AllocationOrigin::Allocation && O.Sites.size() == 1 && O.Offset.empty() &&
            O.Sites[0].Size) {
          bool Names = false;
          uint64_t Elem = typeBytes(P->getType()->getPointeeType(), Ctx);
          std::optional<std::string> Count =
              O.Sites[0].SizeInElements ? T.form(O.Sites[0].Size, Names)
                                        : T.elements(O.Sites[0].Size, Elem, Names);
          if (Count) {
            H.Count = *Count;
            H.AllocatedBy = O.Sites[0].What;
          }
        }
      } else if (isIntegerLike(P->getType())) {
        H.Value = Values.intValue(A);
        const auto *D = dyn_cast<DeclRefExpr>(A->IgnoreParenImpCasts());
        bool Names = false;
        if (!D)
          if (auto R = T.form(A, Names); R && Names)
            H.Relation = *R;
      }
      L.Args.push_back(std::move(H));
    }
    Out.push_back(std::move(L));
  }
  return Out;
}

} // namespace forge::analysis
