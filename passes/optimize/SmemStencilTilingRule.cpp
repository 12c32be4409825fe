//===- passes/optimize/SmemStencilTilingRule.cpp - smem-stencil-tiling ----===//
///
/// \file
/// A naive stencil or convolution reads each input element once per output
/// that needs it (25 times for a 5 x 5 filter). The rule takes the stencils
/// the kernel model recognises (analysis::PatternKind::Stencil with a
/// bounded Footprint: offsets per dimension, 1D to 3D, explicit neighbours
/// or loops, clamped, guarded or interior borders, a template radius) and
/// stages the block's input tile with its halo in shared memory: all
/// threads load it cooperatively at the top of the kernel, reproducing the
/// original's border handling (the same clamps; zero where the original's
/// own bounds say nothing exists), then each read becomes the tile element
/// that holds the same value. Nothing else changes, so the arithmetic and
/// its order are the original's and the results are bitwise identical.
///
/// The tile is sized for the spec's block; a device-side check of blockDim
/// runs the original body for any other block. A second proposal gives
/// each thread several outputs along its slowest dimension (rows for 2D),
/// with the grid divided accordingly (docs/passes/smem-stencil-tiling.md).
///
//===----------------------------------------------------------------------===//
#include "CoefficientStaging.h"
#include "FormCode.h"
#include "RuleAst.h"
#include "StencilPlan.h"
#include "RuleUtil.h"
#include "Rules.h"
#include "forge/Analysis/KernelModel.h"
#include "forge/Frontend/CudaBuiltins.h"
#include "forge/Frontend/KernelFacts.h"
#include "forge/Measure/IntExpr.h"
#include "forge/Measure/LaunchSpec.h"
#include "forge/Support/Error.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include <map>
#include <set>

using namespace clang;
using namespace llvm;

namespace forge::passes {
namespace {

using namespace stencil;

//===----------------------------------------------------------------------===//
// Writing the code
//===----------------------------------------------------------------------===//

/// The rows of a warp share no bank for 4-byte elements when the row
/// stride is chosen so: the smallest stride >= Width (within 32 more) for
/// which the 32 lanes of the first warp, at their tile positions, touch the
/// fewest 4-byte words per bank.
int64_t paddedRow(int64_t Width, uint64_t ElemBytes, const std::array<int64_t, 3> &Block,
                  int64_t RowsPerThreadRow, int64_t Rows) {
  if (ElemBytes == 0 || ElemBytes % 4 || Block[0] >= 32)
    return Width;
  int64_t Best = Width;
  unsigned BestDegree = ~0u;
  for (int64_t S = Width; S < Width + 33; ++S) {
    std::map<int64_t, std::set<int64_t>> Banks;
    for (int64_t L = 0; L < 32; ++L) {
      int64_t X = L % Block[0], Y = (L / Block[0]) % Block[1], Z = L / (Block[0] * Block[1]);
      int64_t Word = ((Z * Rows + Y * RowsPerThreadRow) * S + X) * int64_t(ElemBytes / 4);
      for (int64_t W = 0; W < int64_t(ElemBytes / 4); ++W)
        Banks[(Word + W) % 32].insert(Word + W);
    }
    unsigned Degree = 0;
    for (const auto &[B, Words] : Banks)
      Degree = std::max(Degree, unsigned(Words.size()));
    if (Degree < BestDegree) {
      BestDegree = Degree;
      Best = S;
    }
  }
  return Best;
}

class StencilTilingRule : public ExpertRule {
public:
  StringRef name() const override { return "smem-stencil-tiling"; }
  RuleOutcome propose(const RuleInput &In) override;
};

/// The sizes of a tile, as forms and as text.
struct TileShape {
  std::vector<IndexForm> Extent; ///< per dimension, dimension 0 first
  IndexForm Total;
  std::vector<std::string> ExtentText;
  std::string TotalText;
  /// Dimension 0's declared length (padded against bank conflicts).
  std::string RowText;
  IndexForm Row;
  /// The declared extents, dimension 0 first: Extent, or for an extent that
  /// depends on a kernel parameter (a mask width passed at run time) the
  /// extent at the largest halo the tile holds, MaxHalo.
  std::vector<IndexForm> Declared;
  std::vector<std::string> DeclaredText;
  /// Per dimension, the halo (Hi - Lo) when it is a run-time value: the
  /// tiled path runs only while 0 <= halo <= MaxHalo.
  std::vector<std::optional<IndexForm>> RuntimeHalo;
  bool runtime() const {
    return llvm::any_of(RuntimeHalo, [](const auto &H) { return H.has_value(); });
  }
  /// The elements the declared tile holds.
  IndexForm declaredTotal() const {
    IndexForm F = Row;
    for (size_t D = 1; D < Declared.size(); ++D)
      F = F * Declared[D];
    return F;
  }
};

/// The largest halo (the footprint's extent less one) a tile holds along a
/// dimension whose extent is a kernel parameter: masks up to 17 wide (or
/// the spec's value, when larger) take the tiled path, wider ones run the
/// original code.
constexpr int64_t DefaultMaxHalo = 16;

/// Writes one proposal: the fallback, the tiles and their loader, and the
/// body reading from the tiles; K > 1 runs the body K times per thread
/// along KDim.
class Writer {
public:
  Writer(const RuleInput &In, an::KernelModel &M, std::vector<TilePlan> &Plans,
         std::array<int64_t, 3> Block, const CompoundStmt *Body)
      : In(In), M(M), Plans(Plans), Block(Block), Body(Body), FP(M.atoms()) {}

  /// Rows per thread along one thread dimension.
  void coarsen(int64_t Rows, char Dim) {
    K = Rows;
    KDim = Dim;
  }
  /// Coefficient buffers to stage as well (the tiled path only).
  void stageCoefficients(CoefficientPlan C) { Coefs = std::move(C); }
  /// The largest run-time halo the tiles hold.
  void maxHalo(int64_t H) { MaxHalo = H; }
  const CoefficientPlan &coefficients() const { return Coefs; }
  /// The new body text (between the braces) or why not.
  Expected<std::string> write(uint64_t &SharedBytes);
  std::vector<TileShape> Shapes;
  std::vector<std::string> Tiles;

private:
  int64_t threads() const { return Block[0] * Block[1] * Block[2]; }
  /// threadIdx.Dim, or the row it computes in the coarsened body; Generic
  /// (the fallback, for any block) steps by blockDim instead of the spec's.
  std::string threadIdx(char Dim, bool Generic = false) const {
    std::string S = std::string("threadIdx.") + Dim;
    if (K > 1 && Dim == KDim) {
      if (Generic)
        return formatv("({0} + {1} * blockDim.{2})", S, KVar, Dim).str();
      return formatv("({0} + {1} * {2})", S, KVar, Block[Dim - 'x']).str();
    }
    return S;
  }
  Expected<TileShape> shape(const TilePlan &P);
  Expected<std::string> tileRead(const TilePlan &P, const std::string &Tile, size_t Read);
  Expected<std::string> print(const IndexForm &F, bool Wide) {
    if (auto S = FP.print(F, Wide))
      return *S;
    return makeError("'{0}' cannot be written in the loader: {1}", M.render(F), FP.why());
  }
  std::string fresh(StringRef Base) { return freshName(Base, In.Kernel, Taken); }
  uint64_t elemBytes(const TilePlan &P) const {
    return P.Elem->isDependentType() ? 0 : uint64_t(In.Ctx.getTypeSizeInChars(P.Elem).getQuantity());
  }
  Expected<std::string> loader(std::vector<std::string> &Lines, const std::string &Ind);
  /// The body text with the tile reads (Tiled) and the coarsening remap
  /// applied.
  Expected<std::string> bodyText(bool Tiled);

  const RuleInput &In;
  an::KernelModel &M;
  std::vector<TilePlan> &Plans;
  std::array<int64_t, 3> Block;
  const CompoundStmt *Body;
  FormPrinter FP;
  std::set<std::string> Taken;
  int64_t K = 1;
  char KDim = 0;
  int64_t MaxHalo = DefaultMaxHalo;
  std::string KVar;
  CoefficientPlan Coefs;
  std::vector<SourceEdit> CoefEdits;
};

Expected<TileShape> Writer::shape(const TilePlan &P) {
  TileShape S;
  S.Total = IndexForm::constant(1);
  for (const TileDim &D : P.Dims) {
    int64_t Threads = D.Threads * (D.ThreadDim && D.ThreadDim == KDim ? K : 1);
    IndexForm Halo = D.Hi - D.Lo;
    IndexForm X = IndexForm::constant(Threads) + Halo;
    S.Extent.push_back(X);
    S.Total = S.Total * X;
    auto Text = print(X, false);
    if (!Text)
      return Text.takeError();
    S.ExtentText.push_back(X.isConstant() ? *Text : "(" + *Text + ")");
    if (M.atoms().dependsOnKind(Halo, AtomKind::Param)) {
      S.RuntimeHalo.push_back(Halo);
      S.Declared.push_back(IndexForm::constant(Threads + MaxHalo));
    } else {
      S.RuntimeHalo.push_back(std::nullopt);
      S.Declared.push_back(X);
    }
    auto DT = print(S.Declared.back(), false);
    if (!DT)
      return DT.takeError();
    S.DeclaredText.push_back(S.Declared.back().isConstant() ? *DT : "(" + *DT + ")");
  }
  auto TT = print(S.Total, false);
  if (!TT)
    return TT.takeError();
  S.TotalText = S.Total.isConstant() ? *TT : "(" + *TT + ")";
  S.RowText = S.DeclaredText[0];
  S.Row = S.Declared[0];
  if (auto W = S.Declared[0].constantValue(); W && P.Dims.size() > 1) {
    auto Rows = S.Declared[1].constantValue();
    int64_t Padded = paddedRow(*W, elemBytes(P), Block, 1, Rows ? *Rows : 1);
    S.RowText = std::to_string(Padded);
    S.Row = IndexForm::constant(Padded);
  }
  return S;
}

Expected<std::string> Writer::tileRead(const TilePlan &P, const std::string &Tile, size_t Read) {
  std::string Out = Tile;
  for (size_t D = P.Dims.size(); D-- > 0;) {
    const TileDim &Dim = P.Dims[D];
    auto R = print(P.Offsets[Read][D] - Dim.Lo, false);
    if (!R)
      return R.takeError();
    std::string C = *R;
    if (Dim.ThreadDim) {
      C = threadIdx(Dim.ThreadDim);
      if (*R != "0")
        C += R->front() == '-' ? " - " + R->substr(1) : " + " + *R;
    }
    Out += "[" + C + "]";
  }
  return Out;
}

Expected<std::string> Writer::loader(std::vector<std::string> &Lines, const std::string &Ind) {
  std::string I1 = Ind + "  ", I2 = I1 + "  ", I3 = I2 + "  ";
  auto Add = [&](const std::string &Indent, const std::string &Text) {
    Lines.push_back(Indent + Text);
  };
  int64_t NT = threads();
  // The thread's number in the block.
  std::string Tid = "threadIdx.x";
  if (Block[1] > 1 || Block[2] > 1)
    Tid = formatv("threadIdx.y * {0} + threadIdx.x", Block[0]).str();
  if (Block[2] > 1)
    Tid = formatv("(threadIdx.z * {0} + threadIdx.y) * {1} + threadIdx.x", Block[1], Block[0]).str();
  // The blocks' rows, when each thread computes several.
  if (K > 1)
    if (auto B = M.atoms().findBuiltin("blockIdx", KDim))
      FP.spell(*B, formatv("(long long)blockIdx.{0} * {1}", KDim, K).str(), true);

  struct Loop {
    std::string K, T, V, Iters;
    bool Exact;
    bool Direct = false; ///< stored as loaded (a run-time extent)
  };
  std::vector<Loop> Loops;
  // The element's coordinate along dimension D: the block's origin, the
  // halo's start and the tile position Pos.
  auto Coordinate = [&](const TileDim &Dim, const std::string &Pos) -> Expected<std::string> {
    auto O = print(Dim.Origin + Dim.Lo, true);
    if (!O)
      return O.takeError();
    std::string Rhs = *O == "0" ? Pos : *O + " + " + Pos;
    // "x + t % 20 + -2" reads better as "x + t % 20 - 2".
    if (auto Lo = Dim.Lo.constantValue(); Lo && !(Dim.Origin).isZero()) {
      auto Or = print(Dim.Origin, true);
      if (!Or)
        return Or.takeError();
      Rhs = *Or + " + " + Pos;
      if (*Lo)
        Rhs += (*Lo < 0 ? " - " : " + ") + std::to_string(*Lo < 0 ? -*Lo : *Lo);
    }
    return Rhs;
  };
  for (size_t PI = 0; PI < Plans.size(); ++PI) {
    const TilePlan &P = Plans[PI];
    const TileShape &S = Shapes[PI];
    if (S.runtime()) {
      // A run-time extent: a loop per dimension, the block's threads along
      // each (no division by the run-time row length), each element stored
      // as it is loaded.
      size_t ND = P.Dims.size();
      if (ND > 3)
        return makeError("the tile of '{0}' has more than three dimensions", P.Buffer);
      // The threads along each dimension: all of them along a 1D tile; x
      // along the rows and the rest of the block across them in 2D; x, y, z
      // in 3D. Every element is stored by one thread.
      std::vector<std::pair<std::string, int64_t>> Along(ND);
      if (ND == 1) {
        Along[0] = {Tid, NT};
      } else if (ND == 2) {
        Along[0] = {"threadIdx.x", Block[0]};
        Along[1] = {Block[2] > 1 ? formatv("threadIdx.z * {0} + threadIdx.y", Block[1]).str()
                                 : std::string("threadIdx.y"),
                    Block[1] * Block[2]};
      } else {
        for (size_t D = 0; D < 3; ++D)
          Along[D] = {std::string("threadIdx.") + char('x' + D), Block[D]};
      }
      std::vector<std::string> C(ND), E(ND);
      std::string Indent = I1, Ix;
      for (size_t D = ND; D-- > 0;) {
        C[D] = fresh("c" + std::to_string(D));
        Add(Indent, formatv("for (int {0} = {1}; {0} < {2}; {0} += {3}) {{", C[D],
                            Along[D].first, S.ExtentText[D], Along[D].second)
                        .str());
        Indent += "  ";
        Ix += "[" + C[D] + "]";
      }
      for (size_t D = ND; D-- > 0;) {
        E[D] = fresh("e" + std::to_string(D));
        auto Rhs = Coordinate(P.Dims[D], C[D]);
        if (!Rhs)
          return Rhs.takeError();
        Add(Indent, formatv("long long {0} = {1};", E[D], *Rhs).str());
      }
      auto EL = elementLoad(FP, M, P, E, [&](StringRef B) { return fresh(B); });
      if (!EL)
        return EL.takeError();
      for (const std::string &Decl : EL->Decls)
        Add(Indent, Decl);
      std::string Value = EL->Conds.empty()
                              ? EL->Load
                              : formatv("{0} ? {1} : {2}", join(EL->Conds, " && "), EL->Load,
                                        zeroOf(P.Elem, In.Ctx))
                                    .str();
      Add(Indent, Tiles[PI] + Ix + " = " + Value + ";");
      for (size_t D = 0; D < ND; ++D) {
        Indent.resize(Indent.size() - 2);
        Add(Indent, "}");
      }
      Loop L;
      L.Direct = true;
      Loops.push_back(L);
      continue;
    }
    Loop L;
    L.K = fresh("k");
    L.T = fresh("t");
    L.V = fresh(P.Buffer + "_v");
    auto Total = S.Total.constantValue();
    L.Exact = Total && *Total % NT == 0;
    L.Iters = Total ? std::to_string((*Total + NT - 1) / NT)
                    : formatv("({0} + {1}) / {2}", S.TotalText, NT - 1, NT).str();
    std::string Type = typeSpelling(P.Elem, In.Ctx);
    // zeroOf spells a dependent type by its canonical name.
    std::string Zero = zeroOf(P.Elem, In.Ctx);
    Add(I1, formatv("{0} {1}[{2}];", Type, L.V, L.Iters).str());
    Add("", "#pragma unroll");
    Add(I1, formatv("for (int {0} = 0; {0} < {1}; ++{0}) {{", L.K, L.Iters).str());
    Add(I2, formatv("int {0} = {1} + {2} * {3};", L.T, Tid, L.K, NT).str());
    // The element's coordinates: the block's origin, the tile position, the halo.
    size_t ND = P.Dims.size();
    std::vector<std::string> E(ND);
    for (size_t D = 0; D < ND; ++D)
      E[D] = fresh("e" + std::to_string(D));
    std::vector<std::string> Conds;
    if (!L.Exact)
      Conds.push_back(L.T + " < " + S.TotalText);
    for (size_t D = ND; D-- > 0;) {
      const TileDim &Dim = P.Dims[D];
      std::string C;
      if (ND == 1)
        C = L.T;
      else if (D == 0)
        C = L.T + " % " + S.ExtentText[0];
      else if (D == ND - 1)
        C = L.T + " / " + (D == 1 ? S.ExtentText[0] : S.ExtentText[0] + " / " + S.ExtentText[1]);
      else
        C = L.T + " / " + S.ExtentText[0] + " % " + S.ExtentText[1];
      auto Rhs = Coordinate(Dim, C);
      if (!Rhs)
        return Rhs.takeError();
      Add(I2, formatv("long long {0} = {1};", E[D], *Rhs).str());
    }
    auto EL = elementLoad(FP, M, P, E, [&](StringRef B) { return fresh(B); });
    if (!EL)
      return EL.takeError();
    for (const std::string &Decl : EL->Decls)
      Add(I2, Decl);
    Conds.insert(Conds.end(), EL->Conds.begin(), EL->Conds.end());
    const std::string &Load = EL->Load;
    if (Conds.empty())
      Add(I2, formatv("{0}[{1}] = {2};", L.V, L.K, Load).str());
    else
      Add(I2, formatv("{0}[{1}] = {2} ? {3} : {4};", L.V, L.K, join(Conds, " && "), Load, Zero)
                  .str());
    Add(I1, "}");
    Loops.push_back(L);
  }
  // Then every store, so that a thread's loads are all in flight at once.
  for (size_t PI = 0; PI < Plans.size(); ++PI) {
    const Loop &L = Loops[PI];
    if (L.Direct)
      continue;
    const TileShape &S = Shapes[PI];
    size_t ND = Plans[PI].Dims.size();
    std::string Ix;
    if (ND == 1)
      Ix = "[" + L.T + "]";
    else if (ND == 2)
      Ix = formatv("[{0} / {1}][{0} % {1}]", L.T, S.ExtentText[0]).str();
    else
      Ix = formatv("[{0} / {1} / {2}][{0} / {1} % {2}][{0} % {1}]", L.T, S.ExtentText[0],
                   S.ExtentText[1])
               .str();
    Add("", "#pragma unroll");
    Add(I1, formatv("for (int {0} = 0; {0} < {1}; ++{0}) {{", L.K, L.Iters).str());
    Add(I2, formatv("int {0} = {1} + {2} * {3};", L.T, Tid, L.K, NT).str());
    std::string Store = Tiles[PI] + Ix + " = " + L.V + "[" + L.K + "];";
    if (L.Exact) {
      Add(I2, Store);
    } else {
      Add(I2, formatv("if ({0} < {1})", L.T, S.TotalText).str());
      Add(I3, Store);
    }
    Add(I1, "}");
  }
  return "";
}

Expected<std::string> Writer::bodyText(bool Tiled) {
  EditCollector C(In);
  auto LB = C.offsetOf(Body->getLBracLoc()), RB = C.offsetOf(Body->getRBracLoc());
  if (!LB || !RB)
    return makeError("the kernel's body is written through a macro");
  unsigned Begin = *LB + 1, End = *RB;
  std::vector<std::pair<unsigned, unsigned>> Reads;
  std::vector<SourceEdit> Edits;
  if (Tiled)
    for (size_t PI = 0; PI < Plans.size(); ++PI)
      for (size_t R = 0; R < Plans[PI].Reads.size(); ++R) {
        const an::Access &A = *Plans[PI].Reads[R];
        auto Range = C.rangeOf(A.E->getSourceRange());
        if (!Range)
          return makeError("the read '{0}' (line {1}) is written through a macro", A.Text,
                           A.Loc.Line);
        auto Text = tileRead(Plans[PI], Tiles[PI], R);
        if (!Text)
          return Text.takeError();
        Reads.push_back(*Range);
        Edits.push_back({Range->first, Range->second - Range->first, *Text});
      }
  if (Tiled) {
    if (Error E = unrollEdits(In, M, Coefs.unrollLoops(), Edits))
      return std::move(E);
    Edits.insert(Edits.end(), CoefEdits.begin(), CoefEdits.end());
  }
  if (K > 1) {
    BuiltinFinder B;
    B.TraverseStmt(const_cast<CompoundStmt *>(Body));
    for (const auto &[E, Ref] : B.Found) {
      if (Ref.Dim != KDim || (Ref.Var != "threadIdx" && Ref.Var != "blockIdx"))
        continue;
      auto Range = C.rangeOf(E->getSourceRange());
      if (!Range)
        return makeError("'{0}.{1}' is written through a macro", Ref.Var, KDim);
      if (any_of(Reads, [&](const auto &R) { return Range->first >= R.first && Range->second <= R.second; }))
        continue;
      std::string New = Ref.Var == "threadIdx" ? threadIdx(KDim, /*Generic=*/!Tiled)
                                               : formatv("(blockIdx.{0} * {1})", KDim, K).str();
      Edits.push_back({Range->first, Range->second - Range->first, New});
    }
  }
  for (const SourceEdit &E : Edits)
    if (E.Offset < Begin || E.Offset + E.Length > End)
      return makeError("a read lies outside the kernel's body");
  return applyEdits(In.Source.slice(Begin, End), Begin, Edits);
}

Expected<std::string> Writer::write(uint64_t &SharedBytes) {
  Shapes.clear();
  Tiles.clear();
  if (K > 1)
    KVar = fresh(std::string("k") + KDim);
  SharedBytes = 0;
  for (const TilePlan &P : Plans) {
    auto S = shape(P);
    if (!S)
      return S.takeError();
    Shapes.push_back(*S);
    Tiles.push_back(fresh(P.Buffer + "_tile"));
  }
  EditCollector C(In);
  std::string Ind = "  ";
  if (!Body->body_empty())
    if (auto O = C.offsetOf(Body->body_front()->getBeginLoc()))
      Ind = lineIndent(In.Source, *O).str();
  std::vector<std::string> Lines;
  auto Add = [&](const std::string &Indent, const std::string &Text) {
    Lines.push_back(Indent + Text);
  };

  CoefEdits.clear();
  if (Error E = Coefs.edits(In, M, FP, [&](StringRef B) { return fresh(B); }, CoefEdits))
    return std::move(E);
  auto Original = bodyText(false);
  if (!Original)
    return Original.takeError();
  auto Tiled = bodyText(true);
  if (!Tiled)
    return Tiled.takeError();
  std::string Orig = StringRef(*Original).trim("\n").rtrim().str();
  std::string New = StringRef(*Tiled).trim("\n").rtrim().str();

  // Statements that leave the kernel on a block-uniform condition before
  // anything else (specialize-scalar's test of the spec's values) stay
  // first: the tiles and the hoisted coefficients are loaded only where the
  // original body goes on.
  for (const Stmt *S : leadingUniformExits(Body, In.Kernel)) {
    bool Reads = llvm::any_of(Plans, [&](const TilePlan &P) {
      return llvm::any_of(P.Reads, [&](const an::Access *A) { return A->E && isWithin(A->E, S); });
    });
    auto R = C.rangeOfStatement(S);
    if (Reads || !R)
      break;
    Lines.push_back(Ind + In.Source.slice(R->first, R->second).str());
  }

  // What the comment says.
  std::vector<std::string> Parts;
  for (size_t PI = 0; PI < Plans.size(); ++PI) {
    std::vector<std::string> Ext(Shapes[PI].ExtentText.rbegin(), Shapes[PI].ExtentText.rend());
    Parts.push_back("'" + Plans[PI].Buffer + "' in a " +
                    (Ext.size() == 1 ? Ext[0] + "-element" : join(Ext, " x ")) + " tile");
  }
  std::string BlockText = formatv("{0} x {1} x {2}", Block[0], Block[1], Block[2]).str();
  Add(Ind, "// smem-stencil-tiling: " + join(Parts, ", ") + " of shared memory: the " +
               (K > 1 ? formatv("{0} x {1}", K, BlockText).str() : BlockText) +
               " block's outputs and their halo,");
  Add(Ind, "// loaded once by all threads, then read by the original code" +
               std::string(K > 1 ? formatv(", {0} {1}-rows per thread.", K, KDim).str() : ".") +
               " Another block shape runs");
  Add(Ind, "// the original code.");
  std::string Check = formatv("blockDim.x != {0} || blockDim.y != {1} || blockDim.z != {2}",
                              Block[0], Block[1], Block[2])
                          .str();
  // A halo given at run time: the tiled path holds up to MaxHalo.
  std::set<std::string> HaloTests;
  for (const TileShape &S : Shapes)
    for (const std::optional<IndexForm> &H : S.RuntimeHalo)
      if (H) {
        auto HT = print(*H, false);
        if (!HT)
          return HT.takeError();
        std::string T = HT->find(' ') == std::string::npos ? *HT : "(" + *HT + ")";
        HaloTests.insert(formatv("{0} < 0 || {0} > {1}", T, MaxHalo).str());
      }
  for (const std::string &T : HaloTests)
    Check += " || " + T;
  if (!HaloTests.empty())
    Add(Ind, formatv("// The tile holds a halo of up to {0} elements: a wider mask runs the "
                     "original code too.",
                     MaxHalo)
                 .str());
  Add(Ind, "if (" + Check + ") {");
  auto Rows = [&](const std::string &Text, const std::string &Indent) {
    Add(Ind + "#pragma unroll", "");
    Lines.back() = Indent + "#pragma unroll";
    Add(Indent, formatv("for (int {0} = 0; {0} < {1}; ++{0})", KVar, K).str());
    Add(Indent + "  ", "[&]() {");
    Lines.push_back(indentBy(Text, Indent.size() >= Ind.size()
                                       ? std::string(Indent.size() - Ind.size() + 4, ' ')
                                       : std::string(4, ' ')));
    Add(Indent + "  ", "}();");
  };
  if (K > 1)
    Rows(Orig, Ind + "  ");
  else
    Lines.push_back(indentBy(Orig, "  "));
  Add(Ind + "  ", "return;");
  Add(Ind, "}");
  for (size_t PI = 0; PI < Plans.size(); ++PI) {
    const TileShape &S = Shapes[PI];
    std::string Decl = "__shared__ " + typeSpelling(Plans[PI].Elem, In.Ctx) + " " + Tiles[PI];
    for (size_t D = S.DeclaredText.size(); D-- > 1;)
      Decl += "[" + S.DeclaredText[D] + "]";
    Decl += "[" + S.RowText + "];";
    Add(Ind, Decl);
  }
  if (Error E = Coefs.loads(In, FP, Ind, [&](StringRef B) { return fresh(B); },
                            /*BarrierAfter=*/false, Lines))
    return std::move(E);
  Add(Ind, "{");
  auto L = loader(Lines, Ind);
  if (!L)
    return L.takeError();
  Add(Ind, "}");
  Add(Ind, "__syncthreads();");
  if (K > 1)
    Rows(New, Ind);
  else
    Lines.push_back(Ind + StringRef(New).ltrim(" \t").str());
  // The tiles' bytes, for the shared-memory check (constant shapes).
  for (size_t PI = 0; PI < Plans.size(); ++PI) {
    IndexForm Bytes = Shapes[PI].declaredTotal();
    if (auto B = Bytes.constantValue())
      SharedBytes += uint64_t(*B) * elemBytes(Plans[PI]);
  }
  for (const CoefficientStage &S : Coefs.Stages)
    if (!S.Registers)
      SharedBytes += uint64_t(S.C.span()) * S.C.ElementBytes;
  return "\n" + join(Lines, "\n") + "\n";
}

/// The values of the kernel template's parameters that the file's
/// instantiations (or, without any, the spec's tunables of the same names)
/// give.
struct Instance {
  std::map<const Decl *, int64_t> Values;
  const FunctionDecl *FD = nullptr;
};

std::vector<Instance> instances(const RuleInput &In) {
  std::vector<Instance> Out;
  const FunctionTemplateDecl *FT = In.Kernel.getDescribedFunctionTemplate();
  if (!FT)
    return Out;
  std::vector<const NonTypeTemplateParmDecl *> Params;
  for (const NamedDecl *ND : *FT->getTemplateParameters())
    if (const auto *NT = dyn_cast<NonTypeTemplateParmDecl>(ND))
      Params.push_back(NT);
  for (const FunctionDecl *FD : instantiationsOf(In.Kernel)) {
    const TemplateArgumentList *Args = FD->getTemplateSpecializationArgs();
    if (!Args)
      continue;
    Instance I;
    I.FD = FD;
    for (const NonTypeTemplateParmDecl *NT : Params)
      if (NT->getIndex() < Args->size() &&
          Args->get(NT->getIndex()).getKind() == TemplateArgument::Integral)
        I.Values[NT] = Args->get(NT->getIndex()).getAsIntegral().getExtValue();
    Out.push_back(std::move(I));
  }
  if (Out.empty() && !Params.empty()) {
    Instance I;
    for (const NonTypeTemplateParmDecl *NT : Params)
      if (auto It = In.Request.Tunables.find(NT->getNameAsString()); It != In.Request.Tunables.end())
        I.Values[NT] = It->second;
    if (I.Values.size() == Params.size())
      Out.push_back(std::move(I));
  }
  return Out;
}

} // namespace

RuleOutcome StencilTilingRule::propose(const RuleInput &In) {
  const CompoundStmt *Body = kernelBody(In.Kernel);
  if (!Body)
    return notApplicable("the kernel has no body");
  const agent::ProposalRequest &Req = In.Request;
  if (!Req.Block)
    return notApplicable("the block's dimensions are not known (give a spec or a launch with "
                         "a constant block): the tile's size depends on them");
  std::array<int64_t, 3> Block = *Req.Block;
  an::AnalysisOptions Opts;
  Opts.Block = Block;
  auto Model = an::analyzeKernel(In.Ctx, In.Kernel, Opts);
  if (!Model)
    return notApplicable(toString(Model.takeError()));
  an::KernelModel &M = *Model;
  std::vector<const an::Pattern *> Stencils = M.patterns(an::PatternKind::Stencil);
  if (Stencils.empty())
    return notApplicable(noStencil(M));

  // One tile per footprint that can be staged; the others stay as they are.
  Planner Pl(In, M, Block);
  std::vector<TilePlan> Plans;
  std::vector<std::string> Declined;
  for (const an::Pattern *P : Stencils) {
    auto Plan = Pl.plan(M.Footprints[P->Footprint]);
    if (!Plan)
      Declined.push_back(toString(Plan.takeError()));
    else
      Plans.push_back(std::move(*Plan));
  }
  BuiltinFinder Facts;
  Facts.TraverseStmt(const_cast<CompoundStmt *>(Body));
  // A buffer passed to a call as a writable pointer may be written there.
  for (auto It = Plans.begin(); It != Plans.end();) {
    if (const CallExpr *C = writableEscape(It->Param, Facts.Calls)) {
      Declined.push_back(formatv("'{0}' is passed to '{1}' (line {2}) as a writable pointer, which "
                                 "may write the buffer the tile would hold",
                                 It->Buffer, textOf(C->getCallee(), In.Ctx),
                                 In.Ctx.getSourceManager().getPresumedLineNumber(C->getBeginLoc()))
                             .str());
      It = Plans.erase(It);
    } else {
      ++It;
    }
  }
  if (Plans.empty())
    return notApplicable(Declined.front());
  if (Facts.Labels)
    return notApplicable("the body has labels, which the fallback's copy of it would repeat");
  EditCollector C(In);
  auto LB = C.offsetOf(Body->getLBracLoc()), RB = C.offsetOf(Body->getRBracLoc());
  if (!LB || !RB)
    return notApplicable("the kernel's body is written through a macro");
  uint64_t Existing = frontend::totalBytes(frontend::staticSharedVariables(In.Kernel, In.Ctx));
  uint64_t Limit = uint64_t(In.Target.limits().StaticSharedMemPerBlock);
  std::vector<Instance> Known = instances(In);

  // The bytes a proposal's tiles take, in the largest instance.
  auto Bytes = [&](const Writer &W, uint64_t Constant) -> Expected<uint64_t> {
    uint64_t Most = Constant;
    for (size_t PI = 0; PI < Plans.size(); ++PI) {
      IndexForm F = W.Shapes[PI].declaredTotal();
      if (F.isConstant() && !Plans[PI].Elem->isDependentType())
        continue;
      if (Known.empty())
        return makeError("the tile of '{0}' has {1} elements, which depends on template "
                         "parameters that no instantiation in the file or value of the spec "
                         "gives: its shared memory cannot be checked",
                         Plans[PI].Buffer, M.render(F));
      uint64_t Worst = 0;
      for (const Instance &I : Known) {
        IndexForm V = M.atoms().substitute(F, [&](AtomId A) -> std::optional<IndexForm> {
          auto It = I.Values.find(M.atoms()[A].Decl);
          if (M.atoms()[A].Kind == AtomKind::TemplateParam && It != I.Values.end())
            return IndexForm::constant(It->second);
          return std::nullopt;
        });
        auto N = V.constantValue();
        if (!N)
          return makeError("the tile of '{0}' has {1} elements, which the instantiations do not "
                           "fix",
                           Plans[PI].Buffer, M.render(F));
        uint64_t E = 8;
        if (!Plans[PI].Elem->isDependentType())
          E = uint64_t(In.Ctx.getTypeSizeInChars(Plans[PI].Elem).getQuantity());
        else if (I.FD && Plans[PI].Param->getFunctionScopeIndex() < I.FD->getNumParams())
          E = uint64_t(In.Ctx
                           .getTypeSizeInChars(I.FD->getParamDecl(Plans[PI].Param->getFunctionScopeIndex())
                                                   ->getType()
                                                   ->getPointeeType())
                           .getQuantity());
        Worst = std::max(Worst, uint64_t(*N) * E);
      }
      Most += Worst;
    }
    return Most;
  };
  auto Fits = [&](uint64_t Need) -> std::optional<std::string> {
    if (Need + 2 * Existing <= Limit)
      return std::nullopt;
    return formatv("the tile needs {0} bytes of shared memory ({1} already used), more than the "
                   "{2} bytes of static shared memory a block may have on {3}",
                   Need, 2 * Existing, Limit, In.Target.Name)
        .str();
  };

  // What the tiles save.
  auto Savings = [&](const Writer &W, uint64_t Need, int64_t Rows) {
    std::vector<std::string> Per;
    for (size_t PI = 0; PI < Plans.size(); ++PI) {
      const TilePlan &P = Plans[PI];
      auto Total = W.Shapes[PI].Total.constantValue();
      int64_t Outputs = Block[0] * Block[1] * Block[2] * Rows;
      std::string After = Total ? formatv("{0:f2}", double(*Total) / double(Outputs)).str()
                                : W.Shapes[PI].TotalText + " / " + std::to_string(Outputs);
      std::vector<std::string> Ext(W.Shapes[PI].ExtentText.rbegin(), W.Shapes[PI].ExtentText.rend());
      Per.push_back(formatv("'{0}' ({1} reads per output; border {2}) needs a {3} tile: global "
                            "loads per output {1} -> {4}",
                            P.Buffer, P.Points, an::borderModeName(P.F->Border), join(Ext, " x "),
                            After)
                        .str());
    }
    return join(Per, "; ") + formatv(", {0} bytes of shared memory per block", Need).str();
  };
  std::string Shape = formatv("{0} x {1} x {2}", Block[0], Block[1], Block[2]).str();
  std::string Notes;
  for (const std::string &D : Declined)
    Notes += "\nNot staged: " + D + ".";

  RuleOutcome Out;
  // 1. The tile, one output per thread.
  CoefficientPlan Coefs = planCoefficients(In, M, Facts.Calls, MaxCoefficientRegisters, "xyz");
  for (const std::string &D : Coefs.Declined)
    Notes += "\nCoefficients not staged: " + D + ".";
  std::string CoefText;
  if (!Coefs.Stages.empty())
    CoefText = formatv(" The coefficient reads ({0} loads per output: {1}) read a copy loaded "
                       "once per {2} instead, each element the one of the same index.",
                       Coefs.reads(M), Coefs.describe(), Coefs.anyShared() ? "block" : "thread")
                   .str();
  // A halo given at run time (a mask width parameter): the tiles hold up
  // to DefaultMaxHalo, or the spec's value when larger.
  int64_t MaxHalo = DefaultMaxHalo;
  bool RuntimeHalo = false;
  std::optional<measure::ValueMap> Env;
  if (Req.Spec) {
    if (auto E = Req.Spec->environment())
      Env = std::move(*E);
    else
      consumeError(E.takeError());
  }
  for (const TilePlan &P : Plans)
    for (const TileDim &D : P.Dims) {
      IndexForm Halo = D.Hi - D.Lo;
      if (!M.atoms().dependsOnKind(Halo, AtomKind::Param))
        continue;
      RuntimeHalo = true;
      if (Env)
        if (auto V = evaluateForm(Halo, M.atoms(), In, *Env))
          MaxHalo = std::max(MaxHalo, *V);
    }
  Writer W(In, M, Plans, Block, Body);
  W.stageCoefficients(Coefs);
  W.maxHalo(MaxHalo);
  uint64_t Constant = 0;
  auto Text = W.write(Constant);
  if (!Text)
    return notApplicable(toString(Text.takeError()));
  auto Need = Bytes(W, Constant);
  if (!Need)
    return notApplicable(toString(Need.takeError()));
  if (auto Why = Fits(*Need))
    return notApplicable(*Why);
  std::vector<std::string> Names, Shapes;
  for (size_t PI = 0; PI < Plans.size(); ++PI) {
    Names.push_back("'" + Plans[PI].Buffer + "'");
    std::vector<std::string> Ext(W.Shapes[PI].ExtentText.rbegin(), W.Shapes[PI].ExtentText.rend());
    Shapes.push_back(Ext.size() == 1 ? Ext[0] + "-element" : join(Ext, " x "));
  }
  std::string Outputs = Plans[0].Dims.size() == 1 && Block[1] == 1 && Block[2] == 1
                            ? std::to_string(Block[0]) + "-thread"
                            : Block[2] == 1 ? formatv("{0} x {1}", Block[0], Block[1]).str()
                                            : Shape;
  std::string Summary = "stage " + join(Names, " and ") + " in a " + join(Shapes, " and a ") +
                        " shared-memory tile (the " + Outputs + " block's outputs and their halo)" +
                        (Coefs.Stages.empty() ? "" : ", coefficients " + Coefs.describe());
  std::string Rationale =
      "Each output reads its neighbourhood from global memory. " + Savings(W, *Need, 1) +
      ". The tile is loaded where the original's own clamps and bounds say the input is read "
      "(zero elsewhere, where it never reads), and every read becomes the tile element that "
      "holds the same value: the arithmetic and its order are unchanged, so the results are "
      "bitwise identical. The tile is sized for blocks of " + Shape +
      " threads (the spec's); a device-side check of blockDim runs the original code for any "
      "other block." +
      (RuntimeHalo ? formatv(" The halo is a kernel parameter: the tile is declared for halos "
                             "up to {0} elements along each dimension (a mask of up to {1}), and "
                             "the same check runs the original code for a wider one.",
                             MaxHalo, MaxHalo + 1)
                         .str()
                   : std::string()) +
      CoefText + Notes;
  auto One = proposeEdits(In, name(), Summary, Rationale,
                          {SourceEdit{*LB + 1, *RB - *LB - 1, *Text}});
  if (One.Proposals.empty())
    return One;
  Out.Proposals.push_back(std::move(One.Proposals.front()));

  // 2. Several outputs per thread along the slowest thread dimension.
  auto Second = [&]() -> Expected<agent::Proposal> {
    const TilePlan &P = Plans.front();
    const TileDim *KD = nullptr;
    for (size_t D = P.Dims.size(); D-- > 0 && !KD;)
      if (P.Dims[D].ThreadDim)
        KD = &P.Dims[D];
    if (!KD)
      return makeError("no thread index moves along the stencil");
    char Dim = KD->ThreadDim;
    std::string Field = std::string("grid.") + Dim;
    // The rows are blockIdx * (the block's rows) + threadIdx: the block's
    // K times as many rows start at blockIdx * K * (its rows).
    if (auto B = M.atoms().findBuiltin("blockIdx", Dim); !B || !KD->Origin.coefficientOf(*B) ||
                                                          KD->Origin.coefficientOf(*B)->constantValue() !=
                                                              KD->Threads)
      return makeError("the position along {0} is not blockIdx.{0} * {1} + threadIdx.{0}", Dim,
                       KD->Threads);
    auto Grid = Req.Geometry.find(Field);
    if (Grid == Req.Geometry.end() || Grid->second.empty())
      return makeError("the spec's {0} is not known, and the grid must shrink", Field);
    if (callsSyncthreads(Body) || any_of(Facts.Calls, isCollective) || Facts.Shared)
      return makeError("the body synchronises or shares memory between threads");
    for (const auto &[E, Ref] : Facts.Found)
      if (Ref.Var == "gridDim")
        return makeError("the body reads 'gridDim.{0}', which the smaller grid changes", Ref.Dim);
    std::set<const FunctionDecl *> Seen;
    for (const CallExpr *Call : Facts.Calls)
      if (readsBuiltins(Call->getDirectCallee(), Seen))
        return makeError("'{0}' reads thread or block indices", textOf(Call->getCallee(), In.Ctx));
    // Threads past the original grid do nothing: each access that moves
    // with the row is bounded along it (or is a tile read).
    std::set<const an::Access *> TileReads;
    for (const TilePlan &Q : Plans)
      TileReads.insert(Q.Reads.begin(), Q.Reads.end());
    auto Tid = M.atoms().findBuiltin("threadIdx", Dim), Bid = M.atoms().findBuiltin("blockIdx", Dim);
    for (const an::Access &A : M.Accesses) {
      if (TileReads.count(&A) || A.Space == an::MemorySpace::Shared)
        continue;
      if (A.Space == an::MemorySpace::Unknown)
        return makeError("{0} goes through a pointer the analysis cannot trace", A.Text);
      bool Moves = (Tid && M.atoms().dependsOn(A.Index, *Tid)) ||
                   (Bid && M.atoms().dependsOn(A.Index, *Bid)) || !A.IndexKnown;
      if (Moves && !Pl.boundedAbove(A, *KD))
        return makeError("'{0}' (line {1}) is not guarded by a bound along '{2}', so the rows past "
                         "the original grid would reach it",
                         A.Text, A.Loc.Line, Dim);
    }
    for (int64_t Rows : {4, 2}) {
      Writer W2(In, M, Plans, Block, Body);
      W2.stageCoefficients(Coefs);
      W2.maxHalo(MaxHalo);
      W2.coarsen(Rows, Dim);
      uint64_t C2 = 0;
      auto T2 = W2.write(C2);
      if (!T2)
        return T2.takeError();
      auto N2 = Bytes(W2, C2);
      if (!N2)
        return N2.takeError();
      if (Fits(*N2))
        continue;
      agent::SpecChange S;
      std::string Expr = formatv("ceil_div({0}, {1})", Grid->second, Rows).str();
      if (auto Parsed = measure::IntExpr::parse(Expr); !Parsed)
        return Parsed.takeError();
      S.Geometry[Field] = Expr;
      S.Justification =
          formatv("each block computes {0} times the {1}-rows it did, so {2} shrinks {0} times; "
                  "the rows past the original grid fail the kernel's own bounds, so a larger "
                  "grid is correct too",
                  Rows, Dim, Field)
              .str();
      std::string Rat =
          formatv("Each thread runs the original body for {0} {1}-rows of the block's outputs "
                  "(threadIdx.{1} + k * {2}), so a block covers {0} times as many, the halo is "
                  "loaded once for all of them, and each thread keeps {0} times the loads in "
                  "flight. ",
                  Rows, Dim, Block[Dim - 'x'])
              .str() +
          Savings(W2, *N2, Rows) +
          ". The results are bitwise identical; the fallback for another block shape runs the "
          "original code for the same rows." + CoefText + Notes;
      auto Prop = proposeEdits(In, name(),
                               formatv("stage {0} in a {1} shared-memory tile, {2} {3}-rows of "
                                       "outputs per thread",
                                       join(Names, " and "),
                                       join(map_range(W2.Shapes,
                                                      [](const TileShape &Sh) {
                                                        std::vector<std::string> E(
                                                            Sh.ExtentText.rbegin(),
                                                            Sh.ExtentText.rend());
                                                        return join(E, " x ");
                                                      }),
                                            " and "),
                                       Rows, Dim)
                                       .str() +
                                   (Coefs.Stages.empty() ? "" : ", coefficients " + Coefs.describe()),
                               Rat, {SourceEdit{*LB + 1, *RB - *LB - 1, *T2}}, S);
      if (Prop.Proposals.empty())
        return makeError("{0}", Prop.NotApplicable);
      return std::move(Prop.Proposals.front());
    }
    return makeError("the tile for several rows per thread does not fit in shared memory");
  };
  auto P2 = Second();
  if (P2)
    Out.Proposals.push_back(std::move(*P2));
  else
    Out.Proposals.front().Rationale +=
        "\nNo second proposal with several outputs per thread: " + toString(P2.takeError()) + ".";
  return Out;
}

std::unique_ptr<ExpertRule> createSmemStencilTilingRule() {
  return std::make_unique<StencilTilingRule>();
}

} // namespace forge::passes
