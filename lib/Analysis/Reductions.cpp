//===- Analysis/Reductions.cpp - Atomic and loop-carried reductions -------===//
///
/// \file
/// A loop-carried reduction is a scalar local, declared outside a loop,
/// whose every assignment inside the loop combines it with a value by one
/// associative operator (`acc op= e`, `acc = acc op e`, `acc = max(acc, e)`,
/// `acc = e > acc ? e : acc`, `if (e > acc) acc = e;`, `acc = fmaf(a, b,
/// acc)`), and which the loop reads nowhere else. Updates under a
/// comparison that also assign other variables (`if (v > best) { best = v;
/// idx = k; }`) are argmax/argmin with those companions.
///
/// An atomic reduction is an atomic whose address is the same for every
/// thread of a block.
///
//===----------------------------------------------------------------------===//
#include "AstUtil.h"
#include "KernelAnalyzer.h"
#include "forge/Analysis/ModelRender.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace clang;
using namespace llvm;

namespace forge::analysis {

StringRef reductionOpName(ReductionOp Op) {
  switch (Op) {
  case ReductionOp::Add:
    return "add";
  case ReductionOp::Mul:
    return "mul";
  case ReductionOp::Min:
    return "min";
  case ReductionOp::Max:
    return "max";
  case ReductionOp::And:
    return "and";
  case ReductionOp::Or:
    return "or";
  case ReductionOp::Xor:
    return "xor";
  case ReductionOp::ArgMin:
    return "argmin";
  case ReductionOp::ArgMax:
    return "argmax";
  }
  return "add";
}

StringRef reductionOpSymbol(ReductionOp Op) {
  switch (Op) {
  case ReductionOp::Add:
    return "+";
  case ReductionOp::Mul:
    return "*";
  case ReductionOp::Min:
    return "min";
  case ReductionOp::Max:
    return "max";
  case ReductionOp::And:
    return "&";
  case ReductionOp::Or:
    return "|";
  case ReductionOp::Xor:
    return "^";
  case ReductionOp::ArgMin:
    return "argmin";
  case ReductionOp::ArgMax:
    return "argmax";
  }
  return "+";
}

StringRef reductionKindName(ReductionKind K) {
  return K == ReductionKind::Atomic ? "atomic" : "loop-carried";
}

StringRef reductionScopeName(ReductionScope S) {
  switch (S) {
  case ReductionScope::Grid:
    return "grid";
  case ReductionScope::Block:
    return "block";
  case ReductionScope::Thread:
    return "thread";
  }
  return "thread";
}

namespace {
const VarDecl *varOf(const Expr *E) {
  if (!E)
    return nullptr;
  const auto *D = dyn_cast<DeclRefExpr>(stripIntCasts(E));
  return D ? dyn_cast<VarDecl>(D->getDecl()) : nullptr;
}

bool isMaxCall(StringRef N) {
  return N == "max" || N == "fmaxf" || N == "fmax" || N == "umax" || N == "llmax" ||
         N == "ullmax" || N == "__hmax" || N == "fmaxl";
}
bool isMinCall(StringRef N) {
  return N == "min" || N == "fminf" || N == "fmin" || N == "umin" || N == "llmin" ||
         N == "ullmin" || N == "__hmin" || N == "fminl";
}

/// One update of a reduction.
struct Update {
  ReductionOp Op;
  const Expr *Operand = nullptr; ///< null: the constant one (v++)
  const Stmt *Whole = nullptr;   ///< the update expression
  const IfStmt *Under = nullptr; ///< `if (e > v) v = e;`
  std::vector<std::string> Companions;
};

/// Same expression, by declaration for names and by text otherwise.
bool sameValue(const Expr *A, const Expr *B, const ASTContext &Ctx) {
  const VarDecl *VA = varOf(A), *VB = varOf(B);
  if (VA || VB)
    return VA == VB;
  return textOf(A->IgnoreParenImpCasts(), Ctx) == textOf(B->IgnoreParenImpCasts(), Ctx);
}

/// The comparison `a OP b` as "is Lhs greater": +1 when the condition
/// holds iff X > Y (X, Y its operands in order), -1 when iff X < Y.
int greaterSense(const BinaryOperator *C) {
  switch (C->getOpcode()) {
  case BO_GT:
  case BO_GE:
    return 1;
  case BO_LT:
  case BO_LE:
    return -1;
  default:
    return 0;
  }
}
} // namespace

void KernelAnalyzer::findReductions(KernelModel &M) {
  // The update forms of one definition of V.
  auto Classify = [&](int D, const VarDecl *V) -> std::optional<Update> {
    const ValueDef &Def = Tracker->def(D);
    Update U;
    U.Whole = Def.At;
    switch (Def.Kind) {
    case ValueDef::Compound:
      if (mentions(Def.E, V))
        return std::nullopt;
      U.Operand = Def.E;
      switch (Def.Op) {
      case BO_Add:
      case BO_Sub:
        U.Op = ReductionOp::Add;
        return U;
      case BO_Mul:
        U.Op = ReductionOp::Mul;
        return U;
      case BO_And:
        U.Op = ReductionOp::And;
        return U;
      case BO_Or:
        U.Op = ReductionOp::Or;
        return U;
      case BO_Xor:
        U.Op = ReductionOp::Xor;
        return U;
      default:
        return std::nullopt;
      }
    case ValueDef::Step:
      U.Op = ReductionOp::Add;
      return U;
    case ValueDef::Value:
      break;
    default:
      return std::nullopt;
    }
    const Expr *R = Def.E ? Def.E->IgnoreParenImpCasts() : nullptr;
    if (!R)
      return std::nullopt;
    if (const auto *B = dyn_cast<BinaryOperator>(R)) {
      std::optional<ReductionOp> Op;
      switch (B->getOpcode()) {
      case BO_Add:
        Op = ReductionOp::Add;
        break;
      case BO_Sub:
        Op = ReductionOp::Add;
        break;
      case BO_Mul:
        Op = ReductionOp::Mul;
        break;
      case BO_And:
        Op = ReductionOp::And;
        break;
      case BO_Or:
        Op = ReductionOp::Or;
        break;
      case BO_Xor:
        Op = ReductionOp::Xor;
        break;
      default:
        break;
      }
      if (Op) {
        // v = v op e, v = e op v (not e - v), and chains v + a + b.
        const Expr *L = B->getLHS(), *Rt = B->getRHS();
        if (varOf(L) == V && !mentions(Rt, V)) {
          U.Op = *Op;
          U.Operand = Rt;
          return U;
        }
        if (varOf(Rt) == V && !mentions(L, V) && B->getOpcode() != BO_Sub) {
          U.Op = *Op;
          U.Operand = L;
          return U;
        }
        if (const auto *Inner = dyn_cast<BinaryOperator>(L->IgnoreParenImpCasts());
            Inner && Inner->getOpcode() == B->getOpcode() && varOf(Inner->getLHS()) == V &&
            !mentions(Inner->getRHS(), V) && !mentions(Rt, V)) {
          U.Op = *Op;
          U.Operand = R;
          return U;
        }
      }
    }
    if (const auto *C = dyn_cast<CallExpr>(R)) {
      StringRef N = calleeName(C);
      if ((isMaxCall(N) || isMinCall(N)) && C->getNumArgs() == 2) {
        const Expr *A0 = C->getArg(0), *A1 = C->getArg(1);
        if (varOf(A1) == V)
          std::swap(A0, A1);
        if (varOf(A0) == V && !mentions(A1, V)) {
          U.Op = isMaxCall(N) ? ReductionOp::Max : ReductionOp::Min;
          U.Operand = A1;
          return U;
        }
      }
      if ((N == "fmaf" || N == "fma" || N == "__fmaf_rn" || N == "__fma_rn") &&
          C->getNumArgs() == 3 && varOf(C->getArg(2)) == V && !mentions(C->getArg(0), V) &&
          !mentions(C->getArg(1), V)) {
        U.Op = ReductionOp::Add;
        U.Operand = C;
        return U;
      }
    }
    if (const auto *C = dyn_cast<ConditionalOperator>(R)) {
      const auto *Cmp = dyn_cast<BinaryOperator>(C->getCond()->IgnoreParenImpCasts());
      const Expr *T = C->getTrueExpr(), *F = C->getFalseExpr();
      if (Cmp && greaterSense(Cmp) != 0) {
        const Expr *Other = varOf(T) == V ? F : varOf(F) == V ? T : nullptr;
        if (Other && !mentions(Other, V)) {
          // Which operand of the comparison is V, and which arm is chosen
          // when the condition holds.
          int Sense = greaterSense(Cmp);
          bool VLeft = varOf(Cmp->getLHS()) == V && sameValue(Cmp->getRHS(), Other, Ctx);
          bool VRight = varOf(Cmp->getRHS()) == V && sameValue(Cmp->getLHS(), Other, Ctx);
          if (VLeft || VRight) {
            // Holds iff Other > V (for Sense*side > 0).
            bool HoldsIffOtherGreater = VRight ? Sense > 0 : Sense < 0;
            bool PicksOtherWhenHolds = sameValue(T, Other, Ctx);
            bool Max = HoldsIffOtherGreater == PicksOtherWhenHolds;
            U.Op = Max ? ReductionOp::Max : ReductionOp::Min;
            U.Operand = Other;
            return U;
          }
        }
      }
    }
    // if (e > v) v = e;  if (v < e) { v = e; i = k; }
    const Stmt *P = parentOf(Def.At);
    while (P && isa<CompoundStmt>(P))
      P = parentOf(P);
    const auto *If = dyn_cast_or_null<IfStmt>(P);
    if (If && !If->getElse() && inside(Def.At, If->getThen())) {
      const auto *Cmp = dyn_cast<BinaryOperator>(If->getCond()->IgnoreParenImpCasts());
      if (Cmp && greaterSense(Cmp) != 0 && !mentions(Def.E, V)) {
        int Sense = greaterSense(Cmp);
        bool VLeft = varOf(Cmp->getLHS()) == V && sameValue(Cmp->getRHS(), Def.E, Ctx);
        bool VRight = varOf(Cmp->getRHS()) == V && sameValue(Cmp->getLHS(), Def.E, Ctx);
        if (VLeft || VRight) {
          bool Max = VRight ? Sense > 0 : Sense < 0;
          U.Op = Max ? ReductionOp::Max : ReductionOp::Min;
          U.Operand = Def.E;
          U.Under = If;
          for (const VarDecl *W : assignedVars(If->getThen()))
            if (W != V)
              U.Companions.push_back(W->getNameAsString());
          if (!U.Companions.empty())
            U.Op = Max ? ReductionOp::ArgMax : ReductionOp::ArgMin;
          return U;
        }
      }
    }
    return std::nullopt;
  };

  // Source order of two statements (line, then column).
  auto before = [&](const Stmt *A, const Stmt *B) {
    SourceSpan SA = span(A), SB = span(B);
    return SA.Line < SB.Line || (SA.Line == SB.Line && SA.Column < SB.Column);
  };
  // A read of V that is the value a global store of loop L writes (casts
  // allowed): `y[i] = acc` after (inclusive) or before (exclusive) every
  // update of V in L, a serial scan.
  auto runningStore = [&](KernelModel &M, const VarDecl *V, const DeclRefExpr *Use, const Loop &L,
                          size_t Updates, ReductionOp Op, bool AfterAll,
                          bool BeforeAll) -> std::optional<Pattern> {
    if (!AfterAll && !BeforeAll)
      return std::nullopt;
    const Stmt *S = Use, *P = parentOf(S);
    while (P && (isa<ParenExpr>(P) || isa<ImplicitCastExpr>(P) || isa<CStyleCastExpr>(P))) {
      S = P;
      P = parentOf(P);
    }
    const auto *Asg = dyn_cast_or_null<BinaryOperator>(P);
    if (!Asg || Asg->getOpcode() != BO_Assign || Asg->getRHS() != S)
      return std::nullopt;
    const Access *St = M.accessAt(Asg->getLHS()->IgnoreParenImpCasts());
    if (!St || St->Kind != AccessKind::Store || St->Space != MemorySpace::Global ||
        !is_contained(St->Loops, L.Id))
      return std::nullopt;
    Pattern Pat;
    Pat.Kind = PatternKind::Scan;
    Pat.Loc = L.Loc;
    Pat.Loops = {L.Id};
    Pat.Accesses = {St->Id};
    std::string Order = AfterAll ? "inclusive" : "exclusive";
    Pat.Summary = "serial " + Order + " scan (" + reductionOpSymbol(Op).str() + ") of '" +
                  V->getNameAsString() + "' into " + St->Buffer + " over " + L.Var;
    Pat.Details.push_back(St->Text + " stores the running value '" + V->getNameAsString() +
                          "' " + (AfterAll ? "after" : "before") + " its " +
                          std::to_string(Updates) + " update(s) in the loop");
    Pat.Roles = {{"acc", V->getNameAsString()},
                 {"out", St->Buffer},
                 {"op", reductionOpName(Op).str()},
                 {"order", Order}};
    return Pat;
  };

  // Loop-carried reductions, one per accumulator.
  std::vector<const VarDecl *> Vars;
  for (size_t D = 0; D < Tracker->numDefs(); ++D)
    if (const VarDecl *V = Tracker->def(int(D)).Var)
      if (!is_contained(Vars, V))
        Vars.push_back(V);
  for (const VarDecl *V : Vars) {
    QualType T = V->getType();
    if (T->isPointerType() || T->isArrayType() || T->isRecordType() || isa<ParmVarDecl>(V))
      continue;
    const Stmt *DeclAt = nullptr;
    for (int D : Tracker->defsOf(V))
      if (const auto *DS = dyn_cast_or_null<DeclStmt>(Tracker->def(D).At)) {
        DeclAt = DS;
        break;
      }
    // Loops around updates of V, outermost first; the reduction is over
    // the outermost one in which every assignment of V is an update.
    std::vector<unsigned> Candidates;
    for (int D : Tracker->defsOf(V)) {
      const ValueDef &Def = Tracker->def(D);
      if (Def.Kind != ValueDef::Value && Def.Kind != ValueDef::Compound &&
          Def.Kind != ValueDef::Step && Def.Kind != ValueDef::Partial)
        continue;
      if (!Def.At || isa<DeclStmt>(Def.At))
        continue;
      for (unsigned L : loopsAround(Def.At))
        if (!is_contained(Candidates, L))
          Candidates.push_back(L);
    }
    llvm::stable_sort(Candidates,
                      [&](unsigned A, unsigned B) { return Loops[A].Depth < Loops[B].Depth; });
    int Outer = -1;
    std::vector<Update> Ups;
    ReductionOp Op = ReductionOp::Add;
    auto Base = [](ReductionOp O) {
      return O == ReductionOp::ArgMax   ? ReductionOp::Max
             : O == ReductionOp::ArgMin ? ReductionOp::Min
                                        : O;
    };
    std::string ReadNote;
    SourceSpan ReadAt;
    // A running value stored as it goes: `acc += x[i]; y[i] = acc;`.
    std::optional<Pattern> Running;
    for (unsigned L : Candidates) {
      const Stmt *LS = Loops[L].S;
      if (DeclAt && inside(DeclAt, LS))
        continue;
      // An induction variable of this loop or of one inside it counts, it
      // does not accumulate.
      if (any_of(Loops, [&](const Loop &X) { return X.IV == V && inside(X.S, LS); }))
        continue;
      std::vector<Update> Here;
      bool OK = true;
      for (int D : Tracker->defsOf(V)) {
        const ValueDef &Def = Tracker->def(D);
        if (!(Def.Kind == ValueDef::Value || Def.Kind == ValueDef::Compound ||
              Def.Kind == ValueDef::Step || Def.Kind == ValueDef::Partial ||
              Def.Kind == ValueDef::Unknown) ||
            !Def.At || !inside(Def.At, LS))
          continue;
        auto U = Classify(D, V);
        if (!U) {
          OK = false;
          break;
        }
        Here.push_back(*U);
      }
      if (!OK || Here.empty())
        continue;
      ReductionOp HereOp = Here.front().Op;
      if (!all_of(Here, [&](const Update &U) { return Base(U.Op) == Base(HereOp); }))
        continue;
      for (const Update &U : Here)
        if (U.Op == ReductionOp::ArgMax || U.Op == ReductionOp::ArgMin)
          HereOp = U.Op;
      // Every read of V in the loop is part of an update (or of the
      // comparison that guards one).
      bool OtherRead = false;
      for (const DeclRefExpr *Use : Tracker->usesOf(V)) {
        if (!inside(Use, LS))
          continue;
        bool Part = any_of(Here, [&](const Update &U) {
          return inside(Use, U.Whole) || (U.Under && inside(Use, U.Under->getCond()));
        });
        if (!Part) {
          OtherRead = true;
          if (!Running)
            Running = runningStore(M, V, Use, Loops[L], Here.size(), HereOp,
                                   all_of(Here, [&](const Update &U) {
                                     return before(U.Whole, Use);
                                   }),
                                   all_of(Here, [&](const Update &U) {
                                     return before(Use, U.Whole);
                                   }));
          if (ReadNote.empty()) {
            ReadAt = span(Use);
            ReadNote = "'" + V->getNameAsString() + "' is not a reduction over the loop at line " +
                       std::to_string(Loops[L].Loc.Line) + ": the loop also reads it here";
          }
          break;
        }
      }
      if (OtherRead)
        continue;
      Outer = int(L);
      Ups = std::move(Here);
      Op = HereOp;
      break;
    }
    if (Outer < 0) {
      if (Running)
        M.Patterns.push_back(std::move(*Running));
      if (!ReadNote.empty())
        Notes.push_back({ReadAt, ReadNote});
      continue;
    }
    const Stmt *LS = Loops[Outer].S;
    Reduction R;
    R.Id = unsigned(M.Reductions.size());
    R.Kind = ReductionKind::LoopCarried;
    R.Op = Op;
    R.Scope = ReductionScope::Thread;
    R.Target = V->getNameAsString();
    R.Acc = V;
    for (const Update &U : Ups)
      for (const std::string &C : U.Companions)
        if (!is_contained(R.Companions, C))
          R.Companions.push_back(C);
    R.Loops.push_back(unsigned(Outer));
    for (const Update &U : Ups)
      for (unsigned L : loopsAround(U.Whole))
        if (inside(Loops[L].S, LS) && !is_contained(R.Loops, L))
          R.Loops.push_back(L);
    // The value at loop entry.
    for (int D : Tracker->defsOf(V)) {
      const ValueDef &Def = Tracker->def(D);
      if (Def.Kind == ValueDef::LoopCarried && Def.Loop == Outer && Def.Prev >= 0) {
        const ValueDef &In = Tracker->def(Def.Prev);
        R.Init = In.Kind == ValueDef::Value ? text(In.E) : "(computed before the loop)";
      }
    }
    const Update &First = Ups.front();
    R.Operand = First.Operand ? text(First.Operand) : "1";
    R.OperandUniform = First.Operand ? uniformityOf(First.Operand) : UniformityInfo();
    R.Loc = Loops[Outer].Loc;
    for (const Update &U : Ups)
      R.UpdateLines.push_back(span(U.Whole).Line);
    R.FloatingPoint = T->isRealFloatingType() || (T->isDependentType());
    ReductionOperands.resize(R.Id + 1);
    for (const Update &U : Ups)
      if (U.Operand)
        ReductionOperands[R.Id].push_back(U.Operand);
    M.Reductions.push_back(std::move(R));
  }

  // Atomic reductions: the same address for every thread of a block.
  for (const Access &A : M.Accesses) {
    if (A.Kind != AccessKind::Atomic || !A.Base || !A.IndexKnown)
      continue;
    std::optional<ReductionOp> Op;
    switch (A.Atomic) {
    case AtomicOp::Add:
    case AtomicOp::Sub:
    case AtomicOp::Inc:
      Op = ReductionOp::Add;
      break;
    case AtomicOp::Max:
      Op = ReductionOp::Max;
      break;
    case AtomicOp::Min:
      Op = ReductionOp::Min;
      break;
    case AtomicOp::And:
      Op = ReductionOp::And;
      break;
    case AtomicOp::Or:
      Op = ReductionOp::Or;
      break;
    case AtomicOp::Xor:
      Op = ReductionOp::Xor;
      break;
    default:
      break;
    }
    if (!Op)
      continue;
    UniformityInfo U = Table->uniformity(A.Index);
    if (!U.atLeast(Uniformity::BlockUniform))
      continue;
    Reduction R;
    R.Id = unsigned(M.Reductions.size());
    R.Kind = ReductionKind::Atomic;
    R.Op = *Op;
    R.Scope = U.Level == Uniformity::GridUniform ? ReductionScope::Grid : ReductionScope::Block;
    R.Target = A.Buffer + "[" + A.IndexText + "]";
    R.Access = int(A.Id);
    if (const Expr *V = A.valueArg()) {
      R.Operand = text(V);
      R.OperandUniform = uniformityOf(V);
    } else if (!A.ValueText.empty()) {
      R.Operand = A.ValueText;
      R.OperandUniform = makeUniformity(Uniformity::GridUniform, "a constant");
    }
    R.Loc = A.Loc;
    R.UpdateLines.push_back(A.Loc.Line);
    QualType ET = A.addressArg()->getType();
    R.FloatingPoint = ET->isPointerType() && ET->getPointeeType()->isRealFloatingType();
    M.Reductions.push_back(std::move(R));
  }
}

} // namespace forge::analysis
