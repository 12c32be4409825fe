//===- passes/optimize/SharedBins.cpp - A histogram kept in shared memory -===//
///
/// \file
/// findSharedBins: the textbook per-block histogram in a __shared__ array,
/// recognised on the kernel model (SharedBins.h).
///
//===----------------------------------------------------------------------===//
#include "SharedBins.h"
#include "RuleAst.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/Stmt.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/Support/FormatVariadic.h"
#include <algorithm>
#include <functional>

using namespace clang;
using namespace llvm;

namespace forge::passes {

namespace an = forge::analysis;

namespace {

/// F reads blockIdx or gridDim, directly, inside a composite atom, or
/// through a loop variable's expansion.
bool readsBlock(const an::IndexForm &F, const an::AtomTable &Tab, unsigned Depth = 0) {
  if (Depth > 8)
    return true;
  for (an::AtomId Id : F.atoms()) {
    const an::Atom &A = Tab[Id];
    if (A.Kind == an::AtomKind::BlockIdx || A.Kind == an::AtomKind::GridDim)
      return true;
    if (A.Kind == an::AtomKind::Unknown)
      return true;
    for (const an::IndexForm &O : A.Operands)
      if (readsBlock(O, Tab, Depth + 1))
        return true;
    if (A.Expansion && readsBlock(*A.Expansion, Tab, Depth + 1))
      return true;
  }
  return false;
}

/// The top-level statement of Body that holds S, as a position.
std::optional<size_t> topLevelOf(const Stmt *S, const CompoundStmt *Body) {
  size_t I = 0;
  for (const Stmt *X : Body->body()) {
    if (isWithin(S, X))
      return I;
    ++I;
  }
  return std::nullopt;
}

/// Checks that one access of the bins reaches every bin of [0, N) once
/// per block; "" when it does, else why not.
class BinCoverage {
public:
  BinCoverage(const RuleInput &In, const an::KernelModel &M, int64_t N)
      : In(In), M(M), N(N), Tab(M.atoms()) {}

  std::string check(const an::Access &X) const {
    if (!X.IndexKnown)
      return "its index '" + X.IndexText + "' is not known";
    auto Tx = Tab.findBuiltin("threadIdx", 'x');
    if (!Tx)
      return "its index '" + X.IndexText + "' does not read threadIdx.x";
    for (const an::Loop &L : M.Loops)
      if (L.IV && X.Index == an::IndexForm::atom(L.VarAtom))
        return loop(L, *Tx);
    if (X.Index == an::IndexForm::atom(*Tx))
      return thread(X, *Tx);
    return "its index '" + X.IndexText + "' is neither threadIdx.x nor a loop from threadIdx.x "
           "by blockDim.x over the bins";
  }

private:
  /// `for (b = threadIdx.x; b < N; b += blockDim.x)`: every bin, for any
  /// block of one row.
  std::string loop(const an::Loop &L, an::AtomId Tx) const {
    if (L.StepK != an::StepKind::BlockStride || !L.Start || *L.Start != an::IndexForm::atom(Tx))
      return formatv("its loop over '{0}' at line {1} does not start at threadIdx.x and step by "
                     "blockDim.x",
                     L.Var, L.Loc.Line)
          .str();
    std::optional<int64_t> C = L.Bound ? L.Bound->constantValue() : std::nullopt;
    if (!C || (L.Cmp != an::CmpOp::LT && L.Cmp != an::CmpOp::LE))
      return formatv("its loop's exit test '{0}' (line {1}) is not '{2} < constant'", L.CondText,
                     L.Loc.Line, L.Var)
          .str();
    int64_t End = L.Cmp == an::CmpOp::LE ? *C + 1 : *C;
    if (End < N)
      return formatv("its loop reaches bins [0, {0}) of the {1}", End, N).str();
    return oneRow();
  }

  /// `local[threadIdx.x]`, under `threadIdx.x < c` or none: the bins below
  /// the block's width.
  std::string thread(const an::Access &X, an::AtomId Tx) const {
    const auto &Blk = In.Request.Block;
    if (!Blk)
      return "the block size is not known (give --block or a spec), so whether threadIdx.x "
             "reaches every bin is not";
    int64_t Width = (*Blk)[0], End = Width;
    an::IndexForm T = an::IndexForm::atom(Tx);
    for (const an::GuardTerm *G : X.G.comparisons()) {
      an::Comparison Cmp = *G->Cmp;
      if (Cmp.Rhs == T)
        Cmp = Cmp.swapped();
      std::optional<int64_t> C = Cmp.Rhs.constantValue();
      if (Cmp.Lhs != T || !C)
        continue;
      if (Cmp.Op == an::CmpOp::LT)
        End = std::min(End, *C);
      else if (Cmp.Op == an::CmpOp::LE)
        End = std::min(End, *C + 1);
    }
    if (End < N)
      return formatv("the block's {0} threads reach bins [0, {1}) of the {2}", Width, End, N)
          .str();
    if (End > N)
      return formatv("threads {0} to {1} of the block are past the {0} bins, with no guard "
                     "'threadIdx.x < {0}'",
                     N, Width - 1)
          .str();
    return oneRow();
  }

  std::string oneRow() const {
    const auto &Blk = In.Request.Block;
    if (Blk && ((*Blk)[1] != 1 || (*Blk)[2] != 1))
      return "the block has several rows of threads, and each row reaches every bin again";
    return "";
  }

  const RuleInput &In;
  const an::KernelModel &M;
  int64_t N;
  const an::AtomTable &Tab;
};

/// The global write that the flush's load X feeds: its value, through
/// casts and parentheses only, is the value of an atomic or the right side
/// of an assignment to a global element.
const an::Access *flushTarget(const an::Access &X, const an::KernelModel &M, ASTContext &Ctx) {
  const Stmt *Cur = X.E;
  for (int Up = 0; Up < 8 && Cur; ++Up) {
    auto Ps = Ctx.getParents(*Cur);
    if (Ps.empty())
      return nullptr;
    if (const auto *E = Ps[0].get<Expr>(); E && (isa<ImplicitCastExpr>(E) || isa<ParenExpr>(E) ||
                                                  isa<CStyleCastExpr>(E))) {
      Cur = E;
      continue;
    }
    if (const auto *C = Ps[0].get<CallExpr>()) {
      const an::Access *W = M.accessAt(C);
      if (W && W->Kind == an::AccessKind::Atomic && W->Space == an::MemorySpace::Global &&
          W->valueArg() && isWithin(X.E, W->valueArg()))
        return W;
      return nullptr;
    }
    if (const auto *BO = Ps[0].get<BinaryOperator>()) {
      if ((BO->getOpcode() != BO_Assign && BO->getOpcode() != BO_AddAssign) ||
          !isWithin(X.E, BO->getRHS()))
        return nullptr;
      const an::Access *W = M.accessAt(BO->getLHS()->IgnoreParenImpCasts());
      return W && W->Space == an::MemorySpace::Global ? W : nullptr;
    }
    return nullptr;
  }
  return nullptr;
}

/// The stored value of X is the constant 0.
bool storesZero(const an::Access &X, ASTContext &Ctx) {
  for (const DynTypedNode &P : Ctx.getParents(*X.E))
    if (const auto *BO = P.get<BinaryOperator>();
        BO && BO->getOpcode() == BO_Assign && BO->getLHS()->IgnoreParens() == X.E)
      return evaluateInt(BO->getRHS(), Ctx) == 0;
  return false;
}

SharedBins refuse(SharedBins S, std::string Why) {
  S.Why = std::move(Why);
  return S;
}

/// The kernel's static __shared__ bytes.
int64_t staticSharedBytes(const CompoundStmt *Body, ASTContext &Ctx) {
  int64_t Bytes = 0;
  std::function<void(const Stmt *)> Walk = [&](const Stmt *S) {
    if (const auto *D = dyn_cast<DeclStmt>(S))
      for (const Decl *X : D->decls())
        if (const auto *V = dyn_cast<VarDecl>(X);
            V && V->hasAttr<CUDASharedAttr>() && V->getType()->isConstantSizeType() &&
            !V->getType()->isDependentType() && !V->getType()->isIncompleteType())
          Bytes += int64_t(Ctx.getTypeSizeInChars(V->getType()).getQuantity());
    for (const Stmt *C : S->children())
      if (C)
        Walk(C);
  };
  Walk(Body);
  return Bytes;
}

} // namespace

SharedBins findSharedBins(const RuleInput &In, const an::KernelModel &M,
                          const CompoundStmt *Body) {
  ASTContext &Ctx = In.Ctx;
  SharedBins S;
  // Updates of a __shared__ array at data-dependent addresses.
  std::vector<const an::Access *> Updates;
  for (const an::Access &A : M.Accesses)
    if (A.Space == an::MemorySpace::Shared && A.writes() &&
        A.Warp.Class == an::AccessClass::DataDependent)
      Updates.push_back(&A);
  if (Updates.empty())
    return S;
  S.Found = true;
  const an::Access &A = *Updates.front();
  S.Count = &A;
  if (Updates.size() > 1)
    return refuse(S, formatv("the kernel updates shared memory at data-dependent addresses {0} "
                             "times ('{1}', '{2}'); only one counting atomic is taken",
                             Updates.size(), A.Text, Updates[1]->Text)
                         .str());
  if (A.Kind != an::AccessKind::Atomic || A.Atomic != an::AtomicOp::Add)
    return refuse(S, formatv("'{0}' (line {1}) is not an atomicAdd: lane copies of the bins are "
                             "summed, which only a commutative add of counts allows",
                             A.Text, A.Loc.Line)
                         .str());
  S.Array = dyn_cast_or_null<VarDecl>(A.Base);
  const auto *AT = S.Array ? Ctx.getAsConstantArrayType(S.Array->getType()) : nullptr;
  if (!S.Array || !AT || AT->getElementType()->isArrayType())
    return refuse(S, "the shared bins '" + A.Buffer + "' are not a one-dimensional __shared__ "
                     "array of a constant size, so the number of bins is not known");
  QualType ET = AT->getElementType();
  if (!ET->isIntegerType() || ET->isBooleanType())
    return refuse(S, "the shared bins '" + A.Buffer + "' hold '" + typeSpelling(ET, Ctx) +
                     "'; only integer counts are summed from lane copies");
  S.Size = int64_t(AT->getZExtSize());
  S.StaticBytes = staticSharedBytes(Body, Ctx);
  std::string Name = S.Array->getName().str();

  // Every use of the array is an access the model knows.
  for (const DeclRefExpr *D : referencesTo(S.Array, Body))
    if (none_of(M.Accesses, [&](const an::Access &O) { return O.Base == S.Array && isWithin(D, O.E); }))
      return refuse(S, formatv("'{0}' is used other than as '{0}[i]' (line {1}): the bins must "
                               "only be zeroed, counted and flushed",
                               Name, fileLineOf(Ctx, D->getBeginLoc()))
                           .str());

  // The counting statement between two barriers of the body.
  std::optional<size_t> At = topLevelOf(A.E, Body);
  if (!At)
    return refuse(S, "the counting atomic is not in the kernel's body");
  std::vector<const Stmt *> Top(Body->body_begin(), Body->body_end());
  S.CountStmt = Top[*At];
  if (callsSyncthreads(S.CountStmt))
    return refuse(S, formatv("the counting statement at line {0} has a barrier in it",
                             fileLineOf(Ctx, S.CountStmt->getBeginLoc()))
                         .str());
  std::optional<size_t> Open, Close;
  for (size_t I = 0; I < Top.size(); ++I)
    if (isSyncStmt(Top[I])) {
      if (I < *At)
        Open = I;
      else if (!Close)
        Close = I;
    }
  if (!Open || !Close)
    return refuse(S, formatv("the counting into '{0}' at line {1} is not between two "
                             "'__syncthreads();' of the kernel's body (after its zeroing, "
                             "before its flush)",
                             Name, A.Loc.Line)
                         .str());
  S.OpenLine = fileLineOf(Ctx, Top[*Open]->getBeginLoc());
  S.CloseLine = fileLineOf(Ctx, Top[*Close]->getBeginLoc());

  // Zeroed before the first barrier, read after the second, untouched in
  // between; the zeroing and the flush reach every bin once.
  BinCoverage Cover(In, M, S.Size);
  bool Zeroed = false;
  std::vector<const an::Access *> Flushes;
  for (const an::Access &O : M.Accesses) {
    if (O.Base != S.Array || O.Id == A.Id)
      continue;
    std::optional<size_t> P = topLevelOf(O.E, Body);
    if (!P || (*P > *Open && *P < *Close))
      return refuse(S, formatv("the kernel {0} '{1}' (line {2}) while it counts (between the "
                               "barriers at lines {3} and {4}); the bins are only complete "
                               "after the second",
                               O.writes() ? "writes" : "reads", O.Text, O.Loc.Line, S.OpenLine,
                               S.CloseLine)
                           .str());
    if (*P < *Open) {
      if (O.Kind != an::AccessKind::Store || !storesZero(O, Ctx))
        return refuse(S, formatv("before the barrier at line {0}, '{1}' (line {2}) does not set "
                                 "a bin to 0",
                                 S.OpenLine, O.Text, O.Loc.Line)
                             .str());
      if (std::string Why = Cover.check(O); !Why.empty())
        return refuse(S, formatv("the zeroing '{0}' (line {1}) does not reach every bin of '{2}' "
                                 "({3}): {4}",
                                 O.Text, O.Loc.Line, Name, S.Size, Why)
                             .str());
      Zeroed = true;
      continue;
    }
    if (O.Kind != an::AccessKind::Load)
      return refuse(S, formatv("after the barrier at line {0}, the kernel writes '{1}' (line "
                               "{2}); only a flush that reads the bins is taken",
                               S.CloseLine, O.Text, O.Loc.Line)
                           .str());
    Flushes.push_back(&O);
  }
  if (!Zeroed)
    return refuse(S, formatv("'{0}' is not zeroed before the barrier at line {1}", Name,
                             S.OpenLine)
                         .str());
  if (Flushes.empty())
    return refuse(S, formatv("the counts in '{0}' are not read after the barrier at line {1}",
                             Name, S.CloseLine)
                         .str());
  for (const an::Access *L : Flushes) {
    const an::Access *W = flushTarget(*L, M, Ctx);
    if (!W || (W->Kind == an::AccessKind::Atomic && W->Atomic != an::AtomicOp::Add))
      return refuse(S, formatv("the flush reads '{0}' (line {1}) other than as the value that "
                               "an atomicAdd adds to, or an assignment stores in, a global array",
                               L->Text, L->Loc.Line)
                           .str());
    if (std::string Why = Cover.check(*L); !Why.empty())
      return refuse(S, formatv("the flush '{0}' (line {1}) does not add every bin of '{2}' ({3}) "
                               "once: {4}",
                               W->Text, W->Loc.Line, Name, S.Size, Why)
                           .str());
    if (S.Flush.empty())
      S.Flush = W->Text;
    bool GuardReadsBlock = any_of(W->G.Terms, [&](const an::GuardTerm &T) {
      return !T.Cmp || readsBlock(T.Cmp->Lhs, M.atoms()) || readsBlock(T.Cmp->Rhs, M.atoms());
    });
    if (W->Kind != an::AccessKind::Atomic || !W->IndexKnown || readsBlock(W->Index, M.atoms()) ||
        GuardReadsBlock)
      S.PerBlock = W->Text;
  }
  return S;
}

} // namespace forge::passes
