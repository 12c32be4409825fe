//===- passes/optimize/CooperativeRowRule.cpp - cooperative-row -----------===//
///
/// \file
/// Per-thread row loops (the model's row-loop, matrix-vector and
/// multi-pass-row patterns): one thread walks a whole row, so a warp reads
/// 32 rows at a stride of the row length. The rule gives each row to a
/// warp (or, as a second proposal, to a block): every warp of the rewritten
/// kernel runs what one thread of the original ran, with threadIdx.x,
/// blockIdx.x and gridDim.x replaced by the original thread's values; its
/// lanes share the row loops (lane, lane + 32, ..., coalesced, 16 bytes per
/// lane where the row is aligned at run time) and combine their partial
/// reductions with an __shfl_xor_sync butterfly, so every lane holds the
/// result for later passes. Writes outside the row loops are made by lane
/// 0; a row loop's per-element writes by every lane. The grid grows by 32
/// (by the block size) through a SpecChange; a block whose blockDim.x is
/// not a multiple of 32 runs the original code (docs/passes/cooperative-row.md).
/// A running value stored at each element (the model's serial scan over the
/// row loop) is a row scan: per step the lanes scan their elements'
/// operands with __shfl_up_sync, start from the carry, and pass the last
/// lane's value on (a warp per row only).
///
//===----------------------------------------------------------------------===//
#include "RuleAst.h"
#include "RuleUtil.h"
#include "Rules.h"
#include "forge/Analysis/KernelModel.h"
#include "forge/Measure/IntExpr.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DynamicRecursiveASTVisitor.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"
#include <map>
#include <set>

using namespace clang;
using namespace llvm;
namespace an = forge::analysis;

namespace forge::passes {
namespace {

//===----------------------------------------------------------------------===//
// Text: ranges of the main file rendered with replacements
//===----------------------------------------------------------------------===//

/// One replacement of [Begin, End) of the main file (an insertion when
/// Begin == End).
struct Piece {
  unsigned Begin = 0, End = 0;
  std::string Text;
};

/// Source[Begin, End) with the pieces that lie inside it applied:
/// insertions at one offset in their order and before a replacement that
/// starts there. None when two replacements overlap or one straddles the
/// range.
std::optional<std::string> render(StringRef Source, unsigned Begin, unsigned End,
                                  ArrayRef<Piece> Pieces) {
  std::vector<std::pair<size_t, const Piece *>> In;
  for (size_t I = 0; I < Pieces.size(); ++I) {
    const Piece &P = Pieces[I];
    if (P.End <= Begin && P.Begin < Begin)
      continue;
    if (P.Begin >= End && P.End > End)
      continue;
    if (P.Begin < Begin || P.End > End)
      return std::nullopt;
    In.push_back({I, &P});
  }
  llvm::stable_sort(In, [](const auto &A, const auto &B) {
    if (A.second->Begin != B.second->Begin)
      return A.second->Begin < B.second->Begin;
    bool AI = A.second->Begin == A.second->End, BI = B.second->Begin == B.second->End;
    if (AI != BI)
      return AI; // insertions first
    return A.first < B.first;
  });
  std::string Out;
  unsigned Pos = Begin;
  for (const auto &[I, P] : In) {
    if (P->Begin < Pos)
      return std::nullopt;
    Out += Source.slice(Pos, P->Begin);
    Out += P->Text;
    Pos = P->End;
  }
  Out += Source.slice(Pos, End);
  return Out;
}

std::string spaces(size_t N) { return std::string(N, ' '); }

/// A builtin component's occurrence in the body.
struct BuiltinUse {
  unsigned Begin, End;
  std::string Var;
  char Dim;
};

//===----------------------------------------------------------------------===//
// AST helpers
//===----------------------------------------------------------------------===//

bool isInside(const Stmt *S, const Stmt *Outer, ASTContext &Ctx) {
  for (const Stmt *P = S; P; P = parentStmt(P, Ctx))
    if (P == Outer)
      return true;
  return false;
}

/// The statement an expression belongs to: the outermost expression whose
/// parent is a statement. Sets Parent to that statement.
const Stmt *statementOf(const Stmt *E, ASTContext &Ctx, const Stmt *&Parent) {
  const Stmt *Cur = E;
  while (true) {
    const Stmt *P = parentStmt(Cur, Ctx);
    if (!P) {
      Parent = nullptr;
      return Cur;
    }
    if (!isa<Expr>(P)) {
      Parent = P;
      return Cur;
    }
    Cur = P;
  }
}

/// The variable an lvalue is rooted at (through subscripts of local
/// arrays, members and casts), or null for memory through a pointer.
const VarDecl *lvalueRoot(const Expr *E) {
  while (E) {
    E = E->IgnoreParenCasts();
    if (const auto *D = dyn_cast<DeclRefExpr>(E))
      return dyn_cast<VarDecl>(D->getDecl());
    if (const auto *M = dyn_cast<MemberExpr>(E)) {
      if (M->isArrow())
        return nullptr;
      E = M->getBase();
      continue;
    }
    if (const auto *A = dyn_cast<ArraySubscriptExpr>(E)) {
      const Expr *B = A->getBase()->IgnoreParenImpCasts();
      if (B->getType()->isPointerType() && !isa<DeclRefExpr>(B))
        return nullptr;
      if (const auto *D = dyn_cast<DeclRefExpr>(B))
        if (const auto *V = dyn_cast<VarDecl>(D->getDecl()); V && V->getType()->isArrayType())
          return V;
      return nullptr;
    }
    return nullptr;
  }
  return nullptr;
}

/// What a statement modifies: locals (by root variable) and lvalues
/// through pointers (by expression).
struct Writes {
  std::vector<std::pair<const VarDecl *, const Expr *>> Vars;
  std::vector<const Expr *> Memory;
  /// Addresses of locals taken (`&v`), passed on or stored.
  std::vector<const VarDecl *> AddressTaken;
};

Writes writesIn(const Stmt *S) {
  struct W : DynamicRecursiveASTVisitor {
    Writes Out;
    void lhs(const Expr *L) {
      if (const VarDecl *V = lvalueRoot(L))
        Out.Vars.push_back({V, L});
      else
        Out.Memory.push_back(L);
    }
    bool VisitBinaryOperator(BinaryOperator *B) override {
      if (B->isAssignmentOp())
        lhs(B->getLHS());
      return true;
    }
    bool VisitUnaryOperator(UnaryOperator *U) override {
      if (U->isIncrementDecrementOp())
        lhs(U->getSubExpr());
      if (U->getOpcode() == UO_AddrOf)
        if (const VarDecl *V = lvalueRoot(U->getSubExpr()))
          Out.AddressTaken.push_back(V);
      return true;
    }
    bool VisitCXXOperatorCallExpr(CXXOperatorCallExpr *C) override {
      if (C->isAssignmentOp() && C->getNumArgs() > 0)
        lhs(C->getArg(0));
      return true;
    }
  } V;
  V.TraverseStmt(const_cast<Stmt *>(S));
  return V.Out;
}

/// Whether D is declared inside S.
bool declaredIn(const VarDecl *D, const Stmt *S, const SourceManager &SM) {
  SourceRange R = S->getSourceRange();
  SourceLocation L = D->getLocation();
  return !SM.isBeforeInTranslationUnit(L, R.getBegin()) &&
         !SM.isBeforeInTranslationUnit(R.getEnd(), L);
}

/// The constant value of an initialiser, when it has one.
std::optional<double> constantValue(const Expr *E, ASTContext &Ctx) {
  if (!E || E->isValueDependent() || E->isTypeDependent())
    return std::nullopt;
  Expr::EvalResult R;
  if (!E->EvaluateAsRValue(R, Ctx) || R.HasSideEffects)
    return std::nullopt;
  if (R.Val.isInt())
    return double(R.Val.getInt().getSExtValue());
  if (R.Val.isFloat())
    return R.Val.getFloat().convertToDouble();
  return std::nullopt;
}

/// The value of a literal initialiser, seen through casts and a
/// functional cast or one-argument construction (`T(0)`, `(float)0`).
std::optional<double> literalValue(const Expr *E, ASTContext &Ctx) {
  for (unsigned Depth = 0; E && Depth < 8; ++Depth) {
    E = E->IgnoreParenCasts();
    if (const auto *I = dyn_cast<IntegerLiteral>(E))
      return double(I->getValue().getSExtValue());
    if (const auto *F = dyn_cast<FloatingLiteral>(E))
      return F->getValue().convertToDouble();
    if (const auto *U = dyn_cast<CXXUnresolvedConstructExpr>(E)) {
      if (U->getNumArgs() != 1)
        return std::nullopt;
      E = U->getArg(0);
      continue;
    }
    if (const auto *C = dyn_cast<CXXConstructExpr>(E)) {
      if (C->getNumArgs() != 1)
        return std::nullopt;
      E = C->getArg(0);
      continue;
    }
    if (const auto *U = dyn_cast<UnaryOperator>(E); U && U->getOpcode() == UO_Minus) {
      auto V = literalValue(U->getSubExpr(), Ctx);
      return V ? std::optional<double>(-*V) : std::nullopt;
    }
    return constantValue(E, Ctx);
  }
  return std::nullopt;
}

bool isLiteralZero(const Expr *E) {
  const auto *L = dyn_cast<IntegerLiteral>(E->IgnoreParenImpCasts());
  return L && L->getValue() == 0;
}

/// E needs no parentheses as an operand.
bool isPrimary(const Expr *E) {
  E = E->IgnoreImpCasts();
  return isa<DeclRefExpr, IntegerLiteral, ParenExpr, MemberExpr, CallExpr, ArraySubscriptExpr>(E);
}

//===----------------------------------------------------------------------===//
// The plan
//===----------------------------------------------------------------------===//

/// Accesses of one buffer at one index inside a vectorised loop, moved as
/// one 16-byte vector per step.
struct VecGroup {
  const an::Access *First = nullptr;
  std::vector<const Expr *> Exprs; ///< the subscripts (or __ldg calls) replaced by components
  bool Load = false, Store = false;
  std::string Name, VecType, Elem;
  const Expr *Address = nullptr; ///< the subscript whose address is taken (or __ldg's argument)
  bool Ldg = false;
};

/// A row loop split over the lanes of a warp (or a block).
struct Split {
  const an::Loop *L = nullptr;
  /// The loop: a for, or a while that its body's last statement steps.
  const Stmt *F = nullptr;
  const VarDecl *IV = nullptr;
  bool IVDeclared = false; ///< declared in the for's init
  const Expr *Start = nullptr;
  /// A while loop's start: the declaration or assignment right before it.
  const Stmt *StartStmt = nullptr;
  const Expr *Inc = nullptr; ///< the step (the for's increment, the while's last statement)
  const Expr *Bound = nullptr; ///< `k < N`: N; null when the test has another form
  int64_t Step = 1;
  const Stmt *Body = nullptr;
  bool WritesMemory = false;
  bool HasContinue = false;
  /// argmax/argmin: the value's accumulator and its position, updated
  /// together under a strict comparison; lanes keep their first best and
  /// the combine prefers the earlier position among equal values.
  struct ArgPair {
    const VarDecl *Value = nullptr, *Index = nullptr;
    bool LowerFirst = true; ///< the loop counts up: earlier is lower
  };
  std::vector<ArgPair> Args;
  /// A scan over the row: a running value stored as it goes (the model's
  /// serial Scan pattern over this loop). Its one update is a statement of
  /// the body; the lanes' warp scan goes before First, the first statement
  /// of the body that reads the value (the update, or an exclusive store).
  struct ScanInfo {
    const VarDecl *V = nullptr;
    an::ReductionOp Op = an::ReductionOp::Add;
    const Stmt *Update = nullptr, *First = nullptr;
    std::string Order; ///< "inclusive" or "exclusive", as the model saw it
  };
  std::optional<ScanInfo> Scan;
  /// Vectorisation: elements per vector (0: none) and the groups.
  unsigned V = 0;
  std::vector<VecGroup> Vec;
  std::string NoVecWhy;
};

struct AccInfo {
  const VarDecl *V = nullptr;
  an::ReductionOp Op = an::ReductionOp::Add;
  bool Reset = false; ///< lanes other than 0 start from the identity
  /// argmax/argmin: the position kept with the value, and the tie-break.
  const VarDecl *Index = nullptr;
  bool LowerFirst = true;
};

/// The partial results of Accs combined after the statement After (a split
/// loop, or a loop around one that the reduction also runs over).
struct Combine {
  const Stmt *After = nullptr;
  std::vector<AccInfo> Accs;
};

/// A call of an index helper that reads builtins (`row_id()` of `return
/// blockIdx.x * blockDim.x + threadIdx.x;`), written in its place with its
/// expression: the builtins then take the original thread's values like
/// the body's own. Segs: the expression's text, the call's arguments
/// substituted for the parameters, and each builtin component on its own.
struct InlineCall {
  unsigned Begin = 0, End = 0; ///< the call in the main file
  struct Seg {
    std::string Text; ///< literal text, when Var is empty
    std::string Var;  ///< "blockIdx" ...
    char Dim = 0;
  };
  std::vector<Seg> Segs;
  bool readsGridX() const {
    return any_of(Segs, [](const Seg &S) { return S.Var == "gridDim" && S.Dim == 'x'; });
  }
};

struct Plan {
  const CompoundStmt *Body = nullptr;
  std::vector<Split> Splits;
  std::vector<Combine> Combines;
  /// Statements that write memory outside the split loops: lane 0 only.
  std::vector<const Stmt *> Wraps;
  std::vector<BuiltinUse> Builtins;
  std::vector<InlineCall> Inlines;
  /// What the kernel computes, for the summary ("matrix-vector product").
  std::string What;
  std::vector<std::string> Facts;
  /// The single-thread-rows shape: the row loops are walked by the thread
  /// (or threads) of a block that Guard lets through, `if (threadIdx.x ==
  /// 0) { ... }`, or `if (threadIdx.x != 0) return;` at the top of the
  /// kernel (GuardExits). Region: what only those threads ran (the then
  /// branch; the statements after the exit), now run by the whole block;
  /// GuardHolds: the condition under which they ran, which keeps the writes
  /// theirs.
  bool Single = false;
  const IfStmt *Guard = nullptr;
  bool GuardExits = false;
  std::string GuardHolds;
  /// The parts of the guard's condition that are the same in the whole
  /// block (`row < m` of `row < m && threadIdx.x == 0`): they stay.
  std::vector<std::string> GuardKept;
  std::vector<const Stmt *> Region;
};

/// Combining a partial with itself changes nothing (every lane may start
/// from the value before the loop). An argmax's (value, position) pair is
/// one: a lane that keeps the start keeps its position too.
bool idempotent(an::ReductionOp Op) {
  return Op == an::ReductionOp::Max || Op == an::ReductionOp::Min || Op == an::ReductionOp::And ||
         Op == an::ReductionOp::Or || Op == an::ReductionOp::ArgMax ||
         Op == an::ReductionOp::ArgMin;
}

/// The identity of a non-idempotent op (+, *, ^), the only ones whose
/// accumulators lanes other than 0 reset (idempotent ones need no reset).
std::string identityOf(an::ReductionOp Op) { return Op == an::ReductionOp::Mul ? "1" : "0"; }

struct Candidates;

class CooperativeRowRule : public ExpertRule {
public:
  StringRef name() const override { return "cooperative-row"; }
  RuleOutcome propose(const RuleInput &In) override;

private:
  Expected<Plan> plan(const RuleInput &In, an::KernelModel &M);
  std::string checkKernel(const RuleInput &In, const an::KernelModel &M, Plan &P);
  std::string checkSplit(const RuleInput &In, const an::KernelModel &M, Split &S,
                         std::vector<std::pair<const VarDecl *, const an::Reduction *>> &Accs,
                         bool Scans = false);
  std::optional<std::string> checkScan(const RuleInput &In, const an::KernelModel &M, Split &S,
                                       const VarDecl *V);
  std::string checkArgUpdate(const RuleInput &In, Split &S, const VarDecl *V,
                             const an::Reduction &R, const Writes &W);
  void planVectors(const RuleInput &In, const an::KernelModel &M, Split &S);
  std::string planWrites(const RuleInput &In, const an::KernelModel &M, Plan &P,
                         function_ref<bool(const Stmt *)> InScope = nullptr);
  Expected<Plan> planSingle(const RuleInput &In, an::KernelModel &M, const Candidates &C);
  std::string findGuard(const RuleInput &In, an::KernelModel &M, const an::Loop &L, Plan &P);
  std::string checkRegion(const RuleInput &In, const an::KernelModel &M, Plan &P);
  RuleOutcome proposeSingle(const RuleInput &In, const an::KernelModel &M, const Plan &P);
  std::string planCombines(const RuleInput &In, const an::KernelModel &M, Plan &P,
                           ArrayRef<std::pair<const VarDecl *, const an::Reduction *>> Accs);
};

//===----------------------------------------------------------------------===//
// Preconditions
//===----------------------------------------------------------------------===//

std::string lineOf(const an::Loop &L) { return "line " + std::to_string(L.Loc.Line); }

/// The loops whose accesses read a row per thread: some global access
/// moves by one element per step of the loop (contiguous for the thread)
/// and differs between neighbouring threads by more than one element
/// (strided across the warp, or a data-dependent row start); and no access
/// of the loop is already coalesced across the warp while it moves along
/// the loop (a column walk, which a warp per row would make strided).
struct Candidates {
  std::vector<const an::Loop *> Rows;
  /// Row loops that one thread of a block walks: their contiguous accesses
  /// are broadcast across the warp (the same row in every thread of the
  /// block; the single-thread-rows shape, planned by planSingle).
  std::vector<const an::Loop *> Single;
  std::string ColumnWhy, ShortWhy, ChunkWhy, ShapeWhy;
};

Candidates findRowLoops(const an::KernelModel &M) {
  Candidates C;
  std::set<unsigned> Chunks;
  for (const an::Pattern *P : M.patterns(an::PatternKind::Chunk))
    for (unsigned L : P->Loops)
      Chunks.insert(L);
  for (const an::Loop &L : M.Loops) {
    if (!L.hasInductionVariable() || !L.Step)
      continue;
    auto Step = L.Step->constantValue();
    if (!Step || *Step == 0)
      continue;
    const an::Access *Row = nullptr, *Col = nullptr, *Bcast = nullptr;
    for (const an::Access *A : M.accessesIn(L)) {
      if (A->Space != an::MemorySpace::Global)
        continue;
      an::Slope S = M.slopeAlongLoop(*A, L);
      if (!S.known() || S.isZero())
        continue;
      const an::WarpBehaviour &W = A->Warp;
      auto Stride = W.constantStride();
      bool Coalesced =
          W.Class == an::AccessClass::Coalesced ||
          (W.Class == an::AccessClass::Transposed && Stride && (*Stride == 1 || *Stride == -1));
      if (Coalesced) {
        Col = Col ? Col : A;
        continue;
      }
      auto PerIt = S.constant();
      if (!PerIt)
        continue;
      bool Contiguous = *PerIt == *Step || *PerIt == -*Step;
      bool Spread = W.Class == an::AccessClass::Strided ||
                    W.Class == an::AccessClass::DataDependent ||
                    W.Class == an::AccessClass::Transposed;
      if (Contiguous && Spread && A->Warp.Class != an::AccessClass::Broadcast)
        Row = Row ? Row : A;
      if (Contiguous && W.Class == an::AccessClass::Broadcast && A->IndexKnown)
        Bcast = Bcast ? Bcast : A;
    }
    if (!Row && !Col && Bcast) {
      // The same row in every thread that walks it: a row of one thread of
      // the block, when a condition on the thread restricts it (planSingle).
      if (Chunks.count(L.Id))
        continue;
      if (L.TripCount && *L.TripCount < 64) {
        if (C.ShortWhy.empty())
          C.ShortWhy = formatv("the row loop over '{0}' at {1} has {2} iterations: too few to "
                               "share among the threads of a block",
                               L.Var, lineOf(L), *L.TripCount)
                           .str();
        continue;
      }
      C.Single.push_back(&L);
      continue;
    }
    if (!Row) {
      if (Col && C.ColumnWhy.empty())
        C.ColumnWhy = "the loop over '" + L.Var + "' at " + lineOf(L) + " reads '" + Col->Text +
                      "', which is already coalesced across the warp (neighbouring threads "
                      "read neighbouring elements); a warp per row would make it strided";
      continue;
    }
    if (Col) {
      if (C.ColumnWhy.empty())
        C.ColumnWhy = "the loop over '" + L.Var + "' at " + lineOf(L) + " reads '" + Row->Text +
                      "' along a row but '" + Col->Text +
                      "' down a column (coalesced now); a warp per row would make that one "
                      "strided";
      continue;
    }
    if (Chunks.count(L.Id)) {
      if (C.ChunkWhy.empty())
        C.ChunkWhy = "the loop over '" + L.Var + "' at " + lineOf(L) +
                     " is a per-thread chunk of a compile-time size: too short for a warp "
                     "(a coalesced remap of the chunk is the rewrite for it)";
      continue;
    }
    if (L.TripCount && *L.TripCount < 64) {
      if (C.ShortWhy.empty())
        C.ShortWhy = formatv("the row loop over '{0}' at {1} has {2} iterations: too few to "
                             "share among the 32 lanes of a warp",
                             L.Var, lineOf(L), *L.TripCount)
                         .str();
      continue;
    }
    C.Rows.push_back(&L);
  }
  // Keep the innermost of nested row loops.
  std::vector<const an::Loop *> Inner;
  for (const an::Loop *L : C.Rows) {
    bool HasInner = any_of(C.Rows, [&](const an::Loop *O) {
      if (O == L)
        return false;
      for (int P = O->Parent; P >= 0; P = M.Loops[P].Parent)
        if (unsigned(P) == L->Id)
          return true;
      return false;
    });
    if (!HasInner)
      Inner.push_back(L);
  }
  C.Rows = Inner;
  std::vector<const an::Loop *> InnerSingle;
  for (const an::Loop *L : C.Single)
    if (none_of(C.Single, [&](const an::Loop *O) {
          for (int P = O->Parent; O != L && P >= 0; P = M.Loops[P].Parent)
            if (unsigned(P) == L->Id)
              return true;
          return false;
        }))
      InnerSingle.push_back(L);
  C.Single = InnerSingle;
  return C;
}

/// The expression of an index helper called as C, with the call's arguments
/// for its parameters (InlineCall): the helper is one `return <expr>;` of
/// builtins, parameters and pure operations, written as plain text; the
/// arguments have no effects and read no builtins. None otherwise.
static std::optional<std::vector<InlineCall::Seg>> inlineSegments(const CallExpr *C,
                                                           const FunctionDecl *Def,
                                                           ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  const LangOptions &LO = Ctx.getLangOpts();
  const auto *Body = dyn_cast_or_null<CompoundStmt>(Def->getBody());
  const auto *Ret = Body && Body->size() == 1 ? dyn_cast<ReturnStmt>(Body->body_front()) : nullptr;
  const Expr *E = Ret ? Ret->getRetValue() : nullptr;
  if (!E || Def->isVariadic() || Def->getNumParams() != C->getNumArgs() ||
      !Def->getReturnType()->isIntegerType())
    return std::nullopt;
  auto Plain = [&](SourceRange R) {
    return R.isValid() && !R.getBegin().isMacroID() && !R.getEnd().isMacroID();
  };
  struct Reads : DynamicRecursiveASTVisitor {
    bool Found = false;
    bool VisitExpr(Expr *X) override { return !(Found |= bool(frontend::cudaBuiltin(X))); }
  };
  std::vector<std::string> Args;
  for (const Expr *A : C->arguments()) {
    Reads R;
    R.TraverseStmt(const_cast<Expr *>(A));
    if (R.Found || A->HasSideEffects(Ctx) || !Plain(A->getSourceRange()))
      return std::nullopt;
    Args.push_back("(" +
                   Lexer::getSourceText(CharSourceRange::getTokenRange(A->getSourceRange()), SM, LO)
                       .str() +
                   ")");
  }
  if (!Plain(E->getSourceRange()))
    return std::nullopt;
  // The pieces of the expression to replace: parameters and builtins, by
  // offset; anything with an effect or a call that is not a pure system
  // function refuses.
  struct Piece {
    unsigned B, E;
    std::string Text, Var;
    char Dim;
  };
  struct Scan : DynamicRecursiveASTVisitor {
    const SourceManager *SM;
    const LangOptions *LO;
    const FunctionDecl *Def;
    const std::vector<std::string> *Args;
    std::vector<Piece> Pieces;
    bool Bad = false;
    std::optional<std::pair<unsigned, unsigned>> offsets(SourceRange R) {
      if (R.getBegin().isMacroID() || R.getEnd().isMacroID())
        return std::nullopt;
      SourceLocation End = Lexer::getLocForEndOfToken(R.getEnd(), 0, *SM, *LO);
      return std::make_pair(SM->getFileOffset(R.getBegin()), SM->getFileOffset(End));
    }
    bool VisitExpr(Expr *X) override {
      if (auto B = frontend::cudaBuiltin(X)) {
        auto O = offsets(X->getSourceRange());
        if (!O)
          return !(Bad = true);
        Pieces.push_back({O->first, O->second, "", B->Var.str(), B->Dim});
        return true;
      }
      if (const auto *D = dyn_cast<DeclRefExpr>(X))
        if (const auto *P = dyn_cast<ParmVarDecl>(D->getDecl()); P && P->getDeclContext() == Def) {
          auto O = offsets(X->getSourceRange());
          if (!O)
            return !(Bad = true);
          Pieces.push_back({O->first, O->second, (*Args)[P->getFunctionScopeIndex()], "", 0});
          return true;
        }
      if (const auto *Call = dyn_cast<CallExpr>(X)) {
        const FunctionDecl *F = Call->getDirectCallee();
        if (!F || !SM->isInSystemHeader(F->getLocation()) || isThreadEffect(F->getName()))
          return !(Bad = true);
      }
      if (const auto *B = dyn_cast<BinaryOperator>(X); B && B->isAssignmentOp())
        return !(Bad = true);
      if (const auto *U = dyn_cast<UnaryOperator>(X);
          U && (U->isIncrementDecrementOp() || U->getOpcode() == UO_AddrOf))
        return !(Bad = true);
      return true;
    }
  } S;
  S.SM = &SM;
  S.LO = &LO;
  S.Def = Def;
  S.Args = &Args;
  S.TraverseStmt(const_cast<Expr *>(E));
  if (S.Bad)
    return std::nullopt;
  auto Whole = S.offsets(E->getSourceRange());
  if (!Whole)
    return std::nullopt;
  // A property reference and its semantic form cover one range: the outer.
  llvm::sort(S.Pieces, [](const Piece &A, const Piece &B) {
    return A.B != B.B ? A.B < B.B : A.E > B.E;
  });
  StringRef Src = SM.getBufferData(SM.getFileID(E->getBeginLoc()));
  std::vector<InlineCall::Seg> Segs;
  unsigned At = Whole->first;
  for (const Piece &P : S.Pieces) {
    if (P.B < At)
      continue; // nested in the previous piece
    Segs.push_back({Src.substr(At, P.B - At).str(), "", 0});
    Segs.push_back({P.Text, P.Var, P.Dim});
    At = P.E;
  }
  Segs.push_back({Src.substr(At, Whole->second - At).str(), "", 0});
  return Segs;
}

std::string CooperativeRowRule::checkKernel(const RuleInput &In, const an::KernelModel &M,
                                            Plan &P) {
  ASTContext &Ctx = In.Ctx;
  for (const an::Access &A : M.Accesses) {
    if (A.Space == an::MemorySpace::Shared)
      return "the kernel uses shared memory ('" + A.Buffer +
             "'): its threads cooperate already, and a warp per row would change who shares "
             "what";
    if (A.Space == an::MemorySpace::Unknown && A.writes())
      return "the kernel writes through '" + A.Text +
             "', a pointer the analysis cannot trace to a parameter";
  }
  struct Scan : BodyHazardScan {
    explicit Scan(ASTContext &Ctx)
        : BodyHazardScan(Ctx.getSourceManager(), "the kernel",
                         "which synchronises or communicates between threads or has effects "
                         "that a warp per row would repeat"),
          Ctx(Ctx) {}
    ASTContext &Ctx;
    std::vector<BuiltinUse> Uses;
    std::vector<const DeclRefExpr *> VarRefs;
    std::vector<SourceRange> Ranges;
    std::vector<SourceRange> InlineRanges;
    std::vector<std::vector<InlineCall::Seg>> InlineSegs;
    // An index helper called from the body: written in place of its call,
    // so that its builtins are renamed with the body's.
    bool takeCall(CallExpr *C, const FunctionDecl *Def) override {
      if (inside())
        return false;
      auto Segs = inlineSegments(C, Def, Ctx);
      if (!Segs || none_of(*Segs, [](const InlineCall::Seg &G) { return !G.Var.empty(); }))
        return false;
      InlineRanges.push_back(C->getSourceRange());
      InlineSegs.push_back(std::move(*Segs));
      return true;
    }
    bool VisitExpr(Expr *E) override {
      if (isa<ParenExpr, ImplicitCastExpr>(E))
        return true;
      auto B = frontend::cudaBuiltin(E);
      if (!B)
        return true;
      if (inside()) {
        refuse("a device function the kernel calls reads '" + B->Var.str() + "." +
               std::string(1, B->Dim) + "'");
        return true;
      }
      SourceRange R = E->getSourceRange();
      if (R.getBegin().isMacroID() || R.getEnd().isMacroID()) {
        if (B->Dim == 'x' && B->Var != "blockDim")
          refuse("'" + B->Var.str() + ".x' is written inside a macro expansion");
        return true;
      }
      Uses.push_back({0, 0, B->Var.str(), B->Dim});
      Ranges.push_back(R);
      return true;
    }
    bool VisitDeclRefExpr(DeclRefExpr *D) override {
      if (frontend::isCudaBuiltinVar(D->getDecl()))
        VarRefs.push_back(D);
      return true;
    }
  } S(Ctx);
  S.TraverseStmt(const_cast<CompoundStmt *>(P.Body));
  if (!S.Why.empty())
    return S.Why;
  EditCollector EC(In);
  for (size_t I = 0; I < S.InlineRanges.size(); ++I) {
    auto R = EC.rangeOf(S.InlineRanges[I]);
    if (!R)
      return "the call of an index helper is not plain text of the main file";
    P.Inlines.push_back({R->first, R->second, std::move(S.InlineSegs[I])});
  }
  std::set<std::pair<unsigned, unsigned>> Done;
  for (size_t I = 0; I < S.Uses.size(); ++I) {
    auto R = EC.rangeOf(S.Ranges[I]);
    if (!R)
      return "'" + S.Uses[I].Var + "." + std::string(1, S.Uses[I].Dim) +
             "' is not plain text of the main file";
    if (!Done.insert(*R).second)
      continue;
    BuiltinUse U = S.Uses[I];
    U.Begin = R->first;
    U.End = R->second;
    P.Builtins.push_back(U);
  }
  // Drop occurrences nested in others (a property reference and its
  // semantic form).
  llvm::sort(P.Builtins, [](const BuiltinUse &A, const BuiltinUse &B) {
    return A.Begin != B.Begin ? A.Begin < B.Begin : A.End > B.End;
  });
  std::vector<BuiltinUse> Flat;
  for (const BuiltinUse &U : P.Builtins)
    if (Flat.empty() || U.Begin >= Flat.back().End)
      Flat.push_back(U);
  P.Builtins = Flat;
  // threadIdx itself (a whole uint3) cannot be replaced by a component.
  for (const DeclRefExpr *D : S.VarRefs) {
    auto R = EC.rangeOf(D->getSourceRange());
    if (!R)
      continue;
    bool Covered = any_of(
        P.Builtins, [&](const BuiltinUse &U) { return U.Begin <= R->first && R->second <= U.End; });
    if (!Covered)
      return "'" + D->getDecl()->getNameAsString() + "' is used as a whole, not by its components";
  }
  return "";
}

/// An argmax or argmin over the loop, `if (e > best) { best = e; at = k; }`:
/// each lane keeps the first best of its own elements (the loop counts
/// one way, the comparison is strict), so the lanes' candidates combine
/// into the sequential result by value, then by the earlier position. The
/// position must be the loop variable (plus or minus something the loop
/// does not change) and be written nowhere else in the loop.
std::string CooperativeRowRule::checkArgUpdate(const RuleInput &In, Split &S, const VarDecl *V,
                                               const an::Reduction &R, const Writes &W) {
  ASTContext &Ctx = In.Ctx;
  const an::Loop &L = *S.L;
  std::string What = "the " + an::reductionOpName(R.Op).str() + " of '" + R.Target + "' at " +
                     lineOf(L);
  std::vector<const Expr *> Ws;
  for (const auto &[X, E] : W.Vars)
    if (X == V)
      Ws.push_back(E);
  if (Ws.size() != 1)
    return What + " assigns '" + V->getNameAsString() +
           "' more than once in the loop; the rewrite combines one update of (value, position)";
  // best = e;  inside  if (cmp) { ... }
  const Stmt *Assign = parentStmt(Ws.front(), Ctx);
  const Stmt *Then = Assign ? parentStmt(Assign, Ctx) : nullptr;
  const auto *Block = dyn_cast_or_null<CompoundStmt>(Then);
  const auto *If = dyn_cast_or_null<IfStmt>(Block ? parentStmt(Block, Ctx) : nullptr);
  if (!If || If->getThen() != Block || If->getElse() || If->getInit() ||
      If->getConditionVariable())
    return What + " is not written 'if (e > best) { best = e; position = k; }'";
  const auto *Cmp = dyn_cast<BinaryOperator>(If->getCond()->IgnoreParenImpCasts());
  if (!Cmp || (Cmp->getOpcode() != BO_GT && Cmp->getOpcode() != BO_LT))
    return What + " compares with '" + (Cmp ? Cmp->getOpcodeStr().str() : std::string("?")) +
           "': with '>=' or '<=' the last of equal values wins, and the lanes' candidates "
           "would need to know which of them came last; only a strict comparison is rewritten";
  const VarDecl *Index = nullptr;
  const Expr *At = nullptr;
  for (const Stmt *X : Block->body()) {
    const auto *A = dyn_cast<BinaryOperator>(X);
    const auto *D = A && A->getOpcode() == BO_Assign
                        ? dyn_cast<DeclRefExpr>(A->getLHS()->IgnoreParenImpCasts())
                        : nullptr;
    const auto *Var = D ? dyn_cast<VarDecl>(D->getDecl()) : nullptr;
    if (!Var)
      return What + ": its update does more than assign the value and its position ('" +
             textOf(X, Ctx) + "')";
    if (Var == V)
      continue;
    if (Index)
      return What + " keeps more than one position ('" + Index->getNameAsString() + "', '" +
             Var->getNameAsString() + "')";
    Index = Var;
    At = A->getRHS();
  }
  if (!Index)
    return What + " keeps no position";
  std::string IN = "'" + Index->getNameAsString() + "'";
  QualType IT = Index->getType();
  if (IT->isDependentType() || S.IV->getType()->isDependentType())
    return What + " keeps its position in " + IN + " of type '" + IT.getAsString() +
           "': a type that depends on a template parameter, whose width is not known here";
  if (!IT->isIntegerType() || IT->isBooleanType() ||
      Ctx.getTypeSize(IT) < Ctx.getTypeSize(S.IV->getType()))
    return What + " keeps its position in " + IN + " of type '" + IT.getAsString() +
           "', narrower than the loop variable or not an integer";
  if (referencesTo(Index, S.Body).size() != 1)
    return What + ": " + IN + " is read in the loop, where each lane would see its own";
  // The position moves with the loop variable: k, (T)k, k + e, e + k, k - e.
  // Casts to integers at least as wide as the loop variable keep the order.
  uint64_t Width = Ctx.getTypeSize(S.IV->getType());
  auto Strip = [&](const Expr *E) {
    while (true) {
      E = E->IgnoreParens();
      const auto *C = dyn_cast<CastExpr>(E);
      if (!C || !C->getType()->isIntegerType() || Ctx.getTypeSize(C->getType()) < Width)
        return E;
      E = C->getSubExpr();
    }
  };
  const Expr *P = Strip(At);
  auto IsIV = [&](const Expr *E) {
    const auto *D = dyn_cast<DeclRefExpr>(Strip(E));
    return D && D->getDecl() == S.IV;
  };
  auto Invariant = [&](const Expr *E) {
    return !E->HasSideEffects(Ctx) && none_of(W.Vars, [&](const auto &X) {
      return !referencesTo(X.first, E).empty();
    });
  };
  bool Moves = IsIV(P);
  if (const auto *B = dyn_cast<BinaryOperator>(P); !Moves && B) {
    if (B->getOpcode() == BO_Add)
      Moves = (IsIV(B->getLHS()) && Invariant(B->getRHS())) ||
              (IsIV(B->getRHS()) && Invariant(B->getLHS()));
    else if (B->getOpcode() == BO_Sub)
      Moves = IsIV(B->getLHS()) && Invariant(B->getRHS());
  }
  if (!Moves)
    return What + " keeps '" + textOf(At, Ctx) + "' as its position; the lanes' candidates are "
           "ordered by it only when it is the loop variable '" + S.IV->getNameAsString() +
           "' (plus or minus what the loop does not change)";
  S.Args.push_back({V, Index, S.Step > 0});
  return "";
}

std::string CooperativeRowRule::checkSplit(
    const RuleInput &In, const an::KernelModel &M, Split &S,
    std::vector<std::pair<const VarDecl *, const an::Reduction *>> &Accs, bool Scans) {
  ASTContext &Ctx = In.Ctx;
  const SourceManager &SM = Ctx.getSourceManager();
  const an::Loop &L = *S.L;
  std::string Where = "the row loop over '" + L.Var + "' at " + lineOf(L);
  const auto *For = dyn_cast_or_null<ForStmt>(L.S);
  const auto *While = dyn_cast_or_null<WhileStmt>(L.S);
  S.F = L.S;
  if (!For && !While)
    return Where + " is not a for or while loop";
  if (L.HasSync)
    return Where + " synchronises the block";
  if (L.HasEarlyExit)
    return Where + " may leave early (break, return or goto): its lanes could not agree "
                   "where the row ends";
  if (!L.ExtraCondText.empty())
    return Where + " also tests '" + L.ExtraCondText +
           "': an exit test besides the bound would stop each lane at a different element";
  S.Step = *L.Step->constantValue();
  S.IV = L.IV;
  if (!S.IV)
    return Where + " has no induction variable";
  const Expr *Cond = nullptr;
  if (For) {
    // The for's parts.
    const Stmt *Init = For->getInit();
    if (const auto *DS = dyn_cast_or_null<DeclStmt>(Init)) {
      if (!DS->isSingleDecl() || DS->getSingleDecl() != S.IV || !S.IV->getInit())
        return Where + " declares more than its induction variable";
      S.IVDeclared = true;
      S.Start = S.IV->getInit();
    } else if (const auto *A = dyn_cast_or_null<BinaryOperator>(Init);
               A && A->getOpcode() == BO_Assign && lvalueRoot(A->getLHS()) == S.IV &&
               isa<DeclRefExpr>(A->getLHS()->IgnoreParenImpCasts())) {
      S.Start = A->getRHS();
      // Its value after the loop would differ between lanes.
      for (const DeclRefExpr *R : referencesTo(S.IV, In.Kernel.getBody()))
        if (!isInside(R, S.F, Ctx))
          return Where + ": '" + L.Var + "' is used outside the loop (line " +
                 std::to_string(SM.getPresumedLineNumber(R->getBeginLoc())) + ")";
    } else {
      return Where + " does not start its induction variable in the for's init";
    }
    Cond = For->getCond();
    S.Inc = For->getInc();
    S.Body = For->getBody();
    if (isModified(S.IV, S.Body))
      return Where + " assigns '" + L.Var + "' in its body";
  } else {
    // `k = start; while (k < n) { ...; k++; }`: the statement right before
    // the loop starts its variable and the body's last statement steps it.
    const auto *Parent = dyn_cast_or_null<CompoundStmt>(parentStmt(While, Ctx));
    const Stmt *Prev = nullptr;
    if (Parent)
      for (const Stmt *X : Parent->body()) {
        if (X == While)
          break;
        Prev = X;
      }
    const auto *DS = dyn_cast_or_null<DeclStmt>(Prev);
    const auto *A = dyn_cast_or_null<BinaryOperator>(Prev);
    if (DS && DS->isSingleDecl() && DS->getSingleDecl() == S.IV && S.IV->getInit())
      S.Start = S.IV->getInit();
    else if (A && A->getOpcode() == BO_Assign && lvalueRoot(A->getLHS()) == S.IV &&
             isa<DeclRefExpr>(A->getLHS()->IgnoreParenImpCasts()))
      S.Start = A->getRHS();
    else
      return Where + " is a while loop, and the statement right before it does not start '" +
             L.Var + "'";
    S.StartStmt = Prev;
    // Its value after the loop would differ between lanes.
    for (const DeclRefExpr *R : referencesTo(S.IV, In.Kernel.getBody()))
      if (!isInside(R, While, Ctx) && !isInside(R, Prev, Ctx))
        return Where + ": '" + L.Var + "' is used outside the loop (line " +
               std::to_string(SM.getPresumedLineNumber(R->getBeginLoc())) + ")";
    const auto *Body = dyn_cast<CompoundStmt>(While->getBody());
    S.Inc = Body && !Body->body_empty() ? dyn_cast<Expr>(Body->body_back()) : nullptr;
    if (!S.Inc)
      return Where + " is a while loop whose body does not end by stepping '" + L.Var + "'";
    for (const Stmt *X : Body->body())
      if (X != Body->body_back() && isModified(S.IV, X))
        return Where + " assigns '" + L.Var + "' in its body before the step at its end";
    if (hasOwnContinue(Body))
      return Where + " is a while loop with 'continue', which skips the step at the end of its "
                     "body";
    Cond = While->getCond();
    S.Body = Body;
  }
  if (S.Start->HasSideEffects(Ctx))
    return Where + ": the loop's start has side effects";
  const auto *C = Cond ? dyn_cast<BinaryOperator>(Cond->IgnoreParenImpCasts()) : nullptr;
  if (!C || !C->isRelationalOp())
    return Where + " runs while '" + L.CondText +
           "': the lanes need an ordered bound (<, <=, >, >=)";
  bool IVLeft =
      lvalueRoot(C->getLHS()) == S.IV && isa<DeclRefExpr>(C->getLHS()->IgnoreParenCasts());
  bool IVRight =
      lvalueRoot(C->getRHS()) == S.IV && isa<DeclRefExpr>(C->getRHS()->IgnoreParenCasts());
  if (IVLeft == IVRight)
    return Where + " runs while '" + L.CondText + "', which does not compare '" + L.Var +
           "' with a bound";
  BinaryOperatorKind Op =
      IVLeft ? C->getOpcode() : BinaryOperator::reverseComparisonOp(C->getOpcode());
  if ((S.Step > 0) != (Op == BO_LT || Op == BO_LE))
    return Where + " runs while '" + L.CondText + "', which does not bound its step";
  if (Cond->HasSideEffects(Ctx))
    return Where + ": the loop's test has side effects";
  if (Op == BO_LT)
    S.Bound = IVLeft ? C->getRHS() : C->getLHS();
  const Expr *Inc = S.Inc;
  bool PlainInc = false;
  if (const auto *U = dyn_cast_or_null<UnaryOperator>(Inc))
    PlainInc = U->isIncrementDecrementOp() && lvalueRoot(U->getSubExpr()) == S.IV;
  else if (const auto *CA = dyn_cast_or_null<CompoundAssignOperator>(Inc))
    PlainInc = lvalueRoot(CA->getLHS()) == S.IV && !CA->getRHS()->HasSideEffects(Ctx) &&
               (CA->getOpcode() == BO_AddAssign || CA->getOpcode() == BO_SubAssign);
  else if (const auto *A = dyn_cast_or_null<BinaryOperator>(Inc))
    PlainInc = A->getOpcode() == BO_Assign && lvalueRoot(A->getLHS()) == S.IV &&
               !A->getRHS()->HasSideEffects(Ctx);
  if (!PlainInc)
    return Where + ": its increment '" + textOf(Inc, Ctx) + "' is not a plain step of '" + L.Var +
           "'";

  // What the body changes: locals declared in it, reductions over this
  // loop, and memory at one element per iteration.
  Writes W = writesIn(S.Body);
  for (const VarDecl *V : W.AddressTaken)
    if (!declaredIn(V, S.Body, SM))
      return Where + " takes the address of '" + V->getNameAsString() + "'";
  auto OverThis = [&](const VarDecl *V) -> const an::Reduction * {
    const an::Reduction *R = M.reductionOf(V);
    return R && R->Kind == an::ReductionKind::LoopCarried && is_contained(R->Loops, L.Id) ? R
                                                                                           : nullptr;
  };
  // The positions of argmax/argmin pairs first: they are written in the
  // loop without being reductions of their own.
  for (const auto &[V, E] : W.Vars)
    if (const an::Reduction *R = OverThis(V);
        R && (R->Op == an::ReductionOp::ArgMax || R->Op == an::ReductionOp::ArgMin) &&
        none_of(S.Args, [&, V = V](const Split::ArgPair &A) { return A.Value == V; }))
      if (std::string Why = checkArgUpdate(In, S, V, *R, W); !Why.empty())
        return Why;
  for (const auto &[V, E] : W.Vars) {
    if (declaredIn(V, S.Body, SM) || V == S.IV) // a while's step is its own
      continue;
    if (any_of(S.Args, [&, V = V](const Split::ArgPair &A) { return A.Index == V; }))
      continue;
    const an::Reduction *R = OverThis(V);
    if (!R && Scans && !S.Scan)
      if (std::optional<std::string> Why = checkScan(In, M, S, V)) {
        if (!Why->empty())
          return *Why;
        continue;
      }
    if (!R && S.Scan && S.Scan->V == V)
      continue;
    if (!R)
      return Where + " carries '" + V->getNameAsString() +
             "' from one iteration to the next, and it is not a reduction over this loop with "
             "an associative operator (+, *, min, max, &, |, ^)" +
             (Scans ? ", nor a running value stored at each element (a scan)" +
                          std::string(S.Scan ? " other than '" +
                                                   S.Scan->V->getNameAsString() + "'"
                                             : "")
                    : std::string());
    QualType T = V->getType();
    if (!T->isDependentType() && !T->isArithmeticType())
      return Where + " reduces into '" + V->getNameAsString() + "' of type '" + T.getAsString() +
             "', which warp shuffles do not carry";
    if (none_of(Accs, [&](const auto &X) { return X.first == V; }))
      Accs.push_back({V, R});
  }
  for (const Expr *E : W.Memory)
    if (!M.accessAt(E) && !M.accessAt(E->IgnoreParenCasts()))
      return Where + " writes through '" + textOf(E, Ctx) +
             "', which the analysis does not trace to a buffer";
  for (const an::Access *A : M.accessesIn(L)) {
    if (!A->writes())
      continue;
    if (A->Kind == an::AccessKind::Atomic)
      return Where + " updates '" + A->Text +
             "' atomically: a side effect besides the reduction, which the rewrite does not "
             "move between threads";
    an::Slope Sl = M.slopeAlongLoop(*A, L);
    auto PerIt = Sl.constant();
    if (!A->IndexKnown || !PerIt || *PerIt == 0)
      return Where + " writes '" + A->Text + "' at an element that does not move with '" + L.Var +
             "': only one element per iteration may be written (the final write of a "
             "multi-pass row)";
    S.WritesMemory = true;
    for (const an::Access *B : M.accessesIn(L))
      if (B != A && B->Base == A->Base && !(B->Index == A->Index))
        return Where + " writes '" + A->Text + "' and reads '" + B->Text +
               "' of the same buffer at another element";
  }
  // A `continue` of this loop (not of a nested one) ends one element.
  S.HasContinue = hasOwnContinue(S.Body);
  return "";
}

/// The element types a warp scan carries: float, double and 4- or 8-byte
/// integers (their identities are spelled below).
bool scanType(QualType T) {
  if (T->isDependentType())
    return false;
  const auto *B = T.getCanonicalType()->getAs<BuiltinType>();
  if (!B)
    return false;
  switch (B->getKind()) {
  case BuiltinType::Float:
  case BuiltinType::Double:
  case BuiltinType::Int:
  case BuiltinType::UInt:
  case BuiltinType::Long:
  case BuiltinType::ULong:
  case BuiltinType::LongLong:
  case BuiltinType::ULongLong:
    return true;
  default:
    return false;
  }
}

/// The variables S refers to, each once.
std::vector<const VarDecl *> varsIn(const Stmt *S) {
  struct Refs : DynamicRecursiveASTVisitor {
    std::vector<const VarDecl *> Vars;
    bool VisitDeclRefExpr(DeclRefExpr *D) override {
      if (const auto *X = dyn_cast<VarDecl>(D->getDecl()); X && !is_contained(Vars, X))
        Vars.push_back(X);
      return true;
    }
  } R;
  R.TraverseStmt(const_cast<Stmt *>(S));
  return R.Vars;
}

/// The body's statement (a direct child of Body) that contains S.
const Stmt *childOf(const Stmt *S, const Stmt *Body, ASTContext &Ctx) {
  for (const Stmt *P = S; P; P = parentStmt(P, Ctx)) {
    const Stmt *Up = parentStmt(P, Ctx);
    if (Up == Body)
      return P;
  }
  return nullptr;
}

/// A running value of the row loop that the model recognises as a serial
/// scan (PatternKind::Scan over this loop): none when it is not one (the
/// caller then says the value is carried), "" when the rewrite takes it
/// (S.Scan set), otherwise why not.
std::optional<std::string> CooperativeRowRule::checkScan(const RuleInput &In,
                                                         const an::KernelModel &M, Split &S,
                                                         const VarDecl *V) {
  ASTContext &Ctx = In.Ctx;
  const SourceManager &SM = Ctx.getSourceManager();
  const an::Loop &L = *S.L;
  const an::Pattern *Pat = nullptr;
  for (const an::Pattern *P : M.patterns(an::PatternKind::Scan))
    if (P->role("acc") == V->getName() && P->Loops.size() == 1 && P->Loops.front() == L.Id &&
        P->Accesses.size() == 1)
      Pat = P;
  if (!Pat)
    return std::nullopt;
  // A value stored at one place of the row (a debug write of the partial)
  // is not a scan of the row: the caller says it is carried.
  const an::Access &St = M.Accesses[Pat->Accesses.front()];
  auto StPerIt = M.slopeAlongLoop(St, L).constant();
  if (!St.IndexKnown || !StPerIt || *StPerIt == 0)
    return std::nullopt;
  std::string N = "'" + V->getNameAsString() + "'";
  std::string What = "the scan of " + N + " over the row loop '" + L.Var + "' at " + lineOf(L);
  auto Line = [&](const Stmt *X) {
    return "line " + std::to_string(SM.getPresumedLineNumber(X->getBeginLoc()));
  };
  std::optional<an::ReductionOp> Op;
  for (an::ReductionOp O : {an::ReductionOp::Add, an::ReductionOp::Mul, an::ReductionOp::Min,
                            an::ReductionOp::Max, an::ReductionOp::And, an::ReductionOp::Or,
                            an::ReductionOp::Xor})
    if (Pat->role("op") == an::reductionOpName(O))
      Op = O;
  if (!Op)
    return What + " combines with '" + Pat->role("op").str() +
           "'; the warp scan takes +, *, min, max, &, |, ^";
  QualType T = V->getType();
  if (!scanType(T))
    return What + " runs in type '" + T.getAsString() +
           "'; the warp scan carries float, double and 4- or 8-byte integers";
  if ((*Op == an::ReductionOp::And || *Op == an::ReductionOp::Or ||
       *Op == an::ReductionOp::Xor) &&
      !T->isIntegerType())
    return What + " combines a floating-point value with '" +
           an::reductionOpSymbol(*Op).str() + "'";
  if (S.Step != 1 || !S.Bound)
    return What + ": the lanes of a warp walk a scanned row together, 32 consecutive "
                  "elements a step, so the loop must count up by one to a '<' bound; it runs "
                  "while '" +
           L.CondText + "' stepping by " + std::to_string(S.Step);
  const auto *Body = dyn_cast<CompoundStmt>(S.Body);
  if (!Body)
    return What + ": the loop's body is not a block";
  if (hasOwnContinue(Body))
    return What + ": the loop's body has 'continue', which would skip the lanes' scan";
  // The one statement of the body that updates the value.
  Writes W = writesIn(Body);
  const Stmt *U = nullptr;
  for (const auto &[X, E] : W.Vars) {
    if (X != V)
      continue;
    const Stmt *C = childOf(E, Body, Ctx);
    if (!C)
      return What + ": an update is not part of a statement of the loop's body";
    if (U && U != C)
      return What + ": " + N + " is updated by more than one statement of the loop (" +
             Line(U) + ", " + Line(C) + "); the rewrite scans one update per element";
    U = C;
  }
  if (!U)
    return What + ": no update of " + N + " in the loop's body";
  Writes UW = writesIn(U);
  for (const auto &[X, E] : UW.Vars)
    if (X != V)
      return What + ": the statement that updates " + N + " (" + Line(U) + ") also writes '" +
             X->getNameAsString() + "'";
  if (!UW.Memory.empty())
    return What + ": the statement that updates " + N + " (" + Line(U) + ") also writes '" +
           textOf(UW.Memory.front(), Ctx) + "'";
  // Every store of the loop is at the element of the step that the running
  // value is stored at (the model's store of the scan), one element a step.
  for (const an::Access *A : M.accessesIn(L)) {
    if (!A->writes())
      continue;
    auto PerIt = M.slopeAlongLoop(*A, L).constant();
    if (A->Kind == an::AccessKind::Atomic || !A->IndexKnown || !PerIt ||
        *PerIt != 1 || !(A->Index == St.Index))
      return What + " writes '" + A->Text + "', which is not the element '" + St.Text +
             "' where the running value is stored at that step; each lane stores only at "
             "its own element of the row";
  }
  // The lanes' operands are computed where the value is first read (an
  // exclusive store reads it before the update): what the update reads may
  // not change between there and the update.
  const Stmt *First = nullptr;
  for (const Stmt *X : Body->body()) {
    if (X == U || references(X, V)) {
      First = X;
      break;
    }
  }
  std::vector<const VarDecl *> UReads = varsIn(U);
  bool Between = false;
  for (const Stmt *X : Body->body()) {
    if (X == First)
      Between = true;
    if (X == U)
      break;
    if (!Between)
      continue;
    Writes XW = writesIn(X);
    for (const VarDecl *UV : UReads) {
      if (UV == V)
        continue;
      bool Changed = any_of(XW.Vars, [&](const auto &P) { return P.first == UV; });
      if (Changed || declaredIn(UV, X, SM))
        return What + ": its update (" + Line(U) + ") reads '" + UV->getNameAsString() +
               "', which " + Line(X) + " before it " + (Changed ? "changes" : "declares") +
               ", after " + N + " is first read; the lanes' scan needs the operands there";
    }
    for (const an::Access *A : M.accessesIn(L))
      if (A->E && isInside(A->E, U, Ctx) && !A->writes())
        for (const an::Access *B : M.accessesIn(L))
          if (B->writes() && B->E && isInside(B->E, X, Ctx) && B->Base == A->Base)
            return What + ": its update (" + Line(U) + ") reads '" + A->Text + "', which " +
                   Line(X) + " before it writes";
  }
  Split::ScanInfo SI;
  SI.V = V;
  SI.Op = *Op;
  SI.Update = U;
  SI.First = First;
  SI.Order = Pat->role("order").str();
  S.Scan = SI;
  return std::string();
}

/// The CUDA vector type of 16 bytes for an element type, and its width.
std::optional<std::pair<std::string, unsigned>> vectorTypeOf(QualType T) {
  T = T.getCanonicalType().getUnqualifiedType();
  const auto *B = T->getAs<BuiltinType>();
  if (!B)
    return std::nullopt;
  switch (B->getKind()) {
  case BuiltinType::Float:
    return std::make_pair(std::string("float4"), 4u);
  case BuiltinType::Int:
    return std::make_pair(std::string("int4"), 4u);
  case BuiltinType::UInt:
    return std::make_pair(std::string("uint4"), 4u);
  case BuiltinType::Double:
    return std::make_pair(std::string("double2"), 2u);
  case BuiltinType::LongLong:
    return std::make_pair(std::string("longlong2"), 2u);
  case BuiltinType::ULongLong:
    return std::make_pair(std::string("ulonglong2"), 2u);
  default:
    return std::nullopt;
  }
}

void CooperativeRowRule::planVectors(const RuleInput &In, const an::KernelModel &M, Split &S) {
  ASTContext &Ctx = In.Ctx;
  const an::Loop &L = *S.L;
  auto No = [&](std::string Why) {
    S.V = 0;
    S.Vec.clear();
    S.NoVecWhy = std::move(Why);
  };
  if (S.Step != 1 || !S.Bound)
    return No("the loop does not count up to a '<' bound by one");
  if (!S.IVDeclared)
    return No("the induction variable is declared outside the loop");
  if (S.HasContinue)
    return No("the loop body has 'continue'");
  if (S.Bound->HasSideEffects(Ctx))
    return No("the bound has side effects");
  // The vector copies of the body rewrite every use of the loop variable
  // and every vectorised access: each must have text to rewrite (plain
  // text, a whole macro invocation, or a macro argument expanded once:
  // EditCollector::rangeOf), none inside a macro's body (the scalar loop
  // only rewrites the loop's header).
  EditCollector EC(In);
  auto InMacro = [&](const Stmt *X) {
    if (!X->getBeginLoc().isMacroID() && !X->getEndLoc().isMacroID())
      return false;
    return isa<Expr>(X) ? !EC.rangeOf(X->getSourceRange()) : !EC.rangeOfStatement(X);
  };
  if (InMacro(S.Body) || InMacro(S.Bound) || InMacro(S.Start) ||
      any_of(referencesTo(S.IV, S.Body), InMacro))
    return No("the loop variable is used inside a macro");
  // The contiguous accesses that can be moved as vectors: unconditional
  // ones make the groups (their vector load is safe to issue); a
  // conditional load of the same element then reads the component too.
  struct Cand {
    const an::Access *A;
    const Expr *Addr;
    bool Ldg, Store, Conditional;
    std::pair<std::string, unsigned> VT;
    std::string Elem;
  };
  std::vector<Cand> Cands;
  for (const an::Access *A : M.accessesIn(L)) {
    if (A->Space != an::MemorySpace::Global || !A->E || A->Loops.empty() ||
        A->Loops.back() != L.Id || !A->IndexKnown || InMacro(A->E))
      continue;
    auto PerIt = M.slopeAlongLoop(*A, L).constant();
    if (!PerIt || *PerIt != 1 || A->Kind == an::AccessKind::Atomic)
      continue;
    bool Conditional = any_of(
        A->G.Terms, [&](const an::GuardTerm &T) { return T.Cond && isInside(T.Cond, S.F, Ctx); });
    const Expr *E = A->E;
    const Expr *Addr = nullptr;
    bool Ldg = false;
    if (const auto *Call = dyn_cast<CallExpr>(E)) {
      if (A->Callee != "__ldg" || Call->getNumArgs() != 1)
        continue;
      Ldg = true;
      Addr = Call->getArg(0);
    } else if (isa<ArraySubscriptExpr>(E) ||
               (isa<UnaryOperator>(E) && cast<UnaryOperator>(E)->getOpcode() == UO_Deref)) {
      Addr = E;
    } else {
      continue;
    }
    QualType ET = E->getType();
    if (ET.isVolatileQualified())
      continue;
    auto VT = vectorTypeOf(ET);
    if (!VT)
      continue;
    bool IsStore = A->writes();
    if (IsStore) {
      if (Ldg)
        return No("a store through __ldg");
      // A plain assignment directly in the loop body: every component of
      // the vector is then written.
      const Stmt *Parent = nullptr;
      const Stmt *St = statementOf(E, Ctx, Parent);
      const auto *Asg = dyn_cast<BinaryOperator>(St);
      bool Direct = Parent == S.Body || St == S.Body;
      if (Conditional || !Direct || !Asg || !Asg->isAssignmentOp() ||
          Asg->getLHS()->IgnoreParens() != E)
        continue;
    }
    Cands.push_back({A, Addr, Ldg, IsStore, Conditional, *VT, typeSpelling(ET, Ctx)});
  }
  std::map<std::string, size_t> ByKey;
  for (bool Pass : {false, true})
    for (const Cand &C : Cands) {
      if (C.Conditional != Pass)
        continue;
      const an::Access *A = C.A;
      std::string Key = A->Buffer + "@" + M.render(A->Index);
      auto It = ByKey.find(Key);
      if (It == ByKey.end()) {
        if (C.Conditional)
          continue;
        if (S.V == 0)
          S.V = C.VT.second;
        if (C.VT.second != S.V)
          continue;
        VecGroup G;
        G.First = A;
        G.VecType = C.VT.first;
        G.Elem = C.Elem;
        G.Address = C.Addr;
        G.Ldg = C.Ldg;
        It = ByKey.emplace(Key, S.Vec.size()).first;
        S.Vec.push_back(G);
      }
      VecGroup &G = S.Vec[It->second];
      if (G.VecType != C.VT.first)
        continue;
      G.Exprs.push_back(A->E);
      (C.Store ? G.Store : G.Load) = true;
      if (A->Kind == an::AccessKind::ReadModifyWrite)
        G.Load = true;
    }
  // Only the groups of row accesses are worth a vector; a vector of a
  // buffer that is also accessed elsewhere in the loop at another index is
  // fine (reads), but a written group must hold every access to its
  // buffer in the loop.
  for (const VecGroup &G : S.Vec)
    if (G.Store)
      for (const an::Access *A : M.accessesIn(L))
        if (A->Base == G.First->Base && !is_contained(G.Exprs, A->E))
          return No("'" + G.First->Buffer + "' is also accessed in the loop outside the vector");
  if (S.Vec.empty())
    return No("no contiguous access of a 4- or 8-byte arithmetic type is unconditional in "
              "the loop");
  bool AnyLoad = any_of(S.Vec, [](const VecGroup &G) { return G.Load || G.Store; });
  if (!AnyLoad)
    return No("nothing to move");
  if (S.Scan) {
    // The operands of a step's elements are computed before its copies of
    // the body: the update may read only what is the same throughout the
    // step, the loop variable, and elements moved as vectors (or of buffers
    // that the loop does not write).
    const SourceManager &SM = Ctx.getSourceManager();
    const Stmt *U = S.Scan->Update;
    Writes BW = writesIn(S.Body);
    for (const VarDecl *X : varsIn(U)) {
      if (X == S.Scan->V || X == S.IV)
        continue;
      if (declaredIn(X, S.Body, SM) ||
          any_of(BW.Vars, [&](const auto &P) { return P.first == X; }))
        return No("the scan's update reads '" + X->getNameAsString() +
                  "', which the loop's body sets; the operands of a step are computed before "
                  "its elements' copies of the body");
    }
    for (const an::Access *A : M.accessesIn(L)) {
      if (!A->E || !isInside(A->E, U, Ctx))
        continue;
      bool Moved = any_of(S.Vec, [&](const VecGroup &G) { return is_contained(G.Exprs, A->E); });
      bool Written = any_of(M.accessesIn(L), [&](const an::Access *B) {
        return B->writes() && B->Base == A->Base;
      });
      if (!Moved && Written)
        return No("the scan's update reads '" + A->Text +
                  "', which the loop writes, and not as a vector");
    }
  }
}

std::string CooperativeRowRule::planWrites(const RuleInput &In, const an::KernelModel &M, Plan &P,
                                           function_ref<bool(const Stmt *)> InScope) {
  ASTContext &Ctx = In.Ctx;
  auto InSplit = [&](const Stmt *E) -> const Split * {
    for (const Split &S : P.Splits)
      if (isInside(E, S.F, Ctx))
        return &S;
    return nullptr;
  };
  std::set<const ValueDecl *> WrittenOutside, WrittenInside;
  for (const an::Access &A : M.Accesses) {
    if (!A.writes() || !A.E || (InScope && !InScope(A.E)))
      continue;
    if (InSplit(A.E)) {
      WrittenInside.insert(A.Base);
      continue;
    }
    WrittenOutside.insert(A.Base);
    const Stmt *Parent = nullptr;
    const Stmt *St = statementOf(A.E, Ctx, Parent);
    if (!Parent || isa<DeclStmt>(Parent) || isa<ReturnStmt>(Parent))
      return "the write '" + A.Text + "' is part of a declaration";
    const auto *If = dyn_cast<IfStmt>(Parent);
    const auto *For = dyn_cast<ForStmt>(Parent);
    const auto *While = dyn_cast<WhileStmt>(Parent);
    const auto *Do = dyn_cast<DoStmt>(Parent);
    bool IsBody =
        isa<CompoundStmt>(Parent) || (If && (If->getThen() == St || If->getElse() == St)) ||
        (For && For->getBody() == St) || (While && While->getBody() == St) ||
        (Do && Do->getBody() == St) || isa<LabelStmt>(Parent) || isa<AttributedStmt>(Parent);
    if (!IsBody)
      return "the write '" + A.Text + "' is part of a condition or a loop header";
    if (A.Kind == an::AccessKind::Atomic && St != A.E &&
        (!isa<Expr>(St) || cast<Expr>(St)->IgnoreParenCasts() != A.E))
      return "the result of the atomic '" + A.Text +
             "' is used: one lane makes the update, and the others would need its result";
    if (!is_contained(P.Wraps, St))
      P.Wraps.push_back(St);
  }
  for (const ValueDecl *B : WrittenOutside)
    if (WrittenInside.count(B))
      return "'" + B->getNameAsString() +
             "' is written both inside a row loop (by every lane) and outside (by one)";
  // A buffer written outside the row loops is written by lane 0 only; no
  // other statement may read it, since the other lanes would not see it.
  // A read before every write of the buffer, outside any loop, of the very
  // element the writes store (`float acc = y[r]; ...; y[r] = acc;`) reads
  // what every lane of the row reads alike: nothing has written it yet.
  const SourceManager &SM = Ctx.getSourceManager();
  auto ReadFirst = [&](const an::Access &R) {
    if (R.Kind != an::AccessKind::Load || !R.Loops.empty() || !R.IndexKnown)
      return false;
    for (const an::Access &W : M.Accesses)
      if (W.Base == R.Base && W.writes() &&
          (!W.E || W.Index != R.Index ||
           !SM.isBeforeInTranslationUnit(R.E->getEndLoc(), W.E->getBeginLoc())))
        return false;
    return true;
  };
  for (const an::Access &A : M.Accesses) {
    if (!A.Base || !WrittenOutside.count(A.Base) || !A.E || (InScope && !InScope(A.E)))
      continue;
    const Stmt *Parent = nullptr;
    const Stmt *St = statementOf(A.E, Ctx, Parent);
    if (!is_contained(P.Wraps, St) && !ReadFirst(A))
      return "'" + A.Buffer +
             "' is written outside the row loops (by one lane of the warp) "
             "and read by '" +
             A.Text + "', which every lane runs";
  }
  return "";
}

std::string
CooperativeRowRule::planCombines(const RuleInput &In, const an::KernelModel &M, Plan &P,
                                 ArrayRef<std::pair<const VarDecl *, const an::Reduction *>> Accs) {
  ASTContext &Ctx = In.Ctx;
  for (const auto &[V, R] : Accs) {
    // The loops the reduction runs over that contain a split loop it
    // updates: the outermost is where the lanes' partials are complete.
    for (const Split &S : P.Splits) {
      if (!is_contained(R->Loops, S.L->Id))
        continue;
      const Stmt *After = S.F;
      for (unsigned LId : R->Loops) {
        const an::Loop &O = M.Loops[LId];
        if (O.S && O.S != S.F && isInside(S.F, O.S, Ctx) &&
            (After == S.F || isInside(After, O.S, Ctx)))
          After = O.S;
      }
      // Between the reset and the combine only the lanes' shares may be
      // added: an update outside the split loops would be counted once per
      // lane (harmless for max, min, &, |).
      if (After != S.F && !idempotent(R->Op))
        for (const auto &[W, E] : writesIn(After).Vars)
          if (W == V &&
              none_of(P.Splits, [&, E = E](const Split &X) { return isInside(E, X.F, Ctx); }))
            return "'" + V->getNameAsString() + "' is also updated outside the row loop (line " +
                   std::to_string(Ctx.getSourceManager().getPresumedLineNumber(E->getBeginLoc())) +
                   "), which every lane of the warp would repeat";
      Combine *C = nullptr;
      for (Combine &X : P.Combines)
        if (X.After == After)
          C = &X;
      if (!C) {
        P.Combines.push_back({After, {}});
        C = &P.Combines.back();
      }
      if (any_of(C->Accs, [&](const AccInfo &A) { return A.V == V; }))
        continue;
      AccInfo A;
      A.V = V;
      A.Op = R->Op;
      for (const Split::ArgPair &X : S.Args)
        if (X.Value == V) {
          A.Index = X.Index;
          A.LowerFirst = X.LowerFirst;
        }
      if (A.Index && After != S.F)
        return "the " + an::reductionOpName(R->Op).str() + " of '" + V->getNameAsString() +
               "' also runs over an outer loop, where its position '" +
               A.Index->getNameAsString() + "' no longer orders the candidates";
      if (!idempotent(R->Op)) {
        // Lane 0 keeps the value from before the loop; the others start
        // from the identity, unless the accumulator is declared with it
        // just before.
        A.Reset = true;
        const Stmt *Parent = parentStmt(After, Ctx);
        if (const auto *CS = dyn_cast_or_null<CompoundStmt>(Parent)) {
          // Walk back from After to V's declaration.
          std::vector<const Stmt *> Before;
          for (const Stmt *X : CS->body()) {
            if (X == After)
              break;
            Before.push_back(X);
          }
          for (auto It = Before.rbegin(); It != Before.rend(); ++It) {
            const auto *DS = dyn_cast<DeclStmt>(*It);
            bool Declares = DS && any_of(DS->decls(), [&](const Decl *D) { return D == V; });
            if (Declares) {
              auto Val = literalValue(V->getInit(), Ctx);
              A.Reset = !(Val && *Val == (R->Op == an::ReductionOp::Mul ? 1.0 : 0.0));
              break;
            }
            if (references(*It, V))
              break;
          }
        }
      }
      C->Accs.push_back(A);
    }
  }
  return "";
}

//===----------------------------------------------------------------------===//
// A row that one thread of a block walks
//===----------------------------------------------------------------------===//

/// S is `return;` (or `{ return; }`); Other is set for `continue`/`break`.
static bool exitsOnly(const Stmt *S, bool &Other) {
  if (const auto *CS = dyn_cast_or_null<CompoundStmt>(S))
    S = CS->size() == 1 ? CS->body_front() : nullptr;
  if (!S)
    return false;
  if (const auto *R = dyn_cast<ReturnStmt>(S))
    return !R->getRetValue();
  Other = isa<ContinueStmt, BreakStmt>(S);
  return Other;
}

/// The condition under which a guard `if (C)` lets a thread through: C, or
/// for an early exit `if (C) return;` its negation.
static std::string holdsText(const Expr *C, bool Negate, ASTContext &Ctx) {
  const Expr *E = C->IgnoreParenImpCasts();
  if (!Negate)
    return textOf(C, Ctx);
  if (const auto *U = dyn_cast<UnaryOperator>(E); U && U->getOpcode() == UO_LNot)
    return textOf(U->getSubExpr(), Ctx);
  if (const auto *B = dyn_cast<BinaryOperator>(E); B && B->isComparisonOp())
    return textOf(B->getLHS(), Ctx) + " " +
           BinaryOperator::getOpcodeStr(BinaryOperator::negateComparisonOp(B->getOpcode())).str() +
           " " + textOf(B->getRHS(), Ctx);
  // `a || b` fails where both fail.
  if (const auto *B = dyn_cast<BinaryOperator>(E); B && B->getOpcode() == BO_LOr) {
    return holdsText(B->getLHS(), true, Ctx) + " && " + holdsText(B->getRHS(), true, Ctx);
  }
  if (isa<DeclRefExpr, MemberExpr, CallExpr, ArraySubscriptExpr>(E))
    return "!" + textOf(E, Ctx);
  return "!(" + textOf(C, Ctx) + ")";
}

/// The truth of C in thread 0 of a block (threadIdx = 0 in every
/// dimension), from the model's index forms; none when it depends on more
/// than the thread (`threadIdx.x == blockDim.x - 1`) or is not a form.
static std::optional<bool> atThreadZero(const Expr *C, an::KernelModel &M) {
  C = C->IgnoreParenImpCasts();
  if (const auto *U = dyn_cast<UnaryOperator>(C); U && U->getOpcode() == UO_LNot) {
    auto V = atThreadZero(U->getSubExpr(), M);
    return V ? std::optional<bool>(!*V) : std::nullopt;
  }
  auto AtZero = [&](an::IndexForm F) -> std::optional<int64_t> {
    if (F.overflowed())
      return std::nullopt;
    for (char D : {'x', 'y', 'z'})
      if (auto A = M.atoms().findBuiltin("threadIdx", D))
        F = F.withoutAtom(*A);
    return F.constantValue();
  };
  if (const auto *B = dyn_cast<BinaryOperator>(C); B && B->isComparisonOp()) {
    if (!B->getLHS()->getType()->isIntegerType() || !B->getRHS()->getType()->isIntegerType())
      return std::nullopt;
    auto D = AtZero(M.formOf(B->getLHS()) - M.formOf(B->getRHS()));
    if (!D)
      return std::nullopt;
    switch (B->getOpcode()) {
    case BO_EQ:
      return *D == 0;
    case BO_NE:
      return *D != 0;
    case BO_LT:
      return *D < 0;
    case BO_LE:
      return *D <= 0;
    case BO_GT:
      return *D > 0;
    case BO_GE:
      return *D >= 0;
    default:
      return std::nullopt;
    }
  }
  if (!C->getType()->isIntegerType())
    return std::nullopt;
  auto V = AtZero(M.formOf(C));
  return V ? std::optional<bool>(*V != 0) : std::nullopt;
}

std::string CooperativeRowRule::findGuard(const RuleInput &In, an::KernelModel &M,
                                          const an::Loop &L, Plan &P) {
  ASTContext &Ctx = In.Ctx;
  const SourceManager &SM = Ctx.getSourceManager();
  std::string Where = "the row loop over '" + L.Var + "' at " + lineOf(L);
  auto LineOf = [&](const Stmt *S) {
    return "line " + std::to_string(SM.getPresumedLineNumber(S->getBeginLoc()));
  };
  // The conditions on the way to the loop that differ between the threads
  // of a block (the model's uniformity), and the enclosing loops.
  struct Found {
    const IfStmt *If;
    bool Exits, InElse, OtherExit;
  };
  std::vector<Found> Fs;
  const Stmt *Prev = L.S;
  for (const Stmt *Par = parentStmt(Prev, Ctx); Par; Prev = Par, Par = parentStmt(Par, Ctx)) {
    if (const auto *If = dyn_cast<IfStmt>(Par)) {
      if (Prev != If->getCond() && !M.isUniform(If->getCond(), an::Uniformity::BlockUniform))
        Fs.push_back({If, false, Prev == If->getElse(), false});
    } else if (const auto *CS = dyn_cast<CompoundStmt>(Par)) {
      for (const Stmt *X : CS->body()) {
        if (X == Prev)
          break;
        const auto *If = dyn_cast<IfStmt>(X);
        bool Other = false;
        if (If && !If->getElse() && exitsOnly(If->getThen(), Other) &&
            !M.isUniform(If->getCond(), an::Uniformity::BlockUniform))
          Fs.push_back({If, true, false, Other});
      }
    }
    for (const an::Loop &O : M.Loops)
      if (O.S == Par && !O.TripUniform.atLeast(an::Uniformity::BlockUniform))
        return Where + " is inside the loop at " + lineOf(O) +
               ", whose trip count differs between the threads of a block (" +
               O.TripUniform.Reason + "): they could not meet at the barriers of the combine";
    if (Par == P.Body)
      break;
  }
  if (Fs.empty())
    return Where + " reads the same row in every thread of the block (its accesses are "
                   "broadcast) and no condition on the thread picks one thread to walk it: "
                   "every thread repeats the whole row";
  if (Fs.size() > 1)
    return Where + " runs under more than one condition that differs between threads ('" +
           textOf(Fs[0].If->getCond(), Ctx) + "' at " + LineOf(Fs[0].If) + ", '" +
           textOf(Fs[1].If->getCond(), Ctx) + "' at " + LineOf(Fs[1].If) +
           "): the rewrite lifts one guard over the block";
  const Found &F = Fs.front();
  std::string GuardText = "'" + textOf(F.If->getCond(), Ctx) + "' at " + LineOf(F.If);
  if (P.Guard && P.Guard != F.If)
    return "the row loops run under different conditions on the thread (" + GuardText + " and '" +
           textOf(P.Guard->getCond(), Ctx) + "'): the rewrite lifts one guard over the block";
  if (F.InElse || (!F.Exits && F.If->getElse()))
    return Where + " is guarded by " + GuardText +
           ", which has an else branch: the other threads run it, and the block's threads "
           "could not all join the row";
  if (F.If->getInit() || F.If->getConditionVariable())
    return "the guard " + GuardText + " declares a variable";
  if (F.Exits && (F.OtherExit || parentStmt(F.If, Ctx) != P.Body))
    return "the early exit under " + GuardText +
           " is not a 'return' at the top level of the kernel: the rewrite moves the threads "
           "it stops into the row, and cannot tell where they would have gone";
  // Every term of the loop's guard (the model's) that differs between the
  // threads of a block must be this condition (or a flag it reads).
  auto Belongs = [&](const Expr *C) {
    if (isInside(C, F.If->getCond(), Ctx))
      return true;
    struct Refs : DynamicRecursiveASTVisitor {
      std::vector<const VarDecl *> Vs;
      bool VisitDeclRefExpr(DeclRefExpr *D) override {
        if (const auto *V = dyn_cast<VarDecl>(D->getDecl()))
          Vs.push_back(V);
        return true;
      }
    } R;
    R.TraverseStmt(const_cast<Expr *>(F.If->getCond()));
    return any_of(R.Vs, [&](const VarDecl *V) {
      return V->getInit() && isInside(C, V->getInit(), Ctx);
    });
  };
  for (const an::GuardTerm &T : M.guardOf(L.S).Terms)
    if (!T.Uniform.atLeast(an::Uniformity::BlockUniform) && T.Cond && !Belongs(T.Cond))
      return Where + " also runs under '" + T.Text +
             "', which differs between the threads of a block (" + T.Uniform.Reason + ")";
  if (P.Guard)
    return "";
  // The condition's parts (the conjuncts of an if, the disjuncts of an
  // exit): those the same in the whole block stay; the others are lifted,
  // and thread 0 of every block must pass them, so that the block runs the
  // region only where one of its threads ran it before.
  std::vector<const Expr *> Parts;
  std::function<void(const Expr *)> Flatten = [&](const Expr *E) {
    const auto *B = dyn_cast<BinaryOperator>(E->IgnoreParenImpCasts());
    if (B && B->getOpcode() == (F.Exits ? BO_LOr : BO_LAnd)) {
      Flatten(B->getLHS());
      Flatten(B->getRHS());
      return;
    }
    Parts.push_back(E);
  };
  Flatten(F.If->getCond());
  EditCollector EC(In);
  for (const Expr *X : Parts) {
    if (M.isUniform(X, an::Uniformity::BlockUniform)) {
      auto R = EC.rangeOf(X->getSourceRange());
      if (!R)
        return "the guard " + GuardText + " is written inside a macro";
      P.GuardKept.push_back(In.Source.substr(R->first, R->second - R->first).str());
      continue;
    }
    auto Zero = atThreadZero(X, M);
    if (!Zero || *Zero == F.Exits)
      return "the guard " + GuardText + " tests '" + textOf(X, Ctx) +
             "', which the model cannot show thread 0 of every block to pass: lifted, it "
             "could make a block walk a row that none of its threads walked";
  }
  P.Guard = F.If;
  P.GuardExits = F.Exits;
  P.GuardHolds = holdsText(F.If->getCond(), F.Exits, Ctx);
  if (F.Exits) {
    bool After = false;
    for (const Stmt *X : P.Body->body()) {
      if (After)
        P.Region.push_back(X);
      After |= X == F.If;
    }
  } else {
    P.Region.push_back(F.If->getThen());
  }
  return "";
}

std::string CooperativeRowRule::checkRegion(const RuleInput &In, const an::KernelModel &M,
                                            Plan &P) {
  ASTContext &Ctx = In.Ctx;
  const SourceManager &SM = Ctx.getSourceManager();
  auto Line = [&](const Stmt *S) {
    return "line " + std::to_string(SM.getPresumedLineNumber(S->getBeginLoc()));
  };
  struct Scan : BodyHazardScan {
    Scan(const an::KernelModel &M, const SourceManager &SM)
        : BodyHazardScan(SM, "the guarded region",
                         "which synchronises or communicates between threads or has an effect "
                         "that every thread of the block would repeat"),
          M(M) {}
    const an::KernelModel &M;
    std::function<bool(const VarDecl *)> DeclaredInRegion;
    std::function<std::string(const Stmt *)> Line;
    std::set<std::string> Declared;
    bool VisitVarDecl(VarDecl *V) override {
      if (!inside())
        Declared.insert(V->getNameAsString());
      return BodyHazardScan::VisitVarDecl(V);
    }
    bool VisitExpr(Expr *E) override {
      if (isa<ParenExpr, ImplicitCastExpr>(E))
        return true;
      auto B = frontend::cudaBuiltin(E);
      if (B && B->Var == "threadIdx")
        refuse(std::string(inside() ? "a device function the guarded region calls"
                                    : "the guarded region") +
               " reads 'threadIdx." + std::string(1, B->Dim) + "' (" + Line(E) +
               "): the block's threads, which all run it now, would compute different values");
      return true;
    }
    bool VisitDeclRefExpr(DeclRefExpr *D) override {
      const auto *V = dyn_cast<VarDecl>(D->getDecl());
      if (inside() || !V || !V->hasLocalStorage() || isa<ParmVarDecl>(V) || DeclaredInRegion(V))
        return true;
      // A local from before the region: the same in every thread of the block.
      if (!M.isUniform(D, an::Uniformity::BlockUniform))
        refuse("the guarded region reads '" + V->getNameAsString() + "' (" + Line(D) +
               "), which differs between the threads of a block (" + M.uniformity(D).Reason +
               "): they would not walk the same row");
      return true;
    }
  } S(M, SM);
  S.DeclaredInRegion = [&](const VarDecl *V) {
    return any_of(P.Region, [&](const Stmt *R) { return declaredIn(V, R, SM); });
  };
  S.Line = Line;
  for (const Stmt *R : P.Region)
    S.TraverseStmt(const_cast<Stmt *>(R));
  if (!S.Why.empty())
    return S.Why;
  // The writes keep the guard's text: its names must mean the same inside.
  for (const DeclRefExpr *D : [&] {
         std::vector<const DeclRefExpr *> Ds;
         struct Refs : DynamicRecursiveASTVisitor {
           std::vector<const DeclRefExpr *> *Out;
           bool VisitDeclRefExpr(DeclRefExpr *D) override { return Out->push_back(D), true; }
         } R;
         R.Out = &Ds;
         R.TraverseStmt(const_cast<Expr *>(P.Guard->getCond()));
         return Ds;
       }())
    if (S.Declared.count(D->getDecl()->getNameAsString()))
      return "the guarded region declares its own '" + D->getDecl()->getNameAsString() +
             "', which would hide the one the guard '" + textOf(P.Guard->getCond(), Ctx) +
             "' reads";
  return "";
}

Expected<Plan> CooperativeRowRule::planSingle(const RuleInput &In, an::KernelModel &M,
                                              const Candidates &C) {
  ASTContext &Ctx = In.Ctx;
  const SourceManager &SM = Ctx.getSourceManager();
  Plan P;
  P.Body = kernelBody(In.Kernel);
  if (!P.Body)
    return createStringError("the kernel has no body");
  P.Single = true;
  for (const an::Loop *L : C.Single)
    if (std::string Why = findGuard(In, M, *L, P); !Why.empty())
      return createStringError(Why);
  auto InRegion = [&](const Stmt *S) {
    return any_of(P.Region, [&](const Stmt *R) { return isInside(S, R, Ctx); });
  };
  auto Line = [&](const Stmt *S) {
    return "line " + std::to_string(SM.getPresumedLineNumber(S->getBeginLoc()));
  };
  if (std::string Why = checkRegion(In, M, P); !Why.empty())
    return createStringError(Why);
  std::vector<std::pair<const VarDecl *, const an::Reduction *>> Accs;
  for (const an::Loop *L : C.Single) {
    Split S;
    S.L = L;
    if (std::string Why = checkSplit(In, M, S, Accs); !Why.empty())
      return createStringError(Why);
    if (S.WritesMemory)
      for (const an::Access *A : M.accessesIn(*L))
        if (A->writes())
          return createStringError(
              "the row loop over '%s' at %s writes '%s': the block's threads would share a row "
              "that is written as it is walked; only rows that are read are shared",
              L->Var.c_str(), lineOf(*L).c_str(), A->Text.c_str());
    planVectors(In, M, S);
    P.Splits.push_back(std::move(S));
  }
  if (std::string Why = planWrites(In, M, P, InRegion); !Why.empty())
    return createStringError(Why);
  // Variables that are memory (a __shared__ scalar) written in the region
  // are written by the guard's threads, like the buffers; locals from
  // before it that it changes are not read after it (the other threads
  // would see their own).
  std::set<const VarDecl *> MemVars;
  for (const Stmt *R : P.Region)
    for (const auto &[V, E] : writesIn(R).Vars) {
      if (V->hasLocalStorage()) {
        if (declaredIn(V, R, SM))
          continue;
        for (const DeclRefExpr *D : referencesTo(V, P.Body))
          if (!InRegion(D))
            return createStringError(
                "'%s' is computed in the guarded region and read outside it (%s), where the "
                "threads the guard stops hold their own value",
                V->getNameAsString().c_str(), Line(D).c_str());
        continue;
      }
      const Stmt *Parent = nullptr;
      const Stmt *St = statementOf(E, Ctx, Parent);
      if (any_of(P.Splits, [&](const Split &S) { return isInside(E, S.F, Ctx); }))
        return createStringError("the row loop writes '%s' (%s)", V->getNameAsString().c_str(),
                                 Line(E).c_str());
      if (!Parent || !(isa<CompoundStmt>(Parent) || isa<IfStmt>(Parent)) ||
          isa<DeclStmt>(St) || (isa<IfStmt>(Parent) && cast<IfStmt>(Parent)->getCond() == St))
        return createStringError("the write of '%s' (%s) is part of a declaration or a "
                                 "condition",
                                 V->getNameAsString().c_str(), Line(E).c_str());
      MemVars.insert(V);
      if (!is_contained(P.Wraps, St))
        P.Wraps.push_back(St);
    }
  for (const VarDecl *V : MemVars)
    for (const DeclRefExpr *D : referencesTo(V, P.Body))
      if (InRegion(D) && none_of(P.Wraps, [&](const Stmt *W) { return isInside(D, W, Ctx); }))
        return createStringError("'%s' is written in the guarded region by the guard's threads "
                                 "and read there by '%s' (%s), which every thread runs now",
                                 V->getNameAsString().c_str(), textOf(D, Ctx).c_str(),
                                 Line(D).c_str());
  if (std::string Why = planCombines(In, M, P, Accs); !Why.empty())
    return createStringError(Why);
  for (const auto &[V, R] : Accs)
    if (none_of(P.Combines, [&, V = V](const Combine &X) {
          return any_of(X.Accs, [&](const AccInfo &A) { return A.V == V; });
        }))
      return createStringError("internal: no combine point for '%s'", V->getNameAsString().c_str());

  // The other threads and the region: memory the region writes and others
  // read, or others write and the region reads, needs a __syncthreads()
  // between them in the block the guard sits in (the original needed it
  // too: otherwise it read what the guard's thread had not written yet).
  std::set<const void *> Written, Read;
  for (const an::Access &A : M.Accesses)
    if (A.E && A.Base && InRegion(A.E))
      (A.writes() ? Written : Read).insert(A.Base);
  for (const VarDecl *V : MemVars)
    Written.insert(V);
  for (const Stmt *R : P.Region) {
    struct Refs : DynamicRecursiveASTVisitor {
      std::set<const void *> *Read;
      bool VisitDeclRefExpr(DeclRefExpr *D) override {
        if (const auto *V = dyn_cast<VarDecl>(D->getDecl()); V && !V->hasLocalStorage())
          Read->insert(V);
        return true;
      }
    } X;
    X.Read = &Read;
    X.TraverseStmt(const_cast<Stmt *>(R));
  }
  const auto *Outer = dyn_cast_or_null<CompoundStmt>(parentStmt(P.Guard, Ctx));
  auto Separated = [&](const Stmt *X) {
    if (!Outer)
      return false;
    const Stmt *XA = nullptr;
    for (const Stmt *Q = X; Q; Q = parentStmt(Q, Ctx))
      if (parentStmt(Q, Ctx) == Outer) {
        XA = Q;
        break;
      }
    if (!XA || XA == P.Guard)
      return false;
    bool Between = false, Sync = false;
    for (const Stmt *Y : Outer->body()) {
      if (Y == P.Guard || Y == XA) {
        if (Between)
          break;
        Between = true;
        continue;
      }
      if (Between && isSyncStmt(Y))
        Sync = true;
    }
    return Sync;
  };
  auto Check = [&](const Stmt *X, const void *Base, StringRef Name, bool Writes) -> std::string {
    if (InRegion(X) || isInside(X, P.Guard->getCond(), Ctx))
      return "";
    bool Conflict = Written.count(Base) || (Writes && Read.count(Base));
    if (!Conflict || Separated(X))
      return "";
    return "'" + Name.str() + "' is " + (Written.count(Base) ? "written" : "read") +
           " in the guarded region and " + (Writes ? "written" : "read") +
           " by the block's other threads outside it (" + Line(X) +
           ") with no __syncthreads() between: what they see depends on the guard's thread";
  };
  for (const an::Access &A : M.Accesses)
    if (A.E && A.Base)
      if (std::string Why = Check(A.E, A.Base, A.Buffer, A.writes()); !Why.empty())
        return createStringError(Why);
  for (const void *B : Written) {
    const auto *V = static_cast<const Decl *>(B);
    const auto *VD = dyn_cast<VarDecl>(V);
    if (!VD || VD->hasLocalStorage() || isa<ParmVarDecl>(VD))
      continue;
    for (const DeclRefExpr *D : referencesTo(VD, P.Body))
      if (std::string Why = Check(D, VD, VD->getName(), isModified(VD, parentStmt(D, Ctx)));
          !Why.empty())
        return createStringError(Why);
  }

  // What it computes.
  for (const Combine &X : P.Combines)
    for (const AccInfo &A : X.Accs)
      if (P.What.empty())
        P.What = "row reduction (" + an::reductionOpSymbol(A.Op).str() + ") into '" +
                 A.V->getNameAsString() + "'";
  if (P.What.empty())
    P.What = "row loop over '" + P.Splits.front().L->Var + "'";
  P.What += " walked by one thread of the block ('" + P.GuardHolds + "')";
  return P;
}

Expected<Plan> CooperativeRowRule::plan(const RuleInput &In, an::KernelModel &M) {
  Plan P;
  P.Body = kernelBody(In.Kernel);
  if (!P.Body)
    return createStringError("the kernel has no body");
  Candidates C = findRowLoops(M);
  if (C.Rows.empty() && !C.Single.empty())
    return planSingle(In, M, C);
  if (C.Rows.empty()) {
    std::string Why = !C.ColumnWhy.empty()  ? C.ColumnWhy
                      : !C.ChunkWhy.empty() ? C.ChunkWhy
                      : !C.ShortWhy.empty() ? C.ShortWhy
                                            : "";
    if (Why.empty())
      Why = "no per-thread row loop: no loop in which each thread reads a contiguous row "
            "(one element per step) that neighbouring threads read at a stride (the model's "
            "row-loop, matrix-vector and multi-pass-row computations)";
    return createStringError(Why);
  }
  if (std::string Why = checkKernel(In, M, P); !Why.empty())
    return createStringError(Why);
  std::vector<std::pair<const VarDecl *, const an::Reduction *>> Accs;
  for (const an::Loop *L : C.Rows) {
    Split S;
    S.L = L;
    if (std::string Why = checkSplit(In, M, S, Accs, /*Scans=*/true); !Why.empty())
      return createStringError(Why);
    planVectors(In, M, S);
    P.Splits.push_back(std::move(S));
  }
  // Split loops inside split loops cannot happen (innermost kept); a row
  // loop inside an accumulation of another is fine.
  if (std::string Why = planWrites(In, M, P); !Why.empty())
    return createStringError(Why);
  if (std::string Why = planCombines(In, M, P, Accs); !Why.empty())
    return createStringError(Why);
  // An accumulator reduced over a split loop must be combined after it.
  for (const auto &[V, R] : Accs)
    if (none_of(P.Combines, [&, V = V](const Combine &X) {
          return any_of(X.Accs, [&](const AccInfo &A) { return A.V == V; });
        }))
      return createStringError("internal: no combine point for '%s'", V->getNameAsString().c_str());

  // What it computes, from the patterns over the split loops.
  auto Covers = [&](const an::Pattern *Pt) {
    return any_of(Pt->Loops, [&](unsigned L) {
      return any_of(P.Splits, [&](const Split &S) { return S.L->Id == L; });
    });
  };
  for (const Split &S : P.Splits)
    if (S.Scan && P.What.empty()) {
      P.What = "row scan (" + S.Scan->Order + ", " + an::reductionOpSymbol(S.Scan->Op).str() +
               ") of '" + S.Scan->V->getNameAsString() + "'";
      for (const an::Pattern *Pt : M.patterns(an::PatternKind::Scan))
        if (Covers(Pt) && Pt->role("acc") == S.Scan->V->getName())
          P.Facts.push_back(Pt->Summary);
    }
  for (const an::Pattern *Pt : M.patterns(an::PatternKind::MultiPassRow))
    if (Covers(Pt) && P.What.empty()) {
      P.What =
          formatv("multi-pass row ({0} passes over a row of '{1}')", Pt->Passes, Pt->role("buffer"))
              .str();
      P.Facts.push_back(Pt->Summary);
    }
  if (P.What.empty())
    for (const an::Pattern *Pt : M.patterns(an::PatternKind::MatrixVector))
      if (Covers(Pt)) {
        P.What = "matrix-vector product " + Pt->role("y").str() + " = " + Pt->role("A").str() +
                 " * " + Pt->role("x").str();
        P.Facts.push_back(Pt->Summary);
      }
  if (P.What.empty())
    for (const an::Pattern *Pt : M.patterns(an::PatternKind::RowLoop))
      if (Covers(Pt)) {
        P.Facts.push_back(Pt->Summary);
        if (Pt->Reduction >= 0) {
          const an::Reduction &R = M.Reductions[Pt->Reduction];
          P.What =
              "row reduction (" + an::reductionOpSymbol(R.Op).str() + ") into '" + R.Target + "'";
        } else {
          P.What = "row loop over '" + Pt->role("buffer").str() + "'";
        }
      }
  if (P.What.empty()) {
    const Split &S = P.Splits.front();
    bool Sparse = any_of(M.accessesIn(*S.L), [](const an::Access *A) {
      return A->Warp.Class == an::AccessClass::DataDependent && A->writes() == false;
    });
    P.What =
        Sparse ? "sparse row loop over '" + S.L->Var + "' (rows start at loaded offsets, CSR-like)"
               : "row loop over '" + S.L->Var + "'";
  }
  return P;
}

//===----------------------------------------------------------------------===//
// Emission
//===----------------------------------------------------------------------===//

/// A op B for a scan's operator in type T, as an expression.
std::string scanOpExpr(an::ReductionOp Op, QualType T, const std::string &A,
                       const std::string &B) {
  T = T.getCanonicalType();
  bool F = T->isSpecificBuiltinType(BuiltinType::Float);
  bool D = T->isSpecificBuiltinType(BuiltinType::Double);
  switch (Op) {
  case an::ReductionOp::Add:
    return A + " + " + B;
  case an::ReductionOp::Mul:
    return A + " * " + B;
  case an::ReductionOp::And:
    return A + " & " + B;
  case an::ReductionOp::Or:
    return A + " | " + B;
  case an::ReductionOp::Xor:
    return A + " ^ " + B;
  case an::ReductionOp::Max:
  case an::ReductionOp::ArgMax:
    if (F || D)
      return std::string(F ? "fmaxf(" : "fmax(") + A + ", " + B + ")";
    return "(" + A + " < " + B + " ? " + B + " : " + A + ")";
  case an::ReductionOp::Min:
  case an::ReductionOp::ArgMin:
    if (F || D)
      return std::string(F ? "fminf(" : "fmin(") + A + ", " + B + ")";
    return "(" + B + " < " + A + " ? " + B + " : " + A + ")";
  }
  return A + " + " + B;
}

/// `A = A op B;` for a scan's operator.
std::string scanAssign(an::ReductionOp Op, QualType T, const std::string &A,
                       const std::string &B) {
  switch (Op) {
  case an::ReductionOp::Add:
    return A + " += " + B + ";";
  case an::ReductionOp::Mul:
    return A + " *= " + B + ";";
  case an::ReductionOp::And:
    return A + " &= " + B + ";";
  case an::ReductionOp::Or:
    return A + " |= " + B + ";";
  case an::ReductionOp::Xor:
    return A + " ^= " + B + ";";
  default:
    return A + " = " + scanOpExpr(Op, T, A, B) + ";";
  }
}

/// The identity of a scan's operator in type T (scanType): the value a
/// lane's operand starts from, so that the update applied to it yields the
/// operand alone (`x = fmaxf(x, e)` from -inf is e).
std::string scanIdentity(an::ReductionOp Op, QualType T, ASTContext &Ctx) {
  T = T.getCanonicalType();
  std::string TS = typeSpelling(T, Ctx);
  bool F = T->isSpecificBuiltinType(BuiltinType::Float);
  bool D = T->isSpecificBuiltinType(BuiltinType::Double);
  bool Signed = T->isSignedIntegerType();
  bool Wide = Ctx.getTypeSize(T) == 64;
  switch (Op) {
  case an::ReductionOp::Mul:
    return "1";
  case an::ReductionOp::And:
    return "~(" + TS + ")0";
  case an::ReductionOp::Max:
  case an::ReductionOp::ArgMax:
    if (F)
      return "__int_as_float(0xff800000)";
    if (D)
      return "__longlong_as_double(0xfff0000000000000ll)";
    if (!Signed)
      return "0";
    return Wide ? "(" + TS + ")(-9223372036854775807ll - 1)" : "(-2147483647 - 1)";
  case an::ReductionOp::Min:
  case an::ReductionOp::ArgMin:
    if (F)
      return "__int_as_float(0x7f800000)";
    if (D)
      return "__longlong_as_double(0x7ff0000000000000ll)";
    if (!Signed)
      return "~(" + TS + ")0";
    return Wide ? "(" + TS + ")9223372036854775807ll" : "2147483647";
  default:
    return "0";
  }
}

/// The names and texts of one variant: a warp per row, or a block.
struct Variant {
  bool Block = false;
  /// The block shares a row that one of its threads walked (Plan::Single):
  /// lanes are the block's threads by linear index, of any count (the last
  /// warp may be partial: WarpLanes of it, WarpMask their mask), and the
  /// writes stay under WriteCond, the original guard.
  bool Single = false;
  std::string WarpLanes, WarpMask, WriteCond;
  std::string Lane, Lanes; ///< the lane's index and the lane count ("32" or a variable)
  std::string Tid, Bid, Grid, Warp, NLanes, Offset, Part;
  std::map<const VarDecl *, std::string> Parts; ///< block: shared partials per accumulator
};

class Emitter {
public:
  Emitter(const RuleInput &In, const Plan &P, Variant &V, std::set<std::string> &Taken)
      : In(In), Ctx(In.Ctx), P(P), V(V), Taken(Taken), EC(In) {}

  /// The new text of the body between its braces, or why not.
  Expected<std::string> body();
  /// The same for a row that one thread of a block walked (Plan::Single):
  /// no fallback and no new grid, the guard lifted over the region.
  Expected<std::string> singleBody();

private:
  const RuleInput &In;
  ASTContext &Ctx;
  const Plan &P;
  Variant &V;
  std::set<std::string> &Taken;
  EditCollector EC;
  std::vector<Piece> Subs; ///< builtin replacements of the main path

  std::optional<std::pair<unsigned, unsigned>> range(const Stmt *S) {
    return EC.rangeOf(S->getSourceRange());
  }
  std::optional<std::pair<unsigned, unsigned>> stmtRange(const Stmt *S) {
    return EC.rangeOfStatement(S);
  }
  /// The text of [B, E) with the builtin replacements and Extra.
  Expected<std::string> text(unsigned B, unsigned E, std::vector<Piece> Extra = {}) {
    std::vector<Piece> All;
    for (const Piece &X : Subs)
      if (X.Begin >= B && X.End <= E && !coveredBy(X, Extra))
        All.push_back(X);
    All.insert(All.end(), Extra.begin(), Extra.end());
    auto T = render(In.Source, B, E, All);
    if (!T)
      return createStringError("internal: overlapping edits");
    return *T;
  }
  static bool coveredBy(const Piece &X, ArrayRef<Piece> Extra) {
    return any_of(Extra, [&](const Piece &E) {
      return E.Begin < E.End && E.Begin <= X.Begin && X.End <= E.End;
    });
  }
  Expected<std::string> exprText(const Expr *E, std::vector<Piece> Extra = {}) {
    auto R = range(E);
    if (!R)
      return createStringError("'%s' is written inside a macro", textOf(E, Ctx).c_str());
    return text(R->first, R->second, std::move(Extra));
  }
  std::string indentAt(unsigned Offset) { return lineIndent(In.Source, Offset).str(); }

  /// The loop's text with its start and step split over the lanes; a
  /// while loop's start, outside [Begin, End), goes to Outside.
  Expected<std::string> splitLoop(const Split &S, unsigned Begin, unsigned End,
                                  const std::string &Ind, std::vector<Piece> &Outside);
  Error mainPieces(std::vector<Piece> &Main);
  std::string combine(const Combine &C, const std::string &Ind);
  std::string combineText(const AccInfo &A, const std::string &Other);
  /// argmax/argmin: take (Value, Index) when it is better.
  std::string pairCombine(const AccInfo &A, const std::string &Value, const std::string &Index);
  /// One butterfly step of A with the lane Off away.
  std::vector<std::string> shuffleCombine(const AccInfo &A, const std::string &Off);
};

std::string Emitter::combineText(const AccInfo &A, const std::string &Other) {
  std::string N = A.V->getNameAsString();
  QualType T = A.V->getType().getCanonicalType();
  bool F = T->isSpecificBuiltinType(BuiltinType::Float);
  bool D = T->isSpecificBuiltinType(BuiltinType::Double);
  switch (A.Op) {
  case an::ReductionOp::Add:
    return N + " += " + Other + ";";
  case an::ReductionOp::Mul:
    return N + " *= " + Other + ";";
  case an::ReductionOp::And:
    return N + " &= " + Other + ";";
  case an::ReductionOp::Or:
    return N + " |= " + Other + ";";
  case an::ReductionOp::Xor:
    return N + " ^= " + Other + ";";
  case an::ReductionOp::Max:
  case an::ReductionOp::ArgMax:
    if (F || D)
      return N + " = " + (F ? "fmaxf(" : "fmax(") + N + ", " + Other + ");";
    return N + " = " + N + " < " + Other + " ? " + Other + " : " + N + ";";
  case an::ReductionOp::Min:
  case an::ReductionOp::ArgMin:
    if (F || D)
      return N + " = " + (F ? "fminf(" : "fmin(") + N + ", " + Other + ");";
    return N + " = " + Other + " < " + N + " ? " + Other + " : " + N + ";";
  }
  return "";
}

std::string Emitter::pairCombine(const AccInfo &A, const std::string &Value,
                                 const std::string &Index) {
  std::string N = A.V->getNameAsString(), I = A.Index->getNameAsString();
  std::string Better = A.Op == an::ReductionOp::ArgMax ? " > " : " < ";
  std::string Earlier = A.LowerFirst ? " < " : " > ";
  return "if (" + Value + Better + N + " || (" + Value + " == " + N + " && " + Index + Earlier + I +
         ")) {\n  " + N + " = " + Value + ";\n  " + I + " = " + Index + ";\n}";
}

std::vector<std::string> Emitter::shuffleCombine(const AccInfo &A, const std::string &Off) {
  std::string N = A.V->getNameAsString();
  auto Shfl = [&](const std::string &X) {
    return "__shfl_xor_sync(0xffffffff, " + X + ", " + Off + ")";
  };
  if (!A.Index)
    return {combineText(A, Shfl(N))};
  // The other lane's (value, position), then the better of the two: the
  // larger value (smaller for argmin), the earlier position among equals.
  std::string OV = freshName(N + "_other", In.Kernel, Taken);
  std::string OI = freshName(A.Index->getNameAsString() + "_other", In.Kernel, Taken);
  std::vector<std::string> L = {
      "const " + typeSpelling(A.V->getType(), Ctx) + " " + OV + " = " + Shfl(N) + ";",
      "const " + typeSpelling(A.Index->getType(), Ctx) + " " + OI + " = " +
          Shfl(A.Index->getNameAsString()) + ";"};
  std::string Pick = pairCombine(A, OV, OI);
  for (StringRef X : split(Pick, '\n'))
    L.push_back(X.str());
  return L;
}

std::string Emitter::combine(const Combine &C, const std::string &Ind) {
  std::string I1 = Ind + "  ";
  std::vector<std::string> L;
  std::vector<std::string> Names;
  for (const AccInfo &A : C.Accs)
    Names.push_back("'" + A.V->getNameAsString() + "'");
  if (V.Single) {
    L.push_back("// cooperative-row: the partial " + join(Names, ", ") +
                " combined, each warp's lanes with shuffles (a");
    L.push_back("// partial last warp leaves its missing lanes out), then the warps through "
                "shared memory");
    L.push_back("// in their order; every thread gets the result.");
  } else if (V.Block) {
    L.push_back("// cooperative-row: the partial " + join(Names, ", ") +
                " combined, each warp with shuffles,");
    L.push_back("// then the warps through shared memory; every thread gets the result.");
  } else {
    L.push_back("// cooperative-row: the lanes' partial " + join(Names, ", ") +
                " combined; every lane gets the result.");
  }
  std::string Off = V.Offset;
  if (V.Single) {
    // A tree towards each warp's lane 0 over the lanes the warp has: each
    // lane takes the partial Off lanes up when that lane exists.
    std::vector<std::string> Others, Picks;
    for (const AccInfo &A : C.Accs) {
      std::string N = A.V->getNameAsString();
      auto Down = [&](const std::string &X) {
        return "__shfl_down_sync(" + V.WarpMask + ", " + X + ", " + Off + ")";
      };
      std::string OV = freshName(N + "_other", In.Kernel, Taken);
      Others.push_back("const " + typeSpelling(A.V->getType(), Ctx) + " " + OV + " = " + Down(N) +
                       ";");
      if (!A.Index) {
        Picks.push_back(combineText(A, OV));
        continue;
      }
      std::string OI = freshName(A.Index->getNameAsString() + "_other", In.Kernel, Taken);
      Others.push_back("const " + typeSpelling(A.Index->getType(), Ctx) + " " + OI + " = " +
                       Down(A.Index->getNameAsString()) + ";");
      std::string Pick = pairCombine(A, OV, OI);
      for (StringRef X : split(Pick, '\n'))
        Picks.push_back(X.str());
    }
    bool OneP = Picks.size() == 1;
    L.push_back("for (int " + Off + " = 16; " + Off + " > 0; " + Off + " /= 2) {");
    for (const std::string &X : Others)
      L.push_back("  " + X);
    L.push_back("  if (" + V.Lane + " % 32 + " + Off + " < " + V.WarpLanes + ")" +
                (OneP ? "" : " {"));
    for (const std::string &X : Picks)
      L.push_back("    " + X);
    if (!OneP)
      L.push_back("  }");
    L.push_back("}");
  } else {
    std::vector<std::string> Steps;
    for (const AccInfo &A : C.Accs)
      append_range(Steps, shuffleCombine(A, Off));
    bool One = Steps.size() == 1;
    L.push_back("for (int " + Off + " = 16; " + Off + " > 0; " + Off + " /= 2)" +
                (One ? "" : " {"));
    for (const std::string &X : Steps)
      L.push_back("  " + X);
    if (!One)
      L.push_back("}");
  }
  if (V.Block) {
    // Each shared partial: the accumulators and the argmax positions.
    auto Each = [&](function_ref<void(const VarDecl *)> F) {
      for (const AccInfo &A : C.Accs) {
        F(A.V);
        if (A.Index)
          F(A.Index);
      }
    };
    L.push_back("if (" + V.Lane + " % 32 == 0) {");
    Each([&](const VarDecl *X) {
      L.push_back("  " + V.Parts[X] + "[" + V.Lane + " / 32] = " + X->getNameAsString() + ";");
    });
    L.push_back("}");
    L.push_back("__syncthreads();");
    Each([&](const VarDecl *X) {
      L.push_back(X->getNameAsString() + " = " + V.Parts[X] + "[0];");
    });
    std::string W = V.Part;
    std::vector<std::string> Warps;
    for (const AccInfo &A : C.Accs) {
      std::string Other = V.Parts[A.V] + "[" + W + "]";
      if (!A.Index) {
        Warps.push_back(combineText(A, Other));
        continue;
      }
      std::string Pick = pairCombine(A, Other, V.Parts[A.Index] + "[" + W + "]");
      for (StringRef X : split(Pick, '\n'))
        Warps.push_back(X.str());
    }
    bool OneW = Warps.size() == 1;
    std::string Warps32 = V.Single ? "(" + V.Lanes + " + 31) / 32" : V.Lanes + " / 32";
    L.push_back("for (int " + W + " = 1; " + W + " < " + Warps32 + "; ++" + W + ")" +
                (OneW ? "" : " {"));
    for (const std::string &X : Warps)
      L.push_back("  " + X);
    if (!OneW)
      L.push_back("}");
    L.push_back("__syncthreads();");
  }
  return indentLines(L, Ind);
}

Expected<std::string> Emitter::splitLoop(const Split &S, unsigned Begin, unsigned End,
                                         const std::string &Ind, std::vector<Piece> &Outside) {
  std::string K = S.IV->getNameAsString();
  std::string Lane = V.Lane, Lanes = V.Lanes;
  auto Mul = [&](const std::string &A, int64_t C) {
    return C == 1 ? A : A + " * " + std::to_string(C);
  };
  // The scalar loop over lane, lane + lanes, ...
  std::vector<Piece> Head;
  auto SR = range(S.Start);
  auto IR = range(S.Inc);
  if (!SR || !IR)
    return createStringError("the row loop's header is written inside a macro");
  auto StartText = exprText(S.Start);
  if (!StartText)
    return StartText.takeError();
  int64_t Abs = S.Step < 0 ? -S.Step : S.Step;
  std::string LaneOff = Mul(Lane, Abs);
  std::string Sign = S.Step < 0 ? " - " : " + ";
  std::string StepText = V.Block ? Mul(Lanes, Abs) : std::to_string(32 * Abs);
  std::string IncText = K + (S.Step < 0 ? " -= " : " += ") + StepText;

  // A row scan: the lanes' operands (the update applied to the operator's
  // identity), their inclusive scan across the warp with __shfl_up_sync,
  // and the value before each lane's first element (the carry, then the
  // lanes below). Names are fresh per loop.
  struct ScanText {
    std::string R, T, Count, Mask, X, Sum, Other, Prev;
  } ST;
  std::optional<std::pair<unsigned, unsigned>> UR, FR, LR;
  if (S.Scan) {
    const Split::ScanInfo &SC = *S.Scan;
    ST.R = SC.V->getNameAsString();
    ST.T = typeSpelling(SC.V->getType(), Ctx);
    ST.Count = freshName(ST.R + "_lanes", In.Kernel, Taken);
    ST.Mask = freshName(ST.R + "_mask", In.Kernel, Taken);
    ST.X = freshName(ST.R + "_x", In.Kernel, Taken);
    ST.Sum = freshName(ST.R + "_scan", In.Kernel, Taken);
    ST.Other = freshName(ST.R + "_up", In.Kernel, Taken);
    ST.Prev = freshName(ST.R + "_before", In.Kernel, Taken);
    UR = stmtRange(SC.Update);
    FR = stmtRange(SC.First);
    LR = stmtRange(cast<CompoundStmt>(S.Body)->body_back());
    if (!UR || !FR || !LR)
      return createStringError("the scan's statements are written inside a macro");
  }
  // The update with the lane's operand X in place of the running value;
  // Extra: the body's pieces of this copy (those inside the update apply).
  auto UpdateText = [&](const std::string &X,
                        ArrayRef<Piece> Extra) -> Expected<std::string> {
    std::vector<Piece> UX;
    for (const Piece &P : Extra)
      if (P.Begin >= UR->first && P.End <= UR->second)
        UX.push_back(P);
    for (const DeclRefExpr *D : referencesTo(S.Scan->V, S.Scan->Update)) {
      auto DR = range(D);
      if (!DR)
        return createStringError("the running value is written inside a macro");
      UX.push_back({DR->first, DR->second, X});
    }
    return text(UR->first, UR->second, UX);
  };
  // The warp scan of Sum (every lane of Mask holds one), then the value
  // before the lane's elements.
  auto ScanLines = [&](const std::string &Mask) {
    const Split::ScanInfo &SC = *S.Scan;
    QualType VT = SC.V->getType();
    std::string Off = V.Offset;
    return std::vector<std::string>{
        "#pragma unroll",
        "for (int " + Off + " = 1; " + Off + " < 32; " + Off + " *= 2) {",
        "  const " + ST.T + " " + ST.Other + " = __shfl_up_sync(" + Mask + ", " + ST.Sum + ", " +
            Off + ");",
        "  if (" + Lane + " >= " + Off + ")",
        "    " + ST.Sum + " = " + scanOpExpr(SC.Op, VT, ST.Other, ST.Sum) + ";",
        "}",
        "const " + ST.T + " " + ST.Prev + " = __shfl_up_sync(" + Mask + ", " + ST.Sum + ", 1);",
        "if (" + Lane + " != 0)",
        "  " + scanAssign(SC.Op, VT, ST.R, ST.Prev)};
  };
  // The scalar loop's body: the scan before the first read of the value,
  // over the lanes that still have an element (a prefix of the warp), the
  // update replaced, and the carry from the last of them at the end.
  auto ScalarScan = [&](std::vector<Piece> &X) -> Error {
    const Split::ScanInfo &SC = *S.Scan;
    QualType VT = SC.V->getType();
    auto BoundText = exprText(S.Bound);
    if (!BoundText)
      return BoundText.takeError();
    std::string N = isPrimary(S.Bound) ? *BoundText : "(" + *BoundText + ")";
    std::string Left = N + " - (" + K + " - " + Lane + ")";
    auto UT = UpdateText(ST.X, {});
    if (!UT)
      return UT.takeError();
    std::vector<std::string> L = {
        "// cooperative-row: the running '" + ST.R + "' of this step's elements: the lanes' "
        "operands",
        "// scanned across the warp, after the value before the step.",
        "const int " + ST.Count + " = " + Left + " < 32 ? (int)(" + Left + ") : 32;",
        "const unsigned int " + ST.Mask + " = " + ST.Count + " == 32 ? 0xffffffffu : (1u << " +
            ST.Count + ") - 1u;",
        ST.T + " " + ST.X + " = " + scanIdentity(SC.Op, VT, Ctx) + ";",
        *UT,
        ST.T + " " + ST.Sum + " = " + ST.X + ";"};
    append_range(L, ScanLines(ST.Mask));
    std::string FInd = indentAt(FR->first);
    X.push_back({FR->first, FR->first, indentLines(L, FInd) + "\n" + FInd});
    X.push_back({UR->first, UR->second, scanAssign(SC.Op, VT, ST.R, ST.X)});
    X.push_back({LR->second, LR->second,
                 "\n" + indentAt(LR->first) + ST.R + " = __shfl_sync(" + ST.Mask + ", " + ST.R +
                     ", " + ST.Count + " - 1); // the carry: the last lane's value"});
    return Error::success();
  };

  auto ScalarLoop = [&](std::optional<std::string> From) -> Expected<std::string> {
    std::vector<Piece> X;
    if (From)
      X.push_back({SR->first, SR->second, *From + Sign + LaneOff});
    else if (isLiteralZero(S.Start) && S.Step > 0)
      X.push_back({SR->first, SR->second, LaneOff});
    else if (isPrimary(S.Start))
      X.push_back({SR->second, SR->second, Sign + LaneOff});
    else {
      X.push_back({SR->first, SR->first, "("});
      X.push_back({SR->second, SR->second, ")" + Sign + LaneOff});
    }
    // A while loop's start is in the statement before it: its own piece.
    if (S.StartStmt) {
      Outside.insert(Outside.end(), X.begin(), X.end());
      X.clear();
    }
    X.push_back({IR->first, IR->second, IncText});
    if (S.Scan)
      if (Error E = ScalarScan(X))
        return std::move(E);
    return text(Begin, End, X);
  };

  std::vector<std::string> Out;
  std::string Sync = V.Block ? "__syncthreads();" : "__syncwarp();";
  if (S.WritesMemory)
    Out.push_back(Sync);
  if (S.V == 0) {
    auto L = ScalarLoop(std::nullopt);
    if (!L)
      return L.takeError();
    Out.push_back("#pragma unroll 4");
    Out.push_back(*L);
  } else {
    // Vector steps while the row is 16-byte aligned, then the rest.
    unsigned W = S.V;
    std::string T = typeSpelling(S.IV->getType(), Ctx);
    std::string Rest = freshName(K + "_rest", In.Kernel, Taken);
    auto BoundText = exprText(S.Bound);
    if (!BoundText)
      return BoundText.takeError();
    std::string N = isPrimary(S.Bound) ? *BoundText : "(" + *BoundText + ")";
    std::string S0 = isPrimary(S.Start) ? *StartText : "(" + *StartText + ")";
    bool Zero = isLiteralZero(S.Start);
    // Addresses at the loop's start, for the alignment test.
    std::vector<std::string> Addrs;
    std::vector<std::string> Hoist, Stores;
    auto BodyR = stmtRange(S.Body);
    if (!BodyR)
      return createStringError("the row loop's body is written inside a macro");
    std::vector<const DeclRefExpr *> IVRefs = referencesTo(S.IV, S.Body);
    std::vector<VecGroup> Groups;
    auto At = [&](const Expr *E, const std::string &KText) -> Expected<std::string> {
      std::vector<Piece> X;
      auto R = range(E);
      if (!R)
        return createStringError("an access is written inside a macro");
      for (const DeclRefExpr *D : referencesTo(S.IV, E)) {
        auto DR = range(D);
        if (!DR)
          return createStringError("an access is written inside a macro");
        X.push_back({DR->first, DR->second, KText});
      }
      return text(R->first, R->second, X);
    };
    for (VecGroup G : S.Vec) {
      std::string Base = G.First->Buffer;
      if (const auto *AS =
              dyn_cast<ArraySubscriptExpr>(G.Ldg ? G.Address->IgnoreParenCasts() : G.Address))
        if (const auto *D = dyn_cast<DeclRefExpr>(AS->getBase()->IgnoreParenImpCasts()))
          Base = D->getDecl()->getNameAsString();
      if (const auto *U = dyn_cast<UnaryOperator>(G.Address->IgnoreParenCasts());
          U && U->getOpcode() == UO_AddrOf)
        if (const auto *AS = dyn_cast<ArraySubscriptExpr>(U->getSubExpr()->IgnoreParenImpCasts()))
          if (const auto *D = dyn_cast<DeclRefExpr>(AS->getBase()->IgnoreParenImpCasts()))
            Base = D->getDecl()->getNameAsString();
      G.Name = freshName(Base + "_v", In.Kernel, Taken);
      auto Here = At(G.Address, K);
      auto First = At(G.Address, Zero ? "0" : S0);
      if (!Here || !First) {
        consumeError(Here.takeError());
        consumeError(First.takeError());
        return createStringError("an access is written inside a macro");
      }
      std::string AddrHere = G.Ldg ? *Here : "&" + *Here;
      std::string AddrFirst = G.Ldg ? *First : "&" + *First;
      Addrs.push_back("(unsigned long long)(" + AddrFirst + ")");
      std::string CT = "const " + G.VecType + " *";
      std::string Load = G.Ldg ? "__ldg(reinterpret_cast<" + CT + ">(" + AddrHere + "))"
                               : "*reinterpret_cast<" + CT + ">(" + AddrHere + ")";
      if (G.Load)
        Hoist.push_back((G.Store ? "" : "const ") + G.VecType + " " + G.Name + " = " + Load + ";");
      else
        Hoist.push_back(G.VecType + " " + G.Name + ";");
      if (G.Store)
        Stores.push_back("*reinterpret_cast<" + G.VecType + " *>(" + AddrHere + ") = " + G.Name +
                         ";");
      Groups.push_back(G);
    }
    static const char *Comp[] = {"x", "y", "z", "w"};
    std::vector<std::string> Copies;
    // A row scan: each copy's operand first (the update with the copy's
    // elements), their total scanned across the warp; each copy then applies
    // its operand to the running value.
    std::vector<std::string> ScanPre;
    for (unsigned J = 0; J < W; ++J) {
      std::vector<Piece> X;
      std::vector<std::pair<unsigned, unsigned>> Replaced;
      for (const VecGroup &G : Groups)
        for (const Expr *E : G.Exprs) {
          auto R = range(E);
          if (!R)
            return createStringError("an access is written inside a macro");
          X.push_back({R->first, R->second, G.Name + "." + Comp[J]});
          Replaced.push_back(*R);
        }
      if (J > 0)
        for (const DeclRefExpr *D : IVRefs) {
          auto R = range(D);
          if (!R)
            return createStringError("the loop variable is used inside a macro");
          if (any_of(Replaced,
                     [&](auto P) { return P.first <= R->first && R->second <= P.second; }))
            continue;
          X.push_back({R->first, R->second, "(" + K + " + " + std::to_string(J) + ")"});
        }
      if (S.Scan) {
        const Split::ScanInfo &SC = *S.Scan;
        QualType VT = SC.V->getType();
        std::string XJ = ST.X + std::to_string(J);
        auto UT = UpdateText(XJ, X);
        if (!UT)
          return UT.takeError();
        ScanPre.push_back(ST.T + " " + XJ + " = " + scanIdentity(SC.Op, VT, Ctx) + ";");
        ScanPre.push_back(*UT);
        llvm::erase_if(X, [&](const Piece &P) {
          return P.Begin >= UR->first && P.End <= UR->second;
        });
        X.push_back({UR->first, UR->second, scanAssign(SC.Op, VT, ST.R, XJ)});
      }
      auto C = text(BodyR->first, BodyR->second, X);
      if (!C)
        return C.takeError();
      Copies.push_back(*C);
    }
    std::string I1 = "  ", I2 = "    ";
    std::string BodyInd = indentAt(BodyR->first);
    Out.push_back("{");
    Out.push_back(I1 + "// cooperative-row: " + std::to_string(W) +
                  " elements per lane and step while the row is 16-byte");
    Out.push_back(I1 + "// aligned, then one at a time.");
    Out.push_back(I1 + T + " " + Rest + " = " + *StartText + ";");
    Out.push_back(I1 + "if (((" + join(Addrs, " | ") + ") & 15) == 0) {");
    Out.push_back(I2 + "#pragma unroll 4");
    std::string VStep = V.Block ? std::to_string(W) + " * " + Lanes : std::to_string(32 * W);
    // A scan's lanes step together: whole steps of 32 vectors only.
    std::string Last = S.Scan ? std::to_string(W - 1) + " + " + std::to_string(W) + " * (31 - " +
                                    Lane + ")"
                              : std::to_string(W - 1);
    Out.push_back(I2 + "for (" + T + " " + K + " = " + (Zero ? "" : S0 + " + ") +
                  std::to_string(W) + " * " + Lane + "; " + K + " + " + Last + " < " + N + "; " +
                  K + " += " + VStep + ") {");
    for (const std::string &H : Hoist)
      Out.push_back(I2 + "  " + H);
    if (S.Scan) {
      const Split::ScanInfo &SC = *S.Scan;
      QualType VT = SC.V->getType();
      std::vector<std::string> L = {
          "// cooperative-row: the running '" + ST.R + "' of this step's " +
              std::to_string(32 * W) + " elements: each lane's",
          "// operands, their total scanned across the warp, after the value before the step."};
      append_range(L, ScanPre);
      L.push_back(ST.T + " " + ST.Sum + " = " + ST.X + "0;");
      for (unsigned J = 1; J < W; ++J)
        L.push_back(scanAssign(SC.Op, VT, ST.Sum, ST.X + std::to_string(J)));
      append_range(L, ScanLines("0xffffffff"));
      for (const std::string &X : L)
        Out.push_back(I2 + "  " + X);
    }
    // The body's own lines keep their indentation relative to the loop.
    // The copies' first lines go to Ind + 6; their other lines move by as
    // much as the body's first line does.
    std::string Shift =
        spaces(Ind.size() + 6 > BodyInd.size() ? Ind.size() + 6 - BodyInd.size() : 0);
    for (const std::string &C : Copies)
      Out.push_back(I2 + "  " + indentFollowingLines(C, Shift));
    for (const std::string &St : Stores)
      Out.push_back(I2 + "  " + St);
    if (S.Scan)
      Out.push_back(I2 + "  " + ST.R + " = __shfl_sync(0xffffffff, " + ST.R +
                    ", 31); // the carry: lane 31's value");
    Out.push_back(I2 + "}");
    std::string Chunk = std::to_string(S.Scan ? 32 * W : W);
    std::string Whole =
        Zero ? N + " > 0 ? " + N + " / " + Chunk + " * " + Chunk + " : 0"
             : S0 + " + (" + N + " > " + S0 + " ? (" + N + " - " + S0 + ") / " + Chunk + " * " +
                   Chunk + " : 0)";
    Out.push_back(I2 + Rest + " = " + Whole + ";");
    Out.push_back(I1 + "}");
    auto L = ScalarLoop(Rest);
    if (!L)
      return L.takeError();
    Out.push_back(I1 + "#pragma unroll 4");
    Out.push_back(I1 + indentFollowingLines(*L, "  "));
    Out.push_back("}");
  }
  if (S.WritesMemory)
    Out.push_back(Sync);
  return indentLines(Out, Ind);
}

/// The rewrite's pieces inside the body: the split loops, the combines
/// after them (and the resets before), and the writes outside the row loops
/// under the writers' condition (lane 0; the original guard for a row of
/// one thread).
Error Emitter::mainPieces(std::vector<Piece> &Main) {
  // Split loops.
  for (const Split &S : P.Splits) {
    auto R = stmtRange(S.F);
    if (!R)
      return createStringError("the row loop at line %u is written inside a macro", S.L->Loc.Line);
    std::string LInd = indentAt(R->first);
    std::vector<Piece> Outside;
    auto T = splitLoop(S, R->first, R->second, LInd, Outside);
    if (!T)
      return T.takeError();
    Main.insert(Main.end(), Outside.begin(), Outside.end());
    std::string Text = *T;
    // A scan's lanes left the loop at different steps; lane 0 made the
    // last one, so its value is the carry after the row.
    if (S.Scan)
      Text += "\n" + LInd + S.Scan->V->getNameAsString() + " = __shfl_sync(0xffffffff, " +
              S.Scan->V->getNameAsString() + ", 0); // the value after the row, in every lane";
    bool Compound = isa_and_nonnull<CompoundStmt>(parentStmt(S.F, Ctx));
    if (!Compound)
      Text = "{\n" + LInd + "  " + indentFollowingLines(Text, "  ") + "\n" + LInd + "}";
    Main.push_back({R->first, R->second, Text});
  }
  // Combines after their loops, resets before.
  for (const Combine &C : P.Combines) {
    auto R = stmtRange(C.After);
    if (!R)
      return createStringError("a row loop is written inside a macro");
    std::string LInd = indentAt(R->first);
    bool Compound = isa_and_nonnull<CompoundStmt>(parentStmt(C.After, Ctx));
    std::string Pre, Post;
    std::vector<std::string> Resets;
    for (const AccInfo &A : C.Accs)
      if (A.Reset)
        Resets.push_back("if (" + V.Lane + " != 0)\n" + LInd + "  " + A.V->getNameAsString() +
                         " = " + identityOf(A.Op) + ";");
    for (const std::string &X : Resets)
      Pre += X + "\n" + LInd;
    Post = "\n" + LInd + combine(C, LInd);
    if (!Compound) {
      Pre = "{\n" + LInd + "  " + indentFollowingLines(Pre, "  ");
      Post = indentFollowingLines(Post, "  ") + "\n" + LInd + "}";
    }
    if (!Pre.empty())
      Main.push_back({R->first, R->first, Pre});
    Main.push_back({R->second, R->second, Post});
  }
  // Writes outside the row loops: lane 0.
  for (const Stmt *St : P.Wraps) {
    auto R = stmtRange(St);
    if (!R)
      return createStringError("a write is inside a macro");
    const Stmt *Parent = parentStmt(St, Ctx);
    const auto *If = dyn_cast_or_null<IfStmt>(Parent);
    bool Compound = isa_and_nonnull<CompoundStmt>(Parent);
    std::string Cond = "if (" + (V.Single ? V.WriteCond : V.Lane + " == 0") + ")";
    if (Compound) {
      std::string LInd = indentAt(R->first);
      Main.push_back({R->first, R->first, Cond + "\n" + LInd + "  "});
    } else {
      (void)If;
      Main.push_back({R->first, R->first, "{ " + Cond + " "});
      Main.push_back({R->second, R->second, " }"});
    }
  }
  return Error::success();
}

Expected<std::string> Emitter::body() {
  const CompoundStmt *B = P.Body;
  auto BR = range(B);
  if (!BR)
    return createStringError("the kernel's body is not plain text of the main file");
  unsigned Begin = BR->first + 1, End = BR->second - 1;
  if (B->body_empty())
    return createStringError("the kernel's body is empty");
  auto FirstR = stmtRange(B->body_front());
  if (!FirstR)
    return createStringError("the kernel's first statement is inside a macro");
  std::string Ind = indentAt(FirstR->first);
  std::string I1 = Ind + "  ";

  // The fallback: the original body on the original grid.
  std::string Div = V.Block ? "blockDim.x" : "32";
  std::vector<Piece> Fall;
  for (const BuiltinUse &U : P.Builtins)
    if (U.Var == "gridDim" && U.Dim == 'x')
      Fall.push_back({U.Begin, U.End, "(gridDim.x / " + Div + ")"});
  // Index helpers: their expression in place of the call, each builtin
  // component renamed by Name (or kept).
  auto Inlined = [](const InlineCall &C, function_ref<std::string(const InlineCall::Seg &)> Name) {
    std::string T = "(";
    for (const InlineCall::Seg &G : C.Segs)
      T += G.Var.empty() ? G.Text : Name(G);
    return T + ")";
  };
  auto Kept = [](const InlineCall::Seg &G) { return G.Var + "." + std::string(1, G.Dim); };
  for (const InlineCall &C : P.Inlines)
    if (C.readsGridX())
      Fall.push_back({C.Begin, C.End, Inlined(C, [&](const InlineCall::Seg &G) {
                        return G.Var == "gridDim" && G.Dim == 'x'
                                   ? "(gridDim.x / " + Div + ")"
                                   : Kept(G);
                      })});
  auto FallText = render(In.Source, FirstR->first, End, Fall);
  if (!FallText)
    return createStringError("internal: overlapping edits in the fallback");
  StringRef FT = StringRef(*FallText).rtrim();

  // The main path: builtins replaced by the original thread's values.
  for (const BuiltinUse &U : P.Builtins) {
    if (U.Dim != 'x')
      continue;
    if (U.Var == "threadIdx")
      Subs.push_back({U.Begin, U.End, V.Tid});
    else if (U.Var == "blockIdx")
      Subs.push_back({U.Begin, U.End, V.Bid});
    else if (U.Var == "gridDim")
      Subs.push_back({U.Begin, U.End, V.Grid});
  }
  for (const InlineCall &C : P.Inlines)
    Subs.push_back({C.Begin, C.End, Inlined(C, [&](const InlineCall::Seg &G) {
                      if (G.Dim != 'x')
                        return Kept(G);
                      return G.Var == "threadIdx"  ? V.Tid
                             : G.Var == "blockIdx" ? V.Bid
                             : G.Var == "gridDim"  ? V.Grid
                                                   : Kept(G);
                    })});
  std::vector<Piece> Main;
  if (Error E = mainPieces(Main))
    return std::move(E);
  auto MainText = text(Begin, End, Main);
  if (!MainText)
    return MainText.takeError();

  std::vector<std::string> L;
  if (V.Block) {
    L.push_back("// cooperative-row: one block per row. Each block runs what one thread of the "
                "original");
    L.push_back("// kernel ran; its threads share the row loops and combine their partial "
                "results through");
    L.push_back("// shuffles and shared memory. The launch has blockDim.x times the blocks "
                "along x.");
    L.push_back("if (blockDim.x % 32 != 0 || blockDim.y != 1 || blockDim.z != 1) {");
  } else {
    L.push_back("// cooperative-row: one warp per row. Each warp runs what one thread of the "
                "original");
    L.push_back("// kernel ran; its 32 lanes share the row loops and combine their partial "
                "results with");
    L.push_back("// shuffles. The launch has 32 times the blocks along x.");
    L.push_back("if (blockDim.x % 32 != 0) {");
  }
  L.push_back("  // Not whole warps" + std::string(V.Block ? " or not a 1D block" : "") +
              ": the original code, one thread per row,");
  L.push_back("  // on the original grid.");
  L.push_back("  if (blockIdx.x >= gridDim.x / " + Div + ")");
  L.push_back("    return;");
  L.push_back("  " + indentFollowingLines(FT, "  "));
  L.push_back("  return;");
  L.push_back("}");
  if (V.Block) {
    L.push_back("const int " + V.Lane + " = threadIdx.x;");
    L.push_back("const int " + V.Lanes + " = blockDim.x;");
    L.push_back("// The original thread this block runs: its threadIdx.x, blockIdx.x and "
                "gridDim.x.");
    L.push_back("const unsigned int " + V.Tid + " = blockIdx.x % blockDim.x;");
    L.push_back("const unsigned int " + V.Bid + " = blockIdx.x / blockDim.x;");
    L.push_back("const unsigned int " + V.Grid + " = gridDim.x / blockDim.x;");
    for (const auto &[Acc, Name] : V.Parts)
      L.push_back("__shared__ " + typeSpelling(Acc->getType(), Ctx) + " " + Name + "[32];");
  } else {
    L.push_back("const int " + V.Lane + " = threadIdx.x % 32;");
    L.push_back("// The original thread this warp runs: its threadIdx.x, blockIdx.x and "
                "gridDim.x.");
    L.push_back("const unsigned int " + V.Warp +
                " = blockIdx.x * (blockDim.x / 32) + "
                "threadIdx.x / 32;");
    L.push_back("const unsigned int " + V.Tid + " = " + V.Warp + " % blockDim.x;");
    L.push_back("const unsigned int " + V.Bid + " = " + V.Warp + " / blockDim.x;");
    L.push_back("const unsigned int " + V.Grid + " = gridDim.x / 32;");
  }
  L.push_back("if (" + V.Bid + " >= " + V.Grid + ")");
  L.push_back("  return;");
  std::string Head = indentLines(L, Ind);
  // The main text starts after the body's '{' (usually with a newline and
  // the first statement's indentation).
  StringRef MT = *MainText;
  size_t FirstNonBlank = MT.find_first_not_of(" \t\n");
  StringRef Lead = MT.substr(0, FirstNonBlank == StringRef::npos ? 0 : FirstNonBlank);
  StringRef RestText = MT.substr(Lead.size());
  return "\n" + Ind + Head + "\n" + Ind + RestText.str();
}

Expected<std::string> Emitter::singleBody() {
  const CompoundStmt *B = P.Body;
  auto BR = range(B);
  if (!BR)
    return createStringError("the kernel's body is not plain text of the main file");
  unsigned Begin = BR->first + 1, End = BR->second - 1;
  if (B->body_empty())
    return createStringError("the kernel's body is empty");
  auto FirstR = stmtRange(B->body_front());
  if (!FirstR)
    return createStringError("the kernel's first statement is inside a macro");
  std::string Ind = indentAt(FirstR->first);
  std::vector<Piece> Main;
  if (Error E = mainPieces(Main))
    return std::move(E);
  // The guard lifted: every thread of the block runs the region now.
  auto GR = stmtRange(P.Guard);
  if (!GR)
    return createStringError("the guard is written inside a macro");
  std::string GInd = indentAt(GR->first);
  auto CR = range(P.Guard->getCond());
  if (!CR)
    return createStringError("the guard is written inside a macro");
  if (!P.GuardKept.empty()) {
    // The parts of the condition that the whole block shares stay.
    Main.push_back({CR->first, CR->second, join(P.GuardKept, P.GuardExits ? " || " : " && ")});
    Main.push_back({GR->first, GR->first,
                    "// cooperative-row: every thread of the block runs " +
                        std::string(P.GuardExits ? "what follows" : "this") + " (it ran under '" +
                        P.GuardHolds + "');\n" + GInd +
                        "// the writes stay with the threads that pass that test.\n" + GInd});
  } else if (P.GuardExits) {
    Main.push_back({GR->first, GR->second,
                    "// cooperative-row: every thread of the block runs what follows (it ran "
                    "only where\n" +
                        GInd + "// '" + P.GuardHolds +
                        "'); the writes stay with the threads that pass that test."});
  } else {
    auto TR = stmtRange(P.Guard->getThen());
    if (!TR)
      return createStringError("the guarded statement is written inside a macro");
    Main.push_back({GR->first, TR->first,
                    "// cooperative-row: every thread of the block runs this (it ran under '" +
                        P.GuardHolds + "');\n" + GInd +
                        "// the writes stay with the threads that pass that test.\n" + GInd});
  }
  auto MainText = text(Begin, End, Main);
  if (!MainText)
    return MainText.takeError();
  std::vector<std::string> L;
  L.push_back("// cooperative-row: the block's threads share the row that one thread walked: "
              "the");
  L.push_back("// thread of linear index " + V.Lane + " takes the elements " + V.Lane + ", " +
              V.Lane + " + " + V.Lanes + ", ... (coalesced).");
  L.push_back("const int " + V.Lane +
              " = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);");
  L.push_back("const int " + V.Lanes + " = blockDim.x * blockDim.y * blockDim.z;");
  L.push_back("// The lanes of this thread's warp (the block's last warp may be partial) and "
              "their mask.");
  L.push_back("const int " + V.WarpLanes + " = " + V.Lanes + " - " + V.Lane + " / 32 * 32 < 32 ? " +
              V.Lanes + " - " + V.Lane + " / 32 * 32 : 32;");
  L.push_back("const unsigned int " + V.WarpMask + " = " + V.WarpLanes +
              " == 32 ? 0xffffffffu : (1u << " + V.WarpLanes + ") - 1u;");
  for (const auto &[Acc, Name] : V.Parts)
    L.push_back("__shared__ " + typeSpelling(Acc->getType(), Ctx) + " " + Name + "[32];");
  std::string Head = indentLines(L, Ind);
  StringRef MT = *MainText;
  size_t FirstNonBlank = MT.find_first_not_of(" \t\n");
  StringRef Lead = MT.substr(0, FirstNonBlank == StringRef::npos ? 0 : FirstNonBlank);
  StringRef RestText = MT.substr(Lead.size());
  return "\n" + Ind + Head + "\n" + Ind + RestText.str();
}

//===----------------------------------------------------------------------===//
// The rule
//===----------------------------------------------------------------------===//

RuleOutcome CooperativeRowRule::proposeSingle(const RuleInput &In, const an::KernelModel &M,
                                              const Plan &P) {
  std::set<std::string> Taken;
  Variant V;
  V.Block = true;
  V.Single = true;
  V.Lane = freshName("lane", In.Kernel, Taken);
  V.Lanes = freshName("lanes", In.Kernel, Taken);
  V.WarpLanes = freshName("warp_lanes", In.Kernel, Taken);
  V.WarpMask = freshName("warp_mask", In.Kernel, Taken);
  V.Offset = freshName("offset", In.Kernel, Taken);
  V.Part = freshName("w", In.Kernel, Taken);
  V.WriteCond = P.GuardHolds;
  for (const Combine &C : P.Combines)
    for (const AccInfo &A : C.Accs)
      for (const VarDecl *X : {A.V, A.Index})
        if (X && !V.Parts.count(X))
          V.Parts[X] = freshName(X->getNameAsString() + "_part", In.Kernel, Taken);
  Emitter E(In, P, V, Taken);
  auto Body = E.singleBody();
  if (!Body)
    return notApplicable(toString(Body.takeError()));
  EditCollector EC(In);
  auto BR = EC.rangeOf(P.Body->getSourceRange());
  if (!BR)
    return notApplicable("the kernel's body is not plain text of the main file");
  std::vector<SourceEdit> Edits = {{BR->first + 1, BR->second - 1 - (BR->first + 1), *Body}};

  bool Float = false;
  std::vector<std::string> Ops;
  for (const Combine &C : P.Combines)
    for (const AccInfo &A : C.Accs) {
      QualType T = A.V->getType();
      if ((T->isDependentType() || T->isRealFloatingType()) && !idempotent(A.Op))
        Float = true;
      Ops.push_back("'" + A.V->getNameAsString() + "' (" + an::reductionOpSymbol(A.Op).str() +
                    (A.Index ? ", position '" + A.Index->getNameAsString() +
                                   "', the earlier one among equal values"
                             : std::string()) +
                    ")");
    }
  std::vector<std::string> NoVec;
  bool Vectorised = false;
  for (const Split &S : P.Splits) {
    Vectorised |= S.V != 0;
    if (!S.V && !S.NoVecWhy.empty())
      NoVec.push_back("line " + std::to_string(S.L->Loc.Line) + ": " + S.NoVecWhy);
  }
  std::string Rationale =
      formatv("A {0}: one thread walks the whole row, one element per step, while the block's "
              "other threads wait. Now every thread of the block takes part: the thread of "
              "linear index t takes the elements t, t + the block size, ... (coalesced{1}), "
              "the loop-carried reductions {2} are combined with __shfl_down_sync within each "
              "warp (a partial last warp leaves its missing lanes out) and then through shared "
              "memory across the warps, in their order, so every thread holds the result. The "
              "code after the row loops runs as before, and its writes are made by the threads "
              "that pass '{3}' only, as before. Any block shape and size works (a block of one "
              "thread walks the row alone, as before); the launch is unchanged.",
              P.What,
              Vectorised ? "; 16 bytes per thread while the row is 16-byte aligned, checked "
                           "per row at run time"
                         : "",
              Ops.empty() ? std::string("(none)") : join(Ops, ", "), P.GuardHolds)
          .str();
  if (Float)
    Rationale += " The floating-point sums are re-associated (each thread sums a strided part "
                 "of the row, then the threads are combined): results differ from the "
                 "sequential order in the last bits; max and min are exact.";
  if (!NoVec.empty())
    Rationale += " Not vectorised: " + join(NoVec, "; ") + ".";
  std::string Summary = "the block shares the " + P.What + " (a block reduction)";
  return proposeEdits(In, name(), Summary, Rationale, Edits, std::nullopt);
}

RuleOutcome CooperativeRowRule::propose(const RuleInput &In) {
  auto M = kernelModel(In);
  if (!M)
    return notApplicable(toString(M.takeError()));
  const agent::ProposalRequest &Req = In.Request;
  auto P = plan(In, *M);
  if (!P)
    return notApplicable(toString(P.takeError()));
  if (P->Single) {
    if (Req.Block && (*Req.Block)[0] * (*Req.Block)[1] * (*Req.Block)[2] == 1)
      return notApplicable(
          "the block has 1 thread: the rewrite shares a row that one thread of a block walks "
          "among the block's threads, so it needs more of them (a launch with, e.g., 128 or "
          "256 threads per block; the block is the spec's tunable, which this rule does not "
          "change)");
    return proposeSingle(In, *M, *P);
  }
  // After the plan, so that a kernel without a row loop says so first.
  if (Req.Block && (*Req.Block)[0] % 32 != 0)
    return notApplicable(formatv("the block is {0}x{1}x{2}: blockDim.x is not a multiple of 32, "
                                 "so no warp would lie within one row of threads",
                                 (*Req.Block)[0], (*Req.Block)[1], (*Req.Block)[2])
                             .str());

  // Facts for the rationale.
  std::vector<std::string> Strided;
  for (const Split &S : P->Splits)
    for (const an::Access *A : M->accessesIn(*S.L))
      if (A->Warp.Class == an::AccessClass::Strided && A->Space == an::MemorySpace::Global) {
        std::string T = "'" + A->Text + "' (strided by " + A->Warp.StrideText + ")";
        if (!is_contained(Strided, T))
          Strided.push_back(T);
      }
  bool Float = false;
  std::vector<std::string> Ops;
  for (const Combine &C : P->Combines)
    for (const AccInfo &A : C.Accs) {
      QualType T = A.V->getType();
      bool FP = T->isDependentType() || T->isRealFloatingType();
      if (FP && !idempotent(A.Op))
        Float = true;
      Ops.push_back("'" + A.V->getNameAsString() + "' (" + an::reductionOpSymbol(A.Op).str() +
                    (A.Index ? ", position '" + A.Index->getNameAsString() +
                                   "', the earlier one among equal values"
                             : std::string()) +
                    ")");
    }
  unsigned Vectorised = 0;
  std::vector<std::string> NoVec;
  for (const Split &S : P->Splits) {
    if (S.V)
      ++Vectorised;
    else if (!S.NoVecWhy.empty())
      NoVec.push_back("line " + std::to_string(S.L->Loc.Line) + ": " + S.NoVecWhy);
  }

  // Row scans: the lanes' scan is a warp's (a block per row would need a
  // block scan through shared memory at every step; not proposed).
  std::vector<std::string> Scans;
  bool FloatScan = false;
  for (const Split &S : P->Splits)
    if (S.Scan) {
      QualType T = S.Scan->V->getType();
      FloatScan |= T->isRealFloatingType() && (S.Scan->Op == an::ReductionOp::Add ||
                                               S.Scan->Op == an::ReductionOp::Mul);
      Scans.push_back("'" + S.Scan->V->getNameAsString() + "' (" + S.Scan->Order + ", " +
                      an::reductionOpSymbol(S.Scan->Op).str() + ")");
    }

  std::vector<agent::Proposal> Out;
  std::string First;
  for (bool Block : {false, true}) {
    if (Block && Req.Block && ((*Req.Block)[1] != 1 || (*Req.Block)[2] != 1))
      continue;
    if (Block && !Scans.empty())
      continue;
    std::set<std::string> Taken;
    Variant V;
    V.Block = Block;
    V.Lane = freshName("lane", In.Kernel, Taken);
    V.Lanes = Block ? freshName("lanes", In.Kernel, Taken) : "32";
    V.Warp = Block ? "" : freshName("warp_id", In.Kernel, Taken);
    V.Tid = freshName("orig_tid", In.Kernel, Taken);
    V.Bid = freshName("orig_bid", In.Kernel, Taken);
    V.Grid = freshName("orig_grid", In.Kernel, Taken);
    V.Offset = freshName("offset", In.Kernel, Taken);
    V.Part = freshName("w", In.Kernel, Taken);
    if (Block)
      for (const Combine &C : P->Combines)
        for (const AccInfo &A : C.Accs)
          for (const VarDecl *X : {A.V, A.Index})
            if (X && !V.Parts.count(X))
              V.Parts[X] = freshName(X->getNameAsString() + "_part", In.Kernel, Taken);
    Emitter E(In, *P, V, Taken);
    auto Body = E.body();
    if (!Body) {
      if (First.empty())
        First = toString(Body.takeError());
      else
        consumeError(Body.takeError());
      continue;
    }
    EditCollector EC(In);
    auto BR = EC.rangeOf(P->Body->getSourceRange());
    if (!BR)
      return notApplicable("the kernel's body is not plain text of the main file");
    std::vector<SourceEdit> Edits = {{BR->first + 1, BR->second - 1 - (BR->first + 1), *Body}};

    std::string Unit = Block ? "block" : "warp";
    std::string Factor = Block ? "the block size" : "32";
    std::string Rationale =
        formatv(
            "A per-thread {0}: each thread walks its own row, so the 32 lanes of a warp read 32 "
            "rows at once{1} and every load instruction touches 32 separate cache lines. Now one "
            "{2} runs what one original thread ran: its {3} take consecutive elements of the row "
            "(one 128-byte line per warp instruction{4}){5}. Writes outside the row loops are "
            "made by {7} only; a row loop's per-element writes by every {8}.",
            P->What, Strided.empty() ? "" : " (" + join(Strided, ", ") + ")", Unit,
            Block ? "threads" : "32 lanes",
            Vectorised ? ", 16 bytes per lane while the row is 16-byte aligned, checked per row "
                         "at run time; otherwise one element at a time"
                       : "",
            Ops.empty() && !Scans.empty()
                ? std::string()
                : ", and the loop-carried reductions " +
                      (Ops.empty() ? std::string("(none)") : join(Ops, ", ")) +
                      " are combined with an __shfl_xor_sync butterfly" +
                      (Block ? " per warp and then through shared memory across the block's "
                               "warps"
                             : "") +
                      ", so every lane holds the result for later passes",
            "", Block ? "thread 0 of the block" : "lane 0", Block ? "thread" : "lane")
            .str();
    if (Float)
      Rationale += " The floating-point sums are re-associated (each lane sums a strided part "
                   "of the row, then the lanes are combined): results differ from the "
                   "sequential order in the last bits, within the default fp32 tolerance for "
                   "rows of moderate length; max and min are exact.";
    if (!Scans.empty()) {
      Rationale += " The running values " + join(Scans, ", ") +
                   " are scans of the row: at each step the 32 lanes take 32 consecutive "
                   "elements (4 each as one 16-byte vector while the row is aligned), "
                   "scan their operands across the warp with __shfl_up_sync, start from the "
                   "value before the step, store their own elements' results, and the last "
                   "lane's value (__shfl_sync) is carried to the next step; after the loop every "
                   "lane holds the value after the row.";
      if (FloatScan)
        Rationale += " The floating-point scan is re-associated (the lanes' operands are "
                     "combined in a tree, then added to the carry): each output differs from "
                     "the sequential running value in the last bits, and the error grows with "
                     "the row's length; the spec's tolerance judges it.";
    }
    Rationale += formatv(" The launch needs {0} times the blocks along x (one {1} per original "
                         "thread); blockDim.x must be a multiple of 32{2}, else the original "
                         "code runs (checked on the device).",
                         Factor, Unit, Block ? " and the block 1D" : "")
                     .str();
    if (!NoVec.empty())
      Rationale += " Not vectorised: " + join(NoVec, "; ") + ".";

    std::optional<agent::SpecChange> Spec;
    auto G = Req.Geometry.find("grid.x");
    std::string BlockX;
    if (auto BX = Req.Geometry.find("block.x"); BX != Req.Geometry.end() && !BX->second.empty())
      BlockX = BX->second;
    else if (Req.Block)
      BlockX = std::to_string((*Req.Block)[0]);
    if (G != Req.Geometry.end() && !G->second.empty() && (!Block || !BlockX.empty())) {
      std::string Expr = "(" + G->second + ") * " + (Block ? "(" + BlockX + ")" : "32");
      if (auto Parsed = measure::IntExpr::parse(Expr)) {
        agent::SpecChange S;
        S.Geometry["grid.x"] = Expr;
        S.Justification = formatv("each {0} of the rewritten kernel runs one thread of the "
                                  "original (its threadIdx.x, blockIdx.x and gridDim.x are "
                                  "recomputed from the {0}'s index), so grid.x grows by {1}; "
                                  "{0}s beyond the original threads return at once",
                                  Unit, Block ? BlockX : "32")
                              .str();
        Spec = std::move(S);
      } else {
        consumeError(Parsed.takeError());
      }
    }
    if (!Spec)
      Rationale += formatv(" No spec geometry is known: launch it with gridDim.x = {0} x the "
                           "original.",
                           Block ? "blockDim.x" : "32")
                       .str();
    std::string Summary = Block ? "one block per row for the " + P->What + " (a block reduction)"
                                : "one warp per row for the " + P->What +
                                      (Scans.empty() ? " (lanes stride over the row, shuffle "
                                                       "reductions)"
                                                     : " (lanes take consecutive elements, "
                                                       "warp scans with shuffles)");
    RuleOutcome O = proposeEdits(In, name(), Summary, Rationale, Edits, std::move(Spec));
    if (!O.NotApplicable.empty()) {
      if (First.empty())
        First = O.NotApplicable;
      continue;
    }
    Out.push_back(std::move(O.Proposals.front()));
  }
  if (Out.empty())
    return notApplicable(First.empty() ? "nothing to change" : First);
  RuleOutcome O;
  O.Proposals = std::move(Out);
  return O;
}

} // namespace

std::unique_ptr<ExpertRule> createCooperativeRowRule() {
  return std::make_unique<CooperativeRowRule>();
}

} // namespace forge::passes
