//===- Analysis/UniformityAnalysis.cpp - Which threads see the same value -===//
///
/// \file
/// Thread-uniformity over reaching definitions, as a fixpoint: every
/// definition starts grid-uniform and rises to the join of what it is
/// computed from, of the conditions that choose between definitions (a
/// merge after `if (tid < 16) v = a; else v = b;` varies), and, for values
/// carried by a loop, of the conditions that decide how often the loop
/// updates them. Loads take the uniformity of their address, and vary when
/// the kernel also writes the buffer (another thread may have written it).
///
//===----------------------------------------------------------------------===//
#include "AstUtil.h"
#include "KernelAnalyzer.h"
#include "forge/Frontend/CudaBuiltins.h"
#include "clang/AST/DynamicRecursiveASTVisitor.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"

using namespace clang;
using namespace llvm;

namespace forge::analysis {

namespace {
UniformityInfo grid() { return UniformityInfo(); }
UniformityInfo varying(std::string Why) {
  return makeUniformity(Uniformity::ThreadVarying, std::move(Why));
}

/// Calls whose result differs per lane whatever their arguments.
bool isLaneVaryingCall(StringRef N) {
  return N.starts_with("__shfl") || N == "clock" || N == "clock64" || N == "__clock" ||
         N == "__globaltimer" || N.starts_with("__match") || N == "thread_rank" ||
         N == "__lane_id" || N == "laneid" || N == "curand" || N.starts_with("curand_");
}
/// Calls whose result is the same in every lane of a warp.
bool isWarpVote(StringRef N) {
  return N == "__ballot_sync" || N == "__any_sync" || N == "__all_sync" || N == "__activemask" ||
         N.starts_with("__reduce_") || N == "__uni_sync";
}
bool isBlockVote(StringRef N) {
  return N == "__syncthreads_count" || N == "__syncthreads_and" || N == "__syncthreads_or";
}

/// A device function's body reads threadIdx or calls something lane-varying.
class ThreadReader : public DynamicRecursiveASTVisitor {
public:
  bool Found = false;
  std::string What;
  bool VisitExpr(Expr *E) override {
    if (auto B = frontend::cudaBuiltin(E); B && B->Var == "threadIdx") {
      Found = true;
      What = "threadIdx";
    }
    return !Found;
  }
  bool VisitCallExpr(CallExpr *C) override {
    StringRef N = calleeName(C);
    if (isLaneVaryingCall(N) || isAtomicCallee(N)) {
      Found = true;
      What = N.str();
    }
    return !Found;
  }
};
} // namespace

UniformityInfo KernelAnalyzer::uniformityOf(const Expr *E) {
  return evalUniformity(E, UniformDone);
}

UniformityInfo KernelAnalyzer::defUniformity(int D) const {
  if (D < 0 || size_t(D) >= DefUniform.size())
    return varying("a value the analysis does not follow");
  return DefUniform[D];
}

void KernelAnalyzer::computeUniformity() {
  DefUniform.assign(Tracker->numDefs(), grid());
  for (unsigned Round = 0; Round < 16; ++Round) {
    bool Changed = false;
    for (size_t D = 0; D < DefUniform.size(); ++D) {
      UniformityInfo U = evalDef(int(D));
      if (U.Level > DefUniform[D].Level) {
        DefUniform[D] = U;
        Changed = true;
      }
    }
    if (!Changed)
      break;
  }
  UniformDone = true;
}

UniformityInfo KernelAnalyzer::loopControl(int LoopId, const VarDecl *V, bool Memo) {
  const Loop &L = Loops[LoopId];
  const LoopSyntax &Syn = LoopSyn[LoopId];
  UniformityInfo U = Syn.Cond ? evalUniformity(Syn.Cond, Memo) : grid();
  // Statements whose execution decides how often V is updated: its
  // updates, and the exits of the loop body.
  std::vector<const Stmt *> Points;
  for (int D : Tracker->defsOf(V)) {
    const ValueDef &Def = Tracker->def(D);
    if (Def.At && Def.At != L.S && inside(Def.At, L.S) &&
        (Def.Kind == ValueDef::Value || Def.Kind == ValueDef::Compound ||
         Def.Kind == ValueDef::Step || Def.Kind == ValueDef::Partial))
      Points.push_back(Def.At);
  }
  class Exits : public DynamicRecursiveASTVisitor {
  public:
    std::vector<const Stmt *> &Out;
    explicit Exits(std::vector<const Stmt *> &Out) : Out(Out) {}
    bool VisitBreakStmt(BreakStmt *S) override { return Out.push_back(S), true; }
    bool VisitContinueStmt(ContinueStmt *S) override { return Out.push_back(S), true; }
    bool VisitReturnStmt(ReturnStmt *S) override { return Out.push_back(S), true; }
  } X(Points);
  X.TraverseStmt(const_cast<Stmt *>(L.S));
  for (const Stmt *S : Points) {
    const Stmt *Prev = S;
    for (const Stmt *P = parentOf(S); P && P != L.S; Prev = P, P = parentOf(P)) {
      if (const auto *If = dyn_cast<IfStmt>(P)) {
        if (Prev != If->getCond())
          U = U.join(evalUniformity(If->getCond(), Memo));
      } else if (const auto *C = dyn_cast<AbstractConditionalOperator>(P)) {
        if (Prev != C->getCond())
          U = U.join(evalUniformity(C->getCond(), Memo));
      } else if (const auto *B = dyn_cast<BinaryOperator>(P)) {
        if ((B->getOpcode() == BO_LAnd || B->getOpcode() == BO_LOr) && Prev == B->getRHS())
          U = U.join(evalUniformity(B->getLHS(), Memo));
      } else if (auto It = LoopIds.find(P); It != LoopIds.end()) {
        if (const Expr *C = LoopSyn[It->second].Cond)
          U = U.join(evalUniformity(C, Memo));
      }
    }
  }
  if (U.isThreadVarying() || U.Level > Uniformity::GridUniform)
    if (U.Reason.find("loop") == std::string::npos)
      U.Reason = "how often the loop at line " + std::to_string(L.Loc.Line) + " updates '" +
                 V->getNameAsString() + "' varies: " + U.Reason;
  return U;
}

UniformityInfo KernelAnalyzer::evalDef(int D) {
  const ValueDef &Def = Tracker->def(D);
  auto Prev = [&](int P) {
    return P < 0 ? varying("a value the analysis does not follow") : DefUniform[P];
  };
  switch (Def.Kind) {
  case ValueDef::Value:
    return evalUniformity(Def.E, false);
  case ValueDef::Compound:
  case ValueDef::Partial:
    return Prev(Def.Prev).join(evalUniformity(Def.E, false));
  case ValueDef::Step:
    return Prev(Def.Prev);
  case ValueDef::Merge: {
    UniformityInfo C = evalUniformity(Def.Cond, false);
    UniformityInfo U = Prev(Def.Prev).join(Prev(Def.Other));
    if (C.Level > U.Level)
      return makeUniformity(C.Level, "'" + Def.Var->getNameAsString() +
                                         "' is assigned under the condition '" + text(Def.Cond) +
                                         "', which is " + uniformityName(C.Level).str());
    return U;
  }
  case ValueDef::LoopIV:
  case ValueDef::DerivedIV: {
    UniformityInfo U = Prev(Def.Prev);
    const Expr *Step = Def.Kind == ValueDef::LoopIV ? LoopSyn[Def.Loop].StepExpr : Def.StepExpr;
    if (Step)
      U = U.join(evalUniformity(Step, false));
    return U;
  }
  case ValueDef::LoopCarried:
  case ValueDef::AfterLoop: {
    UniformityInfo U = Prev(Def.Prev);
    for (int Other : Tracker->defsOf(Def.Var)) {
      const ValueDef &O = Tracker->def(Other);
      if (Other != D && O.At && inside(O.At, Loops[Def.Loop].S))
        U = U.join(DefUniform[Other]);
    }
    return U.join(loopControl(Def.Loop, Def.Var, false));
  }
  case ValueDef::Entry:
    return grid();
  case ValueDef::Unknown:
    return varying(Def.Reason);
  }
  return varying("not followed");
}

UniformityInfo KernelAnalyzer::callUniformity(const CallExpr *C, bool Memo) {
  StringRef N = calleeName(C);
  if (const auto *M = dyn_cast<CXXMemberCallExpr>(C))
    if (const auto *MD = M->getMethodDecl(); MD && MD->getIdentifier())
      N = MD->getName();
  if (isAtomicCallee(N))
    return varying("'" + N.str() + "' returns what each thread found in memory");
  if (N == "__shfl_sync" && C->getNumArgs() >= 3) {
    // A broadcast from one lane is the same in every lane.
    UniformityInfo Lane = evalUniformity(C->getArg(2), Memo);
    bool FullWidth = C->getNumArgs() < 4;
    if (!FullWidth)
      if (auto W = constantInt(C->getArg(3), Ctx))
        FullWidth = *W >= 32;
    if (Lane.atLeast(Uniformity::WarpUniform) && FullWidth)
      return makeUniformity(Uniformity::WarpUniform,
                            "'__shfl_sync' broadcasts one lane's value to its warp");
  }
  if (isLaneVaryingCall(N))
    return varying("'" + N.str() + "' differs between lanes");
  if (isWarpVote(N))
    return makeUniformity(Uniformity::WarpUniform,
                          "'" + N.str() + "' is the same in every lane of a warp");
  if (isBlockVote(N))
    return makeUniformity(Uniformity::BlockUniform,
                          "'" + N.str() + "' is the same in every thread of a block");
  UniformityInfo U;
  for (const Expr *A : C->arguments())
    U = U.join(evalUniformity(A, Memo));
  if (const auto *M = dyn_cast<CXXMemberCallExpr>(C))
    U = U.join(evalUniformity(M->getImplicitObjectArgument(), Memo));
  if (N.starts_with("__ld") && C->getNumArgs() >= 1) {
    const ValueDecl *B = baseOf(C->getArg(0));
    if ((!B || WrittenBases.count(B)) && !U.isThreadVarying())
      return varying("'" + text(C) + "' reads memory the kernel writes");
  }
  if (const FunctionDecl *FD = C->getDirectCallee())
    if (const Stmt *Body = FD->getBody()) {
      ThreadReader R;
      R.TraverseStmt(const_cast<Stmt *>(Body));
      if (R.Found)
        return varying("'" + N.str() + "' uses '" + R.What + "'");
    }
  return U;
}

UniformityInfo KernelAnalyzer::evalUniformity(const Expr *E, bool Memo) {
  if (!E)
    return grid();
  E = E->IgnoreParens();
  if (Memo) {
    auto It = ExprUniform.find(E);
    if (It != ExprUniform.end())
      return It->second;
  }
  auto Children = [&]() {
    UniformityInfo U;
    for (const Stmt *Child : E->children())
      if (const auto *X = dyn_cast_or_null<Expr>(Child))
        U = U.join(evalUniformity(X, Memo));
    return U;
  };
  auto Load = [&](UniformityInfo Address) {
    if (Address.isThreadVarying()) {
      Address.Reason = "'" + text(E) + "' is loaded at an address that differs between threads";
      return Address;
    }
    const ValueDecl *B = baseOf(E);
    if (const auto *V = dyn_cast_or_null<VarDecl>(B);
        V && V->hasLocalStorage() && !isa<ParmVarDecl>(V))
      return Address; // a register array: its definitions are in Address
    if (!B)
      return varying("'" + text(E) + "' is loaded through a pointer the analysis cannot trace");
    if (WrittenBases.count(B))
      return varying("'" + text(E) + "' reads '" + B->getNameAsString() +
                     "', which the kernel also writes");
    return Address;
  };
  UniformityInfo U = [&]() -> UniformityInfo {
    if (isa<IntegerLiteral, FloatingLiteral, CharacterLiteral, CXXBoolLiteralExpr,
            clang::StringLiteral, CXXNullPtrLiteralExpr, UnaryExprOrTypeTraitExpr, GNUNullExpr>(E))
      return grid();
    if (auto B = frontend::cudaBuiltin(E)) {
      if (B->Var == "blockDim" && Opts.Block)
        return grid();
      return (*Table)[Table->builtin(B->Var, B->Dim)].Uniform;
    }
    if (const auto *C = dyn_cast<CastExpr>(E))
      return evalUniformity(C->getSubExpr(), Memo);
    if (const auto *D = dyn_cast<DeclRefExpr>(E)) {
      const ValueDecl *VD = D->getDecl();
      if (isa<EnumConstantDecl, NonTypeTemplateParmDecl, FunctionDecl>(VD))
        return grid();
      const auto *V = dyn_cast<VarDecl>(VD);
      if (!V)
        return grid();
      if (Tracker->tracked(V)) {
        int Def = Tracker->defOf(D);
        if (Def < 0)
          return varying("the value of '" + V->getNameAsString() + "' is not followed");
        return Memo ? defUniformity(Def)
                    : (size_t(Def) < DefUniform.size() ? DefUniform[Def] : grid());
      }
      if (const auto *P = dyn_cast<ParmVarDecl>(V); P && P->getDeclContext() == &Kernel)
        return grid();
      if (V->isConstexpr())
        return grid();
      if (V->hasLocalStorage())
        return varying("'" + V->getNameAsString() + "' is not a local the analysis follows");
      if (V->getName() == "warpSize")
        return grid();
      // A global or __shared__ variable read directly.
      if (WrittenBases.count(V) || V->hasAttr<CUDASharedAttr>())
        return varying("'" + V->getNameAsString() + "' is memory the kernel writes");
      return grid();
    }
    if (const auto *A = dyn_cast<ArraySubscriptExpr>(E)) {
      UniformityInfo Addr =
          evalUniformity(A->getBase(), Memo).join(evalUniformity(A->getIdx(), Memo));
      if (E->getType()->isArrayType())
        return Addr;
      return Load(Addr);
    }
    if (const auto *U = dyn_cast<UnaryOperator>(E)) {
      if (U->getOpcode() == UO_Deref)
        return Load(evalUniformity(U->getSubExpr(), Memo));
      return evalUniformity(U->getSubExpr(), Memo);
    }
    if (const auto *M = dyn_cast<MemberExpr>(E)) {
      UniformityInfo Base = evalUniformity(M->getBase(), Memo);
      if (M->isArrow() && !Base.isThreadVarying()) {
        const ValueDecl *B = baseOf(M->getBase());
        if (!B || WrittenBases.count(B))
          return varying("'" + text(E) + "' is loaded from memory the kernel may write");
      }
      return Base;
    }
    if (const auto *C = dyn_cast<CallExpr>(E))
      return callUniformity(C, Memo);
    if (const auto *B = dyn_cast<BinaryOperator>(E)) {
      // threadIdx.x / 32 and threadIdx.x >> 5: the warp number.
      if ((B->getOpcode() == BO_Div || B->getOpcode() == BO_Shr) && Opts.Block &&
          (*Opts.Block)[0] % 32 == 0)
        if (frontend::isCudaBuiltin(stripIntCasts(B->getLHS()), "threadIdx", 'x'))
          if (auto K = constantInt(B->getRHS(), Ctx)) {
            int64_t Div = B->getOpcode() == BO_Div ? *K : (*K >= 0 && *K < 31 ? 1 << *K : 0);
            if (Div > 0 && Div % 32 == 0)
              return makeUniformity(Uniformity::WarpUniform,
                                    "'" + text(E) + "' differs between the warps of a block");
          }
      if (B->getOpcode() == BO_Assign)
        return evalUniformity(B->getRHS(), Memo);
      return Children();
    }
    if (isa<LambdaExpr>(E))
      return grid();
    if (isa<StmtExpr>(E))
      return varying("a statement expression is not followed");
    return Children();
  }();
  if (Memo)
    ExprUniform[E] = U;
  return U;
}

} // namespace forge::analysis
