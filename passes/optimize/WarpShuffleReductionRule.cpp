//===- passes/optimize/WarpShuffleReductionRule.cpp - warp-shuffle-reduction ===//
///
/// \file
/// A shared-memory tree reduction
///
///     for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
///       if (tid < s)
///         sdata[tid] += sdata[tid + s];
///       __syncthreads();
///     }
///     if (tid == 0) out[blockIdx.x] = sdata[0];
///
/// spends its last five rounds (s = 16 .. 1) and their __syncthreads() on
/// one warp. The rule stops the tree at s = 64 and lets the first warp
/// finish in registers with __shfl_down_sync, in the same order of
/// operations, so float results stay bitwise identical. A second proposal
/// reduces every warp with shuffles first and keeps only one partial per
/// warp in shared memory (fewer steps still, but a float sum is
/// re-associated).
///
/// The tree is the kernel model's TreeReduction pattern (any loop spelling
/// the loop analysis reads, indices compared as forms); the rule checks
/// only what its rewrite needs beyond it (docs/passes/warp-shuffle-reduction.md).
///
//===----------------------------------------------------------------------===//
#include "RuleAst.h"
#include "RuleUtil.h"
#include "Rules.h"
#include "forge/Analysis/KernelModel.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DynamicRecursiveASTVisitor.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

using namespace clang;
using namespace llvm;
namespace an = forge::analysis;

namespace forge::passes {
namespace {

/// The parts of a recognised tree reduction.
struct Tree {
  const Stmt *Loop = nullptr;      ///< a for or while loop
  const Expr *Cond = nullptr;      ///< its condition
  const VarDecl *Stride = nullptr; ///< s
  /// The number of elements the tree reduces: N in `s = N / 2` (or `s < N`
  /// for the interleaved one), when the source spells it; SizeValue when
  /// only its value is known (`s = 128`: 256).
  const Expr *Size = nullptr;
  std::optional<int64_t> SizeValue;
  /// The declaration of s before a while loop (`int s = blockDim.x / 2;`).
  const DeclStmt *StrideDecl = nullptr;
  const VarDecl *Shared = nullptr; ///< sdata
  /// threadIdx.x as a form, and how the tree's index spells it ("tid",
  /// "threadIdx.x").
  an::IndexForm TidForm;
  std::string Tid;
  /// `+` and friends, or a call (`fmaxf`).
  BinaryOperatorKind Op = BO_Add;
  std::string Callee;
  bool Compound = false; ///< sdata[tid] op= sdata[tid + s]
  bool Swapped = false;  ///< sdata[tid + s] first
  const CompoundStmt *Parent = nullptr;
  unsigned Index = 0; ///< of Loop in Parent
  /// Interleaved addressing: `for (s = 1; s < N; s *= 2) { if (tid % (2 * s)
  /// == 0) sdata[tid] += sdata[tid + s]; __syncthreads(); }` (the same sum in
  /// sdata[0] for a power-of-two N, in another order).
  bool Interleaved = false;
};

/// Strips parentheses and implicit casts, and a compound statement of one
/// statement.
const Stmt *single(const Stmt *S) {
  while (const auto *CS = dyn_cast_or_null<CompoundStmt>(S)) {
    if (CS->size() != 1)
      return S;
    S = CS->body_front();
  }
  return S;
}

bool isSyncthreads(const Stmt *S) {
  const auto *C = dyn_cast_or_null<CallExpr>(S);
  const FunctionDecl *FD = C ? C->getDirectCallee() : nullptr;
  return FD && FD->getIdentifier() && FD->getName() == "__syncthreads";
}

bool isAssociativeCall(StringRef Name) {
  return StringSwitch<bool>(Name)
      .Cases({"fmaxf", "fminf", "fmax", "fmin", "max", "min"}, true)
      .Default(false);
}

/// A tree reduction from the kernel model's TreeReduction pattern (a loop
/// whose stride s is halved or doubled, with __syncthreads() in it, in
/// which the shared element at threadIdx.x combines the one at threadIdx.x
/// + s, whatever the spelling), and the checks the rewrite needs beyond it:
/// the body is the guarded step and the barrier, the guard is `tid < s` (or
/// `tid % (2 * s) == 0`), the operator is associative.
class TreeMatcher {
public:
  TreeMatcher(const RuleInput &In, an::KernelModel &M) : In(In), Ctx(In.Ctx), M(M) {
    TidForm = an::IndexForm::atom(M.atoms().builtin("threadIdx", 'x'));
  }

  std::optional<Tree> match(const an::Pattern &P, std::string &Why) {
    Tree T;
    auto Fail = [&](std::string W) -> std::optional<Tree> {
      Why = (T.Interleaved ? "interleaved addressing: " : "") + W;
      return std::nullopt;
    };
    const an::Loop &L = M.Loops[P.Loops.front()];
    const an::Access &W = M.Accesses[P.Accesses[0]];
    CurStride = L.IV;
    T.Loop = L.S;
    T.Stride = L.IV;
    T.Interleaved = L.Factor > 0;
    T.TidForm = TidForm;
    if (!T.Loop || !T.Stride)
      return Fail("the loop has no statement or no stride variable");
    if (L.Factor != 2 && L.Factor != -2)
      return Fail("the stride is not halved or doubled ('s >>= 1', 's /= 2', 's *= 2')");
    const Stmt *LoopBody = nullptr;
    if (const auto *F = dyn_cast<ForStmt>(T.Loop)) {
      T.Cond = F->getCond();
      LoopBody = F->getBody();
    } else if (const auto *Wh = dyn_cast<WhileStmt>(T.Loop)) {
      T.Cond = Wh->getCond();
      LoopBody = Wh->getBody();
    } else {
      return Fail("the loop is not a for or a while loop");
    }
    T.Shared = dyn_cast_or_null<VarDecl>(W.Base);
    if (!T.Shared || !T.Shared->hasAttr<CUDASharedAttr>())
      return Fail("the step does not assign an element of a __shared__ array");
    // The element each thread owns: sdata[threadIdx.x], through a local
    // that keeps its value.
    if (W.Index != TidForm)
      return Fail("the step assigns '" + W.Text + "', which is not at threadIdx.x");
    const auto *WE = dyn_cast_or_null<ArraySubscriptExpr>(W.E);
    if (!WE)
      return Fail("the step does not assign 'sdata[tid]'");
    const Expr *TidE = stripCasts(WE->getIdx());
    if (const VarDecl *V = asVar(TidE)) {
      if (!V->hasLocalStorage() || isModified(V, In.Kernel.getBody()))
        return Fail("'" + V->getNameAsString() + "' is assigned in the kernel");
      T.Tid = V->getNameAsString();
    } else if (isCudaBuiltin(TidE, "threadIdx", 'x')) {
      T.Tid = "threadIdx.x";
    } else {
      return Fail("the step's index '" + textOf(WE->getIdx(), Ctx) +
                  "' is neither threadIdx.x nor a local that holds it");
    }

    // { if (guard) <update>; __syncthreads(); [the stride's step] }
    const auto *Body = dyn_cast_or_null<CompoundStmt>(LoopBody);
    std::vector<const Stmt *> Rest;
    if (Body)
      for (const Stmt *X : Body->body())
        if (!isa<NullStmt>(X) && !(isa<WhileStmt>(T.Loop) && X == Body->body_back() &&
                                   isModified(T.Stride, X)))
          Rest.push_back(X);
    const auto *If = Rest.size() == 2 && isSyncthreads(Rest[1]) ? dyn_cast<IfStmt>(Rest[0]) : nullptr;
    std::string Shape = T.Interleaved ? "'if (tid % (2 * s) == 0) ...; __syncthreads();'"
                                      : "'if (tid < s) ...; __syncthreads();'";
    if (!If || If->getElse() || If->getInit() || If->getConditionVariable())
      return Fail("the loop body is not " + Shape);
    if (isModified(T.Stride, If))
      return Fail("the loop body assigns its stride");

    if (T.Interleaved) {
      // for (s = 1; s < N; s *= 2)
      if (!L.Start || L.Start->constantValue() != 1)
        return Fail("the stride does not start at 1");
      T.Size = boundExpr(T.Cond);
      if (L.Cmp != an::CmpOp::LT || !T.Size)
        return Fail("the loop does not run while 's < N'");
      if (!interleavedGuard(If->getCond()))
        return Fail("the step is not guarded by 'tid % (2 * s) == 0' with tid = threadIdx.x");
    } else {
      // while s > 0 (s >= 1, s != 0), from N / 2
      auto B = L.Bound ? L.Bound->constantValue() : std::nullopt;
      bool Runs = (B && ((L.Cmp == an::CmpOp::GT && *B == 0) ||
                         (L.Cmp == an::CmpOp::GE && *B == 1) ||
                         (L.Cmp == an::CmpOp::NE && *B == 0))) ||
                  (!L.Bound && T.Cond && asVar(T.Cond) == T.Stride); // `s` itself
      if (!Runs)
        return Fail("the loop does not run while 's > 0'");
      if (std::string W = startSize(T, L); !W.empty())
        return Fail(W);
      const auto *Lt = dyn_cast<BinaryOperator>(If->getCond()->IgnoreParenImpCasts());
      bool Guard = Lt && ((Lt->getOpcode() == BO_LT && isTid(Lt->getLHS()) &&
                           asVar(Lt->getRHS()) == T.Stride) ||
                          (Lt->getOpcode() == BO_GT && isTid(Lt->getRHS()) &&
                           asVar(Lt->getLHS()) == T.Stride));
      if (!Guard)
        return Fail("the step is not guarded by 'tid < s' with tid = threadIdx.x");
    }
    return matchUpdate(T, If->getThen(), Why);
  }

  /// The step: `sdata[tid] op= sdata[tid + s]` or `sdata[tid] =
  /// op(sdata[tid], sdata[tid + s])`, op associative.
  std::optional<Tree> matchUpdate(Tree &T, const Stmt *Then, std::string &Why) {
    auto Fail = [&](std::string W) -> std::optional<Tree> {
      Why = (T.Interleaved ? "interleaved addressing: " : "") + W;
      return std::nullopt;
    };
    const auto *Update = dyn_cast_or_null<Expr>(single(Then));
    const auto *Assign = Update ? dyn_cast<BinaryOperator>(Update->IgnoreParens()) : nullptr;
    if (!Assign || !Assign->isAssignmentOp())
      return Fail("the step is not an assignment to 'sdata[tid]'");
    if (!isElement(T, Assign->getLHS(), false))
      return Fail("the step does not assign 'sdata[tid]' of a __shared__ array");
    if (const auto *CA = dyn_cast<CompoundAssignOperator>(Assign)) {
      T.Compound = true;
      T.Op = BinaryOperator::getOpForCompoundAssignment(CA->getOpcode());
      if (!isElement(T, CA->getRHS(), true))
        return Fail("the step does not combine 'sdata[tid]' with 'sdata[tid + s]'");
    } else {
      const Expr *R = Assign->getRHS()->IgnoreParenImpCasts();
      const Expr *A = nullptr, *B = nullptr;
      if (const auto *BO = dyn_cast<BinaryOperator>(R)) {
        T.Op = BO->getOpcode();
        A = BO->getLHS();
        B = BO->getRHS();
      } else if (const auto *C = dyn_cast<CallExpr>(R); C && C->getNumArgs() == 2) {
        T.Callee = calleeNameOf(C);
        A = C->getArg(0);
        B = C->getArg(1);
      }
      if (!A)
        return Fail("the step is not 'sdata[tid] = op(sdata[tid], sdata[tid + s])'");
      if (isElement(T, A, false) && isElement(T, B, true))
        T.Swapped = false;
      else if (isElement(T, A, true) && isElement(T, B, false))
        T.Swapped = true;
      else
        return Fail("the step does not combine 'sdata[tid]' with 'sdata[tid + s]'");
    }
    if (!T.Callee.empty() ? !isAssociativeCall(T.Callee)
                          : !(T.Op == BO_Add || T.Op == BO_Mul || T.Op == BO_And ||
                              T.Op == BO_Or || T.Op == BO_Xor))
      return Fail("the step's operator '" +
                  (T.Callee.empty() ? BinaryOperator::getOpcodeStr(T.Op).str() : T.Callee) +
                  "' is not one of +, *, &, |, ^, min, max, fminf, fmaxf");
    return T;
  }

  /// E's value is threadIdx.x (the model's form of it).
  bool isTid(const Expr *E) { return E && M.formOf(E) == TidForm; }

  /// E is an element of the tree's array at threadIdx.x (Plus false) or at
  /// threadIdx.x + s, by the model's index forms (any spelling).
  bool isElement(const Tree &T, const Expr *E, bool Plus) {
    const auto *AS = dyn_cast<ArraySubscriptExpr>(E->IgnoreParenImpCasts());
    const an::Access *A = AS ? M.accessAt(AS) : nullptr;
    if (!A || A->Base != T.Shared)
      return false;
    const an::Loop *L = M.loopOf(T.Stride);
    an::IndexForm Want = TidForm;
    if (Plus)
      Want = Want + (L ? an::IndexForm::atom(L->VarAtom) : M.formOf(AS->getIdx()));
    return A->Index == Want;
  }

private:
  /// The other side of `s < N` (or `N > s`).
  const Expr *boundExpr(const Expr *Cond) {
    const auto *C = Cond ? dyn_cast<BinaryOperator>(Cond->IgnoreParenImpCasts()) : nullptr;
    if (C && C->getOpcode() == BO_LT && asVar(C->getLHS()) == CurStride)
      return C->getRHS()->IgnoreParenImpCasts();
    if (C && C->getOpcode() == BO_GT && asVar(C->getRHS()) == CurStride)
      return C->getLHS()->IgnoreParenImpCasts();
    return nullptr;
  }

  /// The halving tree's size from the stride's first value: N of `N / 2`
  /// or `N >> 1`, or twice a constant.
  std::string startSize(Tree &T, const an::Loop &L) {
    const Expr *Start = nullptr;
    if (const auto *F = dyn_cast<ForStmt>(T.Loop)) {
      if (const auto *DS = dyn_cast_or_null<DeclStmt>(F->getInit());
          DS && DS->isSingleDecl() && DS->getSingleDecl() == T.Stride)
        Start = T.Stride->getInit();
      else if (const auto *A = dyn_cast_or_null<BinaryOperator>(F->getInit());
               A && A->getOpcode() == BO_Assign && asVar(A->getLHS()) == T.Stride)
        Start = A->getRHS();
    }
    if (!Start && T.Stride->getInit() && !isModified(T.Stride, In.Kernel.getBody(), T.Loop)) {
      Start = T.Stride->getInit();
      T.StrideDecl = dyn_cast_or_null<DeclStmt>(parentStmt(T.Stride->getInit(), Ctx));
    }
    if (Start) {
      const auto *Half = dyn_cast<BinaryOperator>(stripCasts(Start));
      if (Half && ((Half->getOpcode() == BO_Div && evaluateInt(Half->getRHS(), Ctx) == 2) ||
                   (Half->getOpcode() == BO_Shr && evaluateInt(Half->getRHS(), Ctx) == 1))) {
        T.Size = Half->getLHS()->IgnoreParens();
        return "";
      }
    }
    if (auto V = L.Start ? L.Start->constantValue() : std::nullopt) {
      T.SizeValue = 2 * *V;
      return "";
    }
    return "the stride does not start at half the block ('s = N / 2')";
  }

  /// `tid % (2 * s) == 0`, `(tid & (2 * s - 1)) == 0` or `!(tid % (2 * s))`;
  /// 2 * s also `s * 2`, `s << 1`, `s + s`.
  bool interleavedGuard(const Expr *Cond) {
    auto IsS = [&](const Expr *E) { return asVar(E) == CurStride; };
    auto IsTwoS = [&](const Expr *E) {
      const auto *B = dyn_cast<BinaryOperator>(stripCasts(E));
      if (!B)
        return false;
      if (B->getOpcode() == BO_Mul)
        return (IsS(B->getLHS()) && evaluateInt(B->getRHS(), Ctx) == 2) ||
               (IsS(B->getRHS()) && evaluateInt(B->getLHS(), Ctx) == 2);
      if (B->getOpcode() == BO_Shl)
        return IsS(B->getLHS()) && evaluateInt(B->getRHS(), Ctx) == 1;
      return B->getOpcode() == BO_Add && IsS(B->getLHS()) && IsS(B->getRHS());
    };
    const Expr *C = Cond->IgnoreParenImpCasts();
    const Expr *Low = nullptr; // tid % (2 * s), or tid & (2 * s - 1)
    if (const auto *Eq = dyn_cast<BinaryOperator>(C); Eq && Eq->getOpcode() == BO_EQ)
      Low = evaluateInt(Eq->getRHS(), Ctx) == 0   ? Eq->getLHS()
            : evaluateInt(Eq->getLHS(), Ctx) == 0 ? Eq->getRHS()
                                                  : nullptr;
    else if (const auto *Not = dyn_cast<UnaryOperator>(C); Not && Not->getOpcode() == UO_LNot)
      Low = Not->getSubExpr();
    const auto *Mo = Low ? dyn_cast<BinaryOperator>(stripCasts(Low)) : nullptr;
    if (Mo && Mo->getOpcode() == BO_Rem && isTid(Mo->getLHS()))
      return IsTwoS(Mo->getRHS());
    if (Mo && Mo->getOpcode() == BO_And && isTid(Mo->getLHS()))
      if (const auto *Sub = dyn_cast<BinaryOperator>(stripCasts(Mo->getRHS())))
        return Sub->getOpcode() == BO_Sub && IsTwoS(Sub->getLHS()) &&
               evaluateInt(Sub->getRHS(), Ctx) == 1;
    return false;
  }

private:
  const RuleInput &In;
  ASTContext &Ctx;
  an::KernelModel &M;
  an::IndexForm TidForm;
  /// The stride of the loop being matched (the guard helpers compare with it).
  const VarDecl *CurStride = nullptr;
};

/// The references to V in Body that begin after Loc.
std::vector<const DeclRefExpr *> refsAfter(const Stmt *Body, const VarDecl *V, SourceLocation Loc,
                                           const SourceManager &SM) {
  struct Walk : DynamicRecursiveASTVisitor {
    const VarDecl *V;
    SourceLocation Loc;
    const SourceManager *SM;
    std::vector<const DeclRefExpr *> Out;
    bool VisitDeclRefExpr(DeclRefExpr *E) override {
      if (E->getDecl() == V && SM->isBeforeInTranslationUnit(Loc, E->getBeginLoc()))
        Out.push_back(E);
      return true;
    }
  } W;
  W.V = V;
  W.Loc = Loc;
  W.SM = &SM;
  W.TraverseStmt(const_cast<Stmt *>(Body));
  return W.Out;
}

class WarpShuffleReductionRule : public ExpertRule {
public:
  StringRef name() const override { return "warp-shuffle-reduction"; }
  RuleOutcome propose(const RuleInput &In) override;

private:
  /// The block sizes the reduction runs with, or why they are not known.
  Expected<std::vector<int64_t>> blockSizes(const RuleInput &In, const Tree &T);
  /// Whether the element type is a 4- or 8-byte arithmetic type in every
  /// instantiation; otherwise why not.
  std::string checkElementType(const RuleInput &In, const Tree &T, bool &IsFloat,
                               std::string &TypeName);
};

Expected<std::vector<int64_t>> WarpShuffleReductionRule::blockSizes(const RuleInput &In,
                                                                   const Tree &T) {
  const agent::ProposalRequest &Req = In.Request;
  if (T.SizeValue)
    return std::vector<int64_t>{*T.SizeValue};
  if (isCudaBuiltin(stripCasts(T.Size), "blockDim", 'x')) {
    if (Req.Block && ((*Req.Block)[1] != 1 || (*Req.Block)[2] != 1))
      return createStringError("the block is %lldx%lldx%lld, but the tree runs over threadIdx.x",
                               (long long)(*Req.Block)[0], (long long)(*Req.Block)[1],
                               (long long)(*Req.Block)[2]);
    if (Req.Block)
      return std::vector<int64_t>{(*Req.Block)[0]};
    if (Req.BlockThreads)
      return std::vector<int64_t>{*Req.BlockThreads};
    return createStringError("the block size is not known (the tree starts at blockDim.x / 2; "
                             "give a spec or a launch with a constant block)");
  }
  if (auto V = evaluateInt(T.Size, In.Ctx))
    return std::vector<int64_t>{*V};
  if (!isCompileTimeConstant(T.Size, In.Ctx))
    return createStringError("the tree's size '%s' is neither blockDim.x nor a compile-time "
                             "constant",
                             textOf(T.Size, In.Ctx).c_str());
  // A template parameter: every instantiation's value, read where the
  // instantiated loop (or the stride's declaration) spells it.
  auto HalfOf = [&](const Expr *Init) -> std::optional<int64_t> {
    const auto *Half = Init ? dyn_cast<BinaryOperator>(stripCasts(Init)) : nullptr;
    return Half ? evaluateInt(Half->getLHS(), In.Ctx) : std::nullopt;
  };
  std::vector<int64_t> Sizes;
  for (const FunctionDecl *Inst : instantiationsOf(In.Kernel)) {
    const Stmt *Loop = instantiatedStmt(T.Loop, *Inst);
    const Expr *Cond = nullptr;
    if (const auto *F = dyn_cast_or_null<ForStmt>(Loop))
      Cond = F->getCond();
    else if (const auto *W = dyn_cast_or_null<WhileStmt>(Loop))
      Cond = W->getCond();
    if (T.Interleaved) {
      const auto *C = Cond ? dyn_cast<BinaryOperator>(Cond->IgnoreParenImpCasts()) : nullptr;
      if (auto V = C ? evaluateInt(C->getOpcode() == BO_LT ? C->getRHS() : C->getLHS(), In.Ctx)
                     : std::nullopt)
        Sizes.push_back(*V);
      continue;
    }
    const DeclStmt *DS = nullptr;
    if (const auto *F = dyn_cast_or_null<ForStmt>(Loop))
      DS = dyn_cast_or_null<DeclStmt>(F->getInit());
    else if (T.StrideDecl)
      DS = dyn_cast_or_null<DeclStmt>(instantiatedStmt(T.StrideDecl, *Inst));
    const auto *VD = DS && DS->isSingleDecl() ? dyn_cast<VarDecl>(DS->getSingleDecl()) : nullptr;
    if (auto V = HalfOf(VD ? VD->getInit() : nullptr))
      Sizes.push_back(*V);
  }
  if (Sizes.empty() && Req.BlockThreads)
    Sizes.push_back(*Req.BlockThreads);
  if (Sizes.empty())
    return createStringError("the tree's size '%s' has no known value (no instantiation in "
                             "this file, no block size given)",
                             textOf(T.Size, In.Ctx).c_str());
  return Sizes;
}

std::string WarpShuffleReductionRule::checkElementType(const RuleInput &In, const Tree &T,
                                                       bool &IsFloat, std::string &TypeName) {
  std::vector<QualType> Types;
  QualType Decl = T.Shared->getType();
  if (!Decl->isDependentType()) {
    Types.push_back(Decl);
  } else {
    for (const FunctionDecl *Inst : instantiationsOf(In.Kernel)) {
      struct Find : DynamicRecursiveASTVisitor {
        StringRef Name;
        const VarDecl *Found = nullptr;
        bool VisitVarDecl(VarDecl *V) override {
          if (V->getName() == Name && V->hasAttr<CUDASharedAttr>())
            Found = V;
          return !Found;
        }
      } F;
      F.Name = T.Shared->getName();
      F.TraverseStmt(Inst->getBody());
      if (F.Found)
        Types.push_back(F.Found->getType());
    }
    if (Types.empty())
      return "the element type of '" + T.Shared->getNameAsString() +
             "' depends on a template parameter that has no instantiation in this file";
  }
  TypeName = "";
  for (QualType Ty : Types) {
    const Type *Elem = Ty->getPointeeOrArrayElementType();
    QualType E = Elem ? QualType(Elem, 0) : Ty;
    if (!E->isArithmeticType() || E->isBooleanType() || E->isAnyComplexType())
      return "the element type '" + E.getAsString() + "' of '" +
             T.Shared->getNameAsString() + "' is not arithmetic";
    uint64_t Bytes = In.Ctx.getTypeSize(E) / 8;
    if (Bytes != 4 && Bytes != 8)
      return formatv("the element type '{0}' of '{1}' has {2} bytes; warp shuffles here take "
                     "4- and 8-byte values",
                     E.getAsString(), T.Shared->getName(), Bytes)
          .str();
    IsFloat |= E->isFloatingType();
  }
  if (!Decl->isDependentType())
    TypeName = typeSpelling(QualType(Decl->getPointeeOrArrayElementType(), 0), In.Ctx);
  return "";
}

RuleOutcome WarpShuffleReductionRule::propose(const RuleInput &In) {
  const CompoundStmt *Body = kernelBody(In.Kernel);
  if (!Body)
    return notApplicable("the kernel has no body");
  ASTContext &Ctx = In.Ctx;
  const SourceManager &SM = Ctx.getSourceManager();

  auto MX = kernelModel(In);
  if (!MX)
    return notApplicable(toString(MX.takeError()));
  an::KernelModel &M = *MX;

  // The model's block tree reductions, each checked for the rewrite.
  TreeMatcher Matcher(In, M);
  std::optional<Tree> Found;
  std::string Why;
  for (const an::Pattern *P : M.patterns(an::PatternKind::TreeReduction)) {
    std::string W;
    auto T = Matcher.match(*P, W);
    if (!T) {
      if (Why.empty())
        Why = formatv("the loop at line {0} is not one: {1}", P->Loc.Line, W).str();
      continue;
    }
    // Where the loop stands in its block (the statements around it).
    T->Parent = dyn_cast_or_null<CompoundStmt>(parentStmt(T->Loop, Ctx));
    if (!T->Parent) {
      if (Why.empty())
        Why = formatv("the loop at line {0} is not one: it is not a statement of a block",
                      P->Loc.Line)
                  .str();
      continue;
    }
    T->Index = unsigned(std::find(T->Parent->body_begin(), T->Parent->body_end(), T->Loop) -
                        T->Parent->body_begin());
    Found = T;
    break;
  }
  if (!Found)
    return notApplicable(
        "no shared-memory tree reduction (the kernel model's pattern: a loop over a halving "
        "stride s, or a doubling one with interleaved addressing, with __syncthreads() in it, "
        "in which sdata[tid] combines sdata[tid + s]: 'for (s = N / 2; s > 0; s >>= 1) { if "
        "(tid < s) sdata[tid] += sdata[tid + s]; __syncthreads(); }', 'while (s != 0) { ...; "
        "s /= 2; }', 'for (s = 1; s < N; s *= 2) { if (tid % (2 * s) == 0) ... }')" +
        (Why.empty() ? std::string(" in the kernel") : "; " + Why));
  Tree &T = *Found;

  // Preconditions: the block size, the element type.
  auto Sizes = blockSizes(In, T);
  if (!Sizes)
    return notApplicable(toString(Sizes.takeError()));
  for (int64_t B : *Sizes)
    if (B < 64 || !isPowerOf2_64(uint64_t(B)))
      return notApplicable(formatv("the tree runs over {0} threads; the rule needs a power of "
                                   "two of at least 64 (two warps)",
                                   B)
                               .str());
  bool IsFloat = false;
  std::string TypeName;
  if (std::string Why = checkElementType(In, T, IsFloat, TypeName); !Why.empty())
    return notApplicable(Why);
  if (TypeName.empty()) // dependent: write the declared element type
    TypeName = typeSpelling(QualType(T.Shared->getType()->getPointeeOrArrayElementType(), 0), Ctx);
  for (const Stmt *A : ancestors(T.Loop, Body, Ctx))
    if (isa<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt>(A))
      return notApplicable("the tree reduction is inside another loop");

  // Later uses of the shared array: only sdata[0] may be read.
  std::vector<const DeclRefExpr *> Later = refsAfter(Body, T.Shared, T.Loop->getEndLoc(), SM);
  for (const DeclRefExpr *R : Later) {
    auto Parents = Ctx.getParents(*R);
    const Expr *Up = R;
    while (!Parents.empty() && Parents[0].get<ImplicitCastExpr>()) {
      Up = Parents[0].get<ImplicitCastExpr>();
      Parents = Ctx.getParents(*Up);
    }
    const auto *AS = Parents.empty() ? nullptr : Parents[0].get<ArraySubscriptExpr>();
    if (!AS || AS->getBase()->IgnoreParenImpCasts() != R || evaluateInt(AS->getIdx(), Ctx) != 0)
      return notApplicable("'" + T.Shared->getNameAsString() +
                           "' is used after the reduction other than as '" +
                           T.Shared->getNameAsString() + "[0]' (line " +
                           std::to_string(SM.getPresumedLineNumber(R->getBeginLoc())) + ")");
  }

  // The statement after the loop: `if (tid == 0) <uses sdata[0]>` is
  // fused into the warp's code when nothing later reads sdata.
  const IfStmt *Tail = nullptr;
  if (T.Index + 1 < T.Parent->size()) {
    const auto *If = dyn_cast<IfStmt>(T.Parent->body_begin()[T.Index + 1]);
    if (If && !If->getElse() && !If->getInit() && !If->getConditionVariable() &&
        !callsSyncthreads(If)) {
      const Expr *C = If->getCond()->IgnoreParenImpCasts();
      bool IsLane0 = false;
      if (const auto *Eq = dyn_cast<BinaryOperator>(C); Eq && Eq->getOpcode() == BO_EQ)
        IsLane0 = (Matcher.isTid(Eq->getLHS()) && evaluateInt(Eq->getRHS(), Ctx) == 0) ||
                  (Matcher.isTid(Eq->getRHS()) && evaluateInt(Eq->getLHS(), Ctx) == 0);
      else if (const auto *Not = dyn_cast<UnaryOperator>(C); Not && Not->getOpcode() == UO_LNot)
        IsLane0 = Matcher.isTid(Not->getSubExpr());
      bool LaterUse = llvm::any_of(Later, [&](const DeclRefExpr *R) {
        return SM.isBeforeInTranslationUnit(If->getEndLoc(), R->getBeginLoc());
      });
      if (IsLane0 && !LaterUse && references(If->getThen(), T.Shared))
        Tail = If;
    }
  }

  // Fresh names and the pieces of text.
  std::set<std::string> Taken;
  std::string V = freshName("val", In.Kernel, Taken);
  std::string Off = freshName("offset", In.Kernel, Taken);
  std::string Tid = T.Tid;
  std::string SD = T.Shared->getNameAsString();
  std::string SizeText = T.SizeValue ? std::to_string(*T.SizeValue) : textOf(T.Size, Ctx);
  if (SizeText.empty())
    return notApplicable("the tree's size is written inside a macro");
  auto Combine = [&](const std::string &Self, const std::string &Other) {
    std::string A = T.Swapped ? Other : Self, B = T.Swapped ? Self : Other;
    if (!T.Callee.empty())
      return T.Callee + "(" + A + ", " + B + ")";
    return A + " " + BinaryOperator::getOpcodeStr(T.Op).str() + " " + B;
  };
  auto Accumulate = [&](const std::string &Other) {
    if (T.Compound && !T.Swapped)
      return V + " " + BinaryOperator::getOpcodeStr(T.Op).str() + "= " + Other + ";";
    return V + " = " + Combine(V, Other) + ";";
  };
  std::string Shfl = "__shfl_down_sync(0xffffffff, " + V + ", " + Off + ")";
  bool SizeIsConstant = T.SizeValue || !isCudaBuiltin(stripCasts(T.Size), "blockDim", 'x');
  std::string Assert =
      SizeIsConstant ? "static_assert((" + SizeText + ") >= 64 && ((" + SizeText + ") & ((" +
                           SizeText +
                           ") - 1)) == 0, \"warp-shuffle-reduction: needs a power-of-two "
                           "block of at least 64 threads\");"
                     : "";

  EditCollector EC(In);
  auto LoopOff = EC.offsetOf(T.Loop->getBeginLoc());
  if (!LoopOff)
    return notApplicable("the tree reduction is written inside a macro");
  StringRef Ind = lineIndent(In.Source, *LoopOff);
  std::string I1 = Ind.str() + "  ", I2 = Ind.str() + "    ";

  // The finish: the fused output statement, or sdata[0] for later readers.
  std::string Finish;
  bool NeedsSync = false;
  if (Tail) {
    std::vector<std::pair<SourceRange, std::string>> Repl;
    struct Zeros : DynamicRecursiveASTVisitor {
      const VarDecl *SD;
      ASTContext *Ctx;
      std::vector<SourceRange> Out;
      bool VisitArraySubscriptExpr(ArraySubscriptExpr *A) override {
        if (asVar(A->getBase()->IgnoreParenImpCasts()) == SD && evaluateInt(A->getIdx(), *Ctx) == 0)
          Out.push_back(A->getSourceRange());
        return true;
      }
    } Z;
    Z.SD = T.Shared;
    Z.Ctx = &Ctx;
    Z.TraverseStmt(const_cast<IfStmt *>(Tail));
    for (SourceRange R : Z.Out)
      Repl.push_back({R, V});
    auto Text = textWithReplacements(Tail, Ctx, Repl);
    if (!Text)
      return notApplicable("the output statement after the reduction is inside a macro");
    Finish = indentFollowingLines(*Text, "  ");
    auto R = EC.rangeOf(Tail->getSourceRange());
    if (R && pastSemicolon(In.Source, R->second) != R->second)
      Finish += ";";
  } else {
    Finish = "if (" + Tid + " == 0)\n" + I2 + SD + "[0] = " + V + ";";
    NeedsSync = true;
  }

  std::string What = IsFloat ? "float" : "integer";
  unsigned Log = Log2_64(uint64_t((*Sizes)[0]));
  std::string SizeWords = Sizes->size() == 1 ? std::to_string((*Sizes)[0]) + " threads"
                                             : "the block size";

  std::vector<agent::Proposal> Proposals;

  // 1. The tree stops at s = 64; the first warp does s = 32 .. 1 (the
  // sequential tree only: an interleaved one keeps other pairs).
  if (!T.Interleaved) {
    EditCollector E(In);
    E.replace(T.Cond->getSourceRange(), T.Stride->getNameAsString() + " > 32");
    std::string Warp;
    Warp += "if (" + Tid + " < 32) {\n";
    Warp += I1 + "// warp-shuffle-reduction: steps s = 32 .. 1 in the first warp, in registers.\n";
    if (!Assert.empty())
      Warp += I1 + Assert + "\n";
    Warp += I1 + TypeName + " " + V + " = " +
            Combine(SD + "[" + Tid + "]", SD + "[" + Tid + " + 32]") + ";\n";
    Warp += I1 + "for (int " + Off + " = 16; " + Off + " > 0; " + Off + " >>= 1)\n";
    Warp += I2 + Accumulate(Shfl) + "\n";
    Warp += I1 + Finish + "\n";
    Warp += Ind.str() + "}";
    if (Tail) {
      auto R = E.rangeOf(Tail->getSourceRange());
      if (!R)
        return notApplicable("the output statement after the reduction is inside a macro");
      E.add({R->first, pastSemicolon(In.Source, R->second) - R->first, Warp});
    } else {
      E.insertAfterToken(T.Loop->getEndLoc(),
                         "\n" + Ind.str() + Warp + "\n" + Ind.str() + "__syncthreads();");
    }
    if (E.failed())
      return notApplicable(E.failure());
    unsigned StepsAfter = Log - 5, SyncsAfter = Log - 6 + (NeedsSync ? 1 : 0);
    std::string Rationale = formatv(
        "The tree over {0} takes {1} steps, each a shared-memory round and a __syncthreads(); "
        "the last five (s = 16 .. 1) keep only one warp busy. The first warp now does s = 32 "
        "from shared memory and s = 16 .. 1 with __shfl_down_sync in registers: shared-memory "
        "steps {1} -> {2}, __syncthreads() {1} -> {3}. The {4} operations happen in the same "
        "order as before, so the results are {5}.",
        SizeWords, Log, StepsAfter, SyncsAfter, What,
        IsFloat ? "bitwise identical" : "exact").str();
    RuleOutcome O = proposeEdits(In, name(),
                                 "the last 6 steps of the tree reduction over '" + SD +
                                     "' as warp shuffles",
                                 Rationale, E.edits());
    if (!O.NotApplicable.empty())
      return O;
    Proposals.push_back(std::move(O.Proposals.front()));
  }

  // 2. Warp-first: when the loop is preceded by `sdata[tid] = e;
  // __syncthreads();`, every warp reduces its values with shuffles and
  // shared memory holds one partial per warp.
  // The declaration of a while loop's stride may stand between the barrier
  // and the loop; the rewrite replaces it too, so nothing after may use it.
  unsigned Before = T.Index;
  if (Before >= 1 && T.StrideDecl && T.Parent->body_begin()[Before - 1] == T.StrideDecl &&
      T.StrideDecl->isSingleDecl() &&
      refsAfter(Body, T.Stride, T.Loop->getEndLoc(), SM).empty())
    --Before;
  if (Before >= 2 && isSyncthreads(T.Parent->body_begin()[Before - 1])) {
    const auto *Store = dyn_cast<BinaryOperator>(T.Parent->body_begin()[Before - 2]);
    if (Store && Store->getOpcode() == BO_Assign && Matcher.isElement(T, Store->getLHS(), false) &&
        !references(Store->getRHS(), T.Shared)) {
      auto ValueText = textWithReplacements(Store->getRHS(), Ctx, {});
      std::string Warps = "(" + SizeText + ") / 32";
      if (ValueText) {
        std::string W;
        W += TypeName + " " + V + " = " + *ValueText + ";\n";
        W += Ind.str() + "// warp-shuffle-reduction: each warp reduces its 32 values in registers;\n";
        W += Ind.str() + "// shared memory holds one partial per warp.\n";
        if (!Assert.empty())
          W += Ind.str() + Assert + "\n";
        W += Ind.str() + "for (int " + Off + " = 16; " + Off + " > 0; " + Off + " >>= 1)\n";
        W += I1 + Accumulate(Shfl) + "\n";
        W += Ind.str() + "if ((" + Tid + " & 31) == 0)\n";
        W += I1 + SD + "[" + Tid + " / 32] = " + V + ";\n";
        W += Ind.str() + "__syncthreads();\n";
        W += Ind.str() + "if (" + Tid + " < 32) {\n";
        W += I1 + V + " = " + Tid + " < " + Warps + " ? " + SD + "[" + Tid + "] : " + SD + "[0];\n";
        W += I1 + "for (int " + Off + " = " + Warps + " / 2; " + Off + " > 0; " + Off + " >>= 1)\n";
        W += I2 + Accumulate(Shfl) + "\n";
        W += I1 + Finish + "\n";
        W += Ind.str() + "}";
        if (NeedsSync)
          W += "\n" + Ind.str() + "__syncthreads();";
        EditCollector E(In);
        const Stmt *Last = Tail ? static_cast<const Stmt *>(Tail) : T.Loop;
        auto B = E.offsetOf(Store->getBeginLoc());
        auto End = E.rangeOf(Last->getSourceRange());
        if (B && End) {
          E.add({*B, pastSemicolon(In.Source, End->second) - *B, W});
          unsigned SyncsAfter = 1 + (NeedsSync ? 1 : 0);
          std::string Rationale = formatv(
              "Every warp reduces its 32 values with __shfl_down_sync before anything is "
              "stored; shared memory then holds {0} partials, which the first warp reduces "
              "with shuffles as well: shared-memory steps {1} -> 1, __syncthreads() {2} -> {3}. "
              "{4}",
              Sizes->size() == 1 ? std::to_string((*Sizes)[0] / 32) : "one per warp", Log,
              Log + 1, SyncsAfter,
              IsFloat ? "The float operations are re-associated (warp by warp), so results "
                        "may differ from the tree's in the last bits."
                      : "Integer results are exact in any order.")
                                      .str();
          RuleOutcome O = proposeEdits(In, name(),
                                       "reduce each warp with shuffles first; '" + SD +
                                           "' keeps one partial per warp",
                                       Rationale, E.edits());
          if (O.NotApplicable.empty())
            Proposals.push_back(std::move(O.Proposals.front()));
        }
      }
    }
  }

  if (Proposals.empty())
    return notApplicable("the interleaved tree over '" + SD +
                         "' is rewritten whole, from the store before it ('" + SD +
                         "[tid] = e; __syncthreads();' right before the loop), which this "
                         "kernel does not have");
  RuleOutcome Out;
  Out.Proposals = std::move(Proposals);
  return Out;
}

} // namespace

std::unique_ptr<ExpertRule> createWarpShuffleReductionRule() {
  return std::make_unique<WarpShuffleReductionRule>();
}

} // namespace forge::passes
