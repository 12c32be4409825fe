//===- passes/optimize/ColumnSplitRule.cpp - column-split -----------------===//
///
/// \file
/// Per-thread column loops with too few threads (docs/passes/column-split.md):
/// each thread walks one column of a matrix, `for (r = 0; r < rows; ++r) s +=
/// a[r * cols + j]`, the warp reading a coalesced row segment per step, but
/// the launch has far fewer threads than the GPU holds (4096 columns on 132
/// SMs of 2048 threads). The rule splits the loop over more threads: a block
/// of blockDim.x threads covers 32 consecutive columns (one per lane, so the
/// loads stay coalesced) and its blockDim.x / 32 warps, the slices, take the
/// rows slice, slice + slices, ...; each slice keeps a partial with the
/// reduction's own operator, and the last slice of a column to finish (a
/// shared-memory counter per lane) combines the partials in slice order,
/// always the same order whoever finishes last, and runs what the original
/// ran after the loop. threadIdx.x, blockIdx.x and gridDim.x are replaced by
/// the original thread's values, so everything before and after the loop is
/// computed as before. The grid grows by blockDim.x / 32 through a
/// SpecChange; a block that is not whole warps or not 1D runs the original
/// code (a device-side check).
///
//===----------------------------------------------------------------------===//
#include "RuleAst.h"
#include "RuleUtil.h"
#include "Rules.h"
#include "VirtualBlocks.h"
#include "forge/Analysis/KernelModel.h"
#include "forge/Measure/IntExpr.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DynamicRecursiveASTVisitor.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include <map>
#include <set>

using namespace clang;
using namespace llvm;
namespace an = forge::analysis;

namespace forge::passes {
namespace {

//===----------------------------------------------------------------------===//
// Text
//===----------------------------------------------------------------------===//

/// One replacement of [Begin, End) of the main file (an insertion when
/// Begin == End).
struct Piece {
  unsigned Begin = 0, End = 0;
  std::string Text;
};

/// Source[Begin, End) with the pieces inside it applied (insertions before a
/// replacement at the same offset); none when two overlap.
std::optional<std::string> render(StringRef Source, unsigned Begin, unsigned End,
                                  std::vector<Piece> Pieces) {
  std::vector<Piece> In;
  for (Piece &P : Pieces)
    if (P.Begin >= Begin && P.End <= End)
      In.push_back(std::move(P));
  llvm::stable_sort(In, [](const Piece &A, const Piece &B) {
    if (A.Begin != B.Begin)
      return A.Begin < B.Begin;
    return (A.Begin == A.End) > (B.Begin == B.End);
  });
  std::string Out;
  unsigned Pos = Begin;
  for (const Piece &P : In) {
    if (P.Begin < Pos)
      return std::nullopt;
    Out += Source.slice(Pos, P.Begin);
    Out += P.Text;
    Pos = P.End;
  }
  Out += Source.slice(Pos, End);
  return Out;
}

//===----------------------------------------------------------------------===//
// AST helpers
//===----------------------------------------------------------------------===//

/// The variable an lvalue names (`s`, `(s)`), or null.
const VarDecl *namedVar(const Expr *E) {
  const auto *D = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
  return D ? dyn_cast<VarDecl>(D->getDecl()) : nullptr;
}

/// What a statement assigns: variables (with the assigning expressions) and
/// variables whose address it takes.
struct Writes {
  std::vector<std::pair<const VarDecl *, const Expr *>> Vars;
  std::set<const VarDecl *> AddressTaken;
};

Writes writesIn(const Stmt *S) {
  struct V : DynamicRecursiveASTVisitor {
    Writes W;
    bool VisitBinaryOperator(BinaryOperator *B) override {
      if (B->isAssignmentOp())
        if (const VarDecl *X = namedVar(B->getLHS()))
          W.Vars.push_back({X, B});
      return true;
    }
    bool VisitUnaryOperator(UnaryOperator *U) override {
      if (U->isIncrementDecrementOp()) {
        if (const VarDecl *X = namedVar(U->getSubExpr()))
          W.Vars.push_back({X, U});
      } else if (U->getOpcode() == UO_AddrOf) {
        if (const VarDecl *X = namedVar(U->getSubExpr()))
          W.AddressTaken.insert(X);
      }
      return true;
    }
  } Vis;
  Vis.TraverseStmt(const_cast<Stmt *>(S));
  return Vis.W;
}

/// A step of a variable: `v++`, `--v`, `v += e`, `v -= e`.
struct StepOf {
  const VarDecl *V = nullptr;
  const Expr *E = nullptr;      ///< the whole step
  const Expr *Amount = nullptr; ///< e; null for ++ and --
  bool Minus = false;
};

std::optional<StepOf> stepOf(const Expr *E) {
  if (!E)
    return std::nullopt;
  E = E->IgnoreParens();
  StepOf S;
  S.E = E;
  if (const auto *U = dyn_cast<UnaryOperator>(E); U && U->isIncrementDecrementOp()) {
    S.V = namedVar(U->getSubExpr());
    S.Minus = U->isDecrementOp();
  } else if (const auto *C = dyn_cast<CompoundAssignOperator>(E);
             C && (C->getOpcode() == BO_AddAssign || C->getOpcode() == BO_SubAssign)) {
    S.V = namedVar(C->getLHS());
    S.Amount = C->getRHS();
    S.Minus = C->getOpcode() == BO_SubAssign;
  }
  if (!S.V)
    return std::nullopt;
  return S;
}

/// Combining a partial with itself changes nothing: every slice may start
/// from the value before the loop.
bool idempotent(an::ReductionOp Op) {
  return Op == an::ReductionOp::Max || Op == an::ReductionOp::Min || Op == an::ReductionOp::And ||
         Op == an::ReductionOp::Or;
}

//===----------------------------------------------------------------------===//
// The plan
//===----------------------------------------------------------------------===//

struct Acc {
  const VarDecl *V = nullptr;
  an::ReductionOp Op = an::ReductionOp::Add;
  std::string Part;   ///< its __shared__ partials
  std::string Global; ///< its __device__ partials of the blocks (across blocks)
};

/// A variable besides the induction variable that the loop steps by a
/// uniform amount (a pointer walking the column: `p += cols`).
struct Walk {
  StepOf S;
};

struct Plan {
  const CompoundStmt *Body = nullptr;
  const an::Loop *L = nullptr;
  /// The statement replaced by the split loop: the loop, or the attributed
  /// statement that holds it (`#pragma unroll`).
  const Stmt *Wrapped = nullptr;
  const VarDecl *IV = nullptr;
  /// The loop's start, to be moved by slice steps.
  const Expr *Start = nullptr;
  StepOf Step;
  std::vector<Acc> Accs;
  std::vector<Walk> Walks;
  BuiltinUses Builtins;
  /// What the loop reads down its columns ("a[(size_t)r * cols + j]").
  std::string ColumnAccess;
  /// The loop carries no value: its iterations are independent (each writes
  /// its own elements), so the slices share them without partials.
  bool Independent = false;
  /// The independent loop's stores ("out[(size_t)r * cols + j]").
  std::vector<std::string> Stores;
};

std::string lineOf(const an::Loop &L) { return "line " + std::to_string(L.Loc.Line); }

/// Whether S is the last thing its thread runs in Body: the last statement
/// of each compound around it, with only braces and ifs without else in
/// between (the shapes checkLoop allows around the loop).
bool nothingFollows(const Stmt *S, const CompoundStmt *Body, ASTContext &Ctx) {
  for (const Stmt *X = S; X && X != Body;) {
    const Stmt *Up = parentStmt(X, Ctx);
    if (const auto *C = dyn_cast_or_null<CompoundStmt>(Up)) {
      if (C->body_empty() || C->body_back() != X)
        return false;
    } else if (const auto *If = dyn_cast_or_null<IfStmt>(Up)) {
      if (If->getElse())
        return false;
    } else if (!isa_and_nonnull<AttributedStmt>(Up)) {
      return false;
    }
    X = Up;
  }
  return true;
}

class ColumnSplitRule : public ExpertRule {
public:
  StringRef name() const override { return "column-split"; }
  RuleOutcome propose(const RuleInput &In) override;

private:
  std::string checkKernel(const RuleInput &In, const an::KernelModel &M, Plan &P);
  std::string checkLoop(const RuleInput &In, an::KernelModel &M, Plan &P);
};

/// Kernel-wide preconditions: nothing that makes threads cooperate or
/// repeats an effect when several threads run one original thread's code.
std::string ColumnSplitRule::checkKernel(const RuleInput &In, const an::KernelModel &M, Plan &P) {
  ASTContext &Ctx = In.Ctx;
  for (const an::Access &A : M.Accesses) {
    if (A.Space == an::MemorySpace::Shared)
      return "the kernel uses shared memory ('" + A.Buffer +
             "'): its threads cooperate already, and splitting a column among several "
             "threads would change who shares what";
    if (A.Space == an::MemorySpace::Unknown && A.writes())
      return "the kernel writes through '" + A.Text +
             "', a pointer the analysis cannot trace to a parameter";
  }
  BodyHazardScan S(Ctx.getSourceManager(), "the kernel",
                   "which synchronises or communicates between threads (barriers are the "
                   "rewrite's own) or has an effect that the slices of a column would repeat");
  S.TraverseStmt(const_cast<CompoundStmt *>(P.Body));
  if (!S.Why.empty())
    return S.Why;

  // The builtins the body reads: the x components of threadIdx, blockIdx
  // and gridDim become the original thread's, so each must be plain text of
  // the body.
  EditCollector EC(In);
  P.Builtins = collectBuiltinUses(P.Body, EC);
  for (const BuiltinUse &U : P.Builtins.Uses) {
    bool Renamed = U.Dim == 'x' && U.Var != "blockDim";
    if (Renamed && !U.Range)
      return "'" + U.Var.str() + ".x' is read inside a macro's body or a device function the "
             "kernel calls, where it cannot take the original thread's value";
  }
  if (const DeclRefExpr *W = P.Builtins.wholeVariable())
    return "'" + W->getDecl()->getNameAsString() + "' is used as a whole, not by its components";
  return "";
}

/// The column loop: its form, what it carries from one iteration to the
/// next, what it reads and writes.
std::string ColumnSplitRule::checkLoop(const RuleInput &In, an::KernelModel &M, Plan &P) {
  ASTContext &Ctx = In.Ctx;
  const SourceManager &SM = Ctx.getSourceManager();
  const an::Loop &L = *P.L;
  std::string Where = "the column loop over '" + L.Var + "' at " + lineOf(L);
  if (L.Parent >= 0)
    return Where + " runs inside the loop at " + lineOf(M.Loops[L.Parent]) +
           ": each thread would combine its column once per outer iteration";
  if (L.HasSync)
    return Where + " synchronises the block";
  if (L.HasEarlyExit)
    return Where + " may leave early (break, return or goto): the slices of a column could not "
                   "agree where it ends";
  if (!L.ExtraCondText.empty())
    return Where + " also tests '" + L.ExtraCondText +
           "': an exit test besides the bound would stop each slice at a different row";
  if (L.StepK != an::StepKind::Constant && L.StepK != an::StepKind::Uniform)
    return Where + " steps by " + an::stepKindName(L.StepK).str() +
           " amounts: the slices need a step that is the same for every thread";
  if (!L.Bound)
    return Where + " runs while '" + L.CondText +
           "', which is not a bound on its induction variable";
  an::UniformityInfo BU = M.atoms().uniformity(*L.Bound);
  if (BU.isThreadVarying())
    return Where + " is bounded by '" + M.render(*L.Bound) +
           "', which depends on the thread (" + BU.Reason +
           "): columns of different lengths would leave the slices of a warp idle";
  if (L.TripCount && *L.TripCount < 64)
    return formatv("{0} runs {1} times: too few to split among several threads", Where,
                   *L.TripCount)
        .str();

  // The loop's parts: start, step, body.
  P.IV = L.IV;
  if (!P.IV)
    return Where + " has no induction variable";
  const auto *For = dyn_cast_or_null<ForStmt>(L.S);
  const auto *While = dyn_cast_or_null<WhileStmt>(L.S);
  const Stmt *LoopBody = nullptr;
  std::vector<const Expr *> Incs;
  if (For) {
    const Stmt *Init = For->getInit();
    if (const auto *DS = dyn_cast_or_null<DeclStmt>(Init)) {
      if (!DS->isSingleDecl() || DS->getSingleDecl() != P.IV || !P.IV->getInit())
        return Where + " declares more than its induction variable";
      P.Start = P.IV->getInit();
    } else if (const auto *A = dyn_cast_or_null<BinaryOperator>(Init);
               A && A->getOpcode() == BO_Assign && namedVar(A->getLHS()) == P.IV) {
      P.Start = A->getRHS();
    } else {
      return Where + " does not start its induction variable in the for's init";
    }
    LoopBody = For->getBody();
    // The increment, or a comma list of steps (`++r, p += cols`).
    std::vector<const Expr *> Work = {For->getInc()};
    while (!Work.empty()) {
      const Expr *E = Work.back();
      Work.pop_back();
      if (!E)
        return Where + " has no increment";
      if (const auto *B = dyn_cast<BinaryOperator>(E->IgnoreParens());
          B && B->getOpcode() == BO_Comma) {
        Work.push_back(B->getRHS());
        Work.push_back(B->getLHS());
        continue;
      }
      Incs.push_back(E);
    }
  } else if (While) {
    // `r = start; while (r < n) { ...; r++; }`.
    const auto *Parent = dyn_cast_or_null<CompoundStmt>(parentStmt(While, Ctx));
    const Stmt *Prev = nullptr;
    if (Parent)
      for (const Stmt *X : Parent->body()) {
        if (X == While)
          break;
        Prev = X;
      }
    const auto *DS = dyn_cast_or_null<DeclStmt>(Prev);
    const auto *A = dyn_cast_or_null<BinaryOperator>(Prev);
    if (DS && DS->isSingleDecl() && DS->getSingleDecl() == P.IV && P.IV->getInit())
      P.Start = P.IV->getInit();
    else if (A && A->getOpcode() == BO_Assign && namedVar(A->getLHS()) == P.IV)
      P.Start = A->getRHS();
    else
      return Where + " is a while loop, and the statement right before it does not start '" +
             L.Var + "'";
    const auto *Body = dyn_cast<CompoundStmt>(While->getBody());
    const Expr *Last = Body && !Body->body_empty() ? dyn_cast<Expr>(Body->body_back()) : nullptr;
    if (!Last)
      return Where + " is a while loop whose body does not end by stepping '" + L.Var + "'";
    for (const Stmt *X : Body->body())
      if (X != Body->body_back() && isModified(P.IV, X))
        return Where + " assigns '" + L.Var + "' in its body before the step at its end";
    if (hasOwnContinue(Body))
      return Where + " is a while loop with 'continue', which skips the step at the end of its "
                     "body";
    Incs.push_back(Last);
    LoopBody = Body;
  } else {
    return Where + " is not a for or while loop";
  }
  if (P.Start->HasSideEffects(Ctx))
    return Where + ": the loop's start has side effects";

  // The steps: the induction variable's, and walks of other variables.
  for (const Expr *E : Incs) {
    auto S = stepOf(E);
    if (!S || (S->Amount && S->Amount->HasSideEffects(Ctx)))
      return Where + ": its increment '" + textOf(E, Ctx) + "' is not a plain step ('" + L.Var +
             "++', '" + L.Var + " += e')";
    if (S->V == P.IV) {
      if (P.Step.V)
        return Where + " steps '" + L.Var + "' twice";
      P.Step = *S;
    } else {
      P.Walks.push_back({*S});
    }
  }
  if (!P.Step.V)
    return Where + ": its increment does not step '" + L.Var + "'";
  if (For && isModified(P.IV, LoopBody))
    return Where + " assigns '" + L.Var + "' in its body";

  // What the body carries from one iteration to the next.
  Writes W = writesIn(LoopBody);
  if (For)
    for (const Expr *E : Incs)
      if (auto S = stepOf(E); S && S->V != P.IV)
        W.Vars.push_back({S->V, S->E});
  auto DeclaredInside = [&](const VarDecl *V) {
    SourceRange R = L.S->getSourceRange();
    return SM.isBeforeInTranslationUnit(R.getBegin(), V->getLocation()) &&
           SM.isBeforeInTranslationUnit(V->getLocation(), R.getEnd());
  };
  for (const VarDecl *V : W.AddressTaken)
    if (!DeclaredInside(V))
      return Where + " takes the address of '" + V->getNameAsString() + "'";
  std::set<const VarDecl *> Carried;
  for (const auto &[V, E] : W.Vars)
    if (!DeclaredInside(V) && V != P.IV)
      Carried.insert(V);
  // Walks from the body: one step of its own, at the top level of the body.
  if (const auto *Body = dyn_cast<CompoundStmt>(LoopBody))
    for (const Stmt *X : Body->body()) {
      const auto *E = dyn_cast<Expr>(X);
      auto S = stepOf(E);
      if (!S || S->V == P.IV || !Carried.count(S->V) || M.reductionOf(S->V))
        continue;
      // A walk steps an integer or a pointer by what the loop does not
      // change and without reading memory (`p += cols`, not `s += a[i]`).
      QualType T = S->V->getType();
      if (!T->isIntegerType() && !T->isPointerType())
        continue;
      if (S->Amount) {
        struct Reads : DynamicRecursiveASTVisitor {
          bool Found = false;
          bool VisitArraySubscriptExpr(ArraySubscriptExpr *) override { return !(Found = true); }
          bool VisitCallExpr(CallExpr *) override { return !(Found = true); }
          bool VisitUnaryOperator(UnaryOperator *U) override {
            if (U->getOpcode() == UO_Deref)
              Found = true;
            return !Found;
          }
        } R;
        R.TraverseStmt(const_cast<Expr *>(S->Amount));
        bool Changes = references(S->Amount, P.IV) ||
                       any_of(W.Vars, [&](const auto &X) { return references(S->Amount, X.first); });
        if (R.Found || Changes)
          continue;
      }
      P.Walks.push_back({*S});
    }
  for (const Walk &Wk : P.Walks) {
    const VarDecl *V = Wk.S.V;
    std::string N = "'" + V->getNameAsString() + "'";
    unsigned Count = 0;
    for (const auto &[X, E] : W.Vars)
      Count += X == V;
    if (Count != 1)
      return Where + " steps " + N + " more than once or assigns it elsewhere";
    if (!V->getType()->isIntegerType() && !V->getType()->isPointerType())
      return Where + " steps " + N + ", which is neither an integer nor a pointer";
    if (Wk.S.Amount)
      for (const auto &[X, E] : W.Vars)
        if (references(Wk.S.Amount, X))
          return Where + " steps " + N + " by '" + textOf(Wk.S.Amount, Ctx) +
                 "', which the loop changes";
    // Its value after the loop would be a slice's.
    for (const DeclRefExpr *R : referencesTo(V, P.Body))
      if (SM.isBeforeInTranslationUnit(L.S->getEndLoc(), R->getBeginLoc()))
        return Where + ": " + N + ", which the loop steps, is used after it (line " +
               std::to_string(SM.getPresumedLineNumber(R->getBeginLoc())) +
               "), where each slice would hold its own";
    Carried.erase(V);
  }
  if (!For || !isa<DeclStmt>(For->getInit()))
    for (const DeclRefExpr *R : referencesTo(P.IV, P.Body))
      if (SM.isBeforeInTranslationUnit(L.S->getEndLoc(), R->getBeginLoc()))
        return Where + ": '" + L.Var + "' is used after the loop (line " +
               std::to_string(SM.getPresumedLineNumber(R->getBeginLoc())) +
               "), where each slice would hold its own";
  // Every other carried value: one of the model's reductions over this loop.
  for (const VarDecl *V : Carried) {
    const an::Reduction *R = M.reductionOf(V);
    if (!R || R->Kind != an::ReductionKind::LoopCarried || !is_contained(R->Loops, L.Id))
      return Where + " carries '" + V->getNameAsString() +
             "' from one iteration to the next, and it is not a reduction over this loop with "
             "an associative operator (+, *, min, max, &, |, ^)";
    if (R->Op == an::ReductionOp::ArgMax || R->Op == an::ReductionOp::ArgMin)
      return Where + " keeps the " + an::reductionOpName(R->Op).str() + " of '" + R->Target +
             "' with its position: column-split combines plain reductions only";
    QualType T = V->getType();
    if (!T->isDependentType() && !T->isArithmeticType())
      return Where + " reduces into '" + V->getNameAsString() + "' of type '" + T.getAsString() +
             "', which is not arithmetic";
    P.Accs.push_back({V, R->Op, ""});
  }
  P.Independent = P.Accs.empty();
  llvm::sort(P.Accs, [&](const Acc &A, const Acc &B) {
    return SM.isBeforeInTranslationUnit(A.V->getLocation(), B.V->getLocation());
  });

  // Memory: a reducing loop only reads, coalesced down columns or the same
  // element for the whole warp. A loop that carries nothing may write, when
  // its iterations are independent: each store moves with the loop (its own
  // elements per iteration, so no order among iterations matters), and the
  // loop touches a buffer it stores to at that store's element only.
  std::vector<const an::Access *> InLoop = M.accessesIn(L);
  for (const an::Access *A : InLoop) {
    if (A->writes()) {
      if (!P.Independent)
        return Where + " writes '" + A->Text +
               "': a side effect in the loop, which the slices would split or repeat";
      if (A->Atomic != an::AtomicOp::None)
        return Where + " makes the atomic '" + A->Text +
               "': column-split splits independent iterations or reductions it can combine";
      if (A->Space != an::MemorySpace::Global)
        return Where + " writes '" + A->Text + "', which is not global memory";
      an::Slope S = M.slopeAlongLoop(*A, L);
      if (!A->IndexKnown || !S.known() || S.isZero())
        return Where + " writes '" + A->Text + "' at " +
               (!A->IndexKnown || !S.known() ? "an element the analysis cannot follow along "
                                               "the loop"
                                             : "the same element in every iteration") +
               ": the iterations are not independent, and the slices would reorder the "
               "writes";
      for (const an::Access *B : InLoop)
        if (B != A && B->Base == A->Base &&
            (!B->IndexKnown || !A->IndexKnown || !(B->Index == A->Index)))
          return Where + " stores to '" + A->Text + "' and also " +
                 (B->writes() ? "stores to '" : "reads '") + B->Text +
                 "', another element of the buffer: one iteration could depend on another";
      P.Stores.push_back(A->Text);
      continue;
    }
    if (A->Space != an::MemorySpace::Global)
      continue;
    const an::WarpBehaviour &B = A->Warp;
    bool Unit = B.Class == an::AccessClass::Coalesced ||
                (B.Class == an::AccessClass::Transposed && B.constantStride() &&
                 *B.constantStride() == 1);
    if (Unit || B.Class == an::AccessClass::Broadcast)
      continue;
    return Where + " reads '" + A->Text + "', which is " + an::accessClassName(B.Class).str() +
           (B.StrideText.empty() ? "" : " (by " + B.StrideText + ")") +
           " across the warp: the column index is not unit-stride in threadIdx.x" +
           (B.Class == an::AccessClass::Strided ? " (a row per thread is cooperative-row's)" : "");
  }
  // Calls in the loop that may write memory (a device function given a
  // pointer or a reference to non-const).
  struct Calls : DynamicRecursiveASTVisitor {
    const SourceManager *SM;
    std::string Why;
    bool VisitCallExpr(CallExpr *C) override {
      const FunctionDecl *F = C->getDirectCallee();
      if (!F || SM->isInSystemHeader(F->getLocation()))
        return true;
      for (const ParmVarDecl *PD : F->parameters()) {
        QualType T = PD->getType();
        QualType Pointee = T->isPointerType() ? T->getPointeeType()
                           : T->isReferenceType() ? T.getNonReferenceType()
                                                  : QualType();
        if (!Pointee.isNull() && !Pointee.isConstQualified() && Why.empty())
          Why = "calls '" + F->getNameAsString() + "', which may write through its parameter '" +
                PD->getNameAsString() + "'";
      }
      return true;
    }
  } CV;
  CV.SM = &SM;
  CV.TraverseStmt(const_cast<Stmt *>(LoopBody));
  if (!CV.Why.empty())
    return Where + " " + CV.Why;
  if (P.Independent && P.Stores.empty())
    return Where + " reduces nothing and stores nothing: no loop-carried reduction to split and "
                   "no independent iterations with an effect";

  // Writes before the loop would be made by every slice.
  for (const an::Access &A : M.Accesses)
    if (A.writes() && A.E && SM.isBeforeInTranslationUnit(A.E->getBeginLoc(), L.S->getBeginLoc()))
      return "'" + A.Text + "' is written before the column loop at " + lineOf(L) +
             ", where every slice of the column would write it";

  // The loop runs once per thread: the kernel's body, braces and branches
  // lie between it and the body.
  P.Wrapped = L.S;
  const Stmt *Up = parentStmt(L.S, Ctx);
  if (const auto *AS = dyn_cast_or_null<AttributedStmt>(Up)) {
    P.Wrapped = AS;
    Up = parentStmt(AS, Ctx);
  }
  for (const Stmt *X = Up; X && X != P.Body; X = parentStmt(X, Ctx))
    if (!isa<CompoundStmt, IfStmt>(X))
      return Where + " lies inside a '" + std::string(X->getStmtClassName()) +
             "': only braces and if statements may enclose it";
  return "";
}

//===----------------------------------------------------------------------===//
// The launch
//===----------------------------------------------------------------------===//

//===----------------------------------------------------------------------===//
// The rewrite
//===----------------------------------------------------------------------===//

struct Names {
  std::string Lane, Slice, Slices, Thread, Tid, Bid, Grid, Arrived, K;
  /// Across blocks: the shares of a column (gridDim.y), this slice's place
  /// among all of the column's (part of parts), and the __device__ arrays.
  std::string Shares, Part, Parts, Slot, BlockArrived;
};

/// Blocks along y that share a column, when a block's slices leave the GPU
/// short of threads: their number is the spec's grid.y (a tunable).
struct CrossBlock {
  std::string Tunable;
  std::vector<int64_t> Values;
};

/// The __device__ arrays of the blocks' partials (entries per accumulator)
/// and of the per-column arrival counters: a launch whose columns or
/// partials do not fit runs with one share (blocks along y beyond the first
/// return).
constexpr int64_t CrossPartials = int64_t(1) << 20;
constexpr int64_t CrossColumns = int64_t(1) << 18;

/// A file-scope name from Base that the source does not spell.
std::string freshFileName(StringRef Source, const std::string &Base) {
  std::string N = Base;
  for (int I = 2; Source.contains(N); ++I)
    N = Base + "_" + std::to_string(I);
  return N;
}

std::string combineText(const Acc &A, const std::string &Other, ASTContext &Ctx) {
  std::string N = A.V->getNameAsString();
  QualType T = A.V->getType().getCanonicalType();
  bool F = T->isSpecificBuiltinType(BuiltinType::Float);
  bool D = T->isSpecificBuiltinType(BuiltinType::Double);
  switch (A.Op) {
  case an::ReductionOp::Add:
    return N + " += " + Other + ";";
  case an::ReductionOp::Mul:
    return N + " *= " + Other + ";";
  case an::ReductionOp::And:
    return N + " &= " + Other + ";";
  case an::ReductionOp::Or:
    return N + " |= " + Other + ";";
  case an::ReductionOp::Xor:
    return N + " ^= " + Other + ";";
  case an::ReductionOp::Max:
    if (F || D)
      return N + " = " + (F ? "fmaxf(" : "fmax(") + N + ", " + Other + ");";
    return N + " = " + N + " < " + Other + " ? " + Other + " : " + N + ";";
  case an::ReductionOp::Min:
    if (F || D)
      return N + " = " + (F ? "fminf(" : "fmin(") + N + ", " + Other + ");";
    return N + " = " + Other + " < " + N + " ? " + Other + " : " + N + ";";
  default:
    return "";
  }
}

/// A read of A's __device__ partial at Index that the compiler may not take
/// from a cache or an earlier load: another block wrote it.
std::string volatileAt(const Acc &A, const std::string &Index, ASTContext &Ctx) {
  return "*(volatile " + typeSpelling(A.V->getType(), Ctx) + " *)&" + A.Global + "[" + Index +
         "]";
}

/// "(e)" unless e is one token.
std::string paren(StringRef E) {
  E = E.trim();
  bool Simple = !E.empty() && all_of(E, [](char C) { return isAlnum(C) || C == '_' || C == '.'; });
  return Simple ? E.str() : "(" + E.str() + ")";
}

/// `slice` steps of Amount: "slice", "slice * (cols)".
std::string times(const std::string &Count, const Expr *Amount, ASTContext &Ctx) {
  if (!Amount)
    return Count;
  if (auto V = evaluateInt(Amount, Ctx); V && *V == 1)
    return Count;
  return Count + " * " + paren(textOf(Amount, Ctx));
}

RuleOutcome ColumnSplitRule::propose(const RuleInput &In) {
  ASTContext &Ctx = In.Ctx;
  const SourceManager &SM = Ctx.getSourceManager();
  const agent::ProposalRequest &Req = In.Request;
  auto MX = kernelModel(In);
  if (!MX)
    return notApplicable(toString(MX.takeError()));
  an::KernelModel &M = *MX;
  Plan P;
  P.Body = kernelBody(In.Kernel);
  if (!P.Body)
    return notApplicable("the kernel has no body");

  // Column loops: some global load moves with the loop and is coalesced
  // across the warp (neighbouring threads, neighbouring columns).
  std::vector<const an::Loop *> Columns;
  std::string RowWhy;
  for (const an::Loop &L : M.Loops) {
    if (!L.hasInductionVariable())
      continue;
    for (const an::Access *A : M.accessesIn(L)) {
      if (A->Space != an::MemorySpace::Global || A->writes())
        continue;
      an::Slope S = M.slopeAlongLoop(*A, L);
      if (!S.known() || S.isZero())
        continue;
      const an::WarpBehaviour &B = A->Warp;
      bool Unit = B.Class == an::AccessClass::Coalesced ||
                  (B.Class == an::AccessClass::Transposed && B.constantStride() &&
                   *B.constantStride() == 1);
      if (Unit) {
        Columns.push_back(&L);
        if (P.ColumnAccess.empty())
          P.ColumnAccess = A->Text;
        break;
      }
      if (RowWhy.empty() && B.Class != an::AccessClass::Broadcast)
        RowWhy = "the loop over '" + L.Var + "' at " + lineOf(L) + " reads '" + A->Text +
                 "', which is " + an::accessClassName(B.Class).str() +
                 (B.StrideText.empty() ? "" : " (by " + B.StrideText + ")") +
                 " across the warp: the column index is not unit-stride in threadIdx.x" +
                 (B.Class == an::AccessClass::Strided ? " (a row per thread is cooperative-row's)"
                                                       : "");
    }
  }
  if (Columns.empty())
    return notApplicable(!RowWhy.empty()
                             ? RowWhy
                             : "no per-thread column loop: no loop reads global memory that "
                               "moves with the loop and is coalesced across the warp");
  // Of nested column loops the innermost (the one that walks the column);
  // the first in the body is split, a later one runs in the thread that
  // combines.
  std::vector<const an::Loop *> Inner;
  for (const an::Loop *L : Columns)
    if (none_of(Columns, [&](const an::Loop *O) {
          for (int Up = O->Parent; Up >= 0; Up = M.Loops[Up].Parent)
            if (unsigned(Up) == L->Id)
              return true;
          return false;
        }))
      Inner.push_back(L);
  P.L = Inner.front();
  for (const an::Loop *L : Inner)
    if (L->S && P.L->S &&
        SM.isBeforeInTranslationUnit(L->S->getBeginLoc(), P.L->S->getBeginLoc()))
      P.L = L;
  if (!P.L->S)
    return notApplicable("the column loop has no statement in the AST");

  if (std::string Why = checkKernel(In, M, P); !Why.empty())
    return notApplicable(Why);
  if (std::string Why = checkLoop(In, M, P); !Why.empty())
    return notApplicable(Why);

  // The launch: how many threads, against what the GPU holds.
  const arch::SmLimits &Lim = In.Target.limits();
  unsigned SMs = Req.SmCount ? Req.SmCount : 132;
  int64_t Fill = int64_t(SMs) * Lim.MaxThreadsPerSM;
  auto Size = launchSize(In);
  if (!Size)
    return notApplicable("the launch's thread count is not known (no spec geometry and no "
                         "launch of the kernel in the file with a constant grid and block), so "
                         "whether the GPU is short of threads cannot be told");
  if (2 * Size->Threads >= Fill)
    return notApplicable(formatv("{0} has {1} threads, at least half of the {2} the GPU holds "
                                 "({3} SMs x {4}): enough threads already",
                                 Size->From, Size->Threads, Fill, SMs, Lim.MaxThreadsPerSM)
                             .str());
  std::array<int64_t, 3> Block = Req.Block ? *Req.Block : Size->Block;
  auto Fits = [](const std::array<int64_t, 3> &B) {
    return B[0] % 32 == 0 && B[0] >= 64 && B[1] == 1 && B[2] == 1;
  };
  // The block: the spec's tunables may give a larger one, with more slices
  // per column, when the current one leaves the GPU short of threads.
  std::map<std::string, int64_t> NewValues;
  std::vector<SourceEdit> WriteBack;
  std::string BlockNote;
  if (Req.Spec && Fits(Block) && Size->Threads * (Block[0] / 32) < Fill)
    for (int64_t Want : {1024, 512}) {
      if (Want <= Block[0])
        break;
      auto R = launchWithBlock(In, [&](const std::array<int64_t, 3> &B) {
        return B[0] == Want && B[1] == 1 && B[2] == 1;
      });
      if (!R) {
        consumeError(R.takeError());
        continue;
      }
      NewValues = R->Values;
      WriteBack = R->WriteBack;
      BlockNote = formatv(" The block grows from {0} to {1} threads ({2} slices per column) "
                          "through the spec's tunables",
                          Block[0], Want, Want / 32)
                      .str();
      std::string Set;
      for (const auto &[N, V] : NewValues)
        Set += (Set.empty() ? "" : ", ") + N + " = " + std::to_string(V);
      BlockNote += " (" + Set + (R->SpecOnly ? "; no launch in this file" : ", written into "
                                                                            "the source") +
                   ").";
      Block = R->Block;
      break;
    }
  if (!Fits(Block)) {
    auto R = launchWithBlock(In, Fits);
    if (!R)
      return notApplicable(formatv("the block is {0}x{1}x{2}: the rewrite needs a 1D block of "
                                   "whole warps, at least two ({3})",
                                   Block[0], Block[1], Block[2], toString(R.takeError()))
                               .str());
    NewValues = R->Values;
    WriteBack = R->WriteBack;
    Block = R->Block;
  }
  int64_t Slices = Block[0] / 32;

  // Across blocks: when the block's slices still leave the GPU short of
  // threads, FORGE_COLUMN_BLOCKS blocks along y share each column too. The
  // kernel reads their number from gridDim.y, so the grid must be 1D, the
  // body must not read the y and z of blockIdx and gridDim, and the
  // partials must have a type a __device__ array at file scope can hold.
  std::optional<CrossBlock> Cross;
  std::string CrossWhy;
  {
    auto GeomIs1 = [&](const char *F) {
      auto It = Req.Geometry.find(F);
      return It == Req.Geometry.end() || It->second.empty() || StringRef(It->second).trim() == "1";
    };
    auto GX = Req.Geometry.find("grid.x");
    int64_t After = Size->Threads * Slices;
    int64_t G = 1;
    while (After * G < Fill && G < 64)
      G *= 2;
    if (G < 2)
      CrossWhy = "";
    else if (!Req.Spec || GX == Req.Geometry.end() || GX->second.empty())
      CrossWhy = "no spec geometry to give the blocks along y";
    else if (!GeomIs1("grid.y") || !GeomIs1("grid.z"))
      CrossWhy = "the spec's grid is not 1D";
    else if (P.Builtins.reads("blockIdx", 'y') || P.Builtins.reads("blockIdx", 'z') ||
             P.Builtins.reads("gridDim", 'y') || P.Builtins.reads("gridDim", 'z'))
      CrossWhy = "the kernel reads the y or z of blockIdx or gridDim";
    else if (any_of(P.Accs, [](const Acc &A) { return A.V->getType()->isDependentType(); }))
      CrossWhy = "a partial's type depends on a template parameter";
    else if (In.Kernel.getDescribedFunctionTemplate() || In.Kernel.getPrimaryTemplate())
      CrossWhy = "the kernel is a template (its arrays would go between the template's head "
                 "and the kernel)";
    else if (Req.Tunables.count("FORGE_COLUMN_BLOCKS"))
      CrossWhy = "the spec has a tunable FORGE_COLUMN_BLOCKS already";
    else {
      Cross.emplace();
      Cross->Tunable = "FORGE_COLUMN_BLOCKS";
      for (int64_t V : {G, G / 2, G * 2, int64_t(1)})
        if (V >= 1 && !is_contained(Cross->Values, V))
          Cross->Values.push_back(V);
    }
  }

  // Names.
  std::set<std::string> Taken;
  Names N;
  N.Lane = freshName("lane", In.Kernel, Taken);
  N.Slice = freshName("slice", In.Kernel, Taken);
  N.Slices = freshName("slices", In.Kernel, Taken);
  N.Thread = freshName("orig_thread", In.Kernel, Taken);
  N.Tid = freshName("orig_tid", In.Kernel, Taken);
  N.Bid = freshName("orig_bid", In.Kernel, Taken);
  N.Grid = freshName("orig_grid", In.Kernel, Taken);
  N.Arrived = freshName("arrived", In.Kernel, Taken);
  N.K = freshName("k", In.Kernel, Taken);
  N.Part = N.Slice;
  N.Parts = N.Slices;
  if (Cross) {
    N.Shares = freshName("shares", In.Kernel, Taken);
    N.Part = freshName("part", In.Kernel, Taken);
    N.Parts = freshName("parts", In.Kernel, Taken);
    std::string K = In.Kernel.getNameAsString();
    N.Slot = freshName("slot", In.Kernel, Taken);
    N.BlockArrived = freshFileName(In.Source, K + "_column_arrivals");
    for (Acc &A : P.Accs)
      A.Global = freshFileName(In.Source, K + "_" + A.V->getNameAsString() + "_blocks");
  }
  for (Acc &A : P.Accs)
    A.Part = freshName(A.V->getNameAsString() + "_part", In.Kernel, Taken);

  EditCollector EC(In);
  auto BR = EC.rangeOf(P.Body->getSourceRange());
  if (!BR)
    return notApplicable("the kernel's body is not plain text of the main file");
  unsigned Begin = BR->first + 1, End = BR->second - 1;
  StringRef Src = In.Source;
  std::string Ind = lineIndent(Src, SM.getFileOffset(SM.getFileLoc(
                                         P.Body->body_empty() ? P.Body->getLBracLoc()
                                                              : P.Body->body_front()->getBeginLoc())))
                        .str();
  if (Ind.empty())
    Ind = "  ";

  // The main copy: builtins renamed, the loop split.
  std::vector<Piece> Pieces;
  for (const BuiltinUse &U : P.Builtins.Uses) {
    if (U.Dim != 'x' || U.Var == "blockDim" || !U.Range)
      continue;
    std::string To = U.Var == "threadIdx" ? N.Tid : U.Var == "blockIdx" ? N.Bid : N.Grid;
    Pieces.push_back({U.Range->first, U.Range->second, To});
  }
  const an::Loop &L = *P.L;
  auto StartR = EC.rangeOf(P.Start->getSourceRange());
  auto WrapR = EC.rangeOf(P.Wrapped->getSourceRange());
  if (!StartR || !WrapR)
    return notApplicable("the column loop at " + lineOf(L) +
                         " is written inside a macro (its start or its text)");
  unsigned WB = WrapR->first, WE = pastSemicolon(Src, WrapR->second);
  // The start moves by slice steps; the step by slices steps.
  std::string StartText = Src.slice(StartR->first, StartR->second).str();
  std::string Off = times(N.Part, P.Step.Amount, Ctx);
  std::string NewStart = StringRef(StartText).trim() == "0" && !P.Step.Minus && !P.IV->getType()->isPointerType()
                             ? Off
                             : paren(StartText) + (P.Step.Minus ? " - " : " + ") + Off;
  Pieces.push_back({StartR->first, StartR->second, NewStart});
  auto StepEdit = [&](const StepOf &S, std::vector<Piece> &Into) -> bool {
    std::string V = S.V->getNameAsString();
    if (!S.Amount) {
      auto R = EC.rangeOf(S.E->getSourceRange());
      if (!R)
        return false;
      Into.push_back({R->first, R->second, V + (S.Minus ? " -= " : " += ") + N.Parts});
      return true;
    }
    auto R = EC.rangeOf(S.Amount->getSourceRange());
    if (!R)
      return false;
    Into.push_back({R->first, R->second, times(N.Parts, S.Amount, Ctx)});
    return true;
  };
  if (!StepEdit(P.Step, Pieces))
    return notApplicable("the column loop's step is written inside a macro");
  std::vector<std::string> Pre, Post;
  for (const Walk &W : P.Walks) {
    if (!StepEdit(W.S, Pieces))
      return notApplicable("the step of '" + W.S.V->getNameAsString() +
                           "' is written inside a macro");
    Pre.push_back(W.S.V->getNameAsString() + (W.S.Minus ? " -= " : " += ") +
                  times(N.Part, W.S.Amount, Ctx) + ";");
  }
  // Slices other than 0 start a non-idempotent reduction from its identity,
  // unless the accumulator was just declared with it.
  auto JustDeclaredWithIdentity = [&](const Acc &A) {
    const Expr *Init = A.V->getInit();
    Expr::EvalResult R;
    if (!Init || !Init->EvaluateAsRValue(R, Ctx))
      return false;
    double Id = A.Op == an::ReductionOp::Mul ? 1 : 0;
    bool IsId = (R.Val.isFloat() && R.Val.getFloat().convertToDouble() == Id) ||
                (R.Val.isInt() && R.Val.getInt() == int64_t(Id));
    const auto *Parent = dyn_cast_or_null<CompoundStmt>(parentStmt(P.Wrapped, Ctx));
    if (!IsId || !Parent)
      return false;
    bool Seen = false;
    for (const Stmt *X : Parent->body()) {
      if (X == P.Wrapped)
        return Seen;
      if (const auto *DS = dyn_cast<DeclStmt>(X);
          DS && llvm::is_contained(DS->decls(), static_cast<const Decl *>(A.V)))
        Seen = true;
      else if (Seen && isModified(A.V, X))
        return false;
    }
    return false;
  };
  for (const Acc &A : P.Accs)
    if (!idempotent(A.Op) && !JustDeclaredWithIdentity(A))
      Pre.push_back("if (" + N.Part + " != 0) " + A.V->getNameAsString() + " = " +
                    (A.Op == an::ReductionOp::Mul ? "1" : "0") + "; // the value before the "
                    "loop counts once");
  // After the loop: partials out, the last slice of the column combines
  // them (an independent loop has none: the last slice runs what followed
  // the loop, after every slice's stores). An independent loop that nothing
  // follows needs no tail: every slice is done after its rows.
  const bool Tail = !P.Independent || !nothingFollows(P.Wrapped, P.Body, Ctx);
  if (!Tail) {
  } else if (P.Independent) {
    Post.push_back("// column-split: the last slice of this column to finish runs what followed");
    Post.push_back("// the loop; the others are done.");
  } else {
    Post.push_back("// column-split: the slices' partial results, combined in slice order by the");
    Post.push_back("// last slice of this column to finish; the others are done.");
  }
  for (const Acc &A : P.Accs)
    Post.push_back(A.Part + "[threadIdx.x] = " + A.V->getNameAsString() + ";");
  if (Tail) {
    Post.push_back("__threadfence_block();");
    Post.push_back("if (atomicAdd(&" + N.Arrived + "[" + N.Lane + "], 1u) != (unsigned int)" +
                   N.Slices + " - 1u)");
    Post.push_back("  return;");
    Post.push_back("__threadfence_block();");
  }
  for (const Acc &A : P.Accs)
    Post.push_back(A.V->getNameAsString() + " = " + A.Part + "[" + N.Lane + "];");
  if (!P.Accs.empty()) {
    Post.push_back("for (int " + N.K + " = 1; " + N.K + " < " + N.Slices + "; ++" + N.K + ")" +
                   (P.Accs.size() > 1 ? " {" : ""));
    for (const Acc &A : P.Accs)
      Post.push_back("  " + combineText(A, A.Part + "[" + N.K + " * 32 + " + N.Lane + "]", Ctx));
    if (P.Accs.size() > 1)
      Post.push_back("}");
  }
  if (Cross && Tail) {
    Post.push_back("if (" + N.Shares + " > 1u) {");
    if (P.Independent) {
      Post.push_back("  // column-split across blocks: the last block of the column to arrive "
                     "runs what");
      Post.push_back("  // followed the loop and resets the counter.");
    } else {
      Post.push_back("  // column-split across blocks: this block's partial to its slot; the "
                     "last block of the");
      Post.push_back("  // column to arrive combines the slots in block order and resets the "
                     "counter.");
      Post.push_back("  const unsigned long long " + N.Slot + " = (unsigned long long)" +
                     N.Thread + " * " + N.Shares + ";");
    }
    for (const Acc &A : P.Accs)
      Post.push_back("  " + A.Global + "[" + N.Slot + " + blockIdx.y] = " +
                     A.V->getNameAsString() + ";");
    Post.push_back("  __threadfence();");
    Post.push_back("  if (atomicAdd(&" + N.BlockArrived + "[" + N.Thread + "], 1u) != " +
                   N.Shares + " - 1u)");
    Post.push_back("    return;");
    Post.push_back("  __threadfence();");
    for (const Acc &A : P.Accs)
      Post.push_back("  " + A.V->getNameAsString() + " = " + volatileAt(A, N.Slot, Ctx) + ";");
    if (!P.Accs.empty()) {
      Post.push_back("  for (unsigned int " + N.K + " = 1; " + N.K + " < " + N.Shares + "; ++" +
                     N.K + ")" + (P.Accs.size() > 1 ? " {" : ""));
      for (const Acc &A : P.Accs)
        Post.push_back("    " + combineText(A, volatileAt(A, N.Slot + " + " + N.K, Ctx), Ctx));
      if (P.Accs.size() > 1)
        Post.push_back("  }");
    }
    Post.push_back("  " + N.BlockArrived + "[" + N.Thread + "] = 0u;");
    Post.push_back("}");
  }
  std::string LInd = lineIndent(Src, WB).str();
  auto LoopText = render(Src, WB, WE, Pieces);
  if (!LoopText)
    return notApplicable("the edits of the column loop overlap");
  std::vector<std::string> SL = Pre;
  SL.push_back(indentFollowingLines(*LoopText, "  "));
  SL.insert(SL.end(), Post.begin(), Post.end());
  std::string Split = "{\n" + LInd + "  " + indentLines(SL, LInd + "  ") + "\n" + LInd + "}";
  // Pieces of the loop are replaced by the split loop as a whole.
  std::vector<Piece> Main;
  for (Piece &X : Pieces)
    if (X.End <= WB || X.Begin >= WE)
      Main.push_back(X);
  Main.push_back({WB, WE, Split});
  auto MainText = render(Src, Begin, End, Main);
  if (!MainText)
    return notApplicable("the edits of the body overlap");

  // The new body.
  StringRef Orig = Src.slice(Begin, End);
  StringRef OrigTrim = Orig.ltrim(" \t\n").rtrim(" \t\n");
  std::vector<std::string> H;
  H.push_back("// column-split: a block covers 32 consecutive columns, one per lane, and its");
  H.push_back("// blockDim.x / 32 warps (the slices) share each column's rows; the launch has");
  H.push_back("// blockDim.x / 32 times the blocks along x.");
  H.push_back("if (blockDim.x % 32 != 0 || blockDim.y != 1 || blockDim.z != 1) {");
  H.push_back("  // Not whole warps or not a 1D block: the original code, one thread per");
  H.push_back("  // column, on the original share of the grid.");
  H.push_back(std::string("  if (blockIdx.x >= gridDim.x / (blockDim.x >= 32 ? blockDim.x / 32 : 1)") +
              (Cross ? " || blockIdx.y != 0)" : ")"));
  H.push_back("    return;");
  H.push_back("  " + indentFollowingLines(OrigTrim, "  "));
  H.push_back("  return;");
  H.push_back("}");
  H.push_back("const int " + N.Lane + " = threadIdx.x % 32;");
  H.push_back("const int " + N.Slice + " = threadIdx.x / 32;");
  H.push_back("const int " + N.Slices + " = blockDim.x / 32;");
  H.push_back("// The original thread of this lane's column: its threadIdx.x, blockIdx.x and "
              "gridDim.x.");
  H.push_back("const unsigned int " + N.Thread + " = blockIdx.x * 32 + " + N.Lane + ";");
  H.push_back("const unsigned int " + N.Tid + " = " + N.Thread + " % blockDim.x;");
  H.push_back("const unsigned int " + N.Bid + " = " + N.Thread + " / blockDim.x;");
  H.push_back("const unsigned int " + N.Grid + " = gridDim.x / " + N.Slices + ";");
  if (Cross) {
    if (!Tail) {
      H.push_back("// The gridDim.y blocks along y share each column as well.");
      H.push_back(formatv("const unsigned int {0} = gridDim.y;", N.Shares).str());
    } else {
      H.push_back("// The gridDim.y blocks along y share each column as well (one share when "
                  "the");
      H.push_back("// columns or their partials would not fit the __device__ arrays).");
      H.push_back(formatv("const unsigned int {0} =", N.Shares).str());
      H.push_back(formatv("    (unsigned long long){0} * blockDim.x <= {1}ull &&", N.Grid,
                          CrossColumns)
                      .str());
      H.push_back(formatv("    (unsigned long long){0} * blockDim.x * gridDim.y <= {1}ull ? "
                          "gridDim.y : 1u;",
                          N.Grid, CrossPartials)
                      .str());
      H.push_back("if (blockIdx.y >= " + N.Shares + ")");
      H.push_back("  return;");
    }
    H.push_back("const int " + N.Part + " = blockIdx.y * " + N.Slices + " + " + N.Slice + ";");
    H.push_back("const int " + N.Parts + " = " + N.Shares + " * " + N.Slices + ";");
  }
  for (const Acc &A : P.Accs)
    H.push_back("__shared__ " + typeSpelling(A.V->getType(), Ctx) + " " + A.Part + "[1024];");
  if (Tail) {
    H.push_back("__shared__ unsigned int " + N.Arrived + "[32];");
    H.push_back("if (threadIdx.x < 32)");
    H.push_back("  " + N.Arrived + "[threadIdx.x] = 0;");
    H.push_back("__syncthreads();");
  }
  H.push_back("if (" + N.Bid + " >= " + N.Grid + ")");
  H.push_back("  return;");
  StringRef MT = *MainText;
  MT = MT.ltrim(" \t\n");
  std::string Body = "\n" + Ind + indentLines(H, Ind) + "\n" + Ind + MT.str();
  std::vector<SourceEdit> Edits = {{Begin, End - Begin, Body}};
  if (Cross && Tail) {
    auto Site = kernelBodySite(In, In.Kernel, *P.Body);
    if (!Site)
      return notApplicable(toString(Site.takeError()));
    std::string Decls =
        P.Independent
            ? formatv("// column-split across blocks of {0}: a counter per column of the blocks "
                      "along y that share\n// it (the block that runs what followed the loop "
                      "resets it for the next launch).\n",
                      In.Kernel.getNameAsString())
                  .str()
            : formatv("// column-split across blocks of {0}: the partials of the blocks along y "
                      "that share\n// a column, and a counter per column (the block that "
                      "combines resets it for the next launch).\n",
                      In.Kernel.getNameAsString())
                  .str();
    for (const Acc &A : P.Accs)
      Decls += "__device__ " + typeSpelling(A.V->getType(), Ctx) + " " + A.Global + "[" +
               std::to_string(CrossPartials) + "];\n";
    Decls += "__device__ unsigned int " + N.BlockArrived + "[" + std::to_string(CrossColumns) +
             "];\n\n";
    Edits.insert(Edits.begin(), {Site->DeclLine, 0, Decls});
  }
  for (const SourceEdit &E : WriteBack)
    Edits.push_back(E);

  // Words.
  bool Float = any_of(P.Accs, [](const Acc &A) {
    QualType T = A.V->getType();
    return (T->isDependentType() || T->isRealFloatingType()) && !idempotent(A.Op);
  });
  std::vector<std::string> Ops;
  for (const Acc &A : P.Accs)
    Ops.push_back("'" + A.V->getNameAsString() + "' (" + an::reductionOpSymbol(A.Op).str() + ")");
  std::string BlockX;
  if (auto BX = Req.Geometry.find("block.x"); BX != Req.Geometry.end() && !BX->second.empty())
    BlockX = BX->second;
  std::string Rationale =
      formatv("A per-thread column loop over '{0}' at {1} ('{2}', coalesced across the warp) on "
              "a launch of {3} threads ({4}), while the GPU holds {5} ({6} SMs x {7}): too few "
              "threads to keep the memory busy. Now a block covers 32 consecutive columns, one "
              "per lane (the loads stay coalesced), and its blockDim.x / 32 warps split each "
              "column's rows ({8} slices with a block of {9}, {10} threads in all); ",
              L.Var, lineOf(L), P.ColumnAccess, Size->Threads, Size->From, Fill, SMs,
              Lim.MaxThreadsPerSM, Slices, Block[0], Size->Threads * Slices)
          .str();
  if (P.Independent)
    Rationale += "the loop carries nothing from one iteration to the next and each iteration "
                 "stores its own elements (" +
                 join(P.Stores, ", ") +
                 ", which the loop reads nowhere else), so the slices run the iterations in "
                 "any order with the same results, bitwise; " +
                 (Tail ? "the last slice of a column to finish runs what followed the loop."
                       : "nothing follows the loop, so every slice is done after its rows.");
  else
    Rationale += "each slice keeps partial " + join(Ops, ", ") +
                 " and the last slice of a column to finish combines the partials in slice "
                 "order (a fixed order, so the result does not depend on timing) and runs what "
                 "followed the loop.";
  if (Float)
    Rationale += " The floating-point sums are re-associated (each slice sums one row in " +
                 std::to_string(Slices) +
                 ", then the slices are combined): results differ from the sequential "
                 "order in the last bits, within the default fp32 tolerance for columns of "
                 "moderate length; max and min are exact.";
  Rationale += BlockNote;
  if (Cross)
    Rationale += formatv(" {0} threads are still fewer than the GPU holds, so {1} blocks along y "
                         "(the new tunable {2}, the spec's grid.y) share each column as well: "
                         "{3} threads. {4}",
                         Size->Threads * Slices, Cross->Values.front(), Cross->Tunable,
                         Size->Threads * Slices * Cross->Values.front(),
                         P.Independent
                             ? "The last block of the column to arrive (a __device__ counter "
                               "per column, reset by that block) runs what followed the loop."
                             : "Each block's combining slice writes its partial to a "
                               "__device__ array, and the last block of the column to arrive "
                               "(a __device__ counter per column, reset by that block) "
                               "combines the partials in block order and runs what followed "
                               "the loop.")
                     .str();
  else if (!CrossWhy.empty())
    Rationale += " The split stays within blocks (" + CrossWhy + ").";
  Rationale += " The launch needs blockDim.x / 32 times the blocks along x; a block that is not "
               "whole warps or not 1D runs the original code (checked on the device).";
  std::optional<agent::SpecChange> Spec;
  auto G = Req.Geometry.find("grid.x");
  if (BlockX.empty())
    BlockX = std::to_string(Block[0]);
  if (G != Req.Geometry.end() && !G->second.empty()) {
    std::string Expr = "(" + G->second + ") * ((" + BlockX + ") / 32)";
    if (auto Parsed = measure::IntExpr::parse(Expr)) {
      agent::SpecChange S;
      S.Geometry["grid.x"] = Expr;
      S.Values = NewValues;
      if (!all_of(BlockX, [](char C) { return isDigit(C); }))
        S.NewConstraints.push_back("(" + BlockX + ") % 32 == 0");
      S.Justification =
          "each block of the rewritten kernel covers the columns of 32 consecutive threads "
          "of the original (their threadIdx.x, blockIdx.x and gridDim.x are recomputed from "
          "the block and the lane), so grid.x grows by blockDim.x / 32; blockDim.x must be a "
          "multiple of 32 (a constraint)";
      if (Cross) {
        S.Geometry["grid.y"] = Cross->Tunable;
        S.NewTunables[Cross->Tunable] = Cross->Values;
        S.Justification += "; grid.y is the number of blocks that share each column (" +
                           Cross->Tunable + "), which the kernel reads from gridDim.y: any "
                           "value is correct, one being the split within a block alone";
      }
      Spec = std::move(S);
    } else {
      consumeError(Parsed.takeError());
    }
  }
  if (!Spec)
    Rationale += formatv(" No spec geometry is known: launch it with gridDim.x = blockDim.x / 32 "
                         "x the original ({0} x with a block of {1}).",
                         Slices, Block[0])
                     .str();
  std::string Summary =
      formatv("the column loop over '{0}' split over {1} slices of each block (32 columns per "
              "block, {2})",
              L.Var, Slices,
              P.Independent ? "independent iterations" : "partials combined in slice order")
          .str();
  return proposeEdits(In, name(), Summary, Rationale, Edits, std::move(Spec));
}

} // namespace

std::unique_ptr<ExpertRule> createColumnSplitRule() {
  return std::make_unique<ColumnSplitRule>();
}

} // namespace forge::passes
