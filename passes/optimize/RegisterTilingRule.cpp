//===- passes/optimize/RegisterTilingRule.cpp - register-tiling -----------===//
///
/// \file
/// A naive matrix product computes one output per thread and loads one
/// element of A and one of B from global memory per multiply-add. The rule
/// keys on the kernel model's MatrixProduct pattern (any names, operand
/// order, transposition, index type, a blockIdx.z batch) and checks the
/// kernel's shape around it: the store's guard implies the loop's (the
/// PMPP form with two identical checks qualifies), its terms on row or
/// column are kept per output and the block-uniform rest becomes an early
/// return of the whole block, block-uniform declarations without loads
/// are hoisted.
///
/// Proposals, best first:
///
/// 0. Block-tiled 128 x 128 (float) and 64 x 64: 256 threads, 8 x 8 (4 x 4)
///    outputs per thread, A transposed and B double-buffered in shared
///    memory, float4 / double2 shared-memory reads, 16-byte global loads
///    where the model proves unit stride and a per-block check finds the
///    bases aligned.
/// 1. Two-level tiling: a block computes a (BY*TM) x (BX*TN) tile of C; A
///    and B are staged in shared memory 16 columns / rows at a time.
/// 2. Register tiling alone: each thread computes TM = 4 rows, blockDim.y
///    apart, and loads each B element once for all of them.
///
/// All keep each output's multiply-adds in the original order (the padding
/// of partial tiles adds exact zeros), guard every row and column with the
/// original's own bounds check, and so are correct for any grid at least as
/// large as needed; the proposal shrinks the grid with a SpecChange. The
/// statements are reused as text with the loop's variables renamed, so any
/// index form and epilogue is kept as written.
///
//===----------------------------------------------------------------------===//
#include "FormCode.h"
#include "RuleAst.h"
#include "RuleUtil.h"
#include "Rules.h"
#include "forge/Analysis/KernelModel.h"
#include "forge/Frontend/KernelFacts.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DynamicRecursiveASTVisitor.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/Basic/SourceManager.h"
#include "forge/Frontend/CudaBuiltins.h"
#include "forge/Measure/IntExpr.h"
#include "forge/Measure/LaunchSpec.h"
#include "llvm/Support/FormatVariadic.h"
#include <functional>

using namespace clang;
using namespace llvm;

namespace forge::passes {
namespace {

namespace an = forge::analysis;

/// The parts of a matrix product the model recognised, as the rewrite
/// needs them. A is the operand that moves with the row (the y global
/// index), B the one that moves with the column (x).
struct Gemm {
  const VarDecl *Row = nullptr, *Col = nullptr, *Acc = nullptr, *P = nullptr;
  const ForStmt *Loop = nullptr;
  const Expr *Update = nullptr;               ///< acc += a * b (without ';')
  const Expr *ARead = nullptr, *BRead = nullptr;
  const an::Access *AAccess = nullptr, *BAccess = nullptr;
  const DeclStmt *AccDecl = nullptr;
  const Expr *Store = nullptr;                ///< C[...] = f(acc)
  /// The store's guard: the terms on row or col (kept per output), and the
  /// block-uniform rest (`b < batch`), checked once per block.
  std::vector<an::GuardTerm> Bounds, Uniform;
  /// Declarations inside the guarded code that the product reads (`const
  /// float *a = A + b * n * n;`): block-uniform, no loads, hoisted.
  std::vector<const DeclStmt *> Preludes;
  const Stmt *First = nullptr;                ///< the first top-level statement replaced
  /// The bounds as source text: row < M, col < N, p < K.
  std::string K;
  std::optional<std::string> M, N;
  std::string Batch;                          ///< the batch role, "" when none
  /// The accumulator's type where the kernel is compiled: its own type, or
  /// in a template on the element type the one type of the instantiations
  /// in the file (`mm<float><<<...>>>`); the operands' element types alike.
  QualType Elem, ElemA, ElemB;
  bool Dependent = false; ///< the types depend on template parameters
  const FunctionDecl *Instance = nullptr; ///< the instantiation, when Dependent
  /// How to spell A's element (row @I, counter @P) and B's (counter @P,
  /// column @I): an expression and the replacements of its pieces, with
  /// @I and @P standing for the names.
  struct Spelling {
    const Expr *E = nullptr;
    std::vector<std::pair<SourceRange, std::string>> Pieces;
  };
  Spelling SpellA, SpellB;
  /// A staged product's operands in the order of A and B.
  const an::StagedOperand *StA = nullptr, *StB = nullptr;
  /// A staged product (the model's Staging): the loop over phases, which
  /// the rewrite replaces, and the __shared__ tiles it no longer needs.
  const an::Staging *Staged = nullptr;
  const ForStmt *Outer = nullptr;
  std::vector<const VarDecl *> Tiles;
  /// Bounds the kernel does not check but its launches keep to (a staged
  /// product without a bounds check: the rows and columns the spec's grid
  /// covers), as kernel expressions.
  std::optional<std::string> CoverRows, CoverCols;
};

/// The expression S spells with @I and @P replaced by I and P ("" when it
/// is not plain text).
std::string spell(const Gemm::Spelling &S, ASTContext &Ctx, const std::string &I,
                  const std::string &P) {
  std::vector<std::pair<SourceRange, std::string>> R;
  for (auto [Rg, Text] : S.Pieces) {
    for (auto [From, To] : {std::pair<StringRef, const std::string *>{"@I", &I}, {"@P", &P}})
      for (size_t At = Text.find(From.str()); At != std::string::npos;
           At = Text.find(From.str(), At + To->size()))
        Text.replace(At, From.size(), *To);
    R.push_back({Rg, Text});
  }
  auto T = textWithReplacements(S.E, Ctx, R);
  return T ? *T : "";
}

const Stmt *single(const Stmt *S) {
  while (const auto *CS = dyn_cast_or_null<CompoundStmt>(S)) {
    if (CS->size() != 1)
      return S;
    S = CS->body_front();
  }
  return S;
}

/// The variable of Instance (an instantiation of the kernel template)
/// instantiated from the pattern's local V, found by its location.
const VarDecl *instantiatedVar(const VarDecl *V, const FunctionDecl &Instance) {
  struct Walk : DynamicRecursiveASTVisitor {
    const VarDecl *Want, *Found = nullptr;
    bool VisitVarDecl(VarDecl *D) override {
      if (D->getLocation() == Want->getLocation() && D->getName() == Want->getName())
        Found = D;
      return !Found;
    }
  } W;
  W.Want = V;
  W.TraverseStmt(Instance.getBody());
  return W.Found;
}

/// The local variables that E references.
std::vector<const VarDecl *> localsIn(const Stmt *E) {
  struct Walk : DynamicRecursiveASTVisitor {
    std::vector<const VarDecl *> Out;
    bool VisitDeclRefExpr(DeclRefExpr *R) override {
      if (const auto *V = dyn_cast<VarDecl>(R->getDecl()))
        if (V->hasLocalStorage() && !isa<ParmVarDecl>(V) && !llvm::is_contained(Out, V))
          Out.push_back(V);
      return true;
    }
  } W;
  W.TraverseStmt(const_cast<Stmt *>(E));
  return W.Out;
}

/// Whether S reads memory or calls anything (a load hoisted out of its
/// guard could fault).
bool loadsOrCalls(const Stmt *S) {
  struct Walk : DynamicRecursiveASTVisitor {
    bool Found = false;
    bool VisitArraySubscriptExpr(ArraySubscriptExpr *) override { return !(Found = true); }
    bool VisitCallExpr(CallExpr *) override { return !(Found = true); }
    bool VisitUnaryOperator(UnaryOperator *U) override {
      if (U->getOpcode() == UO_Deref)
        Found = true;
      return !Found;
    }
    bool VisitMemberExpr(MemberExpr *M) override {
      if (M->isArrow())
        Found = true;
      return !Found;
    }
  } W;
  W.TraverseStmt(const_cast<Stmt *>(S));
  return W.Found;
}

/// Whether E (a subexpression) lies inside S.
bool contains(const Stmt *S, const Stmt *E) {
  struct Walk : DynamicRecursiveASTVisitor {
    const Stmt *E;
    bool Found = false;
    bool VisitStmt(Stmt *X) override { return !(Found |= X == E); }
  } W;
  W.E = E;
  W.TraverseStmt(const_cast<Stmt *>(S));
  return W.Found;
}

/// The DeclRefExprs to V in S, as ranges to replace with Text.
void renameIn(const Stmt *S, const VarDecl *V, const std::string &Text,
              std::vector<std::pair<SourceRange, std::string>> &Out) {
  struct Walk : DynamicRecursiveASTVisitor {
    const VarDecl *V;
    std::vector<SourceRange> Found;
    bool VisitDeclRefExpr(DeclRefExpr *R) override {
      if (R->getDecl() == V)
        Found.push_back(R->getSourceRange());
      return true;
    }
  } W;
  W.V = V;
  W.TraverseStmt(const_cast<Stmt *>(S));
  for (SourceRange R : W.Found)
    Out.push_back({R, Text});
}

class GemmMatcher {
public:
  GemmMatcher(const RuleInput &In, an::KernelModel &M)
      : In(In), Ctx(In.Ctx), Body(kernelBody(In.Kernel)), M(M) {}

  std::optional<Gemm> match(std::string &Why);
  an::KernelModel &model() { return M; }

private:
  /// Whether Init is blockIdx.D * blockDim.D + threadIdx.D (blockDim as
  /// written or as the known block size).
  bool isGlobalIndexOf(const Expr *Init, char D) {
    PolyBuilder B(Ctx, In.Kernel);
    auto P = B.build(Init);
    IndexPoly Want = IndexPoly::atom(B.builtinAtom("blockIdx", D)) *
                         IndexPoly::atom(B.builtinAtom("blockDim", D)) +
                     IndexPoly::atom(B.builtinAtom("threadIdx", D));
    if (P && *P == Want)
      return true;
    if (!In.Request.Block)
      return false;
    PolyBuilder C(Ctx, In.Kernel);
    C.BlockDims = *In.Request.Block;
    auto Q = C.build(Init);
    return Q && *Q == C.globalIndex(D);
  }
  /// A local initialised once with a block-uniform value (`int b =
  /// blockIdx.z`, `const float *a = A + b * n * n`).
  bool uniformLocal(const VarDecl *V) {
    return V->getInit() && !isModified(V, Body) &&
           M.isUniform(V->getInit(), an::Uniformity::BlockUniform);
  }
  /// Whether S uses only the product's variables, kernel parameters,
  /// uniform locals and constants; otherwise Why names what else.
  bool selfContained(const Stmt *S, const Gemm &G, std::string &Why);
  bool classify(const Stmt *S, Gemm &G, std::string &Why);
  /// The staged product's loops: the loop over phases is the fills, the
  /// barriers and the loop over k, at the top level of the kernel.
  bool stagedLoops(const an::Pattern &P, Gemm &G, std::string &Why);
  /// The naive product's loop: `for (p = 0; p < K; ++p)` at the top level,
  /// K built from kernel parameters.
  bool naiveLoop(const an::Reduction &R, const an::Loop &KL, Gemm &G, std::string &Why);
  /// How to spell the global element a staged tile read stands for at
  /// (@I, @P): its fill's load with the row or column, the phase (@P /
  /// tile) and the thread index k replaced (@P % tile).
  bool stagedSpelling(const an::StagedOperand &O, const VarDecl *RowOrCol, Gemm::Spelling &Out,
                      std::string &Why);
  /// The rows and columns the spec's launches cover, for a staged product
  /// without a bounds check.
  bool coverage(Gemm &G, std::string &Why);

  const RuleInput &In;
  ASTContext &Ctx;
  const CompoundStmt *Body;
  an::KernelModel &M;
  std::vector<const VarDecl *> Allowed; ///< the uniform locals the product may read
  std::vector<const Stmt *> Skip;       ///< subtrees selfContained does not look into
};

bool GemmMatcher::selfContained(const Stmt *S, const Gemm &G, std::string &Why) {
  struct Walk : DynamicRecursiveASTVisitor {
    const Gemm *G;
    const FunctionDecl *Kernel;
    const std::vector<const VarDecl *> *Allowed;
    const std::vector<const Stmt *> *Skip;
    std::string Why;
    bool TraverseStmt(Stmt *S) override {
      return is_contained(*Skip, S) || DynamicRecursiveASTVisitor::TraverseStmt(S);
    }
    bool VisitDeclRefExpr(DeclRefExpr *R) override {
      const ValueDecl *D = R->getDecl();
      if (frontend::isCudaBuiltinVar(D))
        return fail("it uses '" + D->getNameAsString() + "' directly");
      if (const auto *V = dyn_cast<VarDecl>(D)) {
        if (V == G->Row || V == G->Col || V == G->Acc || V == G->P || is_contained(*Allowed, V))
          return true;
        if (const auto *P = dyn_cast<ParmVarDecl>(V))
          return paramIndex(*Kernel, P) && !isModified(P, Kernel->getBody())
                     ? true
                     : fail("it assigns the parameter '" + V->getNameAsString() + "'");
        if (V->hasLocalStorage())
          return fail("it uses '" + V->getNameAsString() +
                      "', which is neither the row, the column, the accumulator, the counter "
                      "nor a block-uniform local");
        if (!V->getType().isConstQualified() && !V->isConstexpr() && !V->hasAttr<CUDAConstantAttr>())
          return fail("it uses the global variable '" + V->getNameAsString() + "'");
      }
      return true;
    }
    bool VisitCallExpr(CallExpr *C) override {
      if (const FunctionDecl *FD = C->getDirectCallee())
        if (FD->getIdentifier() && (FD->getName().starts_with("__sync") ||
                                    FD->getName().starts_with("__shfl")))
          return fail("it calls '" + FD->getName().str() + "'");
      return true;
    }
    bool VisitReturnStmt(ReturnStmt *) override { return fail("it returns"); }
    bool VisitGotoStmt(GotoStmt *) override { return fail("it has a goto"); }
    bool fail(std::string W) {
      if (Why.empty())
        Why = std::move(W);
      return false;
    }
  } W;
  W.G = &G;
  W.Kernel = &In.Kernel;
  W.Allowed = &Allowed;
  W.Skip = &Skip;
  W.TraverseStmt(const_cast<Stmt *>(S));
  Why = W.Why;
  return Why.empty();
}

/// The statements from the product's first one to the end of the kernel:
/// ifs (the bounds checks, early returns), the accumulator's declaration,
/// the loop, the store, and block-uniform declarations without loads.
bool GemmMatcher::classify(const Stmt *S, Gemm &G, std::string &Why) {
  auto Line = [&](const Stmt *X) {
    return std::to_string(Ctx.getSourceManager().getPresumedLineNumber(X->getBeginLoc()));
  };
  if (!S || isa<NullStmt>(S))
    return true;
  if (const auto *CS = dyn_cast<CompoundStmt>(S)) {
    for (const Stmt *X : CS->body())
      if (!classify(X, G, Why))
        return false;
    return true;
  }
  if (const auto *If = dyn_cast<IfStmt>(S)) {
    if (If->getElse() || If->getInit() || If->getConditionVariable() ||
        !effectsOf(If->getCond(), In.Kernel, Ctx, [](const Expr *) { return false; }).empty()) {
      Why = "the 'if' at line " + Line(If) + " has an else branch, an initialiser or effects";
      return false;
    }
    if (isa<ReturnStmt>(single(If->getThen())))
      return true;
    return classify(If->getThen(), G, Why);
  }
  if (S == G.Loop || (G.Outer && S == G.Outer))
    return true;
  if (const auto *DS = dyn_cast<DeclStmt>(S)) {
    if (DS->isSingleDecl() && DS->getSingleDecl() == G.Acc) {
      G.AccDecl = DS;
      return true;
    }
    for (const Decl *D : DS->decls()) {
      const auto *V = dyn_cast<VarDecl>(D);
      if (!V || !uniformLocal(V) || loadsOrCalls(V->getInit()) || references(V->getInit(), G.Row) ||
          references(V->getInit(), G.Col)) {
        Why = "the declaration at line " + Line(DS) +
              " is not of a block-uniform value without loads";
        return false;
      }
    }
    G.Preludes.push_back(DS);
    for (const Decl *D : DS->decls())
      Allowed.push_back(cast<VarDecl>(D));
    return true;
  }
  if (const auto *E = dyn_cast<Expr>(S)) {
    const auto *A = dyn_cast<BinaryOperator>(E->IgnoreParens());
    if (A && A->isAssignmentOp() && !G.Store && references(A->getRHS(), G.Acc) &&
        isa<ArraySubscriptExpr>(A->getLHS()->IgnoreParens())) {
      const an::Access *W = M.accessAt(A->getLHS()->IgnoreParens());
      if (W && W->writes() && W->Space == an::MemorySpace::Global) {
        G.Store = A;
        return true;
      }
    }
  }
  Why = "the kernel has a statement besides the bounds checks, the accumulator, the loop and "
        "the store: '" + textOf(S, Ctx) + "' (line " + Line(S) + ")";
  return false;
}

bool GemmMatcher::naiveLoop(const an::Reduction &R, const an::Loop &KL, Gemm &G,
                            std::string &Why) {
  if (R.Loops.size() != 1 || KL.Parent >= 0) {
    Why = "the product's loop over k is nested in another loop";
    return false;
  }
  // for (int p = 0; p < K; ++p), K built from kernel parameters.
  const auto *Cmp = G.Loop && G.Loop->getCond()
                        ? dyn_cast<BinaryOperator>(G.Loop->getCond()->IgnoreParenImpCasts())
                        : nullptr;
  auto Const = [](const std::optional<an::IndexForm> &F, int64_t V) {
    return F && F->constantValue() == V;
  };
  if (!G.Loop || !G.P || !Const(KL.Start, 0) || KL.StepK != an::StepKind::Constant ||
      !Const(KL.Step, 1) || KL.Cmp != an::CmpOp::LT || !KL.ExtraCondText.empty() ||
      KL.HasEarlyExit || KL.HasSync || !Cmp || Cmp->getOpcode() != BO_LT ||
      asVar(Cmp->getLHS()) != G.P || isModified(G.P, G.Loop->getBody())) {
    Why = "the accumulation loop is not 'for (int p = 0; p < k; ++p)'";
    return false;
  }
  {
    PolyBuilder B(Ctx, In.Kernel);
    auto K = B.build(Cmp->getRHS());
    if (!K || !llvm::all_of(K->atoms(), [&](unsigned X) {
          return B.atom(X).Kind == PolyAtom::Param || B.atom(X).Kind == PolyAtom::TemplateParam;
        })) {
      Why = "the loop bound '" + textOf(Cmp->getRHS(), Ctx) + "' is not built from kernel parameters";
      return false;
    }
    G.K = B.render(*K);
  }
  return true;
}

bool GemmMatcher::stagedLoops(const an::Pattern &P, Gemm &G, std::string &Why) {
  const an::Staging &St = *P.Staged;
  const an::Loop &PL = M.Loops[St.PhaseLoop];
  const an::Reduction &R = M.Reductions[unsigned(P.Reduction)];
  G.Outer = dyn_cast_or_null<ForStmt>(PL.S);
  if (!G.Outer || !G.Loop || !G.P || PL.Parent >= 0 || R.Loops.size() != 2 ||
      R.Loops[0] != PL.Id || R.Loops[1] != P.Loops.front()) {
    Why = "the loop over phases is nested in another loop";
    return false;
  }
  if (!is_contained(Body->body(), G.Outer)) {
    Why = "the loop over phases is not at the top level of the kernel";
    return false;
  }
  // Its body: the fills, barriers and the loop over k, nothing else.
  std::vector<const Stmt *> Fills;
  for (const an::StagedOperand *O : {&St.A, &St.B})
    Fills.push_back(parentStmt(M.Accesses[O->Fill].E, Ctx));
  const auto *PB = dyn_cast<CompoundStmt>(G.Outer->getBody());
  for (const Stmt *S : PB ? PB->body() : CompoundStmt::body_const_range(nullptr, nullptr)) {
    const auto *C = dyn_cast<CallExpr>(S);
    if (S == G.Loop || is_contained(Fills, S) || isa<NullStmt>(S) ||
        (C && calleeNameOf(C).rfind("__syncthreads", 0) == 0 && C->getNumArgs() == 0))
      continue;
    Why = "the loop over phases computes more than the fills of the tiles and the product: '" +
          textOf(S, Ctx) + "'";
    return false;
  }
  if (isModified(G.P, G.Loop->getBody()) || isModified(PL.IV, G.Outer->getBody())) {
    Why = "the loops' counters are assigned in their bodies";
    return false;
  }
  G.K = "(" + St.KRangeText + ")";
  for (const an::StagedOperand *O : {&St.A, &St.B})
    if (const auto *V = dyn_cast_or_null<VarDecl>(M.Accesses[O->Read].Base))
      G.Tiles.push_back(V);
  return true;
}

bool GemmMatcher::stagedSpelling(const an::StagedOperand &O, const VarDecl *RowOrCol,
                                 Gemm::Spelling &Out, std::string &Why) {
  const an::Staging &St = *M.patterns(an::PatternKind::MatrixProduct).front()->Staged;
  const an::Access &Src = M.Accesses[O.Source];
  const VarDecl *Phase = M.Loops[St.PhaseLoop].IV;
  std::string Tile = std::to_string(St.Tile);
  Out.E = Src.E;
  Out.Pieces.clear();
  // The thread index the read replaces by k, through a local or as written;
  // blockDim as the block the fills assume.
  auto Builtin = [&](const Expr *E) -> std::optional<std::string> {
    auto B = frontend::cudaBuiltin(E);
    if (!B)
      return std::nullopt;
    if (B->Var == "threadIdx" && B->Dim == O.KDim)
      return "((@P) % " + Tile + ")";
    if (B->Var == "blockDim" && B->Dim >= 'x' && B->Dim <= 'z')
      return std::to_string(St.Block[unsigned(B->Dim - 'x')]);
    return std::string();
  };
  struct Walk : DynamicRecursiveASTVisitor {
    std::function<bool(Expr *)> Visit;
    bool TraverseStmt(Stmt *S) override {
      if (auto *E = dyn_cast_or_null<Expr>(S); E && !Visit(E))
        return true; // replaced as a whole
      return DynamicRecursiveASTVisitor::TraverseStmt(S);
    }
  } W;
  W.Visit = [&](Expr *E) {
    if (!Why.empty())
      return false;
    if (auto B = Builtin(E)) {
      if (B->empty())
        Why = "the fill of '" + O.Tile + "' uses '" + textOf(E, Ctx) +
              "' besides the row or column: an index the substitution cannot express";
      else
        Out.Pieces.push_back({E->getSourceRange(), *B});
      return false;
    }
    const auto *R = dyn_cast<DeclRefExpr>(E);
    const auto *V = R ? dyn_cast<VarDecl>(R->getDecl()) : nullptr;
    if (!V || !V->hasLocalStorage() || isa<ParmVarDecl>(V))
      return true;
    if (V == RowOrCol)
      Out.Pieces.push_back({R->getSourceRange(), "@I"});
    else if (V == Phase)
      Out.Pieces.push_back({R->getSourceRange(), "((@P) / " + Tile + ")"});
    else if (V->getInit() && !isModified(V, Body) &&
             Builtin(V->getInit()->IgnoreParenImpCasts()).value_or("").find("@P") !=
                 std::string::npos)
      Out.Pieces.push_back({R->getSourceRange(), "((@P) % " + Tile + ")"});
    else if (!uniformLocal(V))
      Why = "the fill of '" + O.Tile + "' uses '" + V->getNameAsString() +
            "' besides the row or column: an index the substitution cannot express";
    return false;
  };
  W.TraverseStmt(const_cast<Expr *>(Src.E));
  if (!Why.empty())
    return false;
  if (!Src.E->isLValue()) {
    Why = "the fill of '" + O.Tile + "' does not read its global operand as an array element";
    return false;
  }
  return true;
}

bool GemmMatcher::coverage(Gemm &G, std::string &Why) {
  const an::Staging &St = *G.Staged;
  const measure::LaunchSpec *Spec = In.Request.Spec;
  Why = "the product checks no bounds, and the spec does not say which rows and columns its "
        "grid covers";
  if (!Spec)
    return false;
  // The kernel parameters' values in the spec, by sample sizes.
  auto Params = [&](const measure::ValueMap &Env) -> std::optional<measure::ValueMap> {
    measure::ValueMap Out;
    for (unsigned I = 0; I < In.Kernel.getNumParams() && I < Spec->Args.size(); ++I) {
      const measure::Scalar *S = Spec->findScalar(Spec->Args[I]);
      if (!S)
        continue;
      if (const auto *V = std::get_if<int64_t>(&S->Value))
        Out[In.Kernel.getParamDecl(I)->getNameAsString()] = *V;
      else if (const auto *X = std::get_if<measure::IntExpr>(&S->Value)) {
        auto V2 = X->evaluate(Env);
        if (!V2) {
          consumeError(V2.takeError());
          return std::nullopt;
        }
        Out[In.Kernel.getParamDecl(I)->getNameAsString()] = *V2;
      }
    }
    return Out;
  };
  // Candidates: the range of kk, each integer parameter p, and p rounded
  // down to whole tiles.
  std::vector<std::string> Cands = {St.KRangeText};
  for (const ParmVarDecl *PD : In.Kernel.parameters())
    if (PD->getType()->isIntegerType()) {
      Cands.push_back(PD->getNameAsString());
      Cands.push_back(formatv("{0} / {1} * {1}", PD->getName(), St.Tile).str());
    }
  std::vector<std::array<int64_t, 2>> Covered; // rows, columns per sample
  std::vector<measure::ValueMap> Values;
  for (int64_t Base : {int64_t(0), int64_t(16), int64_t(17), int64_t(100), int64_t(129),
                       int64_t(1000), int64_t(4100)}) {
    measure::ValueMap Over;
    if (Base)
      for (size_t I = 0; I < Spec->Sizes.size(); ++I)
        Over[Spec->Sizes[I].first] = Base + 5 * int64_t(I);
    auto Env = Spec->environment(Over);
    if (!Env) {
      consumeError(Env.takeError());
      continue;
    }
    auto Geo = Spec->geometry(*Env);
    auto P = Params(*Env);
    if (!Geo || !P) {
      if (!Geo)
        consumeError(Geo.takeError());
      continue;
    }
    Covered.push_back({Geo->Grid[1] * Geo->Block[1], Geo->Grid[0] * Geo->Block[0]});
    Values.push_back(*P);
  }
  if (Covered.size() < 3)
    return false;
  auto Match = [&](int Dim) -> std::optional<std::string> {
    for (const std::string &C : Cands) {
      auto E = measure::IntExpr::parse(C);
      if (!E) {
        consumeError(E.takeError());
        continue;
      }
      bool All = true;
      for (size_t I = 0; I < Covered.size() && All; ++I) {
        auto V = E->evaluate(Values[I]);
        All = V && *V == Covered[I][unsigned(Dim)];
        if (!V)
          consumeError(V.takeError());
      }
      if (All)
        return "(" + C + ")";
    }
    return std::nullopt;
  };
  G.CoverRows = Match(0);
  G.CoverCols = Match(1);
  if (!G.CoverRows || !G.CoverCols) {
    Why = "the product checks no bounds, and the rows and columns the spec's grid covers are "
          "not " + join(Cands, ", ") + " (tried at several sizes)";
    return false;
  }
  G.M = G.CoverRows;
  G.N = G.CoverCols;
  Why.clear();
  return true;
}

std::optional<Gemm> GemmMatcher::match(std::string &Why) {
  std::vector<const an::Pattern *> Ps = M.patterns(an::PatternKind::MatrixProduct);
  if (Ps.empty()) {
    Why = "the model recognises no matrix product (C[i][j] = sum over k of A[i][k] * B[k][j])";
    return std::nullopt;
  }
  if (Ps.size() > 1) {
    Why = formatv("the kernel holds {0} matrix products; only a kernel that is one is tiled",
                  Ps.size()).str();
    return std::nullopt;
  }
  const an::Pattern &P = *Ps.front();
  const an::Access &A0 = M.Accesses[P.Accesses[0]], &B0 = M.Accesses[P.Accesses[1]];
  if (P.Tiled) {
    Why = "the product is already tiled: " +
          (A0.Space == an::MemorySpace::Shared ? A0.Buffer : B0.Buffer) +
          " is read from shared memory" +
          (P.NotStagedWhy.empty() ? ""
                                  : " (its tiles do not stand for global operands: " +
                                        P.NotStagedWhy + ")");
    return std::nullopt;
  }
  if (P.Reduction < 0) {
    Why = "the product accumulates in memory (loop order " + P.LoopOrder +
          "), not in a per-thread accumulator";
    return std::nullopt;
  }
  const an::Reduction &R = M.Reductions[unsigned(P.Reduction)];
  const an::Loop &KL = M.Loops[P.Loops.front()];
  Gemm G;
  G.Acc = R.Acc;
  G.Batch = P.role("batch").str();
  G.Loop = dyn_cast_or_null<ForStmt>(KL.S);
  G.Staged = P.Staged ? &*P.Staged : nullptr;
  G.P = KL.IV;
  if (!G.Acc) {
    Why = "the accumulator is not a local float or double";
    return std::nullopt;
  }
  G.Elem = G.Acc->getType().getCanonicalType().getUnqualifiedType();
  if (G.Elem->isDependentType()) {
    // A template on the element type: the rewrite keeps the template's own
    // spelling (T) and chooses vectors and tiles by the type it is
    // instantiated with in this file.
    G.Dependent = true;
    std::string Types;
    G.Elem = QualType();
    for (const FunctionDecl *Inst : instantiationsOf(In.Kernel)) {
      const VarDecl *V = instantiatedVar(G.Acc, *Inst);
      if (!V)
        continue;
      QualType T = V->getType().getCanonicalType().getUnqualifiedType();
      if (G.Elem.isNull() || !Ctx.hasSameType(G.Elem, T)) {
        G.Instance = Inst;
        Types += (Types.empty() ? "" : ", ") + typeSpelling(T, Ctx);
        if (!G.Elem.isNull()) {
          Why = "the kernel template is instantiated with several element types (" + Types +
                "); the rewrite is chosen by the element type";
          return std::nullopt;
        }
        G.Elem = T;
      }
    }
    if (G.Elem.isNull()) {
      Why = "the accumulator's type '" + typeSpelling(G.Acc->getType(), Ctx) +
            "' is a template parameter and the file instantiates the kernel with no type";
      return std::nullopt;
    }
  }
  if (!G.Elem->isRealFloatingType()) {
    Why = G.Dependent ? "the accumulator is a '" + typeSpelling(G.Elem, Ctx) +
                            "' in the kernel's one instantiation, not a float or double"
                      : "the accumulator is not a local float or double";
    return std::nullopt;
  }
  if (P.Staged) {
    if (!stagedLoops(P, G, Why))
      return std::nullopt;
  } else if (!naiveLoop(R, KL, G, Why)) {
    return std::nullopt;
  }
  // The loop body is the update of the accumulator, and it multiplies the
  // two operands.
  const auto *U = dyn_cast_or_null<Expr>(single(G.Loop->getBody()));
  const auto *UA = U ? dyn_cast<BinaryOperator>(U->IgnoreParens()) : nullptr;
  const Expr *RA = P.Staged ? M.Accesses[P.Staged->A.Read].E : A0.E;
  const Expr *RB = P.Staged ? M.Accesses[P.Staged->B.Read].E : B0.E;
  if (!UA || !UA->isAssignmentOp() || asVar(UA->getLHS()) != G.Acc || !RA || !RB ||
      !contains(UA->getRHS(), RA) || !contains(UA->getRHS(), RB)) {
    Why = "the loop's body is not the one update 'acc += A[...] * B[...]'";
    return std::nullopt;
  }
  G.Update = UA;
  // The top-level declarations before the product stay; the uniform ones
  // may be read by it.
  std::vector<const Stmt *> Top;
  for (const Stmt *S : Body->body())
    if (!isa<NullStmt>(S))
      Top.push_back(S);
  size_t FirstIdx = 0;
  for (; FirstIdx < Top.size(); ++FirstIdx) {
    const auto *DS = dyn_cast<DeclStmt>(Top[FirstIdx]);
    if (!DS || llvm::any_of(DS->decls(), [&](const Decl *D) { return D == G.Acc; }))
      break;
    for (const Decl *D : DS->decls())
      if (const auto *V = dyn_cast<VarDecl>(D); V && uniformLocal(V))
        Allowed.push_back(V);
  }
  // Row and column: the one non-uniform local besides the counter in each
  // operand's index.
  // A staged operand's fill also uses the phase and the thread index the
  // read replaces by k.
  auto StagedLocal = [&](const VarDecl *V) {
    if (!G.Staged || !V->getInit() || isModified(V, Body))
      return G.Staged && V == M.Loops[G.Staged->PhaseLoop].IV;
    an::IndexForm F = M.formOf(V->getInit());
    const auto &Ts = F.terms();
    return Ts.size() == 1 && Ts.begin()->second == 1 && Ts.begin()->first.size() == 1 &&
           M.atoms()[Ts.begin()->first.front()].Kind == an::AtomKind::ThreadIdx;
  };
  auto IndexLocal = [&](const an::Access &X) -> const VarDecl * {
    std::vector<const VarDecl *> L = localsIn(X.E);
    llvm::erase_if(L, [&](const VarDecl *V) {
      return V == G.P || uniformLocal(V) || StagedLocal(V);
    });
    return L.size() == 1 ? L[0] : nullptr;
  };
  const VarDecl *LA = IndexLocal(A0), *LB = IndexLocal(B0);
  if (!LA || !LB || LA == LB) {
    Why = "the operands are not indexed by the loop counter and one of row, col each";
    return std::nullopt;
  }
  for (const VarDecl *V : {LA, LB}) {
    if (!V->getInit() || isModified(V, Body)) {
      Why = "'" + V->getNameAsString() + "' is not a variable initialised once";
      return std::nullopt;
    }
    if (isGlobalIndexOf(V->getInit(), 'y'))
      G.Row = V;
    else if (isGlobalIndexOf(V->getInit(), 'x'))
      G.Col = V;
  }
  if (!G.Row || !G.Col) {
    Why = "the operands' indices are not a row 'blockIdx.y * blockDim.y + threadIdx.y' and a "
          "column 'blockIdx.x * blockDim.x + threadIdx.x'";
    return std::nullopt;
  }
  bool Swap = LA != G.Row;
  G.AAccess = Swap ? &B0 : &A0;
  G.BAccess = Swap ? &A0 : &B0;
  G.ARead = Swap ? RB : RA;
  G.BRead = Swap ? RA : RB;
  if (G.Staged) {
    if (!stagedSpelling(Swap ? G.Staged->B : G.Staged->A, G.Row, G.SpellA, Why) ||
        !stagedSpelling(Swap ? G.Staged->A : G.Staged->B, G.Col, G.SpellB, Why))
      return std::nullopt;
    Skip = {G.ARead, G.BRead};
    G.StA = Swap ? &G.Staged->B : &G.Staged->A;
    G.StB = Swap ? &G.Staged->A : &G.Staged->B;
  } else {
    G.SpellA.E = G.ARead;
    renameIn(G.ARead, G.Row, "@I", G.SpellA.Pieces);
    renameIn(G.ARead, G.P, "@P", G.SpellA.Pieces);
    G.SpellB.E = G.BRead;
    renameIn(G.BRead, G.Col, "@I", G.SpellB.Pieces);
    renameIn(G.BRead, G.P, "@P", G.SpellB.Pieces);
  }
  // Only declarations not using row or col come before the product.
  bool RowSeen = false, ColSeen = false;
  for (size_t I = 0; I < FirstIdx; ++I)
    for (const Decl *D : cast<DeclStmt>(Top[I])->decls()) {
      const auto *V = dyn_cast<VarDecl>(D);
      RowSeen |= V == G.Row;
      ColSeen |= V == G.Col;
      const Expr *Init = V ? V->getInit() : nullptr;
      for (const VarDecl *Used : {G.Row, G.Col})
        if (Init && references(Init, Used)) {
          Why = "'" + Used->getNameAsString() + "' is used outside the product (by '" +
                V->getNameAsString() + "')";
          return std::nullopt;
        }
    }
  if (!RowSeen || !ColSeen) {
    Why = "'" + G.Row->getNameAsString() + "' and '" + G.Col->getNameAsString() +
          "' are not declared at the top of the kernel";
    return std::nullopt;
  }
  if (FirstIdx == Top.size()) {
    Why = "the kernel has no statements after its declarations";
    return std::nullopt;
  }
  G.First = Top[FirstIdx];
  for (size_t I = FirstIdx; I < Top.size(); ++I)
    if (!classify(Top[I], G, Why))
      return std::nullopt;
  if (!G.AccDecl || !G.Acc->getInit() || !G.Store) {
    Why = !G.AccDecl ? "'" + G.Acc->getNameAsString() + "' is not declared alone, with a value"
                     : "no statement stores the accumulator to global memory";
    return std::nullopt;
  }
  // The operands' element types where the kernel is compiled.
  G.ElemA = G.ARead->getType().getCanonicalType().getUnqualifiedType();
  G.ElemB = G.BRead->getType().getCanonicalType().getUnqualifiedType();
  if (G.Dependent) {
    const auto *IA = dyn_cast_or_null<Expr>(instantiatedStmt(G.ARead, *G.Instance));
    const auto *IB = dyn_cast_or_null<Expr>(instantiatedStmt(G.BRead, *G.Instance));
    G.ElemA = IA ? IA->getType().getCanonicalType().getUnqualifiedType() : QualType();
    G.ElemB = IB ? IB->getType().getCanonicalType().getUnqualifiedType() : QualType();
  }
  if (!localsIn(G.Acc->getInit()).empty()) {
    Why = "the accumulator's initial value depends on local variables";
    return std::nullopt;
  }
  if (references(G.Store->IgnoreParens(), G.Acc) &&
      (M.accessAt(cast<BinaryOperator>(G.Store)->getLHS()->IgnoreParens())->Base ==
           G.AAccess->Base ||
       M.accessAt(cast<BinaryOperator>(G.Store)->getLHS()->IgnoreParens())->Base ==
           G.BAccess->Base)) {
    Why = "the result is stored into an operand";
    return std::nullopt;
  }
  const SourceManager &SM = Ctx.getSourceManager();
  const ForStmt *Top1 = G.Outer ? G.Outer : G.Loop;
  if (!SM.isBeforeInTranslationUnit(G.AccDecl->getBeginLoc(), Top1->getBeginLoc()) ||
      !SM.isBeforeInTranslationUnit(Top1->getEndLoc(), G.Store->getBeginLoc())) {
    Why = "the accumulator's declaration, the loop and the store are not in this order";
    return std::nullopt;
  }
  // The guards: the store's must imply the loop's (the loop ran wherever
  // the result is stored); PMPP's two identical checks qualify.
  an::Guard GL = M.guardOf(Top1), GS = M.guardOf(G.Store);
  for (const an::GuardTerm &T : GL.Terms)
    if (none_of(GS.Terms, [&](const an::GuardTerm &S) { return S.Text == T.Text; })) {
      Why = "the loop runs under '" + T.Text + "', which the store does not check";
      return std::nullopt;
    }
  for (const an::GuardTerm &T : GS.Terms) {
    if (!T.Cond) {
      Why = "the store's guard term '" + T.Text + "' has no condition";
      return std::nullopt;
    }
    if (references(T.Cond, G.Row) || references(T.Cond, G.Col))
      G.Bounds.push_back(T);
    else if (M.isUniform(T.Cond, an::Uniformity::BlockUniform))
      G.Uniform.push_back(T);
    else {
      Why = "the store's guard term '" + T.Text +
            "' varies with the thread but is not on the row or the column";
      return std::nullopt;
    }
  }
  for (const Stmt *S : {static_cast<const Stmt *>(G.AccDecl), static_cast<const Stmt *>(G.Loop),
                        static_cast<const Stmt *>(G.Store)}) {
    std::string W;
    if (!selfContained(S, G, W)) {
      Why = "the product's code is not a function of (row, col) alone: " + W;
      return std::nullopt;
    }
  }
  for (const an::GuardTerm &T : GS.Terms) {
    std::string W;
    if (!selfContained(T.Cond, G, W)) {
      Why = "the bounds check is not a function of (row, col) alone: " + W;
      return std::nullopt;
    }
  }
  // The bounds: row < M, col < N, from the check.
  PolyBuilder B(Ctx, In.Kernel);
  B.Opaque.insert(G.Row);
  B.Opaque.insert(G.Col);
  std::vector<Condition> Conds;
  for (const an::GuardTerm &T : G.Bounds)
    Conds.push_back(Condition{T.Cond, T.Holds});
  std::vector<IndexPoly> Facts = factsFrom(Conds, B);
  auto Bound = [&](const VarDecl *V) -> std::optional<std::string> {
    IndexPoly X = IndexPoly::atom(B.atomFor(V));
    for (const IndexPoly &F : Facts) {
      IndexPoly Up = F + X;
      if (!Up.isConstant() && llvm::all_of(Up.atoms(), [&](unsigned A) {
            return B.atom(A).Kind == PolyAtom::Param || B.atom(A).Kind == PolyAtom::TemplateParam;
          }))
        return B.render(Up + IndexPoly::constant(1));
    }
    return std::nullopt;
  };
  G.M = Bound(G.Row);
  G.N = Bound(G.Col);
  if (G.Bounds.empty() && G.Staged) {
    if (!coverage(G, Why))
      return std::nullopt;
    return G;
  }
  if (G.Bounds.empty()) {
    Why = "the product has no bounds check ('if (row < m && col < n)' around it or "
          "'if (row >= m || col >= n) return;' before it)";
    return std::nullopt;
  }
  if (!G.M) {
    Why = "the bounds check '" + GS.render() + "' has no upper bound on '" +
          G.Row->getNameAsString() + "'";
    return std::nullopt;
  }
  return G;
}

class RegisterTilingRule : public ExpertRule {
public:
  StringRef name() const override { return "register-tiling"; }
  RuleOutcome propose(const RuleInput &In) override;
};

/// The text of S with renames, or "" when it is not plain text.
std::string rewritten(const Stmt *S, ASTContext &Ctx,
                      ArrayRef<std::pair<SourceRange, std::string>> Repl) {
  auto T = textWithReplacements(S, Ctx, Repl);
  return T ? *T : "";
}

RuleOutcome RegisterTilingRule::propose(const RuleInput &In) {
  const CompoundStmt *Body = kernelBody(In.Kernel);
  if (!Body)
    return notApplicable("the kernel has no body");
  ASTContext &Ctx = In.Ctx;
  const agent::ProposalRequest &Req = In.Request;
  // The model without the launch block: blockDim stays a symbol.
  auto MOr = an::analyzeKernel(Ctx, In.Kernel, an::AnalysisOptions());
  if (!MOr)
    return notApplicable(toString(MOr.takeError()));
  GemmMatcher Matcher(In, *MOr);
  std::string Why;
  auto Found = Matcher.match(Why);
  if (!Found)
    return notApplicable(Why);
  Gemm &G = *Found;

  std::set<std::string> Taken;
  auto Fresh = [&](StringRef Base) { return freshName(Base, In.Kernel, Taken); };
  std::string Acc = Fresh("rt_acc"), Ok = Fresh("rt_ok"), R = Fresh("rt_r"), Row = Fresh("rt_row"),
              Col = Fresh("rt_col"), Bv = Fresh("rt_b"), Av = Fresh("rt_a"), Ii = Fresh("rt_i"),
              Jj = Fresh("rt_j"), K0 = Fresh("rt_k0"), Kk = Fresh("rt_kk"), Tt = Fresh("rt_t"),
              Pp = Fresh("rt_p"), As = Fresh("rt_As"), Bs = Fresh("rt_Bs");
  QualType AccType = G.Acc->getType();
  std::string T = typeSpelling(AccType, Ctx), Zero = zeroOf(AccType, Ctx);
  std::string RowT = typeSpelling(G.Row->getType(), Ctx), ColT = typeSpelling(G.Col->getType(), Ctx);
  std::string PT = typeSpelling(G.P->getType(), Ctx);
  std::string Init = textOf(G.Acc->getInit(), Ctx);
  bool IsDouble = G.Elem->isSpecificBuiltinType(BuiltinType::Double);

  EditCollector EC(In);
  const Stmt *Last = nullptr;
  for (const Stmt *S : Body->body())
    if (!isa<NullStmt>(S))
      Last = S;
  auto FirstOff = EC.offsetOf(G.First->getBeginLoc());
  auto LastRange = EC.rangeOf(Last->getSourceRange());
  auto LoopBegin = EC.offsetOf(G.Loop->getBeginLoc());
  auto LoopBody = EC.offsetOf(G.Loop->getBody()->getBeginLoc());
  if (!FirstOff || !LastRange || !LoopBegin || !LoopBody)
    return notApplicable("the product is written inside a macro");
  std::string Ind = lineIndent(In.Source, *FirstOff).str();
  std::string I1 = Ind + "  ", I2 = I1 + "  ", I3 = I2 + "  ", I4 = I3 + "  ";
  // The region: from the product's first statement to the kernel's last.
  unsigned RegionEnd = pastSemicolon(In.Source, LastRange->second);
  std::string Header =
      G.Staged ? formatv("for ({0} {1} = 0; {1} < {2}; ++{1})", typeSpelling(G.P->getType(), Ctx),
                         G.P->getName(), G.K).str()
               : In.Source.slice(*LoopBegin, *LoopBody).rtrim().str();
  std::string ARead = spell(G.SpellA, Ctx, G.Row->getNameAsString(), G.P->getNameAsString()),
              BRead = spell(G.SpellB, Ctx, G.Col->getNameAsString(), G.P->getNameAsString());
  if (ARead.empty() || BRead.empty() || Init.empty())
    return notApplicable("the product is written inside a macro");
  // The store's bounds check for one output, with row and column renamed
  // ("" inside a macro).
  auto BoundsAt = [&](const std::string &RowName, const std::string &ColName) -> std::string {
    std::string Out;
    for (const an::GuardTerm &B : G.Bounds) {
      std::vector<std::pair<SourceRange, std::string>> Cd;
      renameIn(B.Cond, G.Row, RowName, Cd);
      renameIn(B.Cond, G.Col, ColName, Cd);
      std::string X = rewritten(B.Cond, Ctx, Cd);
      if (X.empty())
        return "";
      Out += (Out.empty() ? "" : " && ") + (B.Holds ? "(" + X + ")" : "!(" + X + ")");
    }
    // The rows and columns the launches cover, for a staged product
    // without a bounds check.
    if (G.CoverRows && G.CoverCols)
      Out += (Out.empty() ? "" : " && ") + RowName + " < " + *G.CoverRows + " && " + ColName +
             " < " + *G.CoverCols;
    return Out;
  };
  // The staged product's tiles are no longer used: their declarations go.
  auto EraseTiles = [&](EditCollector &E) {
    for (const VarDecl *V : G.Tiles) {
      auto Ps = Ctx.getParents(*V);
      const auto *DS = Ps.empty() ? nullptr : Ps[0].get<DeclStmt>();
      if (DS && DS->isSingleDecl())
        if (auto Rg = E.rangeOfStatement(DS))
          E.add(eraseWithLine(In.Source, Rg->first, Rg->second));
    }
  };
  // What every variant begins with: the hoisted block-uniform declarations
  // and the block-uniform part of the check, as an early return of the
  // whole block.
  std::string Pre;
  for (const DeclStmt *DS : G.Preludes) {
    auto Rg = EC.rangeOf(DS->getSourceRange());
    if (!Rg)
      return notApplicable("the product is written inside a macro");
    Pre += In.Source.slice(Rg->first, pastSemicolon(In.Source, Rg->second)).str() + "\n" + Ind;
  }
  if (!G.Uniform.empty()) {
    std::string U;
    for (const an::GuardTerm &B : G.Uniform) {
      std::string X = textOf(B.Cond, Ctx);
      if (X.empty())
        return notApplicable("the product is written inside a macro");
      U += (U.empty() ? "" : " && ") + (B.Holds ? "(" + X + ")" : "!(" + X + ")");
    }
    Pre += "if (!(" + U + "))\n" + I1 + "return; // the same for the whole block\n" + Ind;
  }

  std::optional<agent::SpecChange> NoSpec;
  auto Spec = [&](unsigned TM, unsigned TN) -> std::optional<agent::SpecChange> {
    agent::SpecChange S;
    auto GY = Req.Geometry.find("grid.y"), GX = Req.Geometry.find("grid.x");
    if (TM > 1 && GY != Req.Geometry.end() && !GY->second.empty())
      S.Geometry["grid.y"] = formatv("ceil_div({0}, {1})", GY->second, TM).str();
    if (TN > 1 && GX != Req.Geometry.end() && !GX->second.empty())
      S.Geometry["grid.x"] = formatv("ceil_div({0}, {1})", GX->second, TN).str();
    if (S.Geometry.empty())
      return std::nullopt;
    S.Justification = formatv("each block now covers {0} times the rows{1} of C, and every row "
                              "and column is checked against the original bounds, so any grid "
                              "at least this large is correct",
                              TM, TN > 1 ? formatv(" and {0} times the columns", TN).str() : "")
                          .str();
    return S;
  };

  // The block-tiled launch: one block per BM x BN tile of C whatever the
  // block's shape (a grid that covered C with the original's blocks, over
  // the tile), the block pinned at 256 threads by a constraint, and the
  // tunables that give it.
  auto TileLaunch = [&](int64_t BM, int64_t BN,
                        const RetunedLaunch &L) -> std::optional<agent::SpecChange> {
    auto Field = [&](const char *F) -> std::string {
      auto It = Req.Geometry.find(F);
      return It == Req.Geometry.end() ? std::string() : It->second;
    };
    std::string GX = Field("grid.x"), GY = Field("grid.y"), BXe = Field("block.x"),
                BYe = Field("block.y"), BZe = Field("block.z");
    if (GX.empty() || GY.empty() || BXe.empty() || BYe.empty())
      return std::nullopt;
    agent::SpecChange S;
    S.Geometry["grid.x"] = formatv("ceil_div(({0}) * ({1}), {2})", GX, BXe, BN).str();
    S.Geometry["grid.y"] = formatv("ceil_div(({0}) * ({1}), {2})", GY, BYe, BM).str();
    S.Values = L.Values;
    S.NewConstraints.push_back(
        formatv("({0}) * ({1}) * ({2}) == 256", BXe, BYe, BZe.empty() ? "1" : BZe).str());
    std::string Set;
    for (const auto &[Name, Value] : L.Values)
      Set += (Set.empty() ? "" : ", ") + Name + " = " + std::to_string(Value);
    S.Justification =
        formatv("each block computes one {0} x {1} tile of C, so a grid of ceil_div(columns "
                "covered, {1}) x ceil_div(rows covered, {0}) blocks covers what the original "
                "grid covered, every output keeping its bounds check; the kernel needs 256 "
                "threads a block, now a constraint of the spec{2}",
                BM, BN,
                Set.empty() ? ""
                : L.SpecOnly
                    ? " (" + Set + "; no launch of the kernel is in this file: launch it so)"
                    : " (" + Set + ", written into the source)")
            .str();
    return S;
  };

  std::vector<agent::Proposal> Proposals;
  std::string FirstNotApplicable;

  // 0. Block tiling for large products: 256 threads per block, a BM x BN
  // tile of C, BK-deep tiles of A (stored transposed) and B double-buffered
  // in shared memory, read with 16-byte vector loads.
  // The element types where the kernel is compiled (a template's
  // instantiation), and as the source spells them (T in a template).
  QualType ElemA = G.ElemA, ElemB = G.ElemB;
  QualType SpelledA = G.ARead->getType().getUnqualifiedType();
  auto BlockTiled = [&](int64_t BM, int64_t BN, int64_t BK, int64_t MinBlocks) -> std::string {
    const int64_t NT = 256, TM = BM / 16, TN = BN / 16;
    if (ElemA.isNull() || ElemB.isNull())
      return "the operands' types in the template's instantiation are not known";
    bool Float = ElemA->isSpecificBuiltinType(BuiltinType::Float);
    if (!Ctx.hasSameType(ElemA, ElemB) ||
        !(Float || ElemA->isSpecificBuiltinType(BuiltinType::Double)))
      return "the operands are not both float or both double";
    if (!G.N)
      return "the bounds check has no upper bound on '" + G.Col->getNameAsString() + "'";
    // 256 threads in a 2D shape that divides the tile: the current launch,
    // or the spec's tunables set to give one (written into the source).
    auto L = launchWithBlock(In, [&](const std::array<int64_t, 3> &B) {
      return B[0] * B[1] * B[2] == NT && B[2] == 1 && BN % B[0] == 0 && BM % B[1] == 0;
    });
    if (!L)
      return formatv("needs 256 threads in a 2D block that divides the {0} x {1} tile: {2}", BM,
                     BN, toString(L.takeError()))
          .str();
    int64_t BX = L->Block[0], BY = L->Block[1];
    const int64_t VW = Float ? 4 : 2;
    std::string E = typeSpelling(SpelledA, Ctx), V = Float ? "float4" : "double2";
    std::string EZero = zeroOf(SpelledA, Ctx);
    const char *Lanes[] = {"x", "y", "z", "w"};
    uint64_t Bytes = uint64_t(2 * BK * (BM + BN)) * (Ctx.getTypeSize(ElemA) / 8);
    uint64_t Existing = frontend::totalBytes(frontend::staticSharedVariables(In.Kernel, Ctx));
    if (Bytes + Existing > uint64_t(In.Target.limits().StaticSharedMemPerBlock))
      return formatv("the tiles need {0} bytes of shared memory ({1} already used)", Bytes,
                     Existing).str();
    if (!G.SpellA.E->isLValue() || !G.SpellB.E->isLValue())
      return "an operand is not read as an array element";
    // The unit-stride dimension of each operand, from the model: A along k
    // or along its rows, B along its columns or along k.
    const an::Loop &KL = *Matcher.model().loopOf(G.P);
    auto Unit = [&](const an::Slope &S) { return S.constant() == int64_t(1); };
    // A staged operand's index: the global element the tile stands for.
    an::Access XA = *G.AAccess, XB = *G.BAccess;
    if (G.StA) {
      XA.Index = G.StA->Global;
      XB.Index = G.StB->Global;
    }
    bool AK = Unit(Matcher.model().slopeAlongLoop(XA, KL));
    bool AR = !AK && Unit(Matcher.model().slopeAlong(XA, "threadIdx", 'y'));
    bool BC = Unit(Matcher.model().slopeAlong(XB, "threadIdx", 'x'));
    bool BK1 = !BC && Unit(Matcher.model().slopeAlongLoop(XB, KL));
    bool AVec = G.AAccess->Affine && (AK || AR), BVec = G.BAccess->Affine && (BC || BK1);
    // An operand read at (r, p).
    auto ReadA = [&](const std::string &Rn, const std::string &Pn) {
      return spell(G.SpellA, Ctx, Rn, Pn);
    };
    auto ReadB = [&](const std::string &Pn, const std::string &Cn) {
      return spell(G.SpellB, Ctx, Cn, Pn);
    };
    std::string Mt = *G.M, Nt = *G.N, Kt = G.K;
    // Names of this variant only: each proposal is applied on its own.
    std::set<std::string> Mine = Taken;
    auto Own = [&](StringRef Base) { return freshName(Base, In.Kernel, Mine); };
    std::string S0 = Own("rt_s"), Vv = Own("rt_v"), Ee = Own("rt_e"), Qq = Own("rt_q"),
                Tx = Own("rt_tx"), Ty = Own("rt_ty"), Va = Own("rt_va"), Vb = Own("rt_vb"),
                Ra = Own("rt_ra"), Rb = Own("rt_rb"), W = Own("rt_w"), Gg = Own("rt_g"),
                More = Own("rt_more"), Rr = Own("rt_rr"), Cc = Own("rt_cc");
    if (ReadA("0", "0").empty() || ReadB("0", "0").empty())
      return "the product is written inside a macro";
    // The vector path: the operand's unit dimension is a multiple of VW
    // long, its base 16-byte aligned and its other stride a multiple of VW.
    auto VecCheck = [&](bool Vec, const std::string &Bound, const std::string &At00,
                        const std::string &AtOther) -> std::string {
      if (!Vec)
        return "false";
      return formatv("({0}) % {1} == 0 && reinterpret_cast<unsigned long long>(&{2}) % 16 == 0 "
                     "&& (&{3} - &{2}) % {1} == 0",
                     Bound, VW, At00, AtOther).str();
    };
    std::string VA = VecCheck(AVec, AK ? Kt : Mt, ReadA("0", "0"),
                              AK ? ReadA("1", "0") : ReadA("0", "1"));
    std::string VB = VecCheck(BVec, BC ? Nt : Kt, ReadB("0", "0"),
                              BC ? ReadB("1", "0") : ReadB("0", "1"));
    // Loads of one operand's tile into registers: vector v covers VW
    // elements along the unit dimension (U long in the tile).
    struct Side {
      bool UnitFirst;       ///< unit dimension is the first coordinate (row / k)
      int64_t Ext0, Ext1;   ///< tile extents of the (row or k, k or col) coordinates
    };
    auto NumVec = [&](int64_t Elems) { return (Elems / VW + NT - 1) / NT; };
    int64_t NA = NumVec(BM * BK), NB = NumVec(BK * BN);
    // Coordinates of vector Vv's first element in the tile: (c0, c1).
    auto Coords = [&](bool UnitFirst, int64_t Ext0, int64_t Ext1) {
      if (UnitFirst)
        return std::make_pair(formatv("({0} % {1}) * {2}", Vv, Ext0 / VW, VW).str(),
                              formatv("{0} / {1}", Vv, Ext0 / VW).str());
      return std::make_pair(formatv("{0} / {1}", Vv, Ext1 / VW).str(),
                            formatv("({0} % {1}) * {2}", Vv, Ext1 / VW, VW).str());
    };
    // A's tile coordinates are (row, k); B's are (k, col).
    bool AUnitRow = AR, BUnitK = BK1;
    auto ACo = Coords(AUnitRow, BM, BK), BCo = Coords(BUnitK, BK, BN);
    std::string U = "#pragma unroll\n";
    auto LoadTiles = [&](const std::string &KBase, const std::string &I) {
      std::string C, J = I + "  ", J2 = J + "  ", J3 = J2 + "  ";
      for (int Op = 0; Op < 2; ++Op) {
        bool IsA = Op == 0;
        int64_t N = IsA ? NA : NB, Elems = IsA ? BM * BK : BK * BN;
        auto Co = IsA ? ACo : BCo;
        bool UF = IsA ? AUnitRow : BUnitK;
        std::string Reg = IsA ? Ra : Rb, Ok0 = IsA ? Va : Vb;
        std::string T0 = IsA ? RowT : PT, T1 = IsA ? PT : ColT;
        std::string X0 = IsA ? formatv("blockIdx.y * {0} + {1}", BM, Co.first).str()
                             : KBase + " + " + Co.first;
        std::string X1 = IsA ? KBase + " + " + Co.second
                             : formatv("blockIdx.x * {0} + {1}", BN, Co.second).str();
        std::string B0 = IsA ? Mt : Kt, B1 = IsA ? Kt : Nt;
        auto Read = [&](const std::string &A0, const std::string &A1) {
          return IsA ? ReadA(A0, A1) : ReadB(A0, A1);
        };
        C += U + I + formatv("for (int {0} = 0; {0} < {1}; ++{0}) {{\n", Ee, N).str();
        C += J + formatv("const int {0} = {1} + {2} * {3};\n", Vv, Tt, Ee, NT).str();
        if (Elems / VW % NT)
          C += J + formatv("if ({0} >= {1}) break;\n", Vv, Elems / VW).str();
        C += J + formatv("const {0} {1} = {2};\n", T0, Rr, X0).str();
        C += J + formatv("const {0} {1} = {2};\n", T1, Cc, X1).str();
        C += J + "if (" + Ok0 + ") {\n";
        C += J2 + formatv("if ({0} < {1} && {2} < {3}) {{\n", Rr, B0, Cc, B1).str();
        C += J3 + formatv("const {0} {1} = *reinterpret_cast<const {0} *>(&{2});\n", V, W,
                          Read(Rr, Cc)).str();
        for (int64_t L = 0; L < VW; ++L)
          C += J3 + formatv("{0}[{1}][{2}] = {3}.{4};\n", Reg, Ee, L, W, Lanes[L]).str();
        C += J2 + "} else {\n";
        for (int64_t L = 0; L < VW; ++L)
          C += J3 + formatv("{0}[{1}][{2}] = {3};\n", Reg, Ee, L, EZero).str();
        C += J2 + "}\n";
        C += J + "} else {\n";
        C += U + J2 + formatv("for (int {0} = 0; {0} < {1}; ++{0}) {{\n", Qq, VW).str();
        std::string Y0 = UF ? Rr + " + " + Qq : Rr, Y1 = UF ? Cc : Cc + " + " + Qq;
        C += J3 + formatv("const {0} {1}{4} = {2};\n{3}const {5} {6}{4} = {7};\n", T0, Rr, Y0, J3,
                          "1", T1, Cc, Y1).str();
        C += J3 + formatv("{0}[{1}][{2}] = {3}1 < {4} && {5}1 < {6} ? {7} : {8};\n", Reg, Ee, Qq,
                          Rr, B0, Cc, B1, Read(Rr + "1", Cc + "1"), EZero).str();
        C += J2 + "}\n";
        C += J + "}\n";
        C += I + "}\n";
      }
      return C;
    };
    auto StoreTiles = [&](const std::string &Stage, const std::string &I) {
      std::string C, J = I + "  ", J2 = J + "  ";
      for (int Op = 0; Op < 2; ++Op) {
        bool IsA = Op == 0;
        int64_t N = IsA ? NA : NB, Elems = IsA ? BM * BK : BK * BN;
        auto Co = IsA ? ACo : BCo;
        bool UF = IsA ? AUnitRow : BUnitK;
        C += U + I + formatv("for (int {0} = 0; {0} < {1}; ++{0}) {{\n", Ee, N).str();
        C += J + formatv("const int {0} = {1} + {2} * {3};\n", Vv, Tt, Ee, NT).str();
        if (Elems / VW % NT)
          C += J + formatv("if ({0} >= {1}) break;\n", Vv, Elems / VW).str();
        C += U + J + formatv("for (int {0} = 0; {0} < {1}; ++{0})\n", Qq, VW).str();
        std::string Y0 = "(" + Co.first + (UF ? " + " + Qq : "") + ")",
                    Y1 = "(" + Co.second + (UF ? "" : " + " + Qq) + ")";
        // As is [k][row], Bs [k][col].
        if (IsA)
          C += J2 + formatv("{0}[{1}][{2}][{3}] = {4}[{5}][{6}];\n", As, Stage, Y1, Y0, Ra, Ee,
                            Qq).str();
        else
          C += J2 + formatv("{0}[{1}][{2}][{3}] = {4}[{5}][{6}];\n", Bs, Stage, Y0, Y1, Rb, Ee,
                            Qq).str();
        C += I + "}\n";
      }
      return C;
    };
    // The thread's rows: groups of 4, BM / (TM / 4) apart; columns alike.
    auto Pos = [&](const std::string &Idx, const std::string &T16, int64_t Ext, int64_t TPer) {
      return formatv("({0} / 4) * {1} + {2} * 4 + {0} % 4", Idx, Ext / (TPer / 4), T16).str();
    };
    std::vector<std::pair<SourceRange, std::string>> Up, St;
    renameIn(G.Update, G.Acc, Acc + "[" + Ii + "][" + Jj + "]", Up);
    Up.push_back({G.ARead->getSourceRange(), Av + "[" + Ii + "]"});
    Up.push_back({G.BRead->getSourceRange(), Bv + "[" + Jj + "]"});
    renameIn(G.Store, G.Acc, Acc + "[" + Ii + "][" + Jj + "]", St);
    renameIn(G.Store, G.Row, Row, St);
    renameIn(G.Store, G.Col, Col, St);
    std::string Update = rewritten(G.Update, Ctx, Up), Store = rewritten(G.Store, Ctx, St),
                Cond = BoundsAt(Row, Col);
    if (Update.empty() || Store.empty() || Cond.empty())
      return "the product is written inside a macro";
    std::string C = Pre;
    C += formatv("// register-tiling: a {0} x {1} tile of C per block of 256 threads, {2} x {3} "
                 "outputs per thread;\n", BM, BN, TM, TN).str();
    C += Ind + formatv("// {0}-deep tiles of A (transposed) and B double-buffered in shared "
                       "memory, read as {1}.\n", BK, V).str();
    C += Ind + "if (blockDim.x * blockDim.y * blockDim.z != 256)\n";
    C += I1 + "__trap(); // register-tiling: sized for blocks of 256 threads only\n";
    // A template's element type: the vectors suit the type it is
    // instantiated with here; another instantiation fails to compile.
    if (G.Dependent)
      C += Ind + formatv("static_assert(sizeof({0}) == sizeof({1}) && {0}(0.5) != {0}(0), "
                         "\"register-tiling: written for {0} = {1}, the type it is launched "
                         "with\");\n",
                         E, Float ? "float" : "double").str();
    C += Ind + formatv("__shared__ __align__(16) {0} {1}[2][{2}][{3}];\n", E, As, BK, BM).str();
    C += Ind + formatv("__shared__ __align__(16) {0} {1}[2][{2}][{3}];\n", E, Bs, BK, BN).str();
    C += Ind + formatv("const int {0} = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * "
                       "threadIdx.z);\n", Tt).str();
    C += Ind + formatv("const int {0} = {1} % 16, {2} = {1} / 16;\n", Tx, Tt, Ty).str();
    C += Ind + formatv("{0} {1}[{2}][{3}];\n", T, Acc, TM, TN).str();
    C += U + Ind + formatv("for (int {0} = 0; {0} < {1}; ++{0})\n", Ii, TM).str();
    C += U + I1 + formatv("for (int {0} = 0; {0} < {1}; ++{0})\n", Jj, TN).str();
    C += I2 + formatv("{0}[{1}][{2}] = {3};\n", Acc, Ii, Jj, Init).str();
    C += Ind + "// 16-byte global loads where the unit-stride dimension, the base and the\n";
    C += Ind + "// leading dimension allow them; scalar loads otherwise.\n";
    C += Ind + formatv("const bool {0} = {1};\n", Va, VA).str();
    C += Ind + formatv("const bool {0} = {1};\n", Vb, VB).str();
    C += Ind + formatv("{0} {1}[{2}][{3}], {4}[{5}][{3}];\n", E, Ra, NA, VW, Rb, NB).str();
    C += LoadTiles("0", Ind);
    C += StoreTiles("0", Ind);
    C += Ind + "__syncthreads();\n";
    C += Ind + formatv("for ({0} {1} = 0; {1} < {2}; {1} += {3}) {{\n", PT, K0, Kt, BK).str();
    C += I1 + formatv("const int {0} = int({1} / {2}) & 1;\n", S0, K0, BK).str();
    C += I1 + formatv("const bool {0} = {1} + {2} < {3};\n", More, K0, BK, Kt).str();
    C += I1 + "if (" + More + ") {\n";
    C += LoadTiles(K0 + " + " + std::to_string(BK), I2);
    C += I1 + "}\n";
    C += U + I1 + formatv("for (int {0} = 0; {0} < {1}; ++{0}) {{\n", Kk, BK).str();
    C += I2 + formatv("{0} {1}[{2}], {3}[{4}];\n", E, Av, TM, Bv, TN).str();
    for (int Op = 0; Op < 2; ++Op) {
      bool IsA = Op == 0;
      int64_t TPer = IsA ? TM : TN, Ext = IsA ? BM : BN;
      std::string Arr = IsA ? As : Bs, Reg = IsA ? Av : Bv, T16 = IsA ? Ty : Tx;
      C += U + I2 + formatv("for (int {0} = 0; {0} < {1}; ++{0})\n", Gg, TPer / 4).str();
      C += U + I3 + formatv("for (int {0} = 0; {0} < {1}; ++{0}) {{\n", Qq, 4 / VW).str();
      C += I4 + formatv("const {0} {1} = *reinterpret_cast<const {0} *>(&{2}[{3}][{4}][{5} * {6} "
                        "+ {7} * 4 + {8} * {9}]);\n",
                        V, W, Arr, S0, Kk, Gg, Ext / (TPer / 4), T16, Qq, VW).str();
      for (int64_t L = 0; L < VW; ++L)
        C += I4 + formatv("{0}[{1} * 4 + {2} * {3} + {4}] = {5}.{6};\n", Reg, Gg, Qq, VW, L, W,
                          Lanes[L]).str();
      C += I3 + "}\n";
    }
    C += U + I2 + formatv("for (int {0} = 0; {0} < {1}; ++{0})\n", Ii, TM).str();
    C += U + I3 + formatv("for (int {0} = 0; {0} < {1}; ++{0})\n", Jj, TN).str();
    C += I4 + Update + ";\n";
    C += I1 + "}\n";
    C += I1 + "if (" + More + ") {\n";
    C += StoreTiles(S0 + " ^ 1", I2);
    C += I1 + "}\n";
    C += I1 + "__syncthreads();\n";
    C += Ind + "}\n";
    C += U + Ind + formatv("for (int {0} = 0; {0} < {1}; ++{0})\n", Ii, TM).str();
    C += U + I1 + formatv("for (int {0} = 0; {0} < {1}; ++{0}) {{\n", Jj, TN).str();
    C += I2 + formatv("const {0} {1} = blockIdx.y * {2} + {3};\n", RowT, Row, BM,
                      Pos(Ii, Ty, BM, TM)).str();
    C += I2 + formatv("const {0} {1} = blockIdx.x * {2} + {3};\n", ColT, Col, BN,
                      Pos(Jj, Tx, BN, TN)).str();
    C += I2 + "if (" + Cond + ")\n";
    C += I3 + Store + ";\n";
    C += I1 + "}";
    EditCollector Ed(In);
    Ed.add({*FirstOff, RegionEnd - *FirstOff, C});
    EraseTiles(Ed);
    // The original row and column are no longer used: their declarations
    // go when they declare nothing else.
    for (const VarDecl *V : {G.Row, G.Col}) {
      auto Ps = Ctx.getParents(*V);
      const auto *DS = Ps.empty() ? nullptr : Ps[0].get<DeclStmt>();
      if (DS && DS->isSingleDecl())
        if (auto Rg = Ed.rangeOfStatement(DS))
          Ed.add(eraseWithLine(In.Source, Rg->first, Rg->second));
    }
    // Two blocks per SM need at most 128 registers a thread; the wide tile's
    // 8 x 16 accumulators take one block an SM and up to 255.
    const FunctionDecl &KD = In.Kernel;
    if (!KD.hasAttr<CUDALaunchBoundsAttr>())
      Ed.insertBefore(KD.getQualifierLoc() ? KD.getQualifierLoc().getBeginLoc() : KD.getLocation(),
                      formatv("__launch_bounds__(256, {0}) ", MinBlocks).str());
    for (const SourceEdit &E : L->WriteBack)
      Ed.add(E);
    if (Ed.failed())
      return Ed.failure();
    auto S = TileLaunch(BM, BN, *L);
    if (!S)
      S = Spec(unsigned(BM / BY), unsigned(BN / BX));
    std::string Rationale = formatv(
        "Each multiply-add loaded one element of A and one of B from global memory. A block "
        "of 256 threads now computes a {0} x {1} tile of C; {2}-deep tiles of A (stored "
        "transposed, As[k][row]) and B pass through two shared-memory stages ({3} bytes): the "
        "next tile's global loads are issued into registers before the current tile's math "
        "and stored after it, one barrier per tile. Each thread keeps {4} x {5} accumulators "
        "and reads its {4} values of A and {5} of B as {6} loads ({7}-byte, conflict-free: its "
        "rows and columns are groups of 4, {8} and {9} apart). Global loads are 16-byte "
        "vectors when the model proves unit stride along the loaded dimension (A: {10}, B: "
        "{11}) and a per-block check finds the bases aligned and the leading dimensions "
        "multiples of {12}; scalar otherwise. Each output's multiply-adds run in the original "
        "order (partial tiles add exact zeros), so the results are bitwise identical. A launch "
        "with another block size traps; the grid shrinks by {13} in x and {14} in y{15}.",
        BM, BN, BK, Bytes, TM, TN, V, 16, BM / (TM / 4), BN / (TN / 4),
        AVec ? (AK ? "along k" : "along its rows") : "none",
        BVec ? (BC ? "along its columns" : "along k") : "none", VW, BN / BX, BM / BY,
        S ? "" : " (the launch's grid must be divided accordingly)").str();
    RuleOutcome O = proposeEdits(In, name(),
                                 formatv("block-tiled {0} x {1}: 256 threads, {2} x {3} outputs "
                                         "each, double-buffered shared tiles, {4} loads",
                                         BM, BN, TM, TN, V).str(),
                                 Rationale, Ed.edits(), S);
    if (!O.NotApplicable.empty())
      return O.NotApplicable;
    Proposals.push_back(std::move(O.Proposals.front()));
    return "";
  };
  std::vector<std::string> BlockWhy;
  // Double: 8 x 4 accumulators (64 registers) fit two blocks per SM.
  if (std::string W = IsDouble ? BlockTiled(128, 64, 8, 2) : BlockTiled(128, 128, 8, 2);
      !W.empty())
    BlockWhy.push_back(formatv("block-tiled 128 x {0}: ", IsDouble ? 64 : 128).str() + W);
  if (std::string W = BlockTiled(64, 64, IsDouble ? 8 : 16, 2); !W.empty())
    BlockWhy.push_back("block-tiled 64 x 64: " + W);
  // A float product whose 128 x 256 tiles fill two waves of the GPU at one
  // block an SM (4096^2 on 132 SMs; not 2048^2) also gets the wide tile:
  // 8 x 16 outputs a thread halve the shared-memory loads per multiply-add
  // of 8 x 8 (the GEMM template's sweep on an H100: 87.0 % of cublasSgemm
  // at 4096^3 against 82.1 % for 128 x 128; docs/templates.md).
  if (!IsDouble) {
    unsigned SMs = Req.SmCount ? Req.SmCount : 132;
    auto Size = launchSize(In);
    if (!Size)
      BlockWhy.push_back("block-tiled 128 x 256: the launch's size is not known");
    else if (Size->Threads < 2 * int64_t(SMs) * 128 * 256)
      BlockWhy.push_back(formatv("block-tiled 128 x 256: {0} ({1} threads) covers fewer than "
                                 "two waves of 128 x 256 tiles on {2} SMs",
                                 Size->From, Size->Threads, SMs)
                             .str());
    else if (std::string W = BlockTiled(128, 256, 8, 1); !W.empty())
      BlockWhy.push_back("block-tiled 128 x 256: " + W);
  }

  // 1. Two-level tiling (needs the block's size for the shared tiles).
  if (!Req.Block || (*Req.Block)[2] != 1) {
    FirstNotApplicable = "two-level tiling: the block's dimensions are not known";
  } else if (!G.N) {
    FirstNotApplicable = "two-level tiling: the bounds check has no upper bound on '" +
                         G.Col->getNameAsString() + "'";
  } else {
    int64_t BX = (*Req.Block)[0], BY = (*Req.Block)[1], NT = BX * BY;
    int64_t Target = IsDouble ? 64 : 128, MaxPer = IsDouble ? 4 : 8, TK = 16;
    int64_t TM = std::clamp<int64_t>(Target / BY, 1, MaxPer);
    int64_t TN = std::clamp<int64_t>(Target / BX, 1, MaxPer);
    int64_t BM = BY * TM, BN = BX * TN;
    uint64_t Bytes = uint64_t(BM * TK + TK * BN) * (Ctx.getTypeSize(G.Elem) / 8);
    uint64_t Existing = frontend::totalBytes(frontend::staticSharedVariables(In.Kernel, Ctx));
    uint64_t Limit = uint64_t(In.Target.limits().StaticSharedMemPerBlock);
    std::string Mt = *G.M, Nt = *G.N, Kt = G.K;
    std::vector<std::pair<SourceRange, std::string>> Up, St, Cd;
    renameIn(G.Update, G.Acc, Acc + "[" + Ii + "][" + Jj + "]", Up);
    Up.push_back({G.ARead->getSourceRange(), Av + "[" + Ii + "]"});
    Up.push_back({G.BRead->getSourceRange(), Bv + "[" + Jj + "]"});
    renameIn(G.Store, G.Acc, Acc + "[" + Ii + "][" + Jj + "]", St);
    renameIn(G.Store, G.Row, Row, St);
    renameIn(G.Store, G.Col, Col, St);
    std::string LoadA = spell(G.SpellA, Ctx, Row, Pp), LoadB = spell(G.SpellB, Ctx, Col, Pp),
                Update = rewritten(G.Update, Ctx, Up), Store = rewritten(G.Store, Ctx, St),
                Cond = BoundsAt(Row, Col);
    if (Bytes + Existing > Limit) {
      FirstNotApplicable = formatv("two-level tiling: the tiles need {0} bytes of shared memory "
                                   "({1} already used), more than {2}",
                                   Bytes, Existing, Limit)
                               .str();
    } else if (LoadA.empty() || LoadB.empty() || Update.empty() || Store.empty() || Cond.empty()) {
      FirstNotApplicable = "two-level tiling: the product is written inside a macro";
    } else {
      std::string U = "#pragma unroll\n";
      std::string C = Pre;
      C += formatv("// register-tiling: a {0} x {1} tile of C per block, {2} x {3} outputs per "
                   "thread\n", BM, BN, TM, TN).str();
      C += Ind + formatv("// (rows {0} apart, columns {1} apart); A and B pass through shared "
                         "memory {2} at a time.\n", BY, BX, TK).str();
      // The tiles are sized for the spec's block: any other block would
      // leave parts of C unwritten, so it stops the kernel instead.
      C += Ind + formatv("if (blockDim.x != {0} || blockDim.y != {1} || blockDim.z != 1)\n", BX,
                         BY).str();
      C += I1 + "__trap(); // register-tiling: sized for this block shape only\n";
      C += Ind + formatv("__shared__ {0} {1}[{2}][{3}];\n", T, As, BM, TK).str();
      C += Ind + formatv("__shared__ {0} {1}[{2}][{3}];\n", T, Bs, TK, BN).str();
      C += Ind + formatv("{0} {1}[{2}][{3}];\n", T, Acc, TM, TN).str();
      C += U + Ind + formatv("for (int {0} = 0; {0} < {1}; ++{0})\n", Ii, TM).str();
      C += U + I1 + formatv("for (int {0} = 0; {0} < {1}; ++{0})\n", Jj, TN).str();
      C += I2 + formatv("{0}[{1}][{2}] = {3};\n", Acc, Ii, Jj, Init).str();
      C += Ind + formatv("for ({0} {1} = 0; {1} < {2}; {1} += {3}) {{\n", PT, K0, Kt, TK).str();
      C += I1 + formatv("for (int {0} = threadIdx.y * {1} + threadIdx.x; {0} < {2}; {0} += {3}) {{\n",
                        Tt, BX, BM * TK, NT).str();
      C += I2 + formatv("int {0} = {1} / {2}, {3} = {1} % {2};\n", Ii, Tt, TK, Kk).str();
      C += I2 + formatv("{0} {1} = blockIdx.y * {2} + {3};\n", RowT, Row, BM, Ii).str();
      C += I2 + formatv("{0} {1} = {2} + {3};\n", PT, Pp, K0, Kk).str();
      C += I2 + formatv("{0}[{1}][{2}] = {3} < {4} && {5} < {6} ? {7} : {8};\n", As, Ii, Kk, Row,
                        Mt, Pp, Kt, LoadA, Zero).str();
      C += I1 + "}\n";
      C += I1 + formatv("for (int {0} = threadIdx.y * {1} + threadIdx.x; {0} < {2}; {0} += {3}) {{\n",
                        Tt, BX, TK * BN, NT).str();
      C += I2 + formatv("int {0} = {1} / {2}, {3} = {1} % {2};\n", Kk, Tt, BN, Jj).str();
      C += I2 + formatv("{0} {1} = blockIdx.x * {2} + {3};\n", ColT, Col, BN, Jj).str();
      C += I2 + formatv("{0} {1} = {2} + {3};\n", PT, Pp, K0, Kk).str();
      C += I2 + formatv("{0}[{1}][{2}] = {3} < {4} && {5} < {6} ? {7} : {8};\n", Bs, Kk, Jj, Pp,
                        Kt, Col, Nt, LoadB, Zero).str();
      C += I1 + "}\n";
      C += I1 + "__syncthreads();\n";
      C += U + I1 + formatv("for (int {0} = 0; {0} < {1}; ++{0}) {{\n", Kk, TK).str();
      C += I2 + formatv("{0} {1}[{2}], {3}[{4}];\n", T, Av, TM, Bv, TN).str();
      C += U + I2 + formatv("for (int {0} = 0; {0} < {1}; ++{0})\n", Ii, TM).str();
      C += I3 + formatv("{0}[{1}] = {2}[threadIdx.y + {1} * {3}][{4}];\n", Av, Ii, As, BY, Kk).str();
      C += U + I2 + formatv("for (int {0} = 0; {0} < {1}; ++{0})\n", Jj, TN).str();
      C += I3 + formatv("{0}[{1}] = {2}[{3}][threadIdx.x + {1} * {4}];\n", Bv, Jj, Bs, Kk, BX).str();
      C += U + I2 + formatv("for (int {0} = 0; {0} < {1}; ++{0})\n", Ii, TM).str();
      C += U + I3 + formatv("for (int {0} = 0; {0} < {1}; ++{0})\n", Jj, TN).str();
      C += I4 + Update + ";\n";
      C += I1 + "}\n";
      C += I1 + "__syncthreads();\n";
      C += Ind + "}\n";
      C += U + Ind + formatv("for (int {0} = 0; {0} < {1}; ++{0})\n", Ii, TM).str();
      C += U + I1 + formatv("for (int {0} = 0; {0} < {1}; ++{0}) {{\n", Jj, TN).str();
      C += I2 + formatv("{0} {1} = {2} + {3} * {4};\n", RowT, Row, G.Row->getName(), Ii, BY).str();
      C += I2 + formatv("{0} {1} = {2} + {3} * {4};\n", ColT, Col, G.Col->getName(), Jj, BX).str();
      C += I2 + "if (" + Cond + ")\n";
      C += I3 + Store + ";\n";
      C += I1 + "}";
      EditCollector E(In);
      E.replace(G.Row->getInit()->getSourceRange(),
                formatv("blockIdx.y * {0} + threadIdx.y", BM).str());
      E.replace(G.Col->getInit()->getSourceRange(),
                formatv("blockIdx.x * {0} + threadIdx.x", BN).str());
      E.add({*FirstOff, RegionEnd - *FirstOff, C});
      EraseTiles(E);
      if (E.failed()) {
        FirstNotApplicable = "two-level tiling: " + E.failure();
      } else {
        auto S = Spec(unsigned(TM), unsigned(TN));
        std::string Rationale = formatv(
            "Each multiply-add loaded one element of A and one of B from global memory. A "
            "block now computes a {0} x {1} tile of C from {0} x {2} and {2} x {1} tiles of A "
            "and B in shared memory ({3} bytes): global loads per multiply-add 2 -> {4:f3}; "
            "each thread keeps {5} x {6} accumulators in registers and does {7} multiply-adds "
            "per {8} shared-memory loads. Each output's multiply-adds run in the original "
            "order (partial tiles add exact zeros), so the results are bitwise identical. "
            "The tiles assume blocks of {9} x {10} threads (the spec's), and a launch with "
            "another block traps rather than leave outputs unwritten; the grid shrinks by "
            "{6} in x and {5} in y{11}.",
            BM, BN, TK, Bytes, double(BM + BN) / double(BM * BN), TM, TN, TM * TN, TM + TN, BX,
            BY, S ? "" : " (the launch's grid must be divided accordingly)").str();
        RuleOutcome O = proposeEdits(In, name(),
                                     formatv("a {0} x {1} tile of C per block: A and B staged in "
                                             "shared memory, {2} x {3} outputs per thread",
                                             BM, BN, TM, TN).str(),
                                     Rationale, E.edits(), S);
        if (O.NotApplicable.empty())
          Proposals.push_back(std::move(O.Proposals.front()));
        else
          FirstNotApplicable = "two-level tiling: " + O.NotApplicable;
      }
    }
  }

  // 2. Register tiling alone: 4 rows per thread, blockDim.y apart.
  {
    const unsigned TM = 4;
    std::vector<std::pair<SourceRange, std::string>> Up, St, Cd;
    renameIn(G.Update, G.Acc, Acc + "[" + R + "]", Up);
    std::string ARow = spell(G.SpellA, Ctx, Row, G.P->getNameAsString());
    Up.push_back({G.ARead->getSourceRange(), ARow});
    Up.push_back({G.BRead->getSourceRange(), Bv});
    renameIn(G.Store, G.Acc, Acc + "[" + R + "]", St);
    renameIn(G.Store, G.Row, Row, St);
    std::string Update = rewritten(G.Update, Ctx, Up), Store = rewritten(G.Store, Ctx, St),
                Cond = BoundsAt(Row, G.Col->getNameAsString());
    if (Update.empty() || Store.empty() || Cond.empty() || ARow.empty())
      return Proposals.empty() ? notApplicable("the product is written inside a macro")
                               : RuleOutcome{std::move(Proposals), ""};
    std::string U = "#pragma unroll\n";
    std::string Each =
        formatv("{0} {1} = {2} + {3} * blockDim.y;\n", RowT, Row, G.Row->getName(), R).str();
    std::string Any;
    for (unsigned I = 0; I < TM; ++I)
      Any += (I ? " || " : "") + formatv("{0}[{1}]", Ok, I).str();
    std::string C = Pre;
    C += formatv("// register-tiling: {0} rows of C per thread, blockDim.y apart; each "
                 "element of B\n", TM).str();
    C += Ind + formatv("// loaded serves all {0}.\n", TM).str();
    C += Ind + formatv("{0} {1}[{2}];\n", T, Acc, TM).str();
    C += Ind + formatv("bool {0}[{1}];\n", Ok, TM).str();
    C += U + Ind + formatv("for (int {0} = 0; {0} < {1}; ++{0}) {{\n", R, TM).str();
    C += I1 + Each;
    C += I1 + formatv("{0}[{1}] = {2};\n", Ok, R, Cond).str();
    C += I1 + formatv("{0}[{1}] = {2};\n", Acc, R, Init).str();
    C += Ind + "}\n";
    C += Ind + "if (" + Any + ") {\n";
    C += I1 + Header + " {\n";
    C += I2 + T + " " + Bv + " = " + BRead + ";\n";
    C += U + I2 + formatv("for (int {0} = 0; {0} < {1}; ++{0}) {{\n", R, TM).str();
    C += I3 + Each;
    C += I3 + formatv("if ({0}[{1}])\n", Ok, R).str();
    C += I4 + Update + ";\n";
    C += I2 + "}\n";
    C += I1 + "}\n";
    C += Ind + "}\n";
    C += U + Ind + formatv("for (int {0} = 0; {0} < {1}; ++{0}) {{\n", R, TM).str();
    C += I1 + Each;
    C += I1 + formatv("if ({0}[{1}])\n", Ok, R).str();
    C += I2 + Store + ";\n";
    C += Ind + "}";
    EditCollector E(In);
    E.replace(G.Row->getInit()->getSourceRange(),
              formatv("blockIdx.y * blockDim.y * {0} + threadIdx.y", TM).str());
    E.add({*FirstOff, RegionEnd - *FirstOff, C});
    EraseTiles(E);
    if (E.failed())
      return Proposals.empty() ? notApplicable(E.failure()) : RuleOutcome{std::move(Proposals), ""};
    auto S = Spec(TM, 1);
    std::string Rationale = formatv(
        "Each multiply-add loaded one element of A and one of B from global memory. Each "
        "thread now computes {0} outputs of one column, rows blockDim.y apart, and loads "
        "B[p][col] once for all of them: global loads per multiply-add 2 -> {1:f2} (loads of B "
        "stay coalesced across threadIdx.x, loads of A are shared by the threads of a row). "
        "Each output's multiply-adds run in the original order, so the results are bitwise "
        "identical. Every row is checked against the original bounds, so any grid at least as "
        "large as needed is correct; grid.y shrinks by {0}{2}.",
        TM, 1.0 + 1.0 / TM, S ? "" : " (the launch's grid.y must be divided accordingly)").str();
    if (!FirstNotApplicable.empty())
      BlockWhy.push_back(FirstNotApplicable);
    if (!BlockWhy.empty())
      Rationale += " (No " + join(BlockWhy, "; no ") + ".)";
    RuleOutcome O = proposeEdits(In, name(),
                                 formatv("{0} rows of C per thread (blockDim.y apart), each load "
                                         "of B shared by them",
                                         TM).str(),
                                 Rationale, E.edits(), S);
    if (O.NotApplicable.empty())
      Proposals.push_back(std::move(O.Proposals.front()));
    else if (Proposals.empty())
      return O;
  }
  RuleOutcome Out;
  Out.Proposals = std::move(Proposals);
  return Out;
}

} // namespace

std::unique_ptr<ExpertRule> createRegisterTilingRule() {
  return std::make_unique<RegisterTilingRule>();
}

} // namespace forge::passes
