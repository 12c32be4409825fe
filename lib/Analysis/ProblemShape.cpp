//===- Analysis/ProblemShape.cpp - How big a kernel's problem is ----------===//
#include "forge/Analysis/ProblemShape.h"
#include "forge/Analysis/KernelModel.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include <cmath>
#include <map>
#include <set>

using namespace llvm;

namespace forge::analysis {
namespace {

/// What holds about a varying form where an access runs: Lo <= V <= Hi,
/// the bounds over symbols.
struct Fact {
  IndexForm V;
  std::optional<IndexForm> Lo, Hi;
  std::string Text;
  unsigned Line = 0;
};

/// Symbols: parameters, template parameters, blockDim, gridDim, and the
/// divisions, remainders and clamps of symbols.
bool symbolicAtom(const AtomTable &T, AtomId A) {
  const Atom &X = T[A];
  switch (X.Kind) {
  case AtomKind::Param:
  case AtomKind::TemplateParam:
  case AtomKind::BlockDim:
  case AtomKind::GridDim:
    return true;
  case AtomKind::Div:
  case AtomKind::Mod:
  case AtomKind::Min:
  case AtomKind::Max:
    return all_of(X.Operands, [&](const IndexForm &O) {
      return all_of(O.atoms(), [&](AtomId Y) { return symbolicAtom(T, Y); });
    });
  default:
    return false;
  }
}

bool symbolic(const AtomTable &T, const IndexForm &F) {
  return !F.overflowed() && all_of(F.atoms(), [&](AtomId A) { return symbolicAtom(T, A); });
}

/// The sign of a form over symbols, taking every symbol to be
/// non-negative: +1 when no coefficient is negative, -1 when none is
/// positive, 0 when it is not known.
int signOf(const IndexForm &F) {
  bool Pos = false, Neg = false;
  for (const auto &[M, C] : F.terms())
    (C > 0 ? Pos : Neg) = true;
  if (!Neg)
    return 1;
  if (!Pos)
    return -1;
  return 0;
}

/// The larger (Up) or smaller of two bounds: the one that is when their
/// difference has a known sign, else min/max of both.
IndexForm pick(AtomTable &T, const IndexForm &A, const IndexForm &B, bool Up) {
  int S = signOf(A - B);
  if (S != 0)
    return (S > 0) == Up ? A : B;
  return Up ? T.max(A, B) : T.min(A, B);
}

/// F with every symbol set to V (composites evaluated); none for other atoms.
std::optional<double> evalAt(const AtomTable &T, const IndexForm &F, double V) {
  double Sum = 0;
  for (const auto &[Mono, C] : F.terms()) {
    double P = double(C);
    for (AtomId A : Mono) {
      const Atom &X = T[A];
      std::optional<double> Val;
      switch (X.Kind) {
      case AtomKind::Param:
      case AtomKind::TemplateParam:
      case AtomKind::BlockDim:
      case AtomKind::GridDim:
        Val = V;
        break;
      case AtomKind::Div:
      case AtomKind::Mod:
      case AtomKind::Min:
      case AtomKind::Max: {
        auto L = evalAt(T, X.Operands[0], V), R = evalAt(T, X.Operands[1], V);
        if (!L || !R || ((X.Kind == AtomKind::Div || X.Kind == AtomKind::Mod) && *R == 0))
          return std::nullopt;
        Val = X.Kind == AtomKind::Div   ? std::trunc(*L / *R)
              : X.Kind == AtomKind::Mod ? std::fmod(*L, *R)
              : X.Kind == AtomKind::Min ? std::min(*L, *R)
                                        : std::max(*L, *R);
        break;
      }
      default:
        return std::nullopt;
      }
      P *= *Val;
    }
    Sum += P;
  }
  return Sum;
}

/// The sign of A - B where the sizes are large: by the sign of the
/// difference, else by its value with every symbol 64 and 4096 (both must
/// agree); 0 when neither decides.
int compareLarge(const AtomTable &T, const IndexForm &A, const IndexForm &B) {
  IndexForm D = A - B;
  if (D.isZero())
    return 0;
  if (int S = signOf(D))
    return S;
  auto Small = evalAt(T, D, 64), Large = evalAt(T, D, 4096);
  if (Small && Large && (*Small > 0) == (*Large > 0) && *Small != 0 && *Large != 0)
    return *Large > 0 ? 1 : -1;
  return 0;
}

/// A count as a person writes it: when every term below the highest degree
/// is negative (`nx * ny * nz - nx * ny - nx - 1`, an interior stencil's
/// reach), the terms of the highest degree, which bound it from above.
IndexForm rounded(const IndexForm &F, bool &Changed) {
  unsigned Top = 0;
  for (const auto &[M, C] : F.terms())
    Top = std::max<unsigned>(Top, M.size());
  IndexForm Lead;
  bool AllBelowNegative = true;
  for (const auto &[M, C] : F.terms()) {
    IndexForm Term = IndexForm::constant(C);
    for (AtomId A : M)
      Term = Term * IndexForm::atom(A);
    if (M.size() == Top)
      Lead = Lead + Term;
    else if (C > 0)
      AllBelowNegative = false;
  }
  Changed = Top > 0 && AllBelowNegative && Lead != F && signOf(Lead) > 0;
  return Changed ? Lead : F;
}

class Bounder {
public:
  Bounder(KernelModel &M, std::vector<Fact> Facts) : M(M), T(M.atoms()), Facts(std::move(Facts)) {}

  /// An upper (Up) or lower bound of F over symbols, where the facts hold.
  std::optional<IndexForm> bound(const IndexForm &F, bool Up, unsigned Depth = 0) {
    if (F.overflowed())
      return fail("the index overflows 64 bits");
    if (symbolic(T, F))
      return F;
    if (Depth > 12)
      return fail("the index is too deeply nested to bound");
    if (auto R = byFacts(F, Up, Depth))
      return R;
    return termwise(F, Up, Depth);
  }

  std::string Why;

private:
  std::nullopt_t fail(std::string W) {
    if (Why.empty())
      Why = std::move(W);
    return std::nullopt;
  }

  /// The atom of V to eliminate F by: a varying one with a constant
  /// coefficient, thread indices first.
  std::optional<std::pair<AtomId, int64_t>> lead(const IndexForm &V) const {
    std::optional<std::pair<AtomId, int64_t>> Best;
    int BestRank = 99;
    for (AtomId A : V.atoms()) {
      if (symbolicAtom(T, A))
        continue;
      auto C = V.coefficientOf(A);
      std::optional<int64_t> K = C ? C->constantValue() : std::nullopt;
      if (!K || *K == 0)
        continue;
      int Rank = T[A].Kind == AtomKind::ThreadIdx  ? 0
                 : T[A].Kind == AtomKind::BlockIdx ? 1
                 : T[A].Kind == AtomKind::LoopVar  ? 2
                                                   : 3;
      if (Rank < BestRank) {
        BestRank = Rank;
        Best = {A, *K};
      }
    }
    return Best;
  }

  /// F = Q * V + Rest for a fact's V, with Q over symbols of a known sign:
  /// then F is bounded by Q times V's bound plus Rest's.
  std::optional<IndexForm> byFacts(const IndexForm &F, bool Up, unsigned Depth) {
    for (const Fact &Fa : Facts) {
      auto L = lead(Fa.V);
      if (!L)
        continue;
      auto Q = F.coefficientOf(L->first);
      if (!Q || Q->isZero() || !symbolic(T, *Q))
        continue;
      auto Qc = Q->dividedExactly(L->second);
      if (!Qc)
        continue;
      int S = signOf(*Qc);
      if (S == 0)
        continue;
      const std::optional<IndexForm> &B = (S > 0) == Up ? Fa.Hi : Fa.Lo;
      if (!B)
        continue;
      IndexForm Rest = F - *Qc * Fa.V;
      if (Rest.mentions(L->first))
        continue;
      std::string Saved = Why;
      auto RB = bound(Rest, Up, Depth + 1);
      if (!RB) {
        Why = Saved;
        continue;
      }
      return *Qc * *B + *RB;
    }
    return std::nullopt;
  }

  /// Term by term: each product of a symbolic coefficient and varying
  /// atoms, by the atoms' ranges.
  std::optional<IndexForm> termwise(const IndexForm &F, bool Up, unsigned Depth) {
    IndexForm Out;
    for (const auto &[Mono, C] : F.terms()) {
      IndexForm Coef = IndexForm::constant(C);
      std::vector<AtomId> Varying;
      for (AtomId A : Mono) {
        if (symbolicAtom(T, A))
          Coef = Coef * IndexForm::atom(A);
        else
          Varying.push_back(A);
      }
      if (Varying.empty()) {
        Out = Out + Coef;
        continue;
      }
      int S = signOf(Coef);
      if (S == 0)
        return fail(formatv("the sign of '{0}' is not known", T.render(Coef)).str());
      bool Dir = (S > 0) == Up;
      IndexForm Prod = IndexForm::constant(1);
      for (AtomId A : Varying) {
        auto B = atomBound(A, Dir, Depth);
        if (!B)
          return std::nullopt;
        if (Varying.size() > 1) {
          // A product of varying values is bounded by the product of their
          // bounds only where none is negative.
          auto Lo = atomBound(A, false, Depth);
          if (!Lo || signOf(*Lo) < 0)
            return fail(formatv("'{0}' multiplies values that may be negative",
                                T.render(IndexForm::atom(A)))
                            .str());
        }
        Prod = Prod * *B;
      }
      Out = Out + Coef * Prod;
    }
    return Out;
  }

  std::optional<IndexForm> loopBound(const Loop &L, bool Up, unsigned Depth) {
    int Dir = 0; // +1 counts up, -1 down
    switch (L.StepK) {
    case StepKind::GridStride:
    case StepKind::BlockStride:
      Dir = 1;
      break;
    case StepKind::Constant:
    case StepKind::Uniform:
      Dir = L.Step ? signOf(*L.Step) : 0;
      if (L.Step && L.Step->isZero())
        Dir = 0;
      break;
    case StepKind::Geometric:
      Dir = L.Factor > 0 ? 1 : L.Factor < 0 ? -1 : 0;
      break;
    default:
      break;
    }
    if (Dir == 0 || !L.Start)
      return fail(formatv("the loop at line {0} has no step the analysis follows{1}", L.Loc.Line,
                          L.Why.empty() ? "" : ": " + L.Why)
                      .str());
    bool FromStart = (Dir > 0) != Up;
    if (FromStart)
      return bound(*L.Start, Up, Depth + 1);
    if (!L.Bound)
      return fail(formatv("the loop '{0}' at line {1} has no bound ('{2}')", L.Var, L.Loc.Line,
                          L.CondText)
                      .str());
    auto B = bound(*L.Bound, Up, Depth + 1);
    if (!B)
      return std::nullopt;
    switch (L.Cmp) {
    case CmpOp::LT:
      return *B - IndexForm::constant(1);
    case CmpOp::GT:
      return *B + IndexForm::constant(1);
    case CmpOp::LE:
    case CmpOp::GE:
      return *B;
    default:
      return fail(formatv("the loop '{0}' at line {1} ends on '{2}'", L.Var, L.Loc.Line, L.CondText)
                      .str());
    }
  }

  std::optional<IndexForm> atomBound(AtomId A, bool Up, unsigned Depth) {
    const Atom &X = T[A];
    if (symbolicAtom(T, A))
      return IndexForm::atom(A);
    // A fact about the atom alone.
    for (const Fact &Fa : Facts)
      if (Fa.V == IndexForm::atom(A) && (Up ? Fa.Hi : Fa.Lo))
        return Up ? *Fa.Hi : *Fa.Lo;
    switch (X.Kind) {
    case AtomKind::ThreadIdx:
      return Up ? IndexForm::atom(T.builtin("blockDim", X.Dim)) - IndexForm::constant(1)
                : IndexForm::constant(0);
    case AtomKind::BlockIdx:
      return Up ? IndexForm::atom(T.builtin("gridDim", X.Dim)) - IndexForm::constant(1)
                : IndexForm::constant(0);
    case AtomKind::LoopVar:
      if (X.Loop < 0 || X.Loop >= (int)M.Loops.size())
        return fail(formatv("'{0}' is not a loop the analysis knows", X.Name).str());
      return loopBound(M.Loops[X.Loop], Up, Depth);
    case AtomKind::LoopIter: {
      const Loop *L = X.Loop >= 0 && X.Loop < (int)M.Loops.size() ? &M.Loops[X.Loop] : nullptr;
      if (!Up)
        return IndexForm::constant(0);
      if (L && L->TripCount)
        return IndexForm::constant(*L->TripCount - 1);
      return fail(formatv("the trip count of the loop of '{0}' is not known", X.Name).str());
    }
    case AtomKind::Min:
    case AtomKind::Max:
    case AtomKind::Select: {
      std::string Saved = Why;
      auto B0 = bound(X.Operands[0], Up, Depth + 1);
      auto B1 = bound(X.Operands[1], Up, Depth + 1);
      // min(a, b) <= either; max(a, b) >= either.
      bool EitherWill = (X.Kind == AtomKind::Min) == Up;
      if (X.Kind != AtomKind::Select && EitherWill && (B0 || B1)) {
        Why = Saved;
        return B0 && B1 ? pick(T, *B0, *B1, !Up) : B0 ? *B0 : *B1;
      }
      if (!B0 || !B1)
        return std::nullopt;
      return pick(T, *B0, *B1, Up);
    }
    case AtomKind::Div: {
      const IndexForm &D = X.Operands[1];
      if (!symbolic(T, D) || signOf(D) <= 0 || D.isZero())
        return fail(formatv("'{0}' divides by a value whose sign is not known",
                            T.render(IndexForm::atom(A)))
                        .str());
      auto N = bound(X.Operands[0], Up, Depth + 1);
      if (!N)
        return std::nullopt;
      return T.div(*N, D);
    }
    case AtomKind::Mod: {
      const IndexForm &D = X.Operands[1];
      auto NLo = bound(X.Operands[0], false, Depth + 1);
      if (!symbolic(T, D) || signOf(D) <= 0 || D.isZero() || !NLo || signOf(*NLo) < 0)
        return fail(formatv("'{0}' may be negative", T.render(IndexForm::atom(A))).str());
      return Up ? D - IndexForm::constant(1) : IndexForm::constant(0);
    }
    case AtomKind::Unknown:
      return fail(X.Reason.empty() ? formatv("'{0}' is not known", X.Name).str()
                                   : formatv("'{0}': {1}", X.Name, X.Reason).str());
    default:
      return fail(formatv("'{0}' cannot be bounded", T.render(IndexForm::atom(A))).str());
    }
  }

  KernelModel &M;
  AtomTable &T;
  std::vector<Fact> Facts;
};

/// The facts where an access runs: each comparison of its guard, and of
/// the conditions of the loops around it beside their exit tests, as a
/// bound on its varying part.
std::vector<Fact> factsOf(const KernelModel &M, const Access &A) {
  const AtomTable &T = M.atoms();
  struct Term {
    const Comparison *Cmp;
    std::string Text;
    unsigned Line;
  };
  std::vector<Term> Terms;
  for (const GuardTerm *G : A.G.comparisons())
    Terms.push_back({&*G->Cmp, G->Text, G->Loc.Line});
  for (unsigned L : A.Loops)
    if (L < M.Loops.size())
      for (const Comparison &C : M.Loops[L].ExtraCmps)
        Terms.push_back({&C, T.render(C), M.Loops[L].Loc.Line});
  std::vector<Fact> Out;
  for (const Term &Term : Terms) {
    IndexForm D = Term.Cmp->Lhs - Term.Cmp->Rhs;
    if (D.overflowed())
      continue;
    // The varying part: every term with at least one varying atom.
    IndexForm V = D - D.filtered([&](AtomId A) { return symbolicAtom(T, A); });
    IndexForm S = D - V;
    if (V.isZero())
      continue;
    CmpOp Op = Term.Cmp->Op;
    // V op -S, with V's first term positive.
    IndexForm Rhs = -S;
    if (V.terms().begin()->second < 0) {
      V = -V;
      Rhs = S;
      Op = swapSides(Op);
    }
    Fact F;
    F.V = V;
    F.Text = Term.Text;
    F.Line = Term.Line;
    switch (Op) {
    case CmpOp::LT:
      F.Hi = Rhs - IndexForm::constant(1);
      break;
    case CmpOp::LE:
      F.Hi = Rhs;
      break;
    case CmpOp::GT:
      F.Lo = Rhs + IndexForm::constant(1);
      break;
    case CmpOp::GE:
      F.Lo = Rhs;
      break;
    case CmpOp::EQ:
      F.Lo = F.Hi = Rhs;
      break;
    case CmpOp::NE:
      continue;
    }
    auto It = find_if(Out, [&](const Fact &O) { return O.V == F.V; });
    if (It == Out.end()) {
      Out.push_back(std::move(F));
      continue;
    }
    // The upper bound's text: it is the one the grid note names.
    if (!It->Hi && F.Hi) {
      It->Hi = F.Hi;
      It->Text = F.Text;
      It->Line = F.Line;
    }
    if (!It->Lo)
      It->Lo = F.Lo;
  }
  // Facts over more varying atoms first: the position (blockIdx * blockDim
  // + threadIdx) before threadIdx alone.
  auto Count = [&](const Fact &F) {
    unsigned N = 0;
    for (AtomId A : F.V.atoms())
      N += !symbolicAtom(T, A);
    return N;
  };
  std::stable_sort(Out.begin(), Out.end(),
                   [&](const Fact &A, const Fact &B) { return Count(A) > Count(B); });
  return Out;
}

/// V is Scale * (blockIdx.d * blockDim.d + threadIdx.d) + R, or Scale *
/// blockIdx.d + R (PerBlock), where R has no thread or block index (the
/// offset of a per-thread loop, `i + k < n`): Scale, PerBlock and R.
struct Position {
  IndexForm Scale;
  bool PerBlock = false;
  IndexForm Rest;
};
std::optional<Position> positionOf(AtomTable &T, const IndexForm &V, char D) {
  auto Tid = T.findBuiltin("threadIdx", D);
  auto Bid = T.findBuiltin("blockIdx", D);
  if (!Bid)
    return std::nullopt;
  IndexForm BDim = IndexForm::atom(T.builtin("blockDim", D));
  auto NoIndex = [&](const IndexForm &R) {
    return !T.dependsOnKind(R, AtomKind::ThreadIdx) && !T.dependsOnKind(R, AtomKind::BlockIdx);
  };
  // The coefficient of an index: over symbols, and positive.
  auto Coef = [&](AtomId A) -> std::optional<IndexForm> {
    auto C = V.coefficientOf(A);
    if (!C || C->isZero() || !symbolic(T, *C) || signOf(*C) <= 0)
      return std::nullopt;
    return C;
  };
  if (Tid) {
    if (auto K = Coef(*Tid)) {
      IndexForm Rest = V - *K * (IndexForm::atom(*Bid) * BDim + IndexForm::atom(*Tid));
      if (NoIndex(Rest))
        return Position{*K, false, Rest};
    }
  }
  if (auto K = Coef(*Bid); K && (!Tid || !V.mentions(*Tid))) {
    IndexForm Rest = V - *K * IndexForm::atom(*Bid);
    if (NoIndex(Rest))
      return Position{*K, true, Rest};
  }
  return std::nullopt;
}

std::string where(const Access &A) {
  return formatv("'{0}' (line {1})", A.Text, A.Loc.Line).str();
}

} // namespace

ProblemShape inferProblemShape(KernelModel &M) {
  ProblemShape S;
  AtomTable &T = M.atoms();
  std::map<int, BufferExtent> ByParam;
  std::map<int, std::string> ElemType;
  std::map<int, uint64_t> ElemBytes;
  std::set<int> Failed, StoreSeen;
  std::map<int, IndexForm> StoreCount;
  std::map<int, bool> StoreFromZero;
  bool Untraced = false;

  for (const Access &A : M.Accesses) {
    if (A.Space == MemorySpace::Unknown) {
      Untraced = true;
      continue;
    }
    if (A.Space != MemorySpace::Global || A.ParamIndex < 0)
      continue;
    BufferExtent &E = ByParam[A.ParamIndex];
    E.Buffer = A.Buffer;
    E.ParamIndex = A.ParamIndex;
    if (Failed.count(A.ParamIndex))
      continue;
    auto Fail = [&](std::string Why) {
      Failed.insert(A.ParamIndex);
      E.Count.reset();
      E.Why = formatv("{0}: {1}", where(A), Why).str();
    };
    if (!A.IndexKnown) {
      Fail(A.IndexWhy.empty() ? "the index is not known" : A.IndexWhy);
      continue;
    }
    // Counts are in elements of the buffer's first access type; an access
    // through a reinterpretation (float4 of a float buffer) is scaled.
    int64_t Scale = 1;
    if (!ElemType.count(A.ParamIndex)) {
      ElemType[A.ParamIndex] = A.ElementType;
      ElemBytes[A.ParamIndex] = A.ElementBytes;
      E.ElementBytes = A.ElementBytes;
    } else if (ElemType[A.ParamIndex] != A.ElementType) {
      uint64_t B0 = ElemBytes[A.ParamIndex], B1 = A.ElementBytes;
      if (!B0 || !B1 || B1 % B0) {
        Fail(formatv("it reads '{0}' as '{1}' and as '{2}'", A.Buffer, ElemType[A.ParamIndex],
                     A.ElementType)
                 .str());
        continue;
      }
      Scale = int64_t(B1 / B0);
    }
    Bounder B(M, factsOf(M, A));
    auto Hi = B.bound(A.Index, true);
    if (!Hi) {
      Fail(B.Why.empty() ? "the index cannot be bounded" : B.Why);
      continue;
    }
    Bounder BL(M, factsOf(M, A));
    auto Lo = BL.bound(A.Index, false);
    if (!Lo || signOf(*Lo) < 0)
      E.MayReadBefore = true;
    IndexForm Count = (*Hi + IndexForm::constant(1)).scaled(Scale);
    if (A.writes()) {
      // The stores' reach, to tell whether they cover the buffer.
      bool FromZero = Lo && Lo->isZero();
      if (StoreSeen.insert(A.ParamIndex).second) {
        StoreCount[A.ParamIndex] = Count;
        StoreFromZero[A.ParamIndex] = FromZero;
      } else {
        if (compareLarge(T, Count, StoreCount[A.ParamIndex]) > 0)
          StoreCount[A.ParamIndex] = Count;
        StoreFromZero[A.ParamIndex] = StoreFromZero[A.ParamIndex] || FromZero;
      }
    }
    if (!E.Count) {
      E.Count = Count;
      E.From = A.Text;
      E.Line = A.Loc.Line;
      continue;
    }
    int Cmp = compareLarge(T, Count, *E.Count);
    if (Cmp > 0) {
      E.Count = Count;
      E.From = A.Text;
      E.Line = A.Loc.Line;
    } else if (Cmp == 0 && Count != *E.Count) {
      E.Count = T.max(*E.Count, Count);
    }
  }
  for (auto &[P, E] : ByParam) {
    if (!E.Count)
      continue;
    bool Changed = false;
    E.Count = rounded(*E.Count, Changed);
    if (Changed)
      E.Rounded = true;
    if (StoreSeen.count(P))
      E.WrittenInPart =
          E.Rounded || !StoreFromZero[P] || compareLarge(T, *E.Count, StoreCount[P]) != 0;
  }
  for (auto &[P, E] : ByParam)
    S.Buffers.push_back(std::move(E));

  // The grid: guards that bound the position along each dimension, stores'
  // guards first; else a grid-stride loop over it.
  std::vector<const Access *> Order;
  for (const Access &A : M.Accesses)
    if (A.writes())
      Order.push_back(&A);
  for (const Access &A : M.Accesses)
    if (!A.writes())
      Order.push_back(&A);
  const char Dims[3] = {'x', 'y', 'z'};
  for (int D = 0; D < 3; ++D) {
    for (const Access *A : Order) {
      for (const Fact &F : factsOf(M, *A)) {
        if (!F.Hi)
          continue;
        auto P = positionOf(T, F.V, Dims[D]);
        if (!P)
          continue;
        // Scale * position + Rest <= Hi: the position is at most Hi minus
        // the least Rest (0 for a per-thread loop's k from 0).
        IndexForm Limit = *F.Hi + IndexForm::constant(1);
        if (!P->Rest.isZero()) {
          Bounder B(M, {});
          auto Lo = B.bound(P->Rest, false);
          if (!Lo)
            continue;
          Limit = Limit - *Lo;
        }
        ThreadExtent X;
        X.Limit = Limit;
        X.Scale = P->Scale;
        X.PerBlock = P->PerBlock;
        X.From = F.Text;
        X.Line = F.Line;
        S.Threads[D] = std::move(X);
        break;
      }
      if (S.Threads[D])
        break;
    }
    if (S.Threads[D])
      continue;
    for (const Loop &L : M.Loops) {
      if (L.StepK != StepKind::GridStride || !L.Start || !L.Bound || !symbolic(T, *L.Bound))
        continue;
      IndexForm V = *L.Start - L.Start->filtered([&](AtomId A) { return symbolicAtom(T, A); });
      auto P = positionOf(T, V, Dims[D]);
      if (!P || P->PerBlock || !P->Rest.isZero())
        continue;
      ThreadExtent X;
      X.Limit = L.Cmp == CmpOp::LE ? *L.Bound + IndexForm::constant(1) : *L.Bound;
      X.Scale = P->Scale;
      X.GridStride = true;
      X.From = L.CondText;
      X.Line = L.Loc.Line;
      S.Threads[D] = std::move(X);
      break;
    }
  }
  if (Untraced)
    S.Notes.push_back("some accesses go through pointers the analysis cannot trace to a "
                      "parameter; their buffers' counts are not from the code");
  return S;
}

} // namespace forge::analysis
