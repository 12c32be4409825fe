//===- passes/optimize/TransposeTileRule.cpp - transpose-tile -------------===//
///
/// \file
/// A naive transpose, `out[x * rows + y] = in[y * cols + x]` over a 2D grid
/// of threads (the model's PatternKind::Transpose), reads along rows and
/// writes along columns: one of its two accesses puts the 32 lanes of a warp
/// a whole row apart, 32 memory transactions per warp instruction.
///
/// The rule stages 32 x 32 tiles in shared memory (`__shared__ T
/// tile[32][33]`, the padding column keeping the column reads off a single
/// bank): the block loads a tile along the rows of `in`, synchronises, and
/// stores it along the rows of `out`, so both sides move whole 128-byte
/// lines. The threads of the block stride over the tile's 1024 elements and
/// the blocks stride over the tiles, so the rewrite is correct for any block
/// shape and any grid; the spec change launches one tile per block.
///
/// Everything is written from the model: the positions x and y (the
/// thread's `blockIdx * blockDim + threadIdx` along x and y, whatever the
/// spelling), the index forms of the load and the store and the comparisons
/// of the store's guard, rendered again over the tile's positions in 64-bit
/// arithmetic. The stored value is the kernel's own expression with the
/// load replaced by the tile element (a scale factor or a conversion stays
/// as written).
///
/// Over a 1D grid, the model's flat split (a flat index t, the thread's
/// position or a grid-stride loop's variable, split into the row t / d and
/// the column t % d) gives the positions: x is the column, y the row, and
/// the same tiles are written, numbered along the rows and taken in turn by
/// the blocks of the original 1D launch, with the 1D block seen as 32 x
/// (blockDim.x / 32) threads.
///
/// A kernel whose blocks walk the rows of their tile in a loop (NVIDIA's
/// transposeNaive: `for (j = 0; j < TILE; j += ROWS) out[x * w + y + j] =
/// in[(y + j) * w + x]`) has the row position `blockIdx.y * TILE +
/// threadIdx.y + ROWS * it` in the model; its blocks cover their tiles, so
/// its grid is its extent, which joins the guard, and the grid stays. See
/// docs/passes/transpose-tile.md.
///
//===----------------------------------------------------------------------===//
#include "FormCode.h"
#include "RuleAst.h"
#include "RuleUtil.h"
#include "Rules.h"
#include "forge/Analysis/KernelModel.h"
#include "forge/Measure/IntExpr.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DynamicRecursiveASTVisitor.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include <functional>
#include <set>
#include <tuple>

using namespace clang;
using namespace llvm;
namespace an = forge::analysis;

namespace forge::passes {
namespace {

/// The tile's side: a warp loads one row of it, 128 bytes of floats.
constexpr int TileSide = 32;

unsigned lineOf(ASTContext &Ctx, SourceLocation L) {
  const SourceManager &SM = Ctx.getSourceManager();
  return SM.getPresumedLineNumber(SM.getExpansionLoc(L));
}

/// Whether Inner is Outer or inside it.
/// The parent of S, past parentheses and implicit casts; a VarDecl when S
/// initialises one.
DynTypedNode parentPastCasts(ASTContext &Ctx, const Stmt *S) {
  while (true) {
    auto Ps = Ctx.getParents(*S);
    if (Ps.empty())
      return DynTypedNode();
    const Stmt *P = Ps[0].get<Stmt>();
    if (P && (isa<ParenExpr>(P) || isa<ImplicitCastExpr>(P))) {
      S = P;
      continue;
    }
    return Ps[0];
  }
}

/// The comparison operator a guard term's condition is, when it is one.
const BinaryOperator *comparisonIn(const Expr *Cond) {
  const Expr *E = Cond ? Cond->IgnoreParenImpCasts() : nullptr;
  while (const auto *U = dyn_cast_or_null<UnaryOperator>(E)) {
    if (U->getOpcode() != UO_LNot)
      break;
    E = U->getSubExpr()->IgnoreParenImpCasts();
  }
  const auto *B = dyn_cast_or_null<BinaryOperator>(E);
  return B && B->isComparisonOp() ? B : nullptr;
}

/// Whether a tile element of type T can be a __shared__ array element.
bool tileableType(QualType T, ASTContext &Ctx) {
  if (T->isDependentType() || T->isArithmeticType())
    return true;
  if (const auto *RD = T->getAsCXXRecordDecl())
    return RD->hasDefinition() && RD->hasTrivialDefaultConstructor() &&
           RD->isTriviallyCopyable() && Ctx.getTypeSize(T) <= 128;
  return false;
}

/// A loop over the rows of the block's tile, the naive transpose of NVIDIA's
/// blog: `y = blockIdx.y * TILE + threadIdx.y; for (j = 0; j < TILE; j +=
/// ROWS) out[x * w + y + j] = in[(y + j) * w + x]`. In the model's terms
/// (loop variables expanded to Start + Step * it), the row position is
/// `blockIdx.y * Tile + threadIdx.y + Rows * it`, and a block with
/// blockDim.y == Rows covers the rows [0, Tile) of its tile, each once.
struct RowLoop {
  const an::Loop *L = nullptr;
  /// The rows between two iterations (a constant or blockDim.y) and the
  /// block's stride along y, which is the number of rows the loop walks.
  an::IndexForm Rows, Tile;
  /// A further condition on the block for that coverage (a step of
  /// blockDim.y from a constant: `32 % blockDim.y != 0` runs the original
  /// body), and the assumption it checks, in words.
  std::string Check, Assumed;
};

/// The kernel's only loop as a loop over the rows of the block's tile, or
/// why it is not one. R and W are the transpose's load and store.
std::optional<RowLoop> readRowLoop(const an::KernelModel &M, an::AtomTable &T,
                                   const an::Access &R, const an::Access &W, std::string &Why) {
  auto Fail = [&](std::string S) -> std::optional<RowLoop> {
    Why = std::move(S);
    return std::nullopt;
  };
  if (M.Loops.size() != 1) {
    std::vector<std::string> Lines;
    for (const an::Loop &L : M.Loops)
      Lines.push_back(std::to_string(L.Loc.Line));
    return Fail(formatv("the kernel has {0} loops (lines {1}); a loop is tiled only where it is "
                        "the kernel's one loop and walks the rows of each block's tile",
                        M.Loops.size(), join(Lines, ", "))
                    .str());
  }
  const an::Loop &L = M.Loops.front();
  std::string Name = L.Var.empty() ? formatv("the loop (line {0})", L.Loc.Line).str()
                                   : formatv("the loop over '{0}' (line {1})", L.Var, L.Loc.Line).str();
  if (!L.hasInductionVariable() || !L.Start || !L.Step)
    return Fail(Name + " has no induction variable the model follows" +
                (L.Why.empty() ? std::string() : " (" + L.Why + ")"));
  if (R.Loops != std::vector<unsigned>{L.Id} || W.Loops != std::vector<unsigned>{L.Id})
    return Fail("the transpose is not the body of " + Name);
  if (L.HasSync)
    return Fail(Name + " synchronises the block; the kernel is already tiled");
  if (L.HasEarlyExit)
    return Fail(Name + " may be left early (break, return); its rows are not known");
  if (!L.ExtraCondText.empty())
    return Fail(Name + " also tests '" + L.ExtraCondText +
                "' in its condition; only a bound on its variable is read (test it in the body)");
  an::AtomId Ty = T.builtin("threadIdx", 'y'), By = T.builtin("blockIdx", 'y'),
             Dy = T.builtin("blockDim", 'y');
  an::IndexForm DimY = an::IndexForm::atom(Dy);
  an::IndexForm Start = T.expandLoops(*L.Start), Step = T.expandLoops(*L.Step);
  auto StepC = Step.constantValue();
  if (!(StepC && *StepC > 0) && Step != DimY)
    return Fail(Name + " steps by '" + T.render(Step) +
                "', neither a positive constant nor blockDim.y");
  // The row position's parts, relative to threadIdx.y's coefficient (the
  // row length, or 1 where the access runs along y).
  an::IndexForm RIdx = T.expandLoops(R.Index);
  auto CT = RIdx.coefficientOf(Ty), CB = RIdx.coefficientOf(By),
       CI = RIdx.coefficientOf(L.IterAtom);
  std::optional<an::IndexForm> Rows, Tile;
  if (CT && !CT->isZero() && CB && CI) {
    Rows = CI->dividedExactly(*CT);
    Tile = CB->dividedExactly(*CT);
  }
  if (!Rows || !Tile || Rows->isZero())
    return Fail(Name + " does not move '" + R.Text +
                "' along the row position (blockIdx.y * TILE + threadIdx.y): its variable is "
                "not added to the row");
  auto RowsC = Rows->constantValue();
  if (!(RowsC && *RowsC > 0) && *Rows != DimY)
    return Fail(Name + " moves the row by '" + T.render(*Rows) +
                "' per iteration, neither a positive constant nor blockDim.y");
  // The rows a block covers: [0, Extent) of its tile, each once (with
  // blockDim.y == Rows).
  RowLoop Out;
  auto A0 = Start.constantValue();
  auto FromThread = (Start - an::IndexForm::atom(Ty)).constantValue();
  an::IndexForm Extent;
  // The trip count, also where the bound is the start plus a constant
  // (`for (r = y; r < y + 32; r += 8)`).
  std::optional<int64_t> Trips = L.TripCount;
  if (!Trips && StepC && L.Bound)
    if (auto D = (T.expandLoops(*L.Bound) - Start).constantValue()) {
      if (L.Cmp == an::CmpOp::LT)
        Trips = *D > 0 ? (*D + *StepC - 1) / *StepC : 0;
      else if (L.Cmp == an::CmpOp::LE)
        Trips = *D >= 0 ? *D / *StepC + 1 : 0;
    }
  if (StepC && (A0 || Trips)) {
    // `for (j = 0; j < 32; j += 8)`, `for (k = 0; k < 4; ++k) ... y + 8 * k`,
    // `for (r = y; r < y + 32; r += 8)`: the same iterations in every thread.
    if (!Trips || *Trips <= 0)
      return Fail(Name + " has no constant trip count ('" + L.CondText + "')");
    Extent = Rows->scaled(*Trips);
  } else if (A0 || FromThread) {
    // `for (j = 0; j < 32; j += blockDim.y)`, `for (r = threadIdx.y; r < 32;
    // r += 8)`: the variable runs over [start, end) and is the row.
    if (*Rows != Step)
      return Fail(Name + " moves the row by '" + T.render(*Rows) + "' per iteration, not by its "
                  "step '" + T.render(Step) + "'");
    std::optional<int64_t> End;
    if (L.Bound)
      if (auto B = T.expandLoops(*L.Bound).constantValue()) {
        if (L.Cmp == an::CmpOp::LT)
          End = *B;
        else if (L.Cmp == an::CmpOp::LE)
          End = *B + 1;
      }
    if (!End)
      return Fail(Name + " does not run below a constant bound ('" + L.CondText + "')");
    int64_t E = *End - (A0 ? *A0 : *FromThread);
    if (E <= 0)
      return Fail(Name + " runs no iteration");
    Extent = an::IndexForm::constant(E);
    // From a constant by blockDim.y: the last iteration stops at the tile's
    // end only when blockDim.y divides it.
    if (A0) {
      Out.Check = formatv("{0} % blockDim.y != 0", E).str();
      Out.Assumed = formatv("blockDim.y divides {0}", E).str();
    }
  } else {
    return Fail(Name + " starts at '" + T.render(Start) +
                "', neither a constant nor threadIdx.y plus a constant, and its trip count "
                "is not constant");
  }
  if (*Tile != Extent)
    return Fail("the blocks' stride along y, '" + T.render(*Tile) + "', is not the '" +
                T.render(Extent) + "' rows that " + Name +
                " walks: the blocks' rows would overlap or leave gaps");
  Out.L = &L;
  Out.Rows = *Rows;
  Out.Tile = *Tile;
  return Out;
}

/// The kernel's locals that a piece of code reads, with the statement that
/// declares each (top-level declarations of the body only).
struct UniformLocals {
  std::vector<const DeclStmt *> Decls; ///< in body order
  std::string Why;
};

class TransposeTileRule : public ExpertRule {
public:
  StringRef name() const override { return "transpose-tile"; }
  RuleOutcome propose(const RuleInput &In) override;
};

RuleOutcome TransposeTileRule::propose(const RuleInput &In) {
  ASTContext &Ctx = In.Ctx;
  const CompoundStmt *Body = kernelBody(In.Kernel);
  if (!Body)
    return notApplicable("the kernel has no body");

  // The model without the launch block: blockDim stays a symbol, so that
  // what is rendered from the forms is right for whatever block the kernel
  // is launched with.
  auto MOr = an::analyzeKernel(Ctx, In.Kernel, an::AnalysisOptions());
  if (!MOr)
    return notApplicable(toString(MOr.takeError()));
  an::KernelModel &M = *MOr;
  an::AtomTable &T = M.atoms();

  std::vector<const an::Pattern *> Ps = M.patterns(an::PatternKind::Transpose);
  if (Ps.empty())
    return notApplicable("the model recognises no transpose (a store whose value is a load, "
                         "with the fast index of one on threadIdx.x and of the other on "
                         "threadIdx.y, or one along the column t % d and the other along the "
                         "row t / d of a flat index t)");
  if (Ps.size() > 1)
    return notApplicable(formatv("the kernel holds {0} transposes; only a kernel that is one "
                                 "transpose is tiled",
                                 Ps.size())
                             .str());
  const an::Pattern &P = *Ps.front();
  const an::Access &R = M.Accesses[P.Accesses[0]];
  const an::Access &W = M.Accesses[P.Accesses[1]];
  if (R.Space != an::MemorySpace::Global || W.Space != an::MemorySpace::Global)
    return notApplicable("the kernel already transposes through the shared-memory tile '" +
                         (R.Space == an::MemorySpace::Shared ? R.Buffer : W.Buffer) + "'");
  // A flat transpose: the thread's flat index t split into the row t / d
  // and the column t % d (the model's FlatSplit), over a 1D grid.
  std::optional<an::AtomId> SplitQ = R.Warp.FlatSplit;
  bool Flat = SplitQ.has_value();
  if (!Flat && P.role("swapped") != "threadIdx.y")
    return notApplicable("the transpose " + W.Text + " = " + R.Text + " runs along '" +
                         P.role("swapped").str() +
                         "', not along threadIdx.y: only a transpose over a 2D grid of threads "
                         "is tiled");
  if (W.Kind != an::AccessKind::Store)
    return notApplicable("'" + W.Text + "' is not a plain store");
  an::AtomId Tx = T.builtin("threadIdx", 'x'), Ty = T.builtin("threadIdx", 'y');
  an::AtomId Bx = T.builtin("blockIdx", 'x'), By = T.builtin("blockIdx", 'y');
  an::AtomId Dx = T.builtin("blockDim", 'x'), Dy = T.builtin("blockDim", 'y');
  an::AtomId Gx = T.builtin("gridDim", 'x'), Gy = T.builtin("gridDim", 'y');
  // The flat index t and the divisor d of the split; with a grid-stride loop
  // over t (`for (t = blockIdx.x * blockDim.x + threadIdx.x; t < n; t +=
  // blockDim.x * gridDim.x)`), the loop, which the tiles replace.
  an::IndexForm FlatN, FlatD;
  an::AtomId RemA = 0;
  const an::Loop *FlatLoop = nullptr;
  if (Flat) {
    FlatN = T[*SplitQ].Operands[0];
    FlatD = T[*SplitQ].Operands[1];
    an::IndexForm Rem = T.mod(FlatN, FlatD);
    if (Rem.terms().size() != 1 || Rem.terms().begin()->first.size() != 1 ||
        Rem.terms().begin()->second != 1)
      return notApplicable("the remainder '" + T.render(FlatN) + " % " + T.render(FlatD) +
                           "' folds away");
    RemA = Rem.terms().begin()->first.front();
    if (M.Loops.size() == 1 && FlatN == an::IndexForm::atom(M.Loops[0].VarAtom)) {
      const an::Loop &L = M.Loops[0];
      an::IndexForm Pos = an::IndexForm::atom(Bx) * an::IndexForm::atom(Dx) +
                          an::IndexForm::atom(Tx);
      if (L.Parent >= 0 || L.StepK != an::StepKind::GridStride || !L.Start || !L.Step ||
          *L.Start != Pos || *L.Step != an::IndexForm::atom(Dx) * an::IndexForm::atom(Gx) ||
          !L.Bound || (L.Cmp != an::CmpOp::LT && L.Cmp != an::CmpOp::LE) ||
          !L.ExtraCondText.empty() || L.HasEarlyExit || L.HasSync ||
          R.Loops != std::vector<unsigned>{0} || W.Loops != std::vector<unsigned>{0})
        return notApplicable(
            formatv("the loop over '{0}' (line {1}) is not a grid-stride loop over the flat "
                    "index from blockIdx.x * blockDim.x + threadIdx.x by blockDim.x * "
                    "gridDim.x under one bound, with the transpose its whole work",
                    L.Var, L.Loc.Line)
                .str());
      FlatLoop = &L;
    }
  }
  // A loop over the rows of each block's tile (NVIDIA's naive transpose).
  std::optional<RowLoop> Rows;
  if (Flat && !M.Loops.empty() && !FlatLoop)
    return notApplicable(formatv("the kernel has a loop (line {0}) that is not the grid-stride "
                                 "loop of its flat index",
                                 M.Loops.front().Loc.Line)
                             .str());
  if (!M.Loops.empty() && !Flat) {
    std::string Why;
    Rows = readRowLoop(M, T, R, W, Why);
    if (!Rows)
      return notApplicable(Why);
  }
  // The buffers: parameters indexed in their own element type.
  auto ParamOf = [&](const an::Access &A) -> const ParmVarDecl * {
    if (A.ParamIndex < 0)
      return nullptr;
    const ParmVarDecl *PD = In.Kernel.getParamDecl(unsigned(A.ParamIndex));
    QualType Pointee = PD->getType()->getPointeeType();
    if (Pointee.isNull() || !A.E ||
        !Ctx.hasSameUnqualifiedType(Pointee.getCanonicalType(), A.E->getType().getCanonicalType()))
      return nullptr;
    return PD;
  };
  const ParmVarDecl *InP = ParamOf(R), *OutP = ParamOf(W);
  if (!InP || !OutP)
    return notApplicable("'" + (InP ? W.Text : R.Text) +
                         "' is not an element of a pointer parameter in its own element type");
  for (const an::Access &A : M.Accesses) {
    if (A.Id == R.Id || A.Id == W.Id)
      continue;
    if (A.Space != an::MemorySpace::Global || A.writes() || A.Base == W.Base)
      return notApplicable("the kernel also " + std::string(A.writes() ? "writes " : "reads ") +
                           "'" + A.Text + "' (line " + std::to_string(A.Loc.Line) +
                           "); only a kernel that is one transpose is tiled");
  }
  // Nothing besides the store may be repeated or dropped.
  std::string Effect = effectsOf(Body, In.Kernel, Ctx, [&](const Expr *LHS) {
    return LHS->IgnoreParens() == W.E;
  });
  if (!Effect.empty())
    return notApplicable("the kernel " + Effect + ": the tiled kernel would repeat or drop it");
  struct BuiltinUses : DynamicRecursiveASTVisitor {
    std::string Bad;
    BuiltinUses() { ShouldVisitImplicitCode = true; }
    bool VisitExpr(Expr *E) override {
      if (auto B = cudaBuiltin(E); B && Bad.empty() &&
                                   ((B->Var == "threadIdx" && B->Dim == 'z') ||
                                    (B->Var == "gridDim" && B->Dim != 'z' && !KeepsGrid)))
        Bad = (B->Var + "." + std::string(1, B->Dim)).str();
      return true;
    }
    // A flat transpose keeps its grid (no spec change), so the grid's size
    // may be read (a grid-stride loop's step); the forms may not read it.
    // A loop over tile rows keeps it too (its blocks' tiles are the work),
    // and its forms may read it (`width = gridDim.x * TILE`).
    bool KeepsGrid = false;
  } Uses;
  Uses.KeepsGrid = Flat || Rows;
  Uses.TraverseStmt(const_cast<CompoundStmt *>(Body));
  if (!Uses.Bad.empty())
    return notApplicable("the kernel reads '" + Uses.Bad + "'; the tiled kernel gives threads " +
                         (StringRef(Uses.Bad).starts_with("gridDim")
                              ? "other blocks (the grid changes)"
                              : "other elements (threadIdx.z would be the same for all)"));

  // The positions x = blockIdx.x * blockDim.x + threadIdx.x and y, as atoms
  // of their own; every form must depend on the thread through them only.
  // A flat transpose's positions are the column x = t % d and the row
  // y = t / d of its flat index t = blockIdx.x * blockDim.x + threadIdx.x.
  an::AtomId XA = T.symbol(an::AtomKind::Param, nullptr, "x", "transpose-tile:x");
  an::AtomId YA = T.symbol(an::AtomKind::Param, nullptr, "y", "transpose-tile:y");
  an::IndexForm X = an::IndexForm::atom(XA), Y = an::IndexForm::atom(YA);
  // The blocks' stride along each position, read off the load's index: the
  // coefficient of blockIdx over that of threadIdx. Usually blockDim (right
  // for any block); a constant C (`blockIdx.x * 16 + threadIdx.x`) is the
  // position only when blockDim is C, which the rewrite checks on the device.
  an::IndexForm RIdx0 = T.expandLoops(R.Index);
  auto BlockStride = [&](an::AtomId B, an::AtomId Tt, an::AtomId D) {
    an::IndexForm Dim = an::IndexForm::atom(D);
    auto CT = RIdx0.coefficientOf(Tt), CB = RIdx0.coefficientOf(B);
    if (!CT || !CB || CT->isZero())
      return Dim;
    auto Q = CB->dividedExactly(*CT);
    if (Q && Q->constantValue() && *Q->constantValue() > 0 && *Q->constantValue() <= 1024)
      return *Q;
    return Dim;
  };
  an::IndexForm SX = BlockStride(Bx, Tx, Dx), SY = BlockStride(By, Ty, Dy);
  // Over tile rows, y = blockIdx.y * Tile + threadIdx.y + Rows * it: the
  // block's stride is the tile's height, the loop adds Rows per iteration.
  an::IndexForm RowsIt;
  if (Rows) {
    SY = Rows->Tile;
    RowsIt = Rows->Rows * an::IndexForm::atom(Rows->L->IterAtom);
  }
  if (Flat && FlatLoop) {
    SX = an::IndexForm::atom(Dx);
  } else if (Flat) {
    auto CT = FlatN.coefficientOf(Tx), CB = FlatN.coefficientOf(Bx);
    bool Ok = CT && CB && *CT == an::IndexForm::constant(1) &&
              FlatN == an::IndexForm::atom(Tx) + an::IndexForm::atom(Bx) * *CB &&
              (*CB == an::IndexForm::atom(Dx) ||
               (CB->constantValue() && *CB->constantValue() > 0 && *CB->constantValue() <= 1024));
    if (!Ok)
      return notApplicable("the flat index '" + T.render(FlatN) +
                           "' is not the thread's position (blockIdx.x * blockDim.x + "
                           "threadIdx.x, or blockIdx.x * C + threadIdx.x)");
    SX = *CB;
  }
  auto Sub = [&](const an::IndexForm &F) {
    if (Flat)
      return T.substitute(F, [&](an::AtomId A) -> std::optional<an::IndexForm> {
        if (A == *SplitQ)
          return Y;
        if (A == RemA)
          return X;
        // t = y * d + x.
        if (FlatLoop && A == FlatLoop->VarAtom)
          return Y * FlatD + X;
        if (!FlatLoop && A == Tx)
          return Y * FlatD + X - an::IndexForm::atom(Bx) * SX;
        return std::nullopt;
      });
    return T.substitute(T.expandLoops(F), [&](an::AtomId A) -> std::optional<an::IndexForm> {
      if (A == Tx)
        return X - an::IndexForm::atom(Bx) * SX;
      if (A == Ty)
        return Y - an::IndexForm::atom(By) * SY - RowsIt;
      return std::nullopt;
    });
  };
  // The block dimensions the kernel's positions assume ("blockDim.x != 16"):
  // blockDim.y is the block's stride along y, or over tile rows the rows
  // between two iterations.
  std::vector<std::string> FixedDims, Assumed;
  an::IndexForm DimY = Rows ? Rows->Rows : SY;
  for (auto [S, Name] : {std::pair(&SX, "blockDim.x"), std::pair(&DimY, "blockDim.y")})
    if (auto C = S->constantValue(); C && !(Flat && S == &DimY)) {
      FixedDims.push_back(formatv("{0} != {1}", Name, *C).str());
      Assumed.push_back(formatv("{0} == {1}", Name, *C).str());
    }
  if (Rows && !Rows->Check.empty()) {
    FixedDims.push_back(Rows->Check);
    Assumed.push_back(Rows->Assumed);
  }
  auto ThreadFree = [&](const an::IndexForm &F) {
    if (Flat && (T.dependsOn(F, Gx) || T.dependsOn(F, Gy) ||
                 (FlatLoop && (T.dependsOn(F, FlatLoop->VarAtom) ||
                               T.dependsOn(F, FlatLoop->IterAtom)))))
      return false;
    if (Rows && (T.dependsOn(F, Rows->L->VarAtom) || T.dependsOn(F, Rows->L->IterAtom)))
      return false;
    return !T.dependsOn(F, Tx) && !T.dependsOn(F, Ty) && !T.dependsOn(F, Bx) &&
           !T.dependsOn(F, By);
  };
  an::IndexForm RF = Sub(R.Index), WF = Sub(W.Index);
  for (const auto &[A, F] : {std::pair(&R, &RF), std::pair(&W, &WF)})
    if (!ThreadFree(*F))
      return notApplicable(
          "the index of '" + A->Text + "' depends on the thread other than through its " +
          (Flat ? "flat index's row " + T.render(an::IndexForm::atom(*SplitQ)) + " and column " +
                      T.render(an::IndexForm::atom(RemA))
           : Rows ? "position (x = blockIdx.x * blockDim.x + threadIdx.x or blockIdx.x * C + "
                    "threadIdx.x, and y = blockIdx.y * " + T.render(SY) + " + threadIdx.y + " +
                    T.render(RowsIt) + " with the loop's iteration " +
                    T.render(an::IndexForm::atom(Rows->L->IterAtom)) + ")"
                  : std::string("position (blockIdx * blockDim + threadIdx, or blockIdx * C + "
                                "threadIdx, along x and y)")));
  // Which position the load runs along: x (out[x][y] = in[y][x]) or y.
  auto Coef = [&](const an::IndexForm &F, an::AtomId A) -> std::optional<int64_t> {
    auto C = F.coefficientOf(A);
    if (!C || T.dependsOn(*C, XA) || T.dependsOn(*C, YA))
      return std::nullopt;
    return C->constantValue() ? C->constantValue() : std::optional<int64_t>(0);
  };
  // Either way round, each index may run backwards along its position
  // (coefficient -1: a rotation, a flipped transpose): the lanes then touch
  // consecutive elements in descending order, still one segment per warp.
  auto Unit = [&](const an::IndexForm &F, an::AtomId A) {
    auto C = Coef(F, A);
    return C == 1 || C == -1;
  };
  bool LoadAlongX = Unit(RF, XA) && Unit(WF, YA);
  bool LoadAlongY = Unit(RF, YA) && Unit(WF, XA);
  if (LoadAlongX == LoadAlongY)
    return notApplicable("the load '" + R.Text + "' and the store '" + W.Text +
                         "' are not unit-stride (+1 or -1) along swapped positions");
  // The sign of each index along its fast position: -1 where it runs
  // backwards (out[x * h + (h - 1 - y)]).
  int64_t RSign = *Coef(RF, LoadAlongX ? XA : YA), WSign = *Coef(WF, LoadAlongX ? YA : XA);
  // The flat index is the element's index in the matrix read (or written)
  // along the column: its rows are d elements long.
  if (Flat) {
    const an::Access &A = LoadAlongX ? R : W;
    auto CY = (LoadAlongX ? RF : WF).coefficientOf(YA);
    if (!CY || *CY != FlatD)
      return notApplicable("the flat index " + T.render(FlatN) + " is split into rows of '" +
                           T.render(FlatD) + "' elements, but the rows of '" + A.Text +
                           "' are " + (CY ? "'" + T.render(*CY) + "'" : std::string("not")) +
                           " elements apart: the split is not the layout of '" + A.Buffer + "'");
  }
  for (const auto &[A, F] : {std::pair(&R, &RF), std::pair(&W, &WF)}) {
    const auto *Sub = dyn_cast<ArraySubscriptExpr>(A->E);
    if (Sub && Sub->getIdx()->getType()->isUnsignedIntegerType() && hasNegativeTerm(*F))
      return notApplicable("the index of '" + A->Text +
                           "' is computed in unsigned arithmetic and may wrap around");
  }

  // The guard: comparisons of forms, the same for the load and the store,
  // with an upper bound on each position.
  if (W.G.empty() && !FlatLoop && !Rows)
    return notApplicable("the store '" + W.Text + "' is not guarded: the tiles at the edges need " +
                         (Flat ? "a bound on the flat index (t < rows * cols)"
                               : "bounds on both positions (x < cols && y < rows)"));
  auto Key = [](const an::Guard &G) {
    std::vector<std::pair<const Expr *, bool>> K;
    for (const an::GuardTerm &Tm : G.Terms)
      K.push_back({Tm.Cond, Tm.Holds});
    llvm::sort(K);
    return K;
  };
  if (Key(R.G) != Key(W.G))
    return notApplicable("the load '" + R.Text + "' runs under '" + R.G.render() +
                         "' and the store under '" + W.G.render() +
                         "'; the tile would read elements the kernel does not");
  // The guard over the positions: its terms, and for a flat transpose the
  // bound of its grid-stride loop and the column's range x < d (which the
  // tile's positions do not have by themselves).
  struct GuardCmp {
    an::IndexForm L;
    an::CmpOp Op;
    an::IndexForm Rt;
  };
  std::vector<GuardCmp> Cmps;
  // Over tile rows the grid is the kernel's extent: its blocks cover
  // x < SX * gridDim.x and y < Tile * gridDim.y (and the guard, if any).
  if (Rows) {
    Cmps.push_back({X, an::CmpOp::LT, SX * an::IndexForm::atom(Gx)});
    Cmps.push_back({Y, an::CmpOp::LT, SY * an::IndexForm::atom(Gy)});
  }
  for (const an::GuardTerm &Tm : W.G.Terms) {
    if (!Tm.Cmp)
      return notApplicable("the guard '" + Tm.Text + "' is not a comparison of integers" +
                           (Tm.Why.empty() || StringRef(Tm.Why).contains("not a comparison")
                                ? ""
                                : " (" + Tm.Why + ")"));
    an::IndexForm L = Sub(Tm.Cmp->Lhs), Rt = Sub(Tm.Cmp->Rhs);
    if (!ThreadFree(L) || !ThreadFree(Rt))
      return notApplicable("the guard '" + Tm.Text +
                           "' depends on the thread other than through its position");
    if (const BinaryOperator *B = comparisonIn(Tm.Cond);
        B && B->getLHS()->getType()->isUnsignedIntegerType() &&
        (hasNegativeTerm(Tm.Cmp->Lhs) || hasNegativeTerm(Tm.Cmp->Rhs)))
      return notApplicable("the guard '" + Tm.Text + "' compares unsigned values that may wrap "
                           "around");
    Cmps.push_back({L, Tm.Cmp->Op, Rt});
  }
  if (FlatLoop) {
    an::IndexForm Bound = Sub(*FlatLoop->Bound);
    if (!ThreadFree(Bound))
      return notApplicable("the bound of the loop over '" + FlatLoop->Var +
                           "' depends on the thread");
    if (FlatLoop->IV && FlatLoop->IV->getType()->isUnsignedIntegerType() &&
        hasNegativeTerm(*FlatLoop->Bound))
      return notApplicable("the loop bound '" + FlatLoop->CondText +
                           "' compares unsigned values that may wrap around");
    Cmps.push_back({Sub(FlatN), FlatLoop->Cmp, Bound});
  }
  if (Flat)
    Cmps.push_back({X, an::CmpOp::LT, FlatD});
  std::optional<an::IndexForm> ExtX, ExtY;
  for (const GuardCmp &Tm : Cmps) {
    an::IndexForm L = Tm.L, Rt = Tm.Rt;
    // An upper bound on a position: D >= 0 with D = U - x.
    an::IndexForm D = an::Comparison{L, Tm.Op, Rt}.slack().value_or(an::IndexForm());
    for (auto [A, Ext] : {std::pair(XA, &ExtX), std::pair(YA, &ExtY)}) {
      an::AtomId Other = A == XA ? YA : XA;
      auto C = D.coefficientOf(A);
      if (!*Ext && Tm.Op != an::CmpOp::EQ && Tm.Op != an::CmpOp::NE && C &&
          C->constantValue() == -1 && !T.dependsOn(D, Other)) {
        an::IndexForm U = D.withoutAtom(A) + an::IndexForm::constant(1);
        if (T.uniformity(U).atLeast(an::Uniformity::BlockUniform))
          *Ext = U;
      }
    }
    // A bound on the flat index, y * d + x < E with 0 <= x < d: the rows
    // below ceil(E / d) (the last one perhaps in part).
    if (Flat && !ExtY && Tm.Op != an::CmpOp::EQ && Tm.Op != an::CmpOp::NE) {
      auto CX = D.coefficientOf(XA), CY = D.coefficientOf(YA);
      if (CX && CY && CX->constantValue() == -1 && *CY == -FlatD) {
        an::IndexForm E = D.withoutAtom(XA).withoutAtom(YA) + an::IndexForm::constant(1);
        if (T.uniformity(E).atLeast(an::Uniformity::BlockUniform)) {
          if (auto Q = E.dividedExactly(FlatD))
            ExtY = *Q;
          else
            ExtY = T.div(E + FlatD - an::IndexForm::constant(1), FlatD);
        }
      }
    }
  }
  if (!ExtX || !ExtY)
    return notApplicable(
        Flat ? "the guard '" + W.G.render() + "' does not bound the flat index " +
                   T.render(FlatN) + " (or its row " + T.render(an::IndexForm::atom(*SplitQ)) +
                   ") from above; the tiles at the edges need the bound"
             : "the guard '" + W.G.render() + "' does not bound " + (!ExtX ? "x" : "y") +
                   " from above; the tiles at the edges need both bounds");

  // The stored value: the right-hand side of the store with the load
  // replaced by the tile element.
  const Expr *RHS = nullptr;
  {
    DynTypedNode Par = parentPastCasts(Ctx, W.E);
    if (const auto *B = Par.get<BinaryOperator>(); B && B->getOpcode() == BO_Assign)
      RHS = B->getRHS();
    else if (const auto *C = Par.get<CXXOperatorCallExpr>(); C && C->isAssignmentOp())
      RHS = C->getArg(1);
  }
  if (!RHS)
    return notApplicable("'" + W.Text + "' is not assigned a value");
  const VarDecl *Held = nullptr; // float v = in[...]; out[...] = v * s;
  if (!isWithin(R.E, RHS)) {
    Held = parentPastCasts(Ctx, R.E).get<VarDecl>();
    if (!Held || !Held->hasLocalStorage() || isModified(Held, Body) ||
        Held->getInit()->IgnoreParenImpCasts() != R.E)
      return notApplicable("the loaded value reaches the store '" + W.Text +
                           "' in a way the rule does not follow");
    for (const DeclRefExpr *Ref : referencesTo(Held, Body))
      if (!isWithin(Ref, RHS))
        return notApplicable("the loaded value '" + Held->getNameAsString() +
                             "' is also used outside the store (line " +
                             std::to_string(lineOf(Ctx, Ref->getBeginLoc())) + ")");
  }
  QualType TileType = (Held ? Held->getType() : R.E->getType()).getUnqualifiedType();
  if (!tileableType(TileType, Ctx))
    return notApplicable("the element type '" + TileType.getAsString() +
                         "' cannot be held in a __shared__ tile");
  // Where the stored value reads the loaded element: the tile element
  // replaces it (spelt per tile side and path).
  std::vector<SourceRange> LoadedAt;
  std::vector<const Stmt *> Replaced;
  if (Held) {
    for (const DeclRefExpr *Ref : referencesTo(Held, RHS)) {
      LoadedAt.push_back(Ref->getSourceRange());
      Replaced.push_back(Ref);
    }
  } else {
    LoadedAt.push_back(R.E->getSourceRange());
    Replaced.push_back(R.E);
  }
  // What else the value reads: constants, parameters, other read-only
  // elements at uniform indices, and locals that are the same in every
  // thread (their declarations come along).
  std::set<const DeclStmt *> KeptSet;
  std::set<std::string> Referenced;
  std::string ValueWhy;
  std::function<void(const Stmt *)> Scan = [&](const Stmt *S) {
    if (!S || !ValueWhy.empty() || is_contained(Replaced, S))
      return;
    if (const auto *E = dyn_cast<Expr>(S)) {
      if (auto B = cudaBuiltin(E)) {
        ValueWhy = "uses '" + (B->Var + "." + std::string(1, B->Dim)).str() + "'";
        return;
      }
      if (const an::Access *A = M.accessAt(E); A && A->Id != R.Id) {
        if (!T.uniformity(A->Index).atLeast(an::Uniformity::GridUniform)) {
          ValueWhy = "reads '" + A->Text + "', which is not the same element for every thread";
          return;
        }
      }
      if (const auto *D = dyn_cast<DeclRefExpr>(E))
        Referenced.insert(D->getDecl()->getNameAsString());
      if (const auto *D = dyn_cast<DeclRefExpr>(E); D && isa<ParmVarDecl>(D->getDecl())) {
        if (isModified(cast<ParmVarDecl>(D->getDecl()), Body))
          ValueWhy = "uses '" + D->getDecl()->getNameAsString() +
                     "', which the kernel assigns";
        return;
      }
      if (const auto *D = dyn_cast<DeclRefExpr>(E))
        if (const auto *V = dyn_cast<VarDecl>(D->getDecl()); V && V->hasLocalStorage()) {
          if (!M.isUniform(D, an::Uniformity::GridUniform)) {
            ValueWhy = "uses '" + V->getNameAsString() + "', which varies between threads (" +
                       M.uniformity(D).Reason + ")";
            return;
          }
          const DeclStmt *DS = nullptr;
          for (const Stmt *Top : Body->body())
            if (const auto *X = dyn_cast<DeclStmt>(Top))
              if (is_contained(X->decls(), V))
                DS = X;
          if (!DS || isModified(V, Body) || !V->getInit()) {
            ValueWhy = "uses '" + V->getNameAsString() +
                       "', which is not declared once at the top of the kernel";
            return;
          }
          if (KeptSet.insert(DS).second)
            Scan(V->getInit());
          return;
        }
    }
    for (const Stmt *C : S->children())
      Scan(C);
  };
  Scan(RHS);
  if (!ValueWhy.empty())
    return notApplicable("the stored value " + ValueWhy +
                         "; the tile moves each element to another thread");
  auto ValueWith = [&](const std::string &Elem) {
    std::vector<std::pair<SourceRange, std::string>> Repl;
    for (SourceRange Rg : LoadedAt)
      Repl.push_back({Rg, Elem});
    return textWithReplacements(RHS, Ctx, Repl);
  };
  if (!ValueWith("forge_tile[0][0]"))
    return notApplicable("the stored value '" + textOf(RHS, Ctx) +
                         "' is written through a macro");

  // Names: the kernel's own names for the positions when they are free.
  EditCollector C(In);
  std::string XName, YName;
  std::vector<const DeclStmt *> Kept;
  std::set<std::string> KeptNames;
  for (const Stmt *Top : Body->body())
    if (const auto *DS = dyn_cast<DeclStmt>(Top); DS && KeptSet.count(DS)) {
      Kept.push_back(DS);
      for (const Decl *D : DS->decls())
        if (const auto *ND = dyn_cast<NamedDecl>(D))
          KeptNames.insert(ND->getNameAsString());
    }
  {
    struct Locals : DynamicRecursiveASTVisitor {
      std::vector<const VarDecl *> Vars;
      bool VisitVarDecl(VarDecl *V) override { return Vars.push_back(V), true; }
    } L;
    L.TraverseStmt(const_cast<CompoundStmt *>(Body));
    auto Free = [&](StringRef N) {
      if (KeptNames.count(N.str()) || N.starts_with("forge_"))
        return false;
      for (const ParmVarDecl *PD : In.Kernel.parameters())
        if (PD->getName() == N)
          return false;
      // Nor a name the stored value refers to (a global, a function).
      return !Referenced.count(N.str());
    };
    std::string Found[2];
    for (const VarDecl *V : L.Vars) {
      if (!V->getInit() || !V->getType()->isIntegerType() || isModified(V, Body))
        continue;
      an::IndexForm F = Sub(M.formOf(V->getInit()));
      for (int D = 0; D < 2; ++D)
        if (Found[D].empty() && F == (D == 0 ? X : Y) && Free(V->getName()))
          Found[D] = V->getNameAsString();
    }
    // Over tile rows the kernel's `y` is the row without the loop's part:
    // a position is not named after a local that holds something else.
    auto FreshName = [&](StringRef N) {
      return Free(N) && !(Rows && any_of(L.Vars, [&](const VarDecl *V) {
                            return V->getName() == N;
                          }));
    };
    std::string XName0 = !Found[0].empty() ? Found[0] : (FreshName("x") ? "x" : "forge_x");
    XName = XName0;
    YName = !Found[1].empty() && Found[1] != XName ? Found[1]
            : FreshName("y") && XName != "y"      ? "y"
                                                  : "forge_y";
  }
  FormRenderer Rd(T);
  Rd.name(XA, XName);
  Rd.name(YA, YName);
  std::vector<std::string> GuardText;
  for (const GuardCmp &Tm : Cmps) {
    auto Text = Rd.render(Tm.L, Tm.Op, Tm.Rt);
    if (!Text)
      return notApplicable("the guard '" + T.render({Tm.L, Tm.Op, Tm.Rt}) +
                           "' cannot be written over the tile: " + Rd.Why);
    if (!is_contained(GuardText, *Text))
      GuardText.push_back(*Text);
  }
  auto RIdx = Rd.render(RF), WIdx = Rd.render(WF);
  FormRenderer Plain(T);
  auto EX = Plain.render(*ExtX), EY = Plain.render(*ExtY);
  if (!EY && Flat) // ceil(E / d)
    EY = renderForm(*ExtY, T, /*Wide=*/true);
  if (!RIdx || !WIdx || !EX || !EY)
    return notApplicable("the indices cannot be written over the tile: " +
                         (Rd.Why.empty() ? Plain.Why : Rd.Why));
  auto LoadOf = [&](const std::string &Idx) {
    std::string Text = InP->getNameAsString() + "[" + Idx + "]";
    return R.Callee.empty() ? Text : R.Callee + "(&" + Text + ")";
  };
  auto StoreOf = [&](const std::string &Idx, const std::string &Elem) {
    return OutP->getNameAsString() + "[" + Idx + "] = " + *ValueWith(Elem) + ";";
  };

  // The fast path's indices: an index affine in the positions is its value
  // at the thread's first element of the tile plus a step per row of
  // threads (its coefficient along the position that is not the lanes'
  // one; the lanes' one is 1, or -1 where the index runs backwards).
  FormRenderer First(T);
  First.name(XA, "forge_px");
  First.name(YA, "forge_py");
  auto RowStep = [&](const an::IndexForm &F, an::AtomId Rows) -> std::optional<std::string> {
    auto CX = F.coefficientOf(XA), CY = F.coefficientOf(YA);
    if (!CX || !CY)
      return std::nullopt;
    an::IndexForm Rest = F - *CX * X - *CY * Y;
    for (const an::IndexForm *G : {&*CX, &*CY, &Rest})
      if (T.dependsOn(*G, XA) || T.dependsOn(*G, YA))
        return std::nullopt;
    return Plain.render(Rows == XA ? *CX : *CY);
  };
  an::AtomId LoadRows = LoadAlongX ? YA : XA, StoreRows = LoadAlongX ? XA : YA;
  auto RStep = RowStep(RF, LoadRows), WStep = RowStep(WF, StoreRows);
  auto RFirst = First.render(RF), WFirst = First.render(WF);
  bool HaveFast = RStep && WStep && RFirst && WFirst;
  // The corner of the tile where a guard term is tightest: the term holds
  // on the whole tile when it holds there (affine with constant
  // coefficients on the positions).
  an::AtomId X0A = T.symbol(an::AtomKind::Param, nullptr, "forge_x0", "transpose-tile:x0");
  an::AtomId Y0A = T.symbol(an::AtomKind::Param, nullptr, "forge_y0", "transpose-tile:y0");
  FormRenderer Corner(T);
  Corner.name(X0A, "forge_x0");
  Corner.name(Y0A, "forge_y0");
  // The sign of a coefficient: a constant's, or a flat transpose's divisor
  // d (positive on every tile: there are tiles only where d > 0).
  auto SignOf = [&](const an::IndexForm &C) -> std::optional<int64_t> {
    if (auto V = C.constantValue())
      return *V;
    if (Flat && C == FlatD)
      return 1;
    if (Flat && C == -FlatD)
      return -1;
    return std::nullopt;
  };
  auto FullTest = [&](int S) -> std::optional<std::string> {
    std::vector<std::string> Terms;
    for (const GuardCmp &Tm : Cmps) {
      const an::IndexForm &L = Tm.L, &Rt = Tm.Rt;
      an::IndexForm D;
      if (Tm.Op == an::CmpOp::LT || Tm.Op == an::CmpOp::LE)
        D = Rt - L;
      else if (Tm.Op == an::CmpOp::GT || Tm.Op == an::CmpOp::GE)
        D = L - Rt;
      else
        return std::nullopt;
      auto CX = D.coefficientOf(XA), CY = D.coefficientOf(YA);
      std::optional<int64_t> SgX = CX ? SignOf(*CX) : std::nullopt,
                             SgY = CY ? SignOf(*CY) : std::nullopt;
      if (!SgX || !SgY || T.dependsOn(D - *CX * X - *CY * Y, XA) ||
          T.dependsOn(D - *CX * X - *CY * Y, YA))
        return std::nullopt;
      auto At = [&](const an::IndexForm &F) {
        return T.substitute(F, [&](an::AtomId A) -> std::optional<an::IndexForm> {
          if (A == XA)
            return an::IndexForm::atom(X0A) + an::IndexForm::constant(*SgX < 0 ? S - 1 : 0);
          if (A == YA)
            return an::IndexForm::atom(Y0A) + an::IndexForm::constant(*SgY < 0 ? S - 1 : 0);
          return std::nullopt;
        });
      };
      auto Text = Corner.render(At(L), Tm.Op, At(Rt));
      if (!Text)
        return std::nullopt;
      if (!is_contained(Terms, *Text))
        Terms.push_back(*Text);
    }
    return join(Terms, " && ");
  };

  // Shared memory, and where the new body goes.
  std::string Type = typeSpelling(TileType, Ctx);
  uint64_t ElemBytes = TileType->isDependentType() ? 0 : Ctx.getTypeSize(TileType) / 8;
  uint64_t Limit = uint64_t(In.Target.limits().StaticSharedMemPerBlock);
  auto LB = C.offsetOf(Body->getLBracLoc()), RB = C.offsetOf(Body->getRBracLoc());
  if (!LB || !RB)
    return notApplicable("the kernel's body is written through a macro");
  std::string Ind = "  ";
  if (!Body->body_empty())
    if (auto O = C.offsetOf(Body->body_front()->getBeginLoc()))
      Ind = lineIndent(In.Source, *O).str();
  std::string Fast = LoadAlongX ? XName : YName, Slow = LoadAlongX ? YName : XName;
  std::string InName = InP->getNameAsString(), OutName = OutP->getNameAsString();
  std::string Cond = join(GuardText, " && ");
  const agent::ProposalRequest &Req = In.Request;
  // The accesses whose index runs backwards along its lanes' position (the
  // same tile; the lanes' addresses descend): the buffer, the position and
  // whether it is the load.
  std::vector<std::tuple<std::string, std::string, bool>> Backwards;
  if (RSign < 0)
    Backwards.emplace_back(InName, Fast, true);
  if (WSign < 0)
    Backwards.emplace_back(OutName, Slow, false);

  // One proposal per tile side S: the body, the grid and the words.
  auto Variant = [&](int S) -> RuleOutcome {
    uint64_t Bytes = uint64_t(S) * (S + 1) * ElemBytes;
    if (Bytes > Limit)
      return notApplicable(formatv("the {0} x {0} tile needs {1} bytes of shared memory, more "
                                   "than the {2} bytes of static shared memory a block may "
                                   "have on {3}",
                                   S, Bytes, Limit, In.Target.Name)
                               .str());
    // The fast path's block: 32 lanes along the tile's rows and RowsB rows
    // of threads, each thread moving S / RowsB rows (and S / 32 elements of
    // each). The request's block when it is such a block, else 32 x 8.
    // A flat transpose's 1D block of N threads is 32 x N / 32: lane
    // threadIdx.x % 32, row threadIdx.x / 32.
    int RowsB = 8;
    auto RowsOk = [&](int64_t BY) {
      return BY > 0 && (BY & (BY - 1)) == 0 && BY <= S && (S / BY) * (S / 32) <= 16;
    };
    bool UseFast = HaveFast;
    if (Flat) {
      if (Req.Block && (*Req.Block)[0] % 32 == 0 && (*Req.Block)[1] == 1 &&
          (*Req.Block)[2] == 1 && RowsOk((*Req.Block)[0] / 32))
        RowsB = int((*Req.Block)[0] / 32);
      // A flat index written with a constant block stride fixes the block.
      if (auto CX = SX.constantValue()) {
        if (*CX % 32 == 0 && RowsOk(*CX / 32))
          RowsB = int(*CX / 32);
        else
          UseFast = false;
      }
    } else {
      if (Req.Block && (*Req.Block)[0] == 32 && (*Req.Block)[2] == 1 && RowsOk((*Req.Block)[1]))
        RowsB = int((*Req.Block)[1]);
      // Positions written with a constant block stride fix the block: the
      // fast path only where that block is one.
      if (auto CX = SX.constantValue(); CX && *CX != 32)
        UseFast = false;
      if (auto CY = DimY.constantValue()) {
        if (RowsOk(*CY))
          RowsB = int(*CY);
        else
          UseFast = false;
      }
    }
    std::string LaneV = Flat ? "forge_lane" : "threadIdx.x", RowV = Flat ? "forge_row" : "threadIdx.y";
    int PerRow = S / RowsB, PerLane = S / 32;
    std::optional<std::string> Full = FullTest(S);

    std::vector<std::string> L;
    auto Add = [&](unsigned Depth, const std::string &Text) {
      std::string Pad = Ind;
      for (unsigned I = 0; I < Depth; ++I)
        Pad += "  ";
      L.push_back(Pad + Text);
    };
    Add(0, formatv("// transpose-tile: '{0}' reaches '{1}' through {2} x {2} tiles in shared "
                   "memory. A",
                   InName, OutName, S)
               .str());
    Add(0, formatv("// tile is loaded along {0} (coalesced reads of '{1}') and stored along {2}",
                   Fast, InName, Slow)
               .str());
    Add(0, formatv("// (coalesced writes of '{0}'); the padding column keeps its column reads "
                   "free of",
                   OutName)
               .str());
    if (Flat) {
      if (FlatLoop)
        Add(0, "// bank conflicts. The kernel's grid-stride loop over t = " +
                   T.render(*FlatLoop->Start) + " visits");
      else
        Add(0, "// bank conflicts. The kernel's flat index t = " + T.render(FlatN) + " is");
      Add(0, "// the element" + std::string(FlatLoop ? "s" : "") + " (t / " + T.render(FlatD) +
                 ", t % " + T.render(FlatD) +
                 "); the blocks of the 1D grid take the tiles in turn, so");
      Add(0, "// any grid works (blocks beyond the last tile have none).");
    } else {
      Add(0, "// bank conflicts. Blocks stride over the tiles, so any grid works.");
    }
    for (const auto &[Name, Along, IsLoad] : Backwards) {
      Add(0, formatv("// '{0}' runs backwards along {1}: its lanes {2} consecutive elements "
                     "downwards, still",
                     Name, Along, IsLoad ? "read" : "write")
                 .str());
      Add(0, "// one segment per warp.");
    }
    if (Rows) {
      Add(0, formatv("// The kernel's blocks each covered {0} x {1} elements (its loop over '{2}' "
                     "walked the",
                     T.render(SX), T.render(SY), Rows->L->Var)
                 .str());
      Add(0, "// rows), so its grid is its extent: " +
                 join(ArrayRef(GuardText).take_front(2), " && ") + ".");
    }
    if (UseFast && Flat) {
      Add(0, formatv("// A block of {0} threads (32 x {1}) moves {2} elements per thread and "
                     "phase, unrolled, with the",
                     32 * RowsB, RowsB, PerRow * PerLane)
                 .str());
      Add(0, "// indices hoisted (and no guard on the tiles inside the bounds); other blocks "
             "stride");
      Add(0, "// over the tile's elements.");
    } else if (UseFast) {
      Add(0, formatv("// A 32 x {0} block moves {1} elements per thread and phase, unrolled, "
                     "with the",
                     RowsB, PerRow * PerLane)
                 .str());
      Add(0, "// indices hoisted (and no guard on the tiles inside the bounds); other blocks "
             "stride");
      Add(0, "// over the tile's elements.");
    } else {
      Add(0, "// Threads stride over a tile's elements, so any block shape works.");
    }
    if (!FixedDims.empty()) {
      // The original body, as it was, for the blocks its positions do not
      // describe (the condition is the same for the whole grid).
      Add(0, std::string(Flat ? "// The kernel's flat index assumes " : "// The kernel's positions assume ") + join(Assumed, " and ") +
                 "; with another block it runs as written.");
      Add(0, "if (" + join(FixedDims, " || ") + ") {");
      StringRef Orig = In.Source.slice(*LB + 1, *RB);
      SmallVector<StringRef, 16> OrigLines;
      Orig.split(OrigLines, '\n');
      for (StringRef Ln : OrigLines)
        if (!Ln.trim().empty())
          L.push_back("  " + Ln.rtrim().str());
      Add(1, "return;");
      Add(0, "}");
    }
    for (const DeclStmt *DS : Kept) {
      auto Rg = C.rangeOfStatement(DS);
      if (!Rg)
        return notApplicable("the declaration '" + textOf(DS, Ctx) +
                             "' is written through a macro");
      Add(0, In.Source.slice(Rg->first, Rg->second).str());
    }
    Add(0, formatv("__shared__ {0} forge_tile[{1}][{1} + 1];", Type, S).str());
    Add(0, "const unsigned forge_t = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + "
           "threadIdx.x;");
    Add(0, "const unsigned forge_threads = blockDim.x * blockDim.y * blockDim.z;");
    if (UseFast && Flat) {
      Add(0, formatv("const bool forge_fast = blockDim.x == {0} && blockDim.y == 1 && "
                     "blockDim.z == 1;",
                     32 * RowsB)
                 .str());
      Add(0, "const unsigned forge_lane = threadIdx.x % 32, forge_row = threadIdx.x / 32;");
    } else if (UseFast) {
      Add(0, formatv("const bool forge_fast = blockDim.x == 32 && blockDim.y == {0} && "
                     "blockDim.z == 1;",
                     RowsB)
                 .str());
    }
    // The tiles' loops; B: the depth of their body.
    unsigned B = 2;
    if (Flat) {
      // One loop over the tiles, numbered along the rows; none when d <= 0.
      B = 1;
      Add(0, formatv("const long long forge_tiles_x = ({1} + {0}LL) / {2}, forge_tiles_y = "
                     "({3} + {0}LL) / {2};",
                     S - 1, *EX, S, *EY)
                 .str());
      Add(0, "const long long forge_tiles = forge_tiles_x > 0 && forge_tiles_y > 0 ? "
             "forge_tiles_x * forge_tiles_y : 0;");
      Add(0, "for (long long forge_k = blockIdx.x; forge_k < forge_tiles; forge_k += "
             "gridDim.x) {");
      Add(1, formatv("const long long forge_x0 = {0} * (forge_k % forge_tiles_x), forge_y0 = "
                     "{0} * (forge_k / forge_tiles_x);",
                     S)
                 .str());
    } else {
      Add(0, formatv("for (long long forge_y0 = {0} * (long long)blockIdx.y; forge_y0 < {1}; "
                     "forge_y0 += {0} * (long long)gridDim.y) {{",
                     S, *EY)
                 .str());
      Add(1, formatv("for (long long forge_x0 = {0} * (long long)blockIdx.x; forge_x0 < {1}; "
                     "forge_x0 += {0} * (long long)gridDim.x) {{",
                     S, *EX)
                 .str());
    }
    if (UseFast && Full)
      Add(B, "const bool forge_full = " + *Full + ";");
    // The generic phase: the block's threads stride over the tile's
    // elements e; e % S runs along the position contiguous in the access.
    auto Generic = [&](unsigned D, bool IsLoad) {
      std::string Along = formatv("forge_e % {0}", S).str(), Across = formatv("forge_e / {0}", S).str();
      bool LanesAlongX = LoadAlongX == IsLoad;
      Add(D, "#pragma unroll 4");
      Add(D, formatv("for (unsigned forge_e = forge_t; forge_e < {0} * {0}; forge_e += "
                     "forge_threads) {{",
                     S)
                 .str());
      Add(D + 1, formatv("const long long {0} = forge_x0 + {1}, {2} = forge_y0 + {3};", XName,
                         LanesAlongX ? Along : Across, YName, LanesAlongX ? Across : Along)
                     .str());
      Add(D + 1, "if (" + Cond + ")");
      if (IsLoad)
        Add(D + 2, "forge_tile[" + Across + "][" + Along + "] = " + LoadOf(*RIdx) + ";");
      else
        Add(D + 2, StoreOf(*WIdx, "forge_tile[" + Along + "][" + Across + "]"));
      Add(D, "}");
    };
    // The fast phase: lane threadIdx.x takes the elements threadIdx.x + 32 c
    // of rows threadIdx.y + RowsB r of the tile, along the access's
    // contiguous position.
    auto FastPhase = [&](unsigned D, bool IsLoad) {
      bool LanesAlongX = LoadAlongX == IsLoad;
      std::string Lane = PerLane > 1 ? LaneV + " + 32 * forge_c" : LaneV;
      std::string Row = formatv("{1} + {0} * forge_r", RowsB, RowV).str();
      // The lanes' 32 c further along the position are 32 c elements on in
      // the index, or back where it runs backwards.
      std::string Idx = formatv("forge_at + {0} * forge_r * forge_step", RowsB).str() +
                        (PerLane == 1 ? ""
                         : (IsLoad ? RSign : WSign) < 0 ? " - 32 * forge_c"
                                                        : " + 32 * forge_c");
      std::string Elem = IsLoad ? "forge_tile[" + Row + "][" + Lane + "] = " + LoadOf(Idx) + ";"
                                : StoreOf(Idx, "forge_tile[" + Lane + "][" + Row + "]");
      Add(D, formatv("const long long forge_px = forge_x0 + {0}, forge_py = forge_y0 + {1};",
                     LanesAlongX ? LaneV : RowV, LanesAlongX ? RowV : LaneV)
                 .str());
      Add(D, "const long long forge_at = " + *(IsLoad ? RFirst : WFirst) +
                     ", forge_step = " + *(IsLoad ? RStep : WStep) + ";");
      auto Loops = [&](unsigned D, bool Guarded) {
        Add(D, "#pragma unroll");
        Add(D, formatv("for (int forge_r = 0; forge_r < {0}; ++forge_r) {{", PerRow).str());
        unsigned Inner = D + 1;
        if (PerLane > 1) {
          Add(Inner, "#pragma unroll");
          Add(Inner, formatv("for (int forge_c = 0; forge_c < {0}; ++forge_c) {{", PerLane).str());
          ++Inner;
        }
        if (Guarded) {
          std::string LaneOff = PerLane > 1 ? " + 32 * forge_c" : "";
          std::string RowOff = formatv(" + {0} * forge_r", RowsB).str();
          Add(Inner, formatv("const long long {0} = forge_px{1}, {2} = forge_py{3};", XName,
                          LanesAlongX ? LaneOff : RowOff, YName,
                          LanesAlongX ? RowOff : LaneOff)
                      .str());
          Add(Inner, "if (" + Cond + ")");
          Add(Inner + 1, Elem);
        } else {
          Add(Inner, Elem);
        }
        if (PerLane > 1)
          Add(D + 1, "}");
        Add(D, "}");
      };
      if (Full) {
        Add(D, "if (forge_full) {");
        Loops(D + 1, /*Guarded=*/false);
        Add(D, "} else {");
        Loops(D + 1, /*Guarded=*/true);
        Add(D, "}");
      } else {
        Loops(D, /*Guarded=*/true);
      }
    };
    for (bool IsLoad : {true, false}) {
      if (UseFast) {
        Add(B, "if (forge_fast) {");
        FastPhase(B + 1, IsLoad);
        Add(B, "} else {");
        Generic(B + 1, IsLoad);
        Add(B, "}");
      } else {
        Generic(B, IsLoad);
      }
      Add(B, "__syncthreads();");
    }
    if (!Flat)
      Add(1, "}");
    Add(0, "}");
    EditCollector Ed(In);
    unsigned From = *LB + 1;
    // The blanks before the closing brace stay (nothing when code precedes it).
    StringRef Before = In.Source.slice(lineStart(In.Source, *RB), *RB);
    std::string Closing = Before.trim().empty() ? Before.str() : "";
    Ed.add({From, *RB - From, "\n" + join(L, "\n") + "\n" + Closing});

    // The grid: one tile per block.
    std::optional<agent::SpecChange> Spec;
    std::string GridNote;
    auto GX = Req.Geometry.find("grid.x"), GY = Req.Geometry.find("grid.y");
    if (Rows) {
      GridNote = " Each block of the kernel covered the " + T.render(SX) + " x " +
                 T.render(SY) + " elements its loop over '" + Rows->L->Var +
                 "' walked, so the grid is the kernel's extent (" +
                 join(ArrayRef(GuardText).take_front(2), ", ") +
                 ") and stays as it is; blocks beyond the tiles find no work.";
      if (!FixedDims.empty())
        GridNote += " The kernel assumes " + join(Assumed, " and ") +
                    ", so other blocks run the original body (checked on the device).";
    } else if (!FixedDims.empty()) {
      GridNote = " The kernel's positions assume " + join(Assumed, " and ") +
                 ", so other blocks run the original body (checked on the device), and the "
                 "grid stays as it is, which that body needs.";
    } else if (Flat) {
      GridNote = " The 1D launch stays 1D: its blocks take the tiles in turn (a block-stride "
                 "loop over the tiles), and blocks beyond the last tile return at once.";
      // One block per tile: the original grid covered one element per
      // thread, a tile has S * S of them. Any grid is correct.
      if (Req.Block && GX != Req.Geometry.end()) {
        int64_t Threads = (*Req.Block)[0] * (*Req.Block)[1] * (*Req.Block)[2];
        std::string NX = formatv("ceil_div(({0}) * {1}, {2})", GX->second, Threads, S * S).str();
        if (auto Parsed = measure::IntExpr::parse(NX)) {
          agent::SpecChange SC;
          SC.Geometry["grid.x"] = NX;
          SC.Justification =
              formatv("the tiled kernel's blocks walk the {0} x {0} tiles in a block-stride "
                      "loop, so it is correct for any grid; the original grid had a thread per "
                      "element ({1} per block), so about one block per tile is the grid "
                      "divided by {0} x {0} / {1}",
                      S, Threads)
                  .str();
          Spec = std::move(SC);
          GridNote += " The grid is shrunk to about one block per tile (blocks that find no "
                      "tile cost a launch slot each).";
        } else {
          consumeError(Parsed.takeError());
        }
      }
    } else if (Req.Block && GX != Req.Geometry.end() && GY != Req.Geometry.end()) {
      int64_t BX = (*Req.Block)[0], BY = (*Req.Block)[1];
      agent::SpecChange SC;
      auto Scaled = [&](const std::string &G, int64_t B) {
        return B == S ? G : formatv("ceil_div(({0}) * {1}, {2})", G, B, S).str();
      };
      std::string NX = Scaled(GX->second, BX), NY = Scaled(GY->second, BY);
      bool Ok = true;
      for (const std::string &E : {NX, NY})
        if (auto Parsed = measure::IntExpr::parse(E); !Parsed) {
          consumeError(Parsed.takeError());
          Ok = false;
        }
      if (Ok && BX != S)
        SC.Geometry["grid.x"] = NX;
      if (Ok && BY != S)
        SC.Geometry["grid.y"] = NY;
      if (!SC.Geometry.empty()) {
        SC.Justification =
            formatv("the tiled kernel walks {2} x {2} tiles with a grid stride, so it is "
                    "correct for any grid; a {0} x {1} block covered {0} x {1} elements, so one "
                    "tile per block scales the grid by {0}/{2} along x and {1}/{2} along y",
                    BX, BY, S)
                .str();
        Spec = std::move(SC);
      }
    } else {
      GridNote = " No spec geometry is known, so the grid stays as it is: correct, but blocks "
                 "beyond the tiles find no work unless the block covers a whole tile.";
    }
    std::string FastNote =
        UseFast ? formatv(" With a {3} block (checked on the device) each thread moves "
                           "{1} elements per phase in an unrolled loop, its indices computed "
                           "once per tile plus a step per row{2}; other blocks take the "
                           "generic loop.",
                           RowsB, PerRow * PerLane,
                           Full ? ", and tiles inside the bounds skip the guard" : "",
                           Flat ? formatv("1D {0}-thread (32 x {1})", 32 * RowsB, RowsB).str()
                                : formatv("32 x {0}", RowsB).str())
                       .str()
                 : std::string(" The indices are not affine in the positions, so every block "
                               "takes the generic loop.");
    std::string BackwardsNote;
    for (const auto &[Name, Along, IsLoad] : Backwards)
      BackwardsNote += formatv(" The index of '{0}' runs backwards along {1} (coefficient -1): "
                               "the tile is {2} with the lanes' addresses descending, still one "
                               "segment per warp.",
                               Name, Along, IsLoad ? "read" : "written")
                           .str();
    auto WarpWords = [](const an::Access &A) {
      auto St = A.Warp.constantStride();
      return St == 1    ? std::string("coalesced")
             : St == -1 ? std::string("coalesced, descending")
                        : "strided by " + A.Warp.StrideText;
    };
    std::string Rationale =
        formatv("The naive transpose {0} = {1} makes one of its two accesses with the lanes of "
                "a warp a row apart (load {2}, store {3}): a memory transaction per lane. "
                "Through a {9} x {10} tile in shared memory{4}, the block reads {9} x {9} "
                "elements of '{5}' along their rows and writes them to '{6}' along its rows, "
                "so both sides move whole lines; the padding column makes the column reads of "
                "the tile conflict-free.{12} The threads of a block stride over the tile's "
                "elements and the blocks over the tiles, so the rewrite is correct for any "
                "block shape and any grid.{11} Each element is loaded and stored under the "
                "original guard ({7}) and the stored value is the original expression of the "
                "loaded element, so the results are bitwise identical.{8}",
                W.Text, R.Text,
                WarpWords(R), WarpWords(W),
                Bytes ? formatv(" ({0} bytes)", Bytes).str() : std::string(), InName, OutName,
                Flat   ? Cond + ", over the flat index's row and column"
                : Rows ? Cond + (W.G.empty() ? ": the grid's extent"
                                             : ": the grid's extent, then the kernel's own")
                       : W.G.render(),
                GridNote,
                S, S + 1, FastNote, BackwardsNote)
            .str();
    return proposeEdits(In, name(),
                        formatv("transpose '{0}' into '{1}' through a {2} x {2} shared-memory "
                                "tile",
                                InName, OutName, S)
                            .str(),
                        Rationale, Ed.edits(), std::move(Spec));
  };

  // 32 x 32 first; 64 x 64 (more bytes in flight per block) for elements of
  // a known size up to 8 bytes whose tile fits.
  RuleOutcome Out = Variant(TileSide);
  if (Out.Proposals.empty())
    return Out;
  if (ElemBytes && ElemBytes <= 8) {
    RuleOutcome Big = Variant(2 * TileSide);
    for (agent::Proposal &P : Big.Proposals)
      Out.Proposals.push_back(std::move(P));
  }
  return Out;
}

} // namespace

std::unique_ptr<ExpertRule> createTransposeTileRule() {
  return std::make_unique<TransposeTileRule>();
}

} // namespace forge::passes
