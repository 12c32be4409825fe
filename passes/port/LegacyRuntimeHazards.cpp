//===- LegacyRuntimeHazards.cpp - legacy-runtime-hazards ------------------===//
#include "LegacyRuntimeHazards.h"
#include "../PortPass.h"
#include "forge/Frontend/CudaBuiltins.h"
#include "forge/Frontend/CudaParser.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DynamicRecursiveASTVisitor.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/FoldingSet.h"
#include <functional>

using namespace clang;
using namespace clang::ast_matchers;
using namespace llvm;

namespace forge::passes {

namespace {
/// The runtime calls that take a symbol, and which argument it is.
struct SymbolCall {
  const char *Name;
  unsigned Arg;
};
const SymbolCall SymbolCalls[] = {
    {"cudaMemcpyToSymbol", 0},   {"cudaMemcpyToSymbolAsync", 0},
    {"cudaMemcpyFromSymbol", 1}, {"cudaMemcpyFromSymbolAsync", 1},
    {"cudaGetSymbolAddress", 1}, {"cudaGetSymbolSize", 1},
};

const Expr *strip(const Expr *E) { return E ? E->IgnoreParenImpCasts() : nullptr; }

bool sameExpr(ASTContext &Ctx, const Expr *A, const Expr *B) {
  FoldingSetNodeID IA, IB;
  strip(A)->Profile(IA, Ctx, /*Canonical=*/true);
  strip(B)->Profile(IB, Ctx, /*Canonical=*/true);
  return IA == IB;
}

/// The variable an array access is made through: `s[i]` with `s` a shared
/// array or a pointer to volatile (the spelling of pre-Volta warp-synchronous
/// code); null for other memory.
const VarDecl *warpMemory(const ArraySubscriptExpr *A) {
  const auto *Ref = dyn_cast<DeclRefExpr>(strip(A->getBase()));
  const auto *V = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  if (!V)
    return nullptr;
  if (V->hasAttr<CUDASharedAttr>() || A->getType().isVolatileQualified())
    return V;
  return nullptr;
}

/// One step of an in-warp shared-memory reduction: `s[i] op= f(s[i + k])`
/// or `s[i] = f(s[i + k])`.
struct Step {
  const Stmt *S = nullptr; ///< the statement (an if's then-branch unwrapped)
  const Expr *E = nullptr; ///< the assignment
  const ArraySubscriptExpr *Lhs = nullptr;
  const VarDecl *Memory = nullptr;
};

/// Whether E reads Memory[Index + x] (or Memory[x + Index]).
bool readsNeighbour(ASTContext &Ctx, const Stmt *E, const VarDecl *Memory, const Expr *Index) {
  if (!E)
    return false;
  if (const auto *A = dyn_cast<ArraySubscriptExpr>(E)) {
    const auto *Ref = dyn_cast<DeclRefExpr>(strip(A->getBase()));
    const auto *Add = dyn_cast<BinaryOperator>(strip(A->getIdx()));
    if (Ref && Ref->getDecl() == Memory && Add && Add->getOpcode() == BO_Add &&
        (sameExpr(Ctx, Add->getLHS(), Index) || sameExpr(Ctx, Add->getRHS(), Index)))
      return true;
  }
  for (const Stmt *Child : E->children())
    if (readsNeighbour(Ctx, Child, Memory, Index))
      return true;
  return false;
}

/// Whether an index differs between the threads: it reads threadIdx, a
/// local initialised from it, or a helper's parameter (the `tid` a
/// `warpReduce(volatile T *s, int tid)` is given). A loop counter alone is
/// one thread's walk over the array, not a warp's step.
bool threadVarying(const Stmt *E, unsigned Depth = 0) {
  if (!E || Depth > 4)
    return false;
  if (const auto *X = dyn_cast<Expr>(E); X && frontend::cudaBuiltin(X) &&
                                         frontend::cudaBuiltin(X)->Var == "threadIdx")
    return true;
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    if (const auto *P = dyn_cast<ParmVarDecl>(Ref->getDecl())) {
      const auto *Fn = dyn_cast<FunctionDecl>(P->getDeclContext());
      return Fn && !Fn->hasAttr<CUDAGlobalAttr>() && P->getType()->isIntegerType();
    }
    if (const auto *V = dyn_cast<VarDecl>(Ref->getDecl()))
      return V->hasInit() && threadVarying(V->getInit(), Depth + 1);
    return false;
  }
  for (const Stmt *C : E->children())
    if (threadVarying(C, Depth))
      return true;
  return false;
}

std::optional<Step> stepOf(ASTContext &Ctx, const Stmt *S) {
  if (const auto *If = dyn_cast_or_null<IfStmt>(S)) {
    if (If->getElse() || If->getInit() || If->getConditionVariable())
      return std::nullopt;
    S = If->getThen();
    if (const auto *CS = dyn_cast<CompoundStmt>(S); CS && CS->size() == 1)
      S = CS->body_front();
  }
  const auto *E = dyn_cast_or_null<Expr>(S);
  if (!E)
    return std::nullopt;
  const auto *BO = dyn_cast<BinaryOperator>(E->IgnoreParenImpCasts());
  if (!BO || !BO->isAssignmentOp())
    return std::nullopt;
  const auto *Lhs = dyn_cast<ArraySubscriptExpr>(strip(BO->getLHS()));
  const VarDecl *Memory = Lhs ? warpMemory(Lhs) : nullptr;
  if (!Memory || !threadVarying(Lhs->getIdx()) ||
      !readsNeighbour(Ctx, BO->getRHS(), Memory, Lhs->getIdx()))
    return std::nullopt;
  return Step{S, BO, Lhs, Memory};
}

/// `for (c = ...; c < B; ...) m[c] op= f(m[c + B])`: every iteration
/// writes below B and reads from B up (or its own element), so no lane reads
/// what another writes in the loop (cuda-samples' scalarProd: a
/// block-strided walk per level of a tree reduction).
bool disjointHalves(ASTContext &Ctx, const Step &St, const Stmt *L) {
  const auto *F = dyn_cast<ForStmt>(L);
  const auto *Cond = F ? dyn_cast_or_null<BinaryOperator>(strip(F->getCond())) : nullptr;
  const auto *Assign = dyn_cast<BinaryOperator>(St.E);
  if (!Cond || Cond->getOpcode() != BO_LT || !Assign)
    return false;
  const auto *C = dyn_cast<DeclRefExpr>(strip(Cond->getLHS()));
  const auto *W = dyn_cast<DeclRefExpr>(strip(St.Lhs->getIdx()));
  if (!C || !W || C->getDecl() != W->getDecl())
    return false;
  const Expr *B = Cond->getRHS();
  bool Upper = false, Other = false;
  std::function<void(const Stmt *)> Reads = [&](const Stmt *S) {
    if (const auto *A = dyn_cast<ArraySubscriptExpr>(S)) {
      const auto *Ref = dyn_cast<DeclRefExpr>(strip(A->getBase()));
      if (Ref && Ref->getDecl() == St.Memory) {
        const auto *Add = dyn_cast<BinaryOperator>(strip(A->getIdx()));
        if (Add && Add->getOpcode() == BO_Add &&
            ((sameExpr(Ctx, Add->getLHS(), W) && sameExpr(Ctx, Add->getRHS(), B)) ||
             (sameExpr(Ctx, Add->getRHS(), W) && sameExpr(Ctx, Add->getLHS(), B))))
          Upper = true;
        else if (!sameExpr(Ctx, A->getIdx(), W))
          Other = true;
      }
    }
    for (const Stmt *Ch : S->children())
      if (Ch)
        Reads(Ch);
  };
  Reads(Assign->getRHS());
  return Upper && !Other;
}

bool isSyncCall(const Stmt *S) {
  const auto *Call = dyn_cast_or_null<CallExpr>(S);
  const FunctionDecl *FD = Call ? Call->getDirectCallee() : nullptr;
  if (!FD || !FD->getIdentifier())
    return false;
  StringRef N = FD->getName();
  return N == "__syncwarp" || N == "__syncthreads" || N.starts_with("__syncthreads_");
}

/// Whether S holds a barrier or a warp sync anywhere.
bool syncsAnywhere(const Stmt *S) {
  if (!S)
    return false;
  if (isSyncCall(S))
    return true;
  for (const Stmt *C : S->children())
    if (syncsAnywhere(C))
      return true;
  return false;
}

/// `t < 32` or `t < warpSize` with t threadIdx.x or a local initialised
/// from it: all 32 lanes of warp 0 take the branch.
bool isWholeFirstWarp(const Expr *Cond) {
  const auto *LT = dyn_cast_or_null<BinaryOperator>(strip(Cond));
  if (!LT || LT->getOpcode() != BO_LT)
    return false;
  auto IsThreadX = [](const Expr *E) { return frontend::isCudaBuiltin(E, "threadIdx", 'x'); };
  const Expr *L = strip(LT->getLHS());
  bool Thread = IsThreadX(L);
  if (const auto *Ref = dyn_cast<DeclRefExpr>(L))
    if (const auto *V = dyn_cast<VarDecl>(Ref->getDecl()))
      Thread |= V->hasInit() && IsThreadX(V->getInit());
  if (!Thread)
    return false;
  const Expr *R = strip(LT->getRHS());
  if (const auto *I = dyn_cast<IntegerLiteral>(R))
    return I->getValue() == 32;
  if (const auto *Ref = dyn_cast<DeclRefExpr>(R))
    return Ref->getDecl()->getName() == "warpSize";
  return false;
}

std::string text(SourceRange R, ASTContext &Ctx) {
  return Lexer::getSourceText(CharSourceRange::getTokenRange(R), Ctx.getSourceManager(),
                              Ctx.getLangOpts())
      .str();
}

/// The step with its read and its write separated by __syncwarp().
std::optional<FixItHint> syncedStep(const Step &St, ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  const auto *BO = cast<BinaryOperator>(St.E->IgnoreParenImpCasts());
  if (St.E->getBeginLoc().isMacroID() || St.E->getEndLoc().isMacroID())
    return std::nullopt;
  SourceLocation AfterSemi = Lexer::findLocationAfterToken(
      St.E->getEndLoc(), tok::semi, SM, Ctx.getLangOpts(), /*SkipTrailingWhitespace=*/false);
  if (AfterSemi.isInvalid())
    return std::nullopt;
  std::string Lhs = text(BO->getLHS()->getSourceRange(), Ctx);
  std::string Rhs = text(BO->getRHS()->getSourceRange(), Ctx);
  std::string Value = BO->getOpcode() == BO_Assign
                          ? Rhs
                          : Lhs + " " + BinaryOperator::getOpcodeStr(
                                            BinaryOperator::getOpForCompoundAssignment(
                                                BO->getOpcode()))
                                            .str() +
                                " (" + Rhs + ")";
  return FixItHint::CreateReplacement(
      CharSourceRange::getCharRange(St.E->getBeginLoc(), AfterSemi),
      "{ auto forge_warp_v = " + Value + "; __syncwarp(); " + Lhs +
          " = forge_warp_v; __syncwarp(); }");
}

unsigned lineOf(ASTContext &Ctx, SourceLocation L) {
  return Ctx.getSourceManager().getExpansionLineNumber(L);
}
} // namespace

void LegacyRuntimeHazards::registerMatchers(MatchFinder &Finder) {
  std::vector<StringRef> Names;
  for (const SymbolCall &S : SymbolCalls)
    Names.push_back(S.Name);
  Finder.addMatcher(callExpr(callee(functionDecl(hasAnyName(Names)))).bind("symcall"), this);
  Finder.addMatcher(
      functionDecl(isDefinition(), anyOf(hasAttr(attr::CUDAGlobal), hasAttr(attr::CUDADevice)))
          .bind("devfn"),
      this);
}

void LegacyRuntimeHazards::check(const MatchFinder::MatchResult &R, PassContext &C) {
  ASTContext &Ctx = *R.Context;
  if (const auto *Call = R.Nodes.getNodeAs<CallExpr>("symcall")) {
    if (C.S != frontend::Side::Host ||
        !frontend::isUserLocation(*R.SourceManager, Call->getBeginLoc()))
      return;
    const FunctionDecl *FD = Call->getDirectCallee();
    for (const SymbolCall &S : SymbolCalls)
      if (FD && FD->getName() == S.Name && S.Arg < Call->getNumArgs())
        if (const auto *Lit = dyn_cast<clang::StringLiteral>(strip(Call->getArg(S.Arg))))
          checkSymbolName(*Call, *Lit, Ctx, C);
    return;
  }
  const auto *Fn = R.Nodes.getNodeAs<FunctionDecl>("devfn");
  if (!Fn || C.S != frontend::Side::Device ||
      !frontend::isUserLocation(*R.SourceManager, Fn->getLocation()))
    return;
  // Every block and every loop of the body.
  struct Walk : DynamicRecursiveASTVisitor {
    std::vector<const CompoundStmt *> Blocks;
    std::vector<const Stmt *> Loops;
    std::vector<const DoStmt *> Dos;
    bool VisitCompoundStmt(CompoundStmt *S) override {
      Blocks.push_back(S);
      return true;
    }
    bool VisitForStmt(ForStmt *S) override {
      Loops.push_back(S);
      return true;
    }
    bool VisitWhileStmt(WhileStmt *S) override {
      Loops.push_back(S);
      return true;
    }
    bool VisitDoStmt(DoStmt *S) override {
      Dos.push_back(S);
      Loops.push_back(S);
      return true;
    }
  } W;
  W.TraverseStmt(Fn->getBody());
  for (const CompoundStmt *B : W.Blocks)
    checkWarpSteps(*B, Ctx, C);
  for (const DoStmt *D : W.Dos)
    checkTaggedLoop(*D, Ctx, C);
  // A loop whose body is one step and no sync: the steps of successive
  // iterations follow each other without a __syncwarp().
  for (const Stmt *L : W.Loops) {
    const Stmt *Body = isa<ForStmt>(L)     ? cast<ForStmt>(L)->getBody()
                       : isa<WhileStmt>(L) ? cast<WhileStmt>(L)->getBody()
                                           : cast<DoStmt>(L)->getBody();
    if (const auto *CS = dyn_cast_or_null<CompoundStmt>(Body); CS && CS->size() == 1)
      Body = CS->body_front();
    std::optional<Step> St = stepOf(Ctx, Body);
    if (!St || syncsAnywhere(Body) || disjointHalves(Ctx, *St, L))
      continue;
    // The fix is the same as for a run of steps; the loop sits in its block.
    auto Parents = Ctx.getParents(*L);
    const auto *Block = Parents.empty() ? nullptr : Parents[0].get<CompoundStmt>();
    std::string Why;
    bool Whole = wholeWarpRuns(*L, Block ? static_cast<const Stmt &>(*Block) : *L, Ctx, Why);
    std::vector<FixItHint> Fixes;
    std::vector<std::pair<SourceLocation, std::string>> Notes;
    if (Whole) {
      if (std::optional<FixItHint> F = syncedStep(*St, Ctx))
        Fixes.push_back(*F);
      else
        Notes.push_back({St->E->getBeginLoc(), "not rewritten: the step is written in a macro"});
    } else {
      Notes.push_back({L->getBeginLoc(),
                       "not rewritten: it is not known that all 32 lanes of a warp run the loop "
                       "(" + Why + "); where they do, separate each step's read from its write "
                       "with __syncwarp()"});
    }
    C.Diag.report(name(), Severity::Warning, St->E->getBeginLoc(),
                  "warp-synchronous shared-memory reduction: each iteration reads '" +
                      St->Memory->getName().str() +
                      "' where other lanes wrote in the iteration before, with no __syncwarp() "
                      "between them; the lanes of a warp no longer run in lockstep (independent "
                      "thread scheduling since Volta), so this races",
                  Fixes, Notes);
  }
}

void LegacyRuntimeHazards::checkWarpSteps(const CompoundStmt &Body, ASTContext &Ctx,
                                          PassContext &C) {
  // Runs of steps on one memory with the same written element, no sync and
  // nothing else between them.
  std::vector<Step> Run;
  auto Flush = [&] {
    if (Run.size() >= 2) {
      std::string Why;
      bool Whole = wholeWarpRuns(*Run[0].S, Body, Ctx, Why);
      std::vector<FixItHint> Fixes;
      std::vector<std::pair<SourceLocation, std::string>> Notes;
      if (Whole) {
        for (const Step &St : Run)
          if (std::optional<FixItHint> F = syncedStep(St, Ctx))
            Fixes.push_back(*F);
        if (Fixes.size() != Run.size()) {
          Fixes.clear();
          Notes.push_back({Run[0].E->getBeginLoc(), "not rewritten: a step is written in a macro"});
        }
      } else {
        Notes.push_back({Run[0].E->getBeginLoc(),
                         "not rewritten: it is not known that all 32 lanes of a warp run the "
                         "steps (" + Why + "); where they do, separate each step's read from its "
                         "write with __syncwarp()"});
      }
      C.Diag.report(name(), Severity::Warning, Run[0].E->getBeginLoc(),
                    "warp-synchronous shared-memory reduction: the steps at lines " +
                        std::to_string(lineOf(Ctx, Run.front().E->getBeginLoc())) + "-" +
                        std::to_string(lineOf(Ctx, Run.back().E->getBeginLoc())) + " read '" +
                        Run[0].Memory->getName().str() +
                        "' where other lanes wrote in the step before, with no __syncwarp() "
                        "between them; the lanes of a warp no longer run in lockstep "
                        "(independent thread scheduling since Volta), so this races",
                    Fixes, Notes);
    }
    Run.clear();
  };
  for (const Stmt *S : Body.body()) {
    std::optional<Step> St = stepOf(Ctx, S);
    if (St && (Run.empty() || (Run.back().Memory == St->Memory &&
                               sameExpr(Ctx, Run.back().Lhs->getIdx(), St->Lhs->getIdx())))) {
      Run.push_back(*St);
      continue;
    }
    Flush();
    if (St)
      Run.push_back(*St);
  }
  Flush();
}

bool LegacyRuntimeHazards::wholeWarpRuns(const Stmt &S, const Stmt &Block, ASTContext &Ctx,
                                         std::string &Why) {
  // Directly in the then-branch of `if (t < 32)`.
  auto Up = Ctx.getParents(Block);
  if (const auto *If = Up.empty() ? nullptr : Up[0].get<IfStmt>())
    if (If->getThen() == &Block && isWholeFirstWarp(If->getCond()))
      return true;
  const FunctionDecl *Fn = frontend::enclosingFunction(Ctx, S);
  if (!Fn || Fn->hasAttr<CUDAGlobalAttr>()) {
    Why = "the steps are not directly under 'if (threadIdx.x < 32)'";
    return false;
  }
  // A helper: every lane of the warp reaches it wherever it is called.
  if (!Calls)
    Calls = std::make_unique<frontend::CallSiteIndex>(Ctx);
  frontend::Uniformity U = frontend::warpUniformAcrossCalls(Ctx, S, *Calls);
  if (U.Uniform)
    return true;
  Why = U.Reason;
  return false;
}

void LegacyRuntimeHazards::checkTaggedLoop(const DoStmt &Loop, ASTContext &Ctx, PassContext &C) {
  // do { ...; h[b] = v; } while (h[b] != v): retried until this lane's
  // write is the one that stuck, which assumes the warp's writes land in
  // one step.
  const auto *Ne = dyn_cast_or_null<BinaryOperator>(strip(Loop.getCond()));
  if (!Ne || Ne->getOpcode() != BO_NE)
    return;
  const auto *Read = dyn_cast<ArraySubscriptExpr>(strip(Ne->getLHS()));
  if (!Read)
    Read = dyn_cast<ArraySubscriptExpr>(strip(Ne->getRHS()));
  const VarDecl *Memory = Read ? warpMemory(Read) : nullptr;
  if (!Memory)
    return;
  struct Stores : DynamicRecursiveASTVisitor {
    const VarDecl *Memory;
    bool Found = false;
    bool VisitBinaryOperator(BinaryOperator *B) override {
      if (B->isAssignmentOp())
        if (const auto *A = dyn_cast<ArraySubscriptExpr>(strip(B->getLHS())))
          if (const auto *Ref = dyn_cast<DeclRefExpr>(strip(A->getBase())))
            Found |= Ref->getDecl() == Memory;
      return true;
    }
  } St;
  St.Memory = Memory;
  St.TraverseStmt(const_cast<Stmt *>(Loop.getBody()));
  if (!St.Found)
    return;
  C.Diag.report(name(), Severity::Warning, Loop.getBeginLoc(),
                "tagged shared-memory update: the loop stores to '" + Memory->getName().str() +
                    "' until its own write is the one read back, which relies on the lanes of "
                    "a warp running in lockstep (ended by independent thread scheduling since "
                    "Volta); count with atomicAdd on shared memory",
                {},
                {{Loop.getBeginLoc(), "not rewritten: the tag bits and the count's width are "
                                      "the program's own; replace the loop by hand"}});
}

void LegacyRuntimeHazards::checkSymbolName(const CallExpr &Call, const clang::StringLiteral &Name,
                                           ASTContext &Ctx, PassContext &C) {
  std::string Sym = Name.isOrdinary() ? Name.getString().str() : "";
  std::string Msg = "'" + Call.getDirectCallee()->getName().str() +
                    "' with the symbol's name as a string: string symbols were removed in CUDA "
                    "5.0 and the call fails at run time with cudaErrorInvalidSymbol; pass the "
                    "variable itself";
  const VarDecl *Var = nullptr;
  if (!Sym.empty() && Lexer::isAsciiIdentifierContinueChar(Sym[0], Ctx.getLangOpts()) &&
      !isDigit(Sym[0]))
    for (const NamedDecl *D : Ctx.getTranslationUnitDecl()->lookup(&Ctx.Idents.get(Sym)))
      if (const auto *V = dyn_cast<VarDecl>(D))
        if (V->hasAttr<CUDADeviceAttr>() || V->hasAttr<CUDAConstantAttr>())
          Var = V;
  if (!Var) {
    C.Diag.report(name(), Severity::Warning, Name.getBeginLoc(), Msg, {},
                  {{Name.getBeginLoc(), "not rewritten: no __device__ or __constant__ variable "
                                        "named '" + Sym + "' is declared in this file"}});
    return;
  }
  if (Name.getBeginLoc().isMacroID()) {
    C.Diag.report(name(), Severity::Warning, Name.getBeginLoc(), Msg, {},
                  {{Name.getBeginLoc(), "not rewritten: the name is written inside a macro"}});
    return;
  }
  C.Diag.report(name(), Severity::Warning, Name.getBeginLoc(), Msg,
                {FixItHint::CreateReplacement(CharSourceRange::getTokenRange(Name.getSourceRange()),
                                              Sym)},
                {{Var->getLocation(), "'" + Sym + "' is declared here"}});
}

} // namespace forge::passes
