//===- passes/optimize/CoalescedRemapRule.cpp - coalesced-remap -----------===//
///
/// \file
/// A per-thread chunk (the model's PatternKind::Chunk): thread t handles
/// the K elements t*K + k for k in [0, K), so at each step k the 32 lanes
/// of a warp touch elements K apart, and every warp instruction needs K
/// times the memory transactions it would along consecutive elements.
///
/// When every iteration is elementwise (it reads and writes only its own
/// element, nothing is carried between iterations, and nothing varies
/// between threads but the element index), the rule keeps the set of
/// elements each block handles and changes which thread takes which: at
/// step k, thread threadIdx.x of block b takes element
///
///     V(b) + k * blockDim.x + threadIdx.x,   V(b) = the block's first element
///
/// (V = blockIdx.x * blockDim.x * K for the usual t = blockIdx.x *
/// blockDim.x + threadIdx.x), so the warp touches 32 consecutive elements.
/// Each block still covers V(b) .. V(b) + K * blockDim.x - 1, so the grid,
/// the block and every per-element bound check stay as they are; the loop
/// header becomes `for (int forge_k = 0; forge_k < K; ++forge_k)` and each
/// expression whose index form is the element index becomes `forge_i`.
/// See docs/passes/coalesced-remap.md.
///
//===----------------------------------------------------------------------===//
#include "FormCode.h"
#include "RuleAst.h"
#include "RuleUtil.h"
#include "Rules.h"
#include "forge/Analysis/KernelModel.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DynamicRecursiveASTVisitor.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include <functional>
#include <set>

using namespace clang;
using namespace llvm;
namespace an = forge::analysis;

namespace forge::passes {
namespace {

unsigned lineOf(ASTContext &Ctx, const Stmt *S) {
  const SourceManager &SM = Ctx.getSourceManager();
  return SM.getPresumedLineNumber(SM.getExpansionLoc(S->getBeginLoc()));
}

/// The conjuncts of a condition (`a && (b && c)`).
void conjunctsOf(const Expr *E, std::vector<const Expr *> &Out) {
  E = E->IgnoreParens();
  if (const auto *B = dyn_cast<BinaryOperator>(E); B && B->getOpcode() == BO_LAnd) {
    conjunctsOf(B->getLHS(), Out);
    conjunctsOf(B->getRHS(), Out);
    return;
  }
  Out.push_back(E);
}

/// `a < b` (and <=, >, >=) as an upper bound `F + c < U` on the element
/// index F, normalised to `F < U'`: U' when it is one.
std::optional<an::IndexForm> upperBound(an::AtomTable &T, const an::IndexForm &FE,
                                        const an::IndexForm &L, an::CmpOp Op,
                                        const an::IndexForm &R) {
  an::IndexForm A = T.expandLoops(L), B = T.expandLoops(R);
  // Put the side with F on the left.
  bool Swap = !(A - FE).isConstant() && (B - FE).isConstant();
  if (Swap) {
    std::swap(A, B);
    Op = an::swapSides(Op);
  }
  auto C = (A - FE).constantValue();
  // U the same in the block and for every step (loop counters are uniform
  // too, but not constant).
  if (!C || !T.uniformity(B).atLeast(an::Uniformity::BlockUniform) ||
      T.dependsOnKind(B, an::AtomKind::LoopIter) || T.dependsOnKind(B, an::AtomKind::LoopVar))
    return std::nullopt;
  // F + c < U  <=>  F < U - c;  F + c <= U  <=>  F < U - c + 1.
  if (Op == an::CmpOp::LT)
    return B - an::IndexForm::constant(*C);
  if (Op == an::CmpOp::LE)
    return B - an::IndexForm::constant(*C) + an::IndexForm::constant(1);
  return std::nullopt;
}

class CoalescedRemapRule : public ExpertRule {
public:
  StringRef name() const override { return "coalesced-remap"; }
  RuleOutcome propose(const RuleInput &In) override;
};

RuleOutcome CoalescedRemapRule::propose(const RuleInput &In) {
  ASTContext &Ctx = In.Ctx;
  const CompoundStmt *Body = kernelBody(In.Kernel);
  if (!Body)
    return notApplicable("the kernel has no body");
  // Without the launch block, so that blockDim stays a symbol in what is
  // rendered from the forms.
  auto MOr = an::analyzeKernel(Ctx, In.Kernel, an::AnalysisOptions());
  if (!MOr)
    return notApplicable(toString(MOr.takeError()));
  an::KernelModel &M = *MOr;
  an::AtomTable &T = M.atoms();

  std::vector<const an::Pattern *> Ps = M.patterns(an::PatternKind::Chunk);
  if (Ps.empty())
    return notApplicable("the model recognises no per-thread chunk (thread t handling t*K + k "
                         "for k in [0, K), with K known at compile time)");
  if (Ps.size() > 1)
    return notApplicable(formatv("the kernel has {0} chunk loops; only a kernel with one is "
                                 "remapped",
                                 Ps.size())
                             .str());
  const an::Pattern &P = *Ps.front();
  const an::Loop &L = M.Loops[P.Loops.front()];
  const auto *For = dyn_cast_or_null<ForStmt>(L.S);
  if (!For)
    return notApplicable("the chunk loop (line " + std::to_string(L.Loc.Line) +
                         ") is not a for loop");
  const auto *InitDS = dyn_cast_or_null<DeclStmt>(For->getInit());
  if (!InitDS || !InitDS->isSingleDecl() || InitDS->getSingleDecl() != L.IV || !For->getCond())
    return notApplicable("the chunk loop's variable '" + L.Var +
                         "' is not declared in the loop's header");
  if (L.Parent >= 0)
    return notApplicable("the chunk loop is inside another loop (line " +
                         std::to_string(M.Loops[L.Parent].Loc.Line) + ")");
  for (const an::Loop &Inner : M.Loops)
    if (Inner.Parent == int(L.Id))
      return notApplicable("the chunk loop holds another loop (line " +
                           std::to_string(Inner.Loc.Line) + ")");
  if (L.HasSync)
    return notApplicable("the chunk loop synchronises the block");
  if (L.HasEarlyExit)
    return notApplicable("the chunk loop may leave early (break, return or goto): its "
                         "iterations depend on the ones before");
  if (!L.Step || L.Step->constantValue() != 1)
    return notApplicable("the chunk loop does not step by one");

  // The element index F = V + K * threadIdx.x + k, V the same in the block.
  const an::IndexForm &K = P.ChunkElems;
  an::AtomId Tx = T.builtin("threadIdx", 'x'), It = L.IterAtom;
  an::IndexForm FE = T.expandLoops(M.Accesses[P.Accesses.front()].Index);
  for (unsigned Id : P.Accesses)
    if (T.expandLoops(M.Accesses[Id].Index) != FE)
      return notApplicable("the loop accesses '" + M.Accesses[P.Accesses.front()].Text +
                           "' and '" + M.Accesses[Id].Text +
                           "': an iteration touches more than its own element");
  auto KC = FE.coefficientOf(Tx), IC = FE.coefficientOf(It);
  if (!KC || *KC != K || !IC || IC->constantValue() != 1)
    return notApplicable("the element index " + M.render(FE) + " is not t*" + P.ChunkSize +
                         " + k");
  an::IndexForm V = FE - K * an::IndexForm::atom(Tx) - an::IndexForm::atom(It);
  if (!T.uniformity(V).atLeast(an::Uniformity::BlockUniform) || T.dependsOn(V, Tx) ||
      T.dependsOn(V, It))
    return notApplicable("the chunk's start " + M.render(V) +
                         " differs between the threads of a block other than through "
                         "threadIdx.x");

  // Every access: the iteration's own element, or a read-only element the
  // same for the block.
  std::set<const ValueDecl *> Written;
  for (const an::Access &A : M.Accesses)
    if (A.writes())
      Written.insert(A.Base);
  for (const an::Access &A : M.Accesses) {
    std::string Where = "'" + A.Text + "' (line " + std::to_string(A.Loc.Line) + ")";
    if (A.Space != an::MemorySpace::Global)
      return notApplicable("the kernel accesses " + Where + " in " +
                           an::memorySpaceName(A.Space).str() +
                           " memory; another thread's element may be read there");
    if (A.Kind == an::AccessKind::Atomic)
      return notApplicable("the kernel updates " + Where + " atomically");
    if (!is_contained(A.Loops, L.Id))
      return notApplicable("the kernel accesses " + Where + " outside the chunk loop");
    if (T.expandLoops(A.Index) == FE)
      continue;
    if (A.Kind == an::AccessKind::Load && !Written.count(A.Base) &&
        T.uniformity(A.Index).atLeast(an::Uniformity::BlockUniform))
      continue;
    return notApplicable(Where + " is not the iteration's own element (" +
                         M.Accesses[P.Accesses.front()].Text +
                         "): iterations would touch each other's elements");
  }
  const Stmt *LoopBody = For->getBody();
  std::string Effect = effectsOf(LoopBody, In.Kernel, Ctx, [&](const Expr *LHS) {
    const an::Access *A = M.accessAt(LHS->IgnoreParens());
    return A && T.expandLoops(A->Index) == FE;
  });
  if (!Effect.empty())
    return notApplicable("the chunk loop " + Effect + ": it would run in another order");

  // The expressions that compute the element index become forge_i: the
  // maximal integer subexpressions whose form is F (a local the body
  // declares keeps its name; its initialiser is replaced).
  std::vector<const Expr *> Conjuncts, Extra;
  conjunctsOf(For->getCond(), Conjuncts);
  bool ExitTest = false;
  for (const Expr *E : Conjuncts) {
    // The exit test, `k < K` or `j < end`: the first comparison of the
    // variable itself, as the model takes it.
    const auto *B = dyn_cast<BinaryOperator>(E);
    auto IsIV = [&](const Expr *X) {
      const auto *D = dyn_cast<DeclRefExpr>(X->IgnoreParenImpCasts());
      return D && D->getDecl() == L.IV;
    };
    if (!ExitTest && B && B->isComparisonOp() && (IsIV(B->getLHS()) || IsIV(B->getRHS()))) {
      ExitTest = true;
      continue;
    }
    Extra.push_back(E);
  }
  if (!ExitTest)
    return notApplicable("the condition '" + textOf(For->getCond(), Ctx) +
                         "' of the chunk loop has no exit test on '" + L.Var + "'");
  std::set<const VarDecl *> BodyLocals;
  {
    struct Locals : DynamicRecursiveASTVisitor {
      std::set<const VarDecl *> *Out;
      bool VisitVarDecl(VarDecl *V) override { return Out->insert(V), true; }
    } LV;
    LV.Out = &BodyLocals;
    LV.TraverseStmt(const_cast<Stmt *>(LoopBody));
  }
  std::vector<const Expr *> Replaced;
  std::function<void(const Stmt *)> Collect = [&](const Stmt *S) {
    if (!S)
      return;
    if (const auto *E = dyn_cast<Expr>(S)) {
      const Expr *X = E->IgnoreParenImpCasts();
      const auto *D = dyn_cast<DeclRefExpr>(X);
      bool BodyLocal = D && isa<VarDecl>(D->getDecl()) &&
                       BodyLocals.count(cast<VarDecl>(D->getDecl()));
      if (!BodyLocal && !X->isTypeDependent() && X->getType()->isIntegerType() &&
          !X->getType()->isBooleanType() && T.expandLoops(M.formOf(X)) == FE) {
        if (!is_contained(Replaced, X))
          Replaced.push_back(X);
        return;
      }
    }
    for (const Stmt *C : S->children())
      Collect(C);
  };
  Collect(LoopBody);
  for (const Expr *E : Extra)
    Collect(E);

  // What is left must not vary between threads, nor be carried between
  // iterations, nor name the loop's position other than through F.
  auto IsReplaced = [&](const Stmt *S) {
    return any_of(Replaced, [&](const Expr *R) { return isWithin(S, R); });
  };
  std::string Why;
  std::function<void(const Stmt *)> Check = [&](const Stmt *S) {
    if (!S || !Why.empty())
      return;
    if (const auto *E = dyn_cast<Expr>(S); E && is_contained(Replaced, E->IgnoreParenImpCasts()))
      return;
    std::string Line = " (line " + std::to_string(lineOf(Ctx, S)) + ")";
    if (const auto *E = dyn_cast<Expr>(S)) {
      if (auto B = cudaBuiltin(E)) {
        if (B->Var == "threadIdx")
          Why = "uses '" + (B->Var + "." + std::string(1, B->Dim)).str() + "' as a value" + Line;
        return;
      }
    }
    if (const auto *D = dyn_cast<DeclRefExpr>(S))
      if (const auto *Var = dyn_cast<VarDecl>(D->getDecl()); Var && Var->hasLocalStorage()) {
        if (Var == L.IV)
          Why = "uses '" + L.Var + "' other than through the element index" + Line;
        else if (!BodyLocals.count(Var) && !M.isUniform(D, an::Uniformity::BlockUniform))
          Why = "uses '" + Var->getNameAsString() + "', which varies between threads" + Line;
        return;
      }
    auto Assigned = [&](const Expr *LHS) {
      const auto *D = dyn_cast<DeclRefExpr>(LHS->IgnoreParenImpCasts());
      const auto *Var = D ? dyn_cast<VarDecl>(D->getDecl()) : nullptr;
      if (Var && Var->hasLocalStorage() && !BodyLocals.count(Var))
        Why = "'" + Var->getNameAsString() +
              "' carries a value from one iteration to the next" + Line +
              ": a running sum or a scan";
    };
    if (const auto *B = dyn_cast<BinaryOperator>(S); B && B->isAssignmentOp())
      Assigned(B->getLHS());
    if (const auto *U = dyn_cast<UnaryOperator>(S); U && U->isIncrementDecrementOp())
      Assigned(U->getSubExpr());
    for (const Stmt *C : S->children())
      Check(C);
  };
  Check(LoopBody);
  for (const Expr *E : Extra)
    Check(E);
  if (!Why.empty())
    return notApplicable("the chunk loop " + Why +
                         "; the remap gives each element to another thread and step");

  // Per-element upper bounds: the loop's extra exit tests (the loop stops
  // at the first element that fails one, which for an upper bound on F is
  // every later one too) and a `min(n, s + K)` limit.
  FormRenderer Rd(T);
  std::vector<std::string> Continues;
  std::vector<an::IndexForm> LoopBounds;
  for (const Expr *E : Extra) {
    const auto *B = dyn_cast<BinaryOperator>(E);
    std::optional<an::IndexForm> U;
    if (B && B->isComparisonOp() && B->getLHS()->getType()->isIntegerType()) {
      an::CmpOp Op = B->getOpcode() == BO_LT   ? an::CmpOp::LT
                     : B->getOpcode() == BO_LE ? an::CmpOp::LE
                     : B->getOpcode() == BO_GT ? an::CmpOp::GT
                     : B->getOpcode() == BO_GE ? an::CmpOp::GE
                                               : an::CmpOp::EQ;
      if (Op != an::CmpOp::EQ)
        U = upperBound(T, FE, M.formOf(B->getLHS()), Op, M.formOf(B->getRHS()));
    }
    if (!U)
      return notApplicable("the chunk loop stops at the first element where '" + textOf(E, Ctx) +
                           "' fails, and that is not an upper bound on the element index");
    LoopBounds.push_back(*U);
    std::vector<std::pair<SourceRange, std::string>> Repl;
    for (const Expr *R : Replaced)
      if (isWithin(R, E))
        Repl.push_back({R->getSourceRange(), "forge_i"});
    auto Text = textWithReplacements(E, Ctx, Repl);
    if (!Text)
      return notApplicable("the condition '" + textOf(E, Ctx) + "' is written through a macro");
    Continues.push_back("if (!(" + *Text + "))");
  }
  if (P.ChunkLimit) {
    // j < min(n, s + K) with F = j + d: F < n + d.
    an::IndexForm D = FE - T.expandLoops(an::IndexForm::atom(L.VarAtom));
    an::IndexForm U = *P.ChunkLimit + D;
    auto Text = Rd.render(U);
    if (!D.isConstant() || !Text)
      return notApplicable("the chunk's limit " + M.render(*P.ChunkLimit) +
                           " cannot be written per element: " + Rd.Why);
    LoopBounds.push_back(U);
    Continues.push_back("if (forge_i >= " + *Text + ")");
  }

  // Conditions around the loop: the same for the block, or a bound on the
  // chunk's start that every element's own bound implies (`if (base >= n)
  // return;` before the loop), whose early exit goes.
  EditCollector C(In);
  std::vector<const Stmt *> Erased;
  for (const an::GuardTerm &Tm : M.guardOf(For).Terms) {
    if (Tm.Uniform.atLeast(an::Uniformity::BlockUniform))
      continue;
    std::string Cant = "the chunk loop runs only where '" + Tm.Text +
                       "', which varies between threads; the remap gives its elements to "
                       "other threads";
    if (!Tm.Cmp || Tm.Origin != an::GuardOrigin::EarlyExit)
      return notApplicable(Cant);
    // base + c0 < U is implied by F < U' (F >= base) when U' <= U - c0.
    an::IndexForm Base = FE - an::IndexForm::atom(It);
    auto Outer = upperBound(T, Base, Tm.Cmp->Lhs, Tm.Cmp->Op, Tm.Cmp->Rhs);
    auto Implied = [&](const an::IndexForm &U) {
      auto Gap = (*Outer - U).constantValue();
      return Gap && *Gap >= 0;
    };
    bool ByLoop = Outer && any_of(LoopBounds, Implied);
    bool ByGuards = Outer && all_of(P.Accesses, [&](unsigned Id) {
                      const an::Access &A = M.Accesses[Id];
                      return any_of(A.G.Terms, [&](const an::GuardTerm &G) {
                        if (!G.Cmp || !isWithin(G.Cond, LoopBody))
                          return false;
                        auto U = upperBound(T, FE, G.Cmp->Lhs, G.Cmp->Op, G.Cmp->Rhs);
                        return U && Implied(*U);
                      });
                    });
    if (!ByLoop && !ByGuards)
      return notApplicable(Cant);
    // The early exit itself: `if (cond) return;` with nothing else.
    auto Ps2 = Ctx.getParents(*Tm.Cond);
    const auto *If = Ps2.empty() ? nullptr : Ps2[0].get<IfStmt>();
    const Stmt *Then = If ? If->getThen() : nullptr;
    if (const auto *CS = dyn_cast_or_null<CompoundStmt>(Then); CS && CS->size() == 1)
      Then = CS->body_front();
    if (!If || If->getElse() || !isa_and_nonnull<ReturnStmt>(Then) ||
        cast<ReturnStmt>(Then)->getRetValue())
      return notApplicable(Cant);
    auto Rg = C.rangeOfStatement(If);
    if (!Rg)
      return notApplicable("the early exit '" + textOf(If, Ctx) + "' is written through a macro");
    C.add(eraseWithLine(In.Source, Rg->first, Rg->second));
    Erased.push_back(If);
  }

  // The edits: the loop header, the element index, the per-element bounds.
  auto KText = Rd.render(K);
  auto VText = V.isZero() ? std::optional<std::string>("") : Rd.render(V);
  if (!KText || !VText)
    return notApplicable("the chunk cannot be written from the model: " + Rd.Why);
  auto LP = C.offsetOf(For->getLParenLoc()), RP = C.offsetOf(For->getRParenLoc());
  auto ForStart = C.offsetOf(For->getBeginLoc());
  if (!LP || !RP || !ForStart)
    return notApplicable("the chunk loop's header is written through a macro");
  std::string ForInd = lineIndent(In.Source, *ForStart).str();
  std::string Index = "const long long forge_i = " + (VText->empty() ? "" : *VText + " + ") +
                      "(long long)forge_k * blockDim.x + threadIdx.x;";
  if (Index.size() > 76) // continued on the next line
    Index = "const long long forge_i =\n@    " + Index.substr(strlen("const long long forge_i = "));
  std::string Header = "(int forge_k = 0; forge_k < " + *KText + "; ++forge_k)";
  std::vector<std::string> Lines;
  Lines.push_back(Index);
  for (const std::string &Cnd : Continues)
    Lines.push_back(Cnd + " continue;");
  if (const auto *CS = dyn_cast<CompoundStmt>(LoopBody)) {
    std::string Ind = ForInd + "  ";
    if (!CS->body_empty())
      if (auto O = C.offsetOf(CS->body_front()->getBeginLoc()))
        Ind = lineIndent(In.Source, *O).str();
    std::string Text;
    for (const std::string &Ln : Lines)
      Text += "\n" + Ind + Ln;
    for (size_t At; (At = Text.find("\n@")) != std::string::npos;)
      Text.replace(At, 2, "\n" + Ind);
    C.replace(SourceRange(For->getLParenLoc(), For->getRParenLoc()), Header);
    C.insertAfterToken(CS->getLBracLoc(), Text);
  } else {
    auto BR = C.rangeOfStatement(LoopBody);
    if (!BR)
      return notApplicable("the chunk loop's body is written through a macro");
    bool SameLine = In.Source.slice(*RP, BR->first).find('\n') == StringRef::npos;
    std::string Ind = SameLine ? ForInd + "  " : lineIndent(In.Source, BR->first).str();
    std::string Text = SameLine ? "\n" + Ind : "";
    for (const std::string &Ln : Lines)
      Text += Ln + "\n" + Ind;
    for (size_t At; (At = Text.find("\n@")) != std::string::npos;)
      Text.replace(At, 2, "\n" + Ind);
    C.replace(SourceRange(For->getLParenLoc(), For->getRParenLoc()), Header + " {");
    C.add({BR->first, 0, Text});
    C.add({BR->second, 0, "\n" + ForInd + "}"});
  }
  // (The loop's condition is rewritten whole above.)
  for (const Expr *R : Replaced)
    if (!isWithin(R, For->getCond()))
      C.replace(R->getSourceRange(), "forge_i");
  // Before the loop and any pragma that heads it.
  unsigned Head = lineStart(In.Source, *ForStart);
  while (Head > 0) {
    unsigned Prev = lineStart(In.Source, Head - 1);
    if (!In.Source.slice(Prev, Head).ltrim().starts_with("#pragma"))
      break;
    Head = Prev;
  }
  // The K steps are independent: unrolled, their loads are all in flight
  // at once (unless the kernel already says how to unroll).
  bool HasPragma = Head != lineStart(In.Source, *ForStart);
  C.add({Head, 0,
         formatv("{0}// coalesced-remap: the block's {1} * blockDim.x elements, blockDim.x at a "
                 "time:\n{0}// at step forge_k the warp takes 32 consecutive ones (thread t "
                 "took t * {1} + k).\n{2}",
                 ForInd, *KText, HasPragma ? "" : ForInd + "#pragma unroll\n")
             .str()});

  // Declarations before the loop that only fed the old index go.
  auto Inside = [&](const Stmt *S, const Stmt *Outer) {
    auto A = C.rangeOf(S->getSourceRange()), B = C.rangeOf(Outer->getSourceRange());
    return A && B && B->first <= A->first && A->second <= B->second;
  };
  auto Alive = [&](const DeclRefExpr *Ref) {
    if (IsReplaced(Ref) || any_of(Erased, [&](const Stmt *S) { return Inside(Ref, S); }))
      return false;
    bool InHeader = isWithin(Ref, For->getInit()) || isWithin(Ref, For->getCond()) ||
                    isWithin(Ref, For->getInc());
    return !InHeader || any_of(Extra, [&](const Expr *E) { return isWithin(Ref, E); });
  };
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (const Stmt *Top : Body->body()) {
      if (Top == For)
        break;
      const auto *DS = dyn_cast<DeclStmt>(Top);
      if (!DS || !DS->isSingleDecl() || is_contained(Erased, Top))
        continue;
      const auto *Var = dyn_cast<VarDecl>(DS->getSingleDecl());
      if (!Var || !Var->getInit() ||
          !effectsOf(Var->getInit(), In.Kernel, Ctx, [](const Expr *) { return false; })
               .empty())
        continue;
      if (any_of(referencesTo(Var, Body), Alive))
        continue;
      auto Rg = C.rangeOfStatement(DS);
      if (!Rg)
        continue;
      C.add(eraseWithLine(In.Source, Rg->first, Rg->second));
      Erased.push_back(DS);
      Changed = true;
    }
  }
  if (C.failed())
    return notApplicable(C.failure());

  std::vector<std::string> Bufs;
  for (unsigned Id : P.Accesses)
    if (!is_contained(Bufs, M.Accesses[Id].Buffer))
      Bufs.push_back(M.Accesses[Id].Buffer);
  std::string Rationale = formatv(
      "Each thread handled {0} consecutive elements, so at every step the 32 lanes of a warp "
      "touched elements {0} apart ({1} strided by {0}): {0} times the memory transactions of "
      "consecutive accesses. The block now visits the same {0} * blockDim.x elements "
      "blockDim.x at a time (element {2}forge_k * blockDim.x + threadIdx.x at step forge_k), "
      "so each warp instruction covers 32 consecutive elements. Every iteration reads and "
      "writes only its own element and nothing is carried between iterations, so the order "
      "does not matter; the grid, the block and the per-element bounds stay as they are.",
      *KText, join(Bufs, ", "), VText->empty() ? "" : *VText + " + ")
                              .str();
  return proposeEdits(In, name(),
                      formatv("coalesced remap of the per-thread chunk of {0} elements of {1}",
                              *KText, join(Bufs, ", "))
                          .str(),
                      Rationale, C.edits());
}

} // namespace

std::unique_ptr<ExpertRule> createCoalescedRemapRule() {
  return std::make_unique<CoalescedRemapRule>();
}

} // namespace forge::passes
