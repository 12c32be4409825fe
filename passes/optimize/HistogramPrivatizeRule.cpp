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
/// When B is a small constant, the first proposal keeps R lane copies laid
/// out [B][R] (lane l counts into copy l % R): with R = 32 every lane's
/// counters lie in its own bank, so a warp's shared atomics never conflict,
/// whatever the data. With a
/// grid-stride loop the grid is capped at FORGE_GRID_WAVES waves. See
/// docs/passes/histogram-privatize.md.
///
//===----------------------------------------------------------------------===//
#include "ElementwiseKernel.h"
#include "RuleAst.h"
#include "RuleUtil.h"
#include "Rules.h"
#include "SharedBins.h"
#include "VirtualBlocks.h"
#include "forge/Analysis/KernelModel.h"
#include "forge/Analysis/ValueRange.h"
#include "forge/Measure/IntExpr.h"
#include "forge/Measure/LaunchSpec.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DynamicRecursiveASTVisitor.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/APInt.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include <functional>
#include <set>
#include <tuple>

using namespace clang;
using namespace llvm;
namespace an = forge::analysis;

namespace forge::passes {
namespace {

/// Shared memory a block gets without opting in.
constexpr int64_t StaticSharedLimit = 48 * 1024;
/// The largest constant B for which lane copies are proposed.
constexpr int64_t LaneCopiesMaxBins = 1024;
/// Lane copies: at most one per lane of a warp.
constexpr int64_t MaxLaneCopies = 32;
/// Copies x bins from which a block's final flush dominates and one wave of
/// blocks is offered first.
constexpr int64_t FlushHeavyCounters = 4096;
/// A value range bounds the bins when it is below this (larger ones do not
/// fit in shared memory anyway, and the refusal names the bound).
constexpr int64_t MaxRangeBins = int64_t(1) << 24;

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
    if (auto V = evaluateInt(S, Ctx); V && *V >= 0)
      Take(Bound{*V + 1, nullptr, 0, "the constant " + std::to_string(*V)});
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
      // max(0, min(v, B - 1)): never negative, and below B.
      if (Call->getNumArgs() == 2 && nonNegative(S, Depth + 1))
        Take(upper(S, Depth + 1));
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
    // Whatever the spelling: the value range where the atomic runs
    // (assignments, clamps by `if`, guards on the operands, arithmetic of
    // bounded values).
    if (Depth == 0) {
      an::ValueInterval R = an::valueRange(E, Kernel, Ctx);
      if (R.Lo && *R.Lo >= 0 && R.Hi && *R.Hi < MaxRangeBins)
        Take(Bound{*R.Hi + 1, nullptr, 0, "its value range " + R.render()});
      // The same, in terms of a parameter: a clamp to a run-time number of
      // bins assigned after the declaration, `b = b < 0 ? 0 : (b >= nbins ?
      // nbins - 1 : b);`, `if`s, `b = min(b, nbins - 1);`.
      if (!Best)
        Take(paramRange(E));
    }
    return Best;
  }

  /// Why E is not bounded, as the value range shows it: "where the atomic
  /// runs 'b' is in [0, nbins]", with the reasons the range lost precision.
  std::string unbounded(const Expr *E) {
    if (ParamAssigned)
      return "; where the atomic runs it is in " + ParamAssigned->second +
             ", but the kernel assigns '" + ParamAssigned->first->getName().str() +
             "', and the private copy is sized by its value at the launch";
    std::optional<an::SymbolicInterval> Shown;
    for (const ParmVarDecl *P : Kernel.parameters())
      if (P->getType()->isIntegerType() && !P->getType()->isBooleanType()) {
        an::SymbolicInterval R = an::symbolicRange(E, Kernel, Ctx, P, 1);
        if ((R.Lo && R.Lo->OfParam) || (R.Hi && R.Hi->OfParam)) {
          Shown = std::move(R);
          break;
        }
      }
    if (!Shown)
      Shown = an::symbolicRange(E, Kernel, Ctx, nullptr, 0);
    std::string Out = "; where the atomic runs it is in " + Shown->render();
    for (size_t I = 0; I < Shown->Notes.size(); ++I)
      Out += (I ? "; " : ": ") + Shown->Notes[I];
    if (Shown->Hi && Shown->Hi->OfParam && Shown->Hi->K >= 0) {
      std::string P = Shown->Param->getName().str();
      Out += " (the launch sizes the bins by '" + P + "': a clamp's ceiling is '" + P + " - 1')";
    }
    return Out;
  }

  /// Every value of E is below the bound (E may be negative).
  std::optional<Bound> upper(const Expr *E, unsigned Depth) {
    if (!E || Depth > 8)
      return std::nullopt;
    const Expr *S = E->IgnoreParenImpCasts();
    if (auto V = evaluateInt(S, Ctx))
      return *V >= 0 ? std::optional<Bound>(Bound{*V + 1, nullptr, 0, "the constant " +
                                                                        std::to_string(*V)})
                     : std::nullopt;
    const auto *Call = dyn_cast<CallExpr>(S);
    if (!Call && nonNegative(S, Depth + 1))
      return of(S, Depth + 1);
    if (Call && Call->getNumArgs() == 2) {
      const FunctionDecl *F = Call->getDirectCallee();
      StringRef Name = F ? F->getName() : "";
      std::optional<Bound> U[2];
      for (unsigned I = 0; I < 2; ++I)
        if (!(U[I] = upper(Call->getArg(I), Depth + 1)))
          U[I] = asBound(Call->getArg(I), 1, "'" + textOf(Call, Ctx) + "'");
      if (Name == "min" || Name == "llmin") {
        if (U[0] && U[1])
          return Bound::tighter(*U[0], *U[1]);
        return U[0] ? U[0] : U[1];
      }
      // The larger of the two bounds: a constant one of at most 1 (the
      // value 0) is below a parameter's, which the clamp to B - 1 already
      // needs to be at least 1 in the original.
      if ((Name == "max" || Name == "llmax") && U[0] && U[1]) {
        if (U[0]->Const && U[1]->Const)
          return *U[0]->Const >= *U[1]->Const ? U[0] : U[1];
        if (U[0]->Const || U[1]->Const)
          return *(U[0]->Const ? U[0] : U[1])->Const <= 1 ? (U[0]->Const ? U[1] : U[0])
                                                          : std::nullopt;
        return U[0]->Param == U[1]->Param ? (U[0]->Offset >= U[1]->Offset ? U[0] : U[1])
                                          : std::nullopt;
      }
    }
    if (const auto *DR = dyn_cast<DeclRefExpr>(S))
      if (const auto *V = dyn_cast<VarDecl>(DR->getDecl());
          V && V->hasLocalStorage() && !isa<ParmVarDecl>(V) && V->getInit() && !isModified(V, Body))
        return upper(V->getInit(), Depth + 1);
    return std::nullopt;
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
    // max(v, 0) and min of two non-negative values.
    if (const auto *Call = dyn_cast<CallExpr>(S); Call && Call->getNumArgs() == 2) {
      const FunctionDecl *F = Call->getDirectCallee();
      StringRef Name = F ? F->getName() : "";
      bool L = nonNegative(Call->getArg(0), Depth + 1), R = nonNegative(Call->getArg(1), Depth + 1);
      if (Name == "max" || Name == "llmax")
        return L || R;
      if (Name == "min" || Name == "llmin")
        return L && R;
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
  /// E's value range in terms of an integer parameter P: [L, P + k] with
  /// L >= 0 and k <= -1, so the bins are P + k + 1 (the usual clamp to
  /// P - 1: P bins). The range assumes P >= 1, which the bins imply: with
  /// none, the original's atomic is outside its bins too. A ceiling of P or
  /// above is taken for a mistake, not for P + 1 bins: the launch sizes the
  /// bins by P.
  std::optional<Bound> paramRange(const Expr *E) {
    for (const ParmVarDecl *P : Kernel.parameters()) {
      if (!P->getType()->isIntegerType() || P->getType()->isBooleanType())
        continue;
      an::SymbolicInterval R = an::symbolicRange(E, Kernel, Ctx, P, 1);
      if (!R.Lo || !R.Hi || !R.Hi->OfParam || R.Hi->K > -1)
        continue;
      int64_t Least;
      if (R.Lo->OfParam ? llvm::AddOverflow(int64_t(1), R.Lo->K, Least) : (Least = R.Lo->K, false))
        continue;
      if (Least < 0)
        continue;
      if (isModified(P, Body)) {
        ParamAssigned = {P, R.render()};
        continue;
      }
      return Bound{std::nullopt, P, R.Hi->K + 1, "its value range " + R.render()};
    }
    return std::nullopt;
  }

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
  /// A parameter that bounds the index by its value range but that the
  /// kernel assigns, and the range.
  std::optional<std::pair<const ParmVarDecl *, std::string>> ParamAssigned;
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

struct ReturnFinder : DynamicRecursiveASTVisitor {
  std::vector<const ReturnStmt *> Found;
  bool VisitReturnStmt(ReturnStmt *R) override {
    Found.push_back(R);
    return true;
  }
};

/// The 16-byte-load path: the elements the histogram reads, loaded 16 bytes
/// per thread per iteration of a grid-stride loop over the same elements.
struct VecLoad {
  const ParmVarDecl *P = nullptr;
  std::string TS; ///< the element type as source
  int64_t Size = 0;
  bool Float = false;
  /// Rows: the index of the row's first element, with "@ROW" for the row,
  /// and the row pitch in elements as a form (equal for every load of P).
  std::string RowStart;
  an::IndexForm Pitch;
};

/// The 2D form: a guard `x < w && y < h` on the column x = blockIdx.x *
/// blockDim.x + threadIdx.x and the row y (the same in y), and loads
/// `p[y * pitch + x]`. Each row is visited as the 1D path visits its
/// elements.
struct RowPlan {
  const VarDecl *Col = nullptr, *Row = nullptr;
  std::string RowBoundText;
  /// Locals the loads use as their index (`int idx = y * pitch + x;`).
  std::vector<const VarDecl *> IndexLocals;
  /// Index locals declared before the guard and read only inside it: their
  /// declarations go with the column and the row.
  std::vector<const VarDecl *> Hoisted;
  /// S lies in the initialiser of one of them.
  bool hoisted(const Stmt *S) const {
    return llvm::any_of(Hoisted, [&](const VarDecl *V) { return isWithin(S, V->getInit()); });
  }
};

struct VecPlan {
  std::string Why; ///< set: no vector path, and why
  /// Main-file offsets: the code replaced, and the per-element body in it.
  unsigned RB = 0, RE = 0, BB = 0, BE = 0;
  /// Replacements inside the body: (offset, length, text).
  std::vector<std::tuple<unsigned, unsigned, std::string>> Repl;
  std::string BoundText, Form;
  /// The loop already strides over the grid (else a guard is turned into one).
  bool WasLoop = false;
  std::vector<VecLoad> Loads;
  std::vector<std::pair<const ArraySubscriptExpr *, unsigned>> Uses; ///< load, its VecLoad
  int64_t K = 0; ///< elements per thread per iteration
  std::optional<RowPlan> Rows;
  /// Declarations erased: the index's own, and locals only its dropped
  /// increment read.
  std::vector<std::pair<unsigned, unsigned>> Erase;
};

/// The first variable S reads that the kernel's Body assigns, if any.
const VarDecl *readsAssigned(const Stmt *S, const Stmt *Body) {
  if (const auto *D = dyn_cast<DeclRefExpr>(S))
    if (const auto *V = dyn_cast<VarDecl>(D->getDecl()); V && isModified(V, Body))
      return V;
  for (const Stmt *C : S->children())
    if (const VarDecl *V = C ? readsAssigned(C, Body) : nullptr)
      return V;
  return nullptr;
}

VecPlan noVector(std::string Why) {
  VecPlan P;
  P.Why = std::move(Why);
  return P;
}

/// S reads a value that differs between the threads of the grid (or between
/// the elements of one thread): threadIdx, blockIdx, a warp collective, or a
/// local computed from them or assigned after its declaration.
std::string threadVarying(const Stmt *S, const CompoundStmt *Body, ArrayRef<const VarDecl *> IVs,
                          SourceLocation Before, ASTContext &Ctx, unsigned Depth = 0) {
  if (!S || Depth > 6)
    return "";
  if (const auto *E = dyn_cast<Expr>(S))
    if (auto B = cudaBuiltin(E); B && (B->Var == "threadIdx" || B->Var == "blockIdx"))
      return textOf(E, Ctx);
  if (const auto *C = dyn_cast<CallExpr>(S))
    if (const FunctionDecl *F = C->getDirectCallee()) {
      StringRef N = F->getName();
      for (StringRef W : {"__shfl", "__ballot", "__any", "__all", "__activemask", "__syncwarp",
                          "__match", "__reduce", "__syncthreads", "clock"})
        if (N.starts_with(W))
          return textOf(C, Ctx);
    }
  if (const auto *DR = dyn_cast<DeclRefExpr>(S))
    if (const auto *V = dyn_cast<VarDecl>(DR->getDecl());
        V && !is_contained(IVs, V) && V->hasLocalStorage() && !isa<ParmVarDecl>(V)) {
      // A local of the kernel declared before the element's code.
      bool Outer = false;
      for (const Stmt *X : Body->body())
        if (const auto *D = dyn_cast<DeclStmt>(X); D && D->getEndLoc() < Before)
          for (const Decl *Y : D->decls())
            Outer |= Y == V;
      if (Outer) {
        if (isModified(V, Body))
          return V->getName().str();
        if (V->getInit() && !threadVarying(V->getInit(), Body, IVs, Before, Ctx, Depth + 1).empty())
          return V->getName().str();
      }
    }
  for (const Stmt *C : S->children())
    if (std::string W = threadVarying(C, Body, IVs, Before, Ctx, Depth); !W.empty())
      return W;
  return "";
}

/// Text [B, E) of Source with the replacements (offset, length, text) that
/// lie inside it.
std::string spliced(StringRef Source, unsigned B, unsigned E,
                    std::vector<std::tuple<unsigned, unsigned, std::string>> Repl) {
  llvm::sort(Repl);
  std::string Out;
  unsigned At = B;
  for (const auto &[O, L, T] : Repl) {
    if (O < At || O + L > E)
      continue;
    Out += Source.substr(At, O - At).str() + T;
    At = O + L;
  }
  return Out + Source.substr(At, E - At).str();
}

/// The element type of a load the 16-byte path unpacks; Why set when it is
/// not one.
VecLoad vecLoadOf(const ParmVarDecl *Ptr, const ArraySubscriptExpr *ASE, ASTContext &Ctx,
                  std::string &Why) {
  QualType T = Ptr->getType()->getPointeeType().getUnqualifiedType();
  VecLoad L;
  L.P = Ptr;
  L.TS = typeSpelling(T, Ctx);
  L.Size = T->isDependentType() ? 0 : int64_t(Ctx.getTypeSizeInChars(T).getQuantity());
  L.Float = T->isSpecificBuiltinType(BuiltinType::Float);
  if (!(L.Float || (T->isIntegerType() && !T->isBooleanType() && !T->isEnumeralType())) ||
      !(L.Size == 1 || L.Size == 2 || L.Size == 4))
    Why = "'" + textOf(ASE, Ctx) + "' loads '" + L.TS +
          "'; only 1-, 2- and 4-byte integers and float are unpacked";
  return L;
}

/// The position of Ptr's load in P.Loads, added (with its element type)
/// when it is new; none, with Why, when its type is not unpacked.
std::optional<unsigned> loadOf(VecPlan &P, const ParmVarDecl *Ptr, const ArraySubscriptExpr *ASE,
                               ASTContext &Ctx, std::string &Why) {
  for (unsigned I = 0; I < P.Loads.size(); ++I)
    if (P.Loads[I].P == Ptr)
      return I;
  VecLoad L = vecLoadOf(Ptr, ASE, Ctx, Why);
  if (!Why.empty())
    return std::nullopt;
  P.Loads.push_back(L);
  return unsigned(P.Loads.size() - 1);
}

/// The load ASE is a read (an rvalue use) of a pointer parameter the
/// kernel never assigns.
const ParmVarDecl *readParam(const ArraySubscriptExpr *ASE, const RuleInput &In,
                             const CompoundStmt *Body) {
  const ParmVarDecl *Ptr = asParam(ASE->getBase(), In.Kernel);
  if (!Ptr || !Ptr->getType()->isPointerType() || isModified(Ptr, Body))
    return nullptr;
  for (const DynTypedNode &N : In.Ctx.getParents(*ASE))
    if (const auto *IC = N.get<ImplicitCastExpr>(); IC && IC->getCastKind() == CK_LValueToRValue)
      return Ptr;
  return nullptr;
}

/// The rows' loads: every read of the column, the row (and the locals the
/// loads take as their index) in the element's code is inside the index of
/// a load `p[row * pitch + column]` (by the model's index form: the column
/// with coefficient 1, the row times a pitch that is the same for every
/// thread). Fills P.Loads, P.Uses and each load's row start; "" or why not.
std::string collectRowLoads(const RuleInput &In, an::KernelModel &M, const CompoundStmt *Body,
                            const EditCollector &C, SourceLocation Before, VecPlan &P) {
  ASTContext &Ctx = In.Ctx;
  RowPlan &R = *P.Rows;
  const an::AtomTable &Tab = M.atoms();
  std::optional<an::AtomId> Atom[2][3]; // [x, y][threadIdx, blockIdx, blockDim]
  for (int D = 0; D < 2; ++D)
    for (int K = 0; K < 3; ++K)
      Atom[D][K] = Tab.findBuiltin(K == 0 ? "threadIdx" : K == 1 ? "blockIdx" : "blockDim",
                                   "xy"[D]);
  for (auto &D : Atom)
    for (auto &K : D)
      if (!K)
        return "the loads' indices are not in the kernel model";
  auto Global = [&](int D) {
    return an::IndexForm::atom(*Atom[D][1]) * an::IndexForm::atom(*Atom[D][2]) +
           an::IndexForm::atom(*Atom[D][0]);
  };
  an::IndexForm ColF = Global(0), RowF = Global(1);
  auto InBody = [&](const Stmt *S) {
    auto O = C.offsetOf(S->getBeginLoc());
    return O && *O >= P.BB && *O < P.BE;
  };
  std::vector<const VarDecl *> Pos{R.Col, R.Row};
  // One load at its index expression (IndexE: the subscript, or the init of
  // the index local the subscript names).
  auto AddUse = [&](const ArraySubscriptExpr *ASE, const Expr *IndexE) -> std::string {
    const ParmVarDecl *Ptr = readParam(ASE, In, Body);
    const an::Access *LA = M.accessAt(ASE);
    if (!Ptr || !LA || !LA->IndexKnown)
      return "the element's code reads '" + R.Col->getName().str() + "' or '" +
             R.Row->getName().str() + "' other than in the index of a load of a pointer "
             "parameter ('" + textOf(ASE, Ctx) + "')";
    an::IndexForm G = LA->Index - ColF;
    std::optional<an::IndexForm> Pitch = G.coefficientOf(*Atom[1][0]);
    bool Uniform = Pitch.has_value();
    for (int D = 0; D < 2 && Uniform; ++D)
      for (int K = 0; K < 2; ++K)
        Uniform &= !Pitch->mentions(*Atom[D][K]);
    if (G.mentions(*Atom[0][0]) || G.mentions(*Atom[0][1]) || !Uniform || !(G == RowF * *Pitch))
      return "'" + textOf(ASE, Ctx) + "' is not read at 'row * pitch + column' (its index is '" +
             LA->IndexText + "')";
    if (std::string W = threadVarying(IndexE, Body, Pos, Before, Ctx); !W.empty())
      return "the index of '" + textOf(ASE, Ctx) + "' reads '" + W + "', which differs between "
             "threads";
    auto IR = C.rangeOf(IndexE->getSourceRange());
    if (!IR)
      return "the index of '" + textOf(ASE, Ctx) + "' is written through a macro";
    std::vector<std::tuple<unsigned, unsigned, std::string>> Repl;
    for (const VarDecl *V : Pos)
      for (const DeclRefExpr *D : referencesTo(V, Body))
        if (isWithin(D, IndexE))
          if (auto O = C.offsetOf(D->getLocation()))
            Repl.push_back({*O, unsigned(V->getName().size()), V == R.Col ? "0" : "(@ROW)"});
    size_t Known = P.Loads.size();
    std::string Why;
    std::optional<unsigned> Which = loadOf(P, Ptr, ASE, Ctx, Why);
    if (!Which)
      return Why;
    if (P.Loads.size() > Known) {
      P.Loads[*Which].RowStart = spliced(In.Source, IR->first, IR->second, Repl);
      P.Loads[*Which].Pitch = *Pitch;
    } else if (P.Loads[*Which].Pitch != *Pitch) {
      return "'" + Ptr->getName().str() + "' is read at two row pitches";
    }
    P.Uses.push_back({ASE, *Which});
    return "";
  };
  // The innermost enclosing subscript whose index holds E, or the local
  // whose initialiser holds it.
  auto Enclosing = [&](const Expr *E) -> std::pair<const ArraySubscriptExpr *, const VarDecl *> {
    const Stmt *Cur = E;
    for (int Up = 0; Up < 16; ++Up) {
      auto Ps = Ctx.getParents(*Cur);
      if (Ps.empty())
        break;
      if (const auto *X = Ps[0].get<ArraySubscriptExpr>())
        return {isWithin(E, X->getIdx()) ? X : nullptr, nullptr};
      if (const auto *V = Ps[0].get<VarDecl>())
        return {nullptr, V};
      if (!(Cur = Ps[0].get<Expr>()))
        break;
    }
    return {nullptr, nullptr};
  };
  for (const VarDecl *V : Pos)
    for (const DeclRefExpr *D : referencesTo(V, Body)) {
      if (!InBody(D) && !R.hoisted(D))
        continue;
      auto [ASE, Local] = Enclosing(D);
      if (ASE) {
        if (std::string Why = AddUse(ASE, ASE->getIdx()); !Why.empty())
          return Why;
        continue;
      }
      // `int idx = y * pitch + x;`, read only as the index of loads.
      if (!Local || !Local->hasLocalStorage() || isa<ParmVarDecl>(Local) ||
          isModified(Local, Body))
        return "the element's code reads '" + V->getName().str() + "' other than in the index "
               "of a load";
      if (is_contained(R.IndexLocals, Local))
        continue;
      R.IndexLocals.push_back(Local);
      for (const DeclRefExpr *U : referencesTo(Local, Body)) {
        auto [LASE, Other] = Enclosing(U);
        if (!LASE || stripCasts(LASE->getIdx()) != U || !InBody(U))
          return "'" + Local->getName().str() + "' is read other than as the index of a load";
        if (std::string Why = AddUse(LASE, Local->getInit()); !Why.empty())
          return Why;
      }
    }
  if (P.Loads.empty())
    return "the element's code loads nothing at the column '" + R.Col->getName().str() + "'";
  return "";
}

/// Where the elements are visited: a grid-stride loop over x, or a guard
/// `if (i < n)` / `if (i >= n) return;` on i = blockIdx.x * blockDim.x +
/// threadIdx.x; the loads at the element's index; their types.
VecPlan planVector(const RuleInput &In, an::KernelModel &M, const an::Access &A,
                   const CompoundStmt *Body, const EditCollector &C,
                   const std::vector<const IfStmt *> &Exits) {
  ASTContext &Ctx = In.Ctx;
  const an::AtomTable &Tab = M.atoms();
  VecPlan P;
  const VarDecl *IV = nullptr;
  const Expr *BoundE = nullptr;
  const Stmt *Drop = nullptr; // a while loop's increment
  const Stmt *Region = nullptr; // the first statement replaced
  auto Lt = [&](const Expr *Cond, bool Exit) -> std::pair<const VarDecl *, const Expr *> {
    const auto *BO = dyn_cast_or_null<BinaryOperator>(Cond ? Cond->IgnoreParenImpCasts() : nullptr);
    if (!BO)
      return {nullptr, nullptr};
    BinaryOperatorKind Op = BO->getOpcode();
    if (Op == (Exit ? BO_GE : BO_LT))
      return {asVar(BO->getLHS()), BO->getRHS()};
    if (Op == (Exit ? BO_LE : BO_GT))
      return {asVar(BO->getRHS()), BO->getLHS()};
    return {nullptr, nullptr};
  };
  // `x < w && y < h` (as an exit, `x >= w || y >= h`) on the column and
  // the row of a 2D grid.
  const VarDecl *Row = nullptr;
  const Expr *RowBoundE = nullptr;
  auto Pair = [&](const Expr *Cond, bool Exit) {
    const auto *BO = dyn_cast_or_null<BinaryOperator>(Cond ? Cond->IgnoreParenImpCasts() : nullptr);
    if (!BO || BO->getOpcode() != (Exit ? BO_LOr : BO_LAnd))
      return;
    auto [V1, B1] = Lt(BO->getLHS(), Exit);
    auto [V2, B2] = Lt(BO->getRHS(), Exit);
    char D1 = 0, D2 = 0;
    if (!V1 || !V2 || !V1->getInit() || !V2->getInit() ||
        !isGlobalIndex(V1->getInit()->IgnoreParenImpCasts(), &D1) ||
        !isGlobalIndex(V2->getInit()->IgnoreParenImpCasts(), &D2))
      return;
    if (D1 == 'y') {
      std::swap(V1, V2), std::swap(B1, B2);
      std::swap(D1, D2);
    }
    if (D1 == 'x' && D2 == 'y')
      IV = V1, BoundE = B1, Row = V2, RowBoundE = B2;
  };
  auto Range = [&](const Stmt *S) { return C.rangeOfStatement(S); };
  if (A.Loops.size() == 1) {
    const an::Loop &L = M.Loops[A.Loops.front()];
    auto Bx = Tab.findBuiltin("blockIdx", 'x'), Dx = Tab.findBuiltin("blockDim", 'x'),
         Tx = Tab.findBuiltin("threadIdx", 'x');
    if (L.StepK != an::StepKind::GridStride || !L.Start || !Bx || !Dx || !Tx ||
        !(*L.Start == an::IndexForm::atom(*Bx) * an::IndexForm::atom(*Dx) +
                          an::IndexForm::atom(*Tx)))
      return noVector(formatv("the loop at line {0} is not a grid-stride loop over x from "
                              "blockIdx.x * blockDim.x + threadIdx.x",
                              L.Loc.Line)
                          .str());
    if (L.HasEarlyExit || L.HasSync || !L.ExtraCondText.empty())
      return noVector(formatv("the grid-stride loop at line {0} has an early exit, a barrier "
                              "or a compound condition",
                              L.Loc.Line)
                          .str());
    const Stmt *LBody = nullptr;
    const Expr *Cond = nullptr;
    if (const auto *F = dyn_cast_or_null<ForStmt>(L.S))
      LBody = F->getBody(), Cond = F->getCond();
    else if (const auto *W = dyn_cast_or_null<WhileStmt>(L.S)) {
      LBody = W->getBody(), Cond = W->getCond();
      const auto *CS = dyn_cast<CompoundStmt>(LBody);
      if (!CS || CS->body_empty())
        return noVector("the while loop's body does not end with its increment");
      Drop = CS->body_back();
    }
    auto [V, Bd] = Lt(Cond, false);
    if (!LBody || !V || V != L.IV)
      return noVector(formatv("the exit test of the loop at line {0} is not '{1} < bound'",
                              L.Loc.Line, L.Var)
                          .str());
    IV = V, BoundE = Bd;
    if (Drop && (!references(Drop, IV) || isModified(IV, LBody, Drop)))
      return noVector("the while loop's index is assigned other than by its last statement");
    if (!Drop && isModified(IV, LBody))
      return noVector("the loop's body assigns its index");
    auto R = Range(L.S), BR = Range(LBody);
    if (!R || !BR)
      return noVector("the loop is written through a macro");
    P.RB = R->first, P.RE = R->second, P.BB = BR->first, P.BE = BR->second;
    P.WasLoop = true;
    Region = L.S;
    P.Form = formatv("the grid-stride loop at line {0}", L.Loc.Line).str();
  } else if (A.Loops.empty()) {
    // `if (i < n) S` or `if (i >= n) return;` at the top of the body.
    const Stmt *First = nullptr, *Last = nullptr;
    for (const Stmt *S : Body->body()) {
      if (!isWithin(A.E, S))
        continue;
      const auto *If = dyn_cast<IfStmt>(S);
      if (If && !If->getElse() && !If->getInit() && !If->getConditionVariable()) {
        std::tie(IV, BoundE) = Lt(If->getCond(), false);
        if (!IV)
          Pair(If->getCond(), false);
        First = Last = If;
        if (auto R = Range(If->getThen()))
          P.BB = R->first, P.BE = R->second;
      }
    }
    if (!IV && Exits.size() == 1) {
      std::tie(IV, BoundE) = Lt(Exits.front()->getCond(), true);
      if (!IV)
        Pair(Exits.front()->getCond(), true);
      First = Exits.front(), Last = Body->body_back();
      auto R1 = Range(First), R2 = Range(Last);
      if (R1 && R2)
        P.BB = R1->second, P.BE = R2->second;
    }
    auto Index = [&](const VarDecl *V) {
      return V && V->hasLocalStorage() && !isa<ParmVarDecl>(V) && V->getInit() &&
             isGlobalIndex(V->getInit()->IgnoreParenImpCasts()) && !isModified(V, Body);
    };
    if (!Index(IV) || (Row && !Index(Row)))
      return noVector("the atomic is neither in a grid-stride loop nor under a guard 'i < n' "
                      "(or an exit 'if (i >= n) return;') on i = blockIdx.x * blockDim.x + "
                      "threadIdx.x, nor under 'x < w && y < h' on the column and the row of a "
                      "2D grid");
    auto R1 = Range(First), R2 = Range(Last);
    if (!R1 || !R2 || P.BE <= P.BB)
      return noVector("the guard is written through a macro");
    P.RB = R1->first, P.RE = R2->second;
    const Expr *Guard = First == Last ? cast<IfStmt>(First)->getCond() : Exits.front()->getCond();
    auto AO = C.offsetOf(A.E->getBeginLoc());
    if (!AO || *AO < P.BB || *AO >= P.BE)
      return noVector("the atomic is not in the code the guard '" + textOf(Guard, Ctx) +
                      "' protects");
    // `int idx = y * w + x;` before the guard, read only inside it, is
    // computed there instead (its initialiser is free of side effects and
    // reads nothing assigned in the kernel).
    RowPlan Rows;
    if (Row)
      for (const Stmt *S : Body->body()) {
        if (S == First)
          break;
        const auto *DS = dyn_cast<DeclStmt>(S);
        const auto *V = DS && DS->isSingleDecl() ? dyn_cast<VarDecl>(DS->getSingleDecl()) : nullptr;
        if (!V || V == IV || V == Row || !V->hasLocalStorage() || !V->getInit() ||
            !V->getType()->isIntegerType() || isModified(V, Body) ||
            V->getInit()->HasSideEffects(Ctx) ||
            (!references(V->getInit(), IV) && !references(V->getInit(), Row)))
          continue;
        bool Inside = true;
        for (const DeclRefExpr *D : referencesTo(V, Body)) {
          auto O = C.offsetOf(D->getLocation());
          Inside &= O && *O >= P.BB && *O < P.BE;
        }
        if (Inside && !readsAssigned(V->getInit(), Body))
          Rows.Hoisted.push_back(V);
      }
    // i elsewhere would see other values.
    for (const VarDecl *V : {IV, Row})
      for (const DeclRefExpr *D : V ? referencesTo(V, Body) : std::vector<const DeclRefExpr *>())
        if (auto O = C.offsetOf(D->getLocation()); (!O || *O < P.BB || *O >= P.BE) &&
                                                   !isWithin(D, Guard) && !Rows.hoisted(D))
          return noVector("'" + V->getName().str() + "' is read outside the element's code");
    Region = First;
    // Threads or blocks beyond the guard's dimensions repeat its elements in
    // the original; the loop visits each once.
    for (const char *D : {"grid.y", "grid.z"}) {
      auto It = In.Request.Geometry.find(D);
      if (It != In.Request.Geometry.end() && It->second != "1" && !(Row && D[5] == 'y'))
        return noVector(Row ? "the grid has more than one layer of blocks; a guard on x and y "
                              "alone does not say which blocks count"
                            : "the grid has more than one row of blocks; a guard on x alone "
                              "does not say which blocks count");
    }
    if (Row) {
      if (!In.Request.Block || (*In.Request.Block)[2] != 1)
        return noVector("the block's z extent is not known to be 1; threads of other layers "
                        "would repeat the guard's elements");
      P.Rows.emplace(std::move(Rows));
      P.Rows->Col = IV, P.Rows->Row = Row;
    }
    P.Form = "the guard '" + textOf(Guard, Ctx) +
             "' at line " + std::to_string(fileLineOf(Ctx, First->getBeginLoc()));
    // The loop visits every element the guard admits: the original grid
    // must have held them all (checked against the spec when there is one).
    std::vector<BlockBound> Dims;
    for (char D : StringRef(Row ? "xy" : "x"))
      for (const an::GuardTerm &T : A.G.Terms)
        if (auto B = blockBoundOf(T, D, Tab)) {
          Dims.push_back(*B);
          break;
        }
    if (std::string Why = checkBlockCoverage(In, Tab, Dims); !Why.empty())
      return noVector(Why);
  } else {
    return noVector("the atomic is inside nested loops");
  }
  // The bounds every thread shares.
  std::vector<const VarDecl *> IVs{IV};
  if (Row)
    IVs.push_back(Row);
  for (const Expr *E : {BoundE, RowBoundE}) {
    if (E == RowBoundE && !Row)
      continue;
    if (!E || !threadVarying(E, Body, IVs, Region->getBeginLoc(), Ctx).empty() ||
        evaluateInt(E, Ctx).value_or(0) < 0)
      return noVector("the loop's bound is not the same for every thread");
    if (readsAssigned(E, Body))
      return noVector("the loop's bound '" + textOf(E, Ctx) + "' is assigned in the kernel");
  }
  P.BoundText = textOf(BoundE, Ctx);
  if (Row)
    P.Rows->RowBoundText = textOf(RowBoundE, Ctx);
  for (const VarDecl *V : IVs) {
    // The index's value after the code replaced, or before it, would change.
    for (const DeclRefExpr *D : referencesTo(V, Body)) {
      auto O = C.offsetOf(D->getLocation());
      if ((!O || *O < P.RB || *O >= P.RE) && !(P.Rows && P.Rows->hoisted(D)))
        return noVector("'" + V->getName().str() + "' is read outside " + P.Form);
    }
    // Its declaration, when it declares nothing else, goes.
    for (const Stmt *S : Body->body())
      if (const auto *D = dyn_cast<DeclStmt>(S); D && D->isSingleDecl() && D->getSingleDecl() == V)
        if (auto R = Range(D); R && R->second <= P.RB)
          P.Erase.push_back(*R);
  }

  if (Row) {
    if (std::string Why = collectRowLoads(In, M, Body, C, Region->getBeginLoc(), P); !Why.empty())
      return noVector(Why);
    // The index locals' declarations leave the element's code.
    for (const VarDecl *L : P.Rows->IndexLocals) {
      const DeclStmt *DS = nullptr;
      for (const DynTypedNode &N : Ctx.getParents(*L))
        DS = N.get<DeclStmt>();
      auto R = DS && DS->isSingleDecl() ? Range(DS) : std::nullopt;
      if (R && is_contained(P.Rows->Hoisted, L) && R->second <= P.RB) {
        P.Erase.push_back(*R);
        IVs.push_back(L);
        continue;
      }
      if (!R || R->first < P.BB || R->second > P.BE)
        return noVector("'" + L->getName().str() + "' is declared with other variables");
      auto E = eraseWithLine(In.Source, R->first, R->second);
      P.Repl.push_back({E.Offset, E.Length, E.Text});
      IVs.push_back(L);
    }
  }
  // Every read of the index is the index of a load of a pointer parameter.
  for (const DeclRefExpr *D : Row ? std::vector<const DeclRefExpr *>() : referencesTo(IV, Body)) {
    auto O = C.offsetOf(D->getLocation());
    if (!O || *O < P.BB || *O >= P.BE || (Drop && isWithin(D, Drop)))
      continue;
    const ArraySubscriptExpr *ASE = nullptr;
    const Stmt *Cur = D;
    for (int Up = 0; Up < 4 && !ASE; ++Up) {
      auto Ps = Ctx.getParents(*Cur);
      if (Ps.empty())
        break;
      if (const auto *X = Ps[0].get<ArraySubscriptExpr>())
        ASE = X;
      else if (const auto *X = Ps[0].get<Expr>(); X && (isa<ImplicitCastExpr>(X) ||
                                                         isa<ParenExpr>(X)))
        Cur = X;
      else
        break;
    }
    const ParmVarDecl *Ptr = ASE ? readParam(ASE, In, Body) : nullptr;
    if (!ASE || stripCasts(ASE->getIdx()) != D || !Ptr)
      return noVector("the element's code reads '" + IV->getName().str() +
                      "' other than as the index of a load 'p[" + IV->getName().str() +
                      "]' of a pointer parameter ('" +
                      textOf(ASE ? static_cast<const Stmt *>(ASE) : D, Ctx) + "')");
    std::string Why;
    std::optional<unsigned> Which = loadOf(P, Ptr, ASE, Ctx, Why);
    if (!Which)
      return noVector(Why);
    P.Uses.push_back({ASE, *Which});
  }
  if (P.Loads.empty())
    return noVector("the element's code loads nothing at '" + IV->getName().str() + "'");
  // Even 4-byte elements gain: one load per thread per iteration keeps a
  // word per thread in flight, which left the naive float histogram at 54 %
  // of the DRAM roofline (docs/bench/naive-h200.md); 16 bytes keep four.
  int64_t Narrow = 4;
  for (const VecLoad &L : P.Loads)
    Narrow = std::min(Narrow, L.Size);
  std::stable_sort(P.Loads.begin(), P.Loads.end(), [](const VecLoad &X, const VecLoad &Y) {
    return X.Size < Y.Size;
  });
  for (auto &[U, W] : P.Uses)
    for (unsigned I = 0; I < P.Loads.size(); ++I)
      if (P.Loads[I].P == asParam(U->getBase(), In.Kernel))
        W = I;
  P.K = 16 / Narrow;
  // The element's code: no other access, nothing that differs by thread.
  for (const an::Access &O : M.Accesses) {
    auto Off = O.E ? C.offsetOf(O.E->getBeginLoc()) : std::nullopt;
    bool In = Off && *Off >= P.BB && *Off < P.BE;
    if (In && O.Id != A.Id && O.Kind != an::AccessKind::Load)
      return noVector("the element's code also writes '" + O.Text + "' (line " +
                      std::to_string(O.Loc.Line) + ")");
  }
  for (const Stmt *S : Body->body()) {
    auto R = Range(S);
    if (!R || R->second <= P.BB || R->first >= P.BE)
      continue;
    std::function<std::string(const Stmt *)> Scan = [&](const Stmt *X) -> std::string {
      auto O = C.offsetOf(X->getBeginLoc());
      if (O && *O >= P.BB && *O < P.BE && !(Drop && isWithin(X, Drop)))
        return threadVarying(X, Body, IVs, Region->getBeginLoc(), Ctx);
      for (const Stmt *Ch : X->children())
        if (Ch)
          if (std::string W = Scan(Ch); !W.empty())
            return W;
      return "";
    };
    if (std::string W = Scan(S); !W.empty())
      return noVector("the element's code reads '" + W +
                      "', which differs between threads; the 16-byte path gives each thread "
                      "other elements");
  }
  // Locals only the dropped increment reads ('step') go too.
  if (Drop)
    for (const Stmt *S : Body->body())
      if (const auto *D = dyn_cast<DeclStmt>(S); D && D->isSingleDecl())
        if (const auto *V = dyn_cast<VarDecl>(D->getSingleDecl());
            V && V != IV && V->getInit() && !V->getInit()->HasSideEffects(Ctx, /*IncludePossibleEffects=*/false)) {
          auto Refs = referencesTo(V, Body);
          auto R = Range(D);
          if (R && R->second <= P.RB && !Refs.empty() &&
              all_of(Refs, [&](const DeclRefExpr *X) { return isWithin(X, Drop); }))
            P.Erase.push_back(*R);
        }
  if (Drop)
    if (auto R = Range(Drop)) {
      // With its line when nothing else is on it.
      StringRef Src = In.Source;
      unsigned B = lineStart(Src, R->first), E = R->second;
      size_t NL = Src.find('\n', E);
      if (Src.substr(B, R->first - B).trim().empty() && NL != StringRef::npos &&
          Src.substr(E, NL - E).trim().empty())
        P.Repl.push_back({B, unsigned(NL + 1) - B, ""});
      else
        P.Repl.push_back({R->first, R->second - R->first, ""});
    }
  return P;
}

/// Why the counting into bins already in shared memory is rewritten, and
/// its preconditions in the model's terms.
std::string sharedRationale(const SharedBins &S, const an::Access &A, StringRef Idx,
                            StringRef Bins, StringRef How, StringRef TS) {
  std::string Name = S.Array->getName().str();
  return formatv("The kernel counts into its own shared bins '{0}', one shared {1} per element. "
                 "The lanes of a warp whose keys meet in one bin are serialised, and keys that "
                 "differ by a multiple of 32 bins meet in one bank, so the counting, not the "
                 "memory, bounds the kernel.\nPreconditions (kernel model): '{0}' is a __shared__ "
                 "array of {2} '{3}' set to 0 before the barrier at line {4} and read after the "
                 "barrier at line {5} by the flush '{6}', which reaches every bin once; between "
                 "the barriers only '{7}' (line {8}) touches it, an integer add whose value is "
                 "unused, at the index '{9}', in [0, {10}) by {11}; no 'return' skips the "
                 "barriers.\nThe result is exact: integer adds are associative and commutative.",
                 Name, A.Callee, S.Size, TS, S.OpenLine, S.CloseLine, S.Flush, A.Text,
                 A.Loc.Line, Idx, Bins, How)
      .str();
}

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
  // Or bins the kernel already keeps in a __shared__ array (SharedBins.h):
  // only the counting between its barriers is rewritten.
  std::optional<SharedBins> Shared;
  if (Hist.empty()) {
    SharedBins SB = findSharedBins(In, M, Body);
    if (!SB.Found)
      return notApplicable("the model finds no histogram (no global atomic at a data-dependent "
                           "address, and no __shared__ array counted by atomics at "
                           "data-dependent addresses)");
    if (!SB.Why.empty())
      return notApplicable("the bins are in shared memory already ('" + SB.Count->Buffer +
                           "'), but " + SB.Why);
    Hist.push_back(SB.Count);
    Shared = std::move(SB);
  }
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
  if (!Call || (A.Wrapper.empty() && Call->getNumArgs() != 2) || (A.ParamIndex < 0 && !Shared))
    return notApplicable("'" + A.Text + "' is not an atomic on an element of a pointer parameter");
  // The bins: a pointer parameter, or the shared array.
  const ParmVarDecl *BinsP = Shared ? nullptr : In.Kernel.getParamDecl(unsigned(A.ParamIndex));
  const VarDecl *BinsD = Shared ? Shared->Array : BinsP;
  std::string BinsName = BinsD->getName().str();

  // &bins[idx] or bins + idx, on the parameter itself.
  const Expr *Addr = A.addressArg()->IgnoreParenImpCasts();
  const Expr *Base = nullptr, *Idx = nullptr;
  const ArraySubscriptExpr *AddrSub = nullptr; // &bins[idx]; else bins + idx
  if (const auto *U = dyn_cast<UnaryOperator>(Addr); U && U->getOpcode() == UO_AddrOf) {
    if ((AddrSub = dyn_cast<ArraySubscriptExpr>(U->getSubExpr()->IgnoreParens())))
      Base = AddrSub->getBase(), Idx = AddrSub->getIdx();
  } else if (const auto *BO = dyn_cast<BinaryOperator>(Addr); BO && BO->getOpcode() == BO_Add) {
    Base = BO->getLHS(), Idx = BO->getRHS();
    if (!BO->getLHS()->getType()->isPointerType())
      std::swap(Base, Idx);
  }
  const DeclRefExpr *BaseRef =
      Base ? dyn_cast<DeclRefExpr>(Base->IgnoreParenImpCasts()) : nullptr;
  if (!BaseRef || BaseRef->getDecl() != BinsD)
    return notApplicable("the address of '" + A.Text + "' is not '&" + BinsName +
                         "[index]' on the " + (Shared ? "array" : "parameter") + " itself");
  if (BinsP && isModified(BinsP, Body))
    return notApplicable("the kernel assigns the pointer '" + BinsName + "'");
  for (const an::Access &O : M.Accesses)
    if (!Shared && O.Id != A.Id && O.Buffer == A.Buffer)
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
  if (Shared && !T->isIntegerType())
    return notApplicable("'" + A.Text + "' counts '" + TS + "'; only integer counts are summed "
                         "from lane copies");

  // The bins index is in [0, B).
  IndexBounds IB(Ctx, In.Kernel, Body, Call);
  std::optional<Bound> B = IB.of(Idx);
  std::string IdxText = textOf(Idx, Ctx);
  if (!B)
    return notApplicable("the bins index '" + IdxText + "' of '" + A.Text +
                         "' is not bounded (no unsigned narrow type, '% B', '& (B-1)', 'min(v, "
                         "B - 1)' or guard 'v < B' shows it is in [0, B))" +
                         IB.unbounded(Idx));
  if (Shared && !B->Const)
    return notApplicable("the bins index '" + IdxText + "' of '" + A.Text + "' is bounded by '" +
                         B->text() + "' (from " + B->How + "), a kernel parameter; lane copies "
                         "of '" + BinsName + "' need a constant number of bins");
  if (Shared && *B->Const > Shared->Size)
    return notApplicable(formatv("the bins index '{0}' of '{1}' is bounded by {2} ({3} bins), "
                                 "more than the {4} of '{5}'",
                                 IdxText, A.Text, B->How, *B->Const, Shared->Size, BinsName)
                             .str());
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
  if (Shared && !RF.Found.empty())
    return notApplicable(formatv("the 'return' at line {0} would skip the barriers around the "
                                 "counting into '{1}'",
                                 fileLineOf(Ctx, RF.Found.front()->getBeginLoc()), BinsName)
                             .str());
  for (const ReturnStmt *R : RF.Found)
    if (none_of(Exits, [&](const IfStmt *If) { return isWithin(R, If); }))
      return notApplicable(formatv("the 'return' at line {0} would skip the block's barriers "
                                   "(only 'if (c) return;' at the top of the kernel's body is "
                                   "rewritten into a guard)",
                                   fileLineOf(Ctx, R->getBeginLoc()))
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
                                     fileLineOf(Ctx, L->getBeginLoc()))
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

  EditCollector PC(In);
  // A histogram per block depends on which block counts which element:
  // the 16-byte loop hands the elements out anew.
  VecPlan Vec = Shared && !Shared->PerBlock.empty()
                    ? noVector("the flush '" + Shared->PerBlock + "' writes a histogram per "
                               "block, which depends on the elements each block counts, and "
                               "the 16-byte loop gives each block other elements")
                    : planVector(In, M, A, Body, PC, Exits);
  std::string KName = freshName("forge_k", In.Kernel, Taken);
  std::string EName = freshName("forge_e", In.Kernel, Taken);
  std::string VName = freshName("forge_v", In.Kernel, Taken);
  std::string QName = freshName("forge_q", In.Kernel, Taken);
  std::string IName = freshName("forge_i", In.Kernel, Taken);
  std::string GName = freshName("forge_g", In.Kernel, Taken);
  std::string SSName = freshName("forge_s", In.Kernel, Taken);
  std::string HName = freshName("forge_h", In.Kernel, Taken);
  std::string MName = freshName("forge_m", In.Kernel, Taken);
  std::string LName = freshName("forge_n", In.Kernel, Taken);
  // The rows' names (the 2D form of the 16-byte path).
  struct RowNames {
    std::string Rows, Steps, Block, DRow, DStep, Row, At, Ptr, Flat, Len;
  } RN;
  if (Vec.Rows)
    RN = {freshName("forge_rows", In.Kernel, Taken), freshName("forge_steps", In.Kernel, Taken),
          freshName("forge_bt", In.Kernel, Taken),   freshName("forge_dy", In.Kernel, Taken),
          freshName("forge_dk", In.Kernel, Taken),   freshName("forge_y", In.Kernel, Taken),
          freshName("forge_a", In.Kernel, Taken),    freshName("forge_p", In.Kernel, Taken),
          freshName("forge_f", In.Kernel, Taken),    freshName("forge_nn", In.Kernel, Taken)};

  // The atomic's address on the private copy: `bins` becomes the copy; with
  // lane copies ([bin][copy]) the address becomes &copy[index][lane copy].
  using Repls = std::vector<std::tuple<unsigned, unsigned, std::string>>;
  auto AddressEdits = [&](int64_t Copies) -> std::optional<Repls> {
    auto BR = PC.rangeOf(Base->getSourceRange());
    if (!BR)
      return std::nullopt;
    if (Shared && Copies == 1) // the kernel's own bins
      return Repls{};
    if (Copies == 1 || AddrSub) {
      Repls R{{BR->first, BR->second - BR->first, SName}};
      if (Copies > 1) {
        auto SR = PC.rangeOf(AddrSub->getSourceRange());
        if (!SR)
          return std::nullopt;
        R.push_back({SR->second, 0, "[" + WName + "]"});
      }
      return R;
    }
    auto IR = PC.rangeOf(Idx->getSourceRange());
    if (!IR)
      return std::nullopt;
    if (BR->second <= IR->first) // bins + index
      return Repls{{BR->first, IR->first - BR->first, "&" + SName + "["},
                   {IR->second, 0, "][" + WName + "]"}};
    return Repls{{IR->first, 0, "&" + SName + "["}, // index + bins
                 {IR->second, BR->second - IR->second, "][" + WName + "]"}};
  };

  // The element's code as a lambda of its loaded values, run on 16-byte
  // loads between a scalar head (up to the first 16-byte boundary) and a
  // scalar tail; any other alignment of the other buffers runs all scalar.
  auto VectorText = [&](const Repls &Address) -> std::string {
    const VecPlan &V = Vec;
    auto Repl = V.Repl;
    Repl.insert(Repl.end(), Address.begin(), Address.end());
    for (const auto &[U, W] : V.Uses)
      if (auto R = PC.rangeOf(U->getSourceRange()))
        Repl.push_back({R->first, R->second - R->first, VName + std::to_string(W)});
    std::string BodyText = spliced(In.Source, V.BB, V.BE, Repl);
    std::vector<std::string> Params;
    for (unsigned I = 0; I < V.Loads.size(); ++I)
      Params.push_back(V.Loads[I].TS + " " + VName + std::to_string(I));
    const VecLoad &L0 = V.Loads.front();
    std::vector<std::string> L;
    L.push_back("{");
    StringRef BT = StringRef(BodyText).rtrim();
    std::string Fn = BT.starts_with("{") ? BT.str() : "{" + BT.str() + (BT.contains('\n') ? "\n}" : " }");
    L.push_back(formatv("  auto {0} = [&]({1}) {2};", EName, join(Params, ", "),
                        indentFollowingLines(Fn, "  "))
                    .str());
    L.push_back(formatv("  const long long {0} = {1};", LName, V.BoundText).str());
    // The K elements of one 16-byte step: Load(I, Q) is the Q-th uint4 of
    // load I.
    auto Unpack = [&](StringRef Pad, function_ref<std::string(unsigned, int64_t)> Load) {
      for (unsigned I = 0; I < V.Loads.size(); ++I) {
        int64_t Per = V.K * V.Loads[I].Size / 16;
        for (int64_t Q = 0; Q < Per; ++Q)
          L.push_back(formatv("{0}const uint4 {1}{2}_{3} = {4};", Pad, QName, I, Q, Load(I, Q))
                          .str());
      }
      for (int64_t E = 0; E < V.K; ++E) {
        std::vector<std::string> Args;
        for (unsigned I = 0; I < V.Loads.size(); ++I) {
          const VecLoad &X = V.Loads[I];
          int64_t Byte = E * X.Size;
          std::string W =
              formatv("{0}{1}_{2}.{3}", QName, I, Byte / 16, "xyzw"[(Byte % 16) / 4]).str();
          int64_t Shift = (Byte % 4) * 8;
          if (X.Float)
            Args.push_back("__uint_as_float(" + W + ")");
          else if (Shift == 0)
            Args.push_back("(" + X.TS + ")" + W);
          else
            Args.push_back("(" + X.TS + ")(" + W + " >> " + std::to_string(Shift) + ")");
        }
        L.push_back(Pad.str() + EName + "(" + join(Args, ", ") + ");");
      }
    };
    // One range [0, Len) of every load (at Ptrs), over the threads of the
    // grid (GName, SSName): a scalar head up to the first load's 16-byte
    // boundary, the 16-byte steps (when every other load is aligned there
    // too), a scalar tail.
    auto FlatLoops = [&](StringRef Pad, ArrayRef<std::string> Ptrs, StringRef Len) {
      L.push_back(formatv("{0}long long {1} = (long long)((16 - ((unsigned long long){2} & 15)) & "
                          "15) / {3};",
                          Pad, HName, Ptrs[0], L0.Size)
                      .str());
      L.push_back(formatv("{0}{1} = {1} < {2} ? {1} : {2};", Pad, HName, Len).str());
      L.push_back(formatv("{0}long long {1} = ({2} - {3}) / {4};", Pad, MName, Len, HName, V.K).str());
      std::string Bad = MName + " < 0";
      for (unsigned I = 1; I < V.Loads.size(); ++I)
        Bad += formatv(" || ((unsigned long long)({0} + {1}) & 15) != 0", Ptrs[I], HName).str();
      L.push_back(Pad.str() + "if (" + Bad + ")");
      L.push_back(Pad.str() + "  " + MName + " = 0;");
      std::vector<std::string> Elems;
      for (unsigned I = 0; I < V.Loads.size(); ++I)
        Elems.push_back(Ptrs[I] + "[" + IName + "]");
      std::string Call = EName + "(" + join(Elems, ", ") + ");";
      L.push_back(formatv("{0}for (long long {1} = {2}; {1} < {3}; {1} += {4})", Pad, IName, GName,
                          HName, SSName)
                      .str());
      L.push_back(Pad.str() + "  " + Call);
      L.push_back(formatv("{0}for (long long {1} = {2}; {1} < {3}; {1} += {4}) {{", Pad, KName,
                          GName, MName, SSName)
                      .str());
      Unpack(Pad.str() + "  ", [&](unsigned I, int64_t Q) {
        int64_t Per = V.K * V.Loads[I].Size / 16;
        return formatv("reinterpret_cast<const uint4 *>({0} + {1})[{2}{3}]", Ptrs[I], HName,
                       Per == 1 ? KName : KName + " * " + std::to_string(Per),
                       Per == 1 ? "" : " + " + std::to_string(Q))
            .str();
      });
      L.push_back(Pad.str() + "}");
      L.push_back(formatv("{0}for (long long {1} = {2} + {3} * {4} + {5}; {1} < {6}; {1} += {7})",
                          Pad, IName, HName, MName, V.K, GName, Len, SSName)
                      .str());
      L.push_back(Pad.str() + "  " + Call);
    };
    if (V.Rows) {
      // The rows as (row, step) pairs: step 0 is the scalar head of the
      // row up to the first 16-byte boundary of the first load, each other
      // step K elements, in 16-byte loads where they lie within the row and
      // every load is aligned there, else scalar. The threads of the whole
      // grid stride over the pairs, row-major.
      const RowNames &N = RN;
      std::vector<std::string> Scalar;
      for (unsigned I = 0; I < V.Loads.size(); ++I)
        Scalar.push_back(N.Ptr + std::to_string(I) + "[" + IName + "]");
      std::string Call = EName + "(" + join(Scalar, ", ") + ");";
      L.push_back(formatv("  const long long {0} = {1};", N.Rows, V.Rows->RowBoundText).str());
      L.push_back(formatv("  const long long {0} = ({1} + {2} - 1) / {2} + 1;", N.Steps, LName,
                          V.K)
                      .str());
      L.push_back(formatv("  const long long {0} = (long long)blockDim.x * blockDim.y * blockDim.z;",
                          N.Block)
                      .str());
      L.push_back(formatv("  const long long {0} = ((long long)blockIdx.x + (long long)gridDim.x * "
                          "(blockIdx.y + (long long)gridDim.y * blockIdx.z)) * {1} + threadIdx.x + "
                          "blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);",
                          GName, N.Block)
                      .str());
      L.push_back(formatv("  const long long {0} = {1} * gridDim.x * gridDim.y * gridDim.z;", SSName,
                          N.Block)
                      .str());
      // Rows that follow each other without a gap (every load's pitch is
      // the row's length, as in an image without padding) are one range of
      // rows * n elements: read as the 1D path reads its range, without the
      // per-row bookkeeping.
      auto RowStart = [&](unsigned I, StringRef Row) {
        std::string Start = V.Loads[I].RowStart;
        for (size_t At; (At = Start.find("@ROW")) != std::string::npos;)
          Start.replace(At, 4, Row.str());
        return Start;
      };
      std::vector<std::string> Dense, FlatPtrs;
      for (unsigned I = 0; I < V.Loads.size(); ++I) {
        Dense.push_back(formatv("(long long)(({0}) - ({1})) == {2}", RowStart(I, "1"),
                                RowStart(I, "0"), LName)
                            .str());
        FlatPtrs.push_back(N.Flat + std::to_string(I));
      }
      L.push_back("  if (" + join(Dense, " && ") + ") {");
      L.push_back(formatv("    const long long {0} = {1} * {2};", N.Len, N.Rows, LName).str());
      for (unsigned I = 0; I < V.Loads.size(); ++I)
        L.push_back(formatv("    const {0} *{1} = {2} + ({3});", V.Loads[I].TS, FlatPtrs[I],
                            V.Loads[I].P->getName(), RowStart(I, "0"))
                        .str());
      FlatLoops("    ", FlatPtrs, N.Len);
      L.push_back("  } else {");
      size_t RowsFrom = L.size();
      L.push_back(formatv("  const long long {0} = {1} / {2}, {3} = {1} % {2};", N.DRow, SSName,
                          N.Steps, N.DStep)
                      .str());
      L.push_back(formatv("  for (long long {0} = {1} / {2}, {3} = {1} % {2}; {0} < {4};) {{", N.Row,
                          GName, N.Steps, KName, N.Rows)
                      .str());
      for (unsigned I = 0; I < V.Loads.size(); ++I)
        L.push_back(formatv("    const {0} *{1}{2} = {3} + ({4});", V.Loads[I].TS, N.Ptr, I,
                            V.Loads[I].P->getName(), RowStart(I, N.Row))
                        .str());
      L.push_back(formatv("    long long {0} = (long long)((16 - ((unsigned long long){1}0 & 15)) & "
                          "15) / {2};",
                          HName, N.Ptr, V.Loads.front().Size)
                      .str());
      L.push_back(formatv("    {0} = {0} < {1} ? {0} : {1};", HName, LName).str());
      L.push_back(formatv("    const long long {0} = {1} + ({2} - 1) * {3};", N.At, HName, KName,
                          V.K)
                      .str());
      L.push_back(formatv("    if ({0} == 0) {{", KName).str());
      L.push_back(formatv("      for (long long {0} = 0; {0} < {1}; ++{0})", IName, HName).str());
      L.push_back("        " + Call);
      std::string Fits = formatv("{0} + {1} <= {2}", N.At, V.K, LName).str();
      for (unsigned I = 1; I < V.Loads.size(); ++I)
        Fits += formatv(" && ((unsigned long long)({0}{1} + {2}) & 15) == 0", N.Ptr, I, N.At).str();
      L.push_back("    } else if (" + Fits + ") {");
      Unpack("      ", [&](unsigned I, int64_t Q) {
        return formatv("reinterpret_cast<const uint4 *>({0}{1} + {2})[{3}]", N.Ptr, I, N.At, Q)
            .str();
      });
      L.push_back("    } else {");
      L.push_back(formatv("      for (long long {0} = {1}; {0} < {2} && {0} < {1} + {3}; ++{0})",
                          IName, N.At, LName, V.K)
                      .str());
      L.push_back("        " + Call);
      L.push_back("    }");
      L.push_back(formatv("    {0} += {1};", KName, N.DStep).str());
      L.push_back(formatv("    {0} += {1};", N.Row, N.DRow).str());
      L.push_back(formatv("    if ({0} >= {1}) {{", KName, N.Steps).str());
      L.push_back(formatv("      {0} -= {1};", KName, N.Steps).str());
      L.push_back(formatv("      ++{0};", N.Row).str());
      L.push_back("    }");
      L.push_back("  }");
      for (size_t I = RowsFrom; I < L.size(); ++I)
        L[I] = "  " + L[I];
      L.push_back("  }");
      L.push_back("}");
      return indentLines(L, lineIndent(In.Source, V.RB));
    }
    L.push_back(formatv("  const long long {0} = (long long)blockIdx.x * blockDim.x + threadIdx.x;",
                        GName)
                    .str());
    L.push_back(formatv("  const long long {0} = (long long)blockDim.x * gridDim.x;", SSName).str());
    std::vector<std::string> Ptrs;
    for (const VecLoad &X : V.Loads)
      Ptrs.push_back(X.P->getName().str());
    FlatLoops("  ", Ptrs, LName);
    L.push_back("}");
    return indentLines(L, lineIndent(In.Source, V.RB));
  };

  // Without a grid-stride loop: the virtual blocks (VirtualBlocks.h) that
  // the guard admits, each block running the body for many of them, so
  // that it flushes once for many; filled below, after the grid analysis.
  std::vector<BlockBound> Virtual;
  std::string VirtualWhy;
  std::map<char, std::string> VBName;
  BuiltinUses Builtins = collectBuiltinUses(Body, PC);
  std::string FnName = freshName("forge_block", In.Kernel, Taken);

  // The private copy: its declaration, zeroing and the lane's copy, up to
  // the barrier.
  auto Prologue = [&](int64_t Copies) {
    std::vector<std::string> Pro;
    if (SharedBytes)
      Pro.push_back("extern __shared__ " + TS + " " + SName + "[];");
    else if (Copies > 1)
      Pro.push_back(formatv("__shared__ {0} {1}[{2}][{3}];", TS, SName, BText, Copies).str());
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
    if (Copies > 1) // the lane's copy (Copies divides 32)
      Pro.push_back(formatv("const int {0} = {1} % {2};", WName, TName, Copies).str());
    Pro.push_back("__syncthreads();");
    return Pro;
  };
  // After the barrier, each thread combines the copies of its strided share
  // of the bins and hands each total on: one global atomic per bin that is
  // not the identity, or, for bins already in shared memory, an addition to
  // the kernel's own bin, which its flush then reads.
  auto FlushLines = [&](int64_t Copies) {
    std::vector<std::string> Epi;
    Epi.push_back("__syncthreads();");
    Epi.push_back(formatv("for (int {0} = {1}; {0} < {2}; {0} += {3}) {{", JName, TName, BLoop,
                          NName)
                      .str());
    if (Copies > 1) {
      // Lane copies rotated by the bin, so that a warp's reads of one round
      // fall in distinct banks.
      Epi.push_back(formatv("  {0} @C = {1}[{2}][{2} % {3}];", TS, SName, JName, Copies).str());
      Epi.push_back(formatv("  for (int @R = 1; @R < {0}; ++@R)", Copies).str());
      std::string Other = formatv("{0}[{1}][({1} + @R) % {2}]", SName, JName, Copies).str();
      Epi.push_back(Op->Infix ? formatv("    @C = @C {0} {1};", Op->Combine, Other).str()
                              : formatv("    @C = {0}(@C, {1});", Op->Combine, Other)
                                    .str());
    } else {
      Epi.push_back(formatv("  {0} @C = {1}[{2}];", TS, SName, JName).str());
    }
    if (Shared) {
      Epi.push_back(formatv("  {0}[{1}] += @C;", BinsName, JName).str());
    } else {
      Epi.push_back(formatv("  if (@C != {0})", Ident).str());
      Epi.push_back(formatv("    {0}(&{1}[{2}], @C);", Flush, BinsName, JName).str());
    }
    Epi.push_back("}");
    for (std::string &L : Epi) {
      for (size_t P; (P = L.find("@C")) != std::string::npos;)
        L.replace(P, 2, CName);
      for (size_t P; (P = L.find("@R")) != std::string::npos;)
        L.replace(P, 2, RName);
    }
    return Epi;
  };
  // Bins already in shared memory: only the counting statement changes. The
  // lane copies are zeroed before it and summed into the kernel's bins after
  // it, each between barriers of their own, so the kernel's zeroing, its
  // barriers and its flush stay as written; with one copy the counting goes
  // on into the kernel's bins, in 16-byte loads.
  auto MakeShared = [&](int64_t Copies, bool Vector) -> std::optional<std::vector<SourceEdit>> {
    EditCollector C(In);
    auto CR = C.rangeOfStatement(Shared->CountStmt);
    std::optional<Repls> Address = AddressEdits(Copies);
    if (!CR || !Address)
      return std::nullopt;
    Repls Inner = *Address;
    if (Vector) {
      if (Vec.RB < CR->first || Vec.RE > CR->second)
        return std::nullopt;
      Inner = {{Vec.RB, Vec.RE - Vec.RB, VectorText(*Address)}};
      for (const auto &[EB, EE] : Vec.Erase)
        C.add(eraseWithLine(In.Source, EB, EE));
    }
    std::string Text = spliced(In.Source, CR->first, CR->second, Inner);
    if (Copies > 1) {
      StringRef Pad = lineIndent(In.Source, CR->first);
      Text = indentLines(Prologue(Copies), Pad) + "\n" + Pad.str() + Text + "\n" + Pad.str() +
             indentLines(FlushLines(Copies), Pad);
    }
    C.add({CR->first, CR->second - CR->first, Text});
    if (C.failed())
      return std::nullopt;
    return C.edits();
  };

  auto Make = [&](int64_t Copies, bool Vector) -> std::optional<std::vector<SourceEdit>> {
    if (Shared)
      return MakeShared(Copies, Vector);
    bool Virt = !Vector && !Virtual.empty();
    EditCollector C(In);
    std::vector<std::string> Pro = Prologue(Copies);
    auto LB = C.offsetOf(Body->getLBracLoc());
    auto RB = C.offsetOf(Body->getRBracLoc());
    if (!LB || !RB)
      return std::nullopt;
    if (!Virt)
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
    std::optional<Repls> Address = AddressEdits(Copies);
    if (!Address)
      return std::nullopt;
    if (Vector) {
      C.add({Vec.RB, Vec.RE - Vec.RB, VectorText(*Address)});
      for (const auto &[EB, EE] : Vec.Erase)
        C.add(eraseWithLine(In.Source, EB, EE));
    } else if (Virt) {
      // blockIdx becomes the virtual block's index.
      for (const BuiltinUse &U : Builtins.Uses)
        if (U.Var == "blockIdx" && VBName.count(U.Dim) && U.Range)
          Address->push_back({U.Range->first, U.Range->second - U.Range->first, VBName[U.Dim]});
    } else {
      for (auto &[O, L, T] : *Address)
        C.add({O, L, T});
    }
    // Early returns become guards around the rest.
    size_t Guards = 0;
    for (const IfStmt *If : Virt ? std::vector<const IfStmt *>() : Exits) {
      auto R = C.rangeOfStatement(If);
      if (!R)
        return std::nullopt;
      if (Vector && R->first >= Vec.RB && R->second <= Vec.RE)
        continue; // the vector loop has the exit as its bound
      ++Guards;
      C.add({R->first, R->second - R->first,
             "if (!(" + textOf(If->getCond(), Ctx) + ")) {"});
    }
    std::vector<std::string> Epi;
    std::string Close;
    for (size_t I = 0; I < Guards; ++I)
      Close += "}";
    if (!Close.empty())
      Epi.push_back(Close);
    for (std::string &L : FlushLines(Copies))
      Epi.push_back(std::move(L));
    if (Virt) {
      // The body as a function of the virtual block, run for the blocks the
      // guard admits; a 'return' in it ends that block's part.
      std::vector<std::string> Params, Lines = Pro;
      for (const BlockBound &VB : Virtual)
        Params.push_back("unsigned " + VBName[VB.Dim]);
      Lines.push_back("// The original body, for one block of the original grid.");
      Lines.push_back("auto " + FnName + " = [&](" + join(Params, ", ") + ") {");
      std::string Statements = spliced(In.Source, *LB + 1, *RB, *Address);
      SmallVector<StringRef, 32> BodyLines;
      StringRef(Statements).trim("\n").rtrim().split(BodyLines, '\n');
      for (StringRef L : BodyLines) {
        // The first statement may share the brace's line.
        L = L.starts_with(Indent) ? L.drop_front(Indent.size()) : L.ltrim();
        Lines.push_back(L.trim().empty() ? "" : "  " + L.str());
      }
      Lines.push_back("};");
      // The loop's names are fresh in each proposal.
      std::set<std::string> LoopTaken = Taken;
      std::string Loop = virtualLoopText(
          Virtual, FnName,
          [&](StringRef N) { return freshName("forge_" + N.str(), In.Kernel, LoopTaken); }, 1, "");
      for (StringRef L : split(StringRef(Loop).rtrim(), '\n'))
        Lines.push_back(L.str());
      Lines.insert(Lines.end(), Epi.begin(), Epi.end());
      StringRef BraceIndent = lineIndent(In.Source, *RB);
      bool OwnLine = lineStart(In.Source, *RB) + BraceIndent.size() == *RB;
      C.add({*LB + 1, *RB - (*LB + 1),
             "\n" + Indent.str() + indentLines(Lines, Indent) + "\n" +
                 (OwnLine ? BraceIndent.str() : "")});
      if (C.failed())
        return std::nullopt;
      return C.edits();
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
  std::string GridNote;
  const an::AtomTable &Tab = M.atoms();
  const an::Loop *GS = A.Loops.empty() ? nullptr : &M.Loops[A.Loops.front()];
  auto Bx = Tab.findBuiltin("blockIdx", 'x'), Dx = Tab.findBuiltin("blockDim", 'x'),
       Tx = Tab.findBuiltin("threadIdx", 'x');
  bool GridFree = GS && GS->StepK == an::StepKind::GridStride && GS->Start && Bx && Dx && Tx &&
                  *GS->Start == an::IndexForm::atom(*Bx) * an::IndexForm::atom(*Dx) +
                                    an::IndexForm::atom(*Tx);
  // Outside the loop, the bins' own zeroing and flush may be: a flush that
  // adds into one global histogram does not care which block counted.
  auto OwnBins = [&](const an::Access &O) {
    return Shared && Shared->PerBlock.empty() &&
           (O.Base == Shared->Array ||
            (O.Space == an::MemorySpace::Global && O.Kind == an::AccessKind::Atomic &&
             O.Atomic == an::AtomicOp::Add));
  };
  if (GridFree)
    for (const an::Access &O : M.Accesses)
      if ((O.Loops.empty() || O.Loops.front() != A.Loops.front()) && !OwnBins(O))
        GridFree = false;
  for (const char *D : {"grid.y", "grid.z"}) {
    auto It = In.Request.Geometry.find(D);
    if (It != In.Request.Geometry.end() && It->second != "1")
      GridFree = false;
  }
  if (Shared && !GridFree) {
    VirtualWhy = "the kernel zeroes and flushes its own bins '" + BinsName + "' per block";
  } else if (!GridFree) {
    std::vector<const an::Guard *> Writes;
    for (const an::Access &O : M.Accesses)
      if (O.Id != A.Id && O.writes())
        Writes.push_back(&O.G);
    // The bins index may read blockIdx: the body keeps it, with the virtual
    // block's index.
    VirtualBlocks VB = findVirtualBlocks(Builtins, A.G, Tab, nullptr, Writes);
    VirtualWhy = VB.Why;
    if (const DeclRefExpr *W = Builtins.wholeVariable())
      VirtualWhy = "'" + W->getDecl()->getNameAsString() + "' is used as a whole (line " +
                   std::to_string(fileLineOf(Ctx, W->getBeginLoc())) + ")";
    else if (std::string Why = checkBlockCoverage(In, Tab, VB.Dims); !Why.empty())
      VirtualWhy = Why;
    else
      Virtual = std::move(VB.Dims);
    for (const BlockBound &VB : Virtual)
      VBName[VB.Dim] = freshName(std::string("forge_b") + VB.Dim, In.Kernel, Taken);
  }
  // The vector path's grid: a guard turned into a grid-stride loop may be
  // capped too when every access of the kernel is in it.
  bool VFree = GridFree;
  if (Vec.Why.empty() && !Vec.WasLoop) {
    VFree = true;
    for (const an::Access &O : M.Accesses) {
      auto Off = O.E ? PC.offsetOf(O.E->getBeginLoc()) : std::nullopt;
      VFree &= (Off && *Off >= Vec.RB && *Off < Vec.RE) || OwnBins(O);
    }
  }
  // The spec change of a variant: the capped grid, whose blocks per SM count
  // the variant's shared memory (copies x bins), and a parameter B's bytes.
  auto SpecFor = [&](int64_t Copies, bool Vector) -> std::optional<agent::SpecChange> {
    std::optional<agent::SpecChange> S;
    int64_t Smem = B->Const ? Copies * *B->Const * Bytes : 0;
    if (Shared) // the kernel's own shared memory, and no copy of one
      Smem = (Copies > 1 ? Smem : 0) + Shared->StaticBytes;
    if (Vector && Vec.Rows) {
      // The rows' loop visits the guard's elements for any grid: one
      // dimension of blocks, capped.
      std::optional<WavesCap> Cap = VFree ? gridWavesCap(In, Smem) : std::nullopt;
      std::vector<BlockBound> XY(2);
      XY[1].Dim = 'y';
      std::string Note;
      if (auto G = Cap ? virtualGrid(In.Request, XY, Cap->Expr, Note) : std::nullopt) {
        S.emplace();
        S->Geometry = *G;
        if (!In.Request.Tunables.count("FORGE_GRID_WAVES"))
          S->NewTunables["FORGE_GRID_WAVES"] = gridWavesCandidates();
        S->Justification =
            formatv("the loop over the rows that replaces {0} visits every element for any "
                    "grid, so the grid may be one row of blocks capped at FORGE_GRID_WAVES waves "
                    "of {1} SMs x {2} blocks: fewer blocks, fewer flushes",
                    Vec.Form, Cap->SMs, Cap->BlocksPerSM)
                .str();
      }
    } else if (Vector ? VFree : GridFree)
      S = wavesCappedGrid(
          In,
          (Vector && !Vec.WasLoop ? "the grid-stride loop that replaces " + Vec.Form
                                  : formatv("the grid-stride loop at line {0}", GS->Loc.Line).str()) +
              " visits every element for any grid",
          Smem);
    else if (!Vector && !Virtual.empty())
      if (std::optional<WavesCap> Cap = gridWavesCap(In, Smem)) {
        std::string Note;
        if (auto G = virtualGrid(In.Request, Virtual, Cap->Expr, Note)) {
          S.emplace();
          S->Geometry = *G;
          if (!In.Request.Tunables.count("FORGE_GRID_WAVES"))
            S->NewTunables["FORGE_GRID_WAVES"] = gridWavesCandidates();
          S->Justification =
              formatv("every thread runs the original body for the blocks of the original grid "
                      "that the guard {0} admits, a grid stride apart, so any grid counts the "
                      "same elements; grid.{1} is capped at FORGE_GRID_WAVES waves of {2} SMs x "
                      "{3} blocks: fewer blocks, fewer flushes",
                      boundTerms(Virtual), Virtual.front().Dim, Cap->SMs, Cap->BlocksPerSM)
                  .str();
        }
      }
    // One wave first when the flush dominates: every block combines all the
    // counters of its copies at the end (the lane copies of 256 bins, 8192
    // counters: 79.7 us at one wave, 85.6 us at four on 2^28 bytes); with
    // few counters more blocks balance better (26 letter bins: 143.8 us at
    // four waves, 163.0 us at one). docs/passes/histogram-privatize.md.
    if (S && B->Const && Copies * *B->Const >= FlushHeavyCounters)
      if (auto It = S->NewTunables.find("FORGE_GRID_WAVES"); It != S->NewTunables.end())
        It->second = {1, 2, 4, 8, 16, 32};
    if (SharedBytes) {
      if (!S)
        S.emplace();
      S->Geometry["shared"] = *SharedBytes;
      S->Justification += std::string(S->Justification.empty() ? "" : "; ") +
                          "the private copy takes " + BText + " x " + std::to_string(Bytes) +
                          " B of dynamic shared memory";
    }
    return S;
  };
  std::optional<agent::SpecChange> Spec = SpecFor(1, false), VSpec = SpecFor(1, true);
  if (!Spec || (!Spec->Geometry.count("grid.x") && !Spec->Geometry.count("grid.y"))) {
    if (Shared && !Shared->PerBlock.empty())
      GridNote = "The grid stays as it is: the flush '" + Shared->PerBlock + "' writes a "
                 "histogram per block.";
    else if (GS && GS->StepK == an::StepKind::GridStride)
      GridNote = "The grid stays as it is (the spec's grid or block is not known, or some access "
                 "lies outside the grid-stride loop).";
    else if (!Virtual.empty())
      GridNote = "The grid stays as it is (the spec's grid or block is not known); the kernel is "
                 "correct with it.";
    else
      GridNote = "The grid stays as it is: the kernel has no grid-stride loop over the elements" +
                 (VirtualWhy.empty() ? std::string()
                                     : ", and its blocks cannot become a loop (" + VirtualWhy + ")") +
                 ", so each block flushes once for its own elements.";
  }

  std::string What = formatv("{0}(&{1}[{2}], ...)", A.Callee, BinsName, IdxText).str();
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
  if (Shared)
    Rationale = sharedRationale(*Shared, A, IdxText, BText, B->How, TS);
  else if (Float)
    Rationale += "\nThe floating-point additions are re-associated (per block, then across "
                 "blocks), which changes rounding within the spec's tolerance; the original's "
                 "atomics already added in arrival order.";
  else
    Rationale += "\nThe result is exact: the operation is associative and commutative.";
  std::string ScalarRationale = Rationale;
  if (!Virtual.empty())
    ScalarRationale +=
        "\nThe kernel has no grid-stride loop: its body becomes a function of the block index, "
        "run by every block for the blocks of the original grid that the guard " +
        boundTerms(Virtual) +
        " admits, a grid stride apart, so a capped grid counts the same elements with fewer "
        "flushes (this assumes, as the guard does, that the original grid covers the guard's "
        "range); a 'return' in the body ends that block's part.";
  if (!GridNote.empty())
    ScalarRationale += "\n" + GridNote;
  std::string VecRationale, VecWhat;
  if (Vec.Why.empty()) {
    std::vector<std::string> Names;
    for (const VecLoad &L : Vec.Loads)
      Names.push_back("'" + L.P->getName().str() + "' (" + L.TS + ")");
    VecWhat = formatv(", reading {0} in 16-byte loads ({1} elements per thread per iteration)",
                      join(Names, ", "), Vec.K)
                  .str();
    std::string Form =
        StringRef(Vec.Form).substr(0, 1).upper() + StringRef(Vec.Form).substr(1).str();
    if (Vec.Rows)
      VecRationale =
          Rationale +
          formatv("\nThe elements are {0} byte(s) wide: one load per element moves {1} B per "
                  "warp instruction. {2} reads each element only as a load 'p[row * pitch + "
                  "column]' (a pitch every thread shares, by the kernel model's index forms) "
                  "and values every thread shares, so it is run as a function of the loaded "
                  "values, row by row: each row in steps of {3} elements, one 16-byte load "
                  "(uint4) per load per step, after a scalar head up to the row's first 16-byte "
                  "boundary of '{4}'; a step past the row's end, or where another buffer's row "
                  "is at another alignment, runs scalar, so odd widths, pitches and offset "
                  "pointers stay exact. The threads of the whole grid stride over the (row, "
                  "step) pairs. The counters stay one per bin: no packing that could overflow."
                  "\nThe guard becomes that loop over the same elements: this assumes, as the "
                  "guard does, that the launch's threads cover them (grid.x * block.x >= {5} "
                  "and grid.y * block.y >= {6}), and that the block has one layer (block.z = "
                  "1, from the spec).",
                  Vec.Loads.front().Size, 32 * Vec.Loads.front().Size, Form, Vec.K,
                  Vec.Loads.front().P->getName(), Vec.BoundText, Vec.Rows->RowBoundText)
              .str();
    else
      VecRationale =
          Rationale +
          formatv("\nThe elements are {0} byte(s) wide: one load per element moves {1} B per "
                  "warp instruction. {2} reads each element only as a load at its index (and "
                  "values every thread shares), so it is run as a function of the loaded values "
                  "on {3} elements per 16-byte load (uint4) per thread, in a grid-stride loop "
                  "over the same elements; a scalar head up to the first 16-byte boundary of "
                  "'{4}' and a scalar tail keep odd counts and offset pointers exact (another "
                  "buffer at another alignment runs all scalar). The counters stay one per bin: "
                  "no packing that could overflow.",
                  Vec.Loads.front().Size, 32 * Vec.Loads.front().Size, Form, Vec.K,
                  Vec.Loads.front().P->getName())
              .str();
    if (!Vec.WasLoop && !Vec.Rows)
      VecRationale += "\nThe guard becomes a grid-stride loop over the same elements: this "
                      "assumes, as the guard does, that the launch's threads cover them "
                      "(grid.x * block.x >= " + Vec.BoundText + ").";
    if (!VSpec || !VSpec->Geometry.count("grid.x"))
      VecRationale += "\nThe grid stays as it is (the spec's grid or block is not known, or "
                      "some access lies outside the loop).";
  } else {
    ScalarRationale += "\nNo 16-byte loads: " + Vec.Why + ".";
  }

  // Lane copies: the largest power of two up to 32 whose copies fit in the
  // static shared memory.
  int64_t Copies = 1;
  if (B->Const && *B->Const <= LaneCopiesMaxBins)
    while (Copies < MaxLaneCopies &&
           2 * Copies * *B->Const * Bytes + (Shared ? Shared->StaticBytes : 0) <= StaticSharedLimit)
      Copies *= 2;
  auto Summary = [&](int64_t R, bool V) {
    std::string S =
        R > 1 ? formatv("{0} lane copies of the {1} bins per block, laid out [bin][copy] (lane "
                        "l counts into copy l % {0}) for {2}",
                        R, BText, What)
                    .str()
          : Shared ? "the counting into '" + BinsName + "' (" + BText + " bins) for " + What
                   : "a private shared-memory copy of the " + BText + " bins per block for " + What;
    if (!V && !Virtual.empty())
      S += ", the guard's blocks strided over a capped grid";
    return V ? S + VecWhat : S;
  };
  std::string LaneNote =
      formatv("\nThe copies are laid out [bin][copy], so bin b of copy c is word b * {0} + c: {1} "
              "The flush combines the copies of a bin, rotated by the bin so that a warp's reads "
              "fall in distinct banks (the layouts measured: docs/passes/histogram-privatize.md).",
              Copies,
              Copies == MaxLaneCopies
                  ? "each lane's counters lie in its own bank, so the 32 atomics of a warp never "
                    "conflict in a bank, whatever the data (a hot bin included)."
                  : "lanes that share a copy are the only ones whose atomics can meet in a bank.")
          .str();
  if (Shared)
    LaneNote += "\nThe copies are zeroed before the counting and summed into '" + BinsName +
                "' after it, each behind a barrier of its own, so the kernel's own flush ('" +
                Shared->Flush + "') reads the same totals.";
  // Fastest first: lane copies with 16-byte loads, 16-byte loads with one
  // copy, then the scalar copy; without the vector path lane copies, then
  // the scalar copy.
  std::vector<std::pair<int64_t, bool>> Variants;
  if (Copies >= 2)
    Variants.push_back({Copies, Vec.Why.empty()});
  if (Vec.Why.empty())
    Variants.push_back({1, true});
  if (!Shared) // bins already in shared memory: one copy is the kernel itself
    Variants.push_back({1, false});
  else if (!Vec.Why.empty() && A.Loops.empty())
    return notApplicable(formatv("the bins are in shared memory already ('{0}'), each thread "
                                 "counts one element, and 16-byte loads do not apply ({1}): "
                                 "zeroing and summing {2} copies of the {3} bins would cost "
                                 "more than the block's own atomics",
                                 BinsName, Vec.Why, Copies, BText)
                             .str());
  else if (Variants.empty())
    return notApplicable("the bins are in shared memory already ('" + BinsName + "'), and "
                         "neither lane copies (" + BText + " bins of " + std::to_string(Bytes) +
                         " B beside the kernel's " + std::to_string(Shared->StaticBytes) +
                         " B leave no room for two in " + std::to_string(StaticSharedLimit) +
                         " B) nor 16-byte loads (" + Vec.Why + ") apply");
  RuleOutcome Out;
  for (const auto &[R, V] : Variants) {
    auto Edits = Make(R, V);
    if (!Edits) {
      if (Out.Proposals.empty() && R == 1 && !V) // the plain copy is the last variant
        return notApplicable("the kernel's body or the atomic is written through a macro");
      continue;
    }
    RuleOutcome One =
        proposeEdits(In, name(), Summary(R, V),
                     (V ? VecRationale : ScalarRationale) + (R > 1 ? LaneNote : ""), *Edits,
                     SpecFor(R, V));
    if (One.Proposals.empty() && Out.Proposals.empty() && R == 1 && !V)
      return One;
    if (Shared && One.Proposals.empty() && Out.Proposals.empty() && &R == &Variants.back().first)
      return One;
    for (agent::Proposal &P : One.Proposals)
      Out.Proposals.push_back(std::move(P));
  }
  if (Out.Proposals.empty())
    return notApplicable("the counting statement or its atomic is written through a macro");
  return Out;
}

} // namespace

std::unique_ptr<ExpertRule> createHistogramPrivatizeRule() {
  return std::make_unique<HistogramPrivatizeRule>();
}

} // namespace forge::passes
