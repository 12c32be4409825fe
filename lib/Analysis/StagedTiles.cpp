//===- Analysis/StagedTiles.cpp - Shared tiles that stand for global data -===//
#include "StagedTiles.h"
#include "AstUtil.h"
#include "clang/AST/Expr.h"
#include "clang/AST/Stmt.h"
#include "llvm/ADT/STLExtras.h"

using namespace clang;
using namespace llvm;

namespace forge::analysis {
namespace {

/// The subscripts of `S[a][b]`, outermost first, and the array S.
const VarDecl *tileSubscripts(const Expr *E, std::vector<const Expr *> &Subs) {
  E = E->IgnoreParenImpCasts();
  while (const auto *A = dyn_cast<ArraySubscriptExpr>(E)) {
    Subs.insert(Subs.begin(), subscriptIndex(A));
    E = subscriptBase(A)->IgnoreParenImpCasts();
  }
  const auto *R = dyn_cast<DeclRefExpr>(E);
  return R ? dyn_cast<VarDecl>(R->getDecl()) : nullptr;
}

/// The extents of a (multi-dimensional) constant array type.
std::vector<int64_t> extentsOf(QualType Ty, const ASTContext &Ctx) {
  std::vector<int64_t> Out;
  while (const ConstantArrayType *A = Ctx.getAsConstantArrayType(Ty)) {
    Out.push_back(int64_t(A->getSize().getZExtValue()));
    Ty = A->getElementType();
  }
  return Out;
}

bool isZero(const Expr *E, const ASTContext &Ctx) {
  Expr::EvalResult R;
  if (!E || E->isValueDependent() || !E->EvaluateAsRValue(R, Ctx))
    return false;
  if (R.Val.isInt())
    return R.Val.getInt().isZero();
  return R.Val.isFloat() && R.Val.getFloat().isPosZero();
}

std::string lineText(const Access &A) { return "line " + std::to_string(A.Loc.Line); }

} // namespace

char TileStaging::threadDim(const IndexForm &F) const {
  const auto &Terms = F.terms();
  if (Terms.size() != 1 || Terms.begin()->second != 1 || Terms.begin()->first.size() != 1)
    return 0;
  const Atom &A = T[Terms.begin()->first.front()];
  return A.Kind == AtomKind::ThreadIdx ? A.Dim : 0;
}

IndexForm TileStaging::assumeBlock(const IndexForm &F, const std::map<char, int64_t> &Block) {
  return T.substitute(F, [&](AtomId X) -> std::optional<IndexForm> {
    if (T[X].Kind != AtomKind::BlockDim)
      return std::nullopt;
    auto It = Block.find(T[X].Dim);
    return It == Block.end() ? std::nullopt : std::optional(IndexForm::constant(It->second));
  });
}

bool TileStaging::conjuncts(const Expr *E, std::vector<Comparison> &Out) {
  E = E->IgnoreParenImpCasts();
  const auto *B = dyn_cast<BinaryOperator>(E);
  if (!B)
    return false;
  if (B->getOpcode() == BO_LAnd)
    return conjuncts(B->getLHS(), Out) && conjuncts(B->getRHS(), Out);
  CmpOp Op;
  switch (B->getOpcode()) {
  case BO_LT: Op = CmpOp::LT; break;
  case BO_LE: Op = CmpOp::LE; break;
  case BO_GT: Op = CmpOp::GT; break;
  case BO_GE: Op = CmpOp::GE; break;
  default: return false;
  }
  Out.push_back({K.formOf(B->getLHS()), Op, K.formOf(B->getRHS())});
  return true;
}

bool TileStaging::fillIsStaged(const Access &Fill, const Loop &Phase, const Loop &KL,
                               std::string &Why) {
  const auto *For = dyn_cast_or_null<ForStmt>(Phase.S);
  const auto *Body = For ? dyn_cast_or_null<CompoundStmt>(For->getBody()) : nullptr;
  if (!Body) {
    Why = "the loop over phases is not a 'for' with a block";
    return false;
  }
  // The top-level statements of the phase loop: the fill, a barrier, the
  // loop over k, a barrier (before the next phase's fill).
  int FillAt = -1, KAt = -1, I = 0;
  std::vector<int> Syncs;
  for (const Stmt *S : Body->body()) {
    if (K.inside(Fill.E, S))
      FillAt = I;
    if (S == KL.S)
      KAt = I;
    if (const auto *C = dyn_cast<CallExpr>(S); C && isBlockSync(calleeName(C)))
      Syncs.push_back(I);
    ++I;
  }
  auto Assign = asAssignment(K.parentOf(Fill.E));
  const Stmt *FillStmt = FillAt >= 0 ? Body->body_begin()[FillAt] : nullptr;
  if (FillAt < 0 || KAt < 0 || !Assign || !FillStmt ||
      (FillStmt != K.parentOf(Fill.E) && !isa<ExprWithCleanups>(FillStmt))) {
    Why = "the fill of the tile (" + lineText(Fill) +
          ") is not a statement of its own in the loop over phases";
    return false;
  }
  bool Before = any_of(Syncs, [&](int S) { return S > FillAt && S < KAt; });
  bool After = any_of(Syncs, [&](int S) { return S > KAt || S < FillAt; });
  if (FillAt > KAt || !Before || !After) {
    Why = "the tile is not filled before a barrier and read after it, with a barrier after the "
          "reads (" + lineText(Fill) + ")";
    return false;
  }
  return true;
}

std::optional<StagedRead> TileStaging::resolve(const Access &Read, unsigned KLoop,
                                               std::string &Why) {
  StagedRead R;
  R.Read = &Read;
  const Loop &KL = M.Loops[KLoop];
  if (Read.Kind != AccessKind::Load || Read.Space != MemorySpace::Shared || !Read.E ||
      KL.Parent < 0) {
    Why = "'" + Read.Text + "' is not a tile read in a loop nested in a loop over phases";
    return std::nullopt;
  }
  const Loop &PL = M.Loops[unsigned(KL.Parent)];
  R.Phase = &PL;
  auto Const = [](const std::optional<IndexForm> &F, int64_t V) {
    return F && F->constantValue() == V;
  };
  if (!Const(PL.Start, 0) || !Const(PL.Step, 1) || PL.Cmp != CmpOp::LT || !PL.Bound ||
      !PL.ExtraCondText.empty() || PL.HasEarlyExit || !KL.IV || !Const(KL.Start, 0) ||
      !Const(KL.Step, 1) || KL.Cmp != CmpOp::LT || !KL.TripCount || KL.HasEarlyExit) {
    Why = "the loops are not 'for (ph = 0; ph < phases; ++ph)' around 'for (k = 0; k < tile; "
          "++k)'";
    return std::nullopt;
  }
  std::vector<const Expr *> RSubs;
  const VarDecl *Tile = tileSubscripts(Read.E, RSubs);
  std::vector<int64_t> Ext = Tile ? extentsOf(Tile->getType(), K.Ctx) : std::vector<int64_t>();
  if (!Tile || Ext.size() != 2 || RSubs.size() != 2) {
    Why = "'" + Read.Text + "' is not a read of a two-dimensional __shared__ array";
    return std::nullopt;
  }
  // One store fills the tile, and the product's read is its only read.
  for (const Access &A : M.Accesses) {
    if (A.Base != Read.Base || &A == &Read)
      continue;
    if (A.Kind != AccessKind::Store || R.Fill) {
      Why = A.writes() ? "the tile '" + Read.Buffer + "' is written more than once (" +
                             lineText(A) + ")"
                       : "the tile '" + Read.Buffer + "' is read besides the product (" +
                             lineText(A) + ")";
      return std::nullopt;
    }
    R.Fill = &A;
  }
  if (!R.Fill) {
    Why = "nothing fills the tile '" + Read.Buffer + "'";
    return std::nullopt;
  }
  const Access &Fill = *R.Fill;
  std::vector<unsigned> Outer(Read.Loops.begin(), Read.Loops.end() - (Read.Loops.empty() ? 0 : 1));
  if (Read.Loops.empty() || Read.Loops.back() != KLoop || Fill.Loops != Outer) {
    Why = "the fill of '" + Read.Buffer + "' (" + lineText(Fill) +
          ") is not one element per thread in the loop over phases";
    return std::nullopt;
  }
  if (!fillIsStaged(Fill, PL, KL, Why))
    return std::nullopt;
  // The fill writes S[threadIdx.a][threadIdx.b]: one element per thread,
  // one-to-one when the block is the tile.
  std::vector<const Expr *> FSubs;
  tileSubscripts(Fill.E, FSubs);
  std::vector<char> Dims;
  for (size_t D = 0; D < FSubs.size(); ++D) {
    char C = threadDim(K.formOf(FSubs[D]));
    if (!C || is_contained(Dims, C)) {
      Why = "the fill of '" + Read.Buffer + "' (" + lineText(Fill) +
            ") is not one-to-one over the tile: its subscripts are not distinct thread "
            "indices";
      return std::nullopt;
    }
    Dims.push_back(C);
    R.Block[C] = Ext[D];
    if (K.Opts.Block && (*K.Opts.Block)[C - 'x'] != Ext[D]) {
      Why = "the block is not the tile: blockDim." + std::string(1, C) + " is " +
            std::to_string((*K.Opts.Block)[C - 'x']) + ", the tile '" + Read.Buffer + "' " +
            std::to_string(Ext[D]) + " long";
      return std::nullopt;
    }
  }
  // The read puts k in one coordinate and every other back as the fill
  // wrote it.
  int KCoord = -1;
  for (size_t D = 0; D < RSubs.size(); ++D) {
    IndexForm F = K.formOf(RSubs[D]);
    if (F == IndexForm::atom(KL.VarAtom) && KCoord < 0) {
      KCoord = int(D);
      continue;
    }
    if (threadDim(F) != Dims[D]) {
      Why = "the tile '" + Read.Buffer + "' is read at '" + Read.Text +
            "', an index the substitution cannot express (each subscript must be k or the "
            "thread index the fill wrote it with)";
      return std::nullopt;
    }
  }
  if (KCoord < 0 || *KL.TripCount != Ext[unsigned(KCoord)]) {
    Why = "the loop over k does not run over the tile's extent along the coordinate it reads "
          "(" + Read.Text + ")";
    return std::nullopt;
  }
  R.KDim = Dims[unsigned(KCoord)];
  R.Tile = Ext[unsigned(KCoord)];
  // The stored value: a global load, or `c ? load : 0`.
  const Expr *V = asAssignment(K.parentOf(Fill.E))->RHS->IgnoreParenImpCasts();
  if (const auto *C = dyn_cast<ConditionalOperator>(V)) {
    if (!isZero(C->getFalseExpr(), K.Ctx) || !conjuncts(C->getCond(), R.Conds)) {
      Why = "the fill of '" + Read.Buffer + "' (" + lineText(Fill) +
            ") is not 'G[...]' or 'a < b && ... ? G[...] : 0'";
      return std::nullopt;
    }
    R.Cond = C->getCond();
    V = C->getTrueExpr()->IgnoreParenImpCasts();
  }
  const Access *Src = M.accessAt(V);
  if (!Src)
    if (const auto *Call = dyn_cast<CallExpr>(V))
      Src = M.accessAt(Call);
  if (!Src || Src->Kind != AccessKind::Load || Src->Space != MemorySpace::Global ||
      !Src->IndexKnown || Src->Loops != Fill.Loops) {
    Why = "the fill of '" + Read.Buffer + "' (" + lineText(Fill) +
          ") does not store a global element";
    return std::nullopt;
  }
  R.Source = Src;
  auto Tid = T.findBuiltin("threadIdx", R.KDim);
  auto Subst = [&](const IndexForm &F) {
    IndexForm G = T.substitute(F, [&](AtomId X) -> std::optional<IndexForm> {
      if (Tid && X == *Tid)
        return IndexForm::atom(KL.VarAtom);
      return std::nullopt;
    });
    return assumeBlock(G, R.Block);
  };
  R.Global = Subst(Src->Index);
  for (Comparison &C : R.Conds) {
    C.Lhs = Subst(C.Lhs);
    C.Rhs = Subst(C.Rhs);
  }
  return R;
}

} // namespace forge::analysis
