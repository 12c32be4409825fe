//===- passes/optimize/StencilRegisterRowsRule.cpp - stencil-register-rows ===//
///
/// \file
/// A 2D stencil that computes one output per thread issues one load per
/// footprint point per output (9 for a 3 x 3 blur), and on a large GPU it
/// is bound by those load instructions, not by DRAM. The rule takes the
/// stencils the kernel model recognises (analysis::PatternKind::Stencil
/// with a bounded, constant Footprint along the thread grid's x and y,
/// clamped or guarded borders, as stencil::Planner plans them) and has
/// each thread compute R consecutive output rows: it loads the (R + ry_hi -
/// ry_lo) x (rx_hi - rx_lo + 1) input elements those rows need once into a
/// register window (with the original's clamps; zero where its guards say
/// it never reads), then runs the kernel's own body once per row, with y
/// the row's and each read of the input replaced by the window element
/// that holds the same value. The arithmetic and its order are the
/// original's, so the results are bitwise identical. The grid's y shrinks
/// R times; any grid that covers the image stays correct, since every row
/// keeps the original's guards (docs/passes/stencil-register-rows.md).
///
//===----------------------------------------------------------------------===//
#include "RuleAst.h"
#include "RuleUtil.h"
#include "CoefficientStaging.h"
#include "Rules.h"
#include "StencilPlan.h"
#include "forge/Analysis/KernelModel.h"
#include "forge/Measure/IntExpr.h"
#include "forge/Support/Error.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DynamicRecursiveASTVisitor.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include <algorithm>
#include <set>

using namespace clang;
using namespace llvm;

namespace forge::passes {
namespace {

using namespace stencil;

/// The most window values a thread may keep (registers) for the smallest
/// row count the rule proposes.
constexpr int64_t MaxWindow = 128;
/// The registers a thread's window, coefficients and accumulators may take
/// together when coefficients are staged (in registers; in shared memory
/// beyond it).
constexpr int64_t RegisterBudget = 128;
/// With coefficients, 8 rows (rather than 2) are proposed beside 4 when the
/// window and accumulators for 8 take at most this many registers.
constexpr int64_t WideRows = 96;
/// The budget of the leaner variant for a large filter.
constexpr int64_t LeanRegisterBudget = 96;
/// The streaming shape with 16-byte window rows: rows and columns of
/// outputs per thread (docs/passes/stencil-register-rows.md).
constexpr int64_t VectorRows0 = 4, VectorColumns = 4;

class StencilRegisterRowsRule : public ExpertRule {
public:
  StringRef name() const override { return "stencil-register-rows"; }
  RuleOutcome propose(const RuleInput &In) override;
};

/// The plan of one proposal family: the footprint, its row and column
/// dimensions, and the window's extent.
struct RowsPlan {
  TilePlan P;
  /// The thread axis the rows follow: 'y' for a 2D footprint; 'z' for a 3D
  /// one over a block with threads along z, whose rows are planes.
  char Axis = 'y';
  unsigned RowD = 0;
  std::optional<unsigned> ColD;
  /// The 3D form's middle dimension (the one that moves with threadIdx.y).
  std::optional<unsigned> MidD;
  int64_t RowLo = 0, RowHi = 0, ColLo = 0, ColHi = 0, MidLo = 0, MidHi = 0;
  /// Position along RowD = G + C, with G = blockIdx.<Axis> * S +
  /// threadIdx.<Axis>.
  IndexForm G, C;
  int64_t rows(int64_t R) const { return R + RowHi - RowLo; }
  int64_t cols() const { return ColHi - ColLo + 1; }
  int64_t mids() const { return MidHi - MidLo + 1; }
  /// The window's values per row (per plane in the 3D form).
  int64_t perRow() const { return mids() * cols(); }
  /// "threadIdx.z" for Var "threadIdx" in the 3D form.
  std::string axis(StringRef Var) const { return (Var + "." + Twine(Axis)).str(); }
  /// "rows" or "planes", and one of them.
  StringRef rowWord() const { return MidD ? "planes" : "rows"; }
  StringRef row() const { return MidD ? "plane" : "row"; }
  /// The thread's global position along the axis, as the body spells it:
  /// "blockIdx.y * blockDim.y + threadIdx.y".
  std::string global() const {
    return axis("blockIdx") + " * " + axis("blockDim") + " + " + axis("threadIdx");
  }
  /// The window's shape for R rows per thread ("6 x 3" or "6 x 3 x 3").
  std::string shape(int64_t R) const {
    return MidD ? formatv("{0} x {1} x {2}", rows(R), mids(), cols()).str()
                : formatv("{0} x {1}", rows(R), cols()).str();
  }
  /// Element I (row), Mid, J (column) of window Win.
  std::string at(StringRef Win, StringRef I, StringRef Mid, StringRef J) const {
    return MidD ? formatv("{0}[{1}][{2}][{3}]", Win, I, Mid, J).str()
                : formatv("{0}[{1}][{2}]", Win, I, J).str();
  }
};

/// The streaming form's plan (docs/passes/stencil-register-rows.md,
/// "Streaming"): the loop whose variable is the row offset of every read
/// of the input, and the statements around it, which run once per output.
struct StreamPlan {
  const an::Loop *L = nullptr;
  const ForStmt *For = nullptr;
  /// The values the loop's variable takes: Start, Start + Step, ..., Last.
  int64_t Start = 0, Step = 1, Last = 0;
  /// Every read's row offset is the loop's variable plus Shift.
  int64_t Shift = 0;
  /// The statements from the body to the loop, outermost first: compounds
  /// and the ifs (without else) that guard the next.
  std::vector<const Stmt *> Path;
  /// The locals the prologue declares: one per output.
  std::vector<const VarDecl *> Locals;
  /// The prologue's declarations of constants (`const int K = 7;`), the
  /// same for every output: written once, as they are.
  std::vector<const DeclStmt *> Constants;
  /// Those the code after their declaration assigns (the accumulators).
  int64_t Accumulators = 0;
  /// The locals whose value is a function of the thread's position, the
  /// parameters and constants only (`int x = blockIdx.x * blockDim.x +
  /// threadIdx.x;`): declared again, from their initialiser, in each
  /// per-output scope that uses them instead of kept per output, so that
  /// only the accumulators stay live across the rows.
  std::set<const VarDecl *> Pure;
  /// Whether the prologue has an early return (`if (x >= w) return;`).
  bool EarlyReturn = false;
  /// Columns per thread are possible: the column is Gx + Cx, Gx =
  /// blockIdx.x * blockDim.x + threadIdx.x, and x is used nowhere else.
  bool Columns = false;
  std::string NoColumns;
  IndexForm Gx, Cx;
};

/// The 16-byte loads of an interior window row (docs/passes/
/// stencil-register-rows.md, "16-byte window rows"): Width elements of Type
/// per load, from the column col0 + First (a multiple of Width, at or
/// before the window's first column), Count loads; the window starts Skip
/// elements into them.
struct VectorRows {
  std::string Type;
  int64_t Width = 0, First = 0, Skip = 0, Count = 0;
  int64_t span() const { return Width * Count; }
};

/// The names the streaming form declares.
struct StreamNames {
  std::string Row0, Col0, Win, O, Cl, Rr, Jj, Iv;
  /// The per-output copies of StreamPlan::Locals, and the guard of each
  /// level of the path (level 0: none without an early return).
  std::map<const VarDecl *, std::string> Locals;
  std::vector<std::string> Levels;
  std::string at(StringRef Array) const { return formatv("{0}[{1}][{2}]", Array, O, Cl).str(); }
};

/// Base plus an offset printed as a form ("row0 - 2", "row0 + w"; Base
/// alone for "0").
std::string plusOffset(StringRef Base, StringRef Off) {
  if (Off == "0")
    return Base.str();
  return (Base + (Off.front() == '-' ? " - " + Off.drop_front() : " + " + Off)).str();
}

class Writer {
public:
  Writer(const RuleInput &In, an::KernelModel &M, const RowsPlan &RP, const CompoundStmt *Body,
         CoefficientPlan Coefs, std::vector<BorderCheck> Checks)
      : In(In), M(M), RP(RP), Body(Body), FP(M.atoms()), Coefs(std::move(Coefs)),
        Checks(std::move(Checks)) {}
  Expected<std::string> write(int64_t R);
  /// The streaming form: R x Cc outputs per thread, the window row by row;
  /// with V, interior rows are read in 16-byte loads where aligned.
  Expected<std::string> writeStream(int64_t R, int64_t Cc, const StreamPlan &SP,
                                    const std::optional<VectorRows> &V = std::nullopt);
  /// The 16-byte loads an interior window row of Cc columns per thread can
  /// use, or why not.
  Expected<VectorRows> vectorRows(int64_t Cc, const StreamPlan &SP);
  /// The border tests the interior copy of the body takes as known (none
  /// when there is no interior copy).
  const std::vector<BorderCheck> &interiorChecks() const { return Checks; }

private:
  Expected<std::string> print(const IndexForm &F, bool Wide) {
    if (auto S = FP.print(F, Wide))
      return *S;
    return makeError("'{0}' cannot be written: {1}", M.render(F), FP.why());
  }
  std::string fresh(StringRef Base) { return freshName(Base, In.Kernel, Taken); }
  /// Interior: the copy for threads whose window lies inside every border
  /// test's bound, with those tests replaced by their values.
  Expected<std::string> bodyText(int64_t R, StringRef Row, StringRef Win, bool Interior);
  /// The edits that give a copy of the body the indices of row Row of R:
  /// threadIdx and blockIdx along the axis, outside the ranges Except.
  Error remapEdits(int64_t R, StringRef Row,
                   ArrayRef<std::pair<unsigned, unsigned>> Except,
                   std::vector<SourceEdit> &Edits);
  /// The body's leading exits on a condition the block shares
  /// (leadingUniformExits: specialize-scalar's fallback) that access no
  /// memory in the kernel's text: they run first, per row, before the
  /// window and the coefficients are loaded for the code that follows.
  std::vector<const IfStmt *> exits();
  /// An exit of exits(), at Ind: its statements run per row of R, then the
  /// thread leaves.
  Error exitLines(std::vector<std::string> &Lines, StringRef Ind, const IfStmt *S, int64_t R,
                  StringRef Rr);
  /// The condition under which a thread's window lies inside every border
  /// test's bound; Row0 the thread's first row.
  /// Cc columns per thread from Col0 (the whole-window form: 1, "").
  /// ColFirst: the first column of the window (wide), when Cc > 1, and
  /// ColSpan the columns from it that must lie inside (0: the window's).
  Expected<std::string> interiorCondition(int64_t R, StringRef Row0, int64_t Cc = 1,
                                          StringRef ColFirst = "", int64_t ColSpan = 0);
  /// The loads of the window for R rows from P's elements, at indentation Ind.
  Error loader(std::vector<std::string> &Lines, StringRef Ind, int64_t R, StringRef Row0,
               StringRef Win, const TilePlan &P);
  /// The streamed rows: per window row, its load and the row loop's body
  /// for each output that reads it, at indentation Ind; Unguarded: without
  /// the outputs' guards (the interior copy, whose threads pass them all).
  Error streamRows(std::vector<std::string> &Lines, StringRef Ind, int64_t R, int64_t Cc,
                   const StreamPlan &SP, const StreamNames &N, const TilePlan &P,
                   bool Interior, bool Unguarded = false,
                   const std::optional<VectorRows> &V = std::nullopt);
  /// The declarations, at Ind, of the pure locals (StreamPlan::Pure) that
  /// Text names, and of those their initialisers name, in the order of the
  /// original; Edits: the copy's (the thread's position the output's).
  void pureDecls(std::vector<std::string> &Lines, StringRef Ind, const StreamPlan &SP,
                 const std::vector<SourceEdit> &Edits, StringRef Text);
  /// The edits of a copy of the body for the streaming form (reads of the
  /// input become window-row elements, the prologue's locals their
  /// per-output elements, y and x the output's).
  Expected<std::vector<SourceEdit>> streamEdits(int64_t R, int64_t Cc, const StreamPlan &SP,
                                                const StreamNames &N, bool Interior);
  /// P for the interior copy: the loader tests no bound that the border
  /// checks imply.
  TilePlan insidePlan(const TilePlan &P) const {
    TilePlan Inside = P;
    for (const BorderCheck &K : Checks) {
      TileDim &Dim = Inside.Dims[K.B.Dim];
      std::optional<IndexForm> &Bound = K.B.Lower ? Dim.BoundLo : Dim.BoundHi;
      if (!Bound)
        continue;
      auto D = (K.B.Bound - *Bound).constantValue();
      if (D && (K.B.Lower ? *D >= 0 : *D <= 0))
        Bound.reset();
    }
    return Inside;
  }
  /// The per-row loop over a copy of the body.
  /// Ind: the body's indentation; Nest: what the loop adds to it.
  void rowLoop(std::vector<std::string> &Lines, StringRef Ind, StringRef Nest, int64_t R,
               StringRef Rr, StringRef Text);

  const RuleInput &In;
  an::KernelModel &M;
  const RowsPlan &RP;
  const CompoundStmt *Body;
  FormPrinter FP;
  CoefficientPlan Coefs;
  std::vector<BorderCheck> Checks;
  /// The coefficient reads rewritten to their staged copies.
  std::vector<SourceEdit> CoefEdits;
  std::set<std::string> Taken;
};

/// The body for output row Row of R: y is the row's, and the reads of the
/// input are window elements. The loops that generate the offsets are
/// unrolled, so that the window's indices are constants.
Expected<std::string> Writer::bodyText(int64_t R, StringRef Row, StringRef Win, bool Interior) {
  const TilePlan &P = RP.P;
  EditCollector C(In);
  auto LB = C.offsetOf(Body->getLBracLoc()), RB = C.offsetOf(Body->getRBracLoc());
  if (!LB || !RB)
    return makeError("the kernel's body is written through a macro");
  unsigned Begin = *LB + 1, End = *RB;
  std::vector<std::pair<unsigned, unsigned>> Reads;
  std::vector<SourceEdit> Edits;
  for (size_t K = 0; K < P.Reads.size(); ++K) {
    const an::Access &A = *P.Reads[K];
    auto Range = C.rangeOf(A.E->getSourceRange());
    if (!Range)
      return makeError("the read '{0}' (line {1}) is written through a macro", A.Text, A.Loc.Line);
    auto Index = [&](unsigned D, int64_t Lo, std::string Base) -> Expected<std::string> {
      auto O = print(P.Offsets[K][D] - IndexForm::constant(Lo), false);
      if (!O)
        return O.takeError();
      return Base.empty() ? *O : plusOffset(Base, *O);
    };
    auto I = Index(RP.RowD, RP.RowLo, Row.str());
    if (!I)
      return I.takeError();
    std::string J = "0", Mid = "0";
    if (RP.ColD) {
      auto JJ = Index(*RP.ColD, RP.ColLo, "");
      if (!JJ)
        return JJ.takeError();
      J = *JJ;
    }
    if (RP.MidD) {
      auto MM = Index(*RP.MidD, RP.MidLo, "");
      if (!MM)
        return MM.takeError();
      Mid = *MM;
    }
    Reads.push_back(*Range);
    Edits.push_back({Range->first, Range->second - Range->first, RP.at(Win, *I, Mid, J)});
  }
  // The exits run before the window is loaded (exitLines): the copies
  // leave them out.
  std::vector<std::pair<unsigned, unsigned>> Skip = Reads;
  for (const IfStmt *S : exits()) {
    auto Range = C.rangeOfStatement(S);
    if (!Range)
      return makeError("an exit is written through a macro");
    Skip.push_back(*Range);
    // Its whole lines, where it has them to itself.
    unsigned From = lineStart(In.Source, Range->first), To = Range->second;
    if (In.Source.slice(From, Range->first).trim().empty() &&
        In.Source.substr(To).starts_with("\n"))
      ++To;
    else
      From = Range->first;
    Edits.push_back({From, To - From, ""});
  }
  if (Error E = remapEdits(R, Row, Skip, Edits))
    return std::move(E);
  // Unroll the offsets' loops fully (those not unrolled already), and the
  // loops of the coefficients kept in registers.
  std::set<int> OffsetLoops = Coefs.unrollLoops();
  for (const std::vector<IndexForm> &Off : P.Offsets)
    for (const IndexForm &O : Off)
      for (AtomId A : O.atoms())
        if (M.atoms()[A].Kind == AtomKind::LoopVar && M.atoms()[A].Loop >= 0)
          OffsetLoops.insert(M.atoms()[A].Loop);
  if (Error E = unrollEdits(In, M, OffsetLoops, Edits))
    return std::move(E);
  Edits.insert(Edits.end(), CoefEdits.begin(), CoefEdits.end());
  if (Interior) {
    // The border tests become their values; edits inside them go.
    std::vector<std::pair<unsigned, unsigned>> Known;
    for (const BorderCheck &K : Checks) {
      auto Range = C.rangeOf(K.Cond->getSourceRange());
      if (!Range)
        return makeError("the border test '{0}' is written through a macro",
                         textOf(K.Cond, In.Ctx));
      Known.push_back(*Range);
    }
    llvm::erase_if(Edits, [&](const SourceEdit &E) {
      return any_of(Known, [&](const auto &K) {
        return E.Offset >= K.first && E.Offset + E.Length <= K.second;
      });
    });
    // `((void)(yy >= 0), true)`: the value, and the test as a discarded
    // expression, so that its variables stay referenced (nvcc warns about
    // locals declared but never referenced) and nothing else changes.
    for (size_t I = 0; I < Checks.size(); ++I) {
      StringRef Test = In.Source.slice(Known[I].first, Known[I].second);
      Edits.push_back({Known[I].first, Known[I].second - Known[I].first,
                       formatv("((void)({0}), {1})", Test, Checks[I].Holds ? "true" : "false")
                           .str()});
    }
  }
  for (const SourceEdit &E : Edits)
    if (E.Offset < Begin || E.Offset + E.Length > End)
      return makeError("a read lies outside the kernel's body");
  return applyEdits(In.Source.slice(Begin, End), Begin, Edits);
}

Error Writer::remapEdits(int64_t R, StringRef Row, ArrayRef<std::pair<unsigned, unsigned>> Except,
                         std::vector<SourceEdit> &Edits) {
  EditCollector C(In);
  BuiltinFinder B;
  B.TraverseStmt(const_cast<CompoundStmt *>(Body));
  for (const auto &[E, Ref] : B.Found) {
    if (Ref.Dim != RP.Axis || (Ref.Var != "threadIdx" && Ref.Var != "blockIdx"))
      continue;
    auto Range = C.rangeOf(E->getSourceRange());
    if (!Range)
      return makeError("'{0}' is written through a macro", RP.axis(Ref.Var));
    if (any_of(Except, [&](const auto &X) {
          return Range->first >= X.first && Range->second <= X.second;
        }))
      continue;
    std::string New = Ref.Var == "threadIdx"
                          ? formatv("({0} * {1} + {2})", RP.axis("threadIdx"), R, Row).str()
                          : formatv("({0} * {1})", RP.axis("blockIdx"), R).str();
    Edits.push_back({Range->first, Range->second - Range->first, New});
  }
  return Error::success();
}

std::vector<const IfStmt *> Writer::exits() {
  std::vector<const IfStmt *> Out;
  for (const Stmt *S : leadingUniformExits(Body, In.Kernel)) {
    if (any_of(M.Accesses, [&](const an::Access &A) { return A.E && isWithin(A.E, S); }))
      break;
    Out.push_back(cast<IfStmt>(S));
  }
  return Out;
}

Error Writer::exitLines(std::vector<std::string> &Lines, StringRef Ind, const IfStmt *S,
                        int64_t R, StringRef Rr) {
  EditCollector C(In);
  auto Whole = C.rangeOfStatement(S);
  if (!Whole)
    return makeError("an exit is written through a macro");
  // The statements before the final return.
  std::vector<const Stmt *> Stmts;
  if (const auto *CS = dyn_cast<CompoundStmt>(S->getThen()))
    Stmts.assign(CS->body_begin(), CS->body_end() - 1);
  if (Stmts.empty()) {
    Lines.push_back((Ind + In.Source.slice(Whole->first, Whole->second)).str());
    return Error::success();
  }
  auto First = C.rangeOfStatement(Stmts.front()), Last = C.rangeOfStatement(Stmts.back());
  auto Cond = C.rangeOf(S->getCond()->getSourceRange());
  if (!First || !Last || !Cond)
    return makeError("an exit is written through a macro");
  std::vector<SourceEdit> Edits;
  std::vector<std::pair<unsigned, unsigned>> Outside = {{0, First->first},
                                                        {Last->second, ~0u}};
  if (Error E = remapEdits(R, Rr, Outside, Edits))
    return E;
  Lines.push_back(formatv("{0}if ({1}) {{", Ind, In.Source.slice(Cond->first, Cond->second)).str());
  rowLoop(Lines, Ind, "  ", R, Rr,
          (lineIndent(In.Source, First->first) +
           applyEdits(In.Source.slice(First->first, Last->second), First->first, Edits))
              .str());
  Lines.push_back((Ind + "  return;").str());
  Lines.push_back((Ind + "}").str());
  return Error::success();
}

Expected<std::string> Writer::write(int64_t R) {
  const TilePlan &P = RP.P;
  EditCollector C(In);
  std::string Ind = "  ";
  if (!Body->body_empty())
    if (auto O = C.offsetOf(Body->body_front()->getBeginLoc()))
      Ind = lineIndent(In.Source, *O).str();
  std::string Row0 = fresh("row0"), Win = fresh(P.Buffer + "_win"), Rr = fresh("r");
  std::vector<std::string> Lines;
  auto Add = [&](const std::string &Indent, const std::string &Text) {
    Lines.push_back(Indent + Text);
  };
  auto G = print(RP.G, true);
  if (!G)
    return G.takeError();
  Add(Ind, formatv("// stencil-register-rows: {0} output {1} per thread; the {2} input "
                   "elements of '{3}'",
                   R, RP.rowWord(), RP.shape(R), P.Buffer)
               .str());
  Add(Ind, "// they read are loaded once into registers (with the original's border handling), "
           "then the");
  Add(Ind, formatv("// original code runs per {0}, reading them there.", RP.row())
               .str());
  for (const IfStmt *S : exits())
    if (Error E = exitLines(Lines, Ind, S, R, Rr))
      return std::move(E);
  if (Error E = Coefs.edits(In, M, FP, [&](StringRef B) { return fresh(B); }, CoefEdits))
    return std::move(E);
  if (Error E = Coefs.loads(In, FP, Ind, [&](StringRef B) { return fresh(B); },
                            /*BarrierAfter=*/true, Lines))
    return std::move(E);
  Add(Ind, formatv("const long long {0} = {1} * ({2});", Row0, R, *G).str());
  Add(Ind, formatv("{0} {1};", typeSpelling(P.Elem, In.Ctx),
                   RP.at(Win, std::to_string(RP.rows(R)), std::to_string(RP.mids()),
                         std::to_string(RP.cols())))
               .str());
  auto Text = bodyText(R, Rr, Win, /*Interior=*/false);
  if (!Text)
    return Text.takeError();
  if (Checks.empty()) {
    if (Error E = loader(Lines, Ind, R, Row0, Win, P))
      return std::move(E);
    rowLoop(Lines, Ind, "", R, Rr, *Text);
    return "\n" + join(Lines, "\n") + "\n";
  }
  auto Inner = bodyText(R, Rr, Win, /*Interior=*/true);
  if (!Inner)
    return Inner.takeError();
  auto Cond = interiorCondition(R, Row0);
  if (!Cond)
    return Cond.takeError();
  // Inside, the loader tests no bound that the border tests imply.
  TilePlan Inside = insidePlan(P);
  std::string Interior = fresh("interior"), I1 = Ind + "  ";
  Add(Ind, "// Threads whose window lies inside the borders run a copy with the border tests "
           "known to hold.");
  Add(Ind, formatv("const bool {0} = {1};", Interior, *Cond).str());
  Add(Ind, formatv("if ({0}) {{", Interior).str());
  if (Error E = loader(Lines, I1, R, Row0, Win, Inside))
    return std::move(E);
  rowLoop(Lines, Ind, "  ", R, Rr, *Inner);
  Add(Ind, "} else {");
  if (Error E = loader(Lines, I1, R, Row0, Win, P))
    return std::move(E);
  rowLoop(Lines, Ind, "  ", R, Rr, *Text);
  Add(Ind, "}");
  return "\n" + join(Lines, "\n") + "\n";
}

Error Writer::loader(std::vector<std::string> &Lines, StringRef Ind0, int64_t R, StringRef Row0,
                     StringRef Win, const TilePlan &P) {
  // The 3D form nests a loop over the middle dimension between the two.
  std::string Ind = Ind0.str(), I1 = Ind + "  ", IM = RP.MidD ? I1 + "  " : I1, I2 = IM + "  ";
  std::string Ri = fresh("i"), Cj = fresh("j"), Mm = RP.MidD ? fresh("m") : "0";
  auto Add = [&](const std::string &Indent, const std::string &Text) {
    Lines.push_back(Indent + Text);
  };
  Add("", "#pragma unroll");
  Add(Ind, formatv("for (int {0} = 0; {0} < {1}; ++{0}) {{", Ri, RP.rows(R)).str());
  if (RP.MidD) {
    Add("", "#pragma unroll");
    Add(I1, formatv("for (int {0} = 0; {0} < {1}; ++{0}) {{", Mm, RP.mids()).str());
  }
  Add("", "#pragma unroll");
  Add(IM, formatv("for (int {0} = 0; {0} < {1}; ++{0}) {{", Cj, RP.cols()).str());
  // The element's coordinates.
  size_t ND = P.Dims.size();
  std::vector<std::string> E(ND);
  for (size_t D = ND; D-- > 0;) {
    E[D] = fresh("e" + std::to_string(D));
    std::string Rhs;
    if (D == RP.RowD) {
      auto Cst = print(RP.C + IndexForm::constant(RP.RowLo), true);
      if (!Cst)
        return Cst.takeError();
      Rhs = plusOffset(Row0, *Cst) + " + " + Ri;
    } else {
      bool Mid = RP.MidD && D == *RP.MidD;
      auto Pos = print(P.Dims[D].Position + IndexForm::constant(Mid ? RP.MidLo : RP.ColLo), true);
      if (!Pos)
        return Pos.takeError();
      Rhs = *Pos + " + " + (Mid ? Mm : Cj);
    }
    Add(I2, formatv("long long {0} = {1};", E[D], Rhs).str());
  }
  auto EL = elementLoad(FP, M, P, E, [&](StringRef B) { return fresh(B); });
  if (!EL)
    return EL.takeError();
  for (const std::string &Decl : EL->Decls)
    Add(I2, Decl);
  std::string Type = typeSpelling(P.Elem, In.Ctx);
  std::string Zero = zeroOf(P.Elem, In.Ctx);
  std::string Elem = RP.at(Win, Ri, Mm, Cj);
  if (EL->Conds.empty())
    Add(I2, formatv("{0} = {1};", Elem, EL->Load).str());
  else
    Add(I2, formatv("{0} = {1} ? {2} : {3};", Elem, join(EL->Conds, " && "), EL->Load, Zero)
                .str());
  Add(IM, "}");
  if (RP.MidD)
    Add(I1, "}");
  Add(Ind, "}");
  return Error::success();
}

void Writer::rowLoop(std::vector<std::string> &Lines, StringRef Ind, StringRef Nest, int64_t R,
                     StringRef Rr, StringRef Text) {
  std::string At = (Ind + Nest).str();
  Lines.push_back("#pragma unroll");
  Lines.push_back(formatv("{0}for (int {1} = 0; {1} < {2}; ++{1})", At, Rr, R).str());
  Lines.push_back(At + "  [&]() {");
  Lines.push_back(indentBy(Text.trim("\n").rtrim(), ("    " + Nest).str()));
  Lines.push_back(At + "  }();");
}

/// The references to the prologue's locals in a body.
class LocalRefs : public DynamicRecursiveASTVisitor {
public:
  explicit LocalRefs(const std::map<const VarDecl *, std::string> &Names) : Names(Names) {}
  bool VisitDeclRefExpr(DeclRefExpr *E) override {
    if (const auto *V = dyn_cast<VarDecl>(E->getDecl()); V && Names.count(V))
      Found.push_back({E, V});
    return true;
  }
  const std::map<const VarDecl *, std::string> &Names;
  std::vector<std::pair<const DeclRefExpr *, const VarDecl *>> Found;
};

Expected<std::vector<SourceEdit>> Writer::streamEdits(int64_t R, int64_t Cc, const StreamPlan &SP,
                                                      const StreamNames &N, bool Interior) {
  const TilePlan &P = RP.P;
  EditCollector C(In);
  std::vector<std::pair<unsigned, unsigned>> Reads;
  std::vector<SourceEdit> Edits, Other;
  for (size_t K = 0; K < P.Reads.size(); ++K) {
    const an::Access &A = *P.Reads[K];
    auto Range = C.rangeOf(A.E->getSourceRange());
    if (!Range)
      return makeError("the read '{0}' (line {1}) is written through a macro", A.Text, A.Loc.Line);
    std::string J = "0";
    if (RP.ColD) {
      auto O = print(P.Offsets[K][*RP.ColD] - IndexForm::constant(RP.ColLo), false);
      if (!O)
        return O.takeError();
      J = Cc > 1 ? plusOffset(N.Cl, *O) : *O;
    }
    Reads.push_back(*Range);
    Edits.push_back({Range->first, Range->second - Range->first,
                     formatv("{0}[{1}]", N.Win, J).str()});
  }
  // y (and x with columns) become the output's.
  BuiltinFinder B;
  B.TraverseStmt(const_cast<CompoundStmt *>(Body));
  for (const auto &[E, Ref] : B.Found) {
    bool Y = Ref.Dim == 'y', X = Ref.Dim == 'x' && Cc > 1;
    if (!(Y || X) || (Ref.Var != "threadIdx" && Ref.Var != "blockIdx"))
      continue;
    auto Range = C.rangeOf(E->getSourceRange());
    if (!Range)
      return makeError("'{0}.{1}' is written through a macro", Ref.Var, Ref.Dim);
    int64_t F = Y ? R : Cc;
    std::string New = Ref.Var == "threadIdx"
                          ? formatv("(threadIdx.{0} * {1} + {2})", Ref.Dim, F, Y ? N.O : N.Cl).str()
                          : formatv("(blockIdx.{0} * {1})", Ref.Dim, F).str();
    Other.push_back({Range->first, Range->second - Range->first, New});
  }
  // The prologue's locals become the output's elements.
  LocalRefs L(N.Locals);
  L.TraverseStmt(const_cast<CompoundStmt *>(Body));
  for (const auto &[E, V] : L.Found) {
    auto Range = C.rangeOf(E->getSourceRange());
    if (!Range)
      return makeError("'{0}' is written through a macro", V->getName());
    Other.push_back({Range->first, Range->second - Range->first, N.at(N.Locals.at(V))});
  }
  llvm::erase_if(Other, [&](const SourceEdit &E) {
    return any_of(Reads, [&](const auto &Rd) {
      return E.Offset >= Rd.first && E.Offset + E.Length <= Rd.second;
    });
  });
  Edits.insert(Edits.end(), Other.begin(), Other.end());
  // The inner offset loops and the coefficients' loops unrolled; the row
  // loop itself is replaced by the streamed rows.
  std::set<int> Loops = Coefs.unrollLoops();
  for (const std::vector<IndexForm> &Off : P.Offsets)
    for (const IndexForm &O : Off)
      for (AtomId A : O.atoms())
        if (M.atoms()[A].Kind == AtomKind::LoopVar && M.atoms()[A].Loop >= 0)
          Loops.insert(M.atoms()[A].Loop);
  Loops.erase(int(SP.L - M.Loops.data()));
  if (Error E = unrollEdits(In, M, Loops, Edits))
    return std::move(E);
  Edits.insert(Edits.end(), CoefEdits.begin(), CoefEdits.end());
  if (Interior) {
    // Each border test becomes its value, with the edits inside it applied
    // to the discarded copy.
    for (const BorderCheck &K : Checks) {
      auto Range = C.rangeOf(K.Cond->getSourceRange());
      if (!Range)
        return makeError("the border test '{0}' is written through a macro",
                         textOf(K.Cond, In.Ctx));
      std::vector<SourceEdit> Inner;
      llvm::erase_if(Edits, [&](const SourceEdit &E) {
        if (E.Offset >= Range->first && E.Offset + E.Length <= Range->second) {
          Inner.push_back(E);
          return true;
        }
        return false;
      });
      std::string Test =
          applyEdits(In.Source.slice(Range->first, Range->second), Range->first, Inner);
      Edits.push_back({Range->first, Range->second - Range->first,
                       formatv("((void)({0}), {1})", Test, K.Holds ? "true" : "false").str()});
    }
  }
  return Edits;
}

/// Text with its `#pragma` lines starting in the first column, as the rest
/// of the rule's code writes them.
static std::string pragmasLeft(StringRef Text) {
  SmallVector<StringRef, 32> Lines;
  Text.split(Lines, '\n');
  std::string Out;
  for (size_t I = 0; I < Lines.size(); ++I) {
    if (I)
      Out += "\n";
    Out += Lines[I].ltrim().starts_with("#pragma") ? Lines[I].ltrim().str() : Lines[I].str();
  }
  return Out;
}

/// The text of [Begin, End) of the source with the edits that lie inside it.
static std::string copyRange(StringRef Source, unsigned Begin, unsigned End,
                             const std::vector<SourceEdit> &Edits) {
  std::vector<SourceEdit> In;
  for (const SourceEdit &E : Edits)
    if (E.Offset >= Begin && E.Offset + E.Length <= End)
      In.push_back(E);
  return applyEdits(Source.slice(Begin, End), Begin, In);
}

/// The identifiers of a text, member names (`threadIdx.x`, `p->n`) left out.
static std::set<std::string> identifiers(StringRef Text) {
  std::set<std::string> Ids;
  for (size_t I = 0; I < Text.size();) {
    if (!isAlpha(Text[I]) && Text[I] != '_') {
      ++I;
      continue;
    }
    size_t J = I;
    while (J < Text.size() && (isAlnum(Text[J]) || Text[J] == '_'))
      ++J;
    StringRef Before = Text.take_front(I).rtrim();
    bool Member = Before.ends_with(".") || Before.ends_with("->");
    if ((I == 0 || !isDigit(Text[I - 1])) && !Member)
      Ids.insert(Text.slice(I, J).str());
    I = J;
  }
  return Ids;
}

void Writer::pureDecls(std::vector<std::string> &Lines, StringRef Ind, const StreamPlan &SP,
                       const std::vector<SourceEdit> &Edits, StringRef Text) {
  EditCollector C(In);
  std::set<std::string> Ids = identifiers(Text);
  std::vector<std::string> Decls;
  for (auto It = SP.Locals.rbegin(); It != SP.Locals.rend(); ++It) {
    const VarDecl *V = *It;
    if (!SP.Pure.count(V) || !Ids.count(V->getName().str()))
      continue;
    auto Rg = C.rangeOf(V->getInit()->getSourceRange());
    if (!Rg)
      continue; // pure only where its initialiser is editable (streamPlan)
    std::string Init = copyRange(In.Source, Rg->first, Rg->second, Edits);
    std::set<std::string> More = identifiers(Init);
    Ids.insert(More.begin(), More.end());
    Decls.push_back(formatv("{0}const {1} {2} = {3};", Ind,
                            typeSpelling(V->getType().getUnqualifiedType(), In.Ctx),
                            V->getName(), Init)
                        .str());
  }
  Lines.insert(Lines.end(), Decls.rbegin(), Decls.rend());
}

Error Writer::streamRows(std::vector<std::string> &Lines, StringRef Ind0, int64_t R, int64_t Cc,
                         const StreamPlan &SP, const StreamNames &N, const TilePlan &P,
                         bool Interior, bool Unguarded, const std::optional<VectorRows> &V) {
  EditCollector C(In);
  auto Edits = streamEdits(R, Cc, SP, N, Interior);
  if (!Edits)
    return Edits.takeError();
  const Stmt *LB = SP.For->getBody();
  std::pair<unsigned, unsigned> BR;
  if (const auto *CS = dyn_cast<CompoundStmt>(LB)) {
    auto L = C.offsetOf(CS->getLBracLoc()), Rb = C.offsetOf(CS->getRBracLoc());
    if (!L || !Rb)
      return makeError("the body of the loop over '{0}' is written through a macro", SP.L->Var);
    BR = {*L + 1, *Rb};
  } else {
    auto Rg = C.rangeOfStatement(LB);
    if (!Rg)
      return makeError("the body of the loop over '{0}' is written through a macro", SP.L->Var);
    BR = *Rg;
    // From the start of its line, with the indentation (and a pragma
    // inserted there).
    unsigned LS = lineStart(In.Source, BR.first);
    if (In.Source.slice(LS, BR.first).trim().empty())
      BR.first = LS;
  }
  std::string Text = copyRange(In.Source, BR.first, BR.second, *Edits);

  std::string Ind = Ind0.str(), I1 = Ind + "  ", I2 = I1 + "  ", I3 = I2 + "  ", I4 = I3 + "  ";
  auto Add = [&](const std::string &Indent, const std::string &T) { Lines.push_back(Indent + T); };
  int64_t W = Cc + RP.cols() - 1;
  std::string Type = typeSpelling(P.Elem, In.Ctx);
  Add("", "#pragma unroll");
  Add(Ind, formatv("for (int {0} = 0; {0} < {1}; ++{0}) {{", N.Rr, RP.rows(R)).str());
  Add(I1, formatv("{0} {1}[{2}];", Type, N.Win, W).str());
  size_t ND = P.Dims.size();
  // The coordinates of an element of this window row: column jj of the
  // window, or Col where given.
  auto Coordinates = [&](const std::string &At, const std::string &Col)
      -> Expected<std::vector<std::string>> {
    std::vector<std::string> E(ND);
    for (size_t D = ND; D-- > 0;) {
      E[D] = fresh("e" + std::to_string(D));
      std::string Rhs;
      if (D == RP.RowD) {
        auto Cst = print(RP.C + IndexForm::constant(RP.RowLo), true);
        if (!Cst)
          return Cst.takeError();
        Rhs = plusOffset(N.Row0, *Cst) + " + " + N.Rr;
      } else if (!Col.empty()) {
        Rhs = Col;
      } else if (Cc > 1) {
        auto Cst = print(SP.Cx + IndexForm::constant(RP.ColLo), true);
        if (!Cst)
          return Cst.takeError();
        Rhs = plusOffset(N.Col0, *Cst) + " + " + N.Jj;
      } else {
        auto Pos = print(P.Dims[D].Position + IndexForm::constant(RP.ColLo), true);
        if (!Pos)
          return Pos.takeError();
        Rhs = *Pos + " + " + N.Jj;
      }
      Add(At, formatv("long long {0} = {1};", E[D], Rhs).str());
    }
    return E;
  };
  // The window row element by element (every row of the border copy; rows
  // that are not aligned in the interior one).
  auto ScalarLoads = [&](const std::string &At) -> Error {
    std::string In1 = At + "  ";
    Add("", "#pragma unroll");
    Add(At, formatv("for (int {0} = 0; {0} < {1}; ++{0}) {{", N.Jj, W).str());
    auto E = Coordinates(In1, "");
    if (!E)
      return E.takeError();
    auto EL = elementLoad(FP, M, P, *E, [&](StringRef B) { return fresh(B); });
    if (!EL)
      return EL.takeError();
    for (const std::string &Decl : EL->Decls)
      Add(In1, Decl);
    std::string Zero = zeroOf(P.Elem, In.Ctx);
    if (EL->Conds.empty())
      Add(In1, formatv("{0}[{1}] = {2};", N.Win, N.Jj, EL->Load).str());
    else
      Add(In1, formatv("{0}[{1}] = {2} ? {3} : {4};", N.Win, N.Jj, join(EL->Conds, " && "),
                       EL->Load, Zero)
                   .str());
    Add(At, "}");
    return Error::success();
  };
  if (Interior && V) {
    // 16-byte loads of the aligned span around the window row, where the
    // row's span starts on a 16-byte boundary.
    Add(I1, "{");
    auto E = Coordinates(I2, plusOffset(N.Col0, std::to_string(V->First)));
    if (!E)
      return E.takeError();
    auto EL = elementLoad(FP, M, P, *E, [&](StringRef B) { return fresh(B); });
    if (!EL)
      return EL.takeError();
    if (!EL->Decls.empty() || !EL->Conds.empty())
      return makeError("the interior window row still tests or clamps its elements");
    std::string Ptr = fresh("vp"), Buf = fresh("vrow"), Vv = fresh("v"), Q = fresh("q");
    Add(I2, formatv("const {0} *{1} = &{2};", Type, Ptr, EL->Load).str());
    Add(I2, formatv("if ((reinterpret_cast<unsigned long long>({0}) & 15) == 0) {{", Ptr).str());
    Add(I3, formatv("{0} {1}[{2}];", Type, Buf, V->span()).str());
    Add("", "#pragma unroll");
    Add(I3, formatv("for (int {0} = 0; {0} < {1}; ++{0}) {{", Vv, V->Count).str());
    Add(I4, formatv("const {0} {1} = reinterpret_cast<const {0} *>({2})[{3}];", V->Type, Q, Ptr,
                    Vv)
                .str());
    static const char *Lanes[] = {"x", "y", "z", "w"};
    for (int64_t K = 0; K < V->Width; ++K)
      Add(I4, formatv("{0}[{1} * {2} + {3}] = {4}.{5};", Buf, V->Width, Vv, K, Q, Lanes[K]).str());
    Add(I3, "}");
    Add("", "#pragma unroll");
    Add(I3, formatv("for (int {0} = 0; {0} < {1}; ++{0})", N.Jj, W).str());
    Add(I3 + "  ", formatv("{0}[{1}] = {2}[{1} + {3}];", N.Win, N.Jj, Buf, V->Skip).str());
    Add(I2, "} else {");
    if (Error Err = ScalarLoads(I3))
      return Err;
    Add(I2, "}");
    Add(I1, "}");
  } else if (Error Err = ScalarLoads(I1)) {
    return Err;
  }
  // The row offset that output o reads from this window row.
  Add("", "#pragma unroll");
  Add(I1, formatv("for (int {0} = 0; {0} < {1}; ++{0}) {{", N.O, R).str());
  int64_t K = RP.RowLo - SP.Shift;
  std::string Val = formatv("{0} - {1}", N.Rr, N.O).str();
  Add(I2, formatv("const {0} {1} = {2};", typeSpelling(SP.L->IV->getType().getUnqualifiedType(), In.Ctx),
                  SP.L->Var, K ? plusOffset(Val, std::to_string(K)) : Val)
              .str());
  std::string InRange = formatv("{0} >= {1} && {0} <= {2}", SP.L->Var, SP.Start, SP.Last).str();
  if (SP.Step != 1)
    InRange += formatv(" && ({0} - ({1})) % {2} == 0", SP.L->Var, SP.Start, SP.Step).str();
  Add(I2, "if (" + InRange + ") {");
  // Each output's scope: the pure locals its copy names, recomputed; its
  // guard, except in the interior copy (which runs only when every output's
  // holds).
  std::vector<std::string> Scope;
  const std::string &Guard = Unguarded ? "" : N.Levels.back();
  std::string At = I4;
  if (!Guard.empty()) {
    Scope.push_back(I4 + "if (" + N.at(Guard) + ")");
    At += "  ";
  }
  Scope.push_back(At + "do {");
  std::string Copy = indentBy(StringRef(Text).trim("\n").rtrim(),
                              std::string(At.size() + 2 > Ind.size() ? At.size() + 2 - Ind.size() : 0,
                                          ' '));
  Scope.push_back(pragmasLeft(Copy));
  Scope.push_back(At + "} while (0);");
  std::vector<std::string> Decls;
  pureDecls(Decls, I4, SP, *Edits, Text);
  Add("", "#pragma unroll");
  Add(I3, formatv("for (int {0} = 0; {0} < {1}; ++{0}){2}", N.Cl, Cc, Decls.empty() ? "" : " {")
              .str());
  Lines.insert(Lines.end(), Decls.begin(), Decls.end());
  Lines.insert(Lines.end(), Scope.begin(), Scope.end());
  if (!Decls.empty())
    Add(I3, "}");
  Add(I2, "}");
  Add(I1, "}");
  Add(Ind, "}");
  return Error::success();
}

Expected<std::string> Writer::writeStream(int64_t R, int64_t Cc, const StreamPlan &SP,
                                          const std::optional<VectorRows> &V) {
  const TilePlan &P = RP.P;
  EditCollector C(In);
  std::string Ind = "  ";
  if (!Body->body_empty())
    if (auto O = C.offsetOf(Body->body_front()->getBeginLoc()))
      Ind = lineIndent(In.Source, *O).str();
  StreamNames N;
  N.Row0 = fresh("row0");
  if (Cc > 1)
    N.Col0 = fresh("col0");
  N.Win = fresh(P.Buffer + "_row");
  N.Rr = fresh("rr");
  N.Jj = fresh("jj");
  N.O = fresh("o");
  N.Cl = fresh("c");
  for (const VarDecl *V : SP.Locals)
    if (!SP.Pure.count(V))
      N.Locals[V] = fresh(V->getName().str() + "_s");
  N.Levels.push_back(SP.EarlyReturn ? fresh("act") : "");
  for (const Stmt *S : SP.Path)
    if (isa<IfStmt>(S))
      N.Levels.push_back(fresh("act"));
  std::vector<std::string> Lines;
  auto Add = [&](const std::string &Indent, const std::string &Text) {
    Lines.push_back(Indent + Text);
  };
  Add(Ind, formatv("// stencil-register-rows (streaming): {0} x {1} outputs per thread; the {2} "
                   "rows of {3} input elements",
                   R, Cc, RP.rows(R), Cc + RP.cols() - 1)
               .str());
  Add(Ind, formatv("// of '{0}' they read pass through registers one row at a time, each used by "
                   "every output that",
                   P.Buffer)
               .str());
  Add(Ind, formatv("// reads it; the code around the loop over '{0}' runs once per output, with "
                   "its locals per output.",
                   SP.L->Var)
               .str());
  if (Error E = Coefs.edits(In, M, FP, [&](StringRef B) { return fresh(B); }, CoefEdits))
    return std::move(E);
  if (Error E = Coefs.loads(In, FP, Ind, [&](StringRef B) { return fresh(B); },
                            /*BarrierAfter=*/true, Lines))
    return std::move(E);
  auto G = print(RP.G, true);
  if (!G)
    return G.takeError();
  Add(Ind, formatv("const long long {0} = {1} * ({2});", N.Row0, R, *G).str());
  std::string ColFirst;
  if (Cc > 1) {
    auto GX = print(SP.Gx, true), Cst = print(SP.Cx + IndexForm::constant(RP.ColLo), true);
    if (!GX)
      return GX.takeError();
    if (!Cst)
      return Cst.takeError();
    Add(Ind, formatv("const long long {0} = {1} * ({2});", N.Col0, Cc, *GX).str());
    ColFirst = plusOffset(N.Col0, *Cst);
  }
  for (const DeclStmt *D : SP.Constants) {
    auto Rg = C.rangeOfStatement(D);
    if (!Rg)
      return makeError("a constant before the loop over '{0}' is written through a macro",
                       SP.L->Var);
    Add(Ind, In.Source.slice(Rg->first, Rg->second).str());
  }
  for (const VarDecl *V : SP.Locals)
    if (!SP.Pure.count(V))
      Add(Ind, formatv("{0} {1}[{2}][{3}];",
                     typeSpelling(V->getType().getUnqualifiedType(), In.Ctx), N.Locals.at(V), R,
                     Cc)
                 .str());
  for (const std::string &L : N.Levels)
    if (!L.empty())
      Add(Ind, formatv("bool {0}[{1}][{2}];", L, R, Cc).str());
  auto Edits = streamEdits(R, Cc, SP, N, /*Interior=*/false);
  if (!Edits)
    return Edits.takeError();
  auto Copy = [&](SourceRange SR) -> Expected<std::string> {
    auto Rg = C.rangeOf(SR);
    if (!Rg)
      return makeError("code before or after the loop over '{0}' is written through a macro",
                       SP.L->Var);
    return copyRange(In.Source, Rg->first, Rg->second, *Edits);
  };
  auto Guard = [&](size_t Level) { return N.Levels[Level].empty() ? "" : N.at(N.Levels[Level]); };
  std::string I1 = Ind + "  ", I2 = I1 + "  ";
  // The loops over a thread's outputs, opening their scope, at Base.
  auto OutputLoops = [&](const std::string &Base) {
    Add("", "#pragma unroll");
    Add(Base, formatv("for (int {0} = 0; {0} < {1}; ++{0})", N.O, R).str());
    Add("", "#pragma unroll");
    Add(Base + "  ", formatv("for (int {0} = 0; {0} < {1}; ++{0}) {{", N.Cl, Cc).str());
  };
  // The prologue, once per output. With an interior copy, its threads are
  // those whose outputs all pass the guards too (`all`), so that the copy
  // and its epilogue test none.
  std::string All;
  if (!Checks.empty() && !N.Levels.back().empty()) {
    All = fresh("all_active");
    Add(Ind, formatv("bool {0} = true;", All).str());
  }
  Add(Ind, "// The code before the row loop, per output.");
  OutputLoops(Ind);
  size_t ProStart = Lines.size();
  if (!N.Levels[0].empty())
    Add(I2, N.at(N.Levels[0]) + " = true;");
  size_t Level = 0;
  for (size_t K = 0; K + 1 < SP.Path.size(); ++K) {
    const Stmt *S = SP.Path[K], *Next = SP.Path[K + 1];
    if (const auto *If = dyn_cast<IfStmt>(S)) {
      auto Cond = Copy(If->getCond()->getSourceRange());
      if (!Cond)
        return Cond.takeError();
      std::string G0 = Guard(Level);
      ++Level;
      Add(I2, formatv("{0} = {1}({2});", N.at(N.Levels[Level]), G0.empty() ? "" : G0 + " && ",
                      *Cond)
                  .str());
      continue;
    }
    for (const Stmt *Child : cast<CompoundStmt>(S)->body()) {
      if (Child == Next)
        break;
      std::string G0 = Guard(Level);
      if (const auto *D = dyn_cast<DeclStmt>(Child)) {
        if (is_contained(SP.Constants, D))
          continue;
        for (const Decl *Dd : D->decls()) {
          const auto *V = cast<VarDecl>(Dd);
          if (!V->getInit() || SP.Pure.count(V))
            continue;
          auto Init = Copy(V->getInit()->getSourceRange());
          if (!Init)
            return Init.takeError();
          Add(I2, formatv("{0}{1} = {2};", G0.empty() ? "" : "if (" + G0 + ") ",
                          N.at(N.Locals.at(V)), *Init)
                      .str());
        }
      } else if (const auto *If = dyn_cast<IfStmt>(Child)) {
        auto Cond = Copy(If->getCond()->getSourceRange());
        if (!Cond)
          return Cond.takeError();
        std::vector<std::string> Off;
        for (size_t L = 0; L <= Level; ++L)
          Off.push_back(N.at(N.Levels[L]));
        Add(I2, formatv("if ({0}({1}))", G0.empty() ? "" : G0 + " && ", *Cond).str());
        Add(I2 + "  ", join(Off, " = ") + " = false;");
      }
    }
  }
  if (!All.empty())
    Add(I2, formatv("{0} = {0} && {1};", All, N.at(N.Levels.back())).str());
  // The pure locals the prologue names, declared ahead of it.
  auto ScopeDecls = [&](size_t Start, const std::string &At) {
    std::vector<std::string> Decls;
    pureDecls(Decls, At, SP, *Edits,
              join(ArrayRef<std::string>(Lines).drop_front(Start), "\n"));
    Lines.insert(Lines.begin() + Start, Decls.begin(), Decls.end());
  };
  ScopeDecls(ProStart, I2);
  Add(I1, "}");

  // The epilogue, once per output: the statements after the row loop,
  // innermost block first; Guarded: under each output's guards.
  std::vector<size_t> LevelAt;
  Level = 0;
  for (const Stmt *S : SP.Path) {
    LevelAt.push_back(Level);
    if (isa<IfStmt>(S))
      ++Level;
  }
  auto Epilogue = [&](const std::string &Base, bool Guarded) -> Error {
    std::string B1 = Base + "  ", B2 = B1 + "  ";
    std::string Extra = std::string(Base.size() - Ind.size(), ' ');
    Add(Base, "// The code after the row loop, per output.");
    OutputLoops(Base);
    size_t Start = Lines.size();
    for (size_t K = SP.Path.size() - 1; K-- > 0;) {
      const auto *CS = dyn_cast<CompoundStmt>(SP.Path[K]);
      if (!CS)
        continue;
      std::vector<std::string> Stmts;
      bool After = false;
      for (const Stmt *Child : CS->body()) {
        if (After) {
          auto Rg = C.rangeOfStatement(Child);
          if (!Rg)
            return makeError("a statement after the loop over '{0}' is written through a macro",
                             SP.L->Var);
          Stmts.push_back(lineIndent(In.Source, Rg->first).str() +
                          copyRange(In.Source, Rg->first, Rg->second, *Edits));
        }
        After |= Child == SP.Path[K + 1];
      }
      if (Stmts.empty())
        continue;
      std::string G0 = Guarded ? Guard(LevelAt[K]) : "";
      std::string Text = join(Stmts, "\n");
      if (G0.empty()) {
        Lines.push_back(pragmasLeft(indentBy(Text, Extra + "    ")));
        continue;
      }
      Add(B2, "if (" + G0 + ") {");
      Lines.push_back(pragmasLeft(indentBy(Text, Extra + "      ")));
      Add(B2, "}");
    }
    ScopeDecls(Start, B2);
    Add(B1, "}");
    return Error::success();
  };

  if (Checks.empty()) {
    if (Error E = streamRows(Lines, Ind, R, Cc, SP, N, P, /*Interior=*/false))
      return std::move(E);
    if (Error E = Epilogue(Ind, /*Guarded=*/true))
      return std::move(E);
    return "\n" + join(Lines, "\n") + "\n";
  }
  // With 16-byte loads, the aligned span around the window must lie
  // inside too: its extra elements are loaded, never used.
  auto Cond = V ? interiorCondition(R, N.Row0, Cc, plusOffset(N.Col0, std::to_string(V->First)),
                                    V->span())
                : interiorCondition(R, N.Row0, Cc, ColFirst);
  if (!Cond)
    return Cond.takeError();
  TilePlan Inside = insidePlan(P);
  std::string Interior = fresh("interior");
  Add(Ind, "// Threads whose window lies inside the borders run a copy with the border tests "
           "known to hold.");
  if (!All.empty())
    Add(Ind, "// Its threads' outputs all pass their guards: it tests none.");
  Add(Ind, formatv("const bool {0} = {1}{2};", Interior, All.empty() ? "" : All + " && ", *Cond)
               .str());
  Add(Ind, formatv("if ({0}) {{", Interior).str());
  if (Error E = streamRows(Lines, I1, R, Cc, SP, N, Inside, /*Interior=*/true,
                           /*Unguarded=*/!All.empty(), V))
    return std::move(E);
  if (Error E = Epilogue(I1, /*Guarded=*/All.empty()))
    return std::move(E);
  Add(Ind, "} else {");
  if (Error E = streamRows(Lines, I1, R, Cc, SP, N, P, /*Interior=*/false))
    return std::move(E);
  if (Error E = Epilogue(I1, /*Guarded=*/true))
    return std::move(E);
  Add(Ind, "}");
  return "\n" + join(Lines, "\n") + "\n";
}

Expected<VectorRows> Writer::vectorRows(int64_t Cc, const StreamPlan &SP) {
  const TilePlan &P = RP.P;
  if (Cc < 2 || !SP.Columns || !RP.ColD)
    return makeError("one column per thread");
  if (Checks.empty())
    return makeError("no interior copy (no border test to take as known)");
  VectorRows V;
  QualType T = P.Elem.getCanonicalType().getUnqualifiedType();
  if (T->isSpecificBuiltinType(BuiltinType::Float))
    V.Type = "float4", V.Width = 4;
  else if (T->isSpecificBuiltinType(BuiltinType::Int))
    V.Type = "int4", V.Width = 4;
  else if (T->isSpecificBuiltinType(BuiltinType::UInt))
    V.Type = "uint4", V.Width = 4;
  else if (T->isSpecificBuiltinType(BuiltinType::Double))
    V.Type = "double2", V.Width = 2;
  else
    return makeError("the element type '{0}' has no 16-byte vector type",
                     typeSpelling(P.Elem, In.Ctx));
  if (Cc % V.Width)
    return makeError("{0} columns per thread are not a multiple of {1}", Cc, V.Width);
  const TileDim &Col = P.Dims[*RP.ColD];
  if (Col.Stride != IndexForm::constant(1))
    return makeError("consecutive columns of '{0}' are not consecutive elements (stride {1})",
                     P.Buffer, Col.StrideText);
  // The interior loads must be plain: no clamp or bound left to test.
  TilePlan Inside = insidePlan(P);
  for (const TileDim &D : Inside.Dims)
    if (D.ClampLo || D.ClampHi || D.BoundLo || D.BoundHi)
      return makeError("the interior window rows still clamp or test their elements");
  auto C0 = (SP.Cx + IndexForm::constant(RP.ColLo)).constantValue();
  if (!C0)
    return makeError("the window's first column is not a constant offset from the thread's");
  V.First = *C0 >= 0 ? *C0 / V.Width * V.Width : -((-*C0 + V.Width - 1) / V.Width) * V.Width;
  V.Skip = *C0 - V.First;
  int64_t W = Cc + RP.cols() - 1;
  V.Count = (V.Skip + W + V.Width - 1) / V.Width;
  return V;
}

Expected<std::string> Writer::interiorCondition(int64_t R, StringRef Row0, int64_t Cc,
                                                StringRef ColFirst, int64_t ColSpan) {
  const TilePlan &P = RP.P;
  // The first and last coordinate of the window along each dimension.
  auto Ends = [&](unsigned D) -> Expected<std::pair<std::string, std::string>> {
    if (D == RP.RowD) {
      auto First = print(RP.C + IndexForm::constant(RP.RowLo), true);
      if (!First)
        return First.takeError();
      std::string F = *First == "0" ? Row0.str() : "(" + plusOffset(Row0, *First) + ")";
      return std::make_pair(F, formatv("{0} + {1}", F, RP.rows(R) - 1).str());
    }
    bool Mid = RP.MidD && D == *RP.MidD;
    if (Cc > 1 && !Mid)
      return std::make_pair("(" + ColFirst.str() + ")",
                            formatv("({0} + {1})", ColFirst,
                                    (ColSpan ? ColSpan : Cc + RP.ColHi - RP.ColLo) - 1)
                                .str());
    auto First = print(P.Dims[D].Position + IndexForm::constant(Mid ? RP.MidLo : RP.ColLo), true);
    auto Last = print(P.Dims[D].Position + IndexForm::constant(Mid ? RP.MidHi : RP.ColHi), true);
    if (!First)
      return First.takeError();
    if (!Last)
      return Last.takeError();
    return std::make_pair("(" + *First + ")", "(" + *Last + ")");
  };
  std::vector<std::string> Conds;
  // Of bounds on one side of one dimension that differ by a constant, the
  // tightest implies the others.
  auto Implied = [&](const BorderCheck &K) {
    return any_of(Checks, [&](const BorderCheck &O) {
      if (&O == &K || O.B.Dim != K.B.Dim || O.B.Lower != K.B.Lower)
        return false;
      auto D = (O.B.Bound - K.B.Bound).constantValue();
      return D && (K.B.Lower ? *D > 0 : *D < 0);
    });
  };
  for (const BorderCheck &K : Checks) {
    if (Implied(K))
      continue;
    auto E = Ends(K.B.Dim);
    if (!E)
      return E.takeError();
    auto B = print(K.B.Bound, true);
    if (!B)
      return B.takeError();
    std::string Cond = K.B.Lower ? formatv("{0} >= {1}", E->first, *B).str()
                                 : formatv("{0} <= {1}", E->second, *B).str();
    if (!is_contained(Conds, Cond))
      Conds.push_back(Cond);
  }
  return join(Conds, " && ");
}

/// The expressions `blockIdx.y * blockDim.y + threadIdx.y` of a body.
class RowIndexFinder : public DynamicRecursiveASTVisitor {
public:
  explicit RowIndexFinder(char Want = 'y') : Want(Want) {}
  bool VisitExpr(Expr *E) override {
    char Dim = 0;
    if (isGlobalIndex(E, &Dim) && Dim == Want)
      Found.push_back(E);
    return true;
  }
  std::vector<const Expr *> Found;
  char Want;
};

/// Whether F depends on threadIdx.<Axis> or blockIdx.<Axis>.
bool movesWith(const an::AtomTable &T, const IndexForm &F, char Axis) {
  auto Tid = T.findBuiltin("threadIdx", Axis), Bid = T.findBuiltin("blockIdx", Axis);
  return (Tid && T.dependsOn(F, *Tid)) || (Bid && T.dependsOn(F, *Bid));
}

/// Whether a guard of A bounds the thread's row along Axis above:
/// `blockIdx * blockDim + threadIdx (+ what does not move) < bound` with a
/// bound the block shares; Loops: the bound may hold loop variables (a
/// read's bound: it keeps the read inside the image, not the row inside
/// the grid).
bool rowBoundedAbove(const an::AtomTable &T, const an::Access &A, char Axis, bool Loops) {
  auto Tid = T.findBuiltin("threadIdx", Axis), Bid = T.findBuiltin("blockIdx", Axis),
       BDim = T.findBuiltin("blockDim", Axis);
  if (!Tid || !Bid || !BDim)
    return false;
  IndexForm Row = IndexForm::atom(*Bid) * IndexForm::atom(*BDim) + IndexForm::atom(*Tid);
  for (const an::GuardTerm &G : A.G.Terms) {
    std::optional<IndexForm> Slack = G.Cmp ? G.Cmp->slack() : std::nullopt;
    if (!Slack)
      continue;
    const IndexForm &Diff = *Slack;
    IndexForm Rest = Diff + Row;
    if (Diff.coefficientOf(*Tid) != IndexForm::constant(-1) || movesWith(T, Rest, Axis))
      continue;
    bool Varies = Loops ? findKind(T, Rest, {AtomKind::ThreadIdx, AtomKind::Unknown}).has_value()
                        : findKind(T, Rest, {AtomKind::ThreadIdx, AtomKind::Unknown,
                                             AtomKind::LoopVar, AtomKind::LoopIter})
                              .has_value();
    if (!Varies)
      return true;
  }
  return false;
}

/// Why a function the kernel hands its indices (ForwardedIndices:
/// specialize-scalar's fallback) cannot run once per row as the body's
/// copies do, with the row's indices, or "". Its body meets what the
/// kernel's must: the row axis's threadIdx and blockIdx only in the row
/// `blockIdx * blockDim + threadIdx`, no gridDim along it, nothing shared
/// between threads, no call that reads the indices itself, and every access
/// that moves with the row bounded along it (rows past the original grid
/// do nothing, and read inside the image).
std::string perRowCallee(const ForwardedIndices &Fw, char Axis, ASTContext &Ctx) {
  const FunctionDecl &F = *Fw.Callee;
  std::string Name = F.getNameAsString();
  auto Why = [&](const Twine &W) { return ("'" + Name + "', given the thread's indices, " + W).str(); };
  BuiltinFinder Facts;
  Facts.TraverseStmt(F.getBody());
  if (callsSyncthreads(F.getBody()) || any_of(Facts.Calls, isCollective) || Facts.Shared)
    return Why("synchronises or shares memory between threads");
  std::set<const FunctionDecl *> Seen;
  for (const CallExpr *Call : Facts.Calls)
    if (readsBuiltins(Call->getDirectCallee(), Seen))
      return Why(formatv("calls '{0}', which reads thread or block indices",
                         textOf(Call->getCallee(), Ctx)));
  RowIndexFinder Rows(Axis);
  Rows.TraverseStmt(F.getBody());
  const SourceManager &SM = Ctx.getSourceManager();
  for (const auto &[E, Ref] : Facts.Found) {
    if (Ref.Dim != Axis)
      continue;
    if (Ref.Var == "gridDim")
      return Why(formatv("reads 'gridDim.{0}', which the smaller grid changes", Axis));
    if (Ref.Var != "threadIdx" && Ref.Var != "blockIdx")
      continue;
    if (!any_of(Rows.Found, [&](const Expr *R) {
          SourceRange RR = R->getSourceRange(), ER = E->getSourceRange();
          return !SM.isBeforeInTranslationUnit(ER.getBegin(), RR.getBegin()) &&
                 !SM.isBeforeInTranslationUnit(RR.getEnd(), ER.getEnd());
        }))
      return Why(formatv("uses '{0}.{1}' (line {2}) other than in its row", Ref.Var, Axis,
                         SM.getPresumedLineNumber(E->getBeginLoc())));
  }
  auto Model = an::analyzeKernel(Ctx, F, an::AnalysisOptions());
  if (!Model)
    return Why("cannot be analysed: " + toString(Model.takeError()));
  for (const an::Access &A : Model->Accesses) {
    if (A.Space == an::MemorySpace::Unknown)
      return Why(formatv("accesses '{0}' (line {1}) through a pointer the analysis cannot "
                         "trace",
                         A.Text, A.Loc.Line));
    bool Moves = movesWith(Model->atoms(), A.Index, Axis) || !A.IndexKnown;
    if (Moves && !rowBoundedAbove(Model->atoms(), A, Axis, A.Kind == an::AccessKind::Load))
      return Why(formatv("has '{0}' (line {1}) without a bound along {2}, so the rows past the "
                         "original grid would reach it",
                         A.Text, A.Loc.Line, Axis));
  }
  return "";
}

/// The thread axis whose outputs share a window: z for a 3D footprint
/// (rows are planes), y otherwise.
char rowAxis(size_t Dims) { return Dims == 3 ? 'z' : 'y'; }

/// The row plan for a stencil's tile plan, or why there is none.
Expected<RowsPlan> rowsPlan(const RuleInput &In, an::KernelModel &M, TilePlan P) {
  const an::AtomTable &T = M.atoms();
  RowsPlan RP;
  if (P.Dims.size() > 3)
    return makeError("the stencil on '{0}' is {1}D: the register window is written for "
                     "footprints over the thread grid's x, y and z",
                     P.Buffer, P.Dims.size());
  RP.Axis = rowAxis(P.Dims.size());
  const std::string Want = P.Dims.size() == 3 ? "threadIdx.x, threadIdx.y or threadIdx.z"
                                              : "threadIdx.x or threadIdx.y";
  std::optional<unsigned> RowD;
  for (unsigned D = 0; D < P.Dims.size(); ++D) {
    char TD = P.Dims[D].ThreadDim;
    if (TD == RP.Axis && !RowD)
      RowD = D;
    else if (TD == 'x' && !RP.ColD)
      RP.ColD = D;
    else if (RP.Axis == 'z' && TD == 'y' && !RP.MidD)
      RP.MidD = D;
    else
      return makeError("dimension {0} of the stencil on '{1}' (stride {2}) moves with {3}, not "
                       "with {4}",
                       D, P.Buffer, P.Dims[D].StrideText,
                       TD ? "threadIdx." + std::string(1, TD) : std::string("the block only"),
                       Want);
  }
  if (!RowD)
    return makeError("no dimension of the stencil on '{0}' moves with {1}: there are no "
                     "{2} of outputs to share a window",
                     P.Buffer, RP.axis("threadIdx"), RP.rowWord());
  RP.RowD = *RowD;
  auto Extent = [&](unsigned D, int64_t &Lo, int64_t &Hi) -> Error {
    auto L = P.Dims[D].Lo.constantValue(), H = P.Dims[D].Hi.constantValue();
    if (!L || !H)
      return makeError("the footprint of '{0}' along dimension {1} ('{2}'..'{3}') is not a "
                       "compile-time constant: the register window's size must be one",
                       P.Buffer, D, M.render(P.Dims[D].Lo), M.render(P.Dims[D].Hi));
    Lo = *L;
    Hi = *H;
    return Error::success();
  };
  if (Error Er = Extent(RP.RowD, RP.RowLo, RP.RowHi))
    return std::move(Er);
  if (RP.ColD)
    if (Error Er = Extent(*RP.ColD, RP.ColLo, RP.ColHi))
      return std::move(Er);
  if (RP.MidD)
    if (Error Er = Extent(*RP.MidD, RP.MidLo, RP.MidHi))
      return std::move(Er);
  if (RP.RowLo == RP.RowHi)
    return makeError("the stencil on '{0}' reads no neighbouring {1} (offsets along {2} "
                     "{3}..{3}): {1} of outputs share nothing",
                     P.Buffer, RP.rowWord(), RP.Axis, RP.RowLo);
  // The row: blockIdx * blockDim + threadIdx along the axis, plus what does
  // not move.
  const IndexForm &Pos = P.Dims[RP.RowD].Position;
  auto Tid = T.findBuiltin("threadIdx", RP.Axis), Bid = T.findBuiltin("blockIdx", RP.Axis);
  auto BDim = T.findBuiltin("blockDim", RP.Axis);
  auto Coef = Bid ? Pos.coefficientOf(*Bid) : std::nullopt;
  bool Spans = Coef && BDim && *Coef == IndexForm::atom(*BDim);
  const std::string Global = RP.global();
  if (!Tid || !Spans || Pos.coefficientOf(*Tid) != IndexForm::constant(1))
    return makeError("the {0} of the stencil on '{1}' is '{2}', not {3} plus a constant offset",
                     RP.row(), P.Buffer, M.render(Pos), Global);
  RP.G = IndexForm::atom(*Bid) * *Coef + IndexForm::atom(*Tid);
  RP.C = Pos - RP.G;
  if (movesWith(T, RP.C, RP.Axis))
    return makeError("the {0} of the stencil on '{1}' ('{2}') moves with {3} other than as {4}",
                     RP.row(), P.Buffer, M.render(Pos), RP.Axis, Global);
  for (std::optional<unsigned> D : {RP.ColD, RP.MidD})
    if (D && movesWith(T, P.Dims[*D].Position, RP.Axis))
      return makeError("the {0} of the stencil on '{1}' ('{2}') moves with {3}",
                       D == RP.ColD ? "column" : "row", P.Buffer,
                       M.render(P.Dims[*D].Position), RP.Axis);
  RP.P = std::move(P);
  return RP;
}

/// The path of statements from S down to Target (both included).
static bool pathTo(const Stmt *S, const Stmt *Target, std::vector<const Stmt *> &Path) {
  if (!S)
    return false;
  Path.push_back(S);
  if (S == Target)
    return true;
  for (const Stmt *Child : S->children())
    if (pathTo(Child, Target, Path))
      return true;
  Path.pop_back();
  return false;
}

/// Whether S has a return, or a break or continue that would leave S
/// (outside a loop or switch of S).
/// With ContinueOk, a continue that would leave S is not counted (the
/// row loop's body: it ends one output's row, as in the original).
static bool leaves(const Stmt *S, bool InLoop = false, bool ContinueOk = false) {
  if (!S)
    return false;
  if (isa<ReturnStmt>(S) || isa<GotoStmt>(S) || isa<IndirectGotoStmt>(S))
    return true;
  if ((isa<BreakStmt>(S) || (isa<ContinueStmt>(S) && !ContinueOk)) && !InLoop)
    return true;
  if (isa<LambdaExpr>(S))
    return false;
  bool Loop = InLoop || isa<ForStmt>(S) || isa<WhileStmt>(S) || isa<DoStmt>(S) ||
              isa<SwitchStmt>(S) || isa<CXXForRangeStmt>(S);
  for (const Stmt *Child : S->children())
    if (leaves(Child, Loop, ContinueOk))
      return true;
  return false;
}

/// The variables a statement assigns (=, op=, ++, --) or takes the address of.
class Assigned : public DynamicRecursiveASTVisitor {
public:
  bool VisitBinaryOperator(BinaryOperator *B) override {
    if (B->isAssignmentOp())
      note(B->getLHS());
    return true;
  }
  bool VisitUnaryOperator(UnaryOperator *U) override {
    if (U->isIncrementDecrementOp() || U->getOpcode() == UO_AddrOf)
      note(U->getSubExpr());
    return true;
  }
  void note(const Expr *E) {
    if (const auto *D = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts()))
      if (const auto *V = dyn_cast<VarDecl>(D->getDecl()))
        Vars.insert(V);
  }
  std::set<const VarDecl *> Vars;
};

/// Whether an initialiser computes its value from the thread's position,
/// unmodified parameters, constants and the locals already found pure, with
/// no memory read, call (other than min/max/abs) or side effect; Guarded:
/// the original evaluates it only under a guard, so an integer division
/// needs a non-zero constant divisor (it is evaluated for every output).
class PureInit : public DynamicRecursiveASTVisitor {
public:
  PureInit(const std::set<const VarDecl *> &Pure, const Stmt *Body, ASTContext &Ctx, bool Guarded)
      : Pure(Pure), Body(Body), Ctx(Ctx), Guarded(Guarded) {}
  bool TraverseStmt(Stmt *S) override {
    if (const auto *E = dyn_cast_or_null<Expr>(S); E && frontend::cudaBuiltin(E))
      return true;
    return DynamicRecursiveASTVisitor::TraverseStmt(S);
  }
  bool VisitDeclRefExpr(DeclRefExpr *E) override {
    if (isa<EnumConstantDecl>(E->getDecl()) || isa<FunctionDecl>(E->getDecl()))
      return true;
    const auto *V = dyn_cast<VarDecl>(E->getDecl());
    if (V && isa<ParmVarDecl>(V) && !V->getType()->isReferenceType() && !isModified(V, Body))
      return true;
    if (V && (Pure.count(V) || V->isUsableInConstantExpressions(Ctx)))
      return true;
    return Ok = false;
  }
  bool VisitCallExpr(CallExpr *C) override {
    const FunctionDecl *F = C->getDirectCallee();
    static const std::set<std::string> Allowed = {"min", "max", "umin", "umax", "llmin",
                                                  "llmax", "ullmin", "ullmax", "abs", "llabs"};
    if (!F || !F->getIdentifier() || !Allowed.count(F->getName().str()))
      Ok = false;
    return Ok;
  }
  bool VisitArraySubscriptExpr(ArraySubscriptExpr *) override { return Ok = false; }
  bool VisitMemberExpr(MemberExpr *M) override {
    if (M->isArrow())
      Ok = false;
    return Ok;
  }
  bool VisitUnaryOperator(UnaryOperator *U) override {
    if (U->getOpcode() == UO_Deref || U->getOpcode() == UO_AddrOf || U->isIncrementDecrementOp())
      Ok = false;
    return Ok;
  }
  bool VisitBinaryOperator(BinaryOperator *B) override {
    if (B->isAssignmentOp())
      return Ok = false;
    if ((B->getOpcode() == BO_Div || B->getOpcode() == BO_Rem) && Guarded &&
        B->getType()->isIntegerType()) {
      auto D = evaluateInt(B->getRHS(), Ctx);
      if (!D || *D == 0)
        Ok = false;
    }
    return Ok;
  }
  bool VisitStmt(Stmt *S) override {
    if (isa<StmtExpr>(S) || isa<LambdaExpr>(S) || isa<CXXThrowExpr>(S) || isa<GNUNullExpr>(S))
      Ok = false;
    return Ok;
  }
  bool Ok = true;

private:
  const std::set<const VarDecl *> &Pure;
  const Stmt *Body;
  ASTContext &Ctx;
  bool Guarded;
};

/// The streaming plan, or why the kernel does not have its shape.
Expected<StreamPlan> streamPlan(const RuleInput &In, an::KernelModel &M, const RowsPlan &RP,
                                const CompoundStmt *Body, Planner &Pl) {
  const TilePlan &P = RP.P;
  const an::AtomTable &T = M.atoms();
  if (RP.MidD)
    return makeError("the window is 3D (planes of '{0}'): the streamed form is written for 2D "
                     "windows",
                     P.Buffer);
  StreamPlan SP;
  int Loop = -1;
  for (size_t K = 0; K < P.Reads.size(); ++K) {
    const an::Access &A = *P.Reads[K];
    const IndexForm &Off = P.Offsets[K][RP.RowD];
    std::optional<AtomId> Var;
    for (AtomId X : Off.atoms())
      if (T[X].Kind == AtomKind::LoopVar) {
        if (Var && *Var != X)
          return makeError("the row offset of '{0}' (line {1}) is '{2}', which two loops "
                           "generate: the streamed body must be one loop's",
                           A.Text, A.Loc.Line, M.render(Off));
        Var = X;
      }
    if (!Var || T[*Var].Loop < 0)
      return makeError("the row offset of '{0}' (line {1}) is '{2}', not a loop's variable: "
                       "there is no loop over the rows whose body runs per window row",
                       A.Text, A.Loc.Line, M.render(Off));
    auto Shift = (Off - IndexForm::atom(*Var)).constantValue();
    if (!Shift)
      return makeError("the row offset of '{0}' (line {1}) is '{2}', not the loop's variable "
                       "plus a constant",
                       A.Text, A.Loc.Line, M.render(Off));
    if (Loop >= 0 && (T[*Var].Loop != Loop || *Shift != SP.Shift))
      return makeError("the reads of '{0}' are at more than one row offset in one iteration of "
                       "the loop over the rows ('{1}' at line {2}): streaming needs a body that "
                       "reads one row",
                       P.Buffer, A.Text, A.Loc.Line);
    if (RP.ColD && T.dependsOn(P.Offsets[K][*RP.ColD], *Var))
      return makeError("the column offset of '{0}' (line {1}) moves with the row loop's "
                       "variable",
                       A.Text, A.Loc.Line);
    Loop = T[*Var].Loop;
    SP.Shift = *Shift;
  }
  if (Loop < 0 || size_t(Loop) >= M.Loops.size())
    return makeError("the stencil on '{0}' has no reads", P.Buffer);
  const an::Loop &L = M.Loops[Loop];
  SP.L = &L;
  SP.For = dyn_cast_or_null<ForStmt>(L.S);
  int64_t Start = 0, Step = 0;
  if (L.Start)
    if (auto V = L.Start->constantValue())
      Start = *V;
  if (L.Step)
    if (auto V = L.Step->constantValue())
      Step = *V;
  if (!SP.For || !L.IV || !L.Start || !L.Start->constantValue() || !L.Step ||
      !L.Step->constantValue() || !L.TripCount || *L.TripCount < 1)
    return makeError("the loop over the rows ('{0}', line {1}) is not a for loop with constant "
                     "start, step and trip count",
                     L.Var, L.Loc.Line);
  if (Step <= 0)
    return makeError("the loop over the rows ('{0}', line {1}) counts down: the rows stream "
                     "upwards, and each output's taps must keep their order",
                     L.Var, L.Loc.Line);
  if (L.HasEarlyExit || L.HasSync || leaves(SP.For->getBody(), false, /*ContinueOk=*/true))
    return makeError("the loop over the rows ('{0}', line {1}) may leave early or synchronises: "
                     "every output's rows are streamed to the end",
                     L.Var, L.Loc.Line);
  SP.Start = Start;
  SP.Step = Step;
  SP.Last = Start + (*L.TripCount - 1) * Step;
  {
    Assigned A;
    A.TraverseStmt(const_cast<Stmt *>(SP.For->getBody()));
    if (A.Vars.count(L.IV))
      return makeError("the body of the loop over '{0}' (line {1}) changes '{0}'", L.Var,
                       L.Loc.Line);
  }
  const SourceManager &SM = In.Ctx.getSourceManager();
  SourceRange LR = SP.For->getBody()->getSourceRange();
  for (const an::Access *A : P.Reads) {
    SourceRange AR = A->E->getSourceRange();
    if (SM.isBeforeInTranslationUnit(AR.getBegin(), LR.getBegin()) ||
        SM.isBeforeInTranslationUnit(LR.getEnd(), AR.getEnd()))
      return makeError("'{0}' (line {1}) lies outside the body of the loop over '{2}'", A->Text,
                       A->Loc.Line, L.Var);
  }
  // From the body to the loop: blocks and ifs without else; before the
  // loop only declarations and early returns, after it no exit.
  if (!pathTo(Body, SP.For, SP.Path))
    return makeError("the loop over '{0}' is not in the kernel's body", L.Var);
  auto Line = [&](const Stmt *S) { return SM.getPresumedLineNumber(S->getBeginLoc()); };
  auto IsReturn = [](const Stmt *S) {
    if (const auto *CS = dyn_cast<CompoundStmt>(S); CS && CS->size() == 1)
      S = CS->body_front();
    const auto *R = dyn_cast<ReturnStmt>(S);
    return R && !R->getRetValue();
  };
  std::set<const VarDecl *> Declared, GuardedDecl;
  std::set<const VarDecl *> Assign;
  bool UnderIf = false;
  for (size_t K = 0; K + 1 < SP.Path.size(); ++K) {
    const Stmt *S = SP.Path[K], *Next = SP.Path[K + 1];
    if (const auto *If = dyn_cast<IfStmt>(S)) {
      UnderIf = true;
      if (If->getElse() || If->getInit() || If->getConditionVariable() || If->isConsteval() ||
          If->getThen() != Next)
        return makeError("the loop over '{0}' is under the 'if' at line {1}, which has an else "
                         "branch or a declaration: only guards lead to the streamed loop",
                         L.Var, Line(If));
      continue;
    }
    const auto *CS = dyn_cast<CompoundStmt>(S);
    if (!CS) {
      std::string What = isa<ForStmt>(S) || isa<WhileStmt>(S) || isa<DoStmt>(S)
                             ? "a loop"
                             : std::string(S->getStmtClassName());
      return makeError("the loop over '{0}' is inside {1} (line {2}): the outputs' rows can be "
                       "streamed only when blocks and guards lead to it",
                       L.Var, What, Line(S));
    }
    bool After = false;
    for (const Stmt *Child : CS->body()) {
      if (Child == Next) {
        After = true;
        continue;
      }
      if (After) {
        if (leaves(Child))
          return makeError("the statement at line {0}, after the loop over '{1}', may leave "
                           "the kernel or a loop: each output's code after the loop runs in "
                           "one block",
                           Line(Child), L.Var);
        Assigned A;
        A.TraverseStmt(const_cast<Stmt *>(Child));
        Assign.insert(A.Vars.begin(), A.Vars.end());
        continue;
      }
      if (isa<NullStmt>(Child))
        continue;
      if (const auto *If = dyn_cast<IfStmt>(Child); If && !If->getElse() && !If->getInit() &&
                                                    !If->getConditionVariable() &&
                                                    IsReturn(If->getThen())) {
        SP.EarlyReturn = true;
        continue;
      }
      const auto *D = dyn_cast<DeclStmt>(Child);
      if (D && all_of(D->decls(), [&](const Decl *Dd) {
            const auto *V = dyn_cast<VarDecl>(Dd);
            return V && !V->isStaticLocal() &&
                   (V->isConstexpr() || V->isUsableInConstantExpressions(In.Ctx));
          })) {
        SP.Constants.push_back(D);
        continue;
      }
      if (!D)
        return makeError("the statement at line {0}, before the loop over '{1}', is not a "
                         "declaration or an early return: the code before the loop runs once "
                         "per output ahead of the streamed rows, and only those are moved",
                         Line(Child), L.Var);
      for (const Decl *Dd : D->decls()) {
        const auto *V = dyn_cast<VarDecl>(Dd);
        if (!V || V->isStaticLocal() || V->getType()->isReferenceType() ||
            !V->getType()->isScalarType() ||
            (V->getInit() && V->getInitStyle() != VarDecl::CInit))
          return makeError("the declaration at line {0}, before the loop over '{1}', is not "
                           "of a scalar local with an '=' initialiser: it cannot be one per "
                           "output",
                           Line(Child), L.Var);
        SP.Locals.push_back(V);
        Declared.insert(V);
        if (UnderIf || SP.EarlyReturn)
          GuardedDecl.insert(V);
      }
      Assigned A;
      A.TraverseStmt(const_cast<Stmt *>(Child));
      Assign.insert(A.Vars.begin(), A.Vars.end());
    }
  }
  {
    Assigned A;
    A.TraverseStmt(const_cast<Stmt *>(SP.For->getBody()));
    Assign.insert(A.Vars.begin(), A.Vars.end());
  }
  for (const VarDecl *V : SP.Locals) {
    SP.Accumulators += Assign.count(V);
    if (Assign.count(V) || !V->getInit() || isModified(V, Body))
      continue;
    PureInit PI(SP.Pure, Body, In.Ctx, GuardedDecl.count(V));
    PI.TraverseStmt(const_cast<Expr *>(V->getInit()));
    if (PI.Ok)
      SP.Pure.insert(V);
  }

  // Columns per thread: the column is blockIdx.x * blockDim.x +
  // threadIdx.x plus a constant, and x is used nowhere else.
  auto NoColumns = [&](std::string Why) {
    SP.Columns = false;
    SP.NoColumns = std::move(Why);
    return SP;
  };
  if (!RP.ColD)
    return NoColumns("the stencil has no column dimension");
  const IndexForm &Pos = P.Dims[*RP.ColD].Position;
  auto Tid = T.findBuiltin("threadIdx", 'x'), Bid = T.findBuiltin("blockIdx", 'x');
  auto BDim = T.findBuiltin("blockDim", 'x');
  auto Coef = Bid ? Pos.coefficientOf(*Bid) : std::nullopt;
  if (!Tid || !Coef || !BDim || *Coef != IndexForm::atom(*BDim) ||
      Pos.coefficientOf(*Tid) != IndexForm::constant(1))
    return NoColumns(formatv("the column '{0}' is not blockIdx.x * blockDim.x + threadIdx.x "
                             "plus a constant",
                             M.render(Pos))
                         .str());
  SP.Gx = IndexForm::atom(*Bid) * *Coef + IndexForm::atom(*Tid);
  SP.Cx = Pos - SP.Gx;
  if (T.dependsOn(SP.Cx, *Tid) || T.dependsOn(SP.Cx, *Bid) || movesWith(T, SP.Cx, 'y'))
    return NoColumns(formatv("the column '{0}' moves with the thread other than as "
                             "blockIdx.x * blockDim.x + threadIdx.x",
                             M.render(Pos))
                         .str());
  BuiltinFinder Facts;
  Facts.TraverseStmt(const_cast<CompoundStmt *>(Body));
  RowIndexFinder Cols('x');
  Cols.TraverseStmt(const_cast<CompoundStmt *>(Body));
  for (const auto &[E, Ref] : Facts.Found) {
    if (Ref.Dim != 'x')
      continue;
    if (Ref.Var == "gridDim")
      return NoColumns("the body reads 'gridDim.x', which the narrower grid changes");
    if (Ref.Var != "threadIdx" && Ref.Var != "blockIdx")
      continue;
    bool InCol = any_of(Cols.Found, [&](const Expr *X) {
      SourceRange XR = X->getSourceRange(), ER = E->getSourceRange();
      return !SM.isBeforeInTranslationUnit(ER.getBegin(), XR.getBegin()) &&
             !SM.isBeforeInTranslationUnit(XR.getEnd(), ER.getEnd());
    });
    if (!InCol)
      return NoColumns(formatv("'{0}.x' (line {1}) is used other than in the column "
                               "'blockIdx.x * blockDim.x + threadIdx.x'",
                               Ref.Var, SM.getPresumedLineNumber(E->getBeginLoc()))
                           .str());
  }
  std::set<const an::Access *> Window(P.Reads.begin(), P.Reads.end());
  for (const an::Access &A : M.Accesses) {
    if (Window.count(&A))
      continue;
    bool Moves = (T.dependsOn(A.Index, *Tid) || T.dependsOn(A.Index, *Bid)) || !A.IndexKnown;
    if (Moves && !Pl.boundedAbove(A, P.Dims[*RP.ColD]))
      return NoColumns(formatv("'{0}' (line {1}) is not guarded by a bound along x, so the "
                               "columns past the original grid would reach it",
                               A.Text, A.Loc.Line)
                           .str());
  }
  SP.Columns = true;
  return SP;
}

} // namespace

RuleOutcome StencilRegisterRowsRule::propose(const RuleInput &In) {
  const CompoundStmt *Body = kernelBody(In.Kernel);
  if (!Body)
    return notApplicable("the kernel has no body");
  const agent::ProposalRequest &Req = In.Request;
  // blockDim stays symbolic: the rewrite is correct for any block.
  auto Model = an::analyzeKernel(In.Ctx, In.Kernel, an::AnalysisOptions());
  if (!Model)
    return notApplicable(toString(Model.takeError()));
  an::KernelModel &M = *Model;
  std::vector<const an::Pattern *> Stencils = M.patterns(an::PatternKind::Stencil);
  if (Stencils.empty())
    return notApplicable(noStencil(M));
  if (Stencils.size() > 1)
    return notApplicable(formatv("the kernel has {0} stencils; the register window is written "
                                 "for one",
                                 Stencils.size())
                             .str());
  const an::Footprint &F = M.Footprints[Stencils.front()->Footprint];
  auto MovesWith = [&](char Dim) {
    auto Tid = M.atoms().findBuiltin("threadIdx", Dim);
    return Tid && any_of(F.Dims, [&](const an::FootprintDim &D) {
             return M.atoms().dependsOn(D.Position, *Tid);
           });
  };
  if (F.Dims.size() > 3 || (F.Dims.size() == 3 && !MovesWith('z')))
    return notApplicable(formatv("the stencil on '{0}' is {1}D ({2}): the register window is "
                                 "written for footprints over the thread grid (2D over x and y, "
                                 "3D over x, y and z)",
                                 F.Buffer, F.Dims.size(), F.shape())
                             .str());
  const char Axis = rowAxis(F.Dims.size());
  if (!MovesWith(Axis))
    return notApplicable(formatv("no dimension of the stencil on '{0}' moves with threadIdx.{1}: "
                                 "there are no rows of outputs to share a window",
                                 F.Buffer, Axis)
                             .str());
  Planner Pl(In, M, Req.Block.value_or(std::array<int64_t, 3>{1, 1, 1}));
  auto Plan = Pl.plan(F);
  if (!Plan)
    return notApplicable(toString(Plan.takeError()));
  auto RPx = rowsPlan(In, M, std::move(*Plan));
  if (!RPx)
    return notApplicable(toString(RPx.takeError()));
  const RowsPlan &RP = *RPx;
  const TilePlan &P = RP.P;

  // The body may run once per row.
  BuiltinFinder Facts;
  Facts.TraverseStmt(const_cast<CompoundStmt *>(Body));
  if (callsSyncthreads(Body) || any_of(Facts.Calls, isCollective) || Facts.Shared)
    return notApplicable("the body synchronises or shares memory between threads, which one "
                         "thread running it for several rows would break");
  if (Facts.Labels)
    return notApplicable("the body has labels, which its copies would repeat");
  for (const auto &[E, Ref] : Facts.Found)
    if (Ref.Var == "gridDim" && Ref.Dim == Axis)
      return notApplicable(formatv("the body reads '{0}', which the smaller grid changes",
                                   RP.axis("gridDim"))
                               .str());
  // Calls that hand the thread its indices (specialize-scalar's fallback)
  // run per row like the body, given the row's: their arguments' components
  // are remapped with the body's.
  std::vector<const Expr *> Forwarded;
  std::set<const CallExpr *> Forwarding;
  for (const CallExpr *Call : Facts.Calls)
    if (auto Fw = forwardedIndices(Call)) {
      if (std::string Why = perRowCallee(*Fw, Axis, In.Ctx); !Why.empty())
        return notApplicable(Why);
      Forwarding.insert(Call);
      for (const Expr *E : Fw->Components)
        Forwarded.push_back(E->IgnoreParenImpCasts());
    }
  // threadIdx.y and blockIdx.y (z in the 3D form) only in the row, which
  // the copies of the body remap to row0 + r: elsewhere (threadIdx.y == 0,
  // a batch index) the remap would change their meaning.
  {
    RowIndexFinder Rows(Axis);
    Rows.TraverseStmt(const_cast<CompoundStmt *>(Body));
    const SourceManager &SM = In.Ctx.getSourceManager();
    for (const auto &[E, Ref] : Facts.Found) {
      if (Ref.Dim != Axis || (Ref.Var != "threadIdx" && Ref.Var != "blockIdx") ||
          is_contained(Forwarded, E->IgnoreParenImpCasts()))
        continue;
      bool InRow = any_of(Rows.Found, [&](const Expr *R) {
        SourceRange RR = R->getSourceRange(), ER = E->getSourceRange();
        return !SM.isBeforeInTranslationUnit(ER.getBegin(), RR.getBegin()) &&
               !SM.isBeforeInTranslationUnit(RR.getEnd(), ER.getEnd());
      });
      if (!InRow)
        return notApplicable(formatv("'{0}' (line {1}) is used other than in the {2} "
                                     "'{3}': running the body once per {2} would change its "
                                     "meaning",
                                     RP.axis(Ref.Var), SM.getPresumedLineNumber(E->getBeginLoc()),
                                     RP.row(), RP.global())
                                 .str());
    }
  }
  std::set<const FunctionDecl *> Seen;
  for (const CallExpr *Call : Facts.Calls)
    if (!Forwarding.count(Call) && readsBuiltins(Call->getDirectCallee(), Seen))
      return notApplicable(formatv("'{0}' reads thread or block indices",
                                   textOf(Call->getCallee(), In.Ctx))
                               .str());
  if (const CallExpr *Call = writableEscape(P.Param, Facts.Calls))
    return notApplicable(formatv("'{0}' is passed to '{1}' as a writable pointer, which may "
                                 "write the buffer the window holds",
                                 P.Buffer, textOf(Call->getCallee(), In.Ctx))
                             .str());
  // Every read of the input is in the footprint; the other accesses that
  // move with y are bounded along it (rows past the image do nothing).
  std::set<const an::Access *> Window(P.Reads.begin(), P.Reads.end());
  for (const an::Access &A : M.Accesses) {
    if (Window.count(&A))
      continue;
    if (A.Base == P.Param)
      return notApplicable(formatv("'{0}' (line {1}) reads '{2}' outside the stencil's "
                                   "footprint",
                                   A.Text, A.Loc.Line, P.Buffer)
                               .str());
    if (A.Space == an::MemorySpace::Unknown)
      return notApplicable(formatv("'{0}' (line {1}) goes through a pointer the analysis "
                                   "cannot trace",
                                   A.Text, A.Loc.Line)
                               .str());
    bool Moves = movesWith(M.atoms(), A.Index, Axis) || !A.IndexKnown;
    if (Moves && !Pl.boundedAbove(A, P.Dims[RP.RowD]))
      return notApplicable(formatv("'{0}' (line {1}) is not guarded by a bound along {2}, so the "
                                   "{3} past the original grid would reach it",
                                   A.Text, A.Loc.Line, Axis, RP.rowWord())
                               .str());
  }
  // Two row counts; fewer for a wide window. With coefficients to stage,
  // 4 and 2 rows, the coefficients in registers as far as the window, the
  // accumulators and they fit the budget (in shared memory otherwise).
  // A window row is a plane in the 3D form: its values count as the
  // columns of a wider 2D window.
  const std::string Remapped(1, Axis);
  CoefficientPlan Coefs =
      planCoefficients(In, M, Facts.Calls, MaxCoefficientRegisters, Remapped);
  std::vector<int64_t> Rs = {4, 8};
  if (!Coefs.Stages.empty())
    Rs = {4, RP.rows(8) * RP.perRow() + 8 <= WideRows ? int64_t(8) : int64_t(2)};
  else if (RP.rows(8) * RP.perRow() > MaxWindow / 2)
    Rs = {2, 4};
  if (!Coefs.Stages.empty() && RP.rows(4) * RP.perRow() > MaxWindow)
    Rs = {2};
  if (RP.rows(Rs.front()) * RP.perRow() > MaxWindow)
    return notApplicable(formatv("a window of {0} values for {1} {2} per thread is more "
                                 "than the {3} registers the rule allows",
                                 RP.shape(Rs.front()), Rs.front(), RP.rowWord(), MaxWindow)
                             .str());
  // The window holds every element of the footprint's hull; a sparse
  // footprint (the 7-point star reads 7 of its 3 x 3 x 3 box) can take more
  // loads from it than the original's reads.
  if (P.PointsValue > 0) {
    int64_t Fewest = *std::max_element(Rs.begin(), Rs.end());
    llvm::erase_if(Rs, [&](int64_t R) { return RP.rows(R) * RP.perRow() >= P.PointsValue * R; });
    if (Rs.empty())
      return notApplicable(formatv("a window of {0} values for {1} {2} per thread loads more "
                                   "than the {3} reads of its outputs ({4} per output): the "
                                   "footprint fills little of its {5} hull",
                                   RP.shape(Fewest), Fewest, RP.rowWord(), P.PointsValue * Fewest,
                                   P.PointsValue, RP.shape(1))
                               .str());
  }
  const std::string GridKey = RP.axis("grid");
  auto Grid = Req.Geometry.find(GridKey);
  if (Grid == Req.Geometry.end() || Grid->second.empty())
    return notApplicable(formatv("the spec's {0} is not known, and the grid must shrink", GridKey)
                             .str());

  EditCollector C(In);
  auto LB = C.offsetOf(Body->getLBracLoc()), RB = C.offsetOf(Body->getRBracLoc());
  if (!LB || !RB)
    return notApplicable("the kernel's body is written through a macro");

  // Each row count with its coefficients in registers as far as the budget
  // allows; with a large filter (7 x 7: 49 values beside a 10 x 7 window)
  // the first row count also with the filter in shared memory, which keeps
  // more warps resident: the loop measures which is faster.
  auto Placed = [&](int64_t R, int64_t Budget) {
    return planCoefficients(In, M, Facts.Calls,
                            std::clamp<int64_t>(Budget - RP.rows(R) * RP.perRow() - R, 0,
                                                MaxCoefficientRegisters),
                            Remapped);
  };
  std::vector<std::pair<int64_t, CoefficientPlan>> Variants;
  for (int64_t R : Rs)
    Variants.push_back({R, Coefs.Stages.empty() ? Coefs : Placed(R, RegisterBudget)});
  if (!Coefs.Stages.empty()) {
    CoefficientPlan Lean = Placed(Rs.front(), LeanRegisterBudget);
    if (Lean.describe() != Variants.front().second.describe())
      Variants.push_back({Rs.front(), std::move(Lean)});
  }

  // Border tests written through a macro stay tests: the interior copy
  // rewrites text.
  std::vector<BorderCheck> Checks = Pl.borderChecks(P);
  llvm::erase_if(Checks, [&](const BorderCheck &K) {
    return !C.rangeOf(K.Cond->getSourceRange());
  });

  // The streaming form, when the reads sit in a loop over the rows.
  auto SPx = streamPlan(In, M, RP, Body, Pl);
  std::string NoStream;
  RuleOutcome Streams;
  if (!SPx)
    NoStream = toString(SPx.takeError());
  if (SPx) {
    // Streaming: R x C outputs per thread (the H200 micro-benchmark,
    // docs/runs/2026-12-03-h200.md: 8 x 2 and 4 x 2 are the fastest for the
    // 5x5, 7x7 and separable convolutions); one column where columns are not
    // possible. Live: a window row and the accumulators of every output.
    const StreamPlan &SP = *SPx;
    std::vector<std::pair<int64_t, int64_t>> Shapes = {{8, 2}, {4, 2}};
    if (!SP.Columns)
      Shapes = {{8, 1}, {4, 1}};
    auto GridX = Req.Geometry.find("grid.x");
    if (SP.Columns && (GridX == Req.Geometry.end() || GridX->second.empty()))
      Shapes = {{8, 1}, {4, 1}};
    // With 16-byte window rows (interior threads of a zero-padded stencil
    // of 4- or 8-byte elements, columns consecutive in memory), 4 x 4
    // outputs per thread: a window row of the 7x7 is 3 loads instead of 10
    // (the fastest shape of the micro-benchmark on an H100, 2026-12-05:
    // docs/runs/2026-12-05-h100-stencil.md; 8 x 4 keeps twice the per-output
    // state live and was slower in the rule's form).
    std::vector<std::optional<VectorRows>> Vecs(Shapes.size());
    std::string NoVector;
    if (SP.Columns && GridX != Req.Geometry.end() && !GridX->second.empty()) {
      auto V = Writer(In, M, RP, Body, Coefs, Checks).vectorRows(VectorColumns, SP);
      if (V) {
        Shapes.push_back({VectorRows0, VectorColumns});
        Vecs.push_back(*V);
      } else {
        NoVector = toString(V.takeError());
      }
    }
    for (size_t Si = 0; Si < Shapes.size(); ++Si) {
      auto [R, Cc] = Shapes[Si];
      const std::optional<VectorRows> &V = Vecs[Si];
      int64_t Live = (V ? V->span() : Cc + RP.cols() - 1) +
                     R * Cc * std::max<int64_t>(1, SP.Accumulators);
      if (Live > MaxWindow)
        continue;
      CoefficientPlan RC = planCoefficients(
          In, M, Facts.Calls, std::clamp<int64_t>(RegisterBudget - Live, 0, MaxCoefficientRegisters),
          Cc > 1 ? "xy" : "y");
      Writer W(In, M, RP, Body, RC, Checks);
      auto Text = W.writeStream(R, Cc, SP, V);
      if (!Text) {
        NoStream = toString(Text.takeError());
        Streams.Proposals.clear();
        break;
      }
      agent::SpecChange S;
      std::string Expr = formatv("ceil_div({0}, {1})", Grid->second, R).str();
      if (auto Parsed = measure::IntExpr::parse(Expr); !Parsed)
        return notApplicable(toString(Parsed.takeError()));
      S.Geometry["grid.y"] = Expr;
      if (Cc > 1) {
        std::string EX = formatv("ceil_div({0}, {1})", GridX->second, Cc).str();
        if (auto Parsed = measure::IntExpr::parse(EX); !Parsed)
          return notApplicable(toString(Parsed.takeError()));
        S.Geometry["grid.x"] = EX;
      }
      S.Justification = formatv("each thread computes {0} x {1} outputs, so grid.y shrinks {0} "
                                "times{2}; outputs past the image fail the kernel's own guards, so "
                                "a larger grid is correct too",
                                R, Cc, Cc > 1 ? formatv(" and grid.x {0} times", Cc).str() : "")
                            .str();
      int64_t NR = RP.rows(R), NC = Cc + RP.cols() - 1;
      std::string Summary =
          formatv("stream a {0} x {1} window of '{2}' row by row into {3} x {4} outputs per thread",
                  NR, NC, P.Buffer, R, Cc)
              .str();
      std::string Rationale = formatv(
          "Each output reads {0} elements of '{1}' (border {2}), one load instruction each. Each "
          "thread computes {3} rows x {4} columns of outputs: it loads the {5} x {6} elements they "
          "read one window row at a time (loads per output {0} -> {7:f2}) and runs the body of "
          "the loop over '{8}' for each output that reads that row, with the reads replaced by the "
          "row's elements. Only one window row and the outputs' own locals ({9} per output) are "
          "live, not the whole window. The code before the loop runs once per output with its "
          "locals per output, the code after it once per output at the end. Each output's rows "
          "arrive in the loop's order, so its arithmetic and order are the original's and the "
          "results are bitwise identical.",
          P.Points, P.Buffer, an::borderModeName(P.F->Border), R, Cc, NR, NC,
          double(NR * NC) / double(R * Cc), SP.L->Var, SP.Locals.size());
      if (!RC.Stages.empty())
        Summary += ", coefficients " + RC.describe();
      if (!RC.Stages.empty())
        Rationale += formatv(" The coefficient reads ({0} loads per output: {1}) read a copy "
                             "loaded once per {2} instead, each element the one of the same index.",
                             RC.reads(M), RC.describe(), RC.anyShared() ? "block" : "thread")
                         .str();
      if (!W.interiorChecks().empty())
        Summary += formatv(", interior threads without the {0} border test(s)",
                           W.interiorChecks().size())
                       .str();
      if (V) {
        Summary += formatv(", interior rows in {0}-byte loads ({1} x {2})", 16, V->Count, V->Type)
                       .str();
        Rationale += formatv(" Interior threads read each window row as {0} aligned {1} loads "
                             "(the {2} elements from column {3} of the thread's first), where "
                             "the row's address is 16-byte aligned at runtime, and element by "
                             "element where it is not; the interior test covers those {2} "
                             "columns, so every element loaded lies inside the borders.",
                             V->Count, V->Type, V->span(), V->First)
                         .str();
      } else if (Cc > 1 && !NoVector.empty()) {
        Rationale += "\nNo 16-byte window rows: " + NoVector + ".";
      }
      if (!SP.Columns)
        Rationale += "\nOne column per thread: " + SP.NoColumns + ".";
      auto Prop = proposeEdits(In, name(), Summary, Rationale,
                               {SourceEdit{*LB + 1, *RB - *LB - 1, *Text}}, S);
      if (Prop.Proposals.empty()) {
        NoStream = Prop.NotApplicable;
        Streams.Proposals.clear();
        break;
      }
      Streams.Proposals.push_back(std::move(Prop.Proposals.front()));
    }
  }

  RuleOutcome Out;
  for (auto &[R, RC] : Variants) {
    Writer W(In, M, RP, Body, RC, Checks);
    auto Text = W.write(R);
    if (!Text)
      return notApplicable(toString(Text.takeError()));
    agent::SpecChange S;
    std::string Expr = formatv("ceil_div({0}, {1})", Grid->second, R).str();
    if (auto Parsed = measure::IntExpr::parse(Expr); !Parsed)
      return notApplicable(toString(Parsed.takeError()));
    S.Geometry[GridKey] = Expr;
    S.Justification = formatv("each thread computes {0} consecutive {1}, so {2} shrinks {0} "
                              "times; {1} past the {3} fail the kernel's own guards, so a "
                              "larger grid is correct too",
                              R, RP.rowWord(), GridKey, RP.MidD ? "volume" : "image")
                          .str();
    std::string Summary =
        formatv("compute {0} output {1} per thread from a {2} register window of '{3}'", R,
                RP.rowWord(), RP.shape(R), P.Buffer)
            .str();
    std::string Rationale =
        formatv("Each output reads {0} elements of '{1}' (border {2}), one load instruction "
                "each. With {3} consecutive {7} per thread the {4} elements they read "
                "are loaded once into registers: loads per output {0} -> {5:f2}. The window "
                "reproduces the original's clamps and loads nothing where its guards say it "
                "reads nothing; every read becomes the window element holding the same value, "
                "and the body runs per {6} with its own guards, so the results are bitwise "
                "identical for any block and any grid that covers the {8}.",
                P.Points, P.Buffer, an::borderModeName(P.F->Border), R, RP.shape(R),
                double(RP.rows(R) * RP.perRow()) / double(R), RP.row(),
                RP.rowWord(), RP.MidD ? "volume" : "image")
            .str();
    if (!RC.Stages.empty()) {
      Summary += ", coefficients " + RC.describe();
      Rationale += formatv(" The coefficient reads ({0} loads per output: {1}) read a copy "
                           "loaded once per {2} instead, each element the one of the same "
                           "index.",
                           RC.reads(M), RC.describe(), RC.anyShared() ? "block" : "thread")
                       .str();
    }
    for (const std::string &D : RC.Declined)
      Rationale += "\nCoefficients not staged: " + D + ".";
    if (const std::vector<BorderCheck> &K = W.interiorChecks(); !K.empty()) {
      std::vector<std::string> Tests;
      for (const BorderCheck &B : K)
        Tests.push_back("'" + textOf(B.Cond, In.Ctx) + "'");
      Summary += formatv(", interior threads without the {0} border test(s)", K.size()).str();
      Rationale += formatv(" The border tests {0} bound the coordinates of the elements read; a "
                           "thread whose whole window lies inside those bounds runs a copy of "
                           "the body with them replaced by their values (they hold there), so "
                           "the taps of interior threads are not tested one by one; the others "
                           "run the body as written.",
                           join(Tests, ", "))
                       .str();
    }
    if (!NoStream.empty())
      Rationale += "\nNot streamed: " + NoStream + ".";
    auto Prop = proposeEdits(In, name(), Summary, Rationale,
                             {SourceEdit{*LB + 1, *RB - *LB - 1, *Text}}, S);
    if (Prop.Proposals.empty())
      return Prop;
    Out.Proposals.push_back(std::move(Prop.Proposals.front()));
  }
  for (agent::Proposal &Pr : Streams.Proposals)
    Out.Proposals.push_back(std::move(Pr));
  return Out;
}

std::unique_ptr<ExpertRule> createStencilRegisterRowsRule() {
  return std::make_unique<StencilRegisterRowsRule>();
}

} // namespace forge::passes
