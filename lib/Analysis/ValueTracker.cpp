//===- Analysis/ValueTracker.cpp - Which definition reaches a use ---------===//
#include "ValueTracker.h"
#include "AstUtil.h"
#include "clang/AST/DynamicRecursiveASTVisitor.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Stmt.h"
#include "clang/AST/StmtCXX.h"
#include "llvm/ADT/STLExtras.h"

using namespace clang;
using namespace llvm;

namespace forge::analysis {

namespace {
const VarDecl *asVarRef(const Expr *E) {
  if (!E)
    return nullptr;
  const auto *D = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
  return D ? dyn_cast<VarDecl>(D->getDecl()) : nullptr;
}

class AssignedCollector : public DynamicRecursiveASTVisitor {
public:
  std::vector<const VarDecl *> Vars;
  void add(const Expr *E) {
    // `v.x = e`, `a[j] = e` assign (part of) v, a local array or record.
    const Expr *Base = E->IgnoreParenImpCasts();
    while (true) {
      if (const auto *M = dyn_cast<MemberExpr>(Base)) {
        if (M->isArrow())
          return;
        Base = M->getBase()->IgnoreParenImpCasts();
      } else if (const auto *A = dyn_cast<ArraySubscriptExpr>(Base)) {
        if (!subscriptBase(A)->IgnoreParenImpCasts()->getType()->isArrayType() &&
            !isa<DeclRefExpr>(subscriptBase(A)->IgnoreParenImpCasts()))
          return;
        const Expr *B = subscriptBase(A)->IgnoreParenImpCasts();
        if (!B->getType()->isArrayType())
          return;
        Base = B;
      } else {
        break;
      }
    }
    if (const VarDecl *V = asVarRef(Base))
      if (!is_contained(Vars, V))
        Vars.push_back(V);
  }
  bool VisitBinaryOperator(BinaryOperator *B) override {
    if (B->isAssignmentOp())
      add(B->getLHS());
    return true;
  }
  bool VisitUnaryOperator(UnaryOperator *U) override {
    if (U->isIncrementDecrementOp() || U->getOpcode() == UO_AddrOf)
      add(U->getSubExpr());
    return true;
  }
  bool VisitCXXOperatorCallExpr(CXXOperatorCallExpr *C) override {
    if (C->isAssignmentOp() && C->getNumArgs() > 0)
      add(C->getArg(0));
    return true;
  }
  bool VisitDeclStmt(DeclStmt *) override { return true; }
};
} // namespace

std::vector<const VarDecl *> assignedVars(const Stmt *S) {
  AssignedCollector C;
  if (S)
    C.TraverseStmt(const_cast<Stmt *>(S));
  return C.Vars;
}

bool matchUpdate(const Expr *S, const VarDecl *V, const ASTContext &Ctx, const Expr *&Step,
                 int64_t &Sign, int64_t &Factor) {
  Step = nullptr;
  Sign = 1;
  Factor = 0;
  if (!S || !V)
    return false;
  S = S->IgnoreParenImpCasts();
  if (const auto *U = dyn_cast<UnaryOperator>(S)) {
    if (!U->isIncrementDecrementOp() || asVarRef(U->getSubExpr()) != V)
      return false;
    Step = nullptr; // one
    Sign = U->isIncrementOp() ? 1 : -1;
    return true;
  }
  const auto *B = dyn_cast<BinaryOperator>(S);
  if (!B || asVarRef(B->getLHS()) != V)
    return false;
  auto Geometric = [&](const Expr *C, bool Divide, bool Shift) {
    auto K = constantInt(C, Ctx);
    if (!K || *K <= 0 || (Shift && *K > 30))
      return false;
    int64_t F = Shift ? int64_t(1) << *K : *K;
    if (F <= 1)
      return false;
    Factor = Divide ? -F : F;
    return true;
  };
  switch (B->getOpcode()) {
  case BO_AddAssign:
  case BO_SubAssign:
    Step = B->getRHS();
    Sign = B->getOpcode() == BO_AddAssign ? 1 : -1;
    return !mentions(Step, V);
  case BO_MulAssign:
    return Geometric(B->getRHS(), false, false);
  case BO_DivAssign:
    return Geometric(B->getRHS(), true, false);
  case BO_ShlAssign:
    return Geometric(B->getRHS(), false, true);
  case BO_ShrAssign:
    return Geometric(B->getRHS(), true, true);
  case BO_Assign: {
    const auto *R = dyn_cast<BinaryOperator>(stripIntCasts(B->getRHS()));
    if (!R)
      return false;
    const Expr *L = R->getLHS(), *Rt = R->getRHS();
    bool LeftIsV = asVarRef(stripIntCasts(L)) == V, RightIsV = asVarRef(stripIntCasts(Rt)) == V;
    switch (R->getOpcode()) {
    case BO_Add:
      if (LeftIsV && !mentions(Rt, V)) {
        Step = Rt;
        return true;
      }
      if (RightIsV && !mentions(L, V)) {
        Step = L;
        return true;
      }
      return false;
    case BO_Sub:
      if (LeftIsV && !mentions(Rt, V)) {
        Step = Rt;
        Sign = -1;
        return true;
      }
      return false;
    case BO_Mul:
      if (LeftIsV)
        return Geometric(Rt, false, false);
      if (RightIsV)
        return Geometric(L, false, false);
      return false;
    case BO_Div:
      return LeftIsV && Geometric(Rt, true, false);
    case BO_Shl:
      return LeftIsV && Geometric(Rt, false, true);
    case BO_Shr:
      return LeftIsV && Geometric(Rt, true, true);
    default:
      return false;
    }
  }
  default:
    return false;
  }
}

ValueTracker::ValueTracker(ASTContext &Ctx, const FunctionDecl &Kernel,
                           std::vector<LoopSyntax> &Loops,
                           const DenseMap<const Stmt *, unsigned> &LoopIds)
    : Ctx(Ctx), Kernel(Kernel), Loops(Loops), LoopIds(LoopIds) {}

const std::vector<int> &ValueTracker::defsOf(const VarDecl *V) const {
  static const std::vector<int> None;
  auto It = DefsByVar.find(V);
  return It == DefsByVar.end() ? None : It->second;
}

const std::vector<const DeclRefExpr *> &ValueTracker::usesOf(const VarDecl *V) const {
  static const std::vector<const DeclRefExpr *> None;
  auto It = UsesByVar.find(V);
  return It == UsesByVar.end() ? None : It->second;
}

int ValueTracker::newDef(ValueDef D) {
  Defs.push_back(std::move(D));
  int Id = int(Defs.size() - 1);
  if (Defs[Id].Var)
    DefsByVar[Defs[Id].Var].push_back(Id);
  return Id;
}

const VarDecl *ValueTracker::trackedVar(const Expr *E) const {
  const VarDecl *V = asVarRef(E);
  return V && Tracked.count(V) ? V : nullptr;
}

void ValueTracker::assign(const VarDecl *V, ValueDef D, State &St) {
  D.Var = V;
  St[V] = newDef(std::move(D));
}

void ValueTracker::use(const DeclRefExpr *E, State &St) {
  const auto *V = dyn_cast<VarDecl>(E->getDecl());
  if (!V || !Tracked.count(V))
    return;
  auto It = St.find(V);
  int D;
  if (It == St.end()) {
    ValueDef U;
    U.Kind = ValueDef::Unknown;
    U.Var = V;
    U.At = E;
    U.Reason = "'" + V->getNameAsString() + "' is read before it is given a value";
    D = newDef(U);
    St[V] = D;
  } else {
    D = It->second;
  }
  UseDef[E] = D;
  UsesByVar[V].push_back(E);
}

void ValueTracker::run(const Stmt *Body) {
  // Locals of the kernel (not __shared__, not static) and the parameters
  // it assigns are tracked; other variables are symbols or memory.
  class Locals : public DynamicRecursiveASTVisitor {
  public:
    DenseSet<const VarDecl *> &Out;
    explicit Locals(DenseSet<const VarDecl *> &Out) : Out(Out) {}
    bool VisitVarDecl(VarDecl *V) override {
      if (V->hasLocalStorage() && !isa<ParmVarDecl>(V) && !V->getType()->isReferenceType())
        Out.insert(V);
      return true;
    }
    bool TraverseLambdaExpr(LambdaExpr *) override { return true; }
  };
  Locals L(Tracked);
  L.TraverseStmt(const_cast<Stmt *>(Body));
  State St;
  for (const VarDecl *V : assignedVars(Body))
    if (const auto *P = dyn_cast<ParmVarDecl>(V))
      if (P->getDeclContext() == &Kernel) {
        ModifiedParams.insert(P);
        Tracked.insert(P);
        ValueDef D;
        D.Kind = ValueDef::Entry;
        D.Var = P;
        St[P] = newDef(D);
      }
  walkStmt(Body, St);
  if (!Goto)
    return;
  // A goto may carry any definition to any label: only variables assigned
  // once keep their value.
  for (auto &[Use, D] : UseDef) {
    const VarDecl *V = Defs[D].Var;
    if (!V || DefsByVar[V].size() <= 1)
      continue;
    ValueDef U;
    U.Kind = ValueDef::Unknown;
    U.Var = nullptr; // not one of V's definitions
    U.At = Use;
    U.Reason = "'" + V->getNameAsString() + "' is assigned in a kernel that uses goto";
    Defs.push_back(U);
    D = int(Defs.size() - 1);
  }
}

bool ValueTracker::isDerivedIV(const VarDecl *V, const Stmt *LoopStmt,
                               const std::vector<const VarDecl *> &Modified, const Expr *&StepExpr,
                               int64_t &Sign) const {
  // One additive update per iteration, unconditional: a statement of the
  // body's top level, or part of a for increment.
  std::vector<const Expr *> Updates;
  auto Consider = [&](const Stmt *S) {
    if (const auto *E = dyn_cast_or_null<Expr>(S)) {
      // `i++, p += s` in an increment.
      std::vector<const Expr *> Parts;
      std::function<void(const Expr *)> Split = [&](const Expr *X) {
        X = X->IgnoreParens();
        if (const auto *C = dyn_cast<BinaryOperator>(X); C && C->getOpcode() == BO_Comma) {
          Split(C->getLHS());
          Split(C->getRHS());
        } else {
          Parts.push_back(X);
        }
      };
      Split(E);
      for (const Expr *P : Parts)
        if (is_contained(assignedVars(P), V))
          Updates.push_back(P);
    }
  };
  const Stmt *Body = nullptr;
  if (const auto *F = dyn_cast<ForStmt>(LoopStmt)) {
    Body = F->getBody();
    Consider(F->getInc());
    if (F->getCond() && is_contained(assignedVars(F->getCond()), V))
      return false;
  } else if (const auto *W = dyn_cast<WhileStmt>(LoopStmt)) {
    Body = W->getBody();
    if (is_contained(assignedVars(W->getCond()), V))
      return false;
  } else if (const auto *D = dyn_cast<DoStmt>(LoopStmt)) {
    Body = D->getBody();
    if (is_contained(assignedVars(D->getCond()), V))
      return false;
  } else {
    return false;
  }
  unsigned InBody = 0;
  if (const auto *CS = dyn_cast_or_null<CompoundStmt>(Body)) {
    for (const Stmt *Child : CS->body()) {
      if (!is_contained(assignedVars(Child), V))
        continue;
      ++InBody;
      if (isa<Expr>(Child))
        Consider(Child);
      else
        return false; // assigned inside a nested statement
    }
  } else if (Body && is_contained(assignedVars(Body), V)) {
    ++InBody;
    Consider(Body);
  }
  if (Updates.size() != 1 || InBody > 1)
    return false;
  int64_t Factor = 0;
  if (!matchUpdate(Updates.front(), V, Ctx, StepExpr, Sign, Factor) || Factor != 0)
    return false;
  // The step must not change inside the loop.
  if (StepExpr)
    for (const VarDecl *M : Modified)
      if (mentions(StepExpr, M))
        return false;
  return true;
}

void ValueTracker::walkLoop(const Stmt *S, unsigned Id, State &St) {
  LoopSyntax &L = Loops[Id];
  std::vector<const VarDecl *> Modified;
  auto AddModified = [&](const Stmt *X) {
    for (const VarDecl *V : assignedVars(X))
      if (Tracked.count(V) && !is_contained(Modified, V))
        Modified.push_back(V);
  };
  const Stmt *Init = nullptr, *Body = nullptr;
  const Expr *Cond = nullptr, *Inc = nullptr;
  if (const auto *F = dyn_cast<ForStmt>(S)) {
    Init = F->getInit();
    Cond = F->getCond();
    Inc = F->getInc();
    Body = F->getBody();
  } else if (const auto *W = dyn_cast<WhileStmt>(S)) {
    Cond = W->getCond();
    Body = W->getBody();
  } else if (const auto *D = dyn_cast<DoStmt>(S)) {
    Cond = D->getCond();
    Body = D->getBody();
  } else if (const auto *R = dyn_cast<CXXForRangeStmt>(S)) {
    Init = R->getInit();
    if (Init)
      walkStmt(Init, St);
    walkExpr(R->getRangeInit(), St);
    Body = R->getBody();
  }
  if (Init && !isa<CXXForRangeStmt>(S))
    walkStmt(Init, St);
  AddModified(Cond);
  AddModified(Inc);
  AddModified(Body);
  if (const auto *R = dyn_cast<CXXForRangeStmt>(S))
    if (const VarDecl *LV = R->getLoopVariable()) {
      Tracked.insert(LV);
      ValueDef D;
      D.Kind = ValueDef::Unknown;
      D.At = R;
      D.Reason = "'" + LV->getNameAsString() + "' is the element of a range-based for loop";
      assign(LV, D, St);
    }
  L.Modified = Modified;
  DenseMap<const VarDecl *, int> Entry;
  for (const VarDecl *V : Modified) {
    auto It = St.find(V);
    int E = It == St.end() ? -1 : It->second;
    Entry[V] = E;
    ValueDef D;
    D.Loop = int(Id);
    D.Prev = E;
    D.At = S;
    const Expr *StepExpr = nullptr;
    int64_t Sign = 1;
    if (V == L.IV) {
      D.Kind = ValueDef::LoopIV;
      assign(V, D, St);
      L.EntryDef = E;
      L.IVDef = St[V];
    } else if (isDerivedIV(V, S, Modified, StepExpr, Sign)) {
      D.Kind = ValueDef::DerivedIV;
      D.StepExpr = StepExpr;
      D.Sign = Sign;
      assign(V, D, St);
    } else {
      D.Kind = ValueDef::LoopCarried;
      assign(V, D, St);
    }
  }
  if (isa<DoStmt>(S)) {
    walkStmt(Body, St);
    walkExpr(Cond, St);
  } else {
    if (Cond)
      walkExpr(Cond, St);
    if (const auto *F = dyn_cast<ForStmt>(S); F && F->getConditionVariable())
      walkStmt(F->getConditionVariableDeclStmt(), St);
    if (const auto *W = dyn_cast<WhileStmt>(S); W && W->getConditionVariable())
      walkStmt(W->getConditionVariableDeclStmt(), St);
    if (Body)
      walkStmt(Body, St);
    if (Inc)
      walkExpr(Inc, St);
  }
  for (const VarDecl *V : Modified) {
    ValueDef D;
    D.Kind = ValueDef::AfterLoop;
    D.Loop = int(Id);
    D.Prev = Entry[V];
    D.At = S;
    assign(V, D, St);
  }
}

void ValueTracker::merge(State &Into, const State &Then, const State &Else, bool ThenFalls,
                         bool ElseFalls, const Expr *Cond, const Stmt *At) {
  if (!ThenFalls && !ElseFalls) {
    Into = Then;
    return;
  }
  if (!ThenFalls) {
    Into = Else;
    return;
  }
  if (!ElseFalls) {
    Into = Then;
    return;
  }
  State Out = Then;
  for (const auto &[V, D] : Else) {
    auto It = Then.find(V);
    int T = It == Then.end() ? -1 : It->second;
    if (T == D)
      continue;
    ValueDef M;
    M.Kind = ValueDef::Merge;
    M.Var = V;
    M.Prev = T;
    M.Other = D;
    M.Cond = Cond;
    M.At = At;
    if (T < 0) {
      M.Kind = ValueDef::Unknown;
      M.Reason = "'" + V->getNameAsString() + "' has a value on one branch only";
    }
    Out[V] = newDef(M);
  }
  Into = std::move(Out);
}

bool ValueTracker::walkStmt(const Stmt *S, State &St) {
  if (!S)
    return true;
  if (const auto *E = dyn_cast<Expr>(S)) {
    walkExpr(E, St);
    return true;
  }
  if (const auto *CS = dyn_cast<CompoundStmt>(S)) {
    bool Falls = true;
    for (const Stmt *Child : CS->body()) {
      if (!Falls) {
        // Unreachable code: read it for its uses, keep the state.
        State Dead = St;
        walkStmt(Child, Dead);
        continue;
      }
      Falls = walkStmt(Child, St);
    }
    return Falls;
  }
  if (const auto *DS = dyn_cast<DeclStmt>(S)) {
    for (const Decl *D : DS->decls()) {
      const auto *V = dyn_cast<VarDecl>(D);
      if (!V)
        continue;
      if (const Expr *Init = V->getInit())
        walkExpr(Init, St);
      if (!Tracked.count(V))
        continue;
      ValueDef Def;
      Def.At = DS;
      if (const Expr *Init = V->getInit()) {
        Def.Kind = ValueDef::Value;
        Def.E = Init;
        if (isa<InitListExpr>(Init->IgnoreImplicit()) &&
            cast<InitListExpr>(Init->IgnoreImplicit())->getNumInits() == 1)
          Def.E = cast<InitListExpr>(Init->IgnoreImplicit())->getInit(0);
      } else {
        Def.Kind = ValueDef::Unknown;
        Def.Reason = "'" + V->getNameAsString() + "' is declared without a value";
      }
      assign(V, Def, St);
    }
    return true;
  }
  if (const auto *If = dyn_cast<IfStmt>(S)) {
    if (If->getInit())
      walkStmt(If->getInit(), St);
    if (If->getConditionVariableDeclStmt())
      walkStmt(If->getConditionVariableDeclStmt(), St);
    walkExpr(If->getCond(), St);
    State Then = St, Else = St;
    bool TF = walkStmt(If->getThen(), Then);
    bool EF = If->getElse() ? walkStmt(If->getElse(), Else) : true;
    merge(St, Then, Else, TF, EF, If->getCond(), If);
    return TF || EF;
  }
  if (isa<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt>(S)) {
    auto It = LoopIds.find(S);
    if (It != LoopIds.end())
      walkLoop(S, It->second, St);
    return true;
  }
  if (const auto *R = dyn_cast<ReturnStmt>(S)) {
    if (R->getRetValue())
      walkExpr(R->getRetValue(), St);
    return false;
  }
  if (isa<BreakStmt, ContinueStmt>(S))
    return false;
  if (isa<GotoStmt, IndirectGotoStmt>(S)) {
    Goto = true;
    return false;
  }
  if (const auto *Sw = dyn_cast<SwitchStmt>(S)) {
    if (Sw->getInit())
      walkStmt(Sw->getInit(), St);
    walkExpr(Sw->getCond(), St);
    State Inner = St;
    walkStmt(Sw->getBody(), Inner);
    for (const VarDecl *V : assignedVars(Sw->getBody())) {
      if (!Tracked.count(V))
        continue;
      ValueDef D;
      D.Kind = ValueDef::Unknown;
      D.At = Sw;
      D.Reason = "'" + V->getNameAsString() + "' is assigned in the switch at line " +
                 std::to_string(lineOf(Ctx, Sw->getBeginLoc()));
      assign(V, D, St);
    }
    return true;
  }
  if (const auto *L = dyn_cast<LabelStmt>(S))
    return walkStmt(L->getSubStmt(), St);
  if (const auto *A = dyn_cast<AttributedStmt>(S))
    return walkStmt(A->getSubStmt(), St);
  for (const Stmt *Child : S->children())
    walkStmt(Child, St);
  return true;
}

void ValueTracker::walkExpr(const Expr *E, State &St) {
  if (!E)
    return;
  if (const auto *D = dyn_cast<DeclRefExpr>(E)) {
    use(D, St);
    return;
  }
  if (isa<LambdaExpr>(E))
    return;
  if (const auto *B = dyn_cast<BinaryOperator>(E)) {
    if (B->getOpcode() == BO_LAnd || B->getOpcode() == BO_LOr) {
      walkExpr(B->getLHS(), St);
      State Right = St;
      walkExpr(B->getRHS(), Right);
      merge(St, Right, St, true, true, B->getLHS(), B);
      return;
    }
    if (B->isAssignmentOp()) {
      walkExpr(B->getRHS(), St);
      const Expr *L = B->getLHS()->IgnoreParens();
      const VarDecl *V = trackedVar(L);
      if (V && B->getOpcode() == BO_Assign) {
        ValueDef D;
        D.Kind = ValueDef::Value;
        D.E = B->getRHS();
        D.At = B;
        assign(V, D, St);
        return;
      }
      if (V) {
        use(cast<DeclRefExpr>(L->IgnoreParenImpCasts()), St);
        ValueDef D;
        D.Kind = ValueDef::Compound;
        D.Op = BinaryOperator::getOpForCompoundAssignment(B->getOpcode());
        D.E = B->getRHS();
        D.Prev = St[V];
        D.At = B;
        assign(V, D, St);
        return;
      }
      walkExpr(B->getLHS(), St);
      // `v.x = e`, `a[j] = e`: a part of a tracked variable.
      const Expr *Base = L->IgnoreParenImpCasts();
      while (true) {
        if (const auto *M = dyn_cast<MemberExpr>(Base); M && !M->isArrow())
          Base = M->getBase()->IgnoreParenImpCasts();
        else if (const auto *A = dyn_cast<ArraySubscriptExpr>(Base);
                 A && subscriptBase(A)->IgnoreParenImpCasts()->getType()->isArrayType())
          Base = subscriptBase(A)->IgnoreParenImpCasts();
        else
          break;
      }
      if (const VarDecl *PV = trackedVar(Base); PV && Base != L->IgnoreParenImpCasts()) {
        ValueDef D;
        D.Kind = ValueDef::Partial;
        D.E = B->getRHS();
        D.Prev = St.count(PV) ? St[PV] : -1;
        D.At = B;
        assign(PV, D, St);
      }
      return;
    }
  }
  if (const auto *U = dyn_cast<UnaryOperator>(E)) {
    const VarDecl *V = trackedVar(U->getSubExpr());
    if (V && U->isIncrementDecrementOp()) {
      use(cast<DeclRefExpr>(U->getSubExpr()->IgnoreParenImpCasts()), St);
      ValueDef D;
      D.Kind = ValueDef::Step;
      D.Delta = U->isIncrementOp() ? 1 : -1;
      D.Prev = St[V];
      D.At = U;
      assign(V, D, St);
      return;
    }
    if (V && U->getOpcode() == UO_AddrOf) {
      ValueDef D;
      D.Kind = ValueDef::Unknown;
      D.At = U;
      D.Reason = "the address of '" + V->getNameAsString() + "' is taken at line " +
                 std::to_string(lineOf(Ctx, U->getBeginLoc()));
      assign(V, D, St);
      return;
    }
  }
  if (const auto *C = dyn_cast<AbstractConditionalOperator>(E)) {
    walkExpr(C->getCond(), St);
    State T = St, F = St;
    walkExpr(C->getTrueExpr(), T);
    walkExpr(C->getFalseExpr(), F);
    merge(St, T, F, true, true, C->getCond(), C);
    return;
  }
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E)) {
    // v = w, v += w for class types (int4, float2).
    if (auto A = asAssignment(Op))
      if (const VarDecl *V = trackedVar(A->LHS)) {
        walkExpr(A->RHS, St);
        ValueDef D;
        D.At = Op;
        D.E = A->RHS;
        if (A->Op == BO_Assign) {
          D.Kind = ValueDef::Value;
        } else {
          use(cast<DeclRefExpr>(A->LHS->IgnoreParenImpCasts()), St);
          D.Kind = ValueDef::Partial;
          D.Prev = St[V];
        }
        assign(V, D, St);
        return;
      }
  }
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    for (const Stmt *Child : Call->children())
      if (const auto *X = dyn_cast_or_null<Expr>(Child))
        walkExpr(X, St);
    // A tracked variable passed to a non-const reference may change.
    if (const FunctionDecl *FD = Call->getDirectCallee())
      for (unsigned I = 0; I < Call->getNumArgs() && I < FD->getNumParams(); ++I) {
        QualType PT = FD->getParamDecl(I)->getType();
        if (!PT->isReferenceType() || PT->getPointeeType().isConstQualified())
          continue;
        if (const VarDecl *V = trackedVar(Call->getArg(I))) {
          ValueDef D;
          D.Kind = ValueDef::Unknown;
          D.At = Call;
          D.Reason = "'" + V->getNameAsString() + "' is passed by reference to '" +
                     calleeName(Call).str() + "'";
          assign(V, D, St);
        }
      }
    return;
  }
  if (const auto *SE = dyn_cast<StmtExpr>(E)) {
    walkStmt(SE->getSubStmt(), St);
    return;
  }
  for (const Stmt *Child : E->children())
    if (const auto *X = dyn_cast_or_null<Expr>(Child))
      walkExpr(X, St);
}

} // namespace forge::analysis
