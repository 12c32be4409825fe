//===- Analysis/Patterns.cpp - Recognised computations --------------------===//
///
/// \file
/// The recognisers: each states a computation in the model's terms (which
/// variables an index moves with, the slopes along them, reductions and
/// footprints) and never in spellings, so the names, the loop order and
/// the way an index is written do not matter.
///
/// An index "moves with" a group: a thread dimension (threadIdx.D and
/// blockIdx.D), a loop (its iteration number), or a quotient, remainder or
/// loaded value over those.
///
//===----------------------------------------------------------------------===//
#include "AstUtil.h"
#include "KernelAnalyzer.h"
#include "StagedTiles.h"
#include "forge/Analysis/ModelRender.h"
#include "forge/Frontend/CudaBuiltins.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include <map>
#include <set>

using namespace clang;
using namespace llvm;

namespace forge::analysis {

StringRef patternKindName(PatternKind K) {
  switch (K) {
  case PatternKind::Reduction:
    return "reduction";
  case PatternKind::Elementwise:
    return "elementwise";
  case PatternKind::RowLoop:
    return "row-loop";
  case PatternKind::MultiPassRow:
    return "multi-pass-row";
  case PatternKind::MatrixVector:
    return "matrix-vector";
  case PatternKind::MatrixProduct:
    return "matrix-product";
  case PatternKind::Chunk:
    return "chunk";
  case PatternKind::Transpose:
    return "transpose";
  case PatternKind::Stencil:
    return "stencil";
  case PatternKind::Histogram:
    return "histogram";
  case PatternKind::TreeReduction:
    return "tree-reduction";
  case PatternKind::Scan:
    return "scan";
  }
  return "reduction";
}

StringRef Pattern::role(StringRef Role) const {
  for (const auto &[R, N] : Roles)
    if (R == Role)
      return N;
  return "";
}

bool isSideRead(const Access &A, const IndexForm &F, const std::vector<const Access *> &Global) {
  if (A.Kind != AccessKind::Load || !A.IndexKnown || A.Index == F ||
      (A.Index - F).constantValue())
    return false;
  return none_of(Global, [&](const Access *B) {
    return B->Buffer == A.Buffer && (B->writes() || B->Index == F);
  });
}

namespace {

/// What an index moves with.
struct Group {
  std::string Key;  ///< "pos.x", "loop.3", "atom.12"
  std::string Name; ///< "threadIdx.x", "k", "i / n"
  AtomId Along = 0; ///< the atom to take slopes along
  bool Thread = false;
  int Loop = -1;
};

/// Out covers A and B (Out may be A).
void span2(const SourceSpan &A, const SourceSpan &B, SourceSpan &Out) {
  SourceSpan R;
  R.Line = std::min(A.Line, B.Line);
  R.EndLine = std::max(A.EndLine ? A.EndLine : A.Line, B.EndLine ? B.EndLine : B.Line);
  R.Column = A.Line <= B.Line ? A.Column : B.Column;
  Out = R;
}

class Recognisers {
public:
  Recognisers(KernelAnalyzer &K, KernelModel &M) : K(K), M(M), T(*K.Table) {}

  void run() {
    matrixProducts();
    transposes();
    stencils();
    elementwise();
    chunksAndRows();
    histograms();
    treesAndScans();
    triangularScans();
    reductions();
    llvm::stable_sort(M.Patterns,
                      [](const Pattern &A, const Pattern &B) { return A.Loc.Line < B.Loc.Line; });
    for (size_t I = 0; I < M.Patterns.size(); ++I)
      M.Patterns[I].Id = unsigned(I);
  }

private:
  KernelAnalyzer &K;
  KernelModel &M;
  AtomTable &T;
  std::set<unsigned> ExplainedLoops;

  //===--------------------------------------------------------------------===//
  // Groups and slopes
  //===--------------------------------------------------------------------===//

  std::vector<Group> groupsOf(const IndexForm &F) {
    std::vector<Group> Out;
    IndexForm E = T.expandLoops(T.unclamped(F));
    auto Add = [&](Group G) {
      if (none_of(Out, [&](const Group &O) { return O.Key == G.Key; }))
        Out.push_back(std::move(G));
    };
    for (AtomId X : E.atoms()) {
      const Atom &A = T[X];
      Group G;
      switch (A.Kind) {
      case AtomKind::ThreadIdx:
      case AtomKind::BlockIdx: {
        G.Key = std::string("pos.") + A.Dim;
        G.Thread = true;
        auto Tid = T.findBuiltin("threadIdx", A.Dim);
        bool HasTid = Tid && E.mentions(*Tid);
        G.Along = HasTid ? *Tid : X;
        G.Name = HasTid ? "threadIdx." + std::string(1, A.Dim) : A.Name;
        // The local that holds this dimension's position, when there is one.
        {
          IndexForm Tf = HasTid ? IndexForm::atom(*Tid) : IndexForm();
          auto Bid = T.findBuiltin("blockIdx", A.Dim);
          if (Bid && E.mentions(*Bid)) {
            IndexForm BD = K.Opts.Block ? IndexForm::constant((*K.Opts.Block)[A.Dim - 'x'])
                                        : IndexForm::atom(T.builtin("blockDim", A.Dim));
            Tf = Tf + IndexForm::atom(*Bid) * BD;
          }
          std::string N = K.nameOf(Tf);
          if (N != T.render(Tf))
            G.Name = N;
        }
        break;
      }
      case AtomKind::LoopIter:
        G.Key = "loop." + std::to_string(A.Loop);
        G.Loop = A.Loop;
        G.Along = X;
        G.Name = M.Loops[A.Loop].Var;
        break;
      case AtomKind::LoopVar:
        G.Key = "loop." + std::to_string(A.Loop);
        G.Loop = A.Loop;
        G.Along = M.Loops[A.Loop].IterAtom;
        G.Name = A.Name;
        break;
      default:
        if (!T.isVarying(X))
          continue;
        G.Key = "atom." + std::to_string(X);
        G.Along = X;
        G.Name = T.render(IndexForm::atom(X));
        G.Thread = T.dependsOnKind(IndexForm::atom(X), AtomKind::ThreadIdx) ||
                   T.dependsOnKind(IndexForm::atom(X), AtomKind::BlockIdx);
        break;
      }
      Add(G);
    }
    return Out;
  }

  /// The slope per unit of the group's variable (per step of a loop's variable).
  Slope slopeOf(const IndexForm &F, const Group &G) {
    Slope S = T.slope(F, G.Along);
    if (G.Loop >= 0 && S.Step && M.Loops[G.Loop].Step)
      if (auto St = M.Loops[G.Loop].Step->constantValue(); St && *St != 0 && *St != 1)
        if (auto Q = S.Step->dividedExactly(*St))
          S.Step = *Q;
    return S;
  }
  static bool unit(const Slope &S) {
    auto C = S.constant();
    return C && (*C == 1 || *C == -1);
  }
  static bool hasGroup(const std::vector<Group> &Gs, StringRef Key) {
    return any_of(Gs, [&](const Group &G) { return G.Key == Key; });
  }
  static std::vector<Group> without(std::vector<Group> Gs, StringRef Key) {
    erase_if(Gs, [&](const Group &G) { return G.Key == Key; });
    return Gs;
  }
  static std::string names(const std::vector<Group> &Gs) {
    std::vector<std::string> N;
    for (const Group &G : Gs)
      N.push_back(G.Name);
    return join(N, ", ");
  }
  /// F moves with every group of Gs.
  bool covers(const IndexForm &F, const std::vector<Group> &Gs) {
    IndexForm E = T.expandLoops(F);
    return all_of(Gs, [&](const Group &G) {
      if (T.dependsOn(E, G.Along))
        return true;
      // A remainder or quotient group is covered by what it is made of
      // (out[idx] covers idx / n and idx % n).
      const Atom &A = T[G.Along];
      for (const IndexForm &O : A.Operands)
        for (AtomId X : O.atoms())
          if (T.isVarying(X) && T.dependsOn(E, X))
            return true;
      return false;
    });
  }

  std::string classOf(const Access &A) {
    switch (A.Warp.Class) {
    case AccessClass::Coalesced:
      return "coalesced";
    case AccessClass::Strided:
      return "strided by " + A.Warp.StrideText;
    case AccessClass::Broadcast:
      return "broadcast";
    case AccessClass::Transposed:
      return A.Warp.constantStride() &&
                     (*A.Warp.constantStride() == 1 || *A.Warp.constantStride() == -1)
                 ? "coalesced"
                 : "strided by " + A.Warp.StrideText;
    case AccessClass::DataDependent:
      return "data-dependent";
    case AccessClass::Unknown:
      return "unknown";
    }
    return "unknown";
  }

  /// The load a factor reads, through casts and locals.
  const Access *loadOf(const Expr *E) {
    if (!E)
      return nullptr;
    E = E->IgnoreParenCasts();
    if (const Expr *D = K.definingExpr(E); D && D != E)
      return loadOf(D);
    const Access *A = M.accessAt(E);
    if (!A) // __ldg(&a[i])
      if (const auto *C = dyn_cast<CallExpr>(E))
        A = M.accessAt(C);
    return A && A->Kind == AccessKind::Load ? A : nullptr;
  }

  /// The two loads a product multiplies (a * b, fmaf(a, b, acc)).
  std::optional<std::pair<const Access *, const Access *>> productOf(const Expr *E) {
    if (!E)
      return std::nullopt;
    E = E->IgnoreParenCasts();
    if (const Expr *D = K.definingExpr(E); D && D != E)
      return productOf(D);
    const Expr *X = nullptr, *Y = nullptr;
    if (const auto *B = dyn_cast<BinaryOperator>(E); B && B->getOpcode() == BO_Mul) {
      X = B->getLHS();
      Y = B->getRHS();
    } else if (const auto *C = dyn_cast<CallExpr>(E); C && C->getNumArgs() == 3) {
      StringRef N = calleeName(C);
      if (N == "fmaf" || N == "fma" || N == "__fmaf_rn" || N == "__fma_rn") {
        X = C->getArg(0);
        Y = C->getArg(1);
      }
    }
    const Access *A = loadOf(X), *B = loadOf(Y);
    if (!A || !B)
      return std::nullopt;
    return std::make_pair(A, B);
  }

  /// The right-hand side of the assignment that makes a store or RMW.
  const Expr *storedValue(const Access &W) {
    const Stmt *P = K.parentOf(W.E);
    while (P && (isa<ParenExpr>(P) || isa<MemberExpr>(P)))
      P = K.parentOf(P);
    if (auto A = asAssignment(P))
      return A->RHS;
    return nullptr;
  }

  //===--------------------------------------------------------------------===//
  // Matrix products and matrix-vector products
  //===--------------------------------------------------------------------===//

  void matrixProducts() {
    // Accumulations: loop-carried sums stored after the loop, and
    // read-modify-writes `c[...] += a[...] * b[...]` inside loops.
    struct Acc {
      const Access *A, *B, *Out;
      unsigned Loop;
      int Red = -1;
      const Stmt *At;
    };
    std::vector<Acc> Accs;
    for (const Reduction &R : M.Reductions) {
      if (R.Kind != ReductionKind::LoopCarried || R.Op != ReductionOp::Add || !R.Acc ||
          R.Id >= K.ReductionOperands.size())
        continue;
      for (const Expr *Op : K.ReductionOperands[R.Id]) {
        auto P = productOf(Op);
        if (!P)
          continue;
        // The reduction loop: the one of R's loops both factors move along.
        int Loop = -1;
        for (unsigned L : R.Loops)
          if (!T.slope(P->first->Index, M.Loops[L].IterAtom).isZero() &&
              !T.slope(P->second->Index, M.Loops[L].IterAtom).isZero())
            Loop = int(L);
        if (Loop < 0)
          continue;
        const Access *Out = nullptr;
        for (const Access &W : M.Accesses)
          if ((W.Kind == AccessKind::Store || W.Kind == AccessKind::ReadModifyWrite) &&
              W.Space == MemorySpace::Global && !K.inside(W.E, M.Loops[R.Loops.front()].S))
            if (const Expr *V = storedValue(W); V && mentions(V, R.Acc)) {
              Out = &W;
              break;
            }
        if (Out)
          Accs.push_back({P->first, P->second, Out, unsigned(Loop), int(R.Id), Op});
        break;
      }
    }
    for (const Access &W : M.Accesses) {
      if (W.Kind != AccessKind::ReadModifyWrite || W.Loops.empty())
        continue;
      auto P = productOf(storedValue(W));
      if (!P)
        continue;
      for (unsigned L : W.Loops) {
        AtomId It = M.Loops[L].IterAtom;
        if (!M.Loops[L].hasInductionVariable() || !T.slope(W.Index, It).isZero() ||
            T.slope(P->first->Index, It).isZero() || T.slope(P->second->Index, It).isZero())
          continue;
        Accs.push_back({P->first, P->second, &W, L, -1, W.E});
        break;
      }
    }
    for (const Acc &X : Accs) {
      if (X.A->Space != MemorySpace::Shared && X.B->Space != MemorySpace::Shared) {
        recordProduct(X.A, X.B, X.Out, X.Loop, X.Red, X.At);
        continue;
      }
      std::string Why;
      if (stagedProduct(X.A, X.B, X.Out, X.Loop, X.Red, X.At, Why))
        continue;
      size_t Before = M.Patterns.size();
      recordProduct(X.A, X.B, X.Out, X.Loop, X.Red, X.At);
      if (M.Patterns.size() > Before) {
        M.Patterns.back().NotStagedWhy = Why;
        M.Patterns.back().Details.push_back("the tiles do not stand for global operands: " + Why);
      }
    }
  }

  /// A product over shared-memory tiles that the block fills from global
  /// memory per phase (StagedTiles.h): recorded as the product of the
  /// global operands over kk = phase * tile + k, when both tiles resolve
  /// and the global indices move with the phase exactly as with kk.
  bool stagedProduct(const Access *A, const Access *B, const Access *C, unsigned KLoop, int Red,
                     const Stmt *At, std::string &Why) {
    if (Red < 0 || A->Space != MemorySpace::Shared || B->Space != MemorySpace::Shared) {
      Why = Red < 0 ? "the product accumulates in memory"
                    : "only one operand is read from a shared-memory tile";
      return false;
    }
    TileStaging St(K, M);
    auto SA = St.resolve(*A, KLoop, Why);
    if (!SA)
      return false;
    auto SB = St.resolve(*B, KLoop, Why);
    if (!SB)
      return false;
    std::map<char, int64_t> Block = SA->Block;
    for (const auto &[D, E] : SB->Block)
      if (!Block.insert({D, E}).second && Block[D] != E) {
        Why = "the tiles assume different blocks (blockDim." + std::string(1, D) + ")";
        return false;
      }
    const Loop &KL = M.Loops[KLoop], &PL = *SA->Phase;
    int64_t Tile = SA->Tile;
    if (SB->Tile != Tile) {
      Why = "the tiles are not equally deep along k";
      return false;
    }
    // Each global index moves with the phase as with Tile steps of k: it
    // is a function of kk = phase * Tile + k.
    for (const StagedRead *S : {&*SA, &*SB}) {
      Slope SK = T.slope(S->Global, KL.IterAtom), SP = T.slope(S->Global, PL.IterAtom);
      if (!SK.Step || !SP.Step || SK.Lanes != 1 || SP.Lanes != 1 || SK.Step->isZero() ||
          *SP.Step != SK.Step->scaled(Tile)) {
        Why = "the global index " + T.render(S->Global) + " that '" + S->Read->Text +
              "' stands for does not move with the phase as with " + std::to_string(Tile) +
              " steps of k";
        return false;
      }
    }
    // The fills' conditions: a bound on kk (the same for both), or a term
    // of the store's bounds check.
    IndexForm KK = IndexForm::atom(PL.VarAtom).scaled(Tile) + IndexForm::atom(KL.VarAtom);
    std::vector<std::optional<IndexForm>> KBounds;
    const Guard &CG = C->G;
    for (const StagedRead *S : {&*SA, &*SB}) {
      std::optional<IndexForm> KB;
      for (const Comparison &Cmp : S->Conds) {
        if (Cmp.Op == CmpOp::LT && T.expandLoops(Cmp.Lhs) == T.expandLoops(KK) && !KB &&
            T.uniformity(Cmp.Rhs).atLeast(Uniformity::BlockUniform)) {
          KB = Cmp.Rhs;
          continue;
        }
        bool InStore = any_of(CG.Terms, [&](const GuardTerm &G) {
          if (!G.Cmp)
            return false;
          Comparison N = {St.assumeBlock(G.Cmp->Lhs, Block), G.Cmp->Op,
                          St.assumeBlock(G.Cmp->Rhs, Block)};
          return N == Cmp || N.swapped() == Cmp;
        });
        if (!InStore) {
          Why = "the fill's condition '" + T.render(Cmp) + "' (line " +
                std::to_string(S->Fill->Loc.Line) +
                ") is neither a bound on kk nor a term of the store's bounds check";
          return false;
        }
      }
      KBounds.push_back(KB);
    }
    if (KBounds[0].has_value() != KBounds[1].has_value() ||
        (KBounds[0] && *KBounds[0] != *KBounds[1])) {
      Why = "the fills bound kk differently";
      return false;
    }
    Staging S;
    S.PhaseLoop = PL.Id;
    S.Tile = Tile;
    S.Block = {Block.count('x') ? Block['x'] : 1, Block.count('y') ? Block['y'] : 1,
               Block.count('z') ? Block['z'] : 1};
    IndexForm Phases = St.assumeBlock(*PL.Bound, Block);
    if (!KBounds[0]) {
      S.KRange = Phases.scaled(Tile);
    } else if (Phases == T.div(*KBounds[0] + IndexForm::constant(Tile - 1),
                               IndexForm::constant(Tile))) {
      S.KRange = *KBounds[0];
      S.Truncated = false;
    } else if (Phases == T.div(*KBounds[0], IndexForm::constant(Tile))) {
      S.KRange = Phases.scaled(Tile);
    } else {
      Why = "the phases (" + T.render(Phases) + ") neither cover the fills' bound on kk (" +
            T.render(*KBounds[0]) + ") in tiles of " + std::to_string(Tile) + " nor stop below it";
      return false;
    }
    if (!T.uniformity(S.KRange).atLeast(Uniformity::BlockUniform)) {
      Why = "the number of phases varies with the thread";
      return false;
    }
    // As C text: a quotient times the tile keeps its parentheses.
    S.KRangeText = S.Truncated ? "(" + T.render(Phases) + ") * " + std::to_string(Tile)
                               : T.render(S.KRange);
    // The product of the global operands, at phase 0 (kk = k).
    auto Virtual = [&](const StagedRead &R) {
      Access V = *R.Source;
      V.Footprint = -1;
      V.Index = T.substitute(R.Global, [&](AtomId X) -> std::optional<IndexForm> {
        return X == PL.VarAtom ? std::optional(IndexForm()) : std::nullopt;
      });
      return V;
    };
    Access VA = Virtual(*SA), VB = Virtual(*SB);
    size_t Before = M.Patterns.size();
    recordProduct(&VA, &VB, C, KLoop, Red, At);
    if (M.Patterns.size() == Before || M.Patterns.back().Kind != PatternKind::MatrixProduct) {
      if (M.Patterns.size() > Before)
        M.Patterns.pop_back();
      Why = "the global elements the tiles stand for do not form a matrix product";
      return false;
    }
    Pattern &P = M.Patterns.back();
    auto Operand = [&](const StagedRead &R) {
      StagedOperand O;
      O.Tile = R.Read->Buffer;
      O.Read = R.Read->Id;
      O.Fill = R.Fill->Id;
      O.Source = R.Source->Id;
      O.KDim = R.KDim;
      O.Global = R.Global;
      O.Cond = R.Cond ? K.text(R.Cond) : "";
      return O;
    };
    S.A = Operand(*SA);
    S.B = Operand(*SB);
    P.Summary = "staged " + P.Summary.substr(P.Summary.find("matrix product"));
    P.Roles.push_back({"phase", PL.Var});
    P.Roles.push_back({"A.tile", S.A.Tile});
    P.Roles.push_back({"B.tile", S.B.Tile});
    for (const StagedOperand *O : {&S.A, &S.B})
      P.Details.push_back("staged: " + M.Accesses[O->Read].Text + " holds " +
                          M.Accesses[O->Source].Buffer + "[" + T.render(O->Global) +
                          "], filled at line " + std::to_string(M.Accesses[O->Fill].Loc.Line) +
                          (O->Cond.empty() ? "" : " under '" + O->Cond + "'"));
    P.Details.push_back("kk = " + PL.Var + " * " + std::to_string(Tile) + " + " + KL.Var +
                        " < " + S.KRangeText +
                        (S.Truncated ? " (the phases' tiles; a partial last tile is not summed)"
                                     : " (the fills zero the elements past it)"));
    P.Details.push_back("assumes blockDim = (" + std::to_string(S.Block[0]) + ", " +
                        std::to_string(S.Block[1]) + ", " + std::to_string(S.Block[2]) +
                        "): one thread per tile element");
    P.Tiled = false;
    P.Staged = std::move(S);
    ExplainedLoops.insert(PL.Id);
    return true;
  }

  void recordProduct(const Access *A, const Access *B, const Access *C, unsigned KLoop, int Red,
                     const Stmt *At) {
    const Loop &KL = M.Loops[KLoop];
    std::string KKey = "loop." + std::to_string(KLoop);
    std::vector<Group> GA = without(groupsOf(A->Index), KKey);
    std::vector<Group> GB = without(groupsOf(B->Index), KKey);
    if (GA.empty() && GB.empty())
      return; // a dot product per thread: the reduction says it
    Group KG;
    KG.Key = KKey;
    KG.Loop = int(KLoop);
    KG.Along = KL.IterAtom;
    KG.Name = KL.Var;
    if (!T.slope(C->Index, KL.IterAtom).isZero())
      return;
    Pattern P;
    P.Loops.push_back(KLoop);
    P.Reduction = Red;
    SourceSpan S;
    span2(KL.Loc, C->Loc, S);
    span2(S, A->Loc, P.Loc);
    // An operand that slides along k as it does along another variable
    // (in[x + j] * w[j]) is a window, not a matrix: a convolution.
    auto Slides = [&](const Access *Op, const std::vector<Group> &Gs) {
      Slope SK = slopeOf(Op->Index, KG);
      return Op->Footprint >= 0 || any_of(Gs, [&](const Group &G) {
               Slope SG = slopeOf(Op->Index, G);
               return SK.Step && SG.Step && *SK.Step == *SG.Step && SK.Lanes == SG.Lanes;
             });
    };
    if (Slides(A, GA) || Slides(B, GB))
      return;
    if (GA.empty() != GB.empty()) {
      // Matrix-vector: the operand that moves with more than k is the matrix.
      const Access *Mat = GA.empty() ? B : A, *Vec = GA.empty() ? A : B;
      std::vector<Group> Rows = GA.empty() ? GB : GA;
      if (!covers(C->Index, Rows))
        return;
      bool ByThread = any_of(Rows, [](const Group &G) { return G.Thread; });
      bool AlongRow = unit(slopeOf(Mat->Index, KG));
      P.Kind = PatternKind::MatrixVector;
      P.Summary = std::string("matrix-vector: ") +
                  (ByThread ? "one thread per row" : "a loop over rows") + "; reads " +
                  Mat->Buffer + (AlongRow ? " along its row: " : " down its column: ") +
                  classOf(*Mat) + " across the warp";
      P.Roles = {{"y", C->Buffer},
                 {"A", Mat->Buffer},
                 {"x", Vec->Buffer},
                 {"row", names(Rows)},
                 {"k", KL.Var}};
      std::string RowName = names(Rows);
      P.Details.push_back(C->Buffer + "[row] = sum over " + loopRange(M, KL) + " of " +
                          Mat->Buffer + "[row][k] * " + Vec->Buffer + "[k]" +
                          (RowName == "row" ? "" : ", row = " + RowName));
      P.Details.push_back(Vec->Buffer + " is " + classOf(*Vec) + " across the warp");
      P.Accesses = {Mat->Id, Vec->Id, C->Id};
      ExplainedLoops.insert(KLoop);
      M.Patterns.push_back(std::move(P));
      return;
    }
    // A block index that both operands and the result move with, and no
    // thread index does (blockIdx.z in a batched product), is the batch.
    std::vector<Group> Batch;
    for (const Group &G : GA)
      if (G.Thread && T[G.Along].Kind == AtomKind::BlockIdx && hasGroup(GB, G.Key) &&
          covers(C->Index, {G}))
        Batch.push_back(G);
    for (const Group &G : Batch) {
      GA = without(GA, G.Key);
      GB = without(GB, G.Key);
    }
    if (GA.empty() || GB.empty())
      return;
    // Both operands move with something besides k: a product when they
    // share nothing.
    for (const Group &G : GA)
      if (hasGroup(GB, G.Key))
        return;
    if (!covers(C->Index, GA) || !covers(C->Index, GB))
      return;
    // i is what A moves with besides k, j what B moves with; C is C[i][j]
    // when j is its fast index, else stored transposed (C[j][i]).
    bool CTransposed = any_of(GA, [&](const Group &G) { return unit(slopeOf(C->Index, G)); }) &&
                       none_of(GB, [&](const Group &G) { return unit(slopeOf(C->Index, G)); });
    Group I = GA.front(), J = GB.front();
    bool AK = unit(slopeOf(A->Index, KG)), AI = unit(slopeOf(A->Index, I));
    bool BK = unit(slopeOf(B->Index, KG)), BJ = unit(slopeOf(B->Index, J));
    P.Kind = PatternKind::MatrixProduct;
    P.TransposedA = AI && !AK;
    P.TransposedB = BK && !BJ;
    // The loop order, thread dimensions first.
    std::string Order;
    auto Letter = [&](const std::string &Key) -> char {
      if (Key == KKey)
        return 'k';
      if (hasGroup(GA, Key))
        return 'i';
      if (hasGroup(GB, Key))
        return 'j';
      return 0;
    };
    for (const Group &G : GA)
      if (G.Thread && !is_contained(Order, 'i'))
        Order += 'i';
    for (const Group &G : GB)
      if (G.Thread && !is_contained(Order, 'j'))
        Order += 'j';
    for (unsigned L : K.loopsAround(At))
      if (char Ch = Letter("loop." + std::to_string(L)); Ch && !is_contained(Order, Ch))
        Order += Ch;
    P.LoopOrder = Order;
    std::string AIdx = P.TransposedA ? "[k][i]" : "[i][k]";
    std::string BIdx = P.TransposedB ? "[j][k]" : "[k][j]";
    P.Tiled = A->Space == MemorySpace::Shared || B->Space == MemorySpace::Shared;
    P.Summary = std::string(P.Tiled ? "matrix product over shared-memory tiles "
                                    : "naive matrix product ") +
                C->Buffer + (CTransposed ? "[j][i]" : "[i][j]") + " = sum over k of " + A->Buffer +
                AIdx + " * " + B->Buffer + BIdx;
    if (P.TransposedA || P.TransposedB)
      P.Summary += std::string(" (") +
                   (P.TransposedA && P.TransposedB ? "both operands"
                    : P.TransposedA                ? A->Buffer
                                                   : B->Buffer) +
                   " read transposed)";
    P.Roles = {{"C", C->Buffer}, {"A", A->Buffer}, {"B", B->Buffer},
               {"i", names(GA)}, {"j", names(GB)}, {"k", KL.Var}};
    P.Details.push_back("i = " + names(GA) + ", j = " + names(GB) + ", k: " + loopRange(M, KL) +
                        " (line " + std::to_string(KL.Loc.Line) + ")");
    P.Details.push_back("loop order " + Order);
    if (!Batch.empty()) {
      P.Roles.push_back({"batch", names(Batch)});
      P.Details.push_back("batched over " + names(Batch) + " (A, B and C move with it)");
    }
    P.Details.push_back("across the warp: " + A->Buffer + " " + classOf(*A) + ", " + B->Buffer +
                        " " + classOf(*B) + ", " + C->Buffer + " " + classOf(*C));
    P.Details.push_back(
        Red >= 0
            ? "accumulates in '" + M.Reductions[Red].Target + "' and stores it to " + C->Text +
                  " (line " + std::to_string(C->Loc.Line) + ")"
            : "accumulates in memory: " + C->Text + " (line " + std::to_string(C->Loc.Line) + ")");
    if (CTransposed)
      P.Details.push_back(C->Buffer + " is stored with i fastest (column-major)");
    P.Accesses = {A->Id, B->Id, C->Id};
    for (unsigned L : K.loopsAround(At))
      if (Letter("loop." + std::to_string(L)))
        ExplainedLoops.insert(L);
    ExplainedLoops.insert(KLoop);
    M.Patterns.push_back(std::move(P));
  }

  //===--------------------------------------------------------------------===//
  // Transposes, stencils, histograms
  //===--------------------------------------------------------------------===//

  void transposes() {
    for (const Access &R : M.Accesses) {
      if (R.Kind != AccessKind::Load || R.Warp.Class != AccessClass::Transposed ||
          R.Warp.PairedAccess < 0)
        continue;
      const Access &W = M.Accesses[R.Warp.PairedAccess];
      Pattern P;
      P.Kind = PatternKind::Transpose;
      span2(R.Loc, W.Loc, P.Loc);
      bool Shared = R.Space == MemorySpace::Shared || W.Space == MemorySpace::Shared;
      const Access &Sh = R.Space == MemorySpace::Shared ? R : W;
      P.Summary = Shared ? "transpose through the shared-memory tile '" + Sh.Buffer +
                               "': " + W.Text + " = " + R.Text
                         : "naive transpose: " + W.Text + " = " + R.Text;
      P.Roles = {{"in", R.Buffer}, {"out", W.Buffer}, {"swapped", R.Warp.SwappedWith}};
      P.Details.push_back(R.Warp.Reason);
      P.Details.push_back("load " + classOf(R) + ", store " + classOf(W) + " across the warp");
      P.Accesses = {R.Id, W.Id};
      M.Patterns.push_back(std::move(P));
    }
  }

  void stencils() {
    for (const Footprint &F : M.Footprints) {
      Pattern P;
      P.Kind = PatternKind::Stencil;
      P.Footprint = int(F.Id);
      P.Loc = M.Accesses[F.Accesses.front()].Loc;
      for (unsigned A : F.Accesses)
        span2(P.Loc, M.Accesses[A].Loc, P.Loc);
      std::string Out;
      if (F.Output >= 0) {
        Out = "; output " + M.Accesses[F.Output].Text;
        span2(P.Loc, M.Accesses[F.Output].Loc, P.Loc);
      }
      P.Summary = "stencil on '" + F.Buffer + "': " + std::to_string(F.Dims.size()) + "D, " +
                  F.shape() + " footprint (radius " +
                  (F.Symbolic ? F.RadiusText : std::to_string(F.Radius)) + "), reuse " +
                  (F.Symbolic ? F.PointsText : std::to_string(F.Reuse)) + ", " +
                  (F.Border == BorderMode::None ? std::string("no border handling")
                                                : borderModeName(F.Border).str() + " border") +
                  Out;
      for (size_t D = 0; D < F.Dims.size(); ++D)
        P.Details.push_back("dimension " + std::to_string(D) + " (stride " + F.Dims[D].Stride +
                            "): offsets " +
                            (F.Symbolic ? F.Dims[D].LoText : std::to_string(F.Dims[D].Lo)) + ".." +
                            (F.Symbolic ? F.Dims[D].HiText : std::to_string(F.Dims[D].Hi)));
      P.Details.push_back((F.Symbolic ? F.PointsText : std::to_string(F.Points)) + " points" +
                          (F.FromLoops ? ", generated by loops" : "") +
                          (F.Symbolic ? " over a radius the template pattern leaves open" : ""));
      P.Roles = {{"in", F.Buffer}};
      if (F.Output >= 0)
        P.Roles.push_back({"out", M.Accesses[F.Output].Buffer});
      P.Accesses = F.Accesses;
      if (F.Output >= 0)
        P.Accesses.push_back(unsigned(F.Output));
      M.Patterns.push_back(std::move(P));
    }
  }

  void histograms() {
    for (const Access &A : M.Accesses) {
      if (A.Kind != AccessKind::Atomic ||
          (A.Atomic != AtomicOp::Add && A.Atomic != AtomicOp::Inc && A.Atomic != AtomicOp::Sub))
        continue;
      if (A.Warp.Class != AccessClass::DataDependent)
        continue;
      const Expr *V = A.valueArg();
      std::string Value = V ? K.text(V) : A.ValueText.empty() ? "1" : A.ValueText;
      bool Count = A.Atomic == AtomicOp::Inc ||
                   (V ? constantInt(V, K.Ctx) == 1
                      : StringRef(A.ValueText).rtrim("uUlL") == "1");
      Pattern P;
      P.Kind = PatternKind::Histogram;
      P.Loc = A.Loc;
      P.Summary = std::string("histogram: atomic ") +
                  (Count ? "increments" : "additions of " + Value) + " of '" + A.Buffer +
                  "' at data-dependent addresses";
      P.Details.push_back(A.Warp.Reason);
      P.Roles = {{"bins", A.Buffer}};
      P.Accesses = {A.Id};
      M.Patterns.push_back(std::move(P));
    }
  }

  //===--------------------------------------------------------------------===//
  // Elementwise maps
  //===--------------------------------------------------------------------===//

  void valueUses(const Expr *E, std::vector<ValueUse> &Out, unsigned Depth) {
    if (!E || Depth > 6)
      return;
    E = E->IgnoreParenImpCasts();
    if (M.accessAt(E))
      return; // an element the map reads
    auto Record = [&](const Expr *X) {
      UniformityInfo U = K.uniformityOf(X);
      if (U.Level <= Uniformity::BlockUniform)
        return;
      std::string Text = K.text(X);
      if (none_of(Out, [&](const ValueUse &V) { return V.Text == Text; }))
        Out.push_back({Text, K.span(X), U.Reason});
    };
    if (frontend::cudaBuiltin(E)) {
      Record(E);
      return;
    }
    if (const auto *D = dyn_cast<DeclRefExpr>(E)) {
      // A local holding loaded elements is looked into (through its partial
      // updates, v.x += 1); one computed from the thread alone (the index
      // itself) is the use.
      int Def = K.defOf(D);
      bool Looked = false;
      for (unsigned Steps = 0; Def >= 0 && Steps < 8; ++Steps) {
        const ValueDef &VD = K.Tracker->def(Def);
        if (VD.Kind == ValueDef::Value && readsMemory(VD.E)) {
          valueUses(VD.E, Out, Depth + 1);
          Looked = true;
          break;
        }
        if (VD.Kind != ValueDef::Partial && VD.Kind != ValueDef::Compound)
          break;
        valueUses(VD.E, Out, Depth + 1);
        Def = VD.Prev;
      }
      if (!Looked)
        Record(E);
      return;
    }
    for (const Stmt *C : E->children())
      if (const auto *X = dyn_cast_or_null<Expr>(C))
        valueUses(X, Out, Depth);
  }

  void elementwise() {
    std::vector<const Access *> Global;
    for (const Access &A : M.Accesses) {
      // Memory the model cannot place (rows[i][j]), or shared memory: a
      // value may come from another thread's element.
      if (A.Space != MemorySpace::Global)
        return;
      if (A.Space == MemorySpace::Global)
        Global.push_back(&A);
    }
    if (Global.empty())
      return;
    if (any_of(Global,
               [](const Access *A) { return A->Kind == AccessKind::Atomic || !A->IndexKnown; }))
      return;
    auto Store = find_if(Global, [](const Access *A) { return A->writes(); });
    if (Store == Global.end())
      return;
    // The element's accesses are at the store's index; other reads are side
    // reads (isSideRead: a per-group scale, a table), which each element
    // makes for itself.
    const IndexForm &F = (*Store)->Index;
    std::vector<const Access *> Side;
    for (const Access *A : Global)
      if (A->Index != F) {
        if (!isSideRead(*A, F, Global))
          return;
        Side.push_back(A);
      }
    llvm::erase_if(Global, [&](const Access *A) { return is_contained(Side, A); });
    // No loops, or grid- or block-stride loops (one per dimension) around
    // every access.
    std::vector<unsigned> Loops = Global.front()->Loops;
    if (any_of(Global, [&](const Access *A) { return A->Loops != Loops; }) ||
        any_of(Side, [&](const Access *A) { return A->Loops != Loops; }))
      return;
    bool GridStride = false, BlockStride = false;
    for (unsigned Id : Loops) {
      const Loop &L = M.Loops[Id];
      if (L.StepK != StepKind::GridStride && L.StepK != StepKind::BlockStride)
        return;
      GridStride |= L.StepK == StepKind::GridStride;
      BlockStride |= L.StepK == StepKind::BlockStride;
    }
    BlockStride &= !GridStride;
    const Access &First = *Global.front();
    if (First.Warp.Class != AccessClass::Coalesced)
      return;
    Pattern P;
    P.Kind = PatternKind::Elementwise;
    P.GridStride = GridStride;
    bool TwoD = T.dependsOnKind(T.expandLoops(F), AtomKind::ThreadIdx) &&
                any_of(T.expandLoops(F).atoms(), [&](AtomId X) {
                  return T[X].Kind == AtomKind::ThreadIdx && T[X].Dim != 'x';
                });
    std::vector<std::string> Reads, Writes;
    for (const Access *A : Global) {
      auto &List = A->writes() ? Writes : Reads;
      if (!is_contained(List, A->Buffer))
        List.push_back(A->Buffer);
      if (A->reads() && A->writes() && !is_contained(Reads, A->Buffer))
        Reads.push_back(A->Buffer);
      P.Accesses.push_back(A->Id);
      if (P.Loc.Line == 0)
        P.Loc = A->Loc;
      span2(P.Loc, A->Loc, P.Loc);
      if (A->writes())
        valueUses(storedValue(*A), P.ThreadValues, 0);
    }
    if (!Loops.empty()) {
      P.Loops = Loops;
      span2(P.Loc, M.Loops[Loops.front()].Loc, P.Loc);
    }
    std::string Index = K.nameOf(F);
    if (!Loops.empty()) {
      std::vector<std::string> Vars;
      for (unsigned Id : Loops)
        Vars.push_back(M.Loops[Id].Var);
      Index = join(Vars, ", ");
    }
    P.Summary = std::string("elementwise map") + (TwoD ? " (2D)" : "") + " over " + Index +
                (GridStride    ? " (grid-stride loop)"
                 : BlockStride ? " (block-stride loop: the threads of a block share a range)"
                               : ": one element per thread");
    P.Roles = {{"index", Index}};
    P.Details.push_back("reads " + (Reads.empty() ? std::string("nothing") : join(Reads, ", ")) +
                        "; writes " + join(Writes, ", "));
    if (!First.G.empty())
      P.Details.push_back("guarded by " + First.G.render());
    for (const Access *A : Side) {
      P.SideReads.push_back(A->Id);
      P.Details.push_back("each element also reads '" + A->Text + "' (line " +
                          std::to_string(A->Loc.Line) + ") at its own index '" + A->IndexText +
                          "', a buffer the map does not write");
    }
    if (P.ThreadValues.empty())
      P.Details.push_back("every stored value is a function of the loaded elements and uniform "
                          "values");
    for (const ValueUse &U : P.ThreadValues)
      P.Details.push_back("the stored value uses '" + U.Text + "' (line " +
                          std::to_string(U.Loc.Line) + "), which is thread-varying: " + U.Why);
    M.Patterns.push_back(std::move(P));
  }

  //===--------------------------------------------------------------------===//
  // Per-thread chunks, row loops and multi-pass rows
  //===--------------------------------------------------------------------===//

  /// The index at the loop variable's zero: where a thread's row starts
  /// whatever the loop's first value.
  IndexForm rowBase(const IndexForm &F, const Loop &L) {
    return T.substitute(F, [&](AtomId X) -> std::optional<IndexForm> {
      if (X == L.IterAtom || X == L.VarAtom)
        return IndexForm();
      return std::nullopt;
    });
  }

  /// The chunk size K of a loop over a thread's own chunk: a unit step
  /// from a thread-varying start s to `s + K` or `min(n, s + K)`, with K a
  /// compile-time constant or template parameter. Limit is n for a min
  /// bound.
  std::optional<IndexForm> ownChunkTrip(const Loop &L, std::optional<IndexForm> &Limit) {
    Limit.reset();
    if (!L.hasInductionVariable() || L.StepK != StepKind::Constant || !L.Step ||
        L.Step->constantValue() != 1 || L.Cmp != CmpOp::LT || !L.Start || !L.Bound ||
        T.uniformity(*L.Start).atLeast(Uniformity::WarpUniform))
      return std::nullopt;
    auto CompileTime = [&](const IndexForm &F) {
      return !F.isZero() && all_of(F.atoms(), [&](AtomId X) {
               return T[X].Kind == AtomKind::TemplateParam;
             });
    };
    IndexForm Start = T.expandLoops(*L.Start), Bound = T.expandLoops(*L.Bound);
    if (IndexForm D = Bound - Start; CompileTime(D))
      return D;
    // min(n, s + K) in either order, with n the same for every thread.
    auto Atoms = Bound.atoms();
    if (Atoms.size() != 1 || Bound != IndexForm::atom(*Atoms.begin()))
      return std::nullopt;
    const Atom &A = T[*Atoms.begin()];
    if (A.Kind != AtomKind::Min || A.Operands.size() != 2)
      return std::nullopt;
    for (unsigned I = 0; I < 2; ++I) {
      IndexForm D = T.expandLoops(A.Operands[I]) - Start;
      const IndexForm &Other = A.Operands[1 - I];
      if (CompileTime(D) && T.uniformity(Other).atLeast(Uniformity::BlockUniform)) {
        Limit = Other;
        return D;
      }
    }
    return std::nullopt;
  }

  /// Where a thread's chunk starts: the index at the loop's first iteration.
  IndexForm chunkBase(const IndexForm &F, const Loop &L) {
    return T.substitute(T.expandLoops(F), [&](AtomId X) -> std::optional<IndexForm> {
      if (X == L.IterAtom)
        return IndexForm();
      return std::nullopt;
    });
  }

  void chunksAndRows() {
    AtomId Tx = T.builtin("threadIdx", 'x');
    struct RowPass {
      unsigned Loop;
      std::string Buffer;
      IndexForm Base;
      std::string What;
    };
    std::vector<RowPass> Passes;
    for (const Loop &L : M.Loops) {
      // A loop over the thread's own chunk (`j = t * K; j < t * K + K`):
      // the same compile-time number of iterations in every thread.
      std::optional<IndexForm> Limit;
      std::optional<IndexForm> Own = ownChunkTrip(L, Limit);
      // Otherwise, a loop every thread runs the same way (extra exits like
      // `i + k < n` aside).
      if (!Own &&
          (!L.hasInductionVariable() || L.StepK == StepKind::GridStride ||
           L.StepK == StepKind::BlockStride || L.StepK == StepKind::Geometric || !L.Start ||
           !T.uniformity(*L.Start).atLeast(Uniformity::WarpUniform) || !L.Bound ||
           !T.uniformity(*L.Bound).atLeast(Uniformity::WarpUniform) || !L.Step ||
           !L.Step->isConstant()))
        continue;
      Group LG;
      LG.Key = "loop." + std::to_string(L.Id);
      LG.Loop = int(L.Id);
      LG.Along = L.IterAtom;
      LG.Name = L.Var;
      std::vector<const Access *> Rows, Cols, Chunk;
      std::optional<IndexForm> Trip = Own;
      if (!Trip && L.Bound && L.Step->constantValue() == 1 && L.Cmp == CmpOp::LT)
        Trip = *L.Bound - *L.Start;
      for (const Access &A : M.Accesses) {
        if (A.Space != MemorySpace::Global || !A.IndexKnown || !is_contained(A.Loops, L.Id) ||
            A.Footprint >= 0)
          continue;
        Slope SK = slopeOf(A.Index, LG);
        if (!SK.known() || SK.isZero())
          continue;
        Slope SX = T.slope(A.Index, Tx);
        if (!SX.known())
          continue;
        // The row start must differ between threads (a loop over the
        // thread's own chunk starts where the chunk does).
        IndexForm Base = Own ? chunkBase(A.Index, L) : rowBase(A.Index, L);
        if (T.uniformity(Base).atLeast(Uniformity::WarpUniform))
          continue;
        // A chunk has a compile-time size; a run-time one is a row.
        bool Fixed = Trip && all_of(Trip->atoms(),
                                    [&](AtomId X) { return T[X].Kind == AtomKind::TemplateParam; });
        if (ExplainedLoops.count(L.Id))
          continue;
        if (unit(SK) && Fixed && SX.Step && SX.Lanes == 1 && *SX.Step == *Trip)
          Chunk.push_back(&A);
        else if (unit(SK))
          Rows.push_back(&A);
        else if (unit(SX))
          Cols.push_back(&A);
      }
      if (!Chunk.empty()) {
        Pattern P;
        P.Kind = PatternKind::Chunk;
        P.Loc = L.Loc;
        P.Loops = {L.Id};
        P.ChunkSize = T.render(*Trip);
        P.ChunkElems = *Trip;
        P.ChunkLimit = Limit;
        std::vector<std::string> Bufs;
        for (const Access *A : Chunk) {
          P.Accesses.push_back(A->Id);
          if (!is_contained(Bufs, A->Buffer))
            Bufs.push_back(A->Buffer);
        }
        // A loop over the thread's own chunk counts the elements, not k.
        std::string KName = Own ? "k" : L.Var;
        P.Summary = "per-thread chunk: thread t handles t*" + P.ChunkSize + " + " + KName +
                    " for " + KName + " in [0, " + P.ChunkSize + ")" +
                    (Own ? " ('" + L.Var + "' runs over the thread's own chunk)" : "") + " of " +
                    join(Bufs, ", ") +
                    "; strided by " + P.ChunkSize +
                    " across the warp (a coalesced remap "
                    "would stride by 1)";
        P.Roles = {{"k", L.Var}, {"chunk", P.ChunkSize}};
        if (!L.ExtraCondText.empty())
          P.Details.push_back("each element is also guarded by " + L.ExtraCondText);
        if (Limit)
          P.Details.push_back("the loop also stops at " + T.render(*Limit) + " (min bound)");
        M.Patterns.push_back(std::move(P));
        continue;
      }
      // A loop over the thread's own chunk that is not a chunk of the
      // warp's elements is not a row either.
      if (Own)
        continue;
      if (ExplainedLoops.count(L.Id) || (Rows.empty() && Cols.empty()))
        continue;
      bool IsRow = !Rows.empty();
      const std::vector<const Access *> &Use = IsRow ? Rows : Cols;
      Pattern P;
      P.Kind = PatternKind::RowLoop;
      P.Loc = L.Loc;
      P.Loops = {L.Id};
      std::vector<std::string> Bufs;
      for (const Access *A : Use) {
        P.Accesses.push_back(A->Id);
        if (!is_contained(Bufs, A->Buffer))
          Bufs.push_back(A->Buffer);
      }
      // A reduction over this loop names what the row loop computes.
      std::string What;
      for (const Reduction &R : M.Reductions)
        if (R.Kind == ReductionKind::LoopCarried && R.Loops.front() == L.Id) {
          What = "; reduces into '" + R.Target + "' (" + reductionOpSymbol(R.Op).str() + ")";
          P.Reduction = int(R.Id);
        }
      P.Summary = std::string("per-thread ") + (IsRow ? "row" : "column") + " loop over " +
                  loopRange(M, L) + ": each thread " +
                  (IsRow ? "accesses a contiguous row of " : "walks a column of ") +
                  join(Bufs, ", ") + "; across the warp: " + classOf(*Use.front()) + What;
      P.Roles = {{"k", L.Var}, {"buffer", Bufs.front()}};
      M.Patterns.push_back(std::move(P));
      for (const Access *A : Use) {
        std::string Pass = A->writes() ? "writes " + A->Buffer : "reads " + A->Buffer;
        if (!What.empty())
          Pass = What.substr(2);
        Passes.push_back({L.Id, A->Buffer, rowBase(A->Index, L), Pass});
      }
      // Stores in the loop to the same row of another buffer are a pass too.
    }
    // Several sibling loops over the same row: softmax-like.
    std::vector<bool> Used(Passes.size(), false);
    for (size_t I = 0; I < Passes.size(); ++I) {
      if (Used[I])
        continue;
      std::vector<size_t> Same;
      for (size_t J = I; J < Passes.size(); ++J)
        if (!Used[J] && Passes[J].Buffer == Passes[I].Buffer && Passes[J].Base == Passes[I].Base)
          Same.push_back(J);
      std::vector<unsigned> Loops;
      for (size_t J : Same)
        if (!is_contained(Loops, Passes[J].Loop))
          Loops.push_back(Passes[J].Loop);
      if (Loops.size() < 2)
        continue;
      Pattern P;
      P.Kind = PatternKind::MultiPassRow;
      P.Loops = Loops;
      P.Passes = unsigned(Loops.size());
      P.Loc = M.Loops[Loops.front()].Loc;
      for (unsigned L : Loops)
        span2(P.Loc, M.Loops[L].Loc, P.Loc);
      P.Summary = "multi-pass row loop (" + std::to_string(Loops.size()) +
                  " passes over a row of '" + Passes[I].Buffer + "', softmax-like)";
      unsigned N = 0;
      for (unsigned L : Loops) {
        std::string What;
        for (size_t J : Same)
          if (Passes[J].Loop == L && What.empty())
            What = Passes[J].What;
        // A pass that also writes another buffer along the row.
        for (const Access &A : M.Accesses)
          if (A.writes() && A.Space == MemorySpace::Global && is_contained(A.Loops, L) &&
              A.Buffer != Passes[I].Buffer && rowBase(A.Index, M.Loops[L]) == Passes[I].Base)
            What += (What.empty() ? "" : ", ") + std::string("writes ") + A.Buffer;
        P.Details.push_back("pass " + std::to_string(++N) + " (line " +
                            std::to_string(M.Loops[L].Loc.Line) + "): " + What);
      }
      P.Roles = {{"buffer", Passes[I].Buffer}};
      for (size_t J : Same)
        Used[J] = true;
      M.Patterns.push_back(std::move(P));
    }
  }

  //===--------------------------------------------------------------------===//
  // Shared-memory trees and scans
  //===--------------------------------------------------------------------===//

  void treesAndScans() {
    for (const Loop &L : M.Loops) {
      if (L.StepK != StepKind::Geometric || !L.HasSync)
        continue;
      IndexForm S = IndexForm::atom(L.VarAtom);
      for (const Access &W : M.Accesses) {
        if (W.Space != MemorySpace::Shared || !W.writes() || !is_contained(W.Loops, L.Id))
          continue;
        for (const Access &R : M.Accesses) {
          if (R.Space != MemorySpace::Shared || R.Base != W.Base || R.Kind != AccessKind::Load ||
              !is_contained(R.Loops, L.Id))
            continue;
          // s[t] op= s[t + s]: a tree (halving strides, or doubling ones with
          // interleaved addressing); s[t] += s[t - off]: a scan.
          bool Tree = R.Index == W.Index + S;
          bool Scan = L.Factor > 0 && R.Index == W.Index - S;
          if (!Tree && !Scan)
            continue;
          Pattern P;
          P.Kind = Tree ? PatternKind::TreeReduction : PatternKind::Scan;
          P.Loc = L.Loc;
          P.Loops = {L.Id};
          P.Accesses = {W.Id, R.Id};
          P.Summary = Tree ? "block tree reduction in shared memory '" + W.Buffer + "' over " +
                                 (L.Factor < 0 ? "halving" : "doubling") + " strides " + L.Var
                           : "block scan in shared memory '" + W.Buffer +
                                 "' over doubling offsets " + L.Var + " (Hillis-Steele)";
          P.Details.push_back(W.Text + " combines " + R.Text +
                              ", with __syncthreads() in the loop");
          P.Roles = {{"buffer", W.Buffer}, {"stride", L.Var}};
          M.Patterns.push_back(std::move(P));
          goto NextLoop;
        }
      }
    NextLoop:;
    }
  }

  /// A scan written as one reduction per thread over the prefix up to its
  /// own element (the naive O(n^2) prefix sum): `for (j = 0; j <= i; ++j) s
  /// += in[j]; out[i] = s;` with the store coalesced over i. `j < i` is the
  /// exclusive scan. The sum starts from 0 and reads nothing but in[j].
  void triangularScans() {
    for (const Reduction &R : M.Reductions) {
      if (R.Kind != ReductionKind::LoopCarried || R.Op != ReductionOp::Add || !R.Acc ||
          R.Loops.size() != 1 || !zeroLiteral(R.Init))
        continue;
      const Loop &L = M.Loops[R.Loops.front()];
      auto Start = L.Start ? L.Start->constantValue() : std::nullopt;
      auto Step = L.Step ? L.Step->constantValue() : std::nullopt;
      if (L.Parent >= 0 || L.StepK != StepKind::Constant || !Start || *Start != 0 || !Step ||
          *Step != 1 || !L.Bound || (L.Cmp != CmpOp::LT && L.Cmp != CmpOp::LE) ||
          L.HasEarlyExit || L.HasSync || !L.ExtraCondText.empty())
        continue;
      // The loop reads in[j] and nothing else.
      auto In = M.accessesIn(L);
      if (In.size() != 1 || In.front()->Kind != AccessKind::Load ||
          In.front()->Space != MemorySpace::Global ||
          In.front()->Index != IndexForm::atom(L.VarAtom))
        continue;
      const Access &Src = *In.front();
      // The store of the sum after the loop, at the element the bound names.
      for (const Access &W : M.Accesses) {
        if (W.Kind != AccessKind::Store || W.Space != MemorySpace::Global ||
            is_contained(W.Loops, L.Id) || W.Base == Src.Base ||
            W.Warp.Class != AccessClass::Coalesced)
          continue;
        const Expr *V = storedValue(W);
        const auto *Ref = V ? dyn_cast<DeclRefExpr>(V->IgnoreParenImpCasts()) : nullptr;
        if (!Ref || Ref->getDecl() != R.Acc)
          continue;
        std::string Order;
        if ((L.Cmp == CmpOp::LE && *L.Bound == W.Index) ||
            (L.Cmp == CmpOp::LT && *L.Bound == W.Index + IndexForm::constant(1)))
          Order = "inclusive";
        else if (L.Cmp == CmpOp::LT && *L.Bound == W.Index)
          Order = "exclusive";
        else
          continue;
        Pattern P;
        P.Kind = PatternKind::Scan;
        P.Loc = L.Loc;
        P.Loops = {L.Id};
        P.Accesses = {W.Id};
        P.Summary = "per-thread " + Order + " prefix (+) of " + Src.Buffer + " into " + W.Buffer +
                    ": each thread sums " + Src.Buffer + "[0.." +
                    (Order == "inclusive" ? "i]" : "i)") + " for its own element i (O(n^2) work)";
        P.Details.push_back(W.Text + " stores '" + R.Target + "', the sum of " + Src.Text +
                            " over " + L.Var + " from 0 while " + L.CondText);
        P.Roles = {{"acc", R.Target},      {"out", W.Buffer}, {"in", Src.Buffer},
                   {"op", "add"},          {"order", Order},  {"form", "triangle"}};
        M.Patterns.push_back(std::move(P));
        break;
      }
    }
  }

  /// "0", "0.0f", "0.", "0u", "0.0": the additive identity as written.
  static bool zeroLiteral(llvm::StringRef S) {
    S = S.trim().rtrim("fFuUlL");
    if (S.empty())
      return false;
    bool Digit = false;
    for (char C : S) {
      if (C == '0')
        Digit = true;
      else if (C != '.')
        return false;
    }
    return Digit;
  }

  //===--------------------------------------------------------------------===//
  // Reductions
  //===--------------------------------------------------------------------===//

  void reductions() {
    for (const Reduction &R : M.Reductions) {
      Pattern P;
      P.Kind = PatternKind::Reduction;
      P.Reduction = int(R.Id);
      P.Loc = R.Loc;
      if (R.Kind == ReductionKind::LoopCarried) {
        std::vector<std::string> Over;
        for (unsigned L : R.Loops)
          Over.push_back(loopRange(M, M.Loops[L]));
        std::string What = R.Op == ReductionOp::ArgMax || R.Op == ReductionOp::ArgMin
                               ? reductionOpName(R.Op).str() + " of '" + R.Target + "' (with '" +
                                     join(R.Companions, "', '") + "')"
                               : "'" + R.Target + "' (" + reductionOpSymbol(R.Op).str() + ")";
        P.Summary = "loop-carried reduction of " + What + " over " + join(Over, " and ");
        P.Loops = R.Loops;
        P.Roles = {{"acc", R.Target}};
        if (!R.Init.empty())
          P.Details.push_back("starts from " + R.Init);
        P.Details.push_back("combines " + R.Operand + " (" +
                            uniformityName(R.OperandUniform.Level).str() + ")");
        if (R.FloatingPoint && R.Op != ReductionOp::Max && R.Op != ReductionOp::Min &&
            R.Op != ReductionOp::ArgMax && R.Op != ReductionOp::ArgMin)
          P.Details.push_back("floating-point: reassociating it changes the rounding");
      } else {
        const Access &A = M.Accesses[R.Access];
        P.Accesses = {A.Id};
        P.Summary = "atomic reduction (" + reductionOpSymbol(R.Op).str() + ") into " + R.Target +
                    ": " +
                    (R.Scope == ReductionScope::Grid ? "one address for the whole grid"
                                                     : "one address per block");
        P.Roles = {{"target", A.Buffer}};
        P.Details.push_back("each thread adds " + R.Operand + " with " + A.Callee);
        if (!A.G.empty())
          P.Details.push_back("guarded by " + A.G.render());
      }
      M.Patterns.push_back(std::move(P));
    }
  }
};

} // namespace

void KernelAnalyzer::findPatterns(KernelModel &M) {
  Recognisers R(*this, M);
  R.run();
}

} // namespace forge::analysis
