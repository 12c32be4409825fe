//===- passes/optimize/ElementwiseKernel.cpp - An elementwise map, located ===//
#include "ElementwiseKernel.h"
#include "llvm/Support/Path.h"
#include "RuleAst.h"
#include "RuleUtil.h"
#include "forge/Arch/Occupancy.h"
#include "forge/Frontend/CudaBuiltins.h"
#include "forge/Support/Error.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DynamicRecursiveASTVisitor.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMap.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/FormatVariadic.h"
#include <set>

using namespace clang;
using namespace llvm;

namespace forge::passes {

using analysis::Access;
using analysis::AccessClass;
using analysis::AccessKind;
using analysis::AtomKind;
using analysis::CmpOp;
using analysis::IndexForm;
using analysis::KernelModel;
using analysis::MemorySpace;
using analysis::Pattern;
using analysis::PatternKind;
using analysis::StepKind;
using analysis::Uniformity;

std::string ElementwiseKernel::indexName() const { return Index->getName().str(); }

std::string ElementwiseKernel::useText(unsigned K, StringRef Value) const {
  if (K < Narrow.size() && Narrow[K])
    return "((" + OwnType + ")" + Value.str() + ")";
  return Value.str();
}

std::string ElementwiseKernel::scalarText(StringRef Source, unsigned Begin, unsigned End) const {
  std::string Out;
  unsigned At = Begin;
  for (const auto &[B, E] : NarrowRanges) {
    if (B < At || E > End)
      continue;
    Out += Source.slice(At, B).str() + "((" + OwnType + ")" + Index->getName().str() + ")";
    At = E;
  }
  Out += Source.slice(At, End).str();
  return Out;
}

std::vector<std::string> dedentLines(StringRef Text, StringRef Indent) {
  SmallVector<StringRef, 16> Lines;
  Text.split(Lines, '\n');
  std::vector<std::string> Out;
  for (size_t I = 0; I < Lines.size(); ++I) {
    StringRef Line = Lines[I];
    if (I)
      Line.consume_front(Indent);
    Out.push_back(Line.rtrim().str());
  }
  return Out;
}

std::vector<std::string> underHead(StringRef Head, const std::vector<std::string> &Stmt) {
  std::vector<std::string> Out;
  if (Stmt.empty())
    return {Head.str() + " {}"};
  if (StringRef(Stmt.front()).starts_with("{")) {
    Out.push_back(Head.str() + " " + Stmt.front());
    Out.insert(Out.end(), Stmt.begin() + 1, Stmt.end());
    return Out;
  }
  Out.push_back(Head.str());
  for (const std::string &L : Stmt)
    Out.push_back(L.empty() ? L : "  " + L);
  return Out;
}

/// The bound's text: the expression's own, or, for a bound that is a whole
/// macro expansion (`#define N (1 << 20)` ... `i < N`, where the parentheses
/// stripped from Bound are the macro's), the operand's as written ("N").
static std::string boundText(const Expr *Bound, const Expr *Operand, ASTContext &Ctx) {
  std::string T = textOf(Bound, Ctx);
  return T.empty() ? textOf(Operand, Ctx) : T;
}

SourceEdit eraseIndexDecl(const RuleInput &In, const ElementwiseKernel &K) {
  EditCollector C(In);
  auto R = C.rangeOfStatement(K.IndexDecl);
  SourceEdit E = eraseWithLine(In.Source, R->first, R->second);
  if (E.Offset == R->first) {
    size_t End = In.Source.find('\n', R->second);
    if (In.Source.slice(R->second, End).trim().empty())
      while (E.Offset > 0 && (In.Source[E.Offset - 1] == ' ' || In.Source[E.Offset - 1] == '\t'))
        --E.Offset, ++E.Length;
  }
  return E;
}

std::optional<agent::SpecChange>
wavesCappedGrid(const RuleInput &In, llvm::StringRef Why,
                int64_t SharedBytes) {
  auto Grid = In.Request.Geometry.find("grid.x");
  std::optional<WavesCap> Cap = gridWavesCap(In, SharedBytes);
  if (Grid == In.Request.Geometry.end() || !Cap)
    return std::nullopt;
  std::string Expr = llvm::formatv("min({0}, {1})", Grid->second, Cap->Expr).str();
  std::string Waves = llvm::formatv("FORGE_GRID_WAVES waves of {0} SMs x {1} blocks of {2} threads",
                                    Cap->SMs, Cap->BlocksPerSM, Cap->BlockThreads)
                          .str();
  std::string Sized = ", so grid.x is capped at " + Waves + ": fewer blocks, fewer flushes";
  if (auto Size = launchSize(In);
      Size && Size->Grid[1] == 1 && Size->Grid[2] == 1 && underfillsGpu(In, *Cap, *Size)) {
    Expr = Cap->Expr;
    Sized = llvm::formatv("; {0} has {1} blocks of {2} threads, less than half of what the "
                          "GPU runs at once, so grid.x is raised to {3}, not capped",
                          Size->From, Size->Grid[0], Cap->BlockThreads, Waves)
                .str();
  }
  // The spec language must read it, or the change is worthless.
  if (auto Parsed = measure::IntExpr::parse(Expr); !Parsed) {
    llvm::consumeError(Parsed.takeError());
    return std::nullopt;
  }
  agent::SpecChange S;
  S.Geometry["grid.x"] = Expr;
  if (!In.Request.Tunables.count("FORGE_GRID_WAVES"))
    S.NewTunables["FORGE_GRID_WAVES"] = gridWavesCandidates();
  S.Justification = Why.str() + Sized;
  return S;
}

bool underfillsGpu(const RuleInput &In, const WavesCap &Cap, const LaunchSize &Size) {
  int64_t Fill = int64_t(Cap.SMs) * In.Target.limits().MaxThreadsPerSM;
  int64_t Resident = int64_t(Cap.SMs) * Cap.BlocksPerSM;
  return 2 * Size.Threads < std::min(Fill, Resident * Cap.BlockThreads);
}

std::optional<WavesCap> gridWavesCap(const RuleInput &In, int64_t SharedBytes) {
  if (!In.Request.BlockThreads || *In.Request.BlockThreads <= 0)
    return std::nullopt;
  const arch::SmLimits &L = In.Target.limits();
  WavesCap W;
  W.BlockThreads = *In.Request.BlockThreads;
  W.BlocksPerSM = std::max<int64_t>(
      1, std::min<int64_t>(L.MaxBlocksPerSM, L.MaxThreadsPerSM / W.BlockThreads));
  if (SharedBytes > 0) {
    arch::KernelResources K;
    K.ThreadsPerBlock = int(W.BlockThreads);
    K.StaticSharedBytes = int(SharedBytes);
    if (auto O = arch::computeOccupancy(In.Target, K))
      W.BlocksPerSM = std::max<int64_t>(1, std::min<int64_t>(W.BlocksPerSM,
                                                            O->BlocksBySharedMemory));
    else
      llvm::consumeError(O.takeError());
  }
  W.SMs = In.Request.SmCount ? In.Request.SmCount : 132;
  W.Expr = formatv("{0} * FORGE_GRID_WAVES * {1}", W.SMs, W.BlocksPerSM).str();
  return W;
}

std::vector<int64_t> gridWavesCandidates() { return {4, 1, 2, 8, 16, 32}; }

namespace {


/// `return;` or `{ return; }`.
bool isBareReturn(const Stmt *S) {
  if (const auto *CS = dyn_cast_or_null<CompoundStmt>(S))
    return CS->size() == 1 && isBareReturn(CS->body_front());
  const auto *R = dyn_cast_or_null<ReturnStmt>(S);
  return R && !R->getRetValue();
}

/// Calls that synchronise, communicate between lanes or order memory: a
/// loop over elements (or several elements per thread) changes which
/// threads meet them.
bool isCollective(StringRef N) {
  return N.contains("syncthreads") || N.starts_with("__sync") || N.contains("atomic") ||
         N.starts_with("__shfl") || N.starts_with("__ballot") || N.starts_with("__any") ||
         N.starts_with("__all") || N == "__activemask" || N.starts_with("__match") ||
         N.starts_with("__reduce_") || N.contains("threadfence") || N == "sync" ||
         N == "clock" || N == "clock64" || N.starts_with("__nanosleep") || N == "__trap" ||
         N == "printf";
}

StringRef calleeNameOf(const CallExpr *C) {
  if (const FunctionDecl *FD = C->getDirectCallee())
    if (const IdentifierInfo *II = FD->getIdentifier())
      return II->getName();
  if (const auto *U = dyn_cast<UnresolvedLookupExpr>(C->getCallee()->IgnoreParenImpCasts()))
    if (const IdentifierInfo *II = U->getName().getAsIdentifierInfo())
      return II->getName();
  return "";
}

/// What makes a called device function unsafe to run for another element
/// or several: it reads the thread's or the grid's position, or
/// synchronises; "" when nothing (or its body is not visible: a math
/// library function).
std::string calleeProblem(const FunctionDecl *FD, unsigned Depth,
                          SmallPtrSetImpl<const FunctionDecl *> &Seen) {
  const FunctionDecl *Def = nullptr;
  if (!FD || Depth > 3 || !FD->hasBody(Def) || !Seen.insert(Def).second)
    return "";
  // The 16-bit float headers' intrinsics (__hadd, __float2half) are inline
  // asm on their operands alone: no index, no barrier.
  const SourceManager &SM = Def->getASTContext().getSourceManager();
  StringRef File = sys::path::filename(SM.getFilename(SM.getExpansionLoc(Def->getLocation())));
  if (SM.isInSystemHeader(SM.getExpansionLoc(Def->getLocation())) &&
      (File.starts_with("cuda_fp16") || File.starts_with("cuda_bf16")))
    return "";
  struct Walk : DynamicRecursiveASTVisitor {
    unsigned Depth;
    SmallPtrSetImpl<const FunctionDecl *> &Seen;
    std::string Problem;
    Walk(unsigned Depth, SmallPtrSetImpl<const FunctionDecl *> &Seen) : Depth(Depth), Seen(Seen) {}
    bool VisitDeclRefExpr(DeclRefExpr *E) override {
      if (frontend::isCudaBuiltinVar(E->getDecl()) && E->getDecl()->getName() != "blockDim")
        Problem = "reads '" + E->getDecl()->getName().str() + "'";
      return Problem.empty();
    }
    bool VisitCallExpr(CallExpr *C) override {
      StringRef N = calleeNameOf(C);
      if (isCollective(N))
        Problem = "calls '" + N.str() + "'";
      else if (std::string P = calleeProblem(C->getDirectCallee(), Depth + 1, Seen); !P.empty())
        Problem = "calls '" + N.str() + "', which " + P;
      return Problem.empty();
    }
    bool VisitGCCAsmStmt(GCCAsmStmt *) override {
      Problem = "has inline asm";
      return false;
    }
  } W(Depth, Seen);
  W.TraverseStmt(Def->getBody());
  return W.Problem;
}

/// Why the model found no elementwise map, in its terms.
std::string whyNotElementwise(const KernelModel &M, ASTContext &Ctx) {
  auto At = [&](const Access &A) {
    return "'" + A.Text + "' (line " + std::to_string(A.Loc.Line) + ")";
  };
  auto IndexText = [&](const Access &A) {
    if (const auto *S = dyn_cast_or_null<ArraySubscriptExpr>(A.E))
      if (std::string T = textOf(S->getIdx(), Ctx); !T.empty())
        return T;
    return A.IndexText;
  };
  std::vector<const Access *> Global;
  for (const Access &A : M.Accesses) {
    if (A.Space == MemorySpace::Shared)
      return At(A) + " is in shared memory: a value may come from another thread's element";
    if (A.Space == MemorySpace::Unknown)
      return At(A) + " goes through a pointer the model cannot trace to a kernel parameter";
    if (A.Kind == AccessKind::Atomic)
      return At(A) + " is an atomic: elements are not independent";
    if (!A.IndexKnown)
      return "the index of " + At(A) + " is not known: " + A.IndexWhy;
    Global.push_back(&A);
  }
  const Access *W = nullptr;
  for (const Access *A : Global)
    if (A->writes()) {
      W = A;
      break;
    }
  if (!W)
    return "the kernel stores nothing to global memory";
  for (const Access *A : Global)
    if (A->Index != W->Index && !analysis::isSideRead(*A, W->Index, Global))
      return At(*A) + " is at '" + IndexText(*A) + "', not at the index '" + IndexText(*W) +
             "' of the store " + At(*W) +
             (A->Kind != AccessKind::Load ? ""
              : (A->Index - W->Index).constantValue()
                  ? " (a neighbour: a stencil's read)"
                  : " (a read at an index of its own is kept per element only from a buffer "
                    "the map does not write or read at the index)");
  for (const Access *A : Global)
    if (A->Loops != W->Loops)
      return At(*A) + " and " + At(*W) + " are not inside the same loops";
  for (unsigned L : W->Loops)
    if (M.Loops[L].StepK != StepKind::GridStride && M.Loops[L].StepK != StepKind::BlockStride)
      return At(*W) + " is inside the loop at line " + std::to_string(M.Loops[L].Loc.Line) +
             " over '" + M.Loops[L].Var + "', which is not a loop over elements";
  if (W->Warp.Class != AccessClass::Coalesced)
    return At(*W) + " is " + analysis::accessClassName(W->Warp.Class).str() +
           " across the warp, not one element per thread";
  return "the kernel model sees no elementwise map";
}

/// The top-level statement of Body that holds S.
const Stmt *topLevel(const Stmt *S, const CompoundStmt *Body, ParentMap &PM) {
  const Stmt *Prev = S;
  for (const Stmt *P = PM.getParent(S); P; Prev = P, P = PM.getParent(P))
    if (P == Body)
      return Prev;
  return nullptr;
}

bool within(const Stmt *S, const Stmt *Outer, ParentMap &PM) {
  for (const Stmt *P = S; P; P = PM.getParent(P))
    if (P == Outer)
      return true;
  return false;
}

/// The value of a local declared before the guard depends on the grid's
/// shape (gridDim), through its initialiser and the locals it reads.
bool dependsOnGrid(const Expr *E, unsigned Depth) {
  if (!E || Depth > 6)
    return false;
  struct Walk : DynamicRecursiveASTVisitor {
    unsigned Depth;
    bool Found = false;
    bool VisitDeclRefExpr(DeclRefExpr *D) override {
      const auto *V = dyn_cast<VarDecl>(D->getDecl());
      if (!V)
        return true;
      if (V->getName() == "gridDim" && frontend::isCudaBuiltinVar(V))
        Found = true;
      else if (V->hasLocalStorage() && !isa<ParmVarDecl>(V) && V->getInit())
        Found = dependsOnGrid(V->getInit(), Depth + 1);
      return !Found;
    }
  } W;
  W.Depth = Depth;
  W.TraverseStmt(const_cast<Expr *>(E));
  return W.Found;
}

/// Checks the statements and conditions run per element.
///
/// Stays a RecursiveASTVisitor: its TraverseStmt takes the data-recursion
/// queue, so the builtin check below runs when a statement is queued (all of a
/// node's children before any of them is walked). DynamicRecursiveASTVisitor
/// has no queue; there the check would run only when each child is walked,
/// which can change the failure reported for a body with two problems.
class BodyWalk : public RecursiveASTVisitor<BodyWalk> {
public:
  BodyWalk(ElementwiseKernel &K, ASTContext &Ctx, ParentMap &PM,
           const std::set<const VarDecl *> &BodyLocals)
      : K(K), Ctx(Ctx), PM(PM), BodyLocals(BodyLocals) {}

  std::string Failure;

  bool TraverseForStmt(ForStmt *S) { return nested(Loops, [&] { return Base::TraverseForStmt(S); }); }
  bool TraverseWhileStmt(WhileStmt *S) {
    return nested(Loops, [&] { return Base::TraverseWhileStmt(S); });
  }
  bool TraverseDoStmt(DoStmt *S) { return nested(Loops, [&] { return Base::TraverseDoStmt(S); }); }
  bool TraverseCXXForRangeStmt(CXXForRangeStmt *S) {
    return nested(Loops, [&] { return Base::TraverseCXXForRangeStmt(S); });
  }
  bool TraverseSwitchStmt(SwitchStmt *S) {
    return nested(Switches, [&] { return Base::TraverseSwitchStmt(S); });
  }
  // A lambda's body runs where it is called; its captures are checked as
  // uses.
  bool TraverseLambdaExpr(LambdaExpr *L) {
    return fail(L, "the body defines a lambda, which the rule does not follow");
  }

  // threadIdx.x and its kin, in every form the headers give them.
  bool TraverseStmt(Stmt *S, DataRecursionQueue *Queue = nullptr) {
    if (const auto *E = dyn_cast_or_null<Expr>(S))
      if (auto B = frontend::cudaBuiltin(E)) {
        if (B->Var == "blockDim")
          return true;
        if (B->Var == "gridDim")
          return fail(E, "the body uses '" + textOf(E, Ctx) + "', which a capped grid changes");
        return fail(E, "the body uses '" + textOf(E, Ctx) + "' besides the index '" +
                           K.indexName() +
                           "': in a loop over elements it would not follow the element");
      }
    return Base::TraverseStmt(S, Queue);
  }

  bool VisitReturnStmt(ReturnStmt *R) {
    if (K.Form == ElementGuard::EarlyReturn)
      return fail(R, "the code after the early exit returns again; a loop over elements would "
                     "stop at it");
    return fail(R, "the body returns; a loop over elements would stop at it");
  }
  bool VisitBreakStmt(BreakStmt *B) {
    return Loops || Switches ? true : fail(B, "the body has a 'break' outside its own loops");
  }
  bool VisitContinueStmt(ContinueStmt *C) {
    return Loops ? true : fail(C, "the body has a 'continue' outside its own loops");
  }
  bool VisitGotoStmt(GotoStmt *G) { return fail(G, "the body has a 'goto'"); }
  bool VisitIndirectGotoStmt(IndirectGotoStmt *G) { return fail(G, "the body has a 'goto'"); }
  bool VisitGCCAsmStmt(GCCAsmStmt *A) { return fail(A, "the body has inline asm"); }
  bool VisitCallExpr(CallExpr *C) {
    StringRef N = calleeNameOf(C);
    if (isCollective(N))
      return fail(C, "the body calls '" + N.str() + "'");
    SmallPtrSet<const FunctionDecl *, 8> Seen;
    if (std::string P = calleeProblem(C->getDirectCallee(), 0, Seen); !P.empty())
      return fail(C, "the body calls '" + N.str() + "', which " + P);
    return true;
  }
  bool VisitVarDecl(VarDecl *V) {
    if (V->isStaticLocal() || V->hasAttr<CUDASharedAttr>())
      return fail(V->getLocation(), "the body declares '" + V->getName().str() +
                                        "' static or __shared__");
    return true;
  }
  bool VisitUnaryOperator(UnaryOperator *U) {
    if (U->getOpcode() == UO_AddrOf && !insideAccess(U) && mentionsPointerParam(U->getSubExpr()))
      return fail(U, "the body takes the address '" + textOf(U, Ctx) +
                         "'; the model does not see what is done with it");
    return true;
  }
  bool VisitDeclRefExpr(DeclRefExpr *E) {
    const ValueDecl *D = E->getDecl();
    if (frontend::isCudaBuiltinVar(D)) {
      StringRef N = D->getName();
      if (N == "blockDim")
        return true;
      if (N == "gridDim")
        return fail(E, "the body uses 'gridDim', which a capped grid changes");
      return fail(E, "the body uses '" + N.str() + "' besides the index '" +
                         K.indexName() + "': in a loop over elements it would not follow the "
                                         "element");
    }
    const auto *V = dyn_cast<VarDecl>(D);
    if (!V)
      return true;
    if (V == K.Index) {
      if (!insideAccess(E))
        K.IndexUses.push_back(E);
      return true;
    }
    if (const auto *P = dyn_cast<ParmVarDecl>(V)) {
      if (P->getType()->isPointerType() && !insideAccess(E) && !insideSideRead(E))
        return fail(E, "the pointer '" + P->getName().str() +
                           "' is used other than through its elements");
      return true;
    }
    if (V->hasGlobalStorage() && !V->isConstexpr() && !V->getType().isConstQualified())
      return fail(E, "the body uses the variable '" + V->getName().str() +
                         "', which is not local to the kernel");
    if (V->hasLocalStorage() && !BodyLocals.count(V)) {
      // Computed once per thread, before the guard: it must be the same for
      // every element.
      auto U = K.Model.uniformity(E);
      if (!U.atLeast(Uniformity::GridUniform))
        return fail(E, "'" + V->getName().str() + "' is computed before the guard and is " +
                           analysis::uniformityName(U.Level).str() + " (" + U.Reason +
                           "): in a loop over elements it would not follow the element");
      if (dependsOnGrid(V->getInit(), 0))
        return fail(E, "'" + V->getName().str() +
                           "' is computed from 'gridDim', which a capped grid changes");
      if (isModified(V, K.Model.hasAST() ? bodyOfKernel() : nullptr))
        return fail(E, "'" + V->getName().str() + "' is assigned after its declaration");
    }
    return true;
  }

  void setKernelBody(const Stmt *B) { KernelBody = B; }

private:
  using Base = RecursiveASTVisitor<BodyWalk>;
  template <typename F> bool nested(unsigned &Depth, F Traverse) {
    ++Depth;
    bool R = Traverse();
    --Depth;
    return R;
  }
  const Stmt *bodyOfKernel() const { return KernelBody; }
  bool insideAccess(const Stmt *S) const {
    for (const Access *A : K.Accesses)
      if (A->E && within(S, A->E, PM))
        return true;
    return false;
  }
  bool insideSideRead(const Stmt *S) const {
    for (const Access *A : K.SideReads)
      if (A->E && within(S, A->E, PM))
        return true;
    return false;
  }
  bool mentionsPointerParam(const Expr *E) const {
    struct Walk : DynamicRecursiveASTVisitor {
      bool Found = false;
      bool VisitDeclRefExpr(DeclRefExpr *D) override {
        if (const auto *P = dyn_cast<ParmVarDecl>(D->getDecl()); P && P->getType()->isPointerType())
          Found = true;
        return !Found;
      }
    } W;
    W.TraverseStmt(const_cast<Expr *>(E));
    return W.Found;
  }
  bool fail(SourceLocation Loc, std::string Why) {
    if (Failure.empty())
      Failure = Why + " (line " + std::to_string(fileLineOf(Ctx, Loc)) + ")";
    return false;
  }
  bool fail(const Stmt *S, std::string Why) { return fail(S->getBeginLoc(), std::move(Why)); }

  ElementwiseKernel &K;
  ASTContext &Ctx;
  ParentMap &PM;
  const std::set<const VarDecl *> &BodyLocals;
  const Stmt *KernelBody = nullptr;
  unsigned Loops = 0, Switches = 0;
};

/// The locals declared in S.
void collectLocals(const Stmt *S, std::set<const VarDecl *> &Out) {
  struct Walk : DynamicRecursiveASTVisitor {
    std::set<const VarDecl *> &Out;
    explicit Walk(std::set<const VarDecl *> &Out) : Out(Out) {}
    bool VisitVarDecl(VarDecl *V) override {
      Out.insert(V);
      return true;
    }
  } W(Out);
  W.TraverseStmt(const_cast<Stmt *>(S));
}

/// The comparison text as it holds: the operands as written around the
/// operator, negated when the comparison holds false.
std::string holdingText(const Expr *Cmp, bool Holds, ASTContext &Ctx) {
  const auto *B = cast<BinaryOperator>(Cmp->IgnoreParenImpCasts());
  if (Holds)
    return textOf(B, Ctx);
  BinaryOperatorKind Op = BinaryOperator::negateComparisonOp(B->getOpcode());
  return textOf(B->getLHS(), Ctx) + " " + BinaryOperator::getOpcodeStr(Op).str() + " " +
         textOf(B->getRHS(), Ctx);
}

/// A read of the index whose result is the same when the index is a wider
/// integer holding the same value (0 <= i < n): it is converted to a type
/// of its own (a cast, an assignment, an initialiser, a prototyped call's
/// argument, a floating-point operation), compared, or used as a
/// subscript. Arithmetic on it (`i * i`, `i - 1u`) would be computed in the
/// wider type instead.
bool sameValueWhenWider(const DeclRefExpr *Use, ParentMap &PM) {
  const Stmt *Child = Use, *P = PM.getParent(Use);
  for (; P; Child = P, P = PM.getParent(P)) {
    if (isa<ParenExpr>(P))
      continue;
    if (const auto *IC = dyn_cast<ImplicitCastExpr>(P)) {
      if (IC->getType()->isRealFloatingType())
        return true;
      continue;
    }
    break;
  }
  if (!P)
    return false;
  if (isa<ExplicitCastExpr>(P) || isa<ArraySubscriptExpr>(P))
    return true;
  if (const auto *B = dyn_cast<BinaryOperator>(P))
    return B->isComparisonOp() || (B->getOpcode() == BO_Assign && B->getRHS() == Child);
  if (const auto *DS = dyn_cast<DeclStmt>(P))
    return all_of(DS->decls(), [](const Decl *D) {
      const auto *V = dyn_cast<VarDecl>(D);
      return V && !V->getType()->getContainedDeducedType() && !V->getType()->isDependentType();
    });
  if (const auto *Call = dyn_cast<CallExpr>(P)) {
    const FunctionDecl *FD = Call->getDirectCallee();
    return FD && !FD->isTemplateInstantiation() && FD->getType()->isFunctionProtoType() &&
           Call->getCallee()->IgnoreParenImpCasts() != Child;
  }
  return false;
}

} // namespace

Expected<ElementwiseKernel> matchElementwiseKernel(const RuleInput &In, bool AllowGridStride) {
  ASTContext &Ctx = In.Ctx;
  const auto *KBody = dyn_cast_or_null<CompoundStmt>(In.Kernel.getBody());
  if (!KBody)
    return makeError("the kernel has no body");
  analysis::AnalysisOptions Opts;
  Opts.Block = In.Request.Block;
  auto Model = analysis::analyzeKernel(Ctx, In.Kernel, Opts);
  if (!Model)
    return makeError("the kernel model could not be built: {0}", toString(Model.takeError()));
  ElementwiseKernel K;
  K.Model = std::move(*Model);
  KernelModel &M = K.Model;
  analysis::AtomTable &T = M.atoms();

  bool HasGridStride = any_of(M.Loops, [](const analysis::Loop &L) {
    return L.StepK == StepKind::GridStride;
  });
  if (HasGridStride && !AllowGridStride)
    return makeError("the kernel already loops over a grid stride");
  std::vector<const Pattern *> Maps = M.patterns(PatternKind::Elementwise);
  if (Maps.empty())
    return makeError("not an elementwise kernel: {0}", whyNotElementwise(M, Ctx));
  const Pattern &P = *Maps.front();
  if (!P.Loops.empty() && !P.GridStride)
    return makeError("the elementwise map is a block-stride loop (line {0}): the threads of a "
                     "block share its range",
                     M.Loops[P.Loops.front()].Loc.Line);
  if (P.Loops.size() > 1)
    return makeError("the elementwise map is a nest of {0} grid-stride loops", P.Loops.size());
  for (unsigned Id : P.Accesses)
    K.Accesses.push_back(&M.Accesses[Id]);
  for (unsigned Id : P.SideReads)
    K.SideReads.push_back(&M.Accesses[Id]);
  if (K.Accesses.empty())
    return makeError("the elementwise map has no accesses");

  // The 1D global index, blockIdx.x * blockDim.x + threadIdx.x, in the
  // model's atoms (blockDim.x is a constant when the block is known).
  IndexForm BlockX = M.Options.Block ? IndexForm::constant((*M.Options.Block)[0])
                                     : IndexForm::atom(T.builtin("blockDim", 'x'));
  IndexForm G = IndexForm::atom(T.builtin("blockIdx", 'x')) * BlockX +
                IndexForm::atom(T.builtin("threadIdx", 'x'));
  IndexForm Stride = BlockX * IndexForm::atom(T.builtin("gridDim", 'x'));
  auto GridUniform = [&](const IndexForm &F) {
    return T.uniformity(F).Level == Uniformity::GridUniform &&
           !T.dependsOnKind(F, AtomKind::GridDim) && !T.unknownAtom(F);
  };
  const IndexForm &F = K.Accesses.front()->Index;
  {
    IndexForm Off = T.expandLoops(F) - G;
    if (P.GridStride) {
      const analysis::Loop &L = M.Loops[P.Loops.front()];
      Off = F - IndexForm::atom(L.VarAtom);
    }
    if (!GridUniform(Off)) {
      IndexForm E = T.expandLoops(F);
      bool TwoD = any_of(E.atoms(), [&](analysis::AtomId X) {
        return (T[X].Kind == AtomKind::ThreadIdx || T[X].Kind == AtomKind::BlockIdx) &&
               T[X].Dim != 'x';
      });
      if (TwoD)
        return makeError("the elementwise map is 2D (its index '{0}' moves with y or z); only "
                         "1D maps over blockIdx.x * blockDim.x + threadIdx.x are rewritten",
                         M.render(F));
      return makeError("the element index '{0}' is not blockIdx.x * blockDim.x + threadIdx.x "
                       "plus an offset every thread shares{1}",
                       M.render(F),
                       M.Options.Block || !T.dependsOnKind(E, AtomKind::BlockIdx)
                           ? ""
                           : " (a constant block size in the index needs the block size: "
                             "give --block or --spec)");
    }
    K.AtIndex = Off.isZero();
  }

  ParentMap PM(const_cast<CompoundStmt *>(KBody));
  EditCollector C(In);
  std::optional<unsigned> GuardPos;
  auto Pos = [&](const Stmt *S) -> std::optional<unsigned> {
    for (unsigned I = 0; I < KBody->size(); ++I)
      if (KBody->body_begin()[I] == S)
        return I;
    return std::nullopt;
  };

  if (P.GridStride) {
    const analysis::Loop &L = M.Loops[P.Loops.front()];
    const auto *For = dyn_cast_or_null<ForStmt>(L.S);
    const auto *While = dyn_cast_or_null<WhileStmt>(L.S);
    if ((!For && !While) || !Pos(L.S))
      return makeError("the grid-stride loop (line {0}) is not a 'for' or 'while' statement at "
                       "the top level of the kernel",
                       L.Loc.Line);
    if (!L.IV || !L.Start || !L.Step || !L.Bound)
      return makeError("the grid-stride loop (line {0}) has no induction variable the model "
                       "follows: {1}",
                       L.Loc.Line, L.Why);
    const Stmt *LoopBody = For ? For->getBody() : While->getBody();
    const Expr *LoopCond = For ? For->getCond() : While->getCond();
    if (For) {
      const auto *Init = dyn_cast_or_null<DeclStmt>(For->getInit());
      if (!Init || !Init->isSingleDecl() || Init->getSingleDecl() != L.IV)
        return makeError("the grid-stride loop (line {0}) does not declare '{1}' in its init",
                         L.Loc.Line, L.Var);
    } else {
      // `int i = <index>; while (i < n) { ...; i += blockDim.x * gridDim.x; }`
      // (CUDA by Example's spelling): the index's declaration at the top
      // level before the loop, its step the body's last statement.
      for (unsigned I = 0; I < *Pos(While); ++I)
        if (const auto *DS = dyn_cast<DeclStmt>(KBody->body_begin()[I]))
          for (const Decl *D : DS->decls())
            if (D == L.IV)
              K.IndexDecl = DS;
      if (!K.IndexDecl || !K.IndexDecl->isSingleDecl())
        return makeError("the while loop's index '{0}' is not declared alone at the top level "
                         "before the loop (line {1})",
                         L.Var, L.Loc.Line);
      const auto *CS = dyn_cast<CompoundStmt>(While->getBody());
      if (!CS || CS->size() < 2 || !isModified(L.IV, CS->body_back()))
        return makeError("the while loop (line {0}) does not end its body by stepping '{1}'",
                         L.Loc.Line, L.Var);
      if (hasOwnContinue(CS))
        return makeError("the while loop (line {0}) has a 'continue', which skips its step",
                         L.Loc.Line);
      for (unsigned I = *Pos(While) + 1; I < KBody->size(); ++I)
        if (references(KBody->body_begin()[I], L.IV))
          return makeError("'{0}' is read after the while loop (line {1})", L.Var,
                           fileLineOf(Ctx, KBody->body_begin()[I]->getBeginLoc()));
    }
    if (*L.Start != G)
      return makeError("the grid-stride loop (line {0}) starts at '{1}', not at blockIdx.x * "
                       "blockDim.x + threadIdx.x",
                       L.Loc.Line, M.render(*L.Start));
    if (*L.Step != Stride)
      return makeError("the grid-stride loop (line {0}) steps by '{1}', not by blockDim.x * "
                       "gridDim.x",
                       L.Loc.Line, M.render(*L.Step));
    if (!L.ExtraCondText.empty())
      return makeError("the grid-stride loop's condition (line {0}) also tests '{1}', which "
                       "ends the loop early",
                       L.Loc.Line, L.ExtraCondText);
    if (L.Cmp != CmpOp::LT && L.Cmp != CmpOp::LE)
      return makeError("the grid-stride loop (line {0}) is not bounded by '{1} < n'", L.Loc.Line,
                       L.Var);
    if (!GridUniform(*L.Bound))
      return makeError("the bound '{0}' of the grid-stride loop differs between threads or "
                       "with the grid",
                       M.render(*L.Bound));
    const auto *Cmp = dyn_cast_or_null<BinaryOperator>(
        LoopCond ? LoopCond->IgnoreParenImpCasts() : nullptr);
    if (!Cmp || !Cmp->isComparisonOp())
      return makeError("the grid-stride loop's condition (line {0}) is not a comparison",
                       L.Loc.Line);
    bool IVLeft = asVar(Cmp->getLHS()) == L.IV, IVRight = asVar(Cmp->getRHS()) == L.IV;
    if (IVLeft == IVRight)
      return makeError("the grid-stride loop's condition '{0}' does not compare '{1}' alone",
                       textOf(Cmp, Ctx), L.Var);
    K.Form = ElementGuard::GridStrideLoop;
    K.Index = L.IV;
    K.Guard = L.S;
    K.Compare = Cmp;
    K.Bound = (IVLeft ? Cmp->getRHS() : Cmp->getLHS())->IgnoreParenImpCasts();
    K.BoundText = boundText(K.Bound, IVLeft ? Cmp->getRHS() : Cmp->getLHS(), Ctx);
    K.Inclusive = L.Cmp == CmpOp::LE;
    K.LoopCond = textOf(Cmp, Ctx);
    K.Body = {LoopBody};
    if (While) {
      // The body without its step.
      const auto *CS = cast<CompoundStmt>(LoopBody);
      K.Body.assign(CS->body_begin(), CS->body_end() - 1);
    }
    // `if (c) continue;` opening the body ends the element early (what
    // grid-stride writes for an early exit's other conditions): c joins
    // Rest as an exit.
    if (const auto *CS = dyn_cast<CompoundStmt>(LoopBody); CS && For) {
      unsigned First = 0;
      for (; First < CS->size(); ++First) {
        const auto *If = dyn_cast<IfStmt>(CS->body_begin()[First]);
        const Stmt *Then = If ? If->getThen() : nullptr;
        if (const auto *TC = dyn_cast_or_null<CompoundStmt>(Then); TC && TC->size() == 1)
          Then = TC->body_front();
        if (!If || If->getElse() || If->getInit() || If->getConditionVariable() ||
            If->isConstexpr() || !isa_and_nonnull<ContinueStmt>(Then))
          break;
        if (If->getCond()->HasSideEffects(Ctx, /*IncludePossibleEffects=*/false))
          return makeError("the condition '{0}' (line {1}) has side effects",
                           textOf(If->getCond(), Ctx), fileLineOf(Ctx, If->getBeginLoc()));
        K.Rest.push_back(If->getCond());
      }
      if (First == CS->size())
        return makeError("the grid-stride loop (line {0}) does nothing but skip elements",
                         L.Loc.Line);
      if (First) {
        K.RestExits = true;
        K.Body.assign(CS->body_begin() + First, CS->body_end());
      }
    }
    GuardPos = Pos(L.S);
  } else {
    // The guard term `index < bound` that every store runs under.
    const analysis::GuardTerm *Term = nullptr;
    std::string BoundWhy;
    const Access *FirstStore = nullptr;
    for (const Access *A : K.Accesses)
      if (A->writes()) {
        FirstStore = A;
        break;
      }
    if (!FirstStore)
      return makeError("the elementwise map stores nothing");
    for (const analysis::GuardTerm &Tm : FirstStore->G.Terms) {
      if (!Tm.Cmp || !Tm.Cond)
        continue;
      analysis::Comparison Cm = *Tm.Cmp;
      if (Cm.Rhs == G && (Cm.Op == CmpOp::GT || Cm.Op == CmpOp::GE))
        Cm = Cm.swapped();
      if (Cm.Lhs != G || (Cm.Op != CmpOp::LT && Cm.Op != CmpOp::LE))
        continue;
      if (!GridUniform(Cm.Rhs)) {
        BoundWhy = "the bound of the guard '" + Tm.Text +
                   "' differs between threads or with the grid";
        continue;
      }
      bool Everywhere = all_of(K.Accesses, [&](const Access *A) {
        return !A->writes() || any_of(A->G.Terms, [&](const analysis::GuardTerm &O) {
          return O.Cond == Tm.Cond;
        });
      });
      if (!Everywhere)
        continue;
      Term = &Tm;
      K.Inclusive = Cm.Op == CmpOp::LE;
      break;
    }
    if (!Term) {
      if (!BoundWhy.empty())
        return makeError("{0}", BoundWhy);
      std::string Guard = FirstStore->G.render();
      return makeError("no guard compares the element index with a bound every thread shares "
                       "({0} runs {1})",
                       "'" + FirstStore->Text + "'",
                       Guard.empty() ? std::string("unguarded") : "under '" + Guard + "'");
    }
    const Expr *Cond = Term->Cond;
    const auto *Cmp = dyn_cast<BinaryOperator>(Cond->IgnoreParenImpCasts());
    if (!Cmp || !Cmp->isComparisonOp())
      return makeError("the guard '{0}' is not a comparison written in the source", Term->Text);
    // The index side must name the local that holds the index.
    const Expr *IdxSide = nullptr;
    for (const Expr *Side : {Cmp->getLHS(), Cmp->getRHS()})
      if (M.formOf(Side) == G)
        IdxSide = Side;
    const VarDecl *V = IdxSide ? asVar(IdxSide) : nullptr;
    if (!V || !V->hasLocalStorage() || isa<ParmVarDecl>(V))
      return makeError("the guard '{0}' does not compare a local variable that holds the index",
                       Term->Text);
    K.Index = V;
    K.Compare = Cmp;
    K.Bound = (IdxSide == Cmp->getLHS() ? Cmp->getRHS() : Cmp->getLHS())->IgnoreParenImpCasts();
    K.BoundText = boundText(K.Bound, IdxSide == Cmp->getLHS() ? Cmp->getRHS() : Cmp->getLHS(), Ctx);
    const Stmt *Top = topLevel(Cond, KBody, PM);
    const auto *If = dyn_cast_or_null<IfStmt>(Top);
    unsigned Line = fileLineOf(Ctx, Cond->getBeginLoc());
    if (!If || !within(Cond, If->getCond(), PM))
      return makeError("the guard '{0}' (line {1}) is not the condition of an if statement at "
                       "the top level of the kernel",
                       Term->Text, Line);
    if (If->getInit() || If->getConditionVariable() || If->isConstexpr())
      return makeError("the guard's if statement (line {0}) has an init statement or declares "
                       "a variable",
                       Line);
    bool Early = Term->Origin == analysis::GuardOrigin::EarlyExit;
    if (!Early && Term->Origin != analysis::GuardOrigin::If)
      return makeError("the guard '{0}' (line {1}) is neither an if around the body nor an "
                       "early return before it",
                       Term->Text, Line);
    if (Early && (!isBareReturn(If->getThen()) || If->getElse()))
      return makeError("the early exit at line {0} does more than return", Line);
    if (!Early && If->getElse())
      return makeError("the guard 'if ({0})' (line {1}) has an else branch",
                       textOf(If->getCond(), Ctx), Line);
    std::vector<const Expr *> Ops;
    chainOperands(If->getCond(), Early ? BO_LOr : BO_LAnd, Ops);
    const Expr *Own = nullptr;
    for (const Expr *O : Ops)
      if (within(Cond, O, PM))
        Own = O;
    // The operand is the comparison itself (or its negation): `i < n` in
    // `i < n && c`, `i >= n` or `!(i < n)` in `i >= n || c`.
    const Expr *Inner = Own;
    while (Inner) {
      const Expr *S = Inner->IgnoreParenImpCasts();
      if (const auto *U = dyn_cast<UnaryOperator>(S); U && U->getOpcode() == UO_LNot) {
        Inner = U->getSubExpr();
        continue;
      }
      Inner = S;
      break;
    }
    if (!Own || Inner != Cmp)
      return makeError("the guard '{0}' (line {1}) is part of a condition other than a chain "
                       "of '{2}'",
                       Term->Text, Line, Early ? "||" : "&&");
    for (const Expr *O : Ops)
      if (O != Own)
        K.Rest.push_back(O);
    for (const Expr *R : K.Rest)
      if (R->HasSideEffects(Ctx, /*IncludePossibleEffects=*/false))
        return makeError("the condition '{0}' (line {1}) has side effects", textOf(R, Ctx),
                         fileLineOf(Ctx, R->getBeginLoc()));
    K.LoopCond = holdingText(Cmp, Term->Holds, Ctx);
    K.Form = Early ? ElementGuard::EarlyReturn : ElementGuard::If;
    K.RestExits = Early;
    K.Guard = If;
    GuardPos = Pos(If);
    if (!Early) {
      K.Body = {If->getThen()};
      for (unsigned I = *GuardPos + 1; I < KBody->size(); ++I) {
        const Stmt *S = KBody->body_begin()[I];
        if (!isa<NullStmt>(S) && !isBareReturn(S))
          return makeError("the guard 'if ({0})' is not the kernel's last statement (line {1} "
                           "follows it)",
                           textOf(If->getCond(), Ctx), fileLineOf(Ctx, S->getBeginLoc()));
      }
    } else {
      for (unsigned I = *GuardPos + 1; I < KBody->size(); ++I)
        K.Body.push_back(KBody->body_begin()[I]);
      while (!K.Body.empty() && isBareReturn(K.Body.back()))
        K.Body.pop_back();
      if (K.Body.empty())
        return makeError("nothing follows the early exit at line {0}", Line);
    }
  }
  if (K.Bound->HasSideEffects(Ctx, /*IncludePossibleEffects=*/false))
    return makeError("the bound '{0}' has side effects", textOf(K.Bound, Ctx));

  // The index: declared once at the top level, never assigned again.
  if (K.Form != ElementGuard::GridStrideLoop) {
    for (unsigned I = 0; I < *GuardPos; ++I)
      if (const auto *DS = dyn_cast<DeclStmt>(KBody->body_begin()[I]))
        for (const Decl *D : DS->decls())
          if (D == K.Index)
            K.IndexDecl = DS;
    if (!K.IndexDecl)
      return makeError("the index '{0}' is not declared at the top level of the kernel before "
                       "the guard",
                       K.indexName());
    if (!K.IndexDecl->isSingleDecl())
      return makeError("the index '{0}' is declared together with other variables (line {1})",
                       K.indexName(), fileLineOf(Ctx, K.IndexDecl->getBeginLoc()));
    if (!K.Index->getInit() || M.formOf(K.Index->getInit()) != G)
      return makeError("the index '{0}' is not initialised to blockIdx.x * blockDim.x + "
                       "threadIdx.x",
                       K.indexName());
    if (isModified(K.Index, KBody, K.IndexDecl))
      return makeError("the index '{0}' is assigned after its declaration", K.indexName());
  } else if (any_of(K.Body, [&](const Stmt *S) { return isModified(K.Index, S); })) {
    return makeError("the loop's index '{0}' is assigned in its body", K.indexName());
  }

  // What comes before the guard runs once per thread: declarations, and
  // exits every thread takes alike.
  for (unsigned I = 0; I < *GuardPos; ++I) {
    const Stmt *S = KBody->body_begin()[I];
    if (S == K.IndexDecl || isa<NullStmt>(S))
      continue;
    if (!references(S, K.Index) && isa<DeclStmt>(S))
      continue;
    if (const auto *DS = dyn_cast<DeclStmt>(S)) {
      (void)DS;
      K.KeepIndexDecl = true; // read before the guard: the loop's index shadows it
      continue;
    }
    if (const auto *If = dyn_cast<IfStmt>(S); If && isBareReturn(If->getThen()) && !If->getElse()) {
      const Expr *Cond = If->getCond();
      if (!M.isUniform(Cond, Uniformity::GridUniform) || dependsOnGrid(Cond, 0) ||
          references(Cond, K.Index))
        return makeError("the early exit 'if ({0})' (line {1}) before the guard is not the same "
                         "for every thread",
                         textOf(Cond, Ctx), fileLineOf(Ctx, If->getBeginLoc()));
      continue;
    }
    return makeError("the statement at line {0} before the guard is neither a declaration nor "
                     "an early exit every thread takes alike",
                     fileLineOf(Ctx, S->getBeginLoc()));
  }

  // Every access is inside the body or the guard's other conditions.
  for (const Access *A : K.Accesses) {
    bool In = any_of(K.Body, [&](const Stmt *S) { return within(A->E, S, PM); }) ||
              any_of(K.Rest, [&](const Expr *R) { return within(A->E, R, PM); });
    if (!In)
      return makeError("'{0}' (line {1}) is outside the guarded body", A->Text, A->Loc.Line);
  }

  // Values that vary between threads other than through the element.
  std::set<const VarDecl *> BodyLocals;
  for (const Stmt *S : K.Body)
    collectLocals(S, BodyLocals);
  for (const analysis::ValueUse &U : P.ThreadValues) {
    if (U.Text == K.indexName() ||
        any_of(BodyLocals, [&](const VarDecl *V) { return V->getName() == U.Text; }))
      continue;
    return makeError("the stored value uses '{0}' (line {1}), which differs between threads "
                     "({2}): moving an element to another thread would change it",
                     U.Text, U.Loc.Line, U.Why);
  }
  BodyWalk W(K, Ctx, PM, BodyLocals);
  W.setKernelBody(KBody);
  for (const Stmt *S : K.Body)
    if (W.Failure.empty())
      W.TraverseStmt(const_cast<Stmt *>(S));
  for (const Expr *R : K.Rest)
    if (W.Failure.empty())
      W.TraverseStmt(const_cast<Expr *>(R));
  if (!W.Failure.empty())
    return makeError("{0}", W.Failure);

  // Source ranges.
  auto BodyFirst = C.rangeOfStatement(K.Body.front());
  auto BodyLast = C.rangeOfStatement(K.Body.back());
  auto Guard = C.rangeOfStatement(K.Guard);
  if (!BodyFirst || !BodyLast || !Guard || K.BoundText.empty() || K.LoopCond.empty())
    return makeError("the guard or the body is written through a macro");
  for (const Expr *R : K.Rest)
    if (textOf(R, Ctx).empty())
      return makeError("the condition at line {0} is written through a macro",
                       fileLineOf(Ctx, R->getBeginLoc()));
  if (K.IndexDecl && !C.rangeOfStatement(K.IndexDecl))
    return makeError("the index's declaration is written through a macro");
  K.BodyRange = {BodyFirst->first, BodyLast->second};
  K.Replaced = {Guard->first, K.Form == ElementGuard::EarlyReturn ? BodyLast->second
                                                                  : Guard->second};
  K.Indent = lineIndent(In.Source, K.Replaced.first).str();
  // A body that begins its line is dedented from its own indentation.
  unsigned LineStart = In.Source.rfind('\n', K.BodyRange.first) + 1; // npos + 1 == 0
  K.BodyIndent = In.Source.slice(LineStart, K.BodyRange.first).trim().empty()
                     ? lineIndent(In.Source, K.BodyRange.first).str()
                     : K.Indent;

  QualType IT = K.Index->getType();
  bool Wide = IT->isIntegerType() && !IT->isDependentType() && Ctx.getTypeSize(IT) >= 64;
  if (Wide)
    K.IndexType = IT.getUnqualifiedType().getAsString(Ctx.getPrintingPolicy());
  else
    K.IndexType = wideIndexType(K.Bound, Ctx);
  if (!Wide) {
    K.OwnType = IT.getUnqualifiedType().getAsString(Ctx.getPrintingPolicy());
    for (const DeclRefExpr *U : K.IndexUses) {
      bool N = !sameValueWhenWider(U, PM);
      K.Narrow.push_back(N);
      if (!N)
        continue;
      auto R = C.rangeOf(U->getSourceRange());
      if (!R)
        return makeError("the index '{0}' is used through a macro (line {1})", K.indexName(),
                         fileLineOf(Ctx, U->getBeginLoc()));
      K.NarrowRanges.push_back(*R);
    }
    llvm::sort(K.NarrowRanges);
  }
  K.BodyText = K.scalarText(In.Source, K.BodyRange.first, K.BodyRange.second);
  return std::move(K);
}

} // namespace forge::passes
