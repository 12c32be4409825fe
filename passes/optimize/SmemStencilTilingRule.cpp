//===- passes/optimize/SmemStencilTilingRule.cpp - smem-stencil-tiling ----===//
///
/// \file
/// A naive stencil or convolution reads each input element once per output
/// that needs it: a 5 x 5 convolution loads every pixel 25 times.
///
///     int x = blockIdx.x * blockDim.x + threadIdx.x;
///     int y = blockIdx.y * blockDim.y + threadIdx.y;
///     ... for (i = -R; i <= R; ++i) for (j = -R; j <= R; ++j)
///           if (y + i >= 0 && y + i < h && x + j >= 0 && x + j < w)
///             acc += f[...] * in[(y + i) * w + x + j];
///
/// The rule stages the block's input tile with its halo ((BY + 2R) x (BX +
/// 2R) elements) in shared memory with one cooperative load at the start of
/// the kernel, then replaces each read `in[...]` by the tile element that
/// holds the same value. Nothing else changes, so the arithmetic and its
/// order are the original's and the results are bitwise identical.
///
/// Reads are recognised by algebra, not by spelling: an index is turned
/// into a polynomial (RuleAst.h) and must equal (Y + a) * W + X + b (2D) or
/// X + b (1D), where X and Y are the thread's global position, W a kernel
/// parameter and a, b sums of counters of loops with constant bounds. The
/// tile is loaded where the original's own bounds checks (which must guard
/// every read) say the input exists, and zero elsewhere, where the original
/// never reads.
///
//===----------------------------------------------------------------------===//
#include "RuleAst.h"
#include "RuleUtil.h"
#include "Rules.h"
#include "forge/Frontend/KernelFacts.h"
#include "forge/Frontend/ParamAccess.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/Support/FormatVariadic.h"

using namespace clang;
using namespace llvm;

namespace forge::passes {
namespace {

/// One read `in[...]` of the staged input.
struct Read {
  const ArraySubscriptExpr *Expr = nullptr;
  IndexPoly RowOff, ColOff; ///< a and b (RowOff is 0 in 1D)
  std::vector<CountedLoop> Loops;
  int64_t PerOutput = 1; ///< how often it runs per output (loop trips)
};

/// A kernel parameter whose reads can all come from a tile.
struct Stencil {
  const ParmVarDecl *Param = nullptr;
  bool TwoD = false;
  unsigned Stride = 0; ///< W's atom (2D)
  std::vector<Read> Reads;
  int64_t RowMin = 0, RowMax = 0, ColMin = 0, ColMax = 0;
  std::optional<IndexPoly> RowBound, ColBound; ///< the extents EY, EX
  int64_t readsPerOutput() const {
    int64_t N = 0;
    for (const Read &R : Reads)
      N += R.PerOutput;
    return N;
  }
};

/// The failure of one parameter, with how close it came (a parameter that
/// is read around the thread's position says more than one that is not).
struct Miss {
  int Rank = 0;
  std::string Why;
};

class StencilAnalysis {
public:
  StencilAnalysis(const RuleInput &In, const std::array<int64_t, 3> &Block)
      : In(In), Ctx(In.Ctx), Body(kernelBody(In.Kernel)), B(In.Ctx, In.Kernel) {
    B.BlockDims = Block;
    X = B.globalIndex('x');
    Y = B.globalIndex('y');
  }

  /// The stencil reads of P, or why not.
  std::optional<Stencil> analyze(const ParmVarDecl *P, Miss &M);
  PolyBuilder &builder() { return B; }

private:
  std::string line(const Stmt *S) const {
    return std::to_string(Ctx.getSourceManager().getPresumedLineNumber(S->getBeginLoc()));
  }
  bool onlyLoopAtoms(const IndexPoly &P, ArrayRef<CountedLoop> Loops) const {
    return polyRange(P, B, Loops).has_value();
  }
  /// The extent E with 0 <= Coord < E known from Facts, when there is one.
  std::optional<IndexPoly> extentOf(const IndexPoly &Coord, ArrayRef<IndexPoly> Facts,
                                    ArrayRef<CountedLoop> Loops, bool &HasLower);

  const RuleInput &In;
  ASTContext &Ctx;
  const CompoundStmt *Body;
  PolyBuilder B;
  IndexPoly X, Y;
};

std::optional<IndexPoly> StencilAnalysis::extentOf(const IndexPoly &Coord,
                                                   ArrayRef<IndexPoly> Facts,
                                                   ArrayRef<CountedLoop> Loops, bool &HasLower) {
  HasLower = false;
  std::optional<IndexPoly> Upper;
  auto IsLoop = [&](unsigned A) {
    return llvm::any_of(Loops, [&](const CountedLoop &L) { return L.Var == B.atom(A).Decl; });
  };
  for (const IndexPoly &F : Facts) {
    // Lower: Coord = F + G with G >= 0 over the loops.
    if (!HasLower)
      if (auto R = polyRange(Coord - F, B, Loops); R && R->first >= 0)
        HasLower = true;
    // Upper: Coord = U + G - F <= U + max(G), with U the same in the block.
    if (!Upper) {
      IndexPoly D = F + Coord;
      IndexPoly G = D.filtered(IsLoop) - IndexPoly::constant(D.constantTerm());
      IndexPoly U = D - G;
      bool Uniform = llvm::all_of(U.atoms(), [&](unsigned A) {
        PolyAtom::KindTy K = B.atom(A).Kind;
        return K == PolyAtom::Param || K == PolyAtom::TemplateParam || K == PolyAtom::BlockIdx;
      });
      auto R = polyRange(G, B, Loops);
      if (Uniform && R && !U.isConstant())
        Upper = U + IndexPoly::constant(R->second + 1);
    }
  }
  return Upper;
}

/// Combines the extent one read is known to stay below with the others':
/// the tile must hold every element some read may read, so the larger of
/// two extents that differ by a constant; false when they differ otherwise.
static bool mergeBound(std::optional<IndexPoly> &Into, const IndexPoly &Next) {
  if (!Into) {
    Into = Next;
    return true;
  }
  IndexPoly D = Next - *Into;
  if (!D.isConstant())
    return false;
  if (D.constantTerm() > 0)
    Into = Next;
  return true;
}

std::optional<Stencil> StencilAnalysis::analyze(const ParmVarDecl *P, Miss &M) {
  auto Fail = [&](int Rank, std::string Why) -> std::optional<Stencil> {
    M = {Rank, std::move(Why)};
    return std::nullopt;
  };
  std::string Name = P->getNameAsString();
  // Every use of P is a read P[...].
  struct Uses : RecursiveASTVisitor<Uses> {
    const ParmVarDecl *P;
    std::vector<const DeclRefExpr *> Refs;
    bool VisitDeclRefExpr(DeclRefExpr *E) {
      if (E->getDecl() == P)
        Refs.push_back(E);
      return true;
    }
  } U;
  U.P = P;
  U.TraverseStmt(const_cast<CompoundStmt *>(Body));
  if (U.Refs.empty())
    return Fail(0, "'" + Name + "' is not used");
  Stencil S;
  S.Param = P;
  bool First = true;
  for (const DeclRefExpr *Ref : U.Refs) {
    const Stmt *Child = Ref;
    auto Parents = Ctx.getParents(*Child);
    while (!Parents.empty() && (Parents[0].get<ImplicitCastExpr>() || Parents[0].get<ParenExpr>())) {
      Child = Parents[0].get<Stmt>();
      Parents = Ctx.getParents(*Child);
    }
    const auto *AS = Parents.empty() ? nullptr : Parents[0].get<ArraySubscriptExpr>();
    if (!AS || AS->getBase()->IgnoreParenImpCasts() != Ref)
      return Fail(0, "'" + Name + "' is used other than as '" + Name + "[...]' (line " +
                         line(Ref) + ")");
    auto Up = Ctx.getParents(*AS);
    const Stmt *Parent = Up.empty() ? nullptr : Up[0].get<Stmt>();
    const auto *Load = dyn_cast_or_null<ImplicitCastExpr>(Parent);
    if (!Load || Load->getCastKind() != CK_LValueToRValue)
      return Fail(0, "'" + Name + "[...]' is not only read (line " + line(AS) + ")");

    Read R;
    R.Expr = AS;
    // The enclosing loops must have constant bounds.
    for (const Stmt *A : ancestors(AS, Body, Ctx)) {
      if (isa<WhileStmt, DoStmt, CXXForRangeStmt>(A))
        return Fail(1, "the read '" + textOf(AS, Ctx) + "' is inside a loop without constant "
                       "bounds (line " + line(A) + ")");
      if (const auto *F = dyn_cast<ForStmt>(A)) {
        std::string Why;
        auto L = matchCountedLoop(F, Ctx, &Why);
        if (!L)
          return Fail(1, "the read '" + textOf(AS, Ctx) + "' is inside a loop without constant "
                         "bounds (line " + line(F) + ": " + Why + ")");
        R.Loops.push_back(*L);
        R.PerOutput *= L->trips();
      }
    }
    auto Idx = B.build(AS->getIdx());
    if (!Idx)
      return Fail(1, "the index of '" + textOf(AS, Ctx) + "' is not recognised: " + B.Why);
    bool UsesThread = llvm::any_of(Idx->atoms(), [&](unsigned A) {
      return B.atom(A).Kind == PolyAtom::ThreadIdx;
    });
    if (!UsesThread)
      return Fail(0, "'" + textOf(AS, Ctx) + "' does not depend on the thread's position");

    // 1D: X + b; 2D: (Y + a) * W + X + b.
    bool TwoD = false;
    unsigned Stride = 0;
    if (onlyLoopAtoms(*Idx - X, R.Loops)) {
      R.ColOff = *Idx - X;
    } else {
      for (unsigned A : Idx->atoms()) {
        if (B.atom(A).Kind != PolyAtom::Param)
          continue;
        auto QR = Idx->divideBy(A);
        if (QR && onlyLoopAtoms(QR->first - Y, R.Loops) && onlyLoopAtoms(QR->second - X, R.Loops)) {
          TwoD = true;
          Stride = A;
          R.RowOff = QR->first - Y;
          R.ColOff = QR->second - X;
          break;
        }
      }
      if (!TwoD)
        return Fail(2, "'" + textOf(AS, Ctx) + "' is not indexed as " + Name +
                           "[(y + dy) * w + x + dx] or " + Name +
                           "[i + di] around the thread's position (x, y = blockIdx * "
                           "blockDim + threadIdx), with dy, dx from loops with constant "
                           "bounds");
    }
    if (First) {
      S.TwoD = TwoD;
      S.Stride = Stride;
    } else if (S.TwoD != TwoD || S.Stride != Stride) {
      return Fail(2, "the reads of '" + Name + "' do not share one shape and row stride");
    }
    auto RowR = polyRange(R.RowOff, B, R.Loops), ColR = polyRange(R.ColOff, B, R.Loops);
    if (First) {
      S.RowMin = RowR->first;
      S.RowMax = RowR->second;
      S.ColMin = ColR->first;
      S.ColMax = ColR->second;
    } else {
      S.RowMin = std::min(S.RowMin, RowR->first);
      S.RowMax = std::max(S.RowMax, RowR->second);
      S.ColMin = std::min(S.ColMin, ColR->first);
      S.ColMax = std::max(S.ColMax, ColR->second);
    }

    S.Reads.push_back(std::move(R));
    First = false;
  }
  if (S.RowMin == S.RowMax && S.ColMin == S.ColMax)
    return Fail(2, "each thread reads '" + Name + "' at one position only; there is no "
                   "neighbourhood to share");
  // The bounds checks that guard each read.
  for (const Read &R : S.Reads) {
    const ArraySubscriptExpr *AS = R.Expr;
    bool TwoD = S.TwoD;
    std::vector<IndexPoly> Facts = factsFrom(conditionsAt(AS, Body, Ctx), B);
    std::string Where = "the read '" + textOf(AS, Ctx) + "' (line " + line(AS) + ")";
    bool Lower = false;
    auto ColBound = extentOf(X + R.ColOff, Facts, R.Loops, Lower);
    if (!ColBound || !Lower)
      return Fail(3, Where + " is not guarded by bounds checks on its " +
                         std::string(TwoD ? "column" : "index") +
                         " (0 <= x + dx < w); the tile could not tell which elements exist");
    if (std::optional<IndexPoly> Old = S.ColBound; !mergeBound(S.ColBound, *ColBound))
      return Fail(3, "the reads of '" + Name + "' are checked against different bounds ('" +
                         B.render(*Old) + "' and '" + B.render(*ColBound) + "')");
    if (TwoD) {
      auto RowBound = extentOf(Y + R.RowOff, Facts, R.Loops, Lower);
      if (!RowBound || !Lower)
        return Fail(3, Where + " is not guarded by bounds checks on its row (0 <= y + dy < h); "
                               "the tile could not tell which elements exist");
      if (std::optional<IndexPoly> Old = S.RowBound; !mergeBound(S.RowBound, *RowBound))
        return Fail(3, "the reads of '" + Name + "' are checked against different bounds ('" +
                           B.render(*Old) + "' and '" + B.render(*RowBound) + "')");
    }
  }
  return S;
}

class SmemStencilTilingRule : public ExpertRule {
public:
  StringRef name() const override { return "smem-stencil-tiling"; }
  RuleOutcome propose(const RuleInput &In) override;
};

RuleOutcome SmemStencilTilingRule::propose(const RuleInput &In) {
  const CompoundStmt *Body = kernelBody(In.Kernel);
  if (!Body)
    return notApplicable("the kernel has no body");
  ASTContext &Ctx = In.Ctx;
  const agent::ProposalRequest &Req = In.Request;
  if (!Req.Block)
    return notApplicable("the block's dimensions are not known (give a spec or a launch with "
                         "a constant block): the tile's size depends on them");
  std::array<int64_t, 3> Block = *Req.Block;
  if (Block[2] != 1)
    return notApplicable("the block is three-dimensional");
  int64_t BX = Block[0], BY = Block[1], Threads = BX * BY;

  std::vector<frontend::PointerAccess> Access = frontend::analyzePointerParams(In.Kernel, Ctx);
  StencilAnalysis A(In, Block);
  std::optional<Stencil> Best;
  Miss Closest;
  Closest.Rank = -1;
  for (unsigned I = 0; I < In.Kernel.getNumParams(); ++I) {
    const ParmVarDecl *P = In.Kernel.getParamDecl(I);
    QualType Pointee = P->getType()->getPointeeType();
    if (Pointee.isNull() || !Pointee->isArithmeticType() || Pointee->isBooleanType())
      continue;
    if (I < Access.size() && (Access[I].Written || Access[I].Unknown || !Access[I].Read))
      continue;
    Miss M;
    auto S = A.analyze(P, M);
    if (!S) {
      if (M.Rank > Closest.Rank)
        Closest = M;
      continue;
    }
    if (!Best || S->readsPerOutput() > Best->readsPerOutput())
      Best = std::move(S);
  }
  if (!Best)
    return notApplicable(Closest.Rank < 0
                             ? "the kernel reads no read-only array of arithmetic elements"
                             : Closest.Rank < 1
                                   ? "no read-only array is read around the thread's position (" +
                                         Closest.Why + ")"
                                   : Closest.Why);
  Stencil &S = *Best;
  PolyBuilder &B = A.builder();

  // The tile and its size.
  QualType Elem = S.Param->getType()->getPointeeType();
  int64_t TH = S.TwoD ? BY + S.RowMax - S.RowMin : 1;
  int64_t TW = BX + S.ColMax - S.ColMin;
  uint64_t ElemBytes = Ctx.getTypeSize(Elem) / 8;
  // The row stride: when a warp spans several rows of threads (BX < 32),
  // pad it so that those rows fall on different shared-memory banks
  // (stride = an odd multiple of BX modulo 32 banks).
  int64_t Stride = TW;
  if (S.TwoD && ElemBytes == 4 && BX < 32 && 32 % BX == 0)
    while (!((Stride % 32) % BX == 0 && ((Stride % 32) / BX) % 2 == 1))
      ++Stride;
  uint64_t TileBytes = uint64_t(TH * Stride) * ElemBytes;
  uint64_t Existing = frontend::totalBytes(frontend::staticSharedVariables(In.Kernel, Ctx));
  uint64_t Limit = uint64_t(In.Target.limits().StaticSharedMemPerBlock);
  if (TileBytes + Existing > Limit)
    return notApplicable(formatv("the tile needs {0} bytes of shared memory ({1} already "
                                 "used), more than the {2} bytes of static shared memory a "
                                 "block may have on {3}",
                                 TileBytes, Existing, Limit, In.Target.Name)
                             .str());

  // Names.
  std::set<std::string> Taken;
  std::string Name = S.Param->getNameAsString();
  std::string Tile = freshName(Name + "_tile", In.Kernel, Taken);
  std::string T = freshName("t", In.Kernel, Taken);
  std::string GY = freshName("gy", In.Kernel, Taken), GX = freshName("gx", In.Kernel, Taken);
  std::string Type = typeSpelling(Elem, Ctx), Zero = zeroOf(Elem, Ctx);
  auto Off = [](const std::string &V, int64_t C) {
    return C == 0 ? V : V + (C < 0 ? " - " : " + ") + std::to_string(C < 0 ? -C : C);
  };

  EditCollector E(In);
  std::string Ind = "  ";
  if (!Body->body_empty())
    if (auto O = E.offsetOf(Body->body_front()->getBeginLoc()))
      Ind = lineIndent(In.Source, *O).str();
  std::string I1 = Ind + "  ", I2 = I1 + "  ";
  // Two phases: every thread issues all its loads, then stores them, so
  // that the block waits for one round trip to memory, not several.
  int64_t Total = TH * TW, Iters = (Total + Threads - 1) / Threads;
  std::string K = freshName("k", In.Kernel, Taken), V = freshName(Name + "_v", In.Kernel, Taken);
  std::string Lin = BY == 1 ? "threadIdx.x" : formatv("threadIdx.y * {0} + threadIdx.x", BX).str();
  std::string TDecl = formatv("int {0} = {1} + {2} * {3};", T, Lin, K, Threads).str();
  std::string Loop = formatv("for (int {0} = 0; {0} < {1}; ++{0}) {{", K, Iters).str();
  bool Exact = Iters * Threads == Total;
  std::string InTile = Exact ? "" : formatv("{0} < {1} && ", T, Total).str();
  std::string Cols = formatv("{0} >= 0 && {0} < {1}", GX, B.render(*S.ColBound)).str();

  std::vector<std::string> Lines;
  auto Add = [&](const std::string &Indent, const std::string &Text) {
    Lines.push_back(Indent + Text);
  };
  std::string Shape = S.TwoD ? formatv("{0} x {1}", TH, TW).str() : formatv("{0}-element", TW).str();
  std::string Outputs = S.TwoD ? formatv("{0} x {1}", BY, BX).str() : std::to_string(BX);
  Add(Ind, formatv("// smem-stencil-tiling: the block's {0} input tile ({1} outputs and their "
                   "halo),", Shape, Outputs).str());
  if (Stride == TW) {
    Add(Ind, "// loaded once by all threads and then read from shared memory.");
  } else {
    Add(Ind, formatv("// loaded once by all threads and then read from shared memory (rows "
                     "padded to {0}", Stride).str());
    Add(Ind, "// elements, so that the rows a warp reads are on different banks).");
  }
  Add(Ind, S.TwoD ? formatv("__shared__ {0} {1}[{2}][{3}];", Type, Tile, TH, Stride).str()
                  : formatv("__shared__ {0} {1}[{2}];", Type, Tile, TW).str());
  Add(Ind, "{");
  Add(I1, formatv("{0} {1}[{2}];", Type, V, Iters).str());
  Add("", "#pragma unroll");
  Add(I1, Loop);
  Add(I2, TDecl);
  if (S.TwoD) {
    Add(I2, formatv("int {0} = {1};", GY,
                    Off(formatv("(int)blockIdx.y * {0} + {1} / {2}", BY, T, TW).str(), S.RowMin))
                .str());
    Add(I2, formatv("int {0} = {1};", GX,
                    Off(formatv("(int)blockIdx.x * {0} + {1} % {2}", BX, T, TW).str(), S.ColMin))
                .str());
    Add(I2, formatv("{0}[{1}] = {2}{3} >= 0 && {3} < {4} && {5}", V, K, InTile, GY,
                    B.render(*S.RowBound), Cols).str());
    Add(I2, formatv("    ? {0}[(size_t){1} * {2} + {3}] : {4};", Name, GY,
                    B.atom(S.Stride).Spelling, GX, Zero).str());
  } else {
    Add(I2, formatv("int {0} = {1};", GX,
                    Off(formatv("(int)blockIdx.x * {0} + {1}", BX, T).str(), S.ColMin))
                .str());
    Add(I2, formatv("{0}[{1}] = {2}{3} ? {4}[{5}] : {6};", V, K, InTile, Cols, Name, GX, Zero)
                .str());
  }
  Add(I1, "}");
  Add("", "#pragma unroll");
  Add(I1, Loop);
  Add(I2, TDecl);
  std::string Store = S.TwoD ? formatv("{0}[{1} / {2}][{1} % {2}] = {3}[{4}];", Tile, T, TW, V, K).str()
                             : formatv("{0}[{1}] = {2}[{3}];", Tile, T, V, K).str();
  if (Exact) {
    Add(I2, Store);
  } else {
    Add(I2, formatv("if ({0} < {1})", T, Total).str());
    Add(I2 + "  ", Store);
  }
  Add(I1, "}");
  Add(Ind, "}");
  Add(Ind, "__syncthreads();");
  std::string L;
  for (const std::string &Line : Lines)
    L += "\n" + Line;
  E.insertAfterToken(Body->getLBracLoc(), L);

  // Each read becomes the tile element that holds the same value.
  unsigned TX0 = B.builtinAtom("threadIdx", 'x'), TY0 = B.builtinAtom("threadIdx", 'y');
  for (const Read &R : S.Reads) {
    std::string Col = B.render(IndexPoly::atom(TX0) + R.ColOff - IndexPoly::constant(S.ColMin));
    std::string Text = Tile + "[";
    if (S.TwoD)
      Text += B.render(IndexPoly::atom(TY0) + R.RowOff - IndexPoly::constant(S.RowMin)) + "][";
    Text += Col + "]";
    E.replace(R.Expr->getSourceRange(), Text);
  }
  if (E.failed())
    return notApplicable(E.failure());

  int64_t Per = S.readsPerOutput();
  double After = double(Total) / double(BX * BY);
  std::string Halo = S.TwoD ? formatv("rows {0}..{1}, columns {2}..{3} around the output",
                                      S.RowMin, S.RowMax, S.ColMin, S.ColMax)
                                  .str()
                            : formatv("{0}..{1} around the output", S.ColMin, S.ColMax).str();
  std::string Rationale = formatv(
      "Each output reads '{0}' {1} times from global memory ({2}). A block of {3} threads "
      "needs a {4} tile: global loads per output {1} -> {5:f2}, {6} bytes of shared memory "
      "per block. The arithmetic and its order are unchanged, so the results are bitwise "
      "identical. The tile's size assumes blocks of {7} threads (the spec's); another block "
      "shape needs the rule run again.",
      Name, Per, Halo, Threads, Shape, After, TileBytes,
      S.TwoD ? formatv("{0} x {1}", BX, BY).str() : std::to_string(BX)).str();
  return proposeEdits(In, name(),
                      "stage '" + Name + "' in a " + Shape + " shared-memory tile (the " +
                          (S.TwoD ? formatv("{0} x {1}", BX, BY).str()
                                  : std::to_string(BX) + "-thread") +
                          " block's outputs and their halo)",
                      Rationale, E.edits());
}

} // namespace

std::unique_ptr<ExpertRule> createSmemStencilTilingRule() {
  return std::make_unique<SmemStencilTilingRule>();
}

} // namespace forge::passes
