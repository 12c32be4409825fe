//===- Analysis/Footprint.cpp - Stencil footprints ------------------------===//
///
/// \file
/// The loads of one buffer whose indices differ only by constants and by
/// small loops (`for (int dy = -R; dy <= R; ++dy)`) read a footprint around
/// one position. Clamps are looked through (the border is then "clamped").
/// The offsets are split into dimensions by the strides they are written
/// with (1, w, w * h; or the constant row lengths of the thread position),
/// counted point by point, and compared with how far neighbouring threads
/// are apart to give the reuse: how many threads read each element.
///
//===----------------------------------------------------------------------===//
#include "KernelAnalyzer.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include <functional>
#include <map>
#include <set>

using namespace clang;
using namespace llvm;

namespace forge::analysis {

namespace {
/// A loop whose variable only offsets a position: constant bounds, unit
/// step, few iterations.
bool isOffsetLoop(const Loop &L) {
  if (!L.hasInductionVariable() || L.StepK != StepKind::Constant || !L.TripCount ||
      *L.TripCount < 1 || *L.TripCount > 64 || !L.Start || !L.Start->constantValue())
    return false;
  auto S = L.Step ? L.Step->constantValue() : std::nullopt;
  return S && (*S == 1 || *S == -1);
}

/// Whether F is built only from values fixed for the whole launch: template
/// parameters and scalar kernel parameters, through + - * / % min max.
bool launchConstant(const IndexForm &F, const AtomTable &T) {
  for (AtomId X : F.atoms()) {
    const Atom &A = T[X];
    switch (A.Kind) {
    case AtomKind::TemplateParam:
    case AtomKind::Param:
      break;
    case AtomKind::Div:
    case AtomKind::Mod:
    case AtomKind::Min:
    case AtomKind::Max:
      if (!all_of(A.Operands, [&](const IndexForm &O) { return launchConstant(O, T); }))
        return false;
      break;
    default:
      return false;
    }
  }
  return true;
}

/// A loop over consecutive values whose bounds are symbolic: over template
/// parameters (`for (k = -R; k <= R; ++k)`), or over scalar kernel
/// parameters (`for (i = 0; i < mask_width; ++i)`, Runtime). Its first and
/// last values.
struct SymbolicRange {
  IndexForm First, Last;
  bool Runtime = false;
};
std::optional<SymbolicRange> symbolicRange(const Loop &L, const AtomTable &T) {
  if (!L.hasInductionVariable() || L.StepK != StepKind::Constant || !L.Start || !L.Step ||
      L.Step->constantValue() != 1 || L.TripCount)
    return std::nullopt;
  auto Last = L.lastValue();
  if (!Last || (Last->isConstant() && L.Start->isConstant()))
    return std::nullopt;
  if (!launchConstant(*L.Start, T) || !launchConstant(*Last, T))
    return std::nullopt;
  return SymbolicRange{*L.Start, *Last,
                       T.dependsOnKind(*L.Start, AtomKind::Param) ||
                           T.dependsOnKind(*Last, AtomKind::Param)};
}

/// The values an offset loop's variable takes.
std::vector<int64_t> valuesOf(const Loop &L) {
  std::vector<int64_t> Out;
  int64_t V = *L.Start->constantValue(), S = *L.Step->constantValue();
  for (int64_t I = 0; I < *L.TripCount; ++I, V += S)
    Out.push_back(V);
  return Out;
}

/// A dimension of the offsets: the symbolic part of its stride and a
/// constant factor (1 for symbolic strides; the row length for constant ones).
struct DimKey {
  IndexForm::Monomial Symbols;
  int64_t Const = 1;
  bool operator<(const DimKey &O) const {
    if (Symbols.size() != O.Symbols.size())
      return Symbols.size() < O.Symbols.size();
    if (Symbols != O.Symbols)
      return Symbols < O.Symbols;
    return Const < O.Const;
  }
  bool operator==(const DimKey &O) const { return Symbols == O.Symbols && Const == O.Const; }
};

/// One term of an offset: Coef * Var (Var an offset loop, or none for a
/// constant) along Key.
struct OffsetTerm {
  DimKey Key;
  int64_t Coef = 0;
  int Loop = -1;
};
} // namespace

void KernelAnalyzer::findFootprints(KernelModel &M) {
  // A loop over a symbolic range (a template radius -R..R, or a range a
  // kernel parameter gives) is a radius when it moves each per-thread read
  // as a neighbouring thread does, and its bounds are not the data's row
  // lengths: for in[(y + i) * w + x + j], i and j in [0, mask_width), step
  // along w and 1 as threadIdx.y and threadIdx.x do. A[row * n + k] for k in
  // [0, n) walks the thread's row (threads step along n),
  // u[k * nx * ny + c] marches along z, and in[y * w + x + j] for j in
  // [-1, w] runs the width of the image.
  auto offsetsNeighbours = [&](const Loop &L, const SymbolicRange &R) {
    // The parameters the bounds are made of (mw of mw / 2 too).
    std::vector<AtomId> Bounds;
    std::function<void(const IndexForm &)> Leaves = [&](const IndexForm &F) {
      for (AtomId X : F.atoms()) {
        if ((*Table)[X].Kind == AtomKind::Param || (*Table)[X].Kind == AtomKind::TemplateParam)
          Bounds.push_back(X);
        for (const IndexForm &O : (*Table)[X].Operands)
          Leaves(O);
      }
    };
    Leaves(R.First);
    Leaves(R.Last);
    bool Any = false;
    for (const Access &A : M.Accesses) {
      if (A.Kind != AccessKind::Load || !A.IndexKnown || !Table->dependsOn(A.Index, L.VarAtom) ||
          !Table->dependsOnKind(A.Index, AtomKind::ThreadIdx))
        continue;
      IndexForm U = Table->unclamped(A.Index);
      auto C = U.coefficientOf(L.VarAtom);
      if (!C)
        return false;
      bool Steps = false;
      for (AtomId X : U.atoms()) {
        if (!Table->isVarying(X))
          continue;
        auto TC = U.coefficientOf(X);
        if (!TC)
          continue;
        if ((*Table)[X].Kind == AtomKind::ThreadIdx && *TC == *C)
          Steps = true;
        for (AtomId B : Bounds)
          if (Table->dependsOn(*TC, B))
            return false; // a bound is a row length of the data
      }
      if (!Steps)
        return false;
      Any = true;
    }
    return Any;
  };
  // Atoms of offset loops.
  std::map<AtomId, unsigned> OffsetVar;
  std::map<unsigned, SymbolicRange> Symbolic;
  for (const Loop &L : M.Loops) {
    if (isOffsetLoop(L)) {
      OffsetVar[L.VarAtom] = L.Id;
    } else if (auto R = symbolicRange(L, *Table);
               R && ((!R->Runtime && (R->First + R->Last).isZero()) || offsetsNeighbours(L, *R))) {
      OffsetVar[L.VarAtom] = L.Id;
      Symbolic[L.Id] = *R;
    }
  }
  auto IsPosition = [&](AtomId A) {
    const Atom &At = (*Table)[A];
    if (At.Kind == AtomKind::LoopVar && OffsetVar.count(A))
      return false;
    return Table->isVarying(A);
  };

  struct Item {
    unsigned Access;
    IndexForm Base;  ///< the index without its offset-loop terms
    IndexForm Loops; ///< the offset-loop terms
    bool Clamped;
  };
  auto SplitLoops = [&](const IndexForm &U, IndexForm &Base, IndexForm &Loops) {
    for (const auto &[Mono, C] : U.terms()) {
      IndexForm T = IndexForm::constant(C);
      bool L = false;
      for (AtomId X : Mono) {
        T = T * IndexForm::atom(X);
        L |= OffsetVar.count(X) > 0;
      }
      (L ? Loops : Base) = (L ? Loops : Base) + T;
    }
  };
  // Two indices are one position apart by an offset when their difference
  // has nothing that varies: constants and parameters (-1, -w, nx * ny).
  auto OffsetLike = [&](const IndexForm &D) {
    return none_of(D.atoms(), [&](AtomId X) { return Table->isVarying(X); });
  };
  std::map<const ValueDecl *, std::vector<Item>> ByBase;
  for (const Access &A : M.Accesses) {
    if (A.Kind != AccessKind::Load || !A.Base || !A.IndexKnown || !A.Affine)
      continue;
    bool Clamped = false;
    IndexForm U = Table->unclamped(A.Index, &Clamped);
    Item I{A.Id, IndexForm(), IndexForm(), Clamped};
    SplitLoops(U, I.Base, I.Loops);
    ByBase[A.Base].push_back(I);
  }

  for (auto &[Base, Items] : ByBase) {
    // Clusters of one position.
    std::vector<std::vector<const Item *>> Clusters;
    for (const Item &I : Items) {
      auto It =
          find_if(Clusters, [&](const auto &C) { return OffsetLike(I.Base - C.front()->Base); });
      if (It == Clusters.end())
        Clusters.push_back({&I});
      else
        It->push_back(&I);
    }
    for (const auto &Cluster : Clusters) {
      // The position: the first load without its constant offset, so that
      // u[i - 1], u[i], u[i + 1] read -1..1 around i.
      const IndexForm Pos =
          Cluster.front()->Base - IndexForm::constant(Cluster.front()->Base.constantTerm());
      if (OffsetLike(Pos))
        continue; // not a per-thread position
      bool FromLoops = any_of(Cluster, [&](const Item *I) { return !I->Loops.isZero(); });
      if (Cluster.size() < 2 && !FromLoops)
        continue;
      // Constant row lengths of the position (threadIdx.y * 1024).
      std::vector<int64_t> ConstStrides;
      for (AtomId A : Pos.atoms()) {
        auto Coef = Pos.coefficientOf(A);
        if (auto C = Coef ? Coef->constantValue() : std::nullopt)
          if (*C > 1 || *C < -1) {
            int64_t S = *C < 0 ? -*C : *C;
            if (!is_contained(ConstStrides, S))
              ConstStrides.push_back(S);
          }
      }
      llvm::sort(ConstStrides, std::greater<int64_t>());
      // Offsets of each access as terms along dimensions.
      bool Bad = false;
      std::vector<std::vector<OffsetTerm>> Terms(Cluster.size());
      std::set<DimKey> Keys;
      Keys.insert(DimKey());
      for (size_t I = 0; I < Cluster.size() && !Bad; ++I) {
        IndexForm Off = Cluster[I]->Base - Pos + Cluster[I]->Loops;
        for (const auto &[Mono, C] : Off.terms()) {
          OffsetTerm T;
          T.Coef = C;
          for (AtomId X : Mono) {
            if (OffsetVar.count(X)) {
              if (T.Loop >= 0)
                Bad = true; // a product of two offset variables
              T.Loop = int(OffsetVar[X]);
            } else {
              T.Key.Symbols.push_back(X);
            }
          }
          if (T.Key.Symbols.empty() && !ConstStrides.empty()) {
            // Split a constant along the row lengths, nearest first.
            int64_t Rest = T.Coef;
            for (int64_t S : ConstStrides) {
              int64_t D = (Rest >= 0 ? Rest + S / 2 : Rest - S / 2) / S;
              if (D == 0)
                continue;
              if (T.Loop >= 0 && Rest % S != 0)
                continue;
              OffsetTerm Part = T;
              Part.Key.Const = S;
              Part.Coef = D;
              Terms[I].push_back(Part);
              Keys.insert(Part.Key);
              Rest -= D * S;
            }
            T.Coef = Rest;
            if (Rest == 0)
              continue;
          }
          Terms[I].push_back(T);
          Keys.insert(T.Key);
        }
      }
      if (Bad)
        continue;
      std::vector<DimKey> Dims(Keys.begin(), Keys.end());
      if (Dims.size() > 3)
        continue;
      auto DimOf = [&](const DimKey &K) { return unsigned(find(Dims, K) - Dims.begin()); };
      // Offsets over a radius the pattern does not fix: one load, each
      // dimension offset by at most one such loop, kept as forms.
      bool UsesSymbolic = any_of(Terms, [&](const std::vector<OffsetTerm> &Ts) {
        return any_of(Ts, [&](const OffsetTerm &T) {
          return T.Loop >= 0 && Symbolic.count(unsigned(T.Loop));
        });
      });
      Footprint F;
      F.Id = unsigned(M.Footprints.size());
      if (UsesSymbolic) {
        if (Cluster.size() != 1)
          continue;
        F.Symbolic = true;
        F.FromLoops = true;
        F.Buffer = M.Accesses[Cluster.front()->Access].Buffer;
        F.Space = M.Accesses[Cluster.front()->Access].Space;
        F.Accesses.push_back(Cluster.front()->Access);
        std::vector<IndexForm> Lo(Dims.size()), Hi(Dims.size());
        bool OK = true;
        for (const OffsetTerm &T : Terms[0]) {
          unsigned D = DimOf(T.Key);
          if (T.Loop < 0) {
            Lo[D] = Lo[D] + IndexForm::constant(T.Coef);
            Hi[D] = Hi[D] + IndexForm::constant(T.Coef);
            continue;
          }
          if (T.Coef != 1 && T.Coef != -1) {
            OK = false;
            break;
          }
          // The loop's first and last values (a constant offset loop's too).
          const Loop &OL = M.Loops[T.Loop];
          auto It = Symbolic.find(unsigned(T.Loop));
          IndexForm First = It != Symbolic.end() ? It->second.First : *OL.Start;
          auto LastV = It != Symbolic.end() ? std::optional<IndexForm>(It->second.Last)
                                            : OL.lastValue();
          if (!LastV) {
            OK = false;
            break;
          }
          if (It != Symbolic.end()) {
            F.Runtime |= It->second.Runtime;
          } else if (First.constantValue() && LastV->constantValue() &&
                     *First.constantValue() > *LastV->constantValue()) {
            std::swap(First, *LastV); // a loop counting down
          }
          Lo[D] = Lo[D] + (T.Coef == 1 ? First : IndexForm::constant(0) - *LastV);
          Hi[D] = Hi[D] + (T.Coef == 1 ? *LastV : IndexForm::constant(0) - First);
        }
        if (!OK || Dims.size() > 3)
          continue;
        std::vector<std::string> Extents;
        IndexForm Radius;
        for (size_t D = 0; D < Dims.size(); ++D) {
          FootprintDim FD;
          IndexForm Stride = IndexForm::constant(Dims[D].Const);
          for (AtomId X : Dims[D].Symbols)
            Stride = Stride * IndexForm::atom(X);
          FD.Stride = Table->render(Stride);
          FD.LoText = Table->render(Lo[D]);
          FD.HiText = Table->render(Hi[D]);
          FD.ExtentText = Table->render(Hi[D] - Lo[D] + IndexForm::constant(1));
          FD.ThreadStep = 1;
          FD.LoForm = Lo[D];
          FD.HiForm = Hi[D];
          Extents.push_back(Dims.size() > 1 && FD.ExtentText.find(' ') != std::string::npos
                                ? "(" + FD.ExtentText + ")"
                                : FD.ExtentText);
          if (Hi[D].constantTerm() == 0 && !Hi[D].isConstant())
            Radius = Hi[D];
          F.Dims.push_back(FD);
        }
        F.RadiusText = Radius.isZero() ? "?" : Table->render(Radius);
        F.PointsText = join(Extents, " * ");
      }
      std::vector<int64_t> Centre(Dims.size(), 0);
      if (!F.Symbolic) {
        // Every point, enumerating the offset loops.
        std::set<std::vector<int64_t>> Points;
        bool TooMany = false;
        for (size_t I = 0; I < Cluster.size(); ++I) {
          std::vector<int> Vars;
          for (const OffsetTerm &T : Terms[I])
            if (T.Loop >= 0 && !is_contained(Vars, T.Loop))
              Vars.push_back(T.Loop);
          std::vector<std::vector<int64_t>> Values;
          size_t Combos = 1;
          for (int L : Vars) {
            Values.push_back(valuesOf(M.Loops[L]));
            Combos *= Values.back().size();
          }
          if (Combos > 4096) {
            TooMany = true;
            break;
          }
          for (size_t C = 0; C < Combos; ++C) {
            std::map<int, int64_t> At;
            size_t R = C;
            for (size_t V = 0; V < Vars.size(); ++V) {
              At[Vars[V]] = Values[V][R % Values[V].size()];
              R /= Values[V].size();
            }
            std::vector<int64_t> P(Dims.size(), 0);
            for (const OffsetTerm &T : Terms[I])
              P[DimOf(T.Key)] += T.Coef * (T.Loop >= 0 ? At[T.Loop] : 1);
            Points.insert(P);
          }
        }
        if (TooMany || Points.size() < 2)
          continue;
        F.Buffer = M.Accesses[Cluster.front()->Access].Buffer;
        F.Space = M.Accesses[Cluster.front()->Access].Space;
        F.FromLoops = FromLoops;
        F.Points = int64_t(Points.size());
        for (const Item *I : Cluster)
          F.Accesses.push_back(I->Access);
        for (size_t D = 0; D < Dims.size(); ++D) {
          FootprintDim FD;
          IndexForm Stride = IndexForm::constant(Dims[D].Const);
          for (AtomId X : Dims[D].Symbols)
            Stride = Stride * IndexForm::atom(X);
          FD.Stride = Table->render(Stride);
          FD.Lo = FD.Hi = (*Points.begin())[D];
          for (const auto &P : Points) {
            FD.Lo = std::min(FD.Lo, P[D]);
            FD.Hi = std::max(FD.Hi, P[D]);
          }
          // How far apart neighbouring threads are along this dimension (0:
          // no thread moves along it).
          FD.ThreadStep = 0;
          for (AtomId A : Pos.atoms()) {
            const Atom &At = (*Table)[A];
            if (At.Kind != AtomKind::ThreadIdx)
              continue;
            auto Coef = Pos.coefficientOf(A);
            if (!Coef)
              continue;
            if (auto Q = Coef->dividedExactly(Stride))
              if (auto C = Q->constantValue(); C && *C != 0) {
                // The thread atom whose coefficient is a multiple of this stride
                // (and of no larger one) moves along this dimension.
                bool Larger = false;
                for (size_t E = D + 1; E < Dims.size(); ++E) {
                  IndexForm S2 = IndexForm::constant(Dims[E].Const);
                  for (AtomId X : Dims[E].Symbols)
                    S2 = S2 * IndexForm::atom(X);
                  if (Coef->dividedExactly(S2))
                    Larger = true;
                }
                if (!Larger)
                  FD.ThreadStep = *C < 0 ? -*C : *C;
              }
          }
          F.Dims.push_back(FD);
        }
        // A stencil reads near its position; loads far apart (a halo copied
        // to shared memory, two halves of an array) are separate elements.
        if (any_of(F.Dims, [](const FootprintDim &D) { return D.extent() > 33; }))
          continue;
        // Reuse: how many threads read each element of the interior.
        bool Box = true;
        int64_t Volume = 1;
        for (const FootprintDim &D : F.Dims)
          Volume *= D.extent();
        Box = Volume == F.Points;
        bool UnitSteps = all_of(F.Dims, [](const FootprintDim &D) { return D.ThreadStep == 1; });
        bool UnitOrFixed = all_of(F.Dims, [](const FootprintDim &D) { return D.ThreadStep <= 1; });
        if (UnitSteps) {
          F.Reuse = F.Points;
        } else if (UnitOrFixed) {
          // Some dimension no thread moves along (z = blockIdx.z): the
          // threads of one plane share the points of one offset along it.
          std::map<std::vector<int64_t>, int64_t> PerPlane;
          for (const auto &P : Points) {
            std::vector<int64_t> Fixed;
            for (size_t D = 0; D < F.Dims.size(); ++D)
              if (F.Dims[D].ThreadStep == 0)
                Fixed.push_back(P[D]);
            F.Reuse = std::max(F.Reuse, ++PerPlane[Fixed]);
          }
        } else if (Box) {
          F.Reuse = 1;
          for (const FootprintDim &D : F.Dims)
            if (D.ThreadStep > 0)
              F.Reuse *= (D.extent() + D.ThreadStep - 1) / D.ThreadStep;
        }
        if (F.Reuse < 2)
          continue; // neighbouring threads share nothing: not a stencil
      }

      // The output: a store elsewhere at the same position.
      IndexForm WOffset;
      for (const Access &W : M.Accesses) {
        if ((W.Kind != AccessKind::Store && W.Kind != AccessKind::ReadModifyWrite) || !W.Base ||
            W.Base == Base || !W.IndexKnown)
          continue;
        IndexForm U = Table->unclamped(W.Index);
        IndexForm WBase, WLoops;
        SplitLoops(U, WBase, WLoops);
        if (!WLoops.isZero() || !OffsetLike(WBase - Pos))
          continue;
        WOffset = WBase - Pos;
        F.Output = int(W.Id);
        // The centre: the output's offset along the dimensions.
        for (const auto &[Mono, C] : WOffset.terms()) {
          if (F.Symbolic)
            break;
          DimKey Key;
          Key.Symbols = Mono;
          int64_t Coef = C;
          if (Mono.empty() && !ConstStrides.empty())
            for (int64_t S : ConstStrides) {
              int64_t D = (Coef >= 0 ? Coef + S / 2 : Coef - S / 2) / S;
              DimKey CK;
              CK.Const = S;
              if (D != 0 && is_contained(Dims, CK)) {
                Centre[DimOf(CK)] += D;
                Coef -= D * S;
              }
            }
          if (Coef != 0 && is_contained(Dims, Key))
            Centre[DimOf(Key)] += Coef;
        }
        break;
      }
      // Offsets relative to the output's position; without an output, to the
      // middle of an odd extent (temp[l + off] with l = threadIdx.x + R).
      if (F.Output < 0 && !F.Symbolic)
        for (size_t D = 0; D < F.Dims.size(); ++D)
          if (F.Dims[D].extent() % 2 == 1)
            Centre[D] = (F.Dims[D].Lo + F.Dims[D].Hi) / 2;
      for (size_t D = 0; D < F.Dims.size() && !F.Symbolic; ++D) {
        F.Dims[D].Lo -= Centre[D];
        F.Dims[D].Hi -= Centre[D];
        F.Radius = std::max({F.Radius, F.Dims[D].Hi, -F.Dims[D].Lo});
        F.Dims[D].LoForm = IndexForm::constant(F.Dims[D].Lo);
        F.Dims[D].HiForm = IndexForm::constant(F.Dims[D].Hi);
      }
      // The position as coordinates along the dimensions, and each load's
      // offsets from it.
      std::vector<IndexForm> Strides;
      IndexForm Position = Pos;
      for (size_t D = 0; D < Dims.size(); ++D) {
        IndexForm S = IndexForm::constant(Dims[D].Const);
        for (AtomId X : Dims[D].Symbols)
          S = S * IndexForm::atom(X);
        Strides.push_back(S);
        F.Dims[D].StrideForm = S;
        Position = Position + S.scaled(Centre[D]);
      }
      for (const auto &[Mono, C] : Position.terms()) {
        // The largest stride that divides the term (the unit stride always does).
        for (size_t D = Dims.size(); D-- > 0;) {
          IndexForm::Monomial Rest = Mono;
          bool Divides = Dims[D].Const != 0 && C % Dims[D].Const == 0;
          for (AtomId X : Dims[D].Symbols) {
            auto It = Divides ? find(Rest, X) : Rest.end();
            if (It == Rest.end()) {
              Divides = false;
              break;
            }
            Rest.erase(It);
          }
          if (!Divides)
            continue;
          IndexForm T = IndexForm::constant(C / Dims[D].Const);
          for (AtomId X : Rest)
            T = T * IndexForm::atom(X);
          F.Dims[D].Position = F.Dims[D].Position + T;
          break;
        }
      }
      for (size_t I = 0; I < Cluster.size(); ++I) {
        std::vector<IndexForm> Off(Dims.size());
        for (const OffsetTerm &T : Terms[I])
          Off[DimOf(T.Key)] =
              Off[DimOf(T.Key)] +
              (T.Loop >= 0 ? IndexForm::atom(M.Loops[T.Loop].VarAtom) : IndexForm::constant(1))
                  .scaled(T.Coef);
        for (size_t D = 0; D < Dims.size(); ++D)
          Off[D] = Off[D] - IndexForm::constant(Centre[D]);
        F.Offsets.push_back(std::move(Off));
      }

      // Border handling.
      if (any_of(Cluster, [](const Item *I) { return I->Clamped; })) {
        F.Border = BorderMode::Clamped;
      } else {
        const Guard *Out = F.Output >= 0 ? &M.Accesses[F.Output].G : nullptr;
        auto InOutput = [&](const GuardTerm &T) {
          return Out && any_of(Out->Terms, [&](const GuardTerm &O) { return O.Cond == T.Cond; });
        };
        bool PerNeighbour = any_of(Cluster, [&](const Item *I) {
          return any_of(M.Accesses[I->Access].G.Terms, [&](const GuardTerm &T) {
            return !InOutput(T) && T.Origin != GuardOrigin::EarlyExit;
          });
        });
        if (PerNeighbour && (Out || FromLoops || Cluster.size() > 1))
          F.Border = BorderMode::Guarded;
        // Interior: the output's guard keeps the position away from 0 or from a bound.
        const Guard &G = Out ? *Out : M.Accesses[Cluster.front()->Access].G;
        for (const GuardTerm *T : G.comparisons()) {
          if (F.Border != BorderMode::None)
            break;
          IndexForm D;
          switch (T->Cmp->Op) {
          case CmpOp::LT:
            D = T->Cmp->Rhs - T->Cmp->Lhs - IndexForm::constant(1);
            break;
          case CmpOp::LE:
            D = T->Cmp->Rhs - T->Cmp->Lhs;
            break;
          case CmpOp::GT:
            D = T->Cmp->Lhs - T->Cmp->Rhs - IndexForm::constant(1);
            break;
          case CmpOp::GE:
            D = T->Cmp->Lhs - T->Cmp->Rhs;
            break;
          default:
            continue;
          }
          // D >= 0 holds. A lower bound pos >= c (c >= 1), or an upper bound
          // pos <= n - 1 - c (c >= 1).
          bool Up = false, Down = false, Symbols = false;
          for (const auto &[Mono, C] : D.terms()) {
            bool P = any_of(Mono, [&](AtomId X) { return IsPosition(X); });
            if (P)
              (C > 0 ? Down : Up) = true;
            else if (!Mono.empty())
              Symbols = true;
          }
          // A compile-time margin (x < n - R) keeps the position away too.
          bool Margin = any_of(D.terms(), [&](const auto &Term) {
            return Term.second < 0 && !Term.first.empty() && all_of(Term.first, [&](AtomId X) {
                     return (*Table)[X].Kind == AtomKind::TemplateParam;
                   });
          });
          int64_t K = D.constantTerm();
          if ((Down && !Up && !Symbols && K <= -1) ||
              (Up && !Down && Symbols && (K <= -2 || Margin)))
            F.Border = BorderMode::Interior;
        }
      }
      for (const Item *I : Cluster)
        M.Accesses[I->Access].Footprint = int(F.Id);
      M.Footprints.push_back(std::move(F));
    }
  }
}

} // namespace forge::analysis
