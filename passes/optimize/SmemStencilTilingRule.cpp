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
#include "RuleAst.h"
#include "RuleUtil.h"
#include "Rules.h"
#include "forge/Analysis/KernelModel.h"
#include "forge/Frontend/CudaBuiltins.h"
#include "forge/Frontend/KernelFacts.h"
#include "forge/Measure/IntExpr.h"
#include "forge/Support/Error.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/RecursiveASTVisitor.h"
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

namespace an = forge::analysis;
using an::AtomId;
using an::AtomKind;
using an::IndexForm;

//===----------------------------------------------------------------------===//
// Printing forms as C
//===----------------------------------------------------------------------===//

/// Prints index forms as C expressions for the code the rule writes. In
/// wide mode the value is computed in `long long` whatever the types of the
/// atoms (builtins are unsigned, a product of two int parameters may
/// overflow), so that negative halo coordinates and large images compare
/// and index as the forms say.
class FormPrinter {
public:
  explicit FormPrinter(const an::AtomTable &T) : T(T) {}

  /// Spells A as Text (a local the rule declares, a remapped builtin);
  /// Wide says the text is a long long.
  void spell(AtomId A, std::string Text, bool Wide) { Names[A] = {std::move(Text), Wide}; }

  std::optional<std::string> print(const IndexForm &F, bool Wide);
  std::optional<std::string> print(const an::Comparison &C, bool Wide) {
    auto L = print(C.Lhs, Wide), R = print(C.Rhs, Wide);
    if (!L || !R)
      return std::nullopt;
    return *L + " " + an::cmpOpSpelling(C.Op).str() + " " + *R;
  }
  /// Why the last print failed.
  const std::string &why() const { return Why; }

private:
  struct Text {
    std::string S;
    bool Wide = false;
  };
  std::optional<Text> atom(AtomId A, bool Wide);
  static std::string cast(const std::string &S) {
    bool Simple = all_of(S, [](char C) { return isAlnum(C) || C == '_' || C == '.'; });
    return Simple ? "(long long)" + S : "(long long)(" + S + ")";
  }

  const an::AtomTable &T;
  std::map<AtomId, Text> Names;
  std::string Why;
};

std::optional<FormPrinter::Text> FormPrinter::atom(AtomId A, bool Wide) {
  if (auto It = Names.find(A); It != Names.end())
    return It->second;
  const an::Atom &At = T[A];
  auto Typed = [&](QualType Ty) -> Text {
    bool Signed = !Ty.isNull() && Ty->isSignedIntegerType();
    bool Big = Signed && Ty->getAs<BuiltinType>() &&
               At.Decl->getASTContext().getTypeSize(Ty) == 64;
    if (Signed || !Wide)
      return {At.Name, Big};
    return {cast(At.Name), true};
  };
  switch (At.Kind) {
  case AtomKind::ThreadIdx:
  case AtomKind::BlockIdx:
  case AtomKind::BlockDim:
  case AtomKind::GridDim:
    return Wide ? Text{cast(At.Name), true} : Text{At.Name, false};
  case AtomKind::Param:
  case AtomKind::TemplateParam:
  case AtomKind::LoopVar: {
    if (!At.Decl) {
      Why = "'" + At.Name + "' has no declaration";
      return std::nullopt;
    }
    QualType Ty;
    if (const auto *V = dyn_cast<ValueDecl>(At.Decl))
      Ty = V->getType();
    if (Ty.isNull() || !Ty->isIntegralOrEnumerationType()) {
      Why = "'" + At.Name + "' is not an integer";
      return std::nullopt;
    }
    return Typed(Ty);
  }
  case AtomKind::Min:
  case AtomKind::Max:
  case AtomKind::Div:
  case AtomKind::Mod: {
    auto L = print(At.Operands[0], Wide), R = print(At.Operands[1], Wide);
    if (!L || !R)
      return std::nullopt;
    std::string S;
    if (At.Kind == AtomKind::Min)
      S = "(" + *L + " < " + *R + " ? " + *L + " : " + *R + ")";
    else if (At.Kind == AtomKind::Max)
      S = "(" + *L + " > " + *R + " ? " + *L + " : " + *R + ")";
    else
      S = "((" + *L + ")" + (At.Kind == AtomKind::Div ? " / " : " % ") + "(" + *R + "))";
    return Text{S, Wide};
  }
  case AtomKind::Select: {
    if (!At.Pred) {
      Why = "the condition '" + At.PredText + "' is not a comparison of integers";
      return std::nullopt;
    }
    auto P = print(*At.Pred, Wide);
    auto L = print(At.Operands[0], Wide), R = print(At.Operands[1], Wide);
    if (!P || !L || !R)
      return std::nullopt;
    return Text{"(" + *P + " ? " + *L + " : " + *R + ")", Wide};
  }
  case AtomKind::LoopIter:
  case AtomKind::Unknown:
    break;
  }
  Why = At.Kind == AtomKind::Unknown ? At.Reason : "'" + At.Name + "' cannot be written here";
  return std::nullopt;
}

std::optional<std::string> FormPrinter::print(const IndexForm &F, bool Wide) {
  if (F.overflowed()) {
    Why = "a coefficient overflows";
    return std::nullopt;
  }
  struct Term {
    std::vector<Text> Factors;
    int64_t Coef;
    bool AnyWide = false;
  };
  std::vector<Term> Terms;
  int64_t Constant = 0;
  for (const auto &[Mono, C] : F.terms()) {
    if (Mono.empty()) {
      Constant = C;
      continue;
    }
    Term Tm{{}, C};
    for (AtomId A : Mono) {
      auto X = atom(A, Wide);
      if (!X)
        return std::nullopt;
      Tm.AnyWide |= X->Wide;
      Tm.Factors.push_back(*X);
    }
    // A wide factor first, so that the product is computed in long long.
    std::stable_partition(Tm.Factors.begin(), Tm.Factors.end(),
                          [](const Text &X) { return X.Wide; });
    Terms.push_back(std::move(Tm));
  }
  std::stable_partition(Terms.begin(), Terms.end(), [](const Term &X) { return X.AnyWide; });
  std::string Out;
  for (size_t I = 0; I < Terms.size(); ++I) {
    Term &Tm = Terms[I];
    int64_t Mag = Tm.Coef < 0 ? -Tm.Coef : Tm.Coef;
    bool Product = Tm.Factors.size() > 1 || Mag != 1;
    if (Wide && !Tm.AnyWide && (I == 0 || Product))
      Tm.Factors.front().S = cast(Tm.Factors.front().S);
    std::string S = Mag != 1 ? std::to_string(Mag) + " * " : "";
    for (size_t J = 0; J < Tm.Factors.size(); ++J) {
      std::string X = Tm.Factors[J].S;
      // A factor with operators of its own is parenthesised.
      if (X.find(' ') != std::string::npos && X.front() != '(')
        X = "(" + X + ")";
      S += (J ? " * " : "") + X;
    }
    if (I == 0)
      Out = (Tm.Coef < 0 ? "-" : "") + S;
    else
      Out += (Tm.Coef < 0 ? " - " : " + ") + S;
  }
  if (Out.empty())
    return std::to_string(Constant);
  if (Constant)
    Out += (Constant < 0 ? " - " : " + ") + std::to_string(Constant < 0 ? -Constant : Constant);
  return Out;
}

//===----------------------------------------------------------------------===//
// The plan of one tile
//===----------------------------------------------------------------------===//

/// One dimension of a staged footprint.
struct TileDim {
  IndexForm Stride, Position, Lo, Hi;
  /// The stride as the model writes it ("1", "w").
  std::string StrideText;
  /// The thread index that moves along it ('x', 'y', 'z'), or 0 when only
  /// the block does (a row per block).
  char ThreadDim = 0;
  /// The atom that takes an element's coordinate in the substitution:
  /// threadIdx.ThreadDim, or the blockIdx component of a block-only dimension.
  AtomId Moving = 0;
  /// The block's first position along it (Position without threadIdx).
  IndexForm Origin;
  /// Threads of the block along it (1 for a block-only dimension).
  int64_t Threads = 1;
  /// The element coordinate, and the same clamped as the reads clamp it,
  /// as atoms of the model's table (the loader's locals).
  AtomId E = 0, EC = 0;
  /// The reads' clamps, as bounds on E.
  std::optional<IndexForm> ClampLo, ClampHi;
  /// The elements that exist, E in [BoundLo, BoundHi], on the sides no
  /// clamp bounds.
  std::optional<IndexForm> BoundLo, BoundHi;
};

/// A footprint the rule stages, and how.
struct TilePlan {
  const an::Footprint *F = nullptr;
  const ParmVarDecl *Param = nullptr;
  QualType Elem;
  std::string Buffer;
  std::vector<TileDim> Dims;
  /// The loads it replaces, and their offsets (Footprint::Offsets).
  std::vector<const an::Access *> Reads;
  std::vector<std::vector<IndexForm>> Offsets;
  /// The value of tile element E: the index the reads agree on.
  IndexForm LoadIndex;
  /// The number of reads per output (the footprint's points).
  std::string Points;
  int64_t PointsValue = 0;
};

/// Whether F mentions an atom of one of the kinds, directly or inside
/// composites; the first such atom.
std::optional<AtomId> findKind(const an::AtomTable &T, const IndexForm &F,
                               std::initializer_list<AtomKind> Kinds) {
  for (AtomId A : F.atoms()) {
    if (is_contained(Kinds, T[A].Kind))
      return A;
    if (T[A].isComposite()) {
      for (const IndexForm &Op : T[A].Operands)
        if (auto X = findKind(T, Op, Kinds))
          return X;
      if (T[A].Pred)
        for (const IndexForm *Side : {&T[A].Pred->Lhs, &T[A].Pred->Rhs})
          if (auto X = findKind(T, *Side, Kinds))
            return X;
    }
  }
  return std::nullopt;
}

std::string lineOf(const an::SourceSpan &S) { return std::to_string(S.Line); }

class Planner {
public:
  Planner(const agent::RuleInput &In, an::KernelModel &M, std::array<int64_t, 3> Block)
      : In(In), M(M), T(M.atoms()), Block(Block) {}

  /// The plan for one stencil's footprint, or why it cannot be staged.
  Expected<TilePlan> plan(const an::Footprint &F);
  /// A's guard bounds the coordinate along Dim from above (so that threads
  /// past the end of the data do not reach A).
  bool boundedAbove(const an::Access &A, const TileDim &Dim);

private:
  std::string at(const an::Access &A) const {
    return "'" + A.Text + "' (line " + lineOf(A.Loc) + ")";
  }
  /// The smallest value of an offset over its loops, when the form says.
  std::optional<IndexForm> minOffset(const IndexForm &O) const;
  Error position(TilePlan &P, unsigned D);
  Error reads(TilePlan &P);
  void splitRows(TilePlan &P);

  const agent::RuleInput &In;
  an::KernelModel &M;
  an::AtomTable &T;
  std::array<int64_t, 3> Block;
};

std::optional<IndexForm> Planner::minOffset(const IndexForm &O) const {
  IndexForm Out = IndexForm::constant(O.constantTerm());
  for (const auto &[Mono, C] : O.terms()) {
    if (Mono.empty())
      continue;
    if (Mono.size() != 1 || T[Mono[0]].Kind != AtomKind::LoopVar || T[Mono[0]].Loop < 0)
      return std::nullopt;
    const an::Loop &L = M.Loops[T[Mono[0]].Loop];
    auto Last = L.lastValue();
    auto Step = L.Step ? L.Step->constantValue() : std::nullopt;
    if (!L.Start || !Last || !Step || *Step == 0)
      return std::nullopt;
    // The loop's least value is its start when it counts up, its last
    // value when it counts down (`for (d = 1; d >= -1; --d)`).
    const IndexForm &Least = *Step > 0 ? *L.Start : *Last;
    const IndexForm &Most = *Step > 0 ? *Last : *L.Start;
    Out = Out + (C > 0 ? Least : Most).scaled(C);
  }
  return Out;
}

void Planner::splitRows(TilePlan &P) {
  // A footprint narrower than the thread grid (a row stencil over an
  // image, a 2D one over a volume): a thread index that moves the position
  // by a multiple of the stride (threadIdx.y * w) is one more dimension of
  // the tile, with no offsets along it.
  for (unsigned D = 0; D < P.Dims.size() && P.Dims.size() < 3; ++D) {
    for (AtomId A : P.Dims[D].Position.atoms()) {
      if (T[A].Kind != AtomKind::ThreadIdx)
        continue;
      auto C = P.Dims[D].Position.coefficientOf(A);
      if (!C || C->constantValue() == 1 || C->terms().size() != 1)
        continue;
      const auto &[Mono, K] = *C->terms().begin();
      if (K <= 0 || Mono.empty() || any_of(Mono, [&](AtomId X) { return T.isVarying(X); }))
        continue;
      // The terms of the position that are multiples of C, divided by it.
      IndexForm Part;
      for (const auto &[M2, C2] : P.Dims[D].Position.terms()) {
        IndexForm::Monomial Rest = M2;
        bool Divides = C2 % K == 0;
        for (AtomId X : Mono) {
          auto It = Divides ? find(Rest, X) : Rest.end();
          if (It == Rest.end()) {
            Divides = false;
            break;
          }
          Rest.erase(It);
        }
        if (!Divides)
          continue;
        IndexForm Tm = IndexForm::constant(C2 / K);
        for (AtomId X : Rest)
          Tm = Tm * IndexForm::atom(X);
        Part = Part + Tm;
      }
      TileDim New;
      New.Stride = P.Dims[D].Stride * *C;
      New.StrideText = T.render(New.Stride);
      New.Position = Part;
      P.Dims[D].Position = P.Dims[D].Position - Part * *C;
      P.Dims.push_back(std::move(New));
      for (std::vector<IndexForm> &Off : P.Offsets)
        Off.push_back(IndexForm());
      D = unsigned(-1); // again, from the first dimension
      break;
    }
  }
}

Error Planner::position(TilePlan &P, unsigned D) {
  TileDim &Dim = P.Dims[D];
  const an::Access &First = *P.Reads.front();
  std::string Where = "the position of the reads of '" + P.Buffer + "' along dimension " +
                      std::to_string(D) + " (stride " + P.Dims[D].StrideText + ")";
  // A loop or an unknown in the position: the footprint moves.
  if (auto X = findKind(T, Dim.Position, {AtomKind::LoopVar, AtomKind::LoopIter})) {
    const an::Atom &At = T[*X];
    const an::Loop &L = M.Loops[At.Loop];
    if (!L.TripCount)
      return makeError("the reads of '{0}' ({1}) move with the loop over '{2}' (line {3}), whose "
                       "bounds are not compile-time constants ('{4}' from '{5}'): the footprint "
                       "is not bounded",
                       P.Buffer, at(First), L.Var, L.Loc.Line, L.CondText,
                       L.Start ? T.render(*L.Start) : std::string("?"));
    return makeError("{0} moves with the loop over '{1}' (line {2}): each thread reads around "
                     "several positions, which one tile per block does not hold",
                     Where, L.Var, L.Loc.Line);
  }
  if (auto X = findKind(T, Dim.Position, {AtomKind::Unknown}))
    return makeError("{0} depends on '{1}': {2}", Where, T[*X].Name, T[*X].Reason);
  // The thread index that moves along it, with coefficient 1.
  std::optional<AtomId> Thread;
  for (AtomId A : Dim.Position.atoms()) {
    if (T[A].Kind != AtomKind::ThreadIdx)
      continue;
    auto C = Dim.Position.coefficientOf(A);
    if (Thread || !C || C->constantValue() != 1)
      return makeError("{0} is not one thread index plus a block offset: neighbouring threads "
                       "are not neighbouring elements ('{1}')",
                       Where, T.render(Dim.Position));
    Thread = A;
  }
  if (findKind(T, Dim.Position.withoutAtom(Thread ? *Thread : AtomId(-1)), {AtomKind::ThreadIdx}))
    return makeError("{0} is not one thread index plus a block offset ('{1}')", Where,
                     T.render(Dim.Position));
  if (Thread) {
    Dim.ThreadDim = T[*Thread].Dim;
    Dim.Moving = *Thread;
    Dim.Threads = Block[Dim.ThreadDim - 'x'];
    Dim.Origin = Dim.Position.withoutAtom(*Thread);
  } else {
    // A row (or plane) per block: blockIdx moves along it.
    std::optional<AtomId> B;
    for (AtomId A : Dim.Position.atoms())
      if (T[A].Kind == AtomKind::BlockIdx && Dim.Position.coefficientOf(A) &&
          Dim.Position.coefficientOf(A)->constantValue() == 1)
        B = A;
    if (!B)
      return makeError("{0} moves with neither a thread index nor a block index ('{1}')", Where,
                       T.render(Dim.Position));
    Dim.Moving = *B;
    Dim.Origin = Dim.Position;
  }
  for (unsigned O = 0; O < P.Dims.size(); ++O)
    if (O != D && T.dependsOn(P.Dims[O].Position, Dim.Moving))
      return makeError("'{0}' moves the reads of '{1}' along two dimensions", T[Dim.Moving].Name,
                       P.Buffer);
  if (!T.uniformity(Dim.Origin).atLeast(an::Uniformity::BlockUniform))
    return makeError("{0} varies within the block besides its thread index ('{1}')", Where,
                     T.render(Dim.Origin));
  return Error::success();
}

/// A side of a dimension: the bounds each read gives, and the clamps.
struct SideFacts {
  std::vector<std::vector<IndexForm>> Bounds; ///< per read
  std::vector<std::optional<IndexForm>> Clamp; ///< per read
};

/// Of bounds that differ by constants, the one furthest out (Lower: the
/// smallest); none when the two are not comparable.
std::optional<IndexForm> outer(const std::optional<IndexForm> &A, const IndexForm &B, bool Lower) {
  if (!A)
    return B;
  auto D = (B - *A).constantValue();
  if (!D)
    return std::nullopt;
  return (Lower ? *D < 0 : *D > 0) ? B : *A;
}

/// The bound that holds for every read: of one family of bounds that differ
/// by constants, each read's tightest, and the loosest of those.
std::optional<IndexForm> hull(const std::vector<std::vector<IndexForm>> &PerRead, bool Lower) {
  if (PerRead.empty())
    return std::nullopt;
  for (const IndexForm &Cand : PerRead.front()) {
    std::optional<IndexForm> Out;
    bool OK = true;
    for (const std::vector<IndexForm> &Bounds : PerRead) {
      std::optional<IndexForm> Tight;
      for (const IndexForm &B : Bounds) {
        auto D = (B - Cand).constantValue();
        if (!D)
          continue;
        if (!Tight || (Lower ? *D > *(*Tight - Cand).constantValue()
                             : *D < *(*Tight - Cand).constantValue()))
          Tight = B;
      }
      if (!Tight || !(Out = outer(Out, *Tight, Lower))) {
        OK = false;
        break;
      }
    }
    if (OK)
      return Out;
  }
  return std::nullopt;
}

Error Planner::reads(TilePlan &P) {
  unsigned ND = unsigned(P.Dims.size());
  std::vector<SideFacts> Lo(ND), Hi(ND);
  for (unsigned D = 0; D < ND; ++D)
    for (SideFacts *S : {&Lo[D], &Hi[D]}) {
      S->Bounds.resize(P.Reads.size());
      S->Clamp.resize(P.Reads.size());
    }
  IndexForm Unclamped;
  for (unsigned D = 0; D < ND; ++D)
    Unclamped = Unclamped + P.Dims[D].Stride * IndexForm::atom(P.Dims[D].E);
  std::optional<IndexForm> Agreed;

  for (size_t K = 0; K < P.Reads.size(); ++K) {
    const an::Access &A = *P.Reads[K];
    const std::vector<IndexForm> &Off = P.Offsets[K];
    // The moving atoms in terms of the coordinate of the element read:
    // threadIdx.y = e1 - (the block's offset) - dy.
    auto Sigma = [&](AtomId X) -> std::optional<IndexForm> {
      for (unsigned D = 0; D < ND; ++D)
        if (P.Dims[D].Moving == X)
          return IndexForm::atom(P.Dims[D].E) -
                 (P.Dims[D].Position - IndexForm::atom(X)) - Off[D];
      return std::nullopt;
    };
    IndexForm Index = T.substitute(A.Index, Sigma);
    if (auto X = findKind(T, Index,
                          {AtomKind::LoopVar, AtomKind::LoopIter, AtomKind::ThreadIdx,
                           AtomKind::Unknown}))
      return makeError("the element {0} reads depends on '{1}' other than through its offset "
                       "from the thread's position",
                       at(A), T[*X].Name);
    // Clamps are recognised on the original index, where the position
    // varies between threads (the coordinates e0, e1 are plain symbols).
    if (T.substitute(T.unclamped(A.Index), Sigma) != Unclamped)
      return makeError("the index of {0} is not its footprint's position plus its offsets",
                       at(A));
    // Per dimension: the coordinate itself, or a clamp of it.
    IndexForm Rebuilt;
    std::vector<bool> Clamped(ND, false);
    for (AtomId X0 : A.Index.atoms()) {
      if (!T[X0].isComposite())
        continue;
      std::optional<an::Clamp> C;
      if (auto C0 = T.clampOf(X0)) {
        C = an::Clamp{T.substitute(C0->Value, Sigma), std::nullopt, std::nullopt};
        if (C0->Lo)
          C->Lo = T.substitute(*C0->Lo, Sigma);
        if (C0->Hi)
          C->Hi = T.substitute(*C0->Hi, Sigma);
      }
      // The clamp as it appears in the index over the coordinates.
      IndexForm XS = T.substitute(IndexForm::atom(X0), Sigma);
      std::optional<AtomId> X;
      if (XS.terms().size() == 1 && XS.terms().begin()->second == 1 &&
          XS.terms().begin()->first.size() == 1)
        X = XS.terms().begin()->first.front();
      if (!X)
        C.reset();
      std::optional<unsigned> Dim;
      for (unsigned D = 0; C && D < ND; ++D) {
        IndexForm U = C->Value - IndexForm::atom(P.Dims[D].E);
        if (!C->Value.coefficientOf(P.Dims[D].E) ||
            C->Value.coefficientOf(P.Dims[D].E)->constantValue() != 1 ||
            findKind(T, U, {AtomKind::ThreadIdx, AtomKind::LoopVar}))
          continue;
        bool Other = false;
        for (unsigned O = 0; O < ND; ++O)
          Other |= T.dependsOn(U, P.Dims[O].E);
        if (!Other)
          Dim = D;
      }
      if (!Dim || Clamped[*Dim] || A.Index.coefficientOf(X0) != P.Dims[*Dim].Stride)
        return makeError("the index of {0} is not its coordinates, each clamped or not "
                         "('{1}')",
                         at(A), T.render(A.Index));
      for (const std::optional<IndexForm> *B : {&C->Lo, &C->Hi})
        if (*B && (findKind(T, **B, {AtomKind::ThreadIdx, AtomKind::LoopVar, AtomKind::Unknown}) ||
                   !T.uniformity(**B).atLeast(an::Uniformity::BlockUniform)))
          return makeError("{0} is clamped to a bound that varies within the block ('{1}')",
                           at(A), T.render(**B));
      Clamped[*Dim] = true;
      IndexForm U = C->Value - IndexForm::atom(P.Dims[*Dim].E);
      if (C->Lo)
        Lo[*Dim].Clamp[K] = *C->Lo - U;
      if (C->Hi)
        Hi[*Dim].Clamp[K] = *C->Hi - U;
      Rebuilt = Rebuilt + P.Dims[*Dim].Stride * (XS - U);
    }
    for (unsigned D = 0; D < ND; ++D)
      if (!Clamped[D])
        Rebuilt = Rebuilt + P.Dims[D].Stride * IndexForm::atom(P.Dims[D].E);
    if (Rebuilt != Index)
      return makeError("the index of {0} is not its coordinates, each clamped or not ('{1}')",
                       at(A), T.render(A.Index));

    // What the read's guard says about the element: bounds on one coordinate.
    for (const an::GuardTerm &G : A.G.Terms) {
      if (!G.Cmp)
        continue;
      IndexForm L = T.substitute(G.Cmp->Lhs, Sigma), R = T.substitute(G.Cmp->Rhs, Sigma);
      IndexForm Diff; // Diff >= 0 holds
      switch (G.Cmp->Op) {
      case an::CmpOp::LT:
        Diff = R - L - IndexForm::constant(1);
        break;
      case an::CmpOp::LE:
        Diff = R - L;
        break;
      case an::CmpOp::GT:
        Diff = L - R - IndexForm::constant(1);
        break;
      case an::CmpOp::GE:
        Diff = L - R;
        break;
      default:
        continue;
      }
      if (findKind(T, Diff,
                   {AtomKind::LoopVar, AtomKind::LoopIter, AtomKind::ThreadIdx, AtomKind::Unknown}))
        continue;
      std::optional<unsigned> Dim;
      int64_t Sign = 0;
      bool Bad = false;
      for (unsigned D = 0; D < ND; ++D) {
        if (!T.dependsOn(Diff, P.Dims[D].E))
          continue;
        auto C = Diff.coefficientOf(P.Dims[D].E);
        auto CV = C ? C->constantValue() : std::nullopt;
        if (Dim || !CV || (*CV != 1 && *CV != -1)) {
          Bad = true;
          break;
        }
        Dim = D;
        Sign = *CV;
      }
      if (Bad || !Dim)
        continue;
      IndexForm Rest = Diff - IndexForm::atom(P.Dims[*Dim].E).scaled(Sign);
      if (T.dependsOn(Rest, P.Dims[*Dim].E) ||
          !T.uniformity(Rest).atLeast(an::Uniformity::BlockUniform))
        continue;
      if (Sign > 0)
        Lo[*Dim].Bounds[K].push_back(-Rest); // e >= -Rest
      else
        Hi[*Dim].Bounds[K].push_back(Rest); // e <= Rest
    }
    // Thread and block indices are not negative: e >= (the position's
    // least value) + (the least offset).
    for (unsigned D = 0; D < ND; ++D) {
      const IndexForm &Pos = P.Dims[D].Position;
      IndexForm Base;
      bool OK = true;
      for (const auto &[Mono, C] : Pos.terms()) {
        bool Builtin = any_of(Mono, [&](AtomId X) {
          return T[X].Kind == AtomKind::ThreadIdx || T[X].Kind == AtomKind::BlockIdx;
        });
        if (!Builtin) {
          IndexForm Tm = IndexForm::constant(C);
          for (AtomId X : Mono)
            Tm = Tm * IndexForm::atom(X);
          Base = Base + Tm;
        } else if (Mono.size() != 1 || C < 0) {
          OK = false;
        }
      }
      auto Least = minOffset(Off[D]);
      if (OK && Least)
        Lo[D].Bounds[K].push_back(Base + *Least);
    }
  }

  // Per side: one clamp that every read that clamps agrees on (and the
  // others provably stay inside), or one hull of the bounds.
  for (unsigned D = 0; D < ND; ++D) {
    for (bool Lower : {true, false}) {
      SideFacts &S = Lower ? Lo[D] : Hi[D];
      std::string Side = Lower ? "below" : "above";
      std::optional<IndexForm> Clamp;
      for (size_t K = 0; K < P.Reads.size(); ++K) {
        if (!S.Clamp[K])
          continue;
        if (Clamp && *Clamp != *S.Clamp[K])
          return makeError("the reads of '{0}' clamp dimension {1} from {2} to different bounds "
                           "('{3}' in {4})",
                           P.Buffer, D, Side, T.render(*S.Clamp[K]), at(*P.Reads[K]));
        Clamp = S.Clamp[K];
      }
      if (Clamp) {
        for (size_t K = 0; K < P.Reads.size(); ++K) {
          if (S.Clamp[K])
            continue;
          bool Inside = any_of(S.Bounds[K], [&](const IndexForm &B) {
            auto Dv = (B - *Clamp).constantValue();
            return Dv && (Lower ? *Dv >= 0 : *Dv <= 0);
          });
          if (!Inside)
            return makeError("{0} is not clamped from {1} along dimension {2} as the other reads "
                             "of '{3}' are, and its guard does not keep it inside the clamp",
                             at(*P.Reads[K]), Side, D, P.Buffer);
        }
        (Lower ? P.Dims[D].ClampLo : P.Dims[D].ClampHi) = Clamp;
        continue;
      }
      auto H = hull(S.Bounds, Lower);
      if (!H) {
        for (size_t K = 0; K < P.Reads.size(); ++K)
          if (S.Bounds[K].empty())
            return makeError("{0} is not bounded {1} along dimension {2} (stride {3}) by a guard "
                             "or a clamp: the tile could read elements that do not exist",
                             at(*P.Reads[K]), Side, D, P.Dims[D].StrideText);
        return makeError("the reads of '{0}' are bounded {1} along dimension {2} by bounds that "
                         "differ by more than a constant",
                         P.Buffer, Side, D);
      }
      (Lower ? P.Dims[D].BoundLo : P.Dims[D].BoundHi) = H;
    }
  }
  // The value of element e: the reads' index, clamped where they clamp
  // (EC is e clamped, a local of the loader).
  IndexForm Load;
  for (unsigned D = 0; D < ND; ++D) {
    bool Clamped = P.Dims[D].ClampLo || P.Dims[D].ClampHi;
    Load = Load + P.Dims[D].Stride * IndexForm::atom(Clamped ? P.Dims[D].EC : P.Dims[D].E);
  }
  P.LoadIndex = Load;
  return Error::success();
}

bool Planner::boundedAbove(const an::Access &A, const TileDim &Dim) {
  auto Sigma = [&](AtomId X) -> std::optional<IndexForm> {
    if (X == Dim.Moving)
      return IndexForm::atom(Dim.E) - (Dim.Position - IndexForm::atom(X));
    return std::nullopt;
  };
  for (const an::GuardTerm &G : A.G.Terms) {
    if (!G.Cmp)
      continue;
    IndexForm L = T.substitute(G.Cmp->Lhs, Sigma), R = T.substitute(G.Cmp->Rhs, Sigma);
    IndexForm Diff;
    switch (G.Cmp->Op) {
    case an::CmpOp::LT:
    case an::CmpOp::LE:
      Diff = R - L;
      break;
    case an::CmpOp::GT:
    case an::CmpOp::GE:
      Diff = L - R;
      break;
    default:
      continue;
    }
    auto C = Diff.coefficientOf(Dim.E);
    if (!C || C->constantValue() != -1)
      continue;
    IndexForm Rest = Diff + IndexForm::atom(Dim.E);
    if (!T.dependsOn(Rest, Dim.E) &&
        !findKind(T, Rest, {AtomKind::LoopVar, AtomKind::LoopIter, AtomKind::ThreadIdx,
                            AtomKind::Unknown}) &&
        T.uniformity(Rest).atLeast(an::Uniformity::BlockUniform))
      return true;
  }
  return false;
}

Expected<TilePlan> Planner::plan(const an::Footprint &F) {
  TilePlan P;
  P.F = &F;
  P.Buffer = F.Buffer;
  if (F.Space != an::MemorySpace::Global)
    return makeError("'{0}' is already in shared memory", F.Buffer);
  if (F.Offsets.size() != F.Accesses.size() || F.Dims.empty())
    return makeError("the footprint of '{0}' has no offsets", F.Buffer);
  for (unsigned A : F.Accesses)
    P.Reads.push_back(&M.Accesses[A]);
  P.Offsets = F.Offsets;
  const an::Access &First = *P.Reads.front();
  P.Param = dyn_cast_or_null<ParmVarDecl>(First.Base);
  if (!P.Param || !P.Param->getType()->isPointerType())
    return makeError("'{0}' is not a pointer parameter of the kernel", F.Buffer);
  P.Elem = P.Param->getType()->getPointeeType().getUnqualifiedType();
  if (!P.Elem->isArithmeticType() && !P.Elem->isDependentType())
    return makeError("'{0}' points to '{1}', not to numbers", F.Buffer,
                     P.Elem.getAsString(In.Ctx.getPrintingPolicy()));
  for (const an::Access *A : P.Reads)
    if (!A->E || !In.Ctx.hasSameUnqualifiedType(A->E->getType(), P.Elem))
      return makeError("{0} reads '{1}' as another type", at(*A), F.Buffer);
  // A kernel that writes the buffer it reads around: in place.
  for (const an::Access &W : M.Accesses) {
    if (!W.writes())
      continue;
    if (W.Base == First.Base)
      return makeError("the kernel writes '{0}' ({1}) as well as reading it around each "
                       "thread: an in-place update, whose reads a tile would take before the "
                       "writes",
                       F.Buffer, at(W));
    if (W.Space == an::MemorySpace::Unknown)
      return makeError("the kernel writes through {0}, a pointer the analysis cannot trace; it "
                       "may be '{1}'",
                       at(W), F.Buffer);
  }
  if (F.Symbolic) {
    P.Points = F.PointsText;
  } else {
    P.Points = std::to_string(F.Points);
    P.PointsValue = F.Points;
  }
  P.Dims.resize(F.Dims.size());
  for (unsigned D = 0; D < F.Dims.size(); ++D) {
    TileDim &Dim = P.Dims[D];
    Dim.Stride = F.Dims[D].StrideForm;
    Dim.Position = F.Dims[D].Position;
    Dim.Lo = F.Dims[D].LoForm;
    Dim.Hi = F.Dims[D].HiForm;
    Dim.StrideText = F.Dims[D].Stride;
    if (Dim.Stride.isZero())
      return makeError("the footprint of '{0}' has no strides", F.Buffer);
  }
  splitRows(P);
  for (unsigned D = 0; D < P.Dims.size(); ++D) {
    TileDim &Dim = P.Dims[D];
    if (Error E = position(P, D))
      return std::move(E);
    std::string Key = "smem-stencil-tiling:" + std::to_string(F.Id) + ":" + std::to_string(D);
    Dim.E = T.symbol(AtomKind::Param, nullptr, "e" + std::to_string(D), Key + ":e");
    Dim.EC = T.symbol(AtomKind::Param, nullptr, "e" + std::to_string(D) + "c", Key + ":ec");
  }
  // The output: one per thread at the stencil's position.
  if (F.Output < 0)
    return makeError("the stencil on '{0}' has no store of one output per thread at its "
                     "position: its results are not stored where its reads are centred",
                     F.Buffer);
  for (unsigned D = 0; D < P.Dims.size(); ++D)
    for (unsigned O = D + 1; O < P.Dims.size(); ++O)
      if (P.Dims[D].ThreadDim && P.Dims[D].ThreadDim == P.Dims[O].ThreadDim)
        return makeError("'threadIdx.{0}' moves '{1}' along two dimensions",
                         P.Dims[D].ThreadDim, F.Buffer);
  if (Error E = reads(P))
    return std::move(E);
  return P;
}

//===----------------------------------------------------------------------===//
// Writing the code
//===----------------------------------------------------------------------===//

/// The builtin references of a statement (threadIdx.y, blockIdx.y), each
/// once, in any form the AST gives them.
class BuiltinFinder : public RecursiveASTVisitor<BuiltinFinder> {
public:
  bool TraverseStmt(Stmt *S) {
    if (const auto *E = dyn_cast_or_null<Expr>(S))
      if (auto B = frontend::cudaBuiltin(E)) {
        Found.push_back({E, *B});
        return true;
      }
    return RecursiveASTVisitor::TraverseStmt(S);
  }
  bool VisitCallExpr(CallExpr *C) {
    Calls.push_back(C);
    return true;
  }
  bool VisitVarDecl(VarDecl *V) {
    if (V->hasAttr<CUDASharedAttr>())
      Shared = true;
    return true;
  }
  bool VisitLabelStmt(LabelStmt *) {
    Labels = true;
    return true;
  }
  std::vector<std::pair<const Expr *, frontend::BuiltinRef>> Found;
  std::vector<const CallExpr *> Calls;
  bool Shared = false, Labels = false;
};

/// Text with edits (offsets relative to Base) applied.
std::string applyEdits(StringRef Text, unsigned Base, std::vector<SourceEdit> Edits) {
  llvm::sort(Edits, [](const SourceEdit &A, const SourceEdit &B) { return A.Offset > B.Offset; });
  std::string Out = Text.str();
  for (const SourceEdit &E : Edits)
    Out.replace(E.Offset - Base, E.Length, E.Text);
  return Out;
}

/// Every line of Text that is not blank, prefixed by Extra.
std::string indentBy(StringRef Text, StringRef Extra) {
  SmallVector<StringRef, 32> Lines;
  Text.split(Lines, '\n');
  std::string Out;
  for (size_t I = 0; I < Lines.size(); ++I) {
    if (I)
      Out += "\n";
    if (!Lines[I].trim().empty())
      Out += (Extra + Lines[I]).str();
  }
  return Out;
}

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
};

/// Why the model finds no stencil, in the words of the nearest miss.
std::string noStencil(const an::KernelModel &M) {
  const an::AtomTable &T = M.atoms();
  std::map<std::string, std::vector<const an::Access *>> Loads;
  for (const an::Access &A : M.Accesses)
    if (A.Kind == an::AccessKind::Load && A.Space == an::MemorySpace::Global &&
        isa_and_nonnull<ParmVarDecl>(A.Base))
      Loads[A.Buffer].push_back(&A);
  if (Loads.empty())
    return "the kernel reads no array through its pointer parameters";
  for (const auto &[Buffer, As] : Loads)
    for (const an::Access *A : As)
      if (auto X = findKind(T, A->Index, {AtomKind::LoopVar}))
        if (const an::Loop &L = M.Loops[T[*X].Loop]; !L.TripCount && L.StepK == an::StepKind::Constant)
          return formatv("the reads of '{0}' ('{1}', line {2}) move with the loop over '{3}' (line "
                         "{4}), whose bounds are not compile-time constants: the footprint is not "
                         "bounded",
                         Buffer, A->Text, A->Loc.Line, L.Var, L.Loc.Line)
              .str();
  for (const auto &[Buffer, As] : Loads)
    for (const an::Access *A : As)
      if (!A->IndexKnown)
        return formatv("no stencil: the index of '{0}' (line {1}) is not known: {2}", A->Text,
                       A->Loc.Line, A->IndexWhy)
            .str();
  bool OnePosition = true;
  for (const auto &[Buffer, As] : Loads)
    for (const an::Access *A : As)
      OnePosition &= A->Index == As.front()->Index && A->Loops.empty();
  if (OnePosition)
    return "each thread reads " +
           join(map_range(Loads, [](const auto &KV) { return "'" + KV.first + "'"; }), ", ") +
           " at one position only; there is no neighbourhood to share";
  return "no stencil: no array is read at small constant offsets around each thread's position "
         "(the kernel model finds no footprint)";
}

/// Whether E mentions P (a DeclRefExpr to it anywhere inside).
bool mentions(const Stmt *E, const ParmVarDecl *P) {
  if (!E)
    return false;
  if (const auto *R = dyn_cast<DeclRefExpr>(E))
    return R->getDecl() == P;
  for (const Stmt *C : E->children())
    if (mentions(C, P))
      return true;
  return false;
}

/// A call given P's pointer (or one derived from it) to a non-const
/// element: the callee may write the buffer, which the model does not see.
const CallExpr *writableEscape(const ParmVarDecl *P, const std::vector<const CallExpr *> &Calls) {
  for (const CallExpr *C : Calls)
    for (const Expr *A : C->arguments()) {
      QualType Ty = A->IgnoreParenImpCasts()->getType();
      if (Ty->isPointerType() && !Ty->getPointeeType().isConstQualified() && mentions(A, P))
        return C;
    }
  return nullptr;
}

/// Calls that make threads of a block or warp depend on each other.
bool isCollective(const CallExpr *C) {
  const FunctionDecl *F = C->getDirectCallee();
  if (!F || !F->getIdentifier())
    return false;
  StringRef N = F->getName();
  return N.starts_with("__syncthreads") || N.starts_with("__syncwarp") ||
         N.starts_with("__shfl") || N.starts_with("__ballot") || N.starts_with("__any") ||
         N.starts_with("__all") || N.starts_with("__activemask") || N.starts_with("__match") ||
         N.starts_with("__reduce") || N == "__barrier_sync";
}

/// Whether F (or what it calls) reads a builtin index; Seen guards recursion.
bool readsBuiltins(const FunctionDecl *F, std::set<const FunctionDecl *> &Seen) {
  if (!F || !F->hasBody() || !Seen.insert(F).second)
    return false;
  BuiltinFinder B;
  B.TraverseStmt(F->getBody());
  if (!B.Found.empty())
    return true;
  for (const CallExpr *C : B.Calls)
    if (readsBuiltins(C->getDirectCallee(), Seen))
      return true;
  return false;
}

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
  std::string KVar;
};

Expected<TileShape> Writer::shape(const TilePlan &P) {
  TileShape S;
  S.Total = IndexForm::constant(1);
  for (const TileDim &D : P.Dims) {
    int64_t Threads = D.Threads * (D.ThreadDim && D.ThreadDim == KDim ? K : 1);
    IndexForm X = IndexForm::constant(Threads) + D.Hi - D.Lo;
    S.Extent.push_back(X);
    S.Total = S.Total * X;
    auto Text = print(X, false);
    if (!Text)
      return Text.takeError();
    S.ExtentText.push_back(X.isConstant() ? *Text : "(" + *Text + ")");
  }
  auto TT = print(S.Total, false);
  if (!TT)
    return TT.takeError();
  S.TotalText = S.Total.isConstant() ? *TT : "(" + *TT + ")";
  S.RowText = S.ExtentText[0];
  S.Row = S.Extent[0];
  if (auto W = S.Extent[0].constantValue(); W && P.Dims.size() > 1) {
    auto Rows = S.Extent[1].constantValue();
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
  };
  std::vector<Loop> Loops;
  for (size_t PI = 0; PI < Plans.size(); ++PI) {
    const TilePlan &P = Plans[PI];
    const TileShape &S = Shapes[PI];
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
    std::string Zero = P.Elem->isDependentType() ? Type + "(0)" : zeroOf(P.Elem, In.Ctx);
    Add(I1, formatv("{0} {1}[{2}];", Type, L.V, L.Iters).str());
    Add("", "#pragma unroll");
    Add(I1, formatv("for (int {0} = 0; {0} < {1}; ++{0}) {{", L.K, L.Iters).str());
    Add(I2, formatv("int {0} = {1} + {2} * {3};", L.T, Tid, L.K, NT).str());
    // The element's coordinates: the block's origin, the tile position, the halo.
    size_t ND = P.Dims.size();
    std::vector<std::string> E(ND), EC(ND);
    for (size_t D = 0; D < ND; ++D) {
      E[D] = fresh("e" + std::to_string(D));
      FP.spell(P.Dims[D].E, E[D], true);
    }
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
      auto O = print(Dim.Origin + Dim.Lo, true);
      if (!O)
        return O.takeError();
      std::string Rhs = *O == "0" ? C : *O + " + " + C;
      // "x + t % 20 + -2" reads better as "x + t % 20 - 2".
      if (auto Lo = Dim.Lo.constantValue(); Lo && !(Dim.Origin).isZero()) {
        auto Or = print(Dim.Origin, true);
        if (!Or)
          return Or.takeError();
        Rhs = *Or + " + " + C;
        if (*Lo)
          Rhs += (*Lo < 0 ? " - " : " + ") + std::to_string(*Lo < 0 ? -*Lo : *Lo);
      }
      Add(I2, formatv("long long {0} = {1};", E[D], Rhs).str());
    }
    for (size_t D = ND; D-- > 0;) {
      const TileDim &Dim = P.Dims[D];
      if (Dim.BoundLo) {
        auto B = print(*Dim.BoundLo, true);
        if (!B)
          return B.takeError();
        Conds.push_back(E[D] + " >= " + *B);
      }
      if (Dim.BoundHi) {
        auto B = print(*Dim.BoundHi + IndexForm::constant(1), true);
        if (!B)
          return B.takeError();
        Conds.push_back(E[D] + " < " + *B);
      }
      if (!Dim.ClampLo && !Dim.ClampHi)
        continue;
      // The clamped coordinate, as the reads clamp it.
      EC[D] = fresh("e" + std::to_string(D) + "c");
      FP.spell(Dim.EC, EC[D], true);
      std::string X = E[D];
      if (Dim.ClampHi) {
        auto B = print(*Dim.ClampHi, true);
        if (!B)
          return B.takeError();
        X = formatv("{0} > {1} ? {1} : {2}", E[D], *B, X).str();
      }
      if (Dim.ClampLo) {
        auto B = print(*Dim.ClampLo, true);
        if (!B)
          return B.takeError();
        X = formatv("{0} < {1} ? {1} : {2}", E[D], *B, X).str();
      }
      // Both ways only where the range is not empty (where min(max()) and
      // max(min()) agree); the original reads nothing elsewhere.
      if (Dim.ClampLo && Dim.ClampHi) {
        auto D2 = (*Dim.ClampHi - *Dim.ClampLo).constantValue();
        if (!D2 || *D2 < 0) {
          auto L2 = print(*Dim.ClampLo, true), H2 = print(*Dim.ClampHi, true);
          if (!L2 || !H2)
            return makeError("the clamp bounds cannot be written");
          Conds.push_back(*L2 + " <= " + *H2);
        }
      }
      Add(I2, formatv("long long {0} = {1};", EC[D], X).str());
    }
    auto Index = print(P.LoadIndex, true);
    if (!Index)
      return Index.takeError();
    std::string Load = P.Param->getName().str() + "[" + *Index + "]";
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

  auto Original = bodyText(false);
  if (!Original)
    return Original.takeError();
  auto Tiled = bodyText(true);
  if (!Tiled)
    return Tiled.takeError();
  std::string Orig = StringRef(*Original).trim("\n").rtrim().str();
  std::string New = StringRef(*Tiled).trim("\n").rtrim().str();

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
    for (size_t D = S.ExtentText.size(); D-- > 1;)
      Decl += "[" + S.ExtentText[D] + "]";
    Decl += "[" + S.RowText + "];";
    Add(Ind, Decl);
  }
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
    IndexForm Bytes = Shapes[PI].Row;
    for (size_t D = 1; D < Shapes[PI].Extent.size(); ++D)
      Bytes = Bytes * Shapes[PI].Extent[D];
    if (auto B = Bytes.constantValue())
      SharedBytes += uint64_t(*B) * elemBytes(Plans[PI]);
  }
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
      IndexForm F = W.Shapes[PI].Row;
      for (size_t D = 1; D < W.Shapes[PI].Extent.size(); ++D)
        F = F * W.Shapes[PI].Extent[D];
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
  Writer W(In, M, Plans, Block, Body);
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
                        " shared-memory tile (the " + Outputs + " block's outputs and their halo)";
  std::string Rationale =
      "Each output reads its neighbourhood from global memory. " + Savings(W, *Need, 1) +
      ". The tile is loaded where the original's own clamps and bounds say the input is read "
      "(zero elsewhere, where it never reads), and every read becomes the tile element that "
      "holds the same value: the arithmetic and its order are unchanged, so the results are "
      "bitwise identical. The tile is sized for blocks of " + Shape +
      " threads (the spec's); a device-side check of blockDim runs the original code for any "
      "other block." + Notes;
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
          "original code for the same rows." + Notes;
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
                                   .str(),
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
