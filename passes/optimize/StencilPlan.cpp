//===- passes/optimize/StencilPlan.cpp - Stencil footprints as plans ------===//
//
// See StencilPlan.h.
//
//===----------------------------------------------------------------------===//
#include "StencilPlan.h"
#include <set>
#include "forge/Support/Error.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ParentMapContext.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace clang;
using namespace llvm;

namespace forge::passes::stencil {

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

std::optional<std::pair<IndexForm, IndexForm>> Planner::loopRange(AtomId X) const {
  if (T[X].Kind != AtomKind::LoopVar || T[X].Loop < 0)
    return std::nullopt;
  const an::Loop &L = M.Loops[T[X].Loop];
  auto Last = L.lastValue();
  int64_t Step = 0;
  if (L.Step)
    if (auto S = L.Step->constantValue())
      Step = *S;
  if (!L.Start || !Last || Step == 0)
    return std::nullopt;
  // The loop's least value is its start when it counts up, its last value
  // when it counts down (`for (d = 1; d >= -1; --d)`).
  if (Step > 0)
    return std::make_pair(*L.Start, *Last);
  return std::make_pair(*Last, *L.Start);
}

std::optional<IndexForm> Planner::minOffset(const IndexForm &O) const {
  IndexForm Out = IndexForm::constant(O.constantTerm());
  for (const auto &[Mono, C] : O.terms()) {
    if (Mono.empty())
      continue;
    auto R = Mono.size() == 1 ? loopRange(Mono[0]) : std::nullopt;
    if (!R)
      return std::nullopt;
    Out = Out + (C > 0 ? R->first : R->second).scaled(C);
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
  if (March && T.dependsOn(Dim.Position, M.Loops[*March].VarAtom)) {
    const an::Loop &L = M.Loops[*March];
    IndexForm Rest = Dim.Position.withoutAtom(L.VarAtom);
    auto C = Dim.Position.coefficientOf(L.VarAtom);
    if (!C || C->constantValue() != 1 || T.dependsOn(Rest, L.VarAtom) ||
        findKind(T, Rest,
                 {AtomKind::LoopVar, AtomKind::LoopIter, AtomKind::ThreadIdx, AtomKind::Unknown}) ||
        !T.uniformity(Rest).atLeast(an::Uniformity::BlockUniform))
      return makeError("{0} is not the variable '{1}' of the loop at line {2} plus a "
                       "block-uniform offset ('{3}')",
                       Where, L.Var, L.Loc.Line, T.render(Dim.Position));
    Dim.Moving = L.VarAtom;
    Dim.Origin = Rest;
    for (unsigned O = 0; O < P.Dims.size(); ++O)
      if (O != D && T.dependsOn(P.Dims[O].Position, L.VarAtom))
        return makeError("'{0}' moves the reads of '{1}' along two dimensions", L.Var, P.Buffer);
    return Error::success();
  }
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

std::optional<IndexForm> Planner::overElement(const TilePlan &P, size_t K, AtomId X) const {
  // threadIdx.y = e1 - (the block's offset) - dy.
  for (unsigned D = 0; D < P.Dims.size(); ++D)
    if (P.Dims[D].Moving == X)
      return IndexForm::atom(P.Dims[D].E) - (P.Dims[D].Position - IndexForm::atom(X)) -
             P.Offsets[K][D];
  return std::nullopt;
}

/// G as a form that is not negative where it holds (`a < b`: b - a - 1), in
/// terms of the element P's read K reads; none for a term that is not a
/// comparison.
std::optional<IndexForm> Planner::guardDiff(const TilePlan &P, size_t K,
                                            const an::GuardTerm &G) const {
  if (!G.Cmp)
    return std::nullopt;
  auto Sigma = [&](AtomId X) { return overElement(P, K, X); };
  an::Comparison Over{T.substitute(G.Cmp->Lhs, Sigma), G.Cmp->Op,
                      T.substitute(G.Cmp->Rhs, Sigma)};
  return Over.slack();
}

/// The one coordinate of P that Diff moves with a coefficient of +1 or -1,
/// with that sign; none when it moves none or several, or another way.
static std::optional<std::pair<unsigned, int64_t>>
boundCoordinate(const an::AtomTable &T, const TilePlan &P, const IndexForm &Diff) {
  std::optional<unsigned> Dim;
  int64_t Sign = 0;
  for (unsigned D = 0; D < P.Dims.size(); ++D) {
    if (!T.dependsOn(Diff, P.Dims[D].E))
      continue;
    auto C = Diff.coefficientOf(P.Dims[D].E);
    auto CV = C ? C->constantValue() : std::nullopt;
    if (Dim || !CV || (*CV != 1 && *CV != -1))
      return std::nullopt;
    Dim = D;
    Sign = *CV;
  }
  if (!Dim)
    return std::nullopt;
  return std::make_pair(*Dim, Sign);
}

std::optional<CoordinateBound> Planner::termBound(const TilePlan &P, size_t K,
                                                  const an::GuardTerm &G) const {
  auto Diff = guardDiff(P, K, G);
  if (!Diff || findKind(T, *Diff,
                        {AtomKind::LoopVar, AtomKind::LoopIter, AtomKind::ThreadIdx,
                         AtomKind::Unknown}))
    return std::nullopt;
  auto DS = boundCoordinate(T, P, *Diff);
  if (!DS)
    return std::nullopt;
  auto [Dim, Sign] = *DS;
  IndexForm Rest = *Diff - IndexForm::atom(P.Dims[Dim].E).scaled(Sign);
  if (T.dependsOn(Rest, P.Dims[Dim].E) ||
      !T.uniformity(Rest).atLeast(an::Uniformity::BlockUniform))
    return std::nullopt;
  // Sign > 0: e >= -Rest; otherwise e <= Rest.
  return CoordinateBound{Dim, Sign > 0, Sign > 0 ? -Rest : Rest};
}

std::optional<IndexForm> Planner::maxOverLoops(const IndexForm &F) const {
  IndexForm Out;
  for (const auto &[Mono, C] : F.terms()) {
    IndexForm Tm = IndexForm::constant(C);
    if (none_of(Mono, [&](AtomId X) { return T[X].Kind == AtomKind::LoopVar; })) {
      for (AtomId X : Mono)
        Tm = Tm * IndexForm::atom(X);
      Out = Out + Tm;
      continue;
    }
    auto R = Mono.size() == 1 ? loopRange(Mono[0]) : std::nullopt;
    if (!R)
      return std::nullopt;
    Out = Out + (C > 0 ? R->second : R->first).scaled(C);
  }
  return Out;
}

std::optional<CoordinateBound> Planner::hullBound(const TilePlan &P, size_t K,
                                                  const an::GuardTerm &G) const {
  if (auto B = termBound(P, K, G))
    return B;
  // A guard on the thread's position alone (`if (i >= 1 && i < nx - 1)`
  // around loops over the offsets): read K's element is the position plus
  // an offset its loops generate, so the bound holds for every iteration
  // with the offset at its extreme: pos >= 1 and dx >= -1 give e >= 0.
  if (!G.Cmp)
    return std::nullopt;
  for (const IndexForm *Side : {&G.Cmp->Lhs, &G.Cmp->Rhs})
    if (findKind(T, *Side, {AtomKind::LoopVar, AtomKind::LoopIter, AtomKind::Unknown}))
      return std::nullopt;
  auto Diff = guardDiff(P, K, G);
  if (!Diff)
    return std::nullopt;
  auto DS = boundCoordinate(T, P, *Diff);
  if (!DS)
    return std::nullopt;
  auto [Dim, Sign] = *DS;
  // Diff = Sign * e + Rest(offsets) >= 0 for the iteration's offsets, so
  // Sign * e >= -max(Rest) over all of them.
  auto Rest = maxOverLoops(*Diff - IndexForm::atom(P.Dims[Dim].E).scaled(Sign));
  if (!Rest || T.dependsOn(*Rest, P.Dims[Dim].E) ||
      findKind(T, *Rest,
               {AtomKind::LoopVar, AtomKind::LoopIter, AtomKind::ThreadIdx, AtomKind::Unknown}) ||
      !T.uniformity(*Rest).atLeast(an::Uniformity::BlockUniform))
    return std::nullopt;
  CoordinateBound B{Dim, Sign > 0, Sign > 0 ? -*Rest : *Rest};
  // Only a guard that keeps the reads inside the data: a lower bound of 0 or
  // more, and an upper bound inside the row (e < w where the next
  // dimension's stride is w). `x < w` around offsets up to +1 reaches e = w,
  // the next row's first element, as an unguarded read does: declined.
  if (B.Lower) {
    auto V = B.Bound.constantValue();
    if (!V || *V < 0)
      return std::nullopt;
  } else if (Dim + 1 < P.Dims.size()) {
    IndexForm Room = P.Dims[Dim + 1].Stride -
                     P.Dims[Dim].Stride * (B.Bound + IndexForm::constant(1));
    auto V = Room.constantValue();
    if (!V || *V < 0)
      return std::nullopt;
  }
  return B;
}

/// Whether Cond is (part of) the condition of an if or ?:, reached through
/// parentheses, casts, `!`, `&&` and `||` only: its value decides nothing
/// else (not a bool local's definition, not a stored value).
static bool inBranchCondition(ASTContext &Ctx, const Expr *Cond) {
  const Expr *Cur = Cond;
  for (;;) {
    auto Parents = Ctx.getParents(*Cur);
    if (Parents.size() != 1)
      return false;
    if (const auto *If = Parents[0].get<IfStmt>())
      return If->getCond() == Cur;
    const auto *PE = Parents[0].get<Expr>();
    if (!PE)
      return false;
    if (const auto *CO = dyn_cast<ConditionalOperator>(PE))
      return CO->getCond() == Cur;
    const auto *U = dyn_cast<UnaryOperator>(PE);
    const auto *B = dyn_cast<BinaryOperator>(PE);
    if (!isa<ParenExpr, ImplicitCastExpr>(PE) && !(U && U->getOpcode() == UO_LNot) &&
        !(B && B->isLogicalOp()))
      return false;
    Cur = PE;
  }
}

std::vector<BorderCheck> Planner::borderChecks(const TilePlan &P) const {
  std::vector<BorderCheck> Out;
  for (size_t K = 0; K < P.Reads.size(); ++K)
    for (const an::GuardTerm &G : P.Reads[K]->G.Terms) {
      if (!G.Cond)
        continue;
      const auto *Cmp = dyn_cast<BinaryOperator>(G.Cond->IgnoreParenImpCasts());
      // Signed operands: an unsigned test of a negative coordinate is
      // false where the bound says true.
      if (!Cmp || !Cmp->isComparisonOp() || !Cmp->getLHS()->getType()->isSignedIntegerType() ||
          !Cmp->getRHS()->getType()->isSignedIntegerType() || G.Cond->HasSideEffects(In.Ctx) ||
          !inBranchCondition(In.Ctx, G.Cond))
        continue;
      auto B = termBound(P, K, G);
      if (!B)
        continue;
      auto Same = llvm::find_if(Out, [&](const BorderCheck &C) { return C.Cond == G.Cond; });
      if (Same == Out.end()) {
        Out.push_back({G.Cond, G.Holds, *B});
        continue;
      }
      // Any read's bound proves the test; keep the loosest.
      auto D = (B->Bound - Same->B.Bound).constantValue();
      if (Same->B.Dim == B->Dim && Same->B.Lower == B->Lower && D &&
          (B->Lower ? *D < 0 : *D > 0))
        Same->B = *B;
    }
  return Out;
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
    auto Sigma = [&](AtomId X) { return overElement(P, K, X); };
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
      // A quotient of parameters (mask_width / 2) is part of an offset.
      if (!T[X0].isComposite() || !T.isVarying(X0))
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
    // A bound with the offsets at their extremes only where the read has no
    // exact one on that side (`p < n` inside the loop is tighter than
    // `i < n` around it plus the largest offset).
    std::vector<CoordinateBound> Loose;
    for (const an::GuardTerm &G : A.G.Terms)
      if (auto B = termBound(P, K, G))
        (B->Lower ? Lo : Hi)[B->Dim].Bounds[K].push_back(B->Bound);
      else if (auto H = hullBound(P, K, G))
        Loose.push_back(*H);
    std::set<std::pair<unsigned, bool>> Exact;
    for (unsigned D = 0; D < ND; ++D) {
      if (!Lo[D].Bounds[K].empty())
        Exact.insert({D, true});
      if (!Hi[D].Bounds[K].empty())
        Exact.insert({D, false});
    }
    for (const CoordinateBound &B : Loose)
      if (!Exact.count({B.Dim, B.Lower}))
        (B.Lower ? Lo : Hi)[B.Dim].Bounds[K].push_back(B.Bound);
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
        if (March && is_contained(Mono, M.Loops[*March].VarAtom)) {
          OK = false; // the loop's range bounds it, not the thread's position
        } else if (!Builtin) {
          IndexForm Tm = IndexForm::constant(C);
          for (AtomId X : Mono)
            Tm = Tm * IndexForm::atom(X);
          Base = Base + Tm;
        } else if (C < 0 || !all_of(Mono, [&](AtomId X) {
                     // A product of builtins (blockIdx.x * blockDim.x when
                     // the block is not fixed) is not negative either.
                     return T[X].Kind == AtomKind::ThreadIdx || T[X].Kind == AtomKind::BlockIdx ||
                            T[X].Kind == AtomKind::BlockDim || T[X].Kind == AtomKind::GridDim;
                   })) {
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
      if (!H && March && P.Dims[D].Moving == M.Loops[*March].VarAtom) {
        // Unguarded reads take every plane the loop reaches; reads guarded
        // in part would make a plane read by some iterations only.
        if (any_of(S.Bounds, [](const std::vector<IndexForm> &B) { return !B.empty(); }))
          return makeError("the reads of '{0}' are bounded {1} along the loop's dimension by "
                           "guards only in part: a plane is read in some iterations and not in "
                           "others",
                           P.Buffer, Side);
        continue;
      }
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
    auto Slack = an::Comparison{T.substitute(G.Cmp->Lhs, Sigma), G.Cmp->Op,
                                T.substitute(G.Cmp->Rhs, Sigma)}
                     .slack();
    if (!Slack)
      continue;
    const IndexForm &Diff = *Slack;
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

/// Text with edits (offsets relative to Base) applied.
std::string applyEdits(StringRef Text, unsigned Base, std::vector<SourceEdit> Edits) {
  llvm::sort(Edits, [](const SourceEdit &A, const SourceEdit &B) { return A.Offset > B.Offset; });
  std::string Out = Text.str();
  for (const SourceEdit &E : Edits)
    Out.replace(E.Offset - Base, E.Length, E.Text);
  return Out;
}

/// Every line of Text that is not blank, prefixed by Extra.
bool isEarlyReturn(const IfStmt *If) {
  if (If->getElse() || If->getInit() || If->getConditionVariable())
    return false;
  const Stmt *Then = If->getThen();
  if (const auto *CS = dyn_cast<CompoundStmt>(Then))
    Then = CS->size() == 1 ? CS->body_front() : nullptr;
  const auto *R = dyn_cast_or_null<ReturnStmt>(Then);
  return R && !R->getRetValue();
}

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


Expected<ElementLoad> elementLoad(FormPrinter &FP, const an::KernelModel &M, const TilePlan &P,
                                  ArrayRef<std::string> E,
                                  function_ref<std::string(StringRef)> Fresh) {
  auto Print = [&](const IndexForm &F) -> Expected<std::string> {
    if (auto S = FP.print(F, true))
      return *S;
    return makeError("'{0}' cannot be written in the loader: {1}", M.render(F), FP.why());
  };
  ElementLoad Out;
  size_t ND = P.Dims.size();
  std::vector<std::string> EC(ND);
  for (size_t D = 0; D < ND; ++D)
    FP.spell(P.Dims[D].E, E[D], true);
  for (size_t D = ND; D-- > 0;) {
    const TileDim &Dim = P.Dims[D];
    if (Dim.BoundLo) {
      auto B = Print(*Dim.BoundLo);
      if (!B)
        return B.takeError();
      Out.Conds.push_back(E[D] + " >= " + *B);
    }
    if (Dim.BoundHi) {
      auto B = Print(*Dim.BoundHi + IndexForm::constant(1));
      if (!B)
        return B.takeError();
      Out.Conds.push_back(E[D] + " < " + *B);
    }
    if (!Dim.ClampLo && !Dim.ClampHi)
      continue;
    // The clamped coordinate, as the reads clamp it.
    EC[D] = Fresh("e" + std::to_string(D) + "c");
    FP.spell(Dim.EC, EC[D], true);
    std::string X = E[D];
    if (Dim.ClampHi) {
      auto B = Print(*Dim.ClampHi);
      if (!B)
        return B.takeError();
      X = formatv("{0} > {1} ? {1} : {2}", E[D], *B, X).str();
    }
    if (Dim.ClampLo) {
      auto B = Print(*Dim.ClampLo);
      if (!B)
        return B.takeError();
      X = formatv("{0} < {1} ? {1} : {2}", E[D], *B, X).str();
    }
    // Both ways only where the range is not empty (where min(max()) and
    // max(min()) agree); the original reads nothing elsewhere.
    if (Dim.ClampLo && Dim.ClampHi) {
      auto D2 = (*Dim.ClampHi - *Dim.ClampLo).constantValue();
      if (!D2 || *D2 < 0) {
        auto L2 = Print(*Dim.ClampLo), H2 = Print(*Dim.ClampHi);
        if (!L2 || !H2)
          return makeError("the clamp bounds cannot be written");
        Out.Conds.push_back(*L2 + " <= " + *H2);
      }
    }
    Out.Decls.push_back(formatv("long long {0} = {1};", EC[D], X).str());
  }
  auto Index = Print(P.LoadIndex);
  if (!Index)
    return Index.takeError();
  Out.Load = P.Param->getName().str() + "[" + *Index + "]";
  return Out;
}

} // namespace forge::passes::stencil
