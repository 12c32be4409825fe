//===- Analysis/ValueRange.cpp - Integer value ranges of kernel expressions ===//
#include "forge/Analysis/ValueRange.h"
#include "AstUtil.h"
#include "ValueTracker.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "llvm/Support/MathExtras.h"
#include <algorithm>
#include <map>

using namespace clang;
using namespace llvm;

namespace forge::analysis {

std::string ValueInterval::render() const {
  return (Lo ? "[" + std::to_string(*Lo) : std::string("(-inf")) + ", " +
         (Hi ? std::to_string(*Hi) + "]" : std::string("+inf)"));
}

namespace {

using Interval = ValueInterval;
using Env = std::map<const VarDecl *, Interval>;

Interval point(int64_t V) { return {V, V}; }

Interval join(const Interval &A, const Interval &B) {
  if (A.empty())
    return B;
  if (B.empty())
    return A;
  Interval R;
  if (A.Lo && B.Lo)
    R.Lo = std::min(*A.Lo, *B.Lo);
  if (A.Hi && B.Hi)
    R.Hi = std::max(*A.Hi, *B.Hi);
  return R;
}

Interval meet(const Interval &A, const Interval &B) {
  Interval R = A;
  if (B.Lo)
    R.Lo = R.Lo ? std::max(*R.Lo, *B.Lo) : *B.Lo;
  if (B.Hi)
    R.Hi = R.Hi ? std::min(*R.Hi, *B.Hi) : *B.Hi;
  return R;
}

Env joinEnv(const Env &A, const Env &B) {
  Env R;
  for (const auto &[V, I] : A)
    if (auto It = B.find(V); It != B.end())
      R[V] = join(I, It->second);
  return R; // a variable bounded on one side only is its type's range
}

/// The range of an integer type; none for others.
std::optional<Interval> typeRange(QualType T, const ASTContext &Ctx) {
  T = T.getCanonicalType();
  if (T->isDependentType() || !T->isIntegralOrEnumerationType())
    return std::nullopt;
  if (T->isBooleanType())
    return Interval{0, 1};
  uint64_t W = Ctx.getTypeSize(T);
  if (W == 0 || W > 64)
    return std::nullopt;
  if (T->isUnsignedIntegerOrEnumerationType()) {
    if (W >= 64)
      return Interval{0, std::nullopt};
    return Interval{0, int64_t((uint64_t(1) << W) - 1)};
  }
  if (W >= 64)
    return Interval{std::nullopt, std::nullopt};
  return Interval{-(int64_t(1) << (W - 1)), (int64_t(1) << (W - 1)) - 1};
}

/// A into the type T: itself when it fits, else T's range.
Interval convert(const Interval &A, QualType T, const ASTContext &Ctx) {
  auto R = typeRange(T, Ctx);
  if (!R)
    return {};
  bool Fits = (!R->Lo || (A.Lo && *A.Lo >= *R->Lo)) && (!R->Hi || (A.Hi && *A.Hi <= *R->Hi));
  return Fits ? A : *R;
}

std::optional<int64_t> add(std::optional<int64_t> A, std::optional<int64_t> B) {
  int64_t R;
  if (!A || !B || AddOverflow(*A, *B, R))
    return std::nullopt;
  return R;
}

std::optional<int64_t> mul(int64_t A, int64_t B) {
  int64_t R;
  if (MulOverflow(A, B, R))
    return std::nullopt;
  return R;
}

Interval negate(const Interval &A) {
  Interval R;
  if (A.Hi && *A.Hi != INT64_MIN)
    R.Lo = -*A.Hi;
  if (A.Lo && *A.Lo != INT64_MIN)
    R.Hi = -*A.Lo;
  return R;
}

Interval product(const Interval &A, const Interval &B) {
  if (!A.bounded() || !B.bounded())
    return {};
  std::optional<int64_t> Lo, Hi;
  for (int64_t X : {*A.Lo, *A.Hi})
    for (int64_t Y : {*B.Lo, *B.Hi}) {
      auto P = mul(X, Y);
      if (!P)
        return {};
      Lo = Lo ? std::min(*Lo, *P) : *P;
      Hi = Hi ? std::max(*Hi, *P) : *P;
    }
  return {Lo, Hi};
}

/// The smallest 2^k - 1 at or above V (V >= 0).
int64_t allOnesAbove(int64_t V) {
  uint64_t M = 0;
  while (M < uint64_t(V))
    M = (M << 1) | 1;
  return int64_t(M);
}

bool alwaysExits(const Stmt *S) {
  if (!S)
    return false;
  if (isa<ReturnStmt, BreakStmt, ContinueStmt, GotoStmt>(S))
    return true;
  if (const auto *CS = dyn_cast<CompoundStmt>(S))
    return !CS->body_empty() && alwaysExits(CS->body_back());
  return false;
}

/// The variables S may change: those it assigns, increments or takes the
/// address of (ValueTracker's assignedVars), and those it binds to a
/// reference (a call's reference parameter, a local reference), which may be
/// written through it.
std::vector<const VarDecl *> changedVars(const Stmt *S) {
  std::vector<const VarDecl *> Out = assignedVars(S);
  class References : public RecursiveASTVisitor<References> {
  public:
    std::vector<const VarDecl *> &Out;
    explicit References(std::vector<const VarDecl *> &Out) : Out(Out) {}
    bool VisitCallExpr(CallExpr *C) {
      if (const FunctionDecl *F = C->getDirectCallee())
        for (unsigned I = 0; I < C->getNumArgs() && I < F->getNumParams(); ++I)
          if (F->getParamDecl(I)->getType()->isReferenceType())
            note(C->getArg(I));
      return true;
    }
    bool VisitVarDecl(VarDecl *V) {
      if (V->getType()->isReferenceType() && V->getInit())
        note(V->getInit());
      return true;
    }
    void note(const Expr *E) {
      if (const auto *D = dyn_cast<DeclRefExpr>(E->IgnoreParenCasts()))
        if (const auto *V = dyn_cast<VarDecl>(D->getDecl()))
          Out.push_back(V);
    }
  } R(Out);
  R.TraverseStmt(const_cast<Stmt *>(S));
  return Out;
}

class RangeAnalyzer {
public:
  RangeAnalyzer(const FunctionDecl &Kernel, ASTContext &Ctx) : Kernel(Kernel), Ctx(Ctx) {}

  Interval at(const Expr *E) {
    const Stmt *Body = Kernel.getBody();
    if (!Body)
      return typeOf(E);
    // The path from the body down to E.
    std::vector<const Stmt *> Path{E};
    for (const Stmt *S = E; S != Body;) {
      auto Parents = Ctx.getParents(*S);
      const Stmt *P = Parents.empty() ? nullptr : Parents[0].get<Stmt>();
      if (!P)
        return typeOf(E); // not reached from the body (a declaration's initialiser, ...)
      Path.push_back(P);
      S = P;
    }
    std::reverse(Path.begin(), Path.end());
    Env State;
    for (size_t I = 0; I + 1 < Path.size(); ++I)
      if (!descend(Path[I], Path[I + 1], State))
        break;
    return eval(E, State, 0);
  }

private:
  Interval typeOf(const Expr *E) {
    auto R = typeRange(E->getType(), Ctx);
    return R ? *R : Interval{};
  }

  Interval lookup(const VarDecl *V, const Env &State) {
    if (auto It = State.find(V); It != State.end())
      return It->second;
    auto R = typeRange(V->getType(), Ctx);
    return R ? *R : Interval{};
  }

  void havoc(const Stmt *S, Env &State) {
    if (!S)
      return;
    for (const VarDecl *V : changedVars(S))
      State.erase(V);
  }

  /// Moves State from P into its child C on the path; false when the rest
  /// of the path cannot be followed (the state is then what holds at C).
  bool descend(const Stmt *P, const Stmt *C, Env &State) {
    if (const auto *CS = dyn_cast<CompoundStmt>(P)) {
      for (const Stmt *S : CS->body()) {
        if (S == C)
          break;
        exec(S, State);
      }
      return true;
    }
    if (const auto *If = dyn_cast<IfStmt>(P)) {
      if (C == If->getThen())
        refine(If->getCond(), true, State);
      else if (C == If->getElse())
        refine(If->getCond(), false, State);
      return true;
    }
    if (const auto *F = dyn_cast<ForStmt>(P)) {
      if (C == F->getInit())
        return true;
      exec(F->getInit(), State);
      havoc(F->getBody(), State);
      havoc(F->getInc(), State);
      havoc(F->getCond(), State);
      if (C == F->getBody() && F->getCond())
        refine(F->getCond(), true, State);
      return true;
    }
    if (const auto *W = dyn_cast<WhileStmt>(P)) {
      havoc(W->getBody(), State);
      havoc(W->getCond(), State);
      if (C == W->getBody())
        refine(W->getCond(), true, State);
      return true;
    }
    if (const auto *D = dyn_cast<DoStmt>(P)) {
      havoc(D->getBody(), State);
      havoc(D->getCond(), State);
      return true;
    }
    if (const auto *CO = dyn_cast<ConditionalOperator>(P)) {
      if (C == CO->getTrueExpr())
        refine(CO->getCond(), true, State);
      else if (C == CO->getFalseExpr())
        refine(CO->getCond(), false, State);
      return true;
    }
    if (const auto *BO = dyn_cast<BinaryOperator>(P)) {
      if (C == BO->getRHS() && BO->getOpcode() == BO_LAnd)
        refine(BO->getLHS(), true, State);
      else if (C == BO->getRHS() && BO->getOpcode() == BO_LOr)
        refine(BO->getLHS(), false, State);
      else if (C == BO->getRHS())
        havoc(BO->getLHS(), State);
      return true;
    }
    if (isa<Expr>(P))
      return true; // inside an expression: nothing runs before that changes a local
    // switch, labels, ...: what runs there is not followed.
    havoc(P, State);
    return false;
  }

  /// Runs S on State.
  void exec(const Stmt *S, Env &State) {
    if (!S)
      return;
    if (const auto *CS = dyn_cast<CompoundStmt>(S)) {
      for (const Stmt *X : CS->body())
        exec(X, State);
      return;
    }
    if (const auto *DS = dyn_cast<DeclStmt>(S)) {
      for (const Decl *D : DS->decls())
        if (const auto *V = dyn_cast<VarDecl>(D)) {
          if (V->getType()->isReferenceType())
            havoc(DS, State);
          else if (auto R = typeRange(V->getType(), Ctx))
            State[V] = V->getInit() ? convert(eval(V->getInit(), State, 0), V->getType(), Ctx)
                                    : *R;
        }
      return;
    }
    if (const auto *If = dyn_cast<IfStmt>(S)) {
      if (If->getInit() || If->getConditionVariable()) {
        havoc(S, State);
        return;
      }
      havoc(If->getCond(), State);
      Env Then = State, Else = State;
      refine(If->getCond(), true, Then);
      refine(If->getCond(), false, Else);
      exec(If->getThen(), Then);
      exec(If->getElse(), Else);
      bool ThenExits = alwaysExits(If->getThen()), ElseExits = alwaysExits(If->getElse());
      if (ThenExits && !ElseExits)
        State = Else;
      else if (ElseExits && !ThenExits)
        State = Then;
      else
        State = joinEnv(Then, Else);
      return;
    }
    if (const auto *E = dyn_cast<Expr>(S)) {
      assign(E, State);
      return;
    }
    havoc(S, State); // loops, switch, ...
  }

  /// An expression statement: `v = e`, `v op= e`, `v++`; anything else
  /// forgets the variables it may change.
  void assign(const Expr *E, Env &State) {
    E = E->IgnoreParenImpCasts();
    if (const auto *B = dyn_cast<BinaryOperator>(E); B && B->isAssignmentOp()) {
      const auto *D = dyn_cast<DeclRefExpr>(B->getLHS()->IgnoreParenImpCasts());
      const auto *V = D ? dyn_cast<VarDecl>(D->getDecl()) : nullptr;
      if (V && changedVars(B->getRHS()).empty() && typeRange(V->getType(), Ctx)) {
        Interval R = eval(B->getRHS(), State, 0);
        if (B->getOpcode() != BO_Assign) {
          BinaryOperatorKind Op = BinaryOperator::getOpForCompoundAssignment(B->getOpcode());
          R = binary(Op, lookup(V, State), R);
        }
        State[V] = convert(R, V->getType(), Ctx);
        return;
      }
    }
    if (const auto *U = dyn_cast<UnaryOperator>(E); U && U->isIncrementDecrementOp()) {
      const auto *D = dyn_cast<DeclRefExpr>(U->getSubExpr()->IgnoreParenImpCasts());
      if (const auto *V = D ? dyn_cast<VarDecl>(D->getDecl()) : nullptr;
          V && typeRange(V->getType(), Ctx)) {
        Interval R = lookup(V, State);
        int64_t Step = U->isIncrementOp() ? 1 : -1;
        State[V] = convert({add(R.Lo, Step), add(R.Hi, Step)}, V->getType(), Ctx);
        return;
      }
    }
    havoc(E, State);
  }

  /// Narrows State by Cond evaluating to Holds.
  void refine(const Expr *Cond, bool Holds, Env &State) {
    const Expr *C = Cond->IgnoreParenImpCasts();
    if (const auto *U = dyn_cast<UnaryOperator>(C); U && U->getOpcode() == UO_LNot)
      return refine(U->getSubExpr(), !Holds, State);
    const auto *B = dyn_cast<BinaryOperator>(C);
    if (!B)
      return;
    BinaryOperatorKind Op = B->getOpcode();
    if ((Op == BO_LAnd && Holds) || (Op == BO_LOr && !Holds)) {
      refine(B->getLHS(), Holds, State);
      refine(B->getRHS(), Holds, State);
      return;
    }
    if (Op == BO_LAnd || Op == BO_LOr) {
      // !(a && b): !a, or a && !b; (a || b): a, or !a && b.
      Env First = State, Second = State;
      bool Short = Op == BO_LOr;
      refine(B->getLHS(), Short, First);
      refine(B->getLHS(), !Short, Second);
      refine(B->getRHS(), Short, Second);
      State = joinEnv(First, Second);
      return;
    }
    if (!B->isComparisonOp())
      return;
    if (!Holds)
      Op = BinaryOperator::negateComparisonOp(Op);
    narrow(B->getLHS(), Op, B->getRHS(), State);
    narrow(B->getRHS(), BinaryOperator::reverseComparisonOp(Op), B->getLHS(), State);
  }

  /// L Op R holds: narrows L when it is a variable.
  void narrow(const Expr *L, BinaryOperatorKind Op, const Expr *R, Env &State) {
    const Expr *S = L->IgnoreParenImpCasts();
    const auto *D = dyn_cast<DeclRefExpr>(S);
    const auto *V = D ? dyn_cast<VarDecl>(D->getDecl()) : nullptr;
    if (!V || !typeRange(V->getType(), Ctx))
      return;
    Interval Cur = lookup(V, State);
    // A comparison in an unsigned type of a value that may be negative
    // does not order it as written.
    if (L->getType()->isUnsignedIntegerOrEnumerationType() &&
        !V->getType()->isUnsignedIntegerOrEnumerationType() && !(Cur.Lo && *Cur.Lo >= 0))
      return;
    Interval Other = eval(R, State, 0);
    Interval N;
    switch (Op) {
    case BO_LT:
      N.Hi = add(Other.Hi, -1);
      break;
    case BO_LE:
      N.Hi = Other.Hi;
      break;
    case BO_GT:
      N.Lo = add(Other.Lo, 1);
      break;
    case BO_GE:
      N.Lo = Other.Lo;
      break;
    case BO_EQ:
      N = Other;
      break;
    default:
      return;
    }
    State[V] = meet(Cur, N);
  }

  Interval binary(BinaryOperatorKind Op, const Interval &A, const Interval &B) {
    switch (Op) {
    case BO_Add:
      return {add(A.Lo, B.Lo), add(A.Hi, B.Hi)};
    case BO_Sub: {
      Interval NB = negate(B);
      return {add(A.Lo, NB.Lo), add(A.Hi, NB.Hi)};
    }
    case BO_Mul:
      return product(A, B);
    case BO_Div:
      if (B.Lo && B.Hi && *B.Lo == *B.Hi && *B.Lo > 0 && A.bounded())
        return {*A.Lo / *B.Lo, *A.Hi / *B.Lo}; // truncation is monotonic
      return {};
    case BO_Rem:
      if (B.Lo && *B.Lo > 0 && B.Hi) {
        int64_t M = *B.Hi - 1;
        if (A.Lo && *A.Lo >= 0)
          return {0, A.Hi ? std::min(*A.Hi, M) : M};
        return {-M, M};
      }
      return {};
    case BO_And:
      if (A.Lo && *A.Lo >= 0 && B.Lo && *B.Lo >= 0) {
        std::optional<int64_t> Hi = A.Hi && B.Hi ? std::min(*A.Hi, *B.Hi) : A.Hi ? A.Hi : B.Hi;
        return {0, Hi};
      }
      if (A.Lo && *A.Lo >= 0)
        return {0, A.Hi};
      if (B.Lo && *B.Lo >= 0)
        return {0, B.Hi};
      return {};
    case BO_Or:
    case BO_Xor:
      if (A.Lo && *A.Lo >= 0 && B.Lo && *B.Lo >= 0 && A.Hi && B.Hi)
        return {0, allOnesAbove(std::max(*A.Hi, *B.Hi))};
      return {};
    case BO_Shr:
      if (B.Lo && B.Hi && *B.Lo == *B.Hi && *B.Lo >= 0 && *B.Lo < 63) {
        Interval R;
        if (A.Lo)
          R.Lo = *A.Lo >> *B.Lo;
        if (A.Hi)
          R.Hi = *A.Hi >> *B.Lo;
        if (A.Lo && *A.Lo >= 0 && !A.Hi)
          R.Hi.reset();
        return R;
      }
      if (A.Lo && *A.Lo >= 0)
        return {0, A.Hi};
      return {};
    case BO_Shl:
      if (B.Lo && B.Hi && *B.Lo == *B.Hi && *B.Lo >= 0 && *B.Lo < 62)
        return product(A, point(int64_t(1) << *B.Lo));
      return {};
    case BO_LT:
    case BO_GT:
    case BO_LE:
    case BO_GE:
    case BO_EQ:
    case BO_NE:
    case BO_LAnd:
    case BO_LOr:
      return {0, 1};
    case BO_Comma:
      return B;
    default:
      return {};
    }
  }

  Interval eval(const Expr *E, const Env &State, unsigned Depth) {
    if (!E || Depth > 32 || E->isValueDependent() || E->isTypeDependent())
      return {};
    Interval Type = typeOf(E);
    if (auto C = constantInt(E, Ctx))
      return point(*C);
    const Expr *S = E->IgnoreParens();
    Interval R = Type;
    if (const auto *Cast = dyn_cast<CastExpr>(S)) {
      const Expr *Sub = Cast->getSubExpr();
      if (Sub->getType()->isIntegralOrEnumerationType())
        R = convert(eval(Sub, State, Depth + 1), E->getType(), Ctx);
    } else if (const auto *D = dyn_cast<DeclRefExpr>(S)) {
      if (const auto *V = dyn_cast<VarDecl>(D->getDecl()))
        R = lookup(V, State);
    } else if (const auto *U = dyn_cast<UnaryOperator>(S)) {
      if (U->getOpcode() == UO_Minus)
        R = negate(eval(U->getSubExpr(), State, Depth + 1));
      else if (U->getOpcode() == UO_Plus)
        R = eval(U->getSubExpr(), State, Depth + 1);
      else if (U->getOpcode() == UO_LNot)
        R = {0, 1};
    } else if (const auto *B = dyn_cast<BinaryOperator>(S)) {
      if (B->isAssignmentOp())
        R = Type;
      else
        R = binary(B->getOpcode(), eval(B->getLHS(), State, Depth + 1),
                   eval(B->getRHS(), State, Depth + 1));
    } else if (const auto *CO = dyn_cast<ConditionalOperator>(S)) {
      Env T = State, F = State;
      refine(CO->getCond(), true, T);
      refine(CO->getCond(), false, F);
      R = join(eval(CO->getTrueExpr(), T, Depth + 1), eval(CO->getFalseExpr(), F, Depth + 1));
    } else if (const auto *Call = dyn_cast<CallExpr>(S)) {
      StringRef N = calleeName(Call);
      bool Min = N == "min" || N == "umin" || N == "llmin" || N == "ullmin" || N == "std::min";
      bool Max = N == "max" || N == "umax" || N == "llmax" || N == "ullmax" || N == "std::max";
      if ((Min || Max) && Call->getNumArgs() == 2) {
        Interval A = eval(Call->getArg(0), State, Depth + 1),
                 B = eval(Call->getArg(1), State, Depth + 1);
        if (Min)
          R = {A.Lo && B.Lo ? std::optional<int64_t>(std::min(*A.Lo, *B.Lo)) : std::nullopt,
               A.Hi && B.Hi ? std::optional<int64_t>(std::min(*A.Hi, *B.Hi)) : A.Hi ? A.Hi : B.Hi};
        else
          R = {A.Lo && B.Lo ? std::optional<int64_t>(std::max(*A.Lo, *B.Lo)) : A.Lo ? A.Lo : B.Lo,
               A.Hi && B.Hi ? std::optional<int64_t>(std::max(*A.Hi, *B.Hi)) : std::nullopt};
      } else if (N == "__popc" || N == "__clz" || N == "__ffs") {
        R = {0, 32};
      } else if (N == "__popcll" || N == "__clzll" || N == "__ffsll") {
        R = {0, 64};
      }
    }
    // A value outside the type wrapped (or overflowed): the type's range.
    return convert(R, E->getType(), Ctx);
  }

  const FunctionDecl &Kernel;
  ASTContext &Ctx;
};

} // namespace

ValueInterval valueRange(const Expr *E, const FunctionDecl &Kernel, ASTContext &Ctx) {
  if (!E || E->isValueDependent() || E->isTypeDependent())
    return {};
  return RangeAnalyzer(Kernel, Ctx).at(E);
}

} // namespace forge::analysis
