//===- Analysis/Coefficients.cpp - Block-uniform coefficient reads --------===//
//
// See Coefficients.h.
//
//===----------------------------------------------------------------------===//
#include "forge/Analysis/Coefficients.h"
#include "forge/Analysis/KernelModel.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include <map>
#include <set>

using namespace llvm;

namespace forge::analysis {
namespace {

std::string at(const Access &A) {
  return formatv("'{0}' (line {1})", A.Text, A.Loc.Line).str();
}

/// Whether F is made of loop variables and constants only, with at least
/// one loop variable.
bool onlyLoopVars(const AtomTable &T, const IndexForm &F) {
  std::set<AtomId> As = F.atoms();
  return !As.empty() && all_of(As, [&](AtomId A) { return T[A].Kind == AtomKind::LoopVar; });
}

/// The reads of one buffer as coefficients, or why they are not.
std::string collect(const KernelModel &M, const std::vector<const Access *> &As,
                    CoefficientRead &C) {
  const AtomTable &T = M.atoms();
  std::optional<IndexForm> Origin;
  std::set<int64_t> Offsets;
  std::set<unsigned> Loops;
  for (const Access *A : As) {
    if (A->writes())
      return "the kernel writes it at " + at(*A);
    if (A->Footprint >= 0)
      return at(*A) + " belongs to a stencil footprint";
    if (!A->IndexKnown)
      return "the index of " + at(*A) + " is not known: " + A->IndexWhy;
    if (A->Index.overflowed())
      return "the index of " + at(*A) + " overflows";
    for (AtomKind K : {AtomKind::ThreadIdx, AtomKind::LoopIter, AtomKind::Unknown})
      if (T.dependsOnKind(A->Index, K))
        return "the index of " + at(*A) +
               (K == AtomKind::ThreadIdx ? " varies with the thread"
                                         : " depends on a value the analysis cannot follow");
    // Index = Origin + sum of constant multiples of loop variables.
    IndexForm O, Part;
    std::vector<std::pair<AtomId, int64_t>> Vars;
    for (const auto &[Mono, K] : A->Index.terms()) {
      IndexForm Tm = IndexForm::constant(K);
      for (AtomId X : Mono)
        Tm = Tm * IndexForm::atom(X);
      bool Loop = any_of(Mono, [&](AtomId X) { return T[X].Kind == AtomKind::LoopVar; });
      if (!Loop) {
        if (T.dependsOnKind(Tm, AtomKind::LoopVar))
          return "the index of " + at(*A) + " is not affine in its loops' variables";
        if (Mono.empty())
          Part = Part + Tm; // the constant goes with the offsets
        else
          O = O + Tm;
        continue;
      }
      if (Mono.size() != 1)
        return "the index of " + at(*A) + " multiplies a loop variable by a value not known "
                                          "at compile time ('" + T.render(Tm) + "')";
      Vars.push_back({Mono[0], K});
    }
    if (!T.uniformity(O).atLeast(Uniformity::BlockUniform))
      return "the index of " + at(*A) + " varies within the block ('" + T.render(O) + "')";
    if (Origin && *Origin != O)
      return "the reads' indices differ by more than constants ('" + T.render(*Origin) +
             "' and '" + T.render(O) + "')";
    Origin = O;
    // The loops' values, enumerated.
    struct Range {
      int64_t Start, Step, Count, Coef;
    };
    std::vector<Range> Rs;
    int64_t Combos = 1;
    for (auto [X, K] : Vars) {
      const Atom &At = T[X];
      if (At.Loop < 0)
        return "the index of " + at(*A) + " takes '" + At.Name + "', which no loop drives";
      const Loop &L = M.Loops[At.Loop];
      auto S = L.Start ? L.Start->constantValue() : std::nullopt;
      auto St = L.Step ? L.Step->constantValue() : std::nullopt;
      if (L.StepK != StepKind::Constant || !S || !St || !L.TripCount || L.HasEarlyExit)
        return formatv("the index of {0} moves with the loop over '{1}' (line {2}), whose "
                       "bounds are not compile-time constants",
                       at(*A), L.Var, L.Loc.Line)
            .str();
      Rs.push_back({*S, *St, *L.TripCount, K});
      Combos *= std::max<int64_t>(*L.TripCount, 1);
      if (Combos > MaxCoefficientOffsets)
        return formatv("the index of {0} takes more than {1} values", at(*A),
                       MaxCoefficientOffsets)
            .str();
      Loops.insert(unsigned(At.Loop));
    }
    for (const GuardTerm &G : A->G.Terms)
      if (G.Cmp && (onlyLoopVars(T, G.Cmp->Lhs - G.Cmp->Rhs)))
        return formatv("{0} is guarded by '{1}', a condition on loop variables alone: some of "
                       "the elements its loops index may never be read",
                       at(*A), G.Text)
            .str();
    int64_t Base = Part.constantValue().value_or(0);
    std::vector<int64_t> Vals = {Base};
    for (const Range &R : Rs) {
      std::vector<int64_t> Next;
      for (int64_t V : Vals)
        for (int64_t I = 0; I < R.Count; ++I)
          Next.push_back(V + R.Coef * (R.Start + R.Step * I));
      Vals = std::move(Next);
    }
    Offsets.insert(Vals.begin(), Vals.end());
    C.Accesses.push_back(A->Id);
    if (C.ElementType.empty()) {
      C.ElementType = A->ElementType;
      C.ElementBytes = A->ElementBytes;
    } else if (C.ElementType != A->ElementType) {
      return at(*A) + " reads it as another type";
    }
  }
  C.Origin = Origin.value_or(IndexForm());
  C.Offsets.assign(Offsets.begin(), Offsets.end());
  C.Loops.assign(Loops.begin(), Loops.end());
  return "";
}

/// Whether the store W runs before the read A in a thread's program order
/// (loops aside).
bool before(const Access &W, const Access &A, clang::ASTContext *Ctx) {
  if (!Ctx || !W.E || !A.E)
    return W.Loc.Line < A.Loc.Line || (W.Loc.Line == A.Loc.Line && W.Loc.Column < A.Loc.Column);
  // The store happens when its full expression is evaluated.
  const clang::Expr *Full = W.E;
  for (;;) {
    auto Parents = Ctx->getParents(*Full);
    const clang::Expr *P = Parents.empty() ? nullptr : Parents[0].get<clang::Expr>();
    if (!P)
      break;
    Full = P;
  }
  const clang::SourceManager &SM = Ctx->getSourceManager();
  return SM.isBeforeInTranslationUnit(SM.getExpansionLoc(Full->getEndLoc()),
                                      SM.getExpansionLoc(A.E->getBeginLoc()));
}

} // namespace

CoefficientReads coefficientReads(const KernelModel &M, clang::ASTContext *Ctx) {
  const AtomTable &T = M.atoms();
  CoefficientReads Out;
  // The parameters, in the order of their first access.
  std::vector<int> Order;
  std::map<int, std::vector<const Access *>> ByParam;
  for (const Access &A : M.Accesses) {
    if (A.Space != MemorySpace::Global || A.ParamIndex < 0)
      continue;
    if (!ByParam.count(A.ParamIndex))
      Order.push_back(A.ParamIndex);
    ByParam[A.ParamIndex].push_back(&A);
  }
  for (int P : Order) {
    const std::vector<const Access *> &As = ByParam[P];
    // Only buffers read somewhere at an index the same for a whole block.
    bool Broadcast = any_of(As, [&](const Access *A) {
      return A->Kind == AccessKind::Load && A->IndexKnown && A->Footprint < 0 &&
             !T.dependsOnKind(A->Index, AtomKind::ThreadIdx) &&
             !T.dependsOnKind(A->Index, AtomKind::Unknown);
    });
    if (!Broadcast)
      continue;
    CoefficientRead C;
    C.Buffer = As.front()->Buffer;
    C.Base = As.front()->Base;
    C.ParamIndex = P;
    std::string Why = collect(M, As, C);
    if (!Why.empty() || C.Offsets.empty()) {
      Out.Declined.push_back("'" + C.Buffer + "': " + (Why.empty() ? "it is never read" : Why));
      continue;
    }
    Out.Buffers.push_back(std::move(C));
  }
  for (const CoefficientRead &C : Out.Buffers)
    for (unsigned R : C.Accesses)
      for (const Access &W : M.Accesses) {
        if (!W.writes() || W.Space == MemorySpace::Shared || !Out.WriteBeforeRead.empty())
          continue;
        const Access &A = M.Accesses[R];
        if (before(W, A, Ctx)) {
          Out.WriteBeforeRead = at(W) + " comes before " + at(A);
          continue;
        }
        for (unsigned L : W.Loops)
          if (is_contained(A.Loops, L)) {
            Out.WriteBeforeRead = formatv("{0} and {1} are in the loop over '{2}' (line {3})",
                                          at(W), at(A), M.Loops[L].Var, M.Loops[L].Loc.Line)
                                      .str();
            break;
          }
      }
  return Out;
}

} // namespace forge::analysis
