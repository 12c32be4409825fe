//===- Analysis/ValueRange.cpp - Integer value ranges of kernel expressions ===//
#include "forge/Analysis/ValueRange.h"
#include "AstUtil.h"
#include "ValueTracker.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DynamicRecursiveASTVisitor.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/Support/MathExtras.h"
#include <algorithm>
#include <map>
#include <set>

using namespace clang;
using namespace llvm;

namespace forge::analysis {

std::string ValueInterval::render() const {
  return (Lo ? "[" + std::to_string(*Lo) : std::string("(-inf")) + ", " +
         (Hi ? std::to_string(*Hi) + "]" : std::string("+inf)"));
}

namespace {

/// An end: C * P + K (P the analysis' parameter; C = 0: the constant K).
/// Coefficients other than 0 and 1 stay inside the analysis (`v % nbins`
/// of a signed v is at least 1 - nbins, and adding nbins to it gives 1);
/// SymbolicInterval gets them as constants.
struct End {
  int64_t C = 0;
  int64_t K = 0;
};
/// Inclusive bounds whose ends may name the parameter.
struct Interval {
  std::optional<End> Lo, Hi;
};
using Env = std::map<const VarDecl *, Interval>;
using Notes = std::set<std::string>;

Interval point(int64_t V) { return {End{0, V}, End{0, V}}; }
Interval constant(std::optional<int64_t> Lo, std::optional<int64_t> Hi) {
  Interval R;
  if (Lo)
    R.Lo = End{0, *Lo};
  if (Hi)
    R.Hi = End{0, *Hi};
  return R;
}

/// The range of an integer type; none for others.
std::optional<ValueInterval> typeRange(QualType T, const ASTContext &Ctx) {
  T = T.getCanonicalType();
  if (T->isDependentType() || !T->isIntegralOrEnumerationType())
    return std::nullopt;
  if (T->isBooleanType())
    return ValueInterval{0, 1};
  uint64_t W = Ctx.getTypeSize(T);
  if (W == 0 || W > 64)
    return std::nullopt;
  if (T->isUnsignedIntegerOrEnumerationType()) {
    if (W >= 64)
      return ValueInterval{0, std::nullopt};
    return ValueInterval{0, int64_t((uint64_t(1) << W) - 1)};
  }
  if (W >= 64)
    return ValueInterval{std::nullopt, std::nullopt};
  return ValueInterval{-(int64_t(1) << (W - 1)), (int64_t(1) << (W - 1)) - 1};
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
  class References : public DynamicRecursiveASTVisitor {
  public:
    std::vector<const VarDecl *> &Out;
    explicit References(std::vector<const VarDecl *> &Out) : Out(Out) {}
    bool VisitCallExpr(CallExpr *C) override {
      if (const FunctionDecl *F = C->getDirectCallee())
        for (unsigned I = 0; I < C->getNumArgs() && I < F->getNumParams(); ++I)
          if (F->getParamDecl(I)->getType()->isReferenceType())
            note(C->getArg(I));
      return true;
    }
    bool VisitVarDecl(VarDecl *V) override {
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
  /// Param (may be null): the symbol of the ends, at least ParamMin.
  RangeAnalyzer(const FunctionDecl &Kernel, ASTContext &Ctx, const ParmVarDecl *Param,
                int64_t ParamMin)
      : Kernel(Kernel), Ctx(Ctx), Param(Param) {
    if (!Param)
      return;
    if (auto T = typeRange(Param->getType(), Ctx)) {
      ParamLo = T->Lo;
      ParamHi = T->Hi;
    }
    if (!ParamLo || ParamMin > *ParamLo)
      ParamLo = ParamMin;
  }

  /// The range of E where it runs, and the notes of the variables it reads.
  Interval at(const Expr *E, Notes &Out) {
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
    if (Param && typeRange(Param->getType(), Ctx))
      State[Param] = {End{1, 0}, End{1, 0}};
    for (size_t I = 0; I + 1 < Path.size(); ++I)
      if (!descend(Path[I], Path[I + 1], State))
        break;
    settle(State);
    Touched.clear();
    Interval R = eval(E, State, 0);
    Out = notesOfTouched();
    return R;
  }

  /// The constant that bounds an end from below (above).
  std::optional<int64_t> least(const End &A) const {
    return A.C == 0 ? A.K : add(scaled(A.C, A.C > 0 ? ParamLo : ParamHi), A.K);
  }
  std::optional<SymbolicEnd> exported(const std::optional<End> &A, bool Lo) const;
  std::optional<int64_t> most(const End &A) const {
    return A.C == 0 ? A.K : add(scaled(A.C, A.C > 0 ? ParamHi : ParamLo), A.K);
  }

private:
  // The lattice. Two ends compare when they name the same thing or when the
  // parameter's range orders them (nbins - 1 >= 0 for nbins >= 1).

  static std::optional<int64_t> scaled(int64_t C, std::optional<int64_t> P) {
    int64_t R;
    if (!P || MulOverflow(C, *P, R))
      return std::nullopt;
    return R;
  }
  /// A - B, when it fits.
  static std::optional<End> difference(const End &A, const End &B) {
    End D;
    if (SubOverflow(A.C, B.C, D.C) || SubOverflow(A.K, B.K, D.K))
      return std::nullopt;
    return D;
  }
  /// A <= B for every value of the parameter.
  bool le(const End &A, const End &B) const {
    if (A.C == B.C)
      return A.K <= B.K;
    if (auto D = difference(A, B))
      if (auto M = most(*D))
        return *M <= 0;
    auto MA = most(A), LB = least(B);
    return MA && LB && *MA <= *LB;
  }
  /// A > B for every value of the parameter.
  bool gt(const End &A, const End &B) const {
    if (A.C == B.C)
      return A.K > B.K;
    if (auto D = difference(A, B))
      if (auto L = least(*D))
        return *L > 0;
    auto LA = least(A), MB = most(B);
    return LA && MB && *LA > *MB;
  }
  bool empty(const Interval &A) const { return A.Lo && A.Hi && gt(*A.Lo, *A.Hi); }

  /// The smaller (larger) of two ends, or a constant below (above) both.
  std::optional<End> lower(const std::optional<End> &A, const std::optional<End> &B) const {
    if (!A || !B)
      return std::nullopt;
    if (le(*A, *B))
      return A;
    if (le(*B, *A))
      return B;
    auto LA = least(*A), LB = least(*B);
    if (!LA || !LB)
      return std::nullopt;
    return End{0, std::min(*LA, *LB)};
  }
  std::optional<End> upper(const std::optional<End> &A, const std::optional<End> &B) const {
    if (!A || !B)
      return std::nullopt;
    if (le(*A, *B))
      return B;
    if (le(*B, *A))
      return A;
    auto MA = most(*A), MB = most(*B);
    if (!MA || !MB)
      return std::nullopt;
    return End{0, std::max(*MA, *MB)};
  }
  /// Both ends bound the value: the tighter, or when they do not compare,
  /// the one that names the parameter (what a caller asks about).
  std::optional<End> tighterLo(const std::optional<End> &A, const std::optional<End> &B) const {
    if (!A || !B)
      return A ? A : B;
    if (le(*A, *B))
      return B;
    if (le(*B, *A))
      return A;
    return A->C == 1 ? A : B;
  }
  std::optional<End> tighterHi(const std::optional<End> &A, const std::optional<End> &B) const {
    if (!A || !B)
      return A ? A : B;
    if (le(*A, *B))
      return A;
    if (le(*B, *A))
      return B;
    return A->C == 1 ? A : B;
  }

  Interval join(const Interval &A, const Interval &B) const {
    if (empty(A))
      return B;
    if (empty(B))
      return A;
    return {lower(A.Lo, B.Lo), upper(A.Hi, B.Hi)};
  }
  Interval meet(const Interval &A, const Interval &B) const {
    return {tighterLo(A.Lo, B.Lo), tighterHi(A.Hi, B.Hi)};
  }
  Env joinEnv(const Env &A, const Env &B) const {
    Env R;
    for (const auto &[V, I] : A)
      if (auto It = B.find(V); It != B.end())
        R[V] = join(I, It->second);
    return R; // a variable bounded on one side only is its type's range
  }

  /// The ends as constants.
  Interval relax(const Interval &A) const {
    Interval R;
    if (A.Lo)
      if (auto L = least(*A.Lo))
        R.Lo = End{0, *L};
    if (A.Hi)
      if (auto H = most(*A.Hi))
        R.Hi = End{0, *H};
    return R;
  }
  static std::optional<int64_t> k(const std::optional<End> &A) {
    return A && A->C == 0 ? std::optional<int64_t>(A->K) : std::nullopt;
  }
  static bool bounded(const Interval &A) { return k(A.Lo) && k(A.Hi); }

  std::optional<End> plus(const std::optional<End> &A, const std::optional<End> &B) const {
    End S;
    if (!A || !B || AddOverflow(A->C, B->C, S.C) || AddOverflow(A->K, B->K, S.K))
      return std::nullopt;
    return S;
  }
  std::optional<End> minus(const std::optional<End> &A) const {
    if (!A || A->C == INT64_MIN || A->K == INT64_MIN)
      return std::nullopt;
    return End{-A->C, -A->K};
  }
  /// C times the end A.
  static std::optional<End> times(int64_t C, const std::optional<End> &A) {
    End R;
    if (!A || MulOverflow(C, A->C, R.C) || MulOverflow(C, A->K, R.K))
      return std::nullopt;
    return R;
  }
  Interval negate(const Interval &A) const { return {minus(A.Hi), minus(A.Lo)}; }

  /// The constant A is when it is one.
  static std::optional<int64_t> single(const Interval &A) {
    auto L = k(A.Lo), H = k(A.Hi);
    return L && H && *L == *H ? L : std::nullopt;
  }
  Interval product(const Interval &A0, const Interval &B0) const {
    // A constant times a range bounded on both sides: its ends scaled
    // (2 * nbins).
    for (const auto &[X, Y] : {std::pair(&A0, &B0), std::pair(&B0, &A0)})
      if (auto C = single(*X)) {
        if (*C == 0)
          return point(0);
        Interval R{times(*C, Y->Lo), times(*C, Y->Hi)};
        if (R.Lo && R.Hi)
          return *C > 0 ? R : Interval{R.Hi, R.Lo};
      }
    Interval A = relax(A0), B = relax(B0);
    if (!bounded(A) || !bounded(B))
      return {};
    std::optional<int64_t> Lo, Hi;
    for (int64_t X : {A.Lo->K, A.Hi->K})
      for (int64_t Y : {B.Lo->K, B.Hi->K}) {
        auto P = mul(X, Y);
        if (!P)
          return {};
        Lo = Lo ? std::min(*Lo, *P) : *P;
        Hi = Hi ? std::max(*Hi, *P) : *P;
      }
    return constant(Lo, Hi);
  }

  /// |v| for v in A of the signed type T: the type's least value is its
  /// own absolute value (abs(INT_MIN) wraps to INT_MIN), so A must exclude it.
  Interval absolute(const Interval &A0, QualType T) const {
    auto R = typeRange(T, Ctx);
    if (!R)
      return {};
    Interval A = convert(A0, T);
    auto L = A.Lo ? least(*A.Lo) : std::nullopt;
    if (L && *L >= 0)
      return A;
    if (!L || *L <= R->Lo.value_or(INT64_MIN))
      return constant(R->Lo, R->Hi);
    auto H = A.Hi ? most(*A.Hi) : std::nullopt;
    if (H && *H <= 0)
      return negate(A);
    return {End{0, 0}, upper(minus(A.Lo), A.Hi)};
  }

  /// A into the type T: itself when it fits, else T's range.
  Interval convert(const Interval &A, QualType T) const {
    auto R = typeRange(T, Ctx);
    if (!R)
      return {};
    auto L = A.Lo ? least(*A.Lo) : std::nullopt;
    auto H = A.Hi ? most(*A.Hi) : std::nullopt;
    bool Fits = (!R->Lo || (L && *L >= *R->Lo)) && (!R->Hi || (H && *H <= *R->Hi));
    return Fits ? A : constant(R->Lo, R->Hi);
  }

  Interval typeOf(const Expr *E) const {
    auto R = typeRange(E->getType(), Ctx);
    return R ? constant(R->Lo, R->Hi) : Interval{};
  }

  Interval lookup(const VarDecl *V, const Env &State) const {
    if (auto It = State.find(V); It != State.end())
      return It->second;
    auto R = typeRange(V->getType(), Ctx);
    return R ? constant(R->Lo, R->Hi) : Interval{};
  }

  // Notes: why a variable is wider than its assignments would make it.

  unsigned line(const Stmt *S) const {
    const SourceManager &SM = Ctx.getSourceManager();
    return SM.getPresumedLineNumber(SM.getFileLoc(S->getBeginLoc()));
  }
  static std::string name(const VarDecl *V) { return "'" + V->getName().str() + "'"; }
  /// The notes of the variables the last evaluation looked up (not those
  /// in a load's index or in floating-point arithmetic: they do not reach
  /// an integer range).
  Notes notesOfTouched() const {
    Notes Out;
    for (const VarDecl *V : Touched)
      if (auto It = Why.find(V); It != Why.end())
        Out.insert(It->second.begin(), It->second.end());
    return Out;
  }
  /// R reaches the end of V's type on a side (below, for a signed type):
  /// nothing bounds V there.
  bool wide(const Interval &R, const VarDecl *V) const {
    auto T = typeRange(V->getType(), Ctx);
    if (!T)
      return true;
    // An end that names the parameter bounds the value.
    if (!R.Hi || (R.Hi->C == 0 && T->Hi && R.Hi->K >= *T->Hi))
      return true;
    return V->getType()->isSignedIntegerOrEnumerationType() &&
           (!R.Lo || (R.Lo->C == 0 && T->Lo && R.Lo->K <= *T->Lo));
  }
  /// V takes the value Value of From (which may read V; Keep: V's own
  /// notes stay, `v += e`). A value bounded on both sides needs no notes
  /// but the parameters assigned on the way;
  /// one that is not keeps those of the variables From reads, and its own
  /// when From's width is its own (a call the range does not look into, or
  /// nothing From reads has notes). A parameter assigned is always noted.
  void noteAssigned(const VarDecl *V, const Expr *From, const Stmt *At, bool Keep,
                    const Interval &Value, bool Unknown) {
    Notes N;
    if (!wide(Value, V)) {
      // Bounded: only an assigned parameter stays worth telling.
      for (const std::string &X : notesOfTouched())
        if (Sticky.count(X))
          N.insert(X);
    } else {
      N = notesOfTouched();
      if (Keep)
        N.insert(Why[V].begin(), Why[V].end());
      if (N.empty() || Unknown) {
        std::string T = textOf(From->IgnoreImpCasts(), Ctx);
        if (T.size() > 60)
          T = T.substr(0, 57) + "...";
        N.insert("line " + std::to_string(line(At)) + " sets " + name(V) + " to '" + T +
                 "', whose range is " + render(Value));
      }
    }
    if (isa<ParmVarDecl>(V)) {
      std::string X = "line " + std::to_string(line(At)) + " assigns the parameter " + name(V);
      Sticky.insert(X);
      N.insert(std::move(X));
    }
    Why[V] = std::move(N);
  }
  std::string render(const Interval &R) const;
  /// The variables bounded on both sides need no notes (a branch that
  /// clamped one joined with another).
  void settle(const Env &State) {
    for (auto &[V, N] : Why)
      if (auto It = State.find(V); It != State.end() && !wide(It->second, V))
        for (auto X = N.begin(); X != N.end();)
          X = Sticky.count(*X) ? std::next(X) : N.erase(X);
  }

  /// Forgets what S may change; Cause is the statement that changes it (a
  /// loop, for the variables of its body).
  void havoc(const Stmt *S, Env &State, const Stmt *Cause = nullptr) {
    if (!S)
      return;
    if (!Cause)
      Cause = S;
    bool Loop = isa<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt>(Cause);
    for (const VarDecl *V : changedVars(S)) {
      State.erase(V);
      Why[V] = {Loop ? name(V) + " is assigned in the loop at line " + std::to_string(line(Cause))
                     : "line " + std::to_string(line(Cause)) + " changes " + name(V) +
                           " in a way the range does not follow"};
    }
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
      havoc(F->getBody(), State, F);
      havoc(F->getInc(), State, F);
      havoc(F->getCond(), State, F);
      if (C == F->getBody() && F->getCond())
        refine(F->getCond(), true, State);
      return true;
    }
    if (const auto *W = dyn_cast<WhileStmt>(P)) {
      havoc(W->getBody(), State, W);
      havoc(W->getCond(), State, W);
      if (C == W->getBody())
        refine(W->getCond(), true, State);
      return true;
    }
    if (const auto *D = dyn_cast<DoStmt>(P)) {
      havoc(D->getBody(), State, D);
      havoc(D->getCond(), State, D);
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
          if (V->getType()->isReferenceType()) {
            havoc(DS, State);
          } else if (auto R = typeRange(V->getType(), Ctx)) {
            Unknown = false;
            Touched.clear();
            State[V] = V->getInit() ? convert(eval(V->getInit(), State, 0), V->getType())
                                    : constant(R->Lo, R->Hi);
            Why[V].clear();
            if (V->getInit())
              noteAssigned(V, V->getInit(), DS, false, State[V], Unknown);
          }
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
      auto Before = Why;
      exec(If->getThen(), Then);
      auto AfterThen = std::move(Why);
      Why = std::move(Before);
      exec(If->getElse(), Else);
      for (auto &[V, N] : AfterThen)
        Why[V].insert(N.begin(), N.end());
      bool ThenExits = alwaysExits(If->getThen()), ElseExits = alwaysExits(If->getElse());
      if (ThenExits && !ElseExits)
        State = Else;
      else if (ElseExits && !ThenExits)
        State = Then;
      else
        State = joinEnv(Then, Else);
      settle(State);
      return;
    }
    if (const auto *E = dyn_cast<Expr>(S)) {
      assign(E, State);
      return;
    }
    havoc(S, State); // loops, switch, ...
  }

  /// An expression statement: `v = e`, `v op= e`, `v++`, a comma of them;
  /// anything else forgets the variables it may change.
  void assign(const Expr *E, Env &State) {
    E = E->IgnoreParenImpCasts();
    if (const auto *B = dyn_cast<BinaryOperator>(E); B && B->getOpcode() == BO_Comma) {
      assign(B->getLHS(), State);
      assign(B->getRHS(), State);
      return;
    }
    if (const auto *B = dyn_cast<BinaryOperator>(E); B && B->isAssignmentOp()) {
      const auto *D = dyn_cast<DeclRefExpr>(B->getLHS()->IgnoreParenImpCasts());
      const auto *V = D ? dyn_cast<VarDecl>(D->getDecl()) : nullptr;
      if (V && changedVars(B->getRHS()).empty() && typeRange(V->getType(), Ctx)) {
        Unknown = false;
        Touched.clear();
        Interval R = eval(B->getRHS(), State, 0);
        if (B->getOpcode() != BO_Assign) {
          BinaryOperatorKind Op = BinaryOperator::getOpForCompoundAssignment(B->getOpcode());
          R = binary(Op, lookup(V, State), R);
        }
        State[V] = convert(R, V->getType());
        noteAssigned(V, B->getRHS(), B, B->getOpcode() != BO_Assign, State[V], Unknown);
        return;
      }
    }
    if (const auto *U = dyn_cast<UnaryOperator>(E); U && U->isIncrementDecrementOp()) {
      const auto *D = dyn_cast<DeclRefExpr>(U->getSubExpr()->IgnoreParenImpCasts());
      if (const auto *V = D ? dyn_cast<VarDecl>(D->getDecl()) : nullptr;
          V && typeRange(V->getType(), Ctx)) {
        Interval R = lookup(V, State);
        Touched.clear();
        End Step{false, U->isIncrementOp() ? 1 : -1};
        State[V] = convert({plus(R.Lo, Step), plus(R.Hi, Step)}, V->getType());
        noteAssigned(V, U, U, true, State[V], false);
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
        !V->getType()->isUnsignedIntegerOrEnumerationType()) {
      auto Lo = Cur.Lo ? least(*Cur.Lo) : std::nullopt;
      if (!(Lo && *Lo >= 0))
        return;
    }
    Interval Other = eval(R, State, 0);
    Interval N;
    switch (Op) {
    case BO_LT:
      N.Hi = plus(Other.Hi, End{0, -1});
      break;
    case BO_LE:
      N.Hi = Other.Hi;
      break;
    case BO_GT:
      N.Lo = plus(Other.Lo, End{0, 1});
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
    Interval CA = relax(A), CB = relax(B);
    auto CALo = k(CA.Lo), CAHi = k(CA.Hi), CBLo = k(CB.Lo), CBHi = k(CB.Hi);
    switch (Op) {
    case BO_Add:
      return {plus(A.Lo, B.Lo), plus(A.Hi, B.Hi)};
    case BO_Sub: {
      Interval NB = negate(B);
      return {plus(A.Lo, NB.Lo), plus(A.Hi, NB.Hi)};
    }
    case BO_Mul:
      return product(A, B);
    case BO_Div:
      if (CBLo && CBHi && *CBLo == *CBHi && *CBLo > 0 && bounded(CA))
        return constant(*CALo / *CBLo, *CAHi / *CBLo); // truncation is monotonic
      return {};
    case BO_Rem:
      // v % m, m at least 1: the sign of v and below m in magnitude
      // (-5 % 3 is -2), so in [-(m - 1), m - 1] for any v, nbins - 1
      // and 1 - nbins for a parameter m.
      if (CBLo && *CBLo > 0 && B.Hi) {
        std::optional<End> M = plus(B.Hi, End{0, -1});
        if (!M)
          return {};
        if (CALo && *CALo >= 0)
          return {End{0, 0}, tighterHi(A.Hi, M)};
        if (CAHi && *CAHi <= 0)
          return {tighterLo(A.Lo, minus(M)), End{0, 0}};
        return {minus(M), M};
      }
      return {};
    case BO_And:
      if (CALo && *CALo >= 0 && CBLo && *CBLo >= 0)
        return {End{0, 0}, tighterHi(A.Hi, B.Hi)};
      if (CALo && *CALo >= 0)
        return {End{0, 0}, A.Hi};
      if (CBLo && *CBLo >= 0)
        return {End{0, 0}, B.Hi};
      return {};
    case BO_Or:
    case BO_Xor:
      if (CALo && *CALo >= 0 && CBLo && *CBLo >= 0 && CAHi && CBHi)
        return constant(0, allOnesAbove(std::max(*CAHi, *CBHi)));
      return {};
    case BO_Shr:
      if (CBLo && CBHi && *CBLo == *CBHi && *CBLo >= 0 && *CBLo < 63) {
        std::optional<int64_t> Lo, Hi;
        if (CALo)
          Lo = *CALo >> *CBLo;
        if (CAHi)
          Hi = *CAHi >> *CBLo;
        if (CALo && *CALo >= 0 && !CAHi)
          Hi.reset();
        return constant(Lo, Hi);
      }
      if (CALo && *CALo >= 0)
        return constant(0, CAHi);
      return {};
    case BO_Shl:
      if (CBLo && CBHi && *CBLo == *CBHi && *CBLo >= 0 && *CBLo < 62)
        return product(CA, point(int64_t(1) << *CBLo));
      return {};
    case BO_LT:
    case BO_GT:
    case BO_LE:
    case BO_GE:
    case BO_EQ:
    case BO_NE:
    case BO_LAnd:
    case BO_LOr:
      return constant(0, 1);
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
        R = convert(eval(Sub, State, Depth + 1), E->getType());
    } else if (const auto *D = dyn_cast<DeclRefExpr>(S)) {
      if (const auto *V = dyn_cast<VarDecl>(D->getDecl())) {
        R = lookup(V, State);
        Touched.insert(V);
      }
    } else if (const auto *U = dyn_cast<UnaryOperator>(S)) {
      if (U->getOpcode() == UO_Minus)
        R = negate(eval(U->getSubExpr(), State, Depth + 1));
      else if (U->getOpcode() == UO_Plus)
        R = eval(U->getSubExpr(), State, Depth + 1);
      else if (U->getOpcode() == UO_LNot)
        R = constant(0, 1);
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
          R = {lower(A.Lo, B.Lo), tighterHi(A.Hi, B.Hi)};
        else
          R = {tighterLo(A.Lo, B.Lo), upper(A.Hi, B.Hi)};
      } else if ((N == "abs" || N == "labs" || N == "llabs" || N == "std::abs") &&
                 Call->getNumArgs() == 1 &&
                 Call->getArg(0)->getType()->isIntegralOrEnumerationType()) {
        R = absolute(eval(Call->getArg(0), State, Depth + 1), Call->getArg(0)->getType());
      } else if (N == "__popc" || N == "__clz" || N == "__ffs") {
        R = constant(0, 32);
      } else if (N == "__popcll" || N == "__clzll" || N == "__ffsll") {
        R = constant(0, 64);
      } else if (E->getType()->isIntegralOrEnumerationType()) {
        Unknown = true;
      }
    }
    // A value outside the type wrapped (or overflowed): the type's range.
    return convert(R, E->getType());
  }

  const FunctionDecl &Kernel;
  ASTContext &Ctx;
  const ParmVarDecl *Param;
  std::optional<int64_t> ParamLo, ParamHi;
  /// Per variable, why it is wider than its assignments make it.
  std::map<const VarDecl *, Notes> Why;
  /// The value being evaluated called a function the range does not know.
  bool Unknown = false;
  /// Notes that stay with a value however it is bounded: the parameters
  /// assigned.
  std::set<std::string> Sticky;
  /// The variables the value being evaluated looked up.
  std::set<const VarDecl *> Touched;
};

/// |K| in decimal (INT64_MIN too).
std::string magnitude(int64_t K) {
  return std::to_string(K < 0 ? 0 - uint64_t(K) : uint64_t(K));
}

/// "nbins - 1", "1 - nbins", "2 * nbins + 1", "7".
std::string renderEnd(const End &A, const ParmVarDecl *P) {
  if (A.C == 0 || !P)
    return std::to_string(A.K);
  std::string N = P->getName().str();
  std::string T = (A.C == 1 || A.C == -1 ? "" : magnitude(A.C) + " * ") + N;
  if (A.C < 0)
    return A.K == 0 ? "-" + T : std::to_string(A.K) + " - " + T;
  return A.K == 0 ? T : T + (A.K > 0 ? " + " : " - ") + magnitude(A.K);
}

std::string renderInterval(const std::optional<End> &Lo, const std::optional<End> &Hi,
                           const ParmVarDecl *P) {
  return (Lo ? "[" + renderEnd(*Lo, P) : std::string("(-inf")) + ", " +
         (Hi ? renderEnd(*Hi, P) + "]" : std::string("+inf)"));
}

std::string RangeAnalyzer::render(const Interval &R) const {
  return renderInterval(R.Lo, R.Hi, Param);
}

/// An end for SymbolicInterval: K or P + K as it is, another multiple of
/// P as the constant that bounds it (Lo: from below).
std::optional<SymbolicEnd> RangeAnalyzer::exported(const std::optional<End> &A, bool Lo) const {
  if (!A)
    return std::nullopt;
  if (A->C == 0 || A->C == 1)
    return SymbolicEnd{A->C == 1, A->K};
  auto V = Lo ? least(*A) : most(*A);
  if (!V)
    return std::nullopt;
  return SymbolicEnd{false, *V};
}

} // namespace

std::string SymbolicInterval::render() const {
  auto In = [](const std::optional<SymbolicEnd> &A) -> std::optional<End> {
    if (!A)
      return std::nullopt;
    return End{A->OfParam ? 1 : 0, A->K};
  };
  return renderInterval(In(Lo), In(Hi), Param);
}

SymbolicInterval symbolicRange(const Expr *E, const FunctionDecl &Kernel, ASTContext &Ctx,
                               const ParmVarDecl *Param, int64_t ParamMin) {
  SymbolicInterval Out;
  if (!E || E->isValueDependent() || E->isTypeDependent())
    return Out;
  if (Param && !typeRange(Param->getType(), Ctx))
    Param = nullptr;
  Out.Param = Param;
  RangeAnalyzer A(Kernel, Ctx, Param, ParamMin);
  Notes N;
  Interval R = A.at(E, N);
  Out.Lo = A.exported(R.Lo, true);
  Out.Hi = A.exported(R.Hi, false);
  Out.Notes.assign(N.begin(), N.end());
  return Out;
}

ValueInterval valueRange(const Expr *E, const FunctionDecl &Kernel, ASTContext &Ctx) {
  SymbolicInterval S = symbolicRange(E, Kernel, Ctx, nullptr, 0);
  ValueInterval R;
  if (S.Lo)
    R.Lo = S.Lo->K;
  if (S.Hi)
    R.Hi = S.Hi->K;
  return R;
}

} // namespace forge::analysis
