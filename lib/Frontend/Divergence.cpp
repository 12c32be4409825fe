//===- Frontend/Divergence.cpp --------------------------------------------===//
#include "forge/Frontend/Divergence.h"
#include "forge/Frontend/CudaBuiltins.h"
#include "clang/AST/DynamicRecursiveASTVisitor.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"

using namespace clang;

namespace forge::frontend {

namespace {
/// Thread-invariant builtins (warpSize, blockDim, gridDim); threadIdx and
/// blockIdx differ between threads (blockIdx is uniform within a warp, but
/// keep the rule simple and conservative).
bool isUniformBuiltin(StringRef Name) {
  return Name == "warpSize" || Name == "blockDim" || Name == "gridDim";
}

class UniformExpr : public DynamicRecursiveASTVisitor {
public:
  explicit UniformExpr(ASTContext &Ctx) : Ctx(Ctx) {}
  bool Uniform = true;

  bool VisitDeclRefExpr(DeclRefExpr *E) override {
    const ValueDecl *D = E->getDecl();
    if (isa<EnumConstantDecl>(D) || isa<NonTypeTemplateParmDecl>(D) || isa<FunctionDecl>(D))
      return true;
    if (const auto *VD = dyn_cast<VarDecl>(D)) {
      if (isUniformBuiltin(VD->getName()))
        return true;
      if (VD->isConstexpr() || (VD->getType().isConstQualified() && VD->hasInit() &&
                                VD->getInit()->isEvaluatable(Ctx)))
        return true;
      // Kernel parameters are the same in every thread.
      if (const auto *P = dyn_cast<ParmVarDecl>(VD))
        if (const auto *FD = dyn_cast<FunctionDecl>(P->getDeclContext()))
          if (FD->hasAttr<CUDAGlobalAttr>())
            return true;
      if (LoopVars.count(VD))
        return true;
    }
    Uniform = false;
    return false;
  }
  bool VisitCallExpr(CallExpr *E) override {
    // A call may return anything per thread (e.g. a lane id).
    Uniform = false;
    return false;
  }
  llvm::SmallPtrSet<const VarDecl *, 4> LoopVars;

private:
  ASTContext &Ctx;
};

bool isDim3(QualType T) {
  T = T.getNonReferenceType().getUnqualifiedType();
  if (const auto *RD = T->getAsCXXRecordDecl())
    return RD->getName() == "dim3" || RD->getName() == "uint3";
  return false;
}

std::optional<int64_t> intValue(ASTContext &Ctx, const Expr *E) {
  if (!E || E->isValueDependent() || E->isTypeDependent())
    return std::nullopt;
  Expr::EvalResult R;
  if (!E->EvaluateAsInt(R, Ctx))
    return std::nullopt;
  return R.Val.getInt().getExtValue();
}

/// The block argument of a launch makes each warp a run of consecutive
/// threadIdx.x in one row: a one-dimensional block (an integer, or a dim3
/// whose y and z are 1), or an x dimension that is a multiple of 32.
bool rowsAreWarps(ASTContext &Ctx, const Expr *Block, int Depth = 0) {
  if (!Block || Depth > 2)
    return false;
  const Expr *E = Block->IgnoreImplicit();
  if (const auto *Tmp = dyn_cast<MaterializeTemporaryExpr>(E))
    E = Tmp->getSubExpr()->IgnoreImplicit();
  if (const auto *FC = dyn_cast<CXXFunctionalCastExpr>(E))
    E = FC->getSubExpr()->IgnoreImplicit();
  if (!isDim3(E->getType()))
    return E->getType()->isIntegerType();
  const auto *CE = dyn_cast<CXXConstructExpr>(E);
  if (!CE || CE->getNumArgs() == 0)
    return false;
  if (isDim3(CE->getArg(0)->getType()))
    return CE->getNumArgs() == 1 && rowsAreWarps(Ctx, CE->getArg(0), Depth + 1);
  bool OneD = true;
  for (unsigned I = 1; I < CE->getNumArgs(); ++I)
    OneD = OneD && intValue(Ctx, CE->getArg(I)) == 1;
  if (OneD)
    return true;
  auto X = intValue(Ctx, CE->getArg(0));
  return X && *X > 0 && *X % 32 == 0;
}

/// `threadIdx.x < C` (and its <=, >, >= and swapped spellings) with the
/// threshold C a multiple of 32: where warps are rows, whole warps fall on
/// one side of it.
bool isWarpRowTest(ASTContext &Ctx, const Expr *E) {
  const auto *B = dyn_cast<BinaryOperator>(E->IgnoreParenImpCasts());
  if (!B || !B->isRelationalOp())
    return false;
  const Expr *Bound = B->getRHS();
  bool Swapped = false;
  if (!isCudaBuiltin(B->getLHS(), "threadIdx", 'x')) {
    if (!isCudaBuiltin(B->getRHS(), "threadIdx", 'x'))
      return false;
    Bound = B->getLHS();
    Swapped = true;
  }
  auto K = intValue(Ctx, Bound);
  if (!K)
    return false;
  // tid < K and tid >= K split at K; tid <= K and tid > K at K + 1.
  bool AtK = (B->getOpcode() == BO_LT || B->getOpcode() == BO_GE) != Swapped;
  int64_t Threshold = AtK ? *K : *K + 1;
  return Threshold >= 0 && Threshold % 32 == 0;
}

/// Where a condition is evaluated: its function and, to read the kernel's
/// launches, the index.
struct Env {
  ASTContext &Ctx;
  const FunctionDecl *Fn = nullptr;
  const CallSiteIndex *Calls = nullptr;
};

/// Every launch of Env's kernel in the file has blocks whose rows are warps.
bool kernelRowsAreWarps(const Env &En) {
  if (!En.Calls || !En.Fn || !En.Fn->hasAttr<CUDAGlobalAttr>())
    return false;
  auto Launches = En.Calls->launchesOf(CallSiteIndex::key(En.Fn));
  if (Launches.empty())
    return false;
  return llvm::all_of(Launches, [&](const CallExpr *L) {
    const auto *K = cast<CUDAKernelCallExpr>(L);
    const CallExpr *Config = K->getConfig();
    return Config && Config->getNumArgs() >= 2 && rowsAreWarps(En.Ctx, Config->getArg(1));
  });
}

bool uniform(const Env &En, const Expr *E, const llvm::SmallPtrSet<const VarDecl *, 4> &Loop) {
  if (!E)
    return true;
  const Expr *Bare = E->IgnoreParenImpCasts();
  if (const auto *B = dyn_cast<BinaryOperator>(Bare); B && B->isLogicalOp())
    return uniform(En, B->getLHS(), Loop) && uniform(En, B->getRHS(), Loop);
  if (const auto *U = dyn_cast<UnaryOperator>(Bare); U && U->getOpcode() == UO_LNot)
    return uniform(En, U->getSubExpr(), Loop);
  if (isWarpRowTest(En.Ctx, Bare) && kernelRowsAreWarps(En))
    return true;
  UniformExpr V(En.Ctx);
  V.LoopVars = Loop;
  V.TraverseStmt(const_cast<Expr *>(E));
  return V.Uniform;
}

/// A for-loop whose induction variables start, step and stop uniformly.
bool uniformFor(const Env &En, const ForStmt *F) {
  llvm::SmallPtrSet<const VarDecl *, 4> Vars;
  if (const auto *DS = dyn_cast_or_null<DeclStmt>(F->getInit())) {
    for (const Decl *D : DS->decls())
      if (const auto *VD = dyn_cast<VarDecl>(D)) {
        if (!uniform(En, VD->getInit(), Vars))
          return false;
        Vars.insert(VD);
      }
  } else if (F->getInit()) {
    return false;
  }
  return uniform(En, F->getCond(), Vars) && uniform(En, F->getInc(), Vars);
}

bool contains(const Stmt *Parent, const Stmt *Child) {
  if (!Parent || !Child)
    return false;
  return Parent->getSourceRange().fullyContains(Child->getSourceRange());
}

std::string textOf(ASTContext &Ctx, const Expr *E) {
  if (!E)
    return "";
  const SourceManager &SM = Ctx.getSourceManager();
  CharSourceRange R = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(E->getSourceRange()), SM, Ctx.getLangOpts());
  if (R.isInvalid())
    return "";
  std::string Out;
  for (char C : Lexer::getSourceText(R, SM, Ctx.getLangOpts()))
    if (!isspace(static_cast<unsigned char>(C)))
      Out += C;
    else if (!Out.empty() && Out.back() != ' ')
      Out += ' ';
  return Out;
}

unsigned lineOf(ASTContext &Ctx, SourceLocation L) {
  return Ctx.getSourceManager().getExpansionLineNumber(L);
}

std::string quoted(const FunctionDecl *F) { return "'" + F->getNameAsString() + "'"; }

/// Runs on the device: a kernel or a __device__ (possibly __host__) function.
bool runsOnDevice(const FunctionDecl *F) {
  return F && (F->hasAttr<CUDAGlobalAttr>() || F->hasAttr<CUDADeviceAttr>());
}

class Collector : public DynamicRecursiveASTVisitor {
public:
  using Map = llvm::DenseMap<const FunctionDecl *, std::vector<CallSiteIndex::Site>>;
  Collector(Map &Calls, Map &Others,
            llvm::DenseMap<const FunctionDecl *, std::vector<const CallExpr *>> &Launches)
      : Calls(Calls), Others(Others), Launches(Launches) {
    ShouldVisitTemplateInstantiations = true;
  }

  bool TraverseDecl(Decl *D) override {
    const FunctionDecl *Saved = Current;
    if (auto *FD = dyn_cast_or_null<FunctionDecl>(D))
      Current = FD;
    bool Ok = DynamicRecursiveASTVisitor::TraverseDecl(D);
    Current = Saved;
    return Ok;
  }

  bool VisitCallExpr(CallExpr *C) override {
    const Expr *Callee = C->getCallee();
    if (!Callee)
      return true;
    Callee = Callee->IgnoreParenImpCasts();
    AsCallee.insert(Callee);
    if (const auto *K = dyn_cast<CUDAKernelCallExpr>(C)) {
      if (const FunctionDecl *F = K->getDirectCallee())
        Launches[CallSiteIndex::key(F)].push_back(K);
      return true;
    }
    if (const FunctionDecl *F = C->getDirectCallee()) {
      add(Calls, F, C);
      return true;
    }
    // A dependent call in a template: any function the name may resolve to.
    if (const auto *OE = dyn_cast<OverloadExpr>(Callee)) {
      llvm::SmallPtrSet<const FunctionDecl *, 4> Done;
      for (const NamedDecl *D : OE->decls()) {
        D = D->getUnderlyingDecl();
        const FunctionDecl *F = nullptr;
        if (const auto *T = dyn_cast<FunctionTemplateDecl>(D))
          F = T->getTemplatedDecl();
        else
          F = dyn_cast<FunctionDecl>(D);
        if (F && Done.insert(CallSiteIndex::key(F)).second)
          add(Calls, F, C);
      }
    }
    return true;
  }

  bool VisitDeclRefExpr(DeclRefExpr *E) override {
    if (AsCallee.count(E))
      return true;
    if (const auto *F = dyn_cast<FunctionDecl>(E->getDecl()))
      add(Others, F, E);
    return true;
  }

private:
  void add(Map &M, const FunctionDecl *F, const Expr *E) {
    M[CallSiteIndex::key(F)].push_back({E, Current});
  }

  Map &Calls, &Others;
  llvm::DenseMap<const FunctionDecl *, std::vector<const CallExpr *>> &Launches;
  const FunctionDecl *Current = nullptr;
  llvm::DenseSet<const Expr *> AsCallee;
};
} // namespace

const FunctionDecl *CallSiteIndex::key(const FunctionDecl *F) {
  if (!F)
    return nullptr;
  if (const FunctionDecl *P = F->getTemplateInstantiationPattern())
    F = P;
  return F->getCanonicalDecl();
}

CallSiteIndex::CallSiteIndex(ASTContext &Ctx) {
  Collector C(Calls, Others, Launches);
  C.TraverseAST(Ctx);
}

llvm::ArrayRef<CallSiteIndex::Site> CallSiteIndex::callsOf(const FunctionDecl *F) const {
  auto It = Calls.find(key(F));
  return It == Calls.end() ? llvm::ArrayRef<Site>() : llvm::ArrayRef<Site>(It->second);
}

llvm::ArrayRef<CallSiteIndex::Site> CallSiteIndex::otherUsesOf(const FunctionDecl *F) const {
  auto It = Others.find(key(F));
  return It == Others.end() ? llvm::ArrayRef<Site>() : llvm::ArrayRef<Site>(It->second);
}

llvm::ArrayRef<const CallExpr *> CallSiteIndex::launchesOf(const FunctionDecl *Kernel) const {
  auto It = Launches.find(key(Kernel));
  return It == Launches.end() ? llvm::ArrayRef<const CallExpr *>()
                              : llvm::ArrayRef<const CallExpr *>(It->second);
}

bool isWarpUniform(ASTContext &Ctx, const Expr *E) { return uniform(Env{Ctx}, E, {}); }

const FunctionDecl *enclosingFunction(ASTContext &Ctx, const Stmt &S) {
  DynTypedNode Node = DynTypedNode::create(S);
  while (true) {
    auto Parents = Ctx.getParents(Node);
    if (Parents.empty())
      return nullptr;
    Node = Parents[0];
    if (const auto *FD = Node.get<FunctionDecl>())
      return FD;
  }
}

Uniformity warpUniformAt(ASTContext &Ctx, const Stmt &S, const CallSiteIndex *Calls) {
  Env En{Ctx, enclosingFunction(Ctx, S), Calls};
  Uniformity U;
  auto Fail = [&](const Stmt *At, Uniformity::Cause Why, const Expr *Cond, const char *Reason) {
    U.Uniform = false;
    U.Reason = Reason;
    U.Where = At->getBeginLoc();
    U.Why = Why;
    U.Construct = At;
    U.Cond = Cond;
    return U;
  };
  const char *Divergent = "the call is under divergent control flow";
  DynTypedNode Node = DynTypedNode::create(S);
  const Stmt *Prev = &S;
  while (true) {
    auto Parents = Ctx.getParents(Node);
    if (Parents.empty())
      break;
    Node = Parents[0];
    if (Node.get<FunctionDecl>())
      break;
    const Stmt *P = Node.get<Stmt>();
    if (!P)
      continue;
    using C = Uniformity::Cause;
    if (const auto *If = dyn_cast<IfStmt>(P)) {
      if (!contains(If->getCond(), Prev) && !uniform(En, If->getCond(), {}))
        return Fail(If, C::Branch, If->getCond(), Divergent);
    } else if (const auto *CO = dyn_cast<ConditionalOperator>(P)) {
      if (!contains(CO->getCond(), Prev) && !uniform(En, CO->getCond(), {}))
        return Fail(CO, C::Branch, CO->getCond(), Divergent);
    } else if (const auto *BO = dyn_cast<BinaryOperator>(P)) {
      if (BO->isLogicalOp() && contains(BO->getRHS(), Prev) && !uniform(En, BO->getLHS(), {}))
        return Fail(BO, C::Branch, BO->getLHS(), Divergent);
    } else if (const auto *F = dyn_cast<ForStmt>(P)) {
      if (!uniformFor(En, F))
        return Fail(F, C::Loop, nullptr,
                    "the call is in a loop whose trip count may differ between threads");
    } else if (isa<CXXForRangeStmt>(P)) {
      return Fail(P, C::Loop, nullptr,
                  "the call is in a loop whose trip count may differ between threads");
    } else if (isa<WhileStmt>(P) || isa<DoStmt>(P) || isa<SwitchStmt>(P)) {
      const Expr *Cond = nullptr;
      if (const auto *W = dyn_cast<WhileStmt>(P))
        Cond = W->getCond();
      else if (const auto *D = dyn_cast<DoStmt>(P))
        Cond = D->getCond();
      else if (const auto *Sw = dyn_cast<SwitchStmt>(P))
        Cond = Sw->getCond();
      if (!Cond || !uniform(En, Cond, {}))
        return Fail(P, C::Branch, Cond, Divergent);
    }
    Prev = P;
  }
  // An earlier return under a condition leaves some lanes behind.
  if (En.Fn && En.Fn->getBody()) {
    struct Returns : DynamicRecursiveASTVisitor {
      const SourceManager *SM;
      SourceLocation Before;
      SourceRange Of;
      const Stmt *Found = nullptr;
      bool VisitReturnStmt(ReturnStmt *R) override {
        // 'return f(__shfl(v, 0));' returns after the call, not before it.
        if (SM->isBeforeInTranslationUnit(R->getBeginLoc(), Before) &&
            !R->getSourceRange().fullyContains(Of))
          Found = R;
        return !Found;
      }
    } RV;
    RV.SM = &Ctx.getSourceManager();
    RV.Before = S.getBeginLoc();
    RV.Of = S.getSourceRange();
    RV.TraverseStmt(En.Fn->getBody());
    if (RV.Found)
      return Fail(RV.Found, Uniformity::Cause::EarlyReturn, nullptr,
                  "some lanes may have returned before the call");
  }
  return U;
}

namespace {
/// Walks the callers of a function, depth first, with the functions on the
/// way kept in Stack (a recursive call adds no calling context of its own).
class CallerWalk {
public:
  CallerWalk(ASTContext &Ctx, const CallSiteIndex &Calls, unsigned MaxDepth)
      : Ctx(Ctx), Calls(Calls), MaxDepth(MaxDepth) {}

  /// F (a CallSiteIndex key) is reached by all lanes in every context.
  Uniformity contexts(const FunctionDecl *F, unsigned Depth);

  /// The callers between the function asked about and the failure,
  /// outermost first: "'outer' (line 12)".
  llvm::SmallVector<std::string, 4> Through;
  llvm::SmallVector<const FunctionDecl *, 8> Stack;

private:
  Uniformity unknown(SourceLocation Where, std::string Why) {
    Uniformity U;
    U.Uniform = false;
    U.Why = Uniformity::Cause::Unknown;
    U.Where = Where;
    U.Reason = std::move(Why);
    return U;
  }
  Uniformity divergentCall(const FunctionDecl *F, const Expr *Call, const Uniformity &Local);

  ASTContext &Ctx;
  const CallSiteIndex &Calls;
  unsigned MaxDepth;
};

Uniformity CallerWalk::divergentCall(const FunctionDecl *F, const Expr *Call,
                                     const Uniformity &Local) {
  std::string At = quoted(F) + " is called at line " +
                   std::to_string(lineOf(Ctx, Call->getExprLoc()));
  Uniformity U = Local;
  U.Why = Uniformity::Cause::Caller;
  U.Where = Call->getExprLoc();
  U.Construct = Call;
  switch (Local.Why) {
  case Uniformity::Cause::Branch: {
    std::string Cond = textOf(Ctx, Local.Cond);
    if (Cond.empty())
      U.Reason = At + " under divergent control flow";
    else if (isWarpRowTest(Ctx, Local.Cond))
      U.Reason = At + " under '" + Cond +
                 "', which splits the block at whole warps only when each warp is one row of "
                 "threadIdx.x, and the kernel's launches in this file do not show that";
    else
      U.Reason = At + " under '" + Cond + "', which not every lane of a warp satisfies";
    break;
  }
  case Uniformity::Cause::Loop:
    U.Reason = At + " in a loop whose trip count may differ between threads";
    break;
  case Uniformity::Cause::EarlyReturn:
    U.Reason = At + " after a return at line " +
               std::to_string(lineOf(Ctx, Local.Construct->getBeginLoc())) +
               " that some lanes may have taken";
    break;
  default:
    U.Reason = At + ", where " + Local.Reason;
    break;
  }
  return U;
}

Uniformity CallerWalk::contexts(const FunctionDecl *F, unsigned Depth) {
  if (F->hasAttr<CUDAGlobalAttr>())
    return Uniformity(); // a kernel: every lane starts there
  const SourceManager &SM = Ctx.getSourceManager();
  if (Depth >= MaxDepth)
    return unknown(F->getLocation(),
                   "the callers of " + quoted(F) + " are more than " + std::to_string(MaxDepth) +
                       " calls deep, so whether every lane of a warp reaches it is not known");
  for (const CallSiteIndex::Site &Use : Calls.otherUsesOf(F))
    if (!Use.Caller || runsOnDevice(Use.Caller))
      return unknown(Use.E->getExprLoc(),
                     quoted(F) + " is used at line " +
                         std::to_string(lineOf(Ctx, Use.E->getExprLoc())) +
                         " other than in a direct call, so the lanes that reach it that way are "
                         "not known");
  // The calls on the device, in source order; a template's pattern and its
  // instantiations share a call's location, which is checked once.
  std::vector<CallSiteIndex::Site> Sites;
  for (const CallSiteIndex::Site &S : Calls.callsOf(F))
    if (runsOnDevice(S.Caller))
      Sites.push_back(S);
  llvm::stable_sort(Sites, [&](const CallSiteIndex::Site &A, const CallSiteIndex::Site &B) {
    return SM.isBeforeInTranslationUnit(A.E->getExprLoc(), B.E->getExprLoc());
  });
  if (Sites.empty())
    return unknown(F->getLocation(),
                   "no call of " + quoted(F) +
                       " was seen in this file, so whether every lane of a warp reaches it is "
                       "not known");
  bool Entered = false;
  llvm::DenseSet<std::pair<const FunctionDecl *, SourceLocation>> Done;
  for (const CallSiteIndex::Site &S : Sites) {
    const FunctionDecl *G = CallSiteIndex::key(S.Caller);
    if (!Done.insert({G, S.E->getExprLoc()}).second)
      continue;
    Uniformity Local = warpUniformAt(Ctx, *S.E, &Calls);
    if (!Local.Uniform)
      return divergentCall(F, S.E, Local);
    if (G == F || llvm::is_contained(Stack, G))
      continue; // recursion: G's own calling contexts are being checked
    Entered = true;
    Stack.push_back(G);
    Uniformity Up = contexts(G, Depth + 1);
    Stack.pop_back();
    if (!Up.Uniform) {
      Through.push_back(quoted(G) + " (line " + std::to_string(lineOf(Ctx, S.E->getExprLoc())) +
                        ")");
      return Up;
    }
  }
  if (!Entered)
    return unknown(F->getLocation(),
                   quoted(F) + " is called only from within its own recursion, so whether every "
                               "lane of a warp reaches it is not known");
  return Uniformity();
}
} // namespace

Uniformity warpUniformAcrossCalls(ASTContext &Ctx, const Stmt &S, const CallSiteIndex &Calls,
                                  unsigned MaxDepth) {
  Uniformity Local = warpUniformAt(Ctx, S, &Calls);
  if (!Local.Uniform)
    return Local;
  const FunctionDecl *Fn = enclosingFunction(Ctx, S);
  if (!Fn)
    return Local;
  const FunctionDecl *F = CallSiteIndex::key(Fn);
  CallerWalk W(Ctx, Calls, MaxDepth);
  W.Stack.push_back(F);
  Uniformity U = W.contexts(F, 0);
  if (!U.Uniform && !W.Through.empty()) {
    std::string Path;
    for (const std::string &T : llvm::reverse(W.Through))
      Path += (Path.empty() ? "" : " and ") + T;
    U.Reason = quoted(F) + " is reached through " + Path + "; " + U.Reason;
  }
  return U;
}

} // namespace forge::frontend
