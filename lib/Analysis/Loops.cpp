//===- Analysis/Loops.cpp - Loops and their induction variables -----------===//
#include "AstUtil.h"
#include "KernelAnalyzer.h"
#include "forge/Frontend/CudaBuiltins.h"
#include "clang/AST/DynamicRecursiveASTVisitor.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "llvm/ADT/STLExtras.h"

using namespace clang;
using namespace llvm;

namespace forge::analysis {

StringRef loopKindName(LoopKind K) {
  switch (K) {
  case LoopKind::For:
    return "for";
  case LoopKind::While:
    return "while";
  case LoopKind::DoWhile:
    return "do-while";
  case LoopKind::RangeFor:
    return "range-for";
  }
  return "for";
}

StringRef stepKindName(StepKind K) {
  switch (K) {
  case StepKind::Constant:
    return "constant";
  case StepKind::GridStride:
    return "grid-stride";
  case StepKind::BlockStride:
    return "block-stride";
  case StepKind::Uniform:
    return "uniform";
  case StepKind::Geometric:
    return "geometric";
  case StepKind::Varying:
    return "varying";
  case StepKind::Unknown:
    return "unknown";
  }
  return "unknown";
}

std::optional<IndexForm> Loop::lastValue() const {
  if (!Bound || !Step)
    return std::nullopt;
  auto S = Step->constantValue();
  if (S == 1 && Cmp == CmpOp::LT)
    return *Bound - IndexForm::constant(1);
  if (S == 1 && Cmp == CmpOp::LE)
    return *Bound;
  if (S == -1 && Cmp == CmpOp::GT)
    return *Bound + IndexForm::constant(1);
  if (S == -1 && Cmp == CmpOp::GE)
    return *Bound;
  return std::nullopt;
}

namespace {
const VarDecl *varOf(const Expr *E) {
  if (!E)
    return nullptr;
  const auto *D = dyn_cast<DeclRefExpr>(stripIntCasts(E));
  return D ? dyn_cast<VarDecl>(D->getDecl()) : nullptr;
}

/// The comparisons of a condition's top-level conjunction.
void conjuncts(const Expr *E, std::vector<const Expr *> &Out) {
  if (!E)
    return;
  E = E->IgnoreParenImpCasts();
  if (const auto *B = dyn_cast<BinaryOperator>(E); B && B->getOpcode() == BO_LAnd) {
    conjuncts(B->getLHS(), Out);
    conjuncts(B->getRHS(), Out);
    return;
  }
  Out.push_back(E);
}

/// The variables compared in a condition, in order.
std::vector<const VarDecl *> comparedVars(const Expr *Cond) {
  std::vector<const Expr *> Parts;
  conjuncts(Cond, Parts);
  std::vector<const VarDecl *> Out;
  for (const Expr *P : Parts)
    if (const auto *B = dyn_cast<BinaryOperator>(P); B && B->isComparisonOp())
      for (const Expr *Side : {B->getLHS(), B->getRHS()})
        if (const VarDecl *V = varOf(Side))
          if (!is_contained(Out, V))
            Out.push_back(V);
  return Out;
}

class LoopCollector : public DynamicRecursiveASTVisitor {
public:
  std::vector<const Stmt *> Found;
  bool VisitForStmt(ForStmt *S) override { return add(S); }
  bool VisitWhileStmt(WhileStmt *S) override { return add(S); }
  bool VisitDoStmt(DoStmt *S) override { return add(S); }
  bool VisitCXXForRangeStmt(CXXForRangeStmt *S) override { return add(S); }
  bool TraverseLambdaExpr(LambdaExpr *) override { return true; }

private:
  bool add(const Stmt *S) {
    Found.push_back(S);
    return true;
  }
};

/// Exits of a loop body: break (not of a nested loop or switch), return, goto.
class ExitFinder : public DynamicRecursiveASTVisitor {
public:
  std::vector<const Stmt *> Exits;
  bool Sync = false;
  unsigned Nest = 0;
  bool TraverseForStmt(ForStmt *S) override {
    return nested([&] { return Base::TraverseForStmt(S); });
  }
  bool TraverseWhileStmt(WhileStmt *S) override {
    return nested([&] { return Base::TraverseWhileStmt(S); });
  }
  bool TraverseDoStmt(DoStmt *S) override {
    return nested([&] { return Base::TraverseDoStmt(S); });
  }
  bool TraverseSwitchStmt(SwitchStmt *S) override {
    return nested([&] { return Base::TraverseSwitchStmt(S); });
  }
  bool VisitBreakStmt(BreakStmt *S) override {
    if (!Nest)
      Exits.push_back(S);
    return true;
  }
  bool VisitReturnStmt(ReturnStmt *S) override {
    Exits.push_back(S);
    return true;
  }
  bool VisitGotoStmt(GotoStmt *S) override {
    Exits.push_back(S);
    return true;
  }
  bool VisitCallExpr(CallExpr *C) override {
    Sync |= isBlockSync(calleeName(C));
    if (const auto *M = dyn_cast<CXXMemberCallExpr>(C))
      if (const auto *MD = M->getMethodDecl(); MD && MD->getIdentifier())
        Sync |= MD->getName() == "sync";
    return true;
  }

private:
  using Base = DynamicRecursiveASTVisitor;
  template <typename F> bool nested(F Fn) {
    ++Nest;
    bool R = Fn();
    --Nest;
    return R;
  }
};
} // namespace

void KernelAnalyzer::findLoops() {
  LoopCollector C;
  C.TraverseStmt(const_cast<Stmt *>(Body));
  for (const Stmt *S : C.Found) {
    unsigned Id = unsigned(Loops.size());
    LoopIds[S] = Id;
    Loop L;
    L.Id = Id;
    L.S = S;
    L.Loc = span(S);
    LoopSyntax Syn;
    Syn.S = S;
    if (isa<ForStmt>(S))
      L.Kind = LoopKind::For;
    else if (isa<WhileStmt>(S))
      L.Kind = LoopKind::While;
    else if (isa<DoStmt>(S))
      L.Kind = LoopKind::DoWhile;
    else
      L.Kind = LoopKind::RangeFor;
    Loops.push_back(L);
    LoopSyn.push_back(Syn);
  }
  // Parents: the innermost other loop that contains the statement.
  for (Loop &L : Loops) {
    for (const Stmt *P = parentOf(L.S); P; P = parentOf(P)) {
      auto It = LoopIds.find(P);
      if (It != LoopIds.end()) {
        L.Parent = int(It->second);
        break;
      }
    }
  }
  for (Loop &L : Loops)
    for (int P = L.Parent; P >= 0; P = Loops[P].Parent)
      ++L.Depth;

  // Induction variables.
  for (Loop &L : Loops) {
    LoopSyntax &Syn = LoopSyn[L.Id];
    const Stmt *Body = nullptr;
    const Expr *Cond = nullptr;
    std::vector<const VarDecl *> Candidates;
    const Expr *Inc = nullptr;
    if (const auto *F = dyn_cast<ForStmt>(L.S)) {
      Cond = F->getCond();
      Inc = F->getInc();
      Body = F->getBody();
      if (const auto *DS = dyn_cast_or_null<DeclStmt>(F->getInit())) {
        for (const Decl *D : DS->decls())
          if (const auto *V = dyn_cast<VarDecl>(D))
            Candidates.push_back(V);
      } else if (const auto *E = dyn_cast_or_null<Expr>(F->getInit())) {
        for (const VarDecl *V : assignedVars(E))
          Candidates.push_back(V);
      }
      for (const VarDecl *V : comparedVars(Cond))
        if (!is_contained(Candidates, V))
          Candidates.push_back(V);
    } else if (const auto *W = dyn_cast<WhileStmt>(L.S)) {
      Cond = W->getCond();
      Body = W->getBody();
      Candidates = comparedVars(Cond);
    } else if (const auto *D = dyn_cast<DoStmt>(L.S)) {
      Cond = D->getCond();
      Body = D->getBody();
      Candidates = comparedVars(Cond);
    } else {
      Syn.Why = "a range-based for loop has no integer induction variable";
      L.Why = Syn.Why;
      continue;
    }
    Syn.Cond = Cond;
    // The compared candidates first: `for (int i = 0, j = n; i < j; ...)`.
    std::vector<const VarDecl *> Compared = comparedVars(Cond);
    llvm::stable_sort(Candidates, [&](const VarDecl *A, const VarDecl *B) {
      return is_contained(Compared, A) && !is_contained(Compared, B);
    });
    for (const VarDecl *V : Candidates) {
      if (!V->getType()->isIntegerType() && !V->getType()->isPointerType() &&
          !V->getType()->isDependentType())
        continue;
      const Expr *Update = nullptr;
      // In the increment, possibly one part of a comma list.
      if (Inc) {
        std::vector<const Expr *> Parts;
        std::function<void(const Expr *)> Split = [&](const Expr *X) {
          X = X->IgnoreParens();
          if (const auto *B = dyn_cast<BinaryOperator>(X); B && B->getOpcode() == BO_Comma) {
            Split(B->getLHS());
            Split(B->getRHS());
          } else {
            Parts.push_back(X);
          }
        };
        Split(Inc);
        for (const Expr *P : Parts)
          if (is_contained(assignedVars(P), V))
            Update = Update ? nullptr : P;
      }
      bool InBody = Body && is_contained(assignedVars(Body), V);
      if (Update && InBody) {
        Syn.Why = "the body also assigns '" + V->getNameAsString() + "'";
        continue;
      }
      if (!Update && InBody) {
        // while-style: one unconditional update at the body's top level.
        const auto *CS = dyn_cast<CompoundStmt>(Body);
        unsigned Count = 0;
        const Expr *Found = nullptr;
        if (CS) {
          for (const Stmt *Child : CS->body())
            if (is_contained(assignedVars(Child), V)) {
              ++Count;
              Found = dyn_cast<Expr>(Child);
            }
        } else {
          Count = 1;
          Found = dyn_cast<Expr>(Body);
        }
        if (Count != 1 || !Found) {
          Syn.Why = "'" + V->getNameAsString() +
                    "' is assigned more than once or conditionally in the loop";
          continue;
        }
        Update = Found;
      }
      if (!Update) {
        if (Syn.Why.empty())
          Syn.Why = "'" + V->getNameAsString() + "' does not change in the loop";
        continue;
      }
      const Expr *Step = nullptr;
      int64_t Sign = 1, Factor = 0;
      if (!matchUpdate(Update, V, Ctx, Step, Sign, Factor)) {
        Syn.Why = "'" + text(Update) + "' is not an additive or geometric step";
        continue;
      }
      Syn.IV = V;
      Syn.Update = Update;
      Syn.StepExpr = Step;
      Syn.Sign = Sign;
      Syn.Factor = Factor;
      Syn.Why.clear();
      break;
    }
    if (!Syn.IV) {
      if (Syn.Why.empty())
        Syn.Why = Cond ? "the condition compares no variable that the loop steps"
                       : "the loop has no condition";
      L.Why = "no induction variable: " + Syn.Why;
      continue;
    }
    L.IV = Syn.IV;
    L.Var = Syn.IV->getNameAsString();
  }
}

void KernelAnalyzer::finishLoops() {
  for (Loop &L : Loops) {
    LoopSyntax &Syn = LoopSyn[L.Id];
    const Stmt *LoopBody = nullptr;
    if (const auto *F = dyn_cast<ForStmt>(L.S))
      LoopBody = F->getBody();
    else if (const auto *W = dyn_cast<WhileStmt>(L.S))
      LoopBody = W->getBody();
    else if (const auto *D = dyn_cast<DoStmt>(L.S))
      LoopBody = D->getBody();
    else if (const auto *R = dyn_cast<CXXForRangeStmt>(L.S))
      LoopBody = R->getBody();
    ExitFinder X;
    X.TraverseStmt(const_cast<Stmt *>(LoopBody));
    L.HasSync = X.Sync;
    L.HasEarlyExit = !X.Exits.empty();
    if (Syn.Cond)
      L.CondText = text(Syn.Cond);

    // How the trip count varies: the condition, and the conditions under
    // which the body leaves early.
    UniformityInfo Trip = Syn.Cond ? uniformityOf(Syn.Cond) : UniformityInfo();
    for (const Stmt *Exit : X.Exits)
      for (const GuardTerm &T : guardOf(Exit).Terms)
        Trip = Trip.join(T.Uniform);
    L.TripUniform = Trip;

    if (!L.IV)
      continue;
    UniformityInfo VU = Syn.IVDef >= 0 ? defUniformity(Syn.IVDef) : UniformityInfo();
    L.VarAtom = Table->loopVar(int(L.Id), L.IV, L.Var, VU);
    L.IterAtom = Table->loopIter(int(L.Id), L.Var);
    if (Syn.EntryDef >= 0)
      L.Start = formOfDef(Syn.EntryDef, 0);
    else
      L.Start = unknownForm(UnknownKind::Opaque, nullptr,
                            "'" + L.Var + "' has no value before the loop", L.IV);
    if (Syn.Factor == 0) {
      IndexForm Step = Syn.StepExpr ? formOf(Syn.StepExpr) : IndexForm::constant(1);
      L.Step = Step.scaled(Syn.Sign);
      Table->setExpansion(L.VarAtom, *L.Start + *L.Step * IndexForm::atom(L.IterAtom));
      // What kind of step.
      auto Dims = [&](char D) {
        IndexForm BD = Opts.Block ? IndexForm::constant((*Opts.Block)[D - 'x'])
                                  : IndexForm::atom(Table->builtin("blockDim", D));
        return BD;
      };
      L.StepK = StepKind::Varying;
      if (L.Step->isConstant())
        L.StepK = StepKind::Constant;
      for (char D : {'x', 'y', 'z'}) {
        IndexForm Grid = Dims(D) * IndexForm::atom(Table->builtin("gridDim", D));
        if (*L.Step == Grid)
          L.StepK = StepKind::GridStride;
        else if (!Opts.Block && *L.Step == Dims(D))
          L.StepK = StepKind::BlockStride;
      }
      if (L.StepK == StepKind::Constant && Opts.Block) {
        // With a known block, `i = threadIdx.x; i < n; i += 256` strides by the block.
        if (auto Tx = Table->findBuiltin("threadIdx", 'x'))
          if (*L.Step == IndexForm::constant((*Opts.Block)[0]) && (*Opts.Block)[0] > 1 &&
              Table->dependsOn(*L.Start, *Tx))
            L.StepK = StepKind::BlockStride;
      }
      if (L.StepK == StepKind::Varying &&
          Table->uniformity(*L.Step).atLeast(Uniformity::WarpUniform))
        L.StepK = StepKind::Uniform;
    } else {
      L.Factor = Syn.Factor;
      L.StepK = StepKind::Geometric;
    }

    // The exit test: `Var op Bound` among the conjuncts of the condition.
    std::vector<const Expr *> Parts;
    conjuncts(Syn.Cond, Parts);
    std::vector<std::string> Extra;
    for (const Expr *P : Parts) {
      const auto *B = dyn_cast<BinaryOperator>(P);
      bool Used = false;
      if (B && B->isComparisonOp() && !L.Bound) {
        const Expr *Other = nullptr;
        BinaryOperatorKind Op = B->getOpcode();
        if (varOf(B->getLHS()) == L.IV && !mentions(B->getRHS(), L.IV)) {
          Other = B->getRHS();
        } else if (varOf(B->getRHS()) == L.IV && !mentions(B->getLHS(), L.IV)) {
          Other = B->getLHS();
          Op = BinaryOperator::reverseComparisonOp(Op);
        }
        if (Other) {
          Used = true;
          L.Bound = formOf(Other);
          switch (Op) {
          case BO_LT:
            L.Cmp = CmpOp::LT;
            break;
          case BO_LE:
            L.Cmp = CmpOp::LE;
            break;
          case BO_GT:
            L.Cmp = CmpOp::GT;
            break;
          case BO_GE:
            L.Cmp = CmpOp::GE;
            break;
          case BO_EQ:
            L.Cmp = CmpOp::EQ;
            break;
          default:
            L.Cmp = CmpOp::NE;
            break;
          }
        }
      }
      if (!Used) {
        Extra.push_back(text(P));
        if (auto C = comparisonOf(P, true))
          L.ExtraCmps.push_back(*C);
      }
    }
    L.ExtraCondText = join(Extra, " && ");
    if (!L.Bound && L.Why.empty())
      L.Why = Syn.Cond ? "the condition '" + L.CondText + "' does not bound '" + L.Var + "'"
                       : "the loop has no condition";

    // Constant trip counts.
    auto S0 = L.Start ? L.Start->constantValue() : std::nullopt;
    auto B0 = L.Bound ? L.Bound->constantValue() : std::nullopt;
    if (S0 && B0 && Extra.empty() && !L.HasEarlyExit) {
      int64_t S = *S0, B = *B0;
      auto Holds = [&](int64_t V) {
        switch (L.Cmp) {
        case CmpOp::LT:
          return V < B;
        case CmpOp::LE:
          return V <= B;
        case CmpOp::GT:
          return V > B;
        case CmpOp::GE:
          return V >= B;
        case CmpOp::EQ:
          return V == B;
        case CmpOp::NE:
          return V != B;
        }
        return false;
      };
      if (L.StepK == StepKind::Geometric) {
        int64_t V = S, N = 0;
        while (Holds(V) && N < 64) {
          ++N;
          V = L.Factor > 0 ? V * L.Factor : V / -L.Factor;
        }
        if (N < 64)
          L.TripCount = N;
      } else if (auto D = L.Step ? L.Step->constantValue() : std::nullopt) {
        L.TripCount = arithmeticTripCount(S, *D, B, L.Cmp);
      }
    }
  }
}

std::optional<int64_t> arithmeticTripCount(int64_t S, int64_t D, int64_t B, CmpOp Cmp) {
  int64_t Dist = B - S;
  switch (Cmp) {
  case CmpOp::LT:
    if (Dist <= 0)
      return 0;
    return D > 0 ? std::optional<int64_t>((Dist + D - 1) / D) : std::nullopt;
  case CmpOp::LE:
    if (Dist < 0)
      return 0;
    return D > 0 ? std::optional<int64_t>(Dist / D + 1) : std::nullopt;
  case CmpOp::GT:
    if (Dist >= 0)
      return 0;
    return D < 0 ? std::optional<int64_t>((-Dist + -D - 1) / -D) : std::nullopt;
  case CmpOp::GE:
    if (Dist > 0)
      return 0;
    return D < 0 ? std::optional<int64_t>(-Dist / -D + 1) : std::nullopt;
  case CmpOp::EQ:
    if (Dist != 0)
      return 0;
    return D != 0 ? std::optional<int64_t>(1) : std::nullopt;
  case CmpOp::NE:
    if (Dist == 0)
      return 0;
    if (D != 0 && Dist % D == 0 && Dist / D > 0)
      return Dist / D;
    return std::nullopt;
  }
  return std::nullopt;
}

} // namespace forge::analysis
