//===- Analysis/Guards.cpp - The conditions under which code runs ---------===//
#include "AstUtil.h"
#include "KernelAnalyzer.h"
#include "clang/AST/StmtCXX.h"
#include "llvm/ADT/STLExtras.h"

using namespace clang;
using namespace llvm;

namespace forge::analysis {

StringRef guardOriginName(GuardOrigin O) {
  switch (O) {
  case GuardOrigin::If:
    return "if";
  case GuardOrigin::EarlyExit:
    return "early-exit";
  case GuardOrigin::LoopExit:
    return "loop-exit";
  case GuardOrigin::Conditional:
    return "conditional";
  case GuardOrigin::ShortCircuit:
    return "short-circuit";
  }
  return "if";
}

std::string Guard::render() const {
  std::vector<std::string> Parts;
  for (const GuardTerm &T : Terms)
    if (!is_contained(Parts, T.Text))
      Parts.push_back(T.Text);
  return join(Parts, " && ");
}

UniformityInfo Guard::uniformity() const {
  UniformityInfo U;
  for (const GuardTerm &T : Terms)
    U = U.join(T.Uniform);
  return U;
}

std::vector<const GuardTerm *> Guard::comparisons() const {
  std::vector<const GuardTerm *> Out;
  for (const GuardTerm &T : Terms)
    if (T.Cmp)
      Out.push_back(&T);
  return Out;
}

namespace {
/// The statement always leaves the enclosing block (return, continue,
/// break, goto), or ends in a statement that does.
bool alwaysExits(const Stmt *S, GuardOrigin &How) {
  if (!S)
    return false;
  if (isa<ReturnStmt>(S)) {
    How = GuardOrigin::EarlyExit;
    return true;
  }
  if (isa<ContinueStmt, BreakStmt, GotoStmt>(S)) {
    How = GuardOrigin::LoopExit;
    return true;
  }
  if (const auto *CS = dyn_cast<CompoundStmt>(S))
    return !CS->body_empty() && alwaysExits(CS->body_back(), How);
  if (const auto *If = dyn_cast<IfStmt>(S)) {
    GuardOrigin A, B;
    if (If->getElse() && alwaysExits(If->getThen(), A) && alwaysExits(If->getElse(), B)) {
      How = A == GuardOrigin::EarlyExit && B == GuardOrigin::EarlyExit ? A : GuardOrigin::LoopExit;
      return true;
    }
  }
  return false;
}

std::string negatedText(const Expr *Cond, const ASTContext &Ctx, bool Holds) {
  const Expr *C = Cond->IgnoreParenImpCasts();
  if (const auto *U = dyn_cast<UnaryOperator>(C); U && U->getOpcode() == UO_LNot)
    return negatedText(U->getSubExpr(), Ctx, !Holds);
  if (const auto *B = dyn_cast<BinaryOperator>(C); B && B->isComparisonOp()) {
    BinaryOperatorKind Op =
        Holds ? B->getOpcode() : BinaryOperator::negateComparisonOp(B->getOpcode());
    return textOf(B->getLHS(), Ctx) + " " + BinaryOperator::getOpcodeStr(Op).str() + " " +
           textOf(B->getRHS(), Ctx);
  }
  std::string T = textOf(C, Ctx);
  if (Holds)
    return T;
  bool Simple = isa<DeclRefExpr, CallExpr, ArraySubscriptExpr, MemberExpr>(C);
  return Simple ? "!" + T : "!(" + T + ")";
}
} // namespace

Guard KernelAnalyzer::guardOf(const Stmt *S) {
  Guard G;
  if (!S)
    return G;
  // Adds Cond (holding or not), split into conjuncts where it holds as a
  // conjunction; a bool local is followed to its definition.
  std::function<void(const Expr *, bool, GuardOrigin, unsigned)> Add =
      [&](const Expr *Cond, bool Holds, GuardOrigin O, unsigned Depth) {
        if (!Cond)
          return;
        const Expr *C = Cond->IgnoreParenImpCasts();
        if (const auto *U = dyn_cast<UnaryOperator>(C); U && U->getOpcode() == UO_LNot)
          return Add(U->getSubExpr(), !Holds, O, Depth);
        if (const auto *B = dyn_cast<BinaryOperator>(C)) {
          if ((B->getOpcode() == BO_LAnd && Holds) || (B->getOpcode() == BO_LOr && !Holds)) {
            Add(B->getLHS(), Holds, O, Depth);
            Add(B->getRHS(), Holds, O, Depth);
            return;
          }
        }
        if (Depth < 4)
          if (const Expr *D = definingExpr(C); D && D != C && D->getType()->isBooleanType())
            return Add(D, Holds, O, Depth + 1);
        GuardTerm T;
        T.Cond = Cond;
        T.Holds = Holds;
        T.Origin = O;
        T.Text = negatedText(C, Ctx, Holds);
        T.Cmp = comparisonOf(C, Holds);
        if (!T.Cmp)
          T.Why = "'" + text(C) + "' is not a comparison of integers";
        T.Uniform = uniformityOf(C);
        T.Loc = span(C);
        G.Terms.push_back(std::move(T));
      };
  std::vector<std::pair<const Expr *, std::pair<bool, GuardOrigin>>> Found;
  const Stmt *Prev = S;
  for (const Stmt *P = parentOf(S); P; Prev = P, P = parentOf(P)) {
    if (const auto *If = dyn_cast<IfStmt>(P)) {
      if (Prev == If->getThen())
        Found.push_back({If->getCond(), {true, GuardOrigin::If}});
      else if (Prev == If->getElse())
        Found.push_back({If->getCond(), {false, GuardOrigin::If}});
    } else if (const auto *C = dyn_cast<ConditionalOperator>(P)) {
      if (Prev == C->getTrueExpr())
        Found.push_back({C->getCond(), {true, GuardOrigin::Conditional}});
      else if (Prev == C->getFalseExpr())
        Found.push_back({C->getCond(), {false, GuardOrigin::Conditional}});
    } else if (const auto *B = dyn_cast<BinaryOperator>(P)) {
      if (B->getOpcode() == BO_LAnd && Prev == B->getRHS())
        Found.push_back({B->getLHS(), {true, GuardOrigin::ShortCircuit}});
      else if (B->getOpcode() == BO_LOr && Prev == B->getRHS())
        Found.push_back({B->getLHS(), {false, GuardOrigin::ShortCircuit}});
    } else if (const auto *CS = dyn_cast<CompoundStmt>(P)) {
      // Pushed in reverse, so that the final reversal keeps source order.
      std::vector<std::pair<const Expr *, std::pair<bool, GuardOrigin>>> Exits;
      for (const Stmt *Child : CS->body()) {
        if (Child == Prev)
          break;
        const auto *If = dyn_cast<IfStmt>(Child);
        if (!If)
          continue;
        GuardOrigin How;
        if (alwaysExits(If->getThen(), How) && !(If->getElse() && alwaysExits(If->getElse(), How)))
          Exits.push_back({If->getCond(), {false, How}});
        else if (If->getElse() && alwaysExits(If->getElse(), How))
          Exits.push_back({If->getCond(), {true, How}});
      }
      Found.insert(Found.end(), Exits.rbegin(), Exits.rend());
    }
    if (P == Body)
      break;
  }
  // Outermost first: the order a reader meets them.
  for (auto It = Found.rbegin(); It != Found.rend(); ++It)
    Add(It->first, It->second.first, It->second.second, 0);
  return G;
}

} // namespace forge::analysis
