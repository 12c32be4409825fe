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
#include "clang/AST/RecursiveASTVisitor.h"
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

class StencilRegisterRowsRule : public ExpertRule {
public:
  StringRef name() const override { return "stencil-register-rows"; }
  RuleOutcome propose(const RuleInput &In) override;
};

/// The plan of one proposal family: the footprint, its row and column
/// dimensions, and the window's extent.
struct RowsPlan {
  TilePlan P;
  unsigned RowD = 0;
  std::optional<unsigned> ColD;
  int64_t RowLo = 0, RowHi = 0, ColLo = 0, ColHi = 0;
  /// Position along RowD = G + C, with G = blockIdx.y * S + threadIdx.y.
  IndexForm G, C;
  int64_t rows(int64_t R) const { return R + RowHi - RowLo; }
  int64_t cols() const { return ColHi - ColLo + 1; }
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
  /// The condition under which a thread's window lies inside every border
  /// test's bound; Row0 the thread's first row.
  Expected<std::string> interiorCondition(int64_t R, StringRef Row0);
  /// The loads of the window for R rows from P's elements, at indentation Ind.
  Error loader(std::vector<std::string> &Lines, StringRef Ind, int64_t R, StringRef Row0,
               StringRef Win, const TilePlan &P);
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
    std::string J = "0";
    if (RP.ColD) {
      auto JJ = Index(*RP.ColD, RP.ColLo, "");
      if (!JJ)
        return JJ.takeError();
      J = *JJ;
    }
    Reads.push_back(*Range);
    Edits.push_back({Range->first, Range->second - Range->first,
                     formatv("{0}[{1}][{2}]", Win, *I, J).str()});
  }
  BuiltinFinder B;
  B.TraverseStmt(const_cast<CompoundStmt *>(Body));
  for (const auto &[E, Ref] : B.Found) {
    if (Ref.Dim != 'y' || (Ref.Var != "threadIdx" && Ref.Var != "blockIdx"))
      continue;
    auto Range = C.rangeOf(E->getSourceRange());
    if (!Range)
      return makeError("'{0}.y' is written through a macro", Ref.Var);
    if (any_of(Reads, [&](const auto &Rd) { return Range->first >= Rd.first && Range->second <= Rd.second; }))
      continue;
    std::string New = Ref.Var == "threadIdx" ? formatv("(threadIdx.y * {0} + {1})", R, Row).str()
                                             : formatv("(blockIdx.y * {0})", R).str();
    Edits.push_back({Range->first, Range->second - Range->first, New});
  }
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
  Add(Ind, formatv("// stencil-register-rows: {0} output rows per thread; the {1} x {2} input "
                   "elements of '{3}'",
                   R, RP.rows(R), RP.cols(), P.Buffer)
               .str());
  Add(Ind, "// they read are loaded once into registers (with the original's border handling), "
           "then the");
  Add(Ind, "// original code runs per row, reading them there.");
  if (Error E = Coefs.edits(In, M, FP, [&](StringRef B) { return fresh(B); }, CoefEdits))
    return std::move(E);
  if (Error E = Coefs.loads(In, FP, Ind, [&](StringRef B) { return fresh(B); },
                            /*BarrierAfter=*/true, Lines))
    return std::move(E);
  Add(Ind, formatv("const long long {0} = {1} * ({2});", Row0, R, *G).str());
  Add(Ind, formatv("{0} {1}[{2}][{3}];", typeSpelling(P.Elem, In.Ctx), Win, RP.rows(R), RP.cols())
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
  std::string Ind = Ind0.str(), I1 = Ind + "  ", I2 = I1 + "  ";
  std::string Ri = fresh("i"), Cj = fresh("j");
  auto Add = [&](const std::string &Indent, const std::string &Text) {
    Lines.push_back(Indent + Text);
  };
  Add("", "#pragma unroll");
  Add(Ind, formatv("for (int {0} = 0; {0} < {1}; ++{0}) {{", Ri, RP.rows(R)).str());
  Add("", "#pragma unroll");
  Add(I1, formatv("for (int {0} = 0; {0} < {1}; ++{0}) {{", Cj, RP.cols()).str());
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
      auto Pos = print(P.Dims[D].Position + IndexForm::constant(RP.ColLo), true);
      if (!Pos)
        return Pos.takeError();
      Rhs = *Pos + " + " + Cj;
    }
    Add(I2, formatv("long long {0} = {1};", E[D], Rhs).str());
  }
  auto EL = elementLoad(FP, M, P, E, [&](StringRef B) { return fresh(B); });
  if (!EL)
    return EL.takeError();
  for (const std::string &Decl : EL->Decls)
    Add(I2, Decl);
  std::string Type = typeSpelling(P.Elem, In.Ctx);
  std::string Zero = P.Elem->isDependentType() ? Type + "(0)" : zeroOf(P.Elem, In.Ctx);
  if (EL->Conds.empty())
    Add(I2, formatv("{0}[{1}][{2}] = {3};", Win, Ri, Cj, EL->Load).str());
  else
    Add(I2, formatv("{0}[{1}][{2}] = {3} ? {4} : {5};", Win, Ri, Cj, join(EL->Conds, " && "),
                    EL->Load, Zero)
                .str());
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

Expected<std::string> Writer::interiorCondition(int64_t R, StringRef Row0) {
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
    auto First = print(P.Dims[D].Position + IndexForm::constant(RP.ColLo), true);
    auto Last = print(P.Dims[D].Position + IndexForm::constant(RP.ColHi), true);
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
class RowIndexFinder : public RecursiveASTVisitor<RowIndexFinder> {
public:
  bool VisitExpr(Expr *E) {
    char Dim = 0;
    if (isGlobalIndex(E, &Dim) && Dim == 'y')
      Found.push_back(E);
    return true;
  }
  std::vector<const Expr *> Found;
};

/// Whether F depends on threadIdx.y or blockIdx.y.
bool movesWithY(const an::AtomTable &T, const IndexForm &F) {
  auto Tid = T.findBuiltin("threadIdx", 'y'), Bid = T.findBuiltin("blockIdx", 'y');
  return (Tid && T.dependsOn(F, *Tid)) || (Bid && T.dependsOn(F, *Bid));
}

/// The row plan for a stencil's tile plan, or why there is none.
Expected<RowsPlan> rowsPlan(const RuleInput &In, an::KernelModel &M, TilePlan P) {
  const an::AtomTable &T = M.atoms();
  RowsPlan RP;
  if (P.Dims.size() > 2)
    return makeError("the stencil on '{0}' is {1}D: the register window is written for 2D "
                     "footprints over the thread grid's x and y",
                     P.Buffer, P.Dims.size());
  std::optional<unsigned> RowD;
  for (unsigned D = 0; D < P.Dims.size(); ++D) {
    if (P.Dims[D].ThreadDim == 'y' && !RowD)
      RowD = D;
    else if (P.Dims[D].ThreadDim == 'x' && !RP.ColD)
      RP.ColD = D;
    else
      return makeError("dimension {0} of the stencil on '{1}' (stride {2}) moves with {3}, not "
                       "with threadIdx.x or threadIdx.y",
                       D, P.Buffer, P.Dims[D].StrideText,
                       P.Dims[D].ThreadDim ? "threadIdx." + std::string(1, P.Dims[D].ThreadDim)
                                           : std::string("the block only"));
  }
  if (!RowD)
    return makeError("no dimension of the stencil on '{0}' moves with threadIdx.y: there are no "
                     "rows of outputs to share a window",
                     P.Buffer);
  RP.RowD = *RowD;
  auto Extent = [&](unsigned D, int64_t &Lo, int64_t &Hi) -> Error {
    auto L = P.Dims[D].Lo.constantValue(), H = P.Dims[D].Hi.constantValue();
    if (!L || !H)
      return makeError("the footprint of '{0}' along dimension {1} ('{2}'..'{3}') is not a "
                       "compile-time constant: the register window's size must be",
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
  if (RP.RowLo == RP.RowHi)
    return makeError("the stencil on '{0}' reads no neighbouring rows (offsets along y {1}..{1}): "
                     "rows of outputs share nothing",
                     P.Buffer, RP.RowLo);
  // The row: blockIdx.y * blockDim.y + threadIdx.y plus what does not move.
  const IndexForm &Pos = P.Dims[RP.RowD].Position;
  auto Tid = T.findBuiltin("threadIdx", 'y'), Bid = T.findBuiltin("blockIdx", 'y');
  auto BDim = T.findBuiltin("blockDim", 'y');
  auto Coef = Bid ? Pos.coefficientOf(*Bid) : std::nullopt;
  bool Spans = Coef && BDim && *Coef == IndexForm::atom(*BDim);
  if (!Tid || !Spans || Pos.coefficientOf(*Tid) != IndexForm::constant(1))
    return makeError("the row of the stencil on '{0}' is '{1}', not blockIdx.y * blockDim.y + "
                     "threadIdx.y plus a constant offset",
                     P.Buffer, M.render(Pos));
  RP.G = IndexForm::atom(*Bid) * *Coef + IndexForm::atom(*Tid);
  RP.C = Pos - RP.G;
  if (movesWithY(T, RP.C))
    return makeError("the row of the stencil on '{0}' ('{1}') moves with y other than as "
                     "blockIdx.y * blockDim.y + threadIdx.y",
                     P.Buffer, M.render(Pos));
  if (RP.ColD && movesWithY(T, P.Dims[*RP.ColD].Position))
    return makeError("the column of the stencil on '{0}' ('{1}') moves with y", P.Buffer,
                     M.render(P.Dims[*RP.ColD].Position));
  RP.P = std::move(P);
  return RP;
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
  if (F.Dims.size() > 2)
    return notApplicable(formatv("the stencil on '{0}' is {1}D ({2}): the register window is "
                                 "written for 2D footprints over the thread grid's x and y",
                                 F.Buffer, F.Dims.size(), F.shape())
                             .str());
  if (auto Tid = M.atoms().findBuiltin("threadIdx", 'y');
      !Tid || none_of(F.Dims, [&](const an::FootprintDim &D) {
        return M.atoms().dependsOn(D.Position, *Tid);
      }))
    return notApplicable(formatv("no dimension of the stencil on '{0}' moves with threadIdx.y: "
                                 "there are no rows of outputs to share a window",
                                 F.Buffer)
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
    if (Ref.Var == "gridDim" && Ref.Dim == 'y')
      return notApplicable("the body reads 'gridDim.y', which the smaller grid changes");
  // threadIdx.y and blockIdx.y only in the row, which the copies of the
  // body remap to row0 + r: elsewhere (threadIdx.y == 0, a batch index)
  // the remap would change their meaning.
  {
    RowIndexFinder Rows;
    Rows.TraverseStmt(const_cast<CompoundStmt *>(Body));
    const SourceManager &SM = In.Ctx.getSourceManager();
    for (const auto &[E, Ref] : Facts.Found) {
      if (Ref.Dim != 'y' || (Ref.Var != "threadIdx" && Ref.Var != "blockIdx"))
        continue;
      bool InRow = any_of(Rows.Found, [&](const Expr *R) {
        SourceRange RR = R->getSourceRange(), ER = E->getSourceRange();
        return !SM.isBeforeInTranslationUnit(ER.getBegin(), RR.getBegin()) &&
               !SM.isBeforeInTranslationUnit(RR.getEnd(), ER.getEnd());
      });
      if (!InRow)
        return notApplicable(formatv("'{0}.y' (line {1}) is used other than in the row "
                                     "'blockIdx.y * blockDim.y + threadIdx.y': running the body "
                                     "once per row would change its meaning",
                                     Ref.Var, SM.getPresumedLineNumber(E->getBeginLoc()))
                                 .str());
    }
  }
  std::set<const FunctionDecl *> Seen;
  for (const CallExpr *Call : Facts.Calls)
    if (readsBuiltins(Call->getDirectCallee(), Seen))
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
    bool Moves = movesWithY(M.atoms(), A.Index) || !A.IndexKnown;
    if (Moves && !Pl.boundedAbove(A, P.Dims[RP.RowD]))
      return notApplicable(formatv("'{0}' (line {1}) is not guarded by a bound along y, so the "
                                   "rows past the original grid would reach it",
                                   A.Text, A.Loc.Line)
                               .str());
  }
  // Two row counts; fewer for a wide window. With coefficients to stage,
  // 4 and 2 rows, the coefficients in registers as far as the window, the
  // accumulators and they fit the budget (in shared memory otherwise).
  CoefficientPlan Coefs = planCoefficients(In, M, Facts.Calls, MaxCoefficientRegisters, "y");
  std::vector<int64_t> Rs = {4, 8};
  if (!Coefs.Stages.empty())
    Rs = {4, RP.rows(8) * RP.cols() + 8 <= WideRows ? int64_t(8) : int64_t(2)};
  else if (RP.rows(8) * RP.cols() > MaxWindow / 2)
    Rs = {2, 4};
  if (!Coefs.Stages.empty() && RP.rows(4) * RP.cols() > MaxWindow)
    Rs = {2};
  if (RP.rows(Rs.front()) * RP.cols() > MaxWindow)
    return notApplicable(formatv("a window of {0} x {1} values for {2} rows per thread is more "
                                 "than the {3} registers the rule allows",
                                 RP.rows(Rs.front()), RP.cols(), Rs.front(), MaxWindow)
                             .str());
  auto Grid = Req.Geometry.find("grid.y");
  if (Grid == Req.Geometry.end() || Grid->second.empty())
    return notApplicable("the spec's grid.y is not known, and the grid must shrink");

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
                            std::clamp<int64_t>(Budget - RP.rows(R) * RP.cols() - R, 0,
                                                MaxCoefficientRegisters),
                            "y");
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
    S.Geometry["grid.y"] = Expr;
    S.Justification = formatv("each thread computes {0} consecutive rows, so grid.y shrinks {0} "
                              "times; rows past the image fail the kernel's own guards, so a "
                              "larger grid is correct too",
                              R)
                          .str();
    int64_t NR = RP.rows(R), NC = RP.cols();
    std::string Summary =
        formatv("compute {0} output rows per thread from a {1} x {2} register window of '{3}'", R,
                NR, NC, P.Buffer)
            .str();
    std::string Rationale =
        formatv("Each output reads {0} elements of '{1}' (border {2}), one load instruction "
                "each. With {3} consecutive rows per thread the {4} x {5} elements they read "
                "are loaded once into registers: loads per output {0} -> {6:f2}. The window "
                "reproduces the original's clamps and loads nothing where its guards say it "
                "reads nothing; every read becomes the window element holding the same value, "
                "and the body runs per row with its own guards, so the results are bitwise "
                "identical for any block and any grid that covers the image.",
                P.Points, P.Buffer, an::borderModeName(P.F->Border), R, NR, NC,
                double(NR * NC) / double(R))
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
    auto Prop = proposeEdits(In, name(), Summary, Rationale,
                             {SourceEdit{*LB + 1, *RB - *LB - 1, *Text}}, S);
    if (Prop.Proposals.empty())
      return Prop;
    Out.Proposals.push_back(std::move(Prop.Proposals.front()));
  }
  return Out;
}

std::unique_ptr<ExpertRule> createStencilRegisterRowsRule() {
  return std::make_unique<StencilRegisterRowsRule>();
}

} // namespace forge::passes
