//===- passes/optimize/AccumulatorPromotionRule.cpp - accumulator-promotion ===//
///
/// \file
/// Scalar replacement of a memory accumulator (docs/passes/accumulator-promotion.md):
/// a loop that reads and writes one element of memory at an address that
/// does not change in it (`C[row * N + col] += A[row * K + k] * B[k * N +
/// col]`, `y[row] += ...`, `out[i] += ...`) pays a load and a store per
/// iteration, and the compiler cannot keep the element in a register when
/// a store through it might change what the other pointers read. The rule
/// keeps the running value in a register: loaded once before the loop (or
/// started from the value the statement right before the loop stores,
/// `C[idx] = 0;` becomes `float acc = 0;`), updated in the loop, stored once
/// after it. The preconditions are the kernel model's: the element's index
/// form does not move with the loop, no other access in the loop touches
/// the buffer at another (or an unknown) index, the buffer is a distinct
/// allocation from every other buffer the loop touches (the launches in the
/// file, the spec, __restrict__ or --assume-no-alias), no __syncthreads,
/// atomic or call that could see the buffer in the loop, and no return or
/// goto out of it.
///
//===----------------------------------------------------------------------===//
#include "RuleAst.h"
#include "RuleUtil.h"
#include "Rules.h"
#include "forge/Analysis/Allocations.h"
#include "forge/Analysis/KernelModel.h"
#include "forge/Measure/LaunchSpec.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DynamicRecursiveASTVisitor.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include <map>
#include <set>

using namespace clang;
using namespace llvm;
namespace an = forge::analysis;

namespace forge::passes {
namespace {

/// Whether Loc (a file location, or the expansion of a macro) lies inside S.
bool within(SourceLocation Loc, const Stmt *S, const SourceManager &SM) {
  Loc = SM.getExpansionLoc(Loc);
  SourceLocation B = SM.getExpansionLoc(S->getBeginLoc());
  SourceLocation E = SM.getExpansionRange(S->getEndLoc()).getEnd();
  return !SM.isBeforeInTranslationUnit(Loc, B) && !SM.isBeforeInTranslationUnit(E, Loc);
}

unsigned lineOf(SourceLocation Loc, const SourceManager &SM) {
  return SM.getPresumedLineNumber(SM.getExpansionLoc(Loc));
}

/// The loop's body.
const Stmt *loopBody(const Stmt *L) {
  if (const auto *F = dyn_cast<ForStmt>(L))
    return F->getBody();
  if (const auto *W = dyn_cast<WhileStmt>(L))
    return W->getBody();
  if (const auto *D = dyn_cast<DoStmt>(L))
    return D->getBody();
  if (const auto *R = dyn_cast<CXXForRangeStmt>(L))
    return R->getBody();
  return nullptr;
}

/// The element an access names as an lvalue written in the source:
/// `p[i]` or `*p`.
const Expr *elementExpr(const an::Access &A) {
  if (!A.E || !A.Wrapper.empty() || !A.Callee.empty())
    return nullptr;
  const Expr *E = A.E->IgnoreParens();
  if (isa<ArraySubscriptExpr>(E))
    return E;
  if (const auto *U = dyn_cast<UnaryOperator>(E); U && U->getOpcode() == UO_Deref)
    return E;
  return nullptr;
}

/// Why E does not have one value through every iteration of Loop: it loads
/// from memory, calls, assigns, or names a variable that the loop declares
/// or assigns. "" when it is invariant.
class InvariantCheck : public DynamicRecursiveASTVisitor {
public:
  InvariantCheck(const Stmt *Loop, const SourceManager &SM) : Loop(Loop), SM(SM) {}
  std::string Why;

  /// threadIdx.x and its kin are the same in every iteration (in CUDA they
  /// are calls of a property getter: not walked into).
  bool TraverseStmt(Stmt *S) override {
    if (const auto *E = dyn_cast_or_null<Expr>(S); E && frontend::cudaBuiltin(E))
      return true;
    return DynamicRecursiveASTVisitor::TraverseStmt(S);
  }

  bool VisitDeclRefExpr(DeclRefExpr *R) override {
    const auto *V = dyn_cast<VarDecl>(R->getDecl());
    if (!V || frontend::isCudaBuiltinVar(V))
      return true;
    if (within(V->getLocation(), Loop, SM))
      return fail("'" + V->getName().str() + "' is declared inside the loop");
    // An array is never assigned as a whole (its elements are not its value).
    if (!V->getType()->isArrayType() && isModified(V, Loop))
      return fail("'" + V->getName().str() + "' is assigned in the loop");
    return true;
  }
  bool VisitArraySubscriptExpr(ArraySubscriptExpr *S) override {
    if (S != Root)
      return fail("it loads '" + text(S) + "' from memory");
    return true;
  }
  bool VisitUnaryOperator(UnaryOperator *U) override {
    if (U->getOpcode() == UO_Deref && U != Root)
      return fail("it loads '" + text(U) + "' from memory");
    if (U->isIncrementDecrementOp())
      return fail("it assigns '" + text(U) + "'");
    return true;
  }
  bool VisitBinaryOperator(BinaryOperator *B) override {
    if (B->isAssignmentOp())
      return fail("it assigns '" + text(B) + "'");
    return true;
  }
  bool VisitCallExpr(CallExpr *C) override { return fail("it calls '" + text(C) + "'"); }

  /// Checks E; Root is the access itself (its own subscript is not a load
  /// of the index).
  std::string check(const Expr *E, const Expr *RootE = nullptr) {
    Why.clear();
    Root = RootE;
    TraverseStmt(const_cast<Expr *>(E));
    return Why;
  }

private:
  bool fail(std::string W) {
    if (Why.empty())
      Why = std::move(W);
    return false;
  }
  std::string text(const Stmt *S) {
    std::string T = sourceText(SM, LangOptions(), S->getSourceRange()).str();
    return T.empty() ? "an expression" : T;
  }
  const Stmt *Loop;
  const SourceManager &SM;
  const Expr *Root = nullptr;
};

/// What the loop does that the promotion cannot keep: a return or goto out
/// of it (the store after the loop would be skipped), inline assembly, a
/// call that synchronises or has effects (isThreadEffect), or a call that
/// is handed a pointer or a reference (it might reach the buffer), unless
/// the model knows the call as an access of another buffer (an atomic).
class LoopScan : public DynamicRecursiveASTVisitor {
public:
  LoopScan(const an::KernelModel &M, const SourceManager &SM) : M(M), SM(SM) {}
  std::string Why;

  bool VisitReturnStmt(ReturnStmt *R) override {
    return fail(formatv("the loop returns at line {0}: the store after the loop would be skipped",
                        lineOf(R->getBeginLoc(), SM)));
  }
  bool VisitGotoStmt(GotoStmt *G) override {
    return fail(formatv("the loop has a goto at line {0}: the store after the loop could be "
                        "skipped",
                        lineOf(G->getBeginLoc(), SM)));
  }
  bool VisitIndirectGotoStmt(IndirectGotoStmt *G) override {
    return fail(formatv("the loop has a computed goto at line {0}", lineOf(G->getBeginLoc(), SM)));
  }
  bool VisitGCCAsmStmt(GCCAsmStmt *A) override {
    return fail(formatv("the loop has inline assembly at line {0}", lineOf(A->getBeginLoc(), SM)));
  }
  bool VisitCallExpr(CallExpr *C) override {
    std::string N = calleeNameOf(C);
    unsigned Line = lineOf(C->getBeginLoc(), SM);
    if (isThreadEffect(N))
      return fail(formatv("the loop calls '{0}' at line {1}, which synchronises, communicates "
                          "between threads or has an effect the register copy would reorder",
                          N, Line));
    if (M.accessAt(C))
      return true; // an atomic or __ldg of another buffer: the alias check covers it
    if (isa<CXXOperatorCallExpr>(C))
      return true;
    for (const Expr *Arg : C->arguments()) {
      QualType T = Arg->getType();
      if (T->isPointerType() || T->isReferenceType() || T->isArrayType() ||
          (Arg->isGLValue() && !T->isArithmeticType() && !T->isDependentType()))
        return fail(formatv("the loop passes a pointer or a reference to '{0}' at line {1}: it "
                            "may read or write the accumulated element",
                            N.empty() ? "a function" : N, Line));
    }
    if (const FunctionDecl *FD = C->getDirectCallee())
      for (const ParmVarDecl *P : FD->parameters())
        if (P->getType()->isReferenceType() || P->getType()->isPointerType())
          return fail(formatv("the loop passes a pointer or a reference to '{0}' at line {1}: it "
                              "may read or write the accumulated element",
                              N, Line));
    return true;
  }

private:
  bool fail(std::string W) {
    if (Why.empty())
      Why = std::move(W);
    return false;
  }
  const an::KernelModel &M;
  const SourceManager &SM;
};

/// One promotion: the element, the loop, and how its value enters and leaves.
struct Plan {
  const an::Access *A = nullptr;
  const an::Loop *L = nullptr;
  /// The statement that holds the loop in its block (the loop, or the
  /// attributed statement of a `#pragma unroll`).
  const Stmt *Wrapped = nullptr;
  /// The statement that holds Wrapped: a block, or a statement (an if, a
  /// loop) whose body it is, which then gets braces.
  const Stmt *Parent = nullptr;
  /// The accesses of the element in the loop (A among them).
  std::vector<const an::Access *> Group;
  /// `X[e] = v;` right before the loop (only declarations between): its
  /// value starts the register.
  const BinaryOperator *PreStore = nullptr;
  /// The conditions (as source text) under which the loop touches the
  /// element, when there is no PreStore; invariant in the loop.
  std::vector<std::string> Conds;
  /// How the other buffers the loop touches are shown to be distinct.
  std::string AliasProof;
  std::string Type;
};

class AccumulatorPromotionRule : public ExpertRule {
public:
  StringRef name() const override { return "accumulator-promotion"; }

  RuleOutcome propose(const RuleInput &In) override {
    const FunctionDecl &K = In.Kernel;
    if (!kernelBody(K))
      return notApplicable("the kernel has no body");
    auto MX = kernelModel(In, &K);
    if (!MX)
      return notApplicable(toString(MX.takeError()));
    an::KernelModel &M = *MX;

    std::string FirstWhy;
    bool AnyCandidate = false;
    std::set<std::pair<const ValueDecl *, std::string>> Tried;
    for (const an::Access &A : M.Accesses) {
      if (!A.writes() || A.Kind == an::AccessKind::Atomic || A.Loops.empty())
        continue;
      // Only the read-modify-writes, and stores of an element the loop
      // also reads, are accumulators.
      bool Read = A.Kind == an::AccessKind::ReadModifyWrite;
      for (const an::Access *B : M.accessesIn(M.Loops[A.Loops.back()]))
        Read |= B->Kind == an::AccessKind::Load && B->Base == A.Base &&
                B->Buffer == A.Buffer && B->IndexKnown && B->Index == A.Index;
      if (!Read)
        continue;
      if (!Tried.insert({A.Base, A.Buffer + "@" + std::to_string(A.Loops.back()) + ":" +
                                     A.IndexText})
               .second)
        continue;
      AnyCandidate = true;
      std::string InnerWhy;
      for (unsigned LId : A.Loops) {
        std::string Why;
        auto P = plan(In, M, A, M.Loops[LId], Why);
        if (P) {
          RuleOutcome O = emit(In, M, *P);
          if (O.NotApplicable.empty())
            return O;
          Why = O.NotApplicable;
        }
        InnerWhy = Why;
      }
      if (FirstWhy.empty())
        FirstWhy = InnerWhy;
    }
    if (!AnyCandidate)
      return notApplicable("no loop reads and writes one memory element ('X[e] += v', 'X[e] = "
                           "X[e] op v')");
    return notApplicable(FirstWhy);
  }

private:
  std::optional<Plan> plan(const RuleInput &In, an::KernelModel &M, const an::Access &A,
                           const an::Loop &L, std::string &Why) {
    ASTContext &Ctx = In.Ctx;
    const SourceManager &SM = Ctx.getSourceManager();
    auto Fail = [&](std::string W) {
      Why = std::move(W);
      return std::nullopt;
    };
    std::string LoopName = L.hasInductionVariable()
                               ? formatv("the loop over '{0}' at line {1}", L.Var, L.Loc.Line).str()
                               : formatv("the loop at line {0}", L.Loc.Line).str();
    std::string What = "'" + A.Text + "'";
    if (!L.S)
      return Fail(LoopName + " has no statement in the AST");
    const Expr *El = elementExpr(A);
    if (!El)
      return Fail(What + " is not a subscript or a dereference written in the loop (a call, "
                         "or a store through a helper)");
    if (A.Space == an::MemorySpace::Unknown)
      return Fail(What + " is made through a pointer the analysis cannot trace to a parameter "
                         "or a __shared__ array");
    if (!A.IndexKnown)
      return Fail("the index of " + What + " is not known: " + A.IndexWhy);
    QualType T = El->getType();
    if (T.isVolatileQualified())
      return Fail(What + " is volatile: every access must stay");
    {
      QualType U = T.getCanonicalType().getUnqualifiedType();
      std::string S = typeSpelling(U, Ctx);
      bool Half = S == "__half" || S == "half" || S == "__nv_bfloat16" || S == "nv_bfloat16";
      if (!U->isArithmeticType() && !U->isDependentType() && !Half)
        return Fail(What + " holds '" + typeSpelling(T, Ctx) +
                    "', not an arithmetic type a register copy is known to keep exactly");
    }

    // The element is the same in every iteration: its index moves with no
    // loop variable inside L, and its expression names nothing the loop
    // declares or assigns.
    for (const an::Loop &Inner : M.Loops) {
      bool Nested = false;
      for (int P = Inner.Id; P >= 0; P = M.Loops[P].Parent)
        Nested |= unsigned(P) == L.Id;
      if (!Nested || !Inner.hasInductionVariable())
        continue;
      if (M.atoms().dependsOn(A.Index, Inner.VarAtom) ||
          M.atoms().dependsOn(A.Index, Inner.IterAtom))
        return Fail(formatv("the index of {0} moves with the loop over '{1}' (line {2}): not "
                            "the same element in every iteration of {3}",
                            What, Inner.Var, Inner.Loc.Line, LoopName)
                        .str());
    }
    InvariantCheck IC(L.S, SM);
    if (std::string W = IC.check(El, El); !W.empty())
      return Fail("the address of " + What + " may change in " + LoopName + ": " + W);

    // Every other access of the buffer in the loop is to the same element;
    // the other buffers are distinct allocations.
    Plan P;
    P.A = &A;
    P.L = &L;
    std::set<const ParmVarDecl *> Others;
    bool Reads = false, Writes = false;
    const auto *XParam = dyn_cast_or_null<ParmVarDecl>(A.Base);
    for (const an::Access *B : M.accessesIn(L)) {
      bool Same = B->Base ? B->Base == A.Base : B->Buffer == A.Buffer;
      if (Same) {
        std::string BWhat = formatv("'{0}' (line {1})", B->Text, B->Loc.Line).str();
        if (B->Kind == an::AccessKind::Atomic)
          return Fail(LoopName + " also updates '" + A.Buffer + "' atomically: " + BWhat);
        if (!B->IndexKnown || B->Index != A.Index)
          return Fail(formatv("{0} also accesses '{1}' at '{2}': {3}, which may be the element "
                              "{4} (the index is {5})",
                              LoopName, A.Buffer, B->IndexText, BWhat, What,
                              B->IndexKnown ? "another one" : "not known")
                          .str());
        if (!elementExpr(*B))
          return Fail(BWhat + " accesses '" + A.Buffer + "' through a call or a helper");
        if (!within(B->E->getBeginLoc(), loopBody(L.S) ? loopBody(L.S) : L.S, SM))
          return Fail(BWhat + " is in the header of " + LoopName);
        Reads |= B->reads();
        Writes |= B->writes();
        P.Group.push_back(B);
        continue;
      }
      if (B->Space == an::MemorySpace::Unknown)
        return Fail(formatv("{0} accesses memory through '{1}' (line {2}), which the analysis "
                            "cannot trace: it may alias '{3}'",
                            LoopName, B->Buffer, B->Loc.Line, A.Buffer)
                        .str());
      if (A.Space == an::MemorySpace::Global && B->Space == an::MemorySpace::Global) {
        const auto *Q = dyn_cast_or_null<ParmVarDecl>(B->Base);
        if (!XParam || !Q)
          return Fail(formatv("{0} accesses '{1}' (line {2}), which is not shown to be another "
                              "allocation than '{3}'",
                              LoopName, B->Buffer, B->Loc.Line, A.Buffer)
                          .str());
        Others.insert(Q);
      }
    }
    if (!Reads || !Writes)
      return Fail(What + " is not both read and written in " + LoopName);

    // Nothing in the loop may see the element between iterations.
    if (L.HasSync || callsSyncthreads(L.S))
      return Fail(LoopName + " calls __syncthreads: other threads may read '" + A.Buffer +
                  "' between its iterations");
    LoopScan Scan(M, SM);
    Scan.TraverseStmt(const_cast<Stmt *>(L.S));
    if (!Scan.Why.empty())
      return Fail(Scan.Why);

    if (XParam && !Others.empty()) {
      std::string AW = aliasProof(In, XParam, Others);
      if (!AW.empty() && AW[0] == '!')
        return Fail(AW.substr(1));
      P.AliasProof = AW;
    } else if (A.Space == an::MemorySpace::Shared) {
      P.AliasProof = "'" + A.Buffer + "' is a __shared__ array: no pointer parameter reaches it.";
    } else {
      P.AliasProof = LoopName + " touches no other buffer.";
    }

    // Where the loop sits: a statement of a block.
    P.Wrapped = L.S;
    const Stmt *Parent = parentStmt(L.S, Ctx);
    while (Parent && isa<AttributedStmt>(Parent)) {
      P.Wrapped = Parent;
      Parent = parentStmt(Parent, Ctx);
    }
    if (!Parent)
      return Fail(LoopName + " has no enclosing statement");
    P.Parent = Parent;
    const auto *Block = dyn_cast<CompoundStmt>(Parent);
    // `X[e] = v;` right before the loop (declarations between) starts the
    // register.
    const Stmt *Prev = nullptr;
    if (Block) {
      // Walk back over pure declarations.
      std::vector<const Stmt *> Before;
      for (const Stmt *S : Block->body()) {
        if (S == P.Wrapped)
          break;
        Before.push_back(S);
      }
      while (!Before.empty()) {
        const Stmt *S = Before.back();
        const auto *DS = dyn_cast<DeclStmt>(S);
        if (!DS)
          break;
        bool Pure = true;
        for (const Decl *D : DS->decls()) {
          const auto *V = dyn_cast<VarDecl>(D);
          Pure &= V && (!V->getInit() || !V->getInit()->HasSideEffects(Ctx));
        }
        if (!Pure)
          break;
        Before.pop_back();
      }
      Prev = Before.empty() ? nullptr : Before.back();
    }
    if (const auto *BO = dyn_cast_or_null<BinaryOperator>(Prev);
        BO && BO->getOpcode() == BO_Assign) {
      if (const an::Access *S = M.accessAt(BO->getLHS()->IgnoreParens());
          S && S->Kind == an::AccessKind::Store && S->Base == A.Base && S->Buffer == A.Buffer &&
          S->IndexKnown && S->Index == A.Index && elementExpr(*S))
        P.PreStore = BO;
    }
    if (!P.PreStore) {
      // The loop touches the element under conditions that hold in its
      // body: the load and the store outside are made under the same ones,
      // which must not change in the loop.
      const Stmt *Body = loopBody(L.S);
      std::optional<std::vector<std::string>> Common;
      for (const an::Access *B : P.Group) {
        std::vector<std::string> Conds;
        if (Body && B->E != Body)
          for (const Condition &C : conditionsAt(B->E, Body, Ctx)) {
            if (std::string W = IC.check(C.Cond); !W.empty())
              return Fail(formatv("'{0}' (line {1}) runs under '{2}', which may change in {3} "
                                  "({4}): the load before the loop and the store after it could "
                                  "not be made under the same condition",
                                  B->Text, B->Loc.Line, textOf(C.Cond, Ctx), LoopName, W)
                              .str());
            std::string CT = textOf(C.Cond, Ctx);
            if (CT.empty())
              return Fail(formatv("the condition of '{0}' (line {1}) is not plain text of the "
                                  "file",
                                  B->Text, B->Loc.Line)
                              .str());
            Conds.push_back(C.Holds ? CT : "!(" + CT + ")");
          }
        std::sort(Conds.begin(), Conds.end());
        Conds.erase(std::unique(Conds.begin(), Conds.end()), Conds.end());
        if (Common && *Common != Conds)
          return Fail(formatv("'{0}' is accessed under different conditions in {1}",
                              A.Text, LoopName)
                          .str());
        Common = std::move(Conds);
      }
      if (Common)
        P.Conds = *Common;
    }
    P.Type = typeSpelling(T, Ctx);
    return P;
  }

  /// How X is shown to be another allocation than each of Others; a string
  /// starting with '!' is the reason it is not.
  std::string aliasProof(const RuleInput &In, const ParmVarDecl *X,
                         const std::set<const ParmVarDecl *> &Others) {
    ASTContext &Ctx = In.Ctx;
    const FunctionDecl &K = In.Kernel;
    std::vector<const ParmVarDecl *> Need;
    for (const ParmVarDecl *Q : Others)
      if (!(X->getType().isRestrictQualified() && Q->getType().isRestrictQualified()))
        Need.push_back(Q);
    llvm::sort(Need, [](const ParmVarDecl *A, const ParmVarDecl *B) {
      return A->getFunctionScopeIndex() < B->getFunctionScopeIndex();
    });
    auto Names = [&] {
      std::vector<std::string> N;
      for (const ParmVarDecl *Q : Need)
        N.push_back("'" + Q->getName().str() + "'");
      return join(N, ", ");
    };
    if (Need.empty())
      return "'" + X->getName().str() + "' and the other pointers the loop reads are "
             "__restrict__: the kernel promises they do not overlap.";
    std::vector<const CUDAKernelCallExpr *> Launches = launchesOf(K, Ctx);
    std::string Promised;
    for (const CUDAKernelCallExpr *Call : Launches) {
      unsigned Line = lineOf(Call->getBeginLoc(), Ctx.getSourceManager());
      auto Origin = [&](const ParmVarDecl *P) {
        unsigned I = P->getFunctionScopeIndex();
        an::AllocationOrigin O;
        if (I < Call->getNumArgs())
          O = an::traceAllocation(Call->getArg(I), Ctx);
        else
          O.Why = "the launch passes no argument for it";
        return O;
      };
      an::AllocationOrigin OX = Origin(X);
      for (const ParmVarDecl *Q : Need) {
        an::AllocationOrigin OQ = Origin(Q);
        switch (an::compareOrigins(OX, OQ)) {
        case an::AliasVerdict::Distinct:
          continue;
        case an::AliasVerdict::Same:
          return formatv("!the launch at line {0} passes one allocation for '{1}' and '{2}': "
                         "the accumulated element may be read through '{2}'",
                         Line, X->getName(), Q->getName())
              .str();
        case an::AliasVerdict::Unknown: {
          std::string W =
              formatv("the launch at line {0} is not shown to pass distinct allocations for "
                      "'{1}' and '{2}': {3}",
                      Line, X->getName(), Q->getName(),
                      !OX.known() ? OX.Why : !OQ.known() ? OQ.Why : "'" + X->getName().str() +
                                                                        "' points into " +
                                                                        OX.describe() + ", '" +
                                                                        Q->getName().str() +
                                                                        "' into " + OQ.describe())
                  .str();
          if (!In.Request.AssumeNoAlias)
            return "!" + W + "; pass --assume-no-alias to promise it";
          if (Promised.empty())
            Promised = W;
          continue;
        }
        }
      }
    }
    if (!Launches.empty()) {
      if (!Promised.empty())
        return "Not every launch in this file is shown to pass distinct allocations (" + Promised +
               "): that '" + X->getName().str() + "' does not overlap " + Names() +
               " is the user's promise (--assume-no-alias).";
      return formatv("The {0} launch(es) in this file pass distinct allocations for '{1}' and "
                     "{2} (traced to their allocations).",
                     Launches.size(), X->getName(), Names())
          .str();
    }
    if (const measure::LaunchSpec *Spec = In.Request.Spec) {
      auto BufferAt = [&](const ParmVarDecl *P) -> std::string {
        unsigned I = P->getFunctionScopeIndex();
        if (I < Spec->Args.size() && Spec->findBuffer(Spec->Args[I]))
          return Spec->Args[I];
        return "";
      };
      std::string BX = BufferAt(X);
      bool All = !BX.empty();
      for (const ParmVarDecl *Q : Need) {
        std::string BQ = BufferAt(Q);
        All &= !BQ.empty() && BQ != BX;
      }
      if (All)
        return "No launch is in this file; the launch spec passes its own buffer for '" +
               X->getName().str() + "' and for " + Names() + ", each a separate allocation.";
    }
    if (In.Request.AssumeNoAlias)
      return "No launch of the kernel is in this file: that '" + X->getName().str() +
             "' does not overlap " + Names() + " is the user's promise (--assume-no-alias).";
    return formatv("!no launch of '{0}' in this file shows that '{1}' and {2} point into "
                   "distinct allocations (a store to '{1}' could change what the loop reads "
                   "through them); pass --assume-no-alias to promise it",
                   K.getName(), X->getName(), Names())
        .str();
  }

  RuleOutcome emit(const RuleInput &In, an::KernelModel &M, const Plan &P) {
    ASTContext &Ctx = In.Ctx;
    const SourceManager &SM = Ctx.getSourceManager();
    EditCollector C(In);
    std::set<std::string> Taken;
    std::string Acc = freshName("acc", In.Kernel, Taken);
    const an::Access &A = *P.A;
    const an::Loop &L = *P.L;
    std::string LoopName = L.hasInductionVariable()
                               ? formatv("the loop over '{0}' at line {1}", L.Var, L.Loc.Line).str()
                               : formatv("the loop at line {0}", L.Loc.Line).str();

    auto ElRange = C.rangeOf(elementExpr(A)->getSourceRange());
    if (!ElRange)
      return notApplicable("'" + A.Text + "' is not plain text of the file (a macro)");
    std::string Element = In.Source.slice(ElRange->first, ElRange->second).str();

    // Where the loop (and its pragmas) begin, and its indentation.
    auto LoopRange = C.rangeOfStatement(L.S);
    if (!LoopRange)
      return notApplicable(LoopName + " is not plain text of the file (a macro)");
    unsigned Begin = LoopRange->first;
    StringRef Src = In.Source;
    unsigned LS = lineStart(Src, Begin);
    if (!Src.slice(LS, Begin).trim().empty())
      return notApplicable(LoopName + " shares its line with other code");
    // `#pragma unroll` lines right above the loop stay with it.
    while (P.Wrapped != L.S && LS > 0) {
      unsigned Prev = lineStart(Src, LS - 1);
      if (!Src.slice(Prev, LS).trim().starts_with("#pragma"))
        break;
      LS = Prev;
    }
    std::string Indent = lineIndent(Src, Begin).str();
    // A loop that is the body of an if or a loop gets braces around it and
    // the statements added before and after it: `{` at the end of the line
    // above, `}` on a line of its own at the parent's indentation.
    std::string Close;
    if (!isa<CompoundStmt>(P.Parent)) {
      auto PR = C.rangeOf(P.Parent->getSourceRange());
      if (!PR || LS == 0)
        return notApplicable(LoopName + " is the body of a statement that is not plain text of "
                                        "the file");
      unsigned Above = lineStart(Src, LS - 1);
      StringRef AboveLine = Src.slice(Above, LS - 1);
      if (AboveLine.contains("//") || AboveLine.contains("/*") || AboveLine.trim().empty() ||
          AboveLine.trim().starts_with("#"))
        return notApplicable(LoopName + " is the body of a statement and the line above it "
                                        "has no place for a '{'");
      C.add({LS - 1, 0, " {"});
      Close = "\n" + lineIndent(Src, PR->first).str() + "}";
    }

    std::string Cond;
    for (const std::string &T : P.Conds)
      Cond += (Cond.empty() ? "" : " && ") + (P.Conds.size() > 1 ? "(" + T + ")" : T);

    if (P.PreStore) {
      auto R = C.rangeOfStatement(P.PreStore);
      auto RHS = C.rangeOf(P.PreStore->getRHS()->getSourceRange());
      if (!R || !RHS)
        return notApplicable("the store before " + LoopName + " is not plain text of the file");
      C.add({R->first, R->second - R->first,
             P.Type + " " + Acc + " = " + Src.slice(RHS->first, RHS->second).str() + ";"});
    } else if (Cond.empty()) {
      C.add({LS, 0, Indent + P.Type + " " + Acc + " = " + Element + ";\n"});
    } else {
      C.add({LS, 0,
             Indent + P.Type + " " + Acc + " = " + zeroOf(elementExpr(A)->getType(), Ctx) + ";\n" +
                 Indent + "if (" + Cond + ") " + Acc + " = " + Element + ";\n"});
    }
    for (const an::Access *B : P.Group)
      C.replace(elementExpr(*B)->getSourceRange(), Acc);
    std::string Store = Element + " = " + Acc + ";";
    if (!P.PreStore && !Cond.empty())
      Store = "if (" + Cond + ") " + Store;
    C.add({LoopRange->second, 0, "\n" + Indent + Store + Close});
    if (C.failed())
      return notApplicable("the loop cannot be rewritten: " + C.failure());

    std::string Summary =
        formatv("'{0}' kept in a register '{1}' across {2}: {3}, stored once after it", Element,
                Acc, LoopName,
                P.PreStore ? "started from the value stored right before the loop"
                           : "loaded once before the loop")
            .str();
    std::string Rationale = formatv(
        "{0} reads and writes '{1}' in every iteration at an address that does not change in it "
        "('{3}', {2} access(es) in the loop): each iteration pays a load and a store to "
        "memory, and the compiler cannot keep the value in a register across a store it cannot "
        "tell apart from the other buffers' loads. The running value now lives in '{4}'; the "
        "loop computes the same operations in the same order on the same values, so the result "
        "is bitwise identical, floating point included.",
        LoopName, A.Buffer, P.Group.size(), Element, Acc).str();
    Rationale += "\n" + P.AliasProof;
    if (P.PreStore)
      Rationale += formatv("\nThe statement at line {0} stored the element's first value: '{1}' "
                           "starts from it, and the element is written after the loop as it "
                           "was before.",
                           lineOf(P.PreStore->getBeginLoc(), SM), Acc)
                       .str();
    else
      Rationale +=
          "\nThe element is loaded before the loop and stored after it" +
          (Cond.empty() ? std::string()
                        : " under '" + Cond + "', the condition (unchanged by the loop) under "
                                              "which the loop touches it") +
          ": when the loop runs no iteration, the store writes back the value just loaded.";
    (void)SM;
    return proposeEdits(In, name(), Summary, Rationale, C.edits());
  }
};

} // namespace

std::unique_ptr<ExpertRule> createAccumulatorPromotionRule() {
  return std::make_unique<AccumulatorPromotionRule>();
}

} // namespace forge::passes
