//===- passes/optimize/BlockTree.cpp - A whole-block shared-memory tree ---===//
#include "BlockTree.h"
#include "RuleAst.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/AST/Stmt.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

using namespace clang;
using namespace llvm;

namespace forge::passes {

namespace an = forge::analysis;

std::string TreeStep::text(StringRef Near, StringRef Far) const {
  auto Pick = [&](bool IsNear) { return (IsNear ? Near : Far).str(); };
  switch (K) {
  case Binary:
    return Pick(!Swapped) + " " + Op + " " + Pick(Swapped);
  case Call:
    return Op + "(" + Pick(!Swapped) + ", " + Pick(Swapped) + ")";
  case Select:
    return "(" + Pick(XNear) + " " + Cmp + " " + Pick(!XNear) + " ? " + Pick(PNear) + " : " +
           Pick(!PNear) + ")";
  }
  return "";
}

std::string TreeStep::words() const {
  if (K == Select)
    return "a select '" + text("a", "b") + "'";
  return "'" + Op + "'";
}

std::optional<an::ReductionOp> TreeStep::op() const {
  switch (K) {
  case Binary:
    return StringSwitch<std::optional<an::ReductionOp>>(Op)
        .Case("+", an::ReductionOp::Add)
        .Case("*", an::ReductionOp::Mul)
        .Case("&", an::ReductionOp::And)
        .Case("|", an::ReductionOp::Or)
        .Case("^", an::ReductionOp::Xor)
        .Default(std::nullopt);
  case Call:
    return StringSwitch<std::optional<an::ReductionOp>>(Op)
        .Cases({"fmaxf", "fmax", "max"}, an::ReductionOp::Max)
        .Cases({"fminf", "fmin", "min"}, an::ReductionOp::Min)
        .Default(std::nullopt);
  case Select: {
    // `X > Y ? X : Y` keeps the greater; picking the other operand, or
    // comparing the other way, keeps the smaller.
    bool Greater = Cmp == ">" || Cmp == ">=";
    bool PicksX = XNear == PNear;
    return Greater == PicksX ? an::ReductionOp::Max : an::ReductionOp::Min;
  }
  }
  return std::nullopt;
}

bool isLess(const an::Comparison &C, const an::IndexForm &A, const an::IndexForm &B) {
  an::IndexForm D = A - B, One = an::IndexForm::constant(1);
  switch (C.Op) {
  case an::CmpOp::LT:
    return C.Lhs - C.Rhs == D;
  case an::CmpOp::GT:
    return C.Rhs - C.Lhs == D;
  case an::CmpOp::LE:
    return C.Lhs - C.Rhs == D + One;
  case an::CmpOp::GE:
    return C.Rhs - C.Lhs == D + One;
  default:
    return false;
  }
}

bool isZeroTest(const an::Comparison &C, const an::IndexForm &F) {
  return C.Op == an::CmpOp::EQ && (C.Lhs - C.Rhs == F || C.Rhs - C.Lhs == F);
}

namespace {

/// The step `sdata[w] op= sdata[w + s]`, `sdata[w] = op(sdata[w], sdata[w
/// + s])` (either order) or `sdata[w] = a cmp b ? a : b`, the accesses
/// compared as the model's (W and R of the pattern); "" or why not.
std::string matchStep(const Stmt *Step, const an::KernelModel &M, const an::Access &W,
                      const an::Access &R, TreeStep &C) {
  while (const auto *CS = dyn_cast_or_null<CompoundStmt>(Step)) {
    if (CS->size() != 1)
      return "the guarded step is not one statement";
    Step = CS->body_front();
  }
  const auto *Assign = dyn_cast_or_null<BinaryOperator>(
      dyn_cast_or_null<Expr>(Step) ? cast<Expr>(Step)->IgnoreParens() : nullptr);
  if (!Assign || !Assign->isAssignmentOp())
    return "the step is not an assignment";
  auto Is = [&](const Expr *E, const an::Access &A) {
    const auto *AS = dyn_cast<ArraySubscriptExpr>(E->IgnoreParenImpCasts());
    const an::Access *X = AS ? M.accessAt(AS) : nullptr;
    return X && X->Base == A.Base && X->Index == A.Index;
  };
  if (!Is(Assign->getLHS(), W))
    return "the step does not assign '" + W.Text + "'";
  auto Assoc = [](BinaryOperatorKind K) {
    return K == BO_Add || K == BO_Mul || K == BO_And || K == BO_Or || K == BO_Xor;
  };
  if (const auto *CA = dyn_cast<CompoundAssignOperator>(Assign)) {
    BinaryOperatorKind K = BinaryOperator::getOpForCompoundAssignment(CA->getOpcode());
    C.K = TreeStep::Binary;
    C.Op = BinaryOperator::getOpcodeStr(K).str();
    if (!Is(CA->getRHS(), R))
      return "the step does not combine '" + W.Text + "' with '" + R.Text + "'";
    if (!Assoc(K))
      return "the step's operator '" + C.Op + "=' is not associative";
    C.Idempotent = K == BO_And || K == BO_Or;
    return "";
  }
  const Expr *RHS = Assign->getRHS()->IgnoreParenImpCasts();
  auto Pair = [&](const Expr *A, const Expr *B, bool &Swapped) {
    if (Is(A, W) && Is(B, R)) {
      Swapped = false;
      return true;
    }
    if (Is(A, R) && Is(B, W)) {
      Swapped = true;
      return true;
    }
    return false;
  };
  if (const auto *BO = dyn_cast<BinaryOperator>(RHS)) {
    C.K = TreeStep::Binary;
    C.Op = BO->getOpcodeStr().str();
    if (!Pair(BO->getLHS(), BO->getRHS(), C.Swapped))
      return "the step does not combine '" + W.Text + "' with '" + R.Text + "'";
    if (!Assoc(BO->getOpcode()))
      return "the step's operator '" + C.Op + "' is not associative";
    C.Idempotent = BO->getOpcode() == BO_And || BO->getOpcode() == BO_Or;
    return "";
  }
  if (const auto *Call = dyn_cast<CallExpr>(RHS); Call && Call->getNumArgs() == 2) {
    C.K = TreeStep::Call;
    C.Op = calleeNameOf(Call);
    if (!Pair(Call->getArg(0), Call->getArg(1), C.Swapped))
      return "the step does not combine '" + W.Text + "' with '" + R.Text + "'";
    if (!StringSwitch<bool>(C.Op)
             .Cases({"fmaxf", "fminf", "fmax", "fmin", "max", "min"}, true)
             .Default(false))
      return "the step's function '" + C.Op + "' is not one the rule knows as associative "
                                               "(fmaxf, fminf, fmax, fmin, max, min)";
    C.Idempotent = true;
    return "";
  }
  if (const auto *Sel = dyn_cast<ConditionalOperator>(RHS)) {
    const auto *Cmp = dyn_cast<BinaryOperator>(Sel->getCond()->IgnoreParenImpCasts());
    bool XSw = false, PSw = false;
    if (!Cmp || !Cmp->isRelationalOp() || !Pair(Cmp->getLHS(), Cmp->getRHS(), XSw) ||
        !Pair(Sel->getTrueExpr(), Sel->getFalseExpr(), PSw))
      return "the step's select is not a maximum or minimum of '" + W.Text + "' and '" + R.Text +
             "' ('a > b ? a : b')";
    C.K = TreeStep::Select;
    C.Cmp = Cmp->getOpcodeStr().str();
    C.XNear = !XSw;
    C.PNear = !PSw;
    C.Idempotent = true;
    return "";
  }
  return "the step is not 'sdata[tid] op= sdata[tid + s]' or 'sdata[tid] = op(sdata[tid], "
         "sdata[tid + s])'";
}

} // namespace

std::string matchBlockTree(const agent::RuleInput &In, an::KernelModel &M,
                           const CompoundStmt *Body, BlockTree &T) {
  ASTContext &Ctx = In.Ctx;
  const SourceManager &SM = Ctx.getSourceManager();
  an::AtomTable &Tab = M.atoms();
  const an::IndexForm Tid = an::IndexForm::atom(Tab.builtin("threadIdx", 'x'));
  const an::IndexForm BD = an::IndexForm::atom(Tab.builtin("blockDim", 'x'));

  auto Trees = M.patterns(an::PatternKind::TreeReduction);
  if (Trees.empty())
    return "no shared-memory tree reduction in the kernel model (a loop over a halving or "
           "doubling stride s with __syncthreads() in which sdata[w] combines sdata[w + s])";
  if (Trees.size() > 1)
    return "the kernel has several tree reductions; the rule rewrites a kernel with one";
  T.P = Trees.front();
  const an::Loop &L = *(T.L = &M.Loops[T.P->Loops.front()]);
  const an::Access &W = *(T.W = &M.Accesses[T.P->Accesses[0]]);
  T.R = &M.Accesses[T.P->Accesses[1]];
  T.At = formatv("the tree at line {0}", T.P->Loc.Line).str();
  const std::string &At = T.At;
  T.Shared = dyn_cast_or_null<VarDecl>(W.Base);
  T.Loop = L.S;
  if (!T.Shared || !T.Loop || !L.IV)
    return At + " has no loop statement, stride or shared array the rule can follow";
  std::string SD = T.Shared->getNameAsString();
  auto LoopAt = llvm::find(Body->body(), T.Loop);
  if (LoopAt == Body->body_end())
    return At + " is not a statement of the kernel's body (it is inside a loop or a branch)";
  T.LoopIndex = unsigned(LoopAt - Body->body_begin());

  // The tree reduces the whole block into sdata[0]: its stride runs over
  // N / 2 .. 1 (halving, `tid < s`) or 1 .. N / 2 (doubling, `tid % (2 * s)
  // == 0` or `2 * s * tid < N`), N the block.
  const an::IndexForm S = an::IndexForm::atom(L.VarAtom);
  const an::IndexForm Two = an::IndexForm::constant(2);
  an::IndexForm N;
  if (L.Factor == -2) {
    auto B = L.Bound ? L.Bound->constantValue() : std::nullopt;
    bool Runs = (B && ((L.Cmp == an::CmpOp::GT && *B == 0) ||
                       (L.Cmp == an::CmpOp::GE && *B == 1) ||
                       (L.Cmp == an::CmpOp::NE && *B == 0)));
    if (!Runs && !L.Bound) {
      const Expr *Cond = nullptr;
      if (const auto *F = dyn_cast<ForStmt>(T.Loop))
        Cond = F->getCond();
      else if (const auto *Wh = dyn_cast<WhileStmt>(T.Loop))
        Cond = Wh->getCond();
      Runs = Cond && asVar(Cond) == L.IV;
    }
    if (!Runs) {
      if (B && *B == 32 && L.Cmp == an::CmpOp::GT)
        return At + " stops at s = 64 and leaves the last warp to code after the loop (reduce4 / "
                    "reduce5's unrolled volatile warp), which the kernel model does not "
                    "recognise as part of the tree: the rewrite cannot show that it reduces the "
                    "block";
      return At + " does not run while 's > 0' (" + L.CondText +
             "): it would not reduce the whole block into '" + SD + "[0]'";
    }
    if (!L.Start)
      return At + ": its stride's first value is not known";
    if (*L.Start == Tab.div(BD, Two))
      N = BD;
    else if (auto C = L.Start->constantValue())
      N = an::IndexForm::constant(2 * *C);
    else
      return At + ": the stride does not start at half the block ('s = blockDim.x / 2' or a "
                  "constant)";
    if (W.Index != Tid)
      return At + ": the step writes '" + W.Text + "', not the element at threadIdx.x";
    bool Guarded = any_of(W.G.Terms, [&](const an::GuardTerm &G) {
      return G.Cmp && isLess(*G.Cmp, Tid, S);
    });
    if (!Guarded)
      return At + ": the step is not guarded by 'tid < s' (" + W.G.render() + ")";
    T.Shape = "sequential addressing";
  } else if (L.Factor == 2) {
    if (!L.Start || L.Start->constantValue() != 1)
      return At + ": the doubling stride does not start at 1";
    if (!L.Bound || L.Cmp != an::CmpOp::LT)
      return At + ": the doubling loop does not run while 's < N'";
    if (*L.Bound == BD)
      N = BD;
    else if (auto C = L.Bound->constantValue())
      N = an::IndexForm::constant(*C);
    else
      return At + ": the doubling loop's bound '" + M.render(*L.Bound) +
             "' is neither blockDim.x nor a constant";
    an::IndexForm TwoS = S.scaled(2);
    if (W.Index == Tid) {
      an::IndexForm Mod = Tab.mod(Tid, TwoS);
      bool Guarded = any_of(W.G.Terms, [&](const an::GuardTerm &G) {
        return G.Cmp && isZeroTest(*G.Cmp, Mod);
      });
      if (!Guarded)
        return At + ": the step at threadIdx.x is not guarded by 'tid % (2 * s) == 0' (" +
               W.G.render() + ")";
      T.Shape = "interleaved addressing";
    } else if (W.Index == TwoS * Tid) {
      bool Guarded = any_of(W.G.Terms, [&](const an::GuardTerm &G) {
        return G.Cmp && isLess(*G.Cmp, W.Index, N);
      });
      if (!Guarded)
        return At + ": the step at '" + W.IndexText + "' is not guarded by 'index < N' (" +
               W.G.render() + ")";
      T.Shape = "interleaved addressing with a strided index";
    } else {
      return At + ": the step writes '" + W.Text +
             "', neither at threadIdx.x nor at 2 * s * threadIdx.x";
    }
  } else {
    return At + ": the stride is not halved or doubled";
  }
  T.N = N;
  T.SizeIsBlockDim = N == BD;
  T.Size = T.SizeIsBlockDim ? std::string("blockDim.x") : std::to_string(*N.constantValue());

  // The loop body: the guarded step and the barrier (and locals).
  const auto *LB = dyn_cast_or_null<CompoundStmt>(loopBodyOf(T.Loop));
  if (!LB)
    return At + ": its body is not a block";
  const IfStmt *Step = nullptr;
  bool Synced = false;
  for (const Stmt *X : LB->body()) {
    if (isa<NullStmt>(X))
      continue;
    if (isa<WhileStmt>(T.Loop) && X == LB->body_back() && isModified(L.IV, X))
      continue;
    if (const auto *DS = dyn_cast<DeclStmt>(X)) {
      bool Pure = all_of(DS->decls(), [&](const Decl *D) {
        const auto *V = dyn_cast<VarDecl>(D);
        return V && V->hasLocalStorage() && (!V->getInit() || !V->getInit()->HasSideEffects(Ctx));
      });
      if (Pure)
        continue;
    }
    if (isSyncStmt(X) && !Synced && Step) {
      Synced = true;
      continue;
    }
    const auto *If = dyn_cast<IfStmt>(X);
    if (If && !Step && !If->getElse() && !If->getInit() && !If->getConditionVariable()) {
      Step = If;
      continue;
    }
    return formatv("{0}: its body does more than the guarded step and the barrier (line {1}), "
                   "which the rewrite would drop",
                   At, SM.getPresumedLineNumber(X->getBeginLoc()))
        .str();
  }
  if (!Step || !Synced)
    return At + ": its body is not 'if (guard) step; __syncthreads();'";
  if (std::string Why = matchStep(Step->getThen(), M, W, *T.R, T.Step); !Why.empty())
    return At + ": " + Why;
  return "";
}

std::string treeBlockSize(const agent::RuleInput &In, const BlockTree &T, bool WholeWarps,
                          int64_t &Block) {
  const agent::ProposalRequest &Req = In.Request;
  if (Req.Block && ((*Req.Block)[1] != 1 || (*Req.Block)[2] != 1))
    return formatv("the block is {0}x{1}x{2}; the tree runs over threadIdx.x of a 1D block",
                   (*Req.Block)[0], (*Req.Block)[1], (*Req.Block)[2])
        .str();
  if (Req.Block)
    Block = (*Req.Block)[0];
  else if (Req.BlockThreads)
    Block = *Req.BlockThreads;
  else if (!T.SizeIsBlockDim)
    Block = *T.N.constantValue();
  else
    return std::string("the block size is not known (the tree runs over blockDim.x): give a "
                       "spec, a --block or a launch with a constant block, so that it is known "
                       "to be ") +
           (WholeWarps ? "a multiple of 32" : "a power of two");
  if (WholeWarps && (Block % 32 != 0 || !isPowerOf2_64(uint64_t(Block))))
    return formatv("the block has {0} threads; the rewrite needs a power of two that is a "
                   "multiple of 32 (whole warps, and a tree that reduces every element)",
                   Block)
        .str();
  if (Block < 1 || !isPowerOf2_64(uint64_t(Block)))
    return formatv("the block has {0} threads; a tree that halves it does not reduce every "
                   "element unless it is a power of two",
                   Block)
        .str();
  if (!T.SizeIsBlockDim && *T.N.constantValue() != Block)
    return formatv("the tree covers {0} elements, but the block has {1} threads",
                   *T.N.constantValue(), Block)
        .str();
  return "";
}

} // namespace forge::passes
