//===- passes/optimize/HistogramPrivatizeRule.cpp - histogram-privatize ---===//
///
/// \file
/// A histogram (the model's PatternKind::Histogram, and its kin with
/// atomicMin/Max/And/Or/Xor): one global atomic per element into
/// `bins[f(data...)]` at a data-dependent address. The L2 serialises the
/// atomics that meet in one bin, so the kernel is bound by atomic latency,
/// not by memory bandwidth.
///
/// When the index is provably in [0, B) (from its type, `% B`, `& (B-1)`,
/// `min(v, B - 1)`, `>> s`, or a guard `v < B`) with B a constant or a
/// kernel parameter, each block keeps a private copy of the bins in shared
/// memory:
///
///     __shared__ T forge_hist[B];            // extern __shared__ for a parameter B
///     for (j = tid; j < B; j += threads) forge_hist[j] = identity;
///     __syncthreads();
///     ... the kernel as written, atomicOp(&forge_hist[idx], v) ...
///     __syncthreads();
///     for (j = tid; j < B; j += threads)
///       if (forge_hist[j] != identity) atomicOp(&bins[j], forge_hist[j]);
///
/// A second proposal keeps R copies (warp w uses copy w % R) when B is a
/// small constant, to cut contention between the warps of a block. With a
/// grid-stride loop the grid is capped at FORGE_GRID_WAVES waves. See
/// docs/passes/histogram-privatize.md.
///
//===----------------------------------------------------------------------===//
#include "ElementwiseKernel.h"
#include "RuleAst.h"
#include "RuleUtil.h"
#include "Rules.h"
#include "forge/Analysis/KernelModel.h"
#include "forge/Measure/IntExpr.h"
#include "forge/Measure/LaunchSpec.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/APInt.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include <functional>
#include <set>

using namespace clang;
using namespace llvm;
namespace an = forge::analysis;

namespace forge::passes {
namespace {

/// Shared memory a block gets without opting in.
constexpr int64_t StaticSharedLimit = 48 * 1024;
/// The largest constant B for which per-warp copies are proposed.
constexpr int64_t PerWarpMaxBins = 1024;

unsigned lineOf(ASTContext &Ctx, SourceLocation Loc) {
  const SourceManager &SM = Ctx.getSourceManager();
  return SM.getPresumedLineNumber(SM.getFileLoc(Loc));
}

bool within(const Stmt *Inner, const Stmt *Outer) {
  if (!Inner || !Outer)
    return false;
  if (Inner == Outer)
    return true;
  for (const Stmt *C : Outer->children())
    if (C && within(Inner, C))
      return true;
  return false;
}

/// A bound B: a constant, or a kernel parameter plus a constant.
struct Bound {
  std::optional<int64_t> Const;
  const ParmVarDecl *Param = nullptr;
  int64_t Offset = 0;
  std::string How; ///< "the type 'unsigned char'", "'% nbins'"

  /// B as source.
  std::string text() const {
    if (Const)
      return std::to_string(*Const);
    std::string P = Param->getName().str();
    if (Offset == 0)
      return P;
    return "(" + P + (Offset > 0 ? " + " : " - ") + std::to_string(std::abs(Offset)) + ")";
  }
  /// The smaller of two constant bounds; between a constant and a
  /// parameter, the constant unless it is too large for shared memory to
  /// matter (a 32-bit type's range against `% nbins`).
  static Bound tighter(const Bound &A, const Bound &B) {
    if (A.Const && B.Const)
      return *A.Const <= *B.Const ? A : B;
    const Bound *C = A.Const ? &A : B.Const ? &B : nullptr;
    if (!C)
      return A;
    const Bound &P = C == &A ? B : A;
    return *C->Const <= (int64_t(1) << 16) ? *C : P;
  }
};

/// Finds the bins-index bound of a histogram atomic.
class IndexBounds {
public:
  IndexBounds(ASTContext &Ctx, const FunctionDecl &Kernel, const CompoundStmt *Body,
              const Stmt *At)
      : Ctx(Ctx), Kernel(Kernel), Body(Body), Conds(conditionsAt(At, Body, Ctx)) {}

  /// The bound of E: every value of E lies in [0, B).
  std::optional<Bound> of(const Expr *E, unsigned Depth = 0) {
    if (!E || Depth > 8)
      return std::nullopt;
    std::optional<Bound> Best = typeBound(E);
    auto Take = [&](std::optional<Bound> B) {
      if (B)
        Best = Best ? Bound::tighter(*Best, *B) : *B;
    };
    const Expr *S = E->IgnoreParenImpCasts();
    if (S != E)
      Take(typeBound(S));
    if (const auto *BO = dyn_cast<BinaryOperator>(S)) {
      const Expr *L = BO->getLHS(), *R = BO->getRHS();
      switch (BO->getOpcode()) {
      case BO_Rem:
        if (nonNegative(L, Depth + 1))
          if (auto B = asBound(R, 0, "'% " + textOf(R, Ctx) + "'"))
            Take(B);
        break;
      case BO_And:
        for (const Expr *X : {L, R})
          if (auto B = asBound(X, 1, "'& " + textOf(X, Ctx) + "'"))
            Take(B);
        break;
      case BO_Shr:
        if (auto Sh = evaluateInt(R, Ctx); Sh && *Sh >= 0 && *Sh < 63)
          if (auto LB = of(L, Depth + 1); LB && LB->Const)
            Take(Bound{((*LB->Const - 1) >> *Sh) + 1, nullptr, 0,
                       LB->How + " shifted right by " + std::to_string(*Sh)});
        break;
      default:
        break;
      }
    } else if (const auto *Call = dyn_cast<CallExpr>(S)) {
      const FunctionDecl *F = Call->getDirectCallee();
      StringRef Name = F ? F->getName() : "";
      if ((Name == "min" || Name == "umin" || Name == "llmin" || Name == "ullmin") &&
          Call->getNumArgs() == 2)
        for (unsigned I = 0; I < 2; ++I)
          if (nonNegative(Call->getArg(1 - I), Depth + 1))
            if (auto B = asBound(Call->getArg(I), 1, "'" + textOf(Call, Ctx) + "'"))
              Take(B);
    } else if (const auto *DR = dyn_cast<DeclRefExpr>(S)) {
      if (const auto *V = dyn_cast<VarDecl>(DR->getDecl())) {
        Take(guardBound(V));
        if (V->hasLocalStorage() && !isa<ParmVarDecl>(V) && V->getInit() &&
            !isModified(V, Body))
          Take(of(V->getInit(), Depth + 1));
      }
    }
    if (!Best)
      Take(guardBound(S));
    return Best;
  }

  /// E is never negative.
  bool nonNegative(const Expr *E, unsigned Depth = 0) {
    if (!E || Depth > 8)
      return false;
    if (auto V = evaluateInt(E, Ctx))
      return *V >= 0;
    if (E->getType()->isUnsignedIntegerOrEnumerationType())
      return true;
    const Expr *S = E->IgnoreParenImpCasts();
    QualType ST = S->getType();
    if (ST->isUnsignedIntegerOrEnumerationType() &&
        Ctx.getTypeSize(ST) < Ctx.getTypeSize(E->getType()))
      return true; // promoted from a narrower unsigned type
    if (S != E && nonNegative(S, Depth + 1))
      return true;
    if (const auto *BO = dyn_cast<BinaryOperator>(S)) {
      switch (BO->getOpcode()) {
      case BO_Rem:
      case BO_Shr:
      case BO_Div:
        return nonNegative(BO->getLHS(), Depth + 1) &&
               (BO->getOpcode() == BO_Shr || nonNegative(BO->getRHS(), Depth + 1));
      case BO_And:
        return nonNegative(BO->getLHS(), Depth + 1) || nonNegative(BO->getRHS(), Depth + 1);
      default:
        return false;
      }
    }
    if (const auto *DR = dyn_cast<DeclRefExpr>(S))
      if (const auto *V = dyn_cast<VarDecl>(DR->getDecl())) {
        if (guardedNonNegative(V))
          return true;
        if (V->hasLocalStorage() && !isa<ParmVarDecl>(V) && V->getInit() && !isModified(V, Body))
          return nonNegative(V->getInit(), Depth + 1);
      }
    return false;
  }

private:
  /// The range of an unsigned integer type (bool included).
  std::optional<Bound> typeBound(const Expr *E) {
    QualType T = E->getType();
    if (!T->isUnsignedIntegerType() || T->isDependentType())
      return std::nullopt;
    uint64_t W = T->isBooleanType() ? 1 : Ctx.getTypeSize(T);
    if (W >= 63)
      return std::nullopt;
    return Bound{int64_t(1) << W, nullptr, 0, "the type '" + typeSpelling(T, Ctx) + "'"};
  }

  /// E + Extra as a bound: a positive constant, or an unmodified kernel
  /// parameter plus a constant.
  std::optional<Bound> asBound(const Expr *E, int64_t Extra, std::string How) {
    if (auto V = evaluateInt(E, Ctx)) {
      if (*V + Extra <= 0)
        return std::nullopt;
      return Bound{*V + Extra, nullptr, 0, std::move(How)};
    }
    const Expr *S = stripCasts(E);
    int64_t Off = Extra;
    if (const auto *BO = dyn_cast<BinaryOperator>(S);
        BO && (BO->getOpcode() == BO_Add || BO->getOpcode() == BO_Sub)) {
      auto C = evaluateInt(BO->getRHS(), Ctx);
      if (!C)
        return std::nullopt;
      Off += BO->getOpcode() == BO_Add ? *C : -*C;
      S = stripCasts(BO->getLHS());
    }
    const ParmVarDecl *P = asParam(S, Kernel);
    if (!P || !P->getType()->isIntegerType() || isModified(P, Body))
      return std::nullopt;
    return Bound{std::nullopt, P, Off, std::move(How)};
  }

  /// The comparisons `V < X` (or `X > V`, `V <= X`) that hold where the
  /// atomic runs, for V a variable (or an expression spelled the same).
  template <typename Fn> void comparisons(Fn Visit) {
    std::function<void(const Expr *, bool)> Walk = [&](const Expr *C, bool Holds) {
      C = C->IgnoreParenImpCasts();
      if (const auto *U = dyn_cast<UnaryOperator>(C); U && U->getOpcode() == UO_LNot)
        return Walk(U->getSubExpr(), !Holds);
      const auto *BO = dyn_cast<BinaryOperator>(C);
      if (!BO)
        return;
      if ((BO->getOpcode() == BO_LAnd && Holds) || (BO->getOpcode() == BO_LOr && !Holds)) {
        Walk(BO->getLHS(), Holds);
        Walk(BO->getRHS(), Holds);
        return;
      }
      if (!BO->isComparisonOp())
        return;
      BinaryOperatorKind Op = BO->getOpcode();
      if (!Holds)
        Op = BinaryOperator::negateComparisonOp(Op);
      Visit(BO->getLHS(), Op, BO->getRHS());
      Visit(BO->getRHS(), BinaryOperator::reverseComparisonOp(Op), BO->getLHS());
    };
    for (const Condition &C : Conds)
      Walk(C.Cond, C.Holds);
  }

  bool same(const Expr *A, const void *Key) {
    const Expr *S = stripCasts(A);
    if (const auto *DR = dyn_cast<DeclRefExpr>(S))
      return DR->getDecl() == Key;
    return S == Key;
  }
  bool sameText(const Expr *A, const Expr *B) {
    return textOf(stripCasts(A), Ctx) == textOf(stripCasts(B), Ctx);
  }

  std::optional<Bound> guardBound(const void *Key, const Expr *E) {
    std::optional<Bound> Best;
    comparisons([&](const Expr *L, BinaryOperatorKind Op, const Expr *R) {
      if (!(Key ? same(L, Key) : sameText(L, E)))
        return;
      if (Op != BO_LT && Op != BO_LE)
        return;
      if (auto B = asBound(R, Op == BO_LE ? 1 : 0,
                           "the guard '" + textOf(L, Ctx) + (Op == BO_LE ? " <= " : " < ") +
                               textOf(R, Ctx) + "'"))
        Best = Best ? Bound::tighter(*Best, *B) : *B;
    });
    return Best;
  }
  std::optional<Bound> guardBound(const VarDecl *V) {
    if (!nonNegativeOrGuarded(V))
      return std::nullopt;
    return guardBound(V, nullptr);
  }
  std::optional<Bound> guardBound(const Expr *E) {
    if (!nonNegative(E) && !guardedNonNegative(nullptr, E))
      return std::nullopt;
    return guardBound(nullptr, E);
  }
  bool nonNegativeOrGuarded(const VarDecl *V) {
    if (V->getType()->isUnsignedIntegerOrEnumerationType() || guardedNonNegative(V))
      return true;
    return V->hasLocalStorage() && !isa<ParmVarDecl>(V) && V->getInit() && !isModified(V, Body) &&
           nonNegative(V->getInit(), 1);
  }
  bool guardedNonNegative(const VarDecl *V, const Expr *E = nullptr) {
    bool Yes = false;
    comparisons([&](const Expr *L, BinaryOperatorKind Op, const Expr *R) {
      if (!(V ? same(L, V) : sameText(L, E)))
        return;
      auto C = evaluateInt(R, Ctx);
      if (C && ((Op == BO_GE && *C >= 0) || (Op == BO_GT && *C >= -1)))
        Yes = true;
    });
    return Yes;
  }

  ASTContext &Ctx;
  const FunctionDecl &Kernel;
  const CompoundStmt *Body;
  std::vector<Condition> Conds;
};

/// The atomic's operation, as the rewrite treats it.
struct AtomicOpInfo {
  an::AtomicOp Op;
  /// How copies combine ("+", "min"); a function when Infix is false.
  const char *Combine;
  bool Infix;
};

std::optional<AtomicOpInfo> opInfo(an::AtomicOp Op) {
  switch (Op) {
  case an::AtomicOp::Add:
  case an::AtomicOp::Sub:
    return AtomicOpInfo{Op, "+", true};
  case an::AtomicOp::Min:
    return AtomicOpInfo{Op, "min", false};
  case an::AtomicOp::Max:
    return AtomicOpInfo{Op, "max", false};
  case an::AtomicOp::And:
    return AtomicOpInfo{Op, "&", true};
  case an::AtomicOp::Or:
    return AtomicOpInfo{Op, "|", true};
  case an::AtomicOp::Xor:
    return AtomicOpInfo{Op, "^", true};
  default:
    return std::nullopt;
  }
}

/// The identity of Op on T, as source.
std::string identityOf(an::AtomicOp Op, QualType T, ASTContext &Ctx, const std::string &TS) {
  if (T->isRealFloatingType())
    return "0";
  unsigned W = Ctx.getTypeSize(T);
  bool Signed = T->isSignedIntegerType();
  switch (Op) {
  case an::AtomicOp::And:
    return "(" + TS + ")~(" + TS + ")0";
  case an::AtomicOp::Min:
    return Signed ? "(" + TS + ")" + toString(APInt::getSignedMaxValue(W), 10, true) +
                        (W > 32 ? "LL" : "")
                  : "(" + TS + ")~(" + TS + ")0";
  case an::AtomicOp::Max:
    return Signed ? "(" + TS + ")(-" + toString(APInt::getSignedMaxValue(W), 10, true) +
                        (W > 32 ? "LL" : "") + " - 1)"
                  : "0";
  default:
    return "0";
  }
}

/// The statement `if (c) return;` (or `{ return; }`), when S is one.
const IfStmt *earlyReturn(const Stmt *S) {
  const auto *If = dyn_cast<IfStmt>(S);
  if (!If || If->getElse() || If->getInit() || If->getConditionVariable())
    return nullptr;
  const Stmt *Then = If->getThen();
  if (const auto *C = dyn_cast<CompoundStmt>(Then); C && C->size() == 1)
    Then = C->body_front();
  const auto *R = dyn_cast<ReturnStmt>(Then);
  return R && !R->getRetValue() ? If : nullptr;
}

struct ReturnFinder : RecursiveASTVisitor<ReturnFinder> {
  std::vector<const ReturnStmt *> Found;
  bool VisitReturnStmt(ReturnStmt *R) {
    Found.push_back(R);
    return true;
  }
};

class HistogramPrivatizeRule : public ExpertRule {
public:
  StringRef name() const override { return "histogram-privatize"; }
  RuleOutcome propose(const RuleInput &In) override;
};

RuleOutcome HistogramPrivatizeRule::propose(const RuleInput &In) {
  ASTContext &Ctx = In.Ctx;
  const CompoundStmt *Body = kernelBody(In.Kernel);
  if (!Body)
    return notApplicable("the kernel has no body");
  auto MOr = an::analyzeKernel(Ctx, In.Kernel, an::AnalysisOptions());
  if (!MOr)
    return notApplicable(toString(MOr.takeError()));
  an::KernelModel &M = *MOr;

  // The histogram: a global atomic at a data-dependent address (the model
  // leaves a class it cannot name, a mask by a parameter, Unknown: its
  // index then must read a load of the model).
  std::function<bool(const Stmt *, unsigned)> ReadsLoad = [&](const Stmt *S, unsigned Depth) {
    if (!S || Depth > 6)
      return false;
    if (const auto *E = dyn_cast<Expr>(S))
      if (const an::Access *L = M.accessAt(E->IgnoreParenImpCasts());
          L && L->Kind == an::AccessKind::Load)
        return true;
    if (const auto *DR = dyn_cast<DeclRefExpr>(S))
      if (const auto *V = dyn_cast<VarDecl>(DR->getDecl());
          V && V->hasLocalStorage() && !isa<ParmVarDecl>(V) && V->getInit())
        return ReadsLoad(V->getInit(), Depth + 1);
    for (const Stmt *C : S->children())
      if (ReadsLoad(C, Depth))
        return true;
    return false;
  };
  std::vector<const an::Access *> Hist;
  for (const an::Access &A : M.Accesses) {
    if (A.Kind != an::AccessKind::Atomic || A.Space != an::MemorySpace::Global)
      continue;
    const auto *AC = dyn_cast_or_null<CallExpr>(A.E);
    if (A.Warp.Class == an::AccessClass::DataDependent ||
        (A.Warp.Class == an::AccessClass::Unknown && AC && A.addressArg() &&
         ReadsLoad(A.addressArg(), 0)))
      Hist.push_back(&A);
  }
  if (Hist.empty())
    return notApplicable("the model finds no histogram (no global atomic at a data-dependent "
                         "address)");
  if (Hist.size() > 1)
    return notApplicable(formatv("the kernel makes {0} atomics at data-dependent addresses "
                                 "('{1}', '{2}'); only a kernel with one histogram is privatised",
                                 Hist.size(), Hist[0]->Text, Hist[1]->Text)
                             .str());
  const an::Access &A = *Hist.front();
  std::optional<AtomicOpInfo> Op = opInfo(A.Atomic);
  if (!Op)
    return notApplicable("'" + A.Callee + "' (line " + std::to_string(A.Loc.Line) +
                         ") has no identity to start a private copy from; only add, sub, min, "
                         "max, and, or and xor are privatised");
  const auto *Call = dyn_cast_or_null<CallExpr>(A.E);
  if (!Call || (A.Wrapper.empty() && Call->getNumArgs() != 2) || A.ParamIndex < 0)
    return notApplicable("'" + A.Text + "' is not an atomic on an element of a pointer parameter");
  const ParmVarDecl *BinsP = In.Kernel.getParamDecl(unsigned(A.ParamIndex));

  // &bins[idx] or bins + idx, on the parameter itself.
  const Expr *Addr = A.addressArg()->IgnoreParenImpCasts();
  const Expr *Base = nullptr, *Idx = nullptr;
  if (const auto *U = dyn_cast<UnaryOperator>(Addr); U && U->getOpcode() == UO_AddrOf) {
    if (const auto *Sub = dyn_cast<ArraySubscriptExpr>(U->getSubExpr()->IgnoreParens()))
      Base = Sub->getBase(), Idx = Sub->getIdx();
  } else if (const auto *BO = dyn_cast<BinaryOperator>(Addr); BO && BO->getOpcode() == BO_Add) {
    Base = BO->getLHS(), Idx = BO->getRHS();
    if (!BO->getLHS()->getType()->isPointerType())
      std::swap(Base, Idx);
  }
  const DeclRefExpr *BaseRef =
      Base ? dyn_cast<DeclRefExpr>(Base->IgnoreParenImpCasts()) : nullptr;
  if (!BaseRef || BaseRef->getDecl() != BinsP)
    return notApplicable("the address of '" + A.Text + "' is not '&" + BinsP->getName().str() +
                         "[index]' on the parameter itself");
  if (isModified(BinsP, Body))
    return notApplicable("the kernel assigns the pointer '" + BinsP->getName().str() + "'");
  for (const an::Access &O : M.Accesses)
    if (O.Id != A.Id && O.Buffer == A.Buffer)
      return notApplicable(formatv("the kernel also {0} '{1}' (line {2}); the bins are only "
                                   "final after every block has flushed",
                                   O.writes() ? "writes" : "reads", O.Text, O.Loc.Line)
                               .str());

  // The value the atomic returns (the old bin) changes meaning.
  for (const DynTypedNode &P : Ctx.getParents(*Call)) {
    const Expr *PE = P.get<Expr>();
    if (!PE)
      continue;
    const auto *Cast = dyn_cast<CastExpr>(PE);
    if (!Cast || !Cast->getType()->isVoidType())
      return notApplicable("the kernel uses the value '" + A.Text + "' returns (line " +
                           std::to_string(A.Loc.Line) +
                           "), the old bin, which a private copy changes");
  }

  // The counter type.
  QualType T = A.addressArg()->getType()->getPointeeType();
  if (T.isNull() || T->isDependentType())
    return notApplicable("the bins' element type of '" + A.Text + "' is not known in the "
                         "template pattern");
  T = T.getUnqualifiedType();
  std::string TS = typeSpelling(T, Ctx);
  bool Float = T->isRealFloatingType();
  if (!T->isIntegerType() && !(Float && A.Atomic == an::AtomicOp::Add))
    return notApplicable("'" + A.Text + "' works on '" + TS + "'; only integer bins and "
                         "floating-point additions are privatised");
  int64_t Bytes = int64_t(Ctx.getTypeSizeInChars(T).getQuantity());

  // The bins index is in [0, B).
  IndexBounds IB(Ctx, In.Kernel, Body, Call);
  std::optional<Bound> B = IB.of(Idx);
  std::string IdxText = textOf(Idx, Ctx);
  if (!B)
    return notApplicable("the bins index '" + IdxText + "' of '" + A.Text +
                         "' is not bounded (no unsigned narrow type, '% B', '& (B-1)', 'min(v, "
                         "B - 1)' or guard 'v < B' shows it is in [0, B))");
  std::string BText = B->text();
  std::optional<std::string> SharedBytes; // the spec expression, for a parameter B
  if (B->Const) {
    if (*B->Const * Bytes > StaticSharedLimit)
      return notApplicable(formatv("the bins index '{0}' is bounded by {1} ({2} bins); {2} x {3} "
                                   "B = {4} B exceeds the {5} B of shared memory a block gets "
                                   "without opting in",
                                   IdxText, B->How, *B->Const, Bytes, *B->Const * Bytes,
                                   StaticSharedLimit)
                               .str());
  } else {
    const measure::LaunchSpec *Spec = In.Request.Spec;
    const measure::Scalar *S = Spec ? Spec->findScalar(B->Param->getName()) : nullptr;
    if (!S)
      return notApplicable("the number of bins '" + BText + "' (from " + B->How +
                           ") is a kernel parameter whose value the spec does not give, so the "
                           "launch's dynamic shared memory cannot be set");
    std::string ValueText;
    if (const auto *I = std::get_if<int64_t>(&S->Value))
      ValueText = std::to_string(*I);
    else if (const auto *E = std::get_if<measure::IntExpr>(&S->Value))
      ValueText = E->text();
    else
      return notApplicable("the spec gives '" + S->Name + "' as a floating-point value");
    auto Env = Spec->environment();
    std::optional<int64_t> Value;
    if (Env) {
      if (auto V = Spec->scalarValue(*S, *Env)) {
        if (const auto *I = std::get_if<int64_t>(&*V))
          Value = *I;
      } else {
        consumeError(V.takeError());
      }
    } else {
      consumeError(Env.takeError());
    }
    if (!Value)
      return notApplicable("the spec's value of '" + S->Name + "' does not evaluate");
    int64_t Bins = *Value + B->Offset;
    if (Bins <= 0 || Bins * Bytes > StaticSharedLimit)
      return notApplicable(formatv("the spec gives {0} bins ('{1}' = {2}); {0} x {3} B exceeds "
                                   "the {4} B of dynamic shared memory a launch gets without "
                                   "opting in",
                                   Bins, BText, *Value, Bytes, StaticSharedLimit)
                               .str());
    std::string Count = B->Offset == 0
                            ? "(" + ValueText + ")"
                            : formatv("(({0}) + ({1}))", ValueText, B->Offset).str();
    SharedBytes = Count + " * " + std::to_string(Bytes);
    if (Spec->SharedMem.text() != "0")
      return notApplicable("the launch already has dynamic shared memory (" +
                           Spec->SharedMem.text() + ")");
    auto Parsed = measure::IntExpr::parse(*SharedBytes);
    if (!Parsed) {
      consumeError(Parsed.takeError());
      return notApplicable("the shared bytes '" + *SharedBytes +
                           "' cannot be written in the spec's language");
    }
  }

  // Barriers must be reached by every thread: `if (c) return;` at the top
  // level becomes a guard around the rest; any other return declines.
  std::vector<const IfStmt *> Exits;
  for (const Stmt *S : Body->body())
    if (const IfStmt *If = earlyReturn(S))
      Exits.push_back(If);
  ReturnFinder RF;
  RF.TraverseStmt(const_cast<CompoundStmt *>(Body));
  for (const ReturnStmt *R : RF.Found)
    if (none_of(Exits, [&](const IfStmt *If) { return within(R, If); }))
      return notApplicable(formatv("the 'return' at line {0} would skip the block's barriers "
                                   "(only 'if (c) return;' at the top of the kernel's body is "
                                   "rewritten into a guard)",
                                   lineOf(Ctx, R->getBeginLoc()))
                               .str());
  for (const Stmt *S : Body->body())
    if (const auto *D = dyn_cast<DeclStmt>(S))
      for (const Decl *X : D->decls())
        if (const auto *V = dyn_cast<VarDecl>(X); V && V->hasAttr<CUDASharedAttr>() &&
                                                  !V->getType()->isConstantArrayType() &&
                                                  SharedBytes)
          return notApplicable("the kernel already uses dynamic shared memory ('" +
                               V->getName().str() + "')");

  // A parameter B: the file's launches must pass the bytes too.
  std::vector<const CUDAKernelCallExpr *> Launches;
  if (SharedBytes) {
    for (const CUDAKernelCallExpr *L : launchesOf(In.Kernel, Ctx)) {
      const CallExpr *Cfg = L->getConfig();
      const Expr *Shm = Cfg && Cfg->getNumArgs() >= 3 ? Cfg->getArg(2) : nullptr;
      auto Zero = Shm && !isa<CXXDefaultArgExpr>(Shm) ? evaluateInt(Shm, Ctx) : std::nullopt;
      if (!Shm || (!isa<CXXDefaultArgExpr>(Shm) && Zero != 0))
        return notApplicable(formatv("the launch at line {0} already passes dynamic shared "
                                     "memory",
                                     lineOf(Ctx, L->getBeginLoc()))
                                 .str());
      Launches.push_back(L);
    }
  }

  // The edits.
  std::set<std::string> Taken;
  // An extern __shared__ array is one object per translation unit: its name
  // carries the kernel's, so that two rewritten kernels do not clash.
  std::string SName = freshName(
      SharedBytes ? "forge_hist_" + In.Kernel.getName().str() : std::string("forge_hist"),
      In.Kernel, Taken);
  std::string TName = freshName("forge_t", In.Kernel, Taken);
  std::string NName = freshName("forge_nt", In.Kernel, Taken);
  std::string JName = freshName("forge_j", In.Kernel, Taken);
  std::string WName = freshName("forge_w", In.Kernel, Taken);
  std::string CName = freshName("forge_c", In.Kernel, Taken);
  std::string RName = freshName("forge_r", In.Kernel, Taken);
  std::string Ident = identityOf(A.Atomic, T, Ctx, TS);
  // atomicInc with the limit 0xffffffff (an add of 1) flushes its counts with atomicAdd.
  std::string Flush = A.Atomic == an::AtomicOp::Sub || StringRef(A.Callee).starts_with("atomicInc")
                          ? "atomicAdd"
                          : A.Callee;
  if (StringRef(Flush).ends_with("_block"))
    Flush = StringRef(Flush).drop_back(6).str();
  StringRef Indent = "  ";
  if (!Body->body_empty())
    Indent = lineIndent(In.Source, Ctx.getSourceManager().getFileOffset(
                                       Ctx.getSourceManager().getFileLoc(
                                           Body->body_front()->getBeginLoc())));
  std::string BLoop = B->Const ? BText : "(int)" + BText;

  auto Make = [&](int64_t Copies) -> std::optional<std::vector<SourceEdit>> {
    EditCollector C(In);
    std::vector<std::string> Pro;
    if (SharedBytes)
      Pro.push_back("extern __shared__ " + TS + " " + SName + "[];");
    else if (Copies > 1)
      Pro.push_back(formatv("__shared__ {0} {1}[{2}][{3}];", TS, SName, Copies, BText).str());
    else
      Pro.push_back(formatv("__shared__ {0} {1}[{2}];", TS, SName, BText).str());
    Pro.push_back("const int " + TName +
                  " = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);");
    Pro.push_back("const int " + NName + " = blockDim.x * blockDim.y * blockDim.z;");
    std::string Elem = Copies > 1 ? "(&" + SName + "[0][0])" : SName;
    std::string Total = Copies > 1 ? std::to_string(Copies) + " * " + BLoop : BLoop;
    Pro.push_back(formatv("for (int {0} = {1}; {0} < {2}; {0} += {3})", JName, TName, Total, NName)
                      .str());
    Pro.push_back(formatv("  {0}[{1}] = {2};", Elem, JName, Ident).str());
    if (Copies > 1)
      Pro.push_back(
          formatv("const int {0} = ({1} / 32) % {2};", WName, TName, Copies).str());
    Pro.push_back("__syncthreads();");
    auto LB = C.offsetOf(Body->getLBracLoc());
    auto RB = C.offsetOf(Body->getRBracLoc());
    if (!LB || !RB)
      return std::nullopt;
    C.add({*LB + 1, 0, "\n" + Indent.str() + indentLines(Pro, Indent)});
    // The file's own launches pass the bytes the copy needs.
    if (SharedBytes)
      for (const CUDAKernelCallExpr *L : Launches) {
        const CallExpr *Cfg = L->getConfig();
        unsigned PI = B->Param->getFunctionScopeIndex();
        if (!Cfg || Cfg->getNumArgs() < 3 || L->getNumArgs() <= PI)
          return std::nullopt;
        std::string Arg = textOf(L->getArg(PI), Ctx);
        std::string Count = B->Offset == 0 ? "(" + Arg + ")"
                                           : formatv("(({0}) + ({1}))", Arg, B->Offset).str();
        std::string Bytes = "(size_t)" + Count + " * sizeof(" + TS + ")";
        if (isa<CXXDefaultArgExpr>(Cfg->getArg(2)))
          C.insertAfterToken(Cfg->getArg(1)->getEndLoc(), ", " + Bytes);
        else
          C.replace(Cfg->getArg(2)->getSourceRange(), Bytes);
      }
    // The atomic goes to the private copy.
    C.replace(BaseRef->getSourceRange(), Copies > 1 ? SName + "[" + WName + "]" : SName);
    // Early returns become guards around the rest.
    for (const IfStmt *If : Exits) {
      auto R = C.rangeOfStatement(If);
      if (!R)
        return std::nullopt;
      C.add({R->first, R->second - R->first,
             "if (!(" + textOf(If->getCond(), Ctx) + ")) {"});
    }
    std::vector<std::string> Epi;
    std::string Close;
    for (size_t I = 0; I < Exits.size(); ++I)
      Close += "}";
    if (!Close.empty())
      Epi.push_back(Close);
    Epi.push_back("__syncthreads();");
    Epi.push_back(formatv("for (int {0} = {1}; {0} < {2}; {0} += {3}) {{", JName, TName, BLoop,
                          NName)
                      .str());
    if (Copies > 1) {
      Epi.push_back(formatv("  {0} @C = {1}[0][{2}];", TS, SName, JName).str());
      Epi.push_back(formatv("  for (int @R = 1; @R < {0}; ++@R)", Copies).str());
      std::string Other = SName + "[@R][" + JName + "]";
      Epi.push_back(Op->Infix ? formatv("    @C = @C {0} {1};", Op->Combine, Other).str()
                              : formatv("    @C = {0}(@C, {1});", Op->Combine, Other)
                                    .str());
    } else {
      Epi.push_back(formatv("  {0} @C = {1}[{2}];", TS, SName, JName).str());
    }
    Epi.push_back(formatv("  if (@C != {0})", Ident).str());
    Epi.push_back(formatv("    {0}(&{1}[{2}], @C);", Flush, BinsP->getName(), JName).str());
    Epi.push_back("}");
    for (std::string &L : Epi) {
      for (size_t P; (P = L.find("@C")) != std::string::npos;)
        L.replace(P, 2, CName);
      for (size_t P; (P = L.find("@R")) != std::string::npos;)
        L.replace(P, 2, RName);
    }
    unsigned Start = lineStart(In.Source, *RB);
    bool Own = StringRef(In.Source).substr(Start, *RB - Start).trim().empty();
    std::string Text = Indent.str() + indentLines(Epi, Indent) + "\n";
    if (!Own)
      Text = "\n" + Text;
    C.add({Own ? Start : *RB, 0, Text});
    if (C.failed())
      return std::nullopt;
    return C.edits();
  };

  // The grid: few persistent blocks when a grid-stride loop covers the work.
  std::optional<agent::SpecChange> Spec;
  std::string GridNote;
  const an::AtomTable &Tab = M.atoms();
  const an::Loop *GS = A.Loops.empty() ? nullptr : &M.Loops[A.Loops.front()];
  auto Bx = Tab.findBuiltin("blockIdx", 'x'), Dx = Tab.findBuiltin("blockDim", 'x'),
       Tx = Tab.findBuiltin("threadIdx", 'x');
  bool GridFree = GS && GS->StepK == an::StepKind::GridStride && GS->Start && Bx && Dx && Tx &&
                  *GS->Start == an::IndexForm::atom(*Bx) * an::IndexForm::atom(*Dx) +
                                    an::IndexForm::atom(*Tx);
  if (GridFree)
    for (const an::Access &O : M.Accesses)
      if (O.Loops.empty() || O.Loops.front() != A.Loops.front())
        GridFree = false;
  for (const char *D : {"grid.y", "grid.z"}) {
    auto It = In.Request.Geometry.find(D);
    if (It != In.Request.Geometry.end() && It->second != "1")
      GridFree = false;
  }
  if (GridFree)
    Spec = wavesCappedGrid(In, [&](const WavesCap &Cap) {
      return formatv("the grid-stride loop at line {0} visits every element for any grid, so "
                     "grid.x may be capped at FORGE_GRID_WAVES waves of {1} SMs x {2} blocks: "
                     "fewer blocks, fewer flushes",
                     GS->Loc.Line, Cap.SMs, Cap.BlocksPerSM)
          .str();
    });
  if (!Spec) {
    GridNote = GS && GS->StepK == an::StepKind::GridStride
                   ? "The grid stays as it is (the spec's grid or block is not known, or some "
                     "access lies outside the grid-stride loop)."
                   : "The grid stays as it is: the kernel has no grid-stride loop over the "
                     "elements, so each block flushes once for its own elements.";
  }
  if (SharedBytes) {
    if (!Spec)
      Spec.emplace();
    Spec->Geometry["shared"] = *SharedBytes;
    Spec->Justification += std::string(Spec->Justification.empty() ? "" : "; ") +
                           "the private copy takes " + BText + " x " + std::to_string(Bytes) +
                           " B of dynamic shared memory";
  }

  std::string What = formatv("{0}(&{1}[{2}], ...)", A.Callee, BinsP->getName(), IdxText).str();
  std::string Rationale =
      formatv("Every element made one {0} in global memory, and the atomics that meet in one "
              "bin are serialised in the L2, so the kernel is bound by atomic latency. Now each "
              "block counts into a private copy of the {1} bins in shared memory (on-chip "
              "atomics) and flushes each non-empty bin with one global {2}: global atomics per "
              "block = elements -> at most {1}.",
              A.Callee, BText, Flush)
          .str();
  Rationale += "\nPreconditions (kernel model): one atomic at a data-dependent address of '" +
               A.Buffer + "' (line " + std::to_string(A.Loc.Line) + "), whose index '" +
               IdxText + "' is in [0, " + BText + ") by " + B->How + "; no other access to '" +
               A.Buffer + "' and its return value unused; every 'return' is an 'if (c) "
               "return;' at the top of the body, rewritten into a guard so that every thread "
               "reaches the barriers.";
  if (Float)
    Rationale += "\nThe floating-point additions are re-associated (per block, then across "
                 "blocks), which changes rounding within the spec's tolerance; the original's "
                 "atomics already added in arrival order.";
  else
    Rationale += "\nThe result is exact: the operation is associative and commutative.";
  if (!GridNote.empty())
    Rationale += "\n" + GridNote;

  RuleOutcome Out;
  auto Edits = Make(1);
  if (!Edits)
    return notApplicable("the kernel's body or the atomic is written through a macro");
  RuleOutcome One = proposeEdits(In, name(),
                                 "a private shared-memory copy of the " + BText +
                                     " bins per block for " + What,
                                 Rationale, *Edits, Spec);
  if (One.Proposals.empty())
    return One;
  Out.Proposals = std::move(One.Proposals);
  // Per-warp copies when B is a small constant.
  if (B->Const && *B->Const <= PerWarpMaxBins) {
    int64_t Copies = std::min<int64_t>(8, StaticSharedLimit / (*B->Const * Bytes));
    if (Copies >= 2)
      if (auto E2 = Make(Copies)) {
        RuleOutcome Two = proposeEdits(
            In, name(),
            formatv("{0} private shared-memory copies of the {1} bins per block (warp w counts "
                    "into copy w % {0}) for {2}",
                    Copies, BText, What)
                .str(),
            Rationale + formatv("\nThe warps of a block share {0} copies, so fewer of them "
                                "contend for one shared bin; the flush combines the copies.",
                                Copies)
                            .str(),
            *E2, Spec);
        for (agent::Proposal &P : Two.Proposals)
          Out.Proposals.push_back(std::move(P));
      }
  }
  return Out;
}

} // namespace

std::unique_ptr<ExpertRule> createHistogramPrivatizeRule() {
  return std::make_unique<HistogramPrivatizeRule>();
}

} // namespace forge::passes
