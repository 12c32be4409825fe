//===- passes/optimize/RegisterTilingRule.cpp - register-tiling -----------===//
///
/// \file
/// A naive matrix product computes one output per thread and loads one
/// element of A and one of B from global memory per multiply-add:
///
///     int col = blockIdx.x * blockDim.x + threadIdx.x;
///     int row = blockIdx.y * blockDim.y + threadIdx.y;
///     if (row < m && col < n) {
///       float acc = 0.0f;
///       for (int p = 0; p < k; ++p)
///         acc += A[row * k + p] * B[p * n + col];
///       C[row * n + col] = acc;
///     }
///
/// The rule proposes two rewrites, best first:
///
/// 1. Two-level tiling: a block computes a (BY*TM) x (BX*TN) tile of C; A
///    and B are staged in shared memory 16 columns / rows at a time, and
///    every thread keeps TM x TN accumulators in registers (rows BY apart,
///    columns BX apart, so global loads and stores stay coalesced).
/// 2. Register tiling alone: each thread computes TM = 4 rows, blockDim.y
///    apart, and loads each B element once for all of them.
///
/// Both keep each output's multiply-adds in the original order (the padding
/// of partial tiles adds exact zeros), guard every row and column with the
/// original's own bounds check, and so are correct for any grid at least as
/// large as needed; the proposal shrinks the grid with a SpecChange. The
/// statements are reused as text with the loop's variables renamed, so any
/// index form (transposed operands, size_t casts, alpha/beta epilogues) is
/// kept as written.
///
//===----------------------------------------------------------------------===//
#include "RuleAst.h"
#include "RuleUtil.h"
#include "Rules.h"
#include "forge/Frontend/KernelFacts.h"
#include "forge/Frontend/ParamAccess.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/Support/FormatVariadic.h"

using namespace clang;
using namespace llvm;

namespace forge::passes {
namespace {

/// The parts of a recognised matrix product.
struct Gemm {
  const VarDecl *Row = nullptr, *Col = nullptr, *Acc = nullptr, *P = nullptr;
  const ForStmt *Loop = nullptr;
  const Expr *Update = nullptr;               ///< acc += a * b (without ';')
  const ArraySubscriptExpr *ARead = nullptr;  ///< depends on row and p
  const ArraySubscriptExpr *BRead = nullptr;  ///< depends on p and col
  const DeclStmt *AccDecl = nullptr;
  const Expr *Store = nullptr;                ///< C[...] = f(acc)
  const Expr *Cond = nullptr;                 ///< the bounds check
  bool CondHolds = true;                      ///< if (cond) vs if (cond) return;
  const Stmt *First = nullptr, *Last = nullptr; ///< the statements replaced
  /// The bounds as source text: row < M, col < N, p < K.
  std::string K;
  std::optional<std::string> M, N;
};

const Stmt *single(const Stmt *S) {
  while (const auto *CS = dyn_cast_or_null<CompoundStmt>(S)) {
    if (CS->size() != 1)
      return S;
    S = CS->body_front();
  }
  return S;
}

/// The local variables that E references.
std::vector<const VarDecl *> localsIn(const Stmt *E) {
  struct Walk : RecursiveASTVisitor<Walk> {
    std::vector<const VarDecl *> Out;
    bool VisitDeclRefExpr(DeclRefExpr *R) {
      if (const auto *V = dyn_cast<VarDecl>(R->getDecl()))
        if (V->hasLocalStorage() && !isa<ParmVarDecl>(V) && !llvm::is_contained(Out, V))
          Out.push_back(V);
      return true;
    }
  } W;
  W.TraverseStmt(const_cast<Stmt *>(E));
  return W.Out;
}

/// The DeclRefExprs to V in S, as ranges to replace with Text.
void renameIn(const Stmt *S, const VarDecl *V, const std::string &Text,
              std::vector<std::pair<SourceRange, std::string>> &Out) {
  struct Walk : RecursiveASTVisitor<Walk> {
    const VarDecl *V;
    std::vector<SourceRange> Found;
    bool VisitDeclRefExpr(DeclRefExpr *R) {
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
  GemmMatcher(const RuleInput &In)
      : In(In), Ctx(In.Ctx), Body(kernelBody(In.Kernel)),
        Access(frontend::analyzePointerParams(In.Kernel, In.Ctx)) {}

  std::optional<Gemm> match(std::string &Why);

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
  bool readOnlyParam(const Expr *Base, const ParmVarDecl *&Out) {
    Out = asParam(Base->IgnoreParenImpCasts(), In.Kernel);
    if (!Out || !Out->getType()->isPointerType())
      return false;
    unsigned I = *paramIndex(In.Kernel, Out);
    return I < Access.size() && !Access[I].Written && !Access[I].Unknown;
  }
  /// Whether S uses only the product's variables, kernel parameters and
  /// constants; otherwise Why names what else.
  bool selfContained(const Stmt *S, const Gemm &G, std::string &Why);
  bool matchUpdate(const ForStmt *F, Gemm &G, std::string &Why);
  bool matchRegion(Gemm &G, std::string &Why);

  const RuleInput &In;
  ASTContext &Ctx;
  const CompoundStmt *Body;
  std::vector<frontend::PointerAccess> Access;
};

bool GemmMatcher::matchUpdate(const ForStmt *F, Gemm &G, std::string &Why) {
  const auto *E = dyn_cast_or_null<Expr>(single(F->getBody()));
  if (!E)
    return false;
  E = E->IgnoreParens();
  const Expr *X = nullptr, *Y = nullptr;
  const VarDecl *Acc = nullptr;
  auto Product = [&](const Expr *M) {
    const auto *Mul = dyn_cast<BinaryOperator>(M->IgnoreParenImpCasts());
    if (!Mul || Mul->getOpcode() != BO_Mul)
      return false;
    X = Mul->getLHS();
    Y = Mul->getRHS();
    return true;
  };
  if (const auto *CA = dyn_cast<CompoundAssignOperator>(E)) {
    if (CA->getOpcode() != BO_AddAssign || !Product(CA->getRHS()))
      return false;
    Acc = asVar(CA->getLHS());
  } else if (const auto *A = dyn_cast<BinaryOperator>(E); A && A->getOpcode() == BO_Assign) {
    Acc = asVar(A->getLHS());
    const Expr *R = A->getRHS()->IgnoreParenImpCasts();
    if (const auto *Add = dyn_cast<BinaryOperator>(R); Add && Add->getOpcode() == BO_Add) {
      if (!((asVar(Add->getLHS()) == Acc && Product(Add->getRHS())) ||
            (asVar(Add->getRHS()) == Acc && Product(Add->getLHS()))))
        return false;
    } else if (const auto *C = dyn_cast<CallExpr>(R);
               C && C->getNumArgs() == 3 && C->getDirectCallee()) {
      StringRef Name = C->getDirectCallee()->getName();
      if (!(Name == "fmaf" || Name == "fma" || Name == "__fmaf_rn" || Name == "__fma_rn") ||
          asVar(C->getArg(2)) != Acc)
        return false;
      X = C->getArg(0);
      Y = C->getArg(1);
    } else {
      return false;
    }
  } else {
    return false;
  }
  if (!Acc || !Acc->hasLocalStorage() || !Acc->getType()->isRealFloatingType()) {
    Why = "the accumulator is not a local float or double";
    return false;
  }
  const auto *AX = dyn_cast<ArraySubscriptExpr>(X->IgnoreParenImpCasts());
  const auto *AY = dyn_cast<ArraySubscriptExpr>(Y->IgnoreParenImpCasts());
  const ParmVarDecl *PX = nullptr, *PY = nullptr;
  if (!AX || !AY || !readOnlyParam(AX->getBase(), PX) || !readOnlyParam(AY->getBase(), PY)) {
    Why = "the loop does not multiply elements of two read-only pointer parameters";
    return false;
  }
  G.Acc = Acc;
  G.Loop = F;
  G.Update = E;
  // for (int p = 0; p < K; ++p)
  std::string LoopWhy;
  const auto *DS = dyn_cast_or_null<DeclStmt>(F->getInit());
  G.P = DS && DS->isSingleDecl() ? dyn_cast<VarDecl>(DS->getSingleDecl()) : nullptr;
  const auto *Cmp = dyn_cast_or_null<BinaryOperator>(
      F->getCond() ? F->getCond()->IgnoreParenImpCasts() : nullptr);
  bool Step = false;
  if (const auto *U = dyn_cast_or_null<UnaryOperator>(F->getInc()))
    Step = U->isIncrementOp() && G.P && asVar(U->getSubExpr()) == G.P;
  else if (const auto *C = dyn_cast_or_null<CompoundAssignOperator>(F->getInc()))
    Step = C->getOpcode() == BO_AddAssign && G.P && asVar(C->getLHS()) == G.P &&
           evaluateInt(C->getRHS(), Ctx) == int64_t(1);
  if (!G.P || !G.P->getInit() || evaluateInt(G.P->getInit(), Ctx) != int64_t(0) || !Cmp ||
      Cmp->getOpcode() != BO_LT || asVar(Cmp->getLHS()) != G.P || !Step ||
      isModified(G.P, F->getBody())) {
    Why = "the accumulation loop is not 'for (int p = 0; p < k; ++p)'";
    return false;
  }
  PolyBuilder B(Ctx, In.Kernel);
  auto K = B.build(Cmp->getRHS());
  if (!K || !llvm::all_of(K->atoms(), [&](unsigned A) {
        return B.atom(A).Kind == PolyAtom::Param || B.atom(A).Kind == PolyAtom::TemplateParam;
      })) {
    Why = "the loop bound '" + textOf(Cmp->getRHS(), Ctx) + "' is not built from kernel parameters";
    return false;
  }
  G.K = B.render(*K);
  // One operand follows row, the other col.
  auto Others = [&](const ArraySubscriptExpr *AS) {
    std::vector<const VarDecl *> L = localsIn(AS->getIdx());
    llvm::erase(L, G.P);
    return L;
  };
  std::vector<const VarDecl *> LX = Others(AX), LY = Others(AY);
  if (LX.size() != 1 || LY.size() != 1 || LX[0] == LY[0] || !references(AX->getIdx(), G.P) ||
      !references(AY->getIdx(), G.P)) {
    Why = "the operands are not indexed by the loop counter and one of row, col each";
    return false;
  }
  for (const VarDecl *V : {LX[0], LY[0]}) {
    if (!V->getInit() || isModified(V, Body)) {
      Why = "'" + V->getNameAsString() + "' is not a variable initialised once";
      return false;
    }
    if (isGlobalIndexOf(V->getInit(), 'y'))
      G.Row = V;
    else if (isGlobalIndexOf(V->getInit(), 'x'))
      G.Col = V;
  }
  if (!G.Row || !G.Col) {
    Why = "the operands' indices are not a row 'blockIdx.y * blockDim.y + threadIdx.y' and a "
          "column 'blockIdx.x * blockDim.x + threadIdx.x'";
    return false;
  }
  G.ARead = LX[0] == G.Row ? AX : AY;
  G.BRead = LX[0] == G.Row ? AY : AX;
  return true;
}

bool GemmMatcher::selfContained(const Stmt *S, const Gemm &G, std::string &Why) {
  struct Walk : RecursiveASTVisitor<Walk> {
    const Gemm *G;
    const FunctionDecl *Kernel;
    std::string Why;
    bool VisitDeclRefExpr(DeclRefExpr *R) {
      const ValueDecl *D = R->getDecl();
      if (frontend::isCudaBuiltinVar(D))
        return fail("it uses '" + D->getNameAsString() + "' directly");
      if (const auto *V = dyn_cast<VarDecl>(D)) {
        if (V == G->Row || V == G->Col || V == G->Acc || V == G->P)
          return true;
        if (const auto *P = dyn_cast<ParmVarDecl>(V))
          return paramIndex(*Kernel, P) && !isModified(P, Kernel->getBody())
                     ? true
                     : fail("it assigns the parameter '" + V->getNameAsString() + "'");
        if (V->hasLocalStorage())
          return fail("it uses '" + V->getNameAsString() + "', declared elsewhere");
        if (!V->getType().isConstQualified() && !V->isConstexpr() && !V->hasAttr<CUDAConstantAttr>())
          return fail("it uses the global variable '" + V->getNameAsString() + "'");
      }
      return true;
    }
    bool VisitCallExpr(CallExpr *C) {
      if (const FunctionDecl *FD = C->getDirectCallee())
        if (FD->getIdentifier() && (FD->getName().starts_with("__sync") ||
                                    FD->getName().starts_with("__shfl")))
          return fail("it calls '" + FD->getName().str() + "'");
      return true;
    }
    bool VisitReturnStmt(ReturnStmt *) { return fail("it returns"); }
    bool VisitGotoStmt(GotoStmt *) { return fail("it has a goto"); }
    bool fail(std::string W) {
      if (Why.empty())
        Why = std::move(W);
      return false;
    }
  } W;
  W.G = &G;
  W.Kernel = &In.Kernel;
  W.TraverseStmt(const_cast<Stmt *>(S));
  Why = W.Why;
  return Why.empty();
}

bool GemmMatcher::matchRegion(Gemm &G, std::string &Why) {
  // The loop's block: [acc decl, loop, store].
  auto Parents = Ctx.getParents(*G.Loop);
  const auto *PC = Parents.empty() ? nullptr : Parents[0].get<CompoundStmt>();
  std::vector<const Stmt *> Stmts;
  if (PC)
    for (const Stmt *S : PC->body())
      if (!isa<NullStmt>(S))
        Stmts.push_back(S);
  auto At = llvm::find(Stmts, G.Loop);
  if (!PC || At == Stmts.begin() || At + 1 == Stmts.end()) {
    Why = "the loop is not between the accumulator's declaration and the store of the result";
    return false;
  }
  G.AccDecl = dyn_cast<DeclStmt>(*(At - 1));
  if (!G.AccDecl || !G.AccDecl->isSingleDecl() || G.AccDecl->getSingleDecl() != G.Acc ||
      !G.Acc->getInit()) {
    Why = "the statement before the loop does not declare and initialise '" +
          G.Acc->getNameAsString() + "' alone";
    return false;
  }
  if (!localsIn(G.Acc->getInit()).empty()) {
    Why = "the accumulator's initial value depends on local variables";
    return false;
  }
  const auto *Store = dyn_cast<BinaryOperator>(*(At + 1));
  const ParmVarDecl *C = nullptr;
  const auto *Dest = Store ? dyn_cast<ArraySubscriptExpr>(Store->getLHS()->IgnoreParens()) : nullptr;
  if (Dest)
    C = asParam(Dest->getBase()->IgnoreParenImpCasts(), In.Kernel);
  if (!Store || !Store->isAssignmentOp() || !C || !references(Store->getRHS(), G.Acc) ||
      C == asParam(G.ARead->getBase()->IgnoreParenImpCasts(), In.Kernel) ||
      C == asParam(G.BRead->getBase()->IgnoreParenImpCasts(), In.Kernel)) {
    Why = "the statement after the loop does not store the accumulator to a third array";
    return false;
  }
  G.Store = Store;
  if (Stmts.size() != 3 && PC != Body) {
    Why = "the block of the product has statements besides the accumulator, the loop and "
          "the store";
    return false;
  }

  // Its guard: if (cond) { ... } as the kernel's last statement, or
  // if (cond) return; right before it in the kernel body.
  std::vector<const Stmt *> Top;
  for (const Stmt *S : Body->body())
    if (!isa<NullStmt>(S))
      Top.push_back(S);
  const Stmt *Before = nullptr;
  if (PC == Body) {
    auto It = llvm::find(Top, G.AccDecl);
    if (It + 3 != Top.end()) {
      Why = "statements follow the store of the result";
      return false;
    }
    const auto *If = It == Top.begin() ? nullptr : dyn_cast<IfStmt>(*(It - 1));
    const Stmt *Then = If ? single(If->getThen()) : nullptr;
    if (!If || If->getElse() || If->getInit() || If->getConditionVariable() ||
        !isa_and_nonnull<ReturnStmt>(Then)) {
      Why = "the product has no bounds check ('if (row < m && col < n)' around it or "
            "'if (row >= m || col >= n) return;' before it)";
      return false;
    }
    G.Cond = If->getCond();
    G.CondHolds = false;
    G.First = If;
    G.Last = Store;
    Before = If;
  } else {
    auto Up = Ctx.getParents(*PC);
    const auto *If = Up.empty() ? nullptr : Up[0].get<IfStmt>();
    if (!If || If->getThen() != PC) {
      Why = "the product has no bounds check ('if (row < m && col < n)' around it or "
            "'if (row >= m || col >= n) return;' before it)";
      return false;
    }
    if (If->getElse() || If->getInit() ||
        If->getConditionVariable() || Top.empty() || Top.back() != If) {
      Why = "the product is not the kernel's last statement under 'if (row < m && col < n)'";
      return false;
    }
    G.Cond = If->getCond();
    G.First = G.Last = If;
    Before = If;
  }
  // Only declarations come before the product, row and col among them,
  // and nothing else uses row or col (their definitions change).
  bool RowSeen = false, ColSeen = false;
  for (const Stmt *S : Top) {
    if (S == Before)
      break;
    const auto *DS = dyn_cast<DeclStmt>(S);
    if (!DS) {
      Why = "the kernel has statements other than declarations before the product";
      return false;
    }
    for (const Decl *D : DS->decls()) {
      const auto *V = dyn_cast<VarDecl>(D);
      RowSeen |= V == G.Row;
      ColSeen |= V == G.Col;
      const Expr *Init = V ? V->getInit() : nullptr;
      for (const VarDecl *Used : {G.Row, G.Col})
        if (Init && references(Init, Used)) {
          Why = "'" + Used->getNameAsString() + "' is used outside the product (by '" +
                V->getNameAsString() + "')";
          return false;
        }
    }
  }
  if (!RowSeen || !ColSeen) {
    Why = "'" + G.Row->getNameAsString() + "' and '" + G.Col->getNameAsString() +
          "' are not declared at the top of the kernel";
    return false;
  }
  for (const Stmt *S : {static_cast<const Stmt *>(G.Cond), static_cast<const Stmt *>(G.AccDecl),
                        static_cast<const Stmt *>(G.Loop), static_cast<const Stmt *>(G.Store)}) {
    std::string W;
    if (!selfContained(S, G, W)) {
      Why = "the product's code is not a function of (row, col) alone: " + W;
      return false;
    }
  }
  // The bounds: row < M, col < N, from the check.
  PolyBuilder B(Ctx, In.Kernel);
  B.Opaque.insert(G.Row);
  B.Opaque.insert(G.Col);
  std::vector<IndexPoly> Facts = factsFrom({Condition{G.Cond, G.CondHolds}}, B);
  auto Bound = [&](const VarDecl *V) -> std::optional<std::string> {
    IndexPoly X = IndexPoly::atom(B.atomFor(V));
    for (const IndexPoly &F : Facts) {
      IndexPoly U = F + X;
      if (!U.isConstant() && llvm::all_of(U.atoms(), [&](unsigned A) {
            return B.atom(A).Kind == PolyAtom::Param || B.atom(A).Kind == PolyAtom::TemplateParam;
          }))
        return B.render(U + IndexPoly::constant(1));
    }
    return std::nullopt;
  };
  G.M = Bound(G.Row);
  G.N = Bound(G.Col);
  if (!G.M) {
    Why = "the bounds check '" + textOf(G.Cond, Ctx) + "' has no upper bound on '" +
          G.Row->getNameAsString() + "'";
    return false;
  }
  return true;
}

std::optional<Gemm> GemmMatcher::match(std::string &Why) {
  struct Loops : RecursiveASTVisitor<Loops> {
    std::vector<const ForStmt *> Out;
    bool VisitForStmt(ForStmt *F) {
      Out.push_back(F);
      return true;
    }
  } L;
  L.TraverseStmt(const_cast<CompoundStmt *>(Body));
  for (const ForStmt *F : L.Out) {
    Gemm G;
    std::string W;
    if (!matchUpdate(F, G, W)) {
      if (Why.empty() && !W.empty())
        Why = W;
      continue;
    }
    if (!matchRegion(G, W)) {
      Why = W;
      return std::nullopt;
    }
    return G;
  }
  if (Why.empty())
    Why = "no loop accumulates 'acc += A[...] * B[...]' (a naive matrix product)";
  return std::nullopt;
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
  if (!kernelBody(In.Kernel))
    return notApplicable("the kernel has no body");
  ASTContext &Ctx = In.Ctx;
  const agent::ProposalRequest &Req = In.Request;
  GemmMatcher Matcher(In);
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
  bool IsDouble = AccType->isSpecificBuiltinType(BuiltinType::Double);

  EditCollector EC(In);
  auto FirstOff = EC.offsetOf(G.First->getBeginLoc());
  auto LastRange = EC.rangeOf(G.Last->getSourceRange());
  auto LoopBegin = EC.offsetOf(G.Loop->getBeginLoc());
  auto LoopBody = EC.offsetOf(G.Loop->getBody()->getBeginLoc());
  if (!FirstOff || !LastRange || !LoopBegin || !LoopBody)
    return notApplicable("the product is written inside a macro");
  std::string Ind = lineIndent(In.Source, *FirstOff).str();
  std::string I1 = Ind + "  ", I2 = I1 + "  ", I3 = I2 + "  ", I4 = I3 + "  ";
  // The region ends at the store's ';' in the return form.
  unsigned RegionEnd = LastRange->second;
  if (G.Last == G.Store) {
    size_t Semi = In.Source.find(';', RegionEnd);
    if (Semi == StringRef::npos)
      return notApplicable("the store has no ';'");
    RegionEnd = unsigned(Semi + 1);
  }
  std::string Header = In.Source.slice(*LoopBegin, *LoopBody).rtrim().str();
  auto Guard = [&](const std::string &Text) {
    return G.CondHolds ? Text : "!(" + Text + ")";
  };
  std::string ARead = textOf(G.ARead, Ctx), BRead = textOf(G.BRead, Ctx);
  if (ARead.empty() || BRead.empty() || Init.empty())
    return notApplicable("the product is written inside a macro");

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

  std::vector<agent::Proposal> Proposals;
  std::string FirstNotApplicable;

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
    uint64_t Bytes = uint64_t(BM * TK + TK * BN) * (Ctx.getTypeSize(AccType) / 8);
    uint64_t Existing = frontend::totalBytes(frontend::staticSharedVariables(In.Kernel, Ctx));
    uint64_t Limit = uint64_t(In.Target.limits().StaticSharedMemPerBlock);
    std::string Mt = *G.M, Nt = *G.N, Kt = G.K;
    std::vector<std::pair<SourceRange, std::string>> LA, LB, Up, St, Cd;
    renameIn(G.ARead, G.Row, Row, LA);
    renameIn(G.ARead, G.P, Pp, LA);
    renameIn(G.BRead, G.Col, Col, LB);
    renameIn(G.BRead, G.P, Pp, LB);
    renameIn(G.Update, G.Acc, Acc + "[" + Ii + "][" + Jj + "]", Up);
    Up.push_back({G.ARead->getSourceRange(), Av + "[" + Ii + "]"});
    Up.push_back({G.BRead->getSourceRange(), Bv + "[" + Jj + "]"});
    renameIn(G.Store, G.Acc, Acc + "[" + Ii + "][" + Jj + "]", St);
    renameIn(G.Store, G.Row, Row, St);
    renameIn(G.Store, G.Col, Col, St);
    renameIn(G.Cond, G.Row, Row, Cd);
    renameIn(G.Cond, G.Col, Col, Cd);
    std::string LoadA = rewritten(G.ARead, Ctx, LA), LoadB = rewritten(G.BRead, Ctx, LB),
                Update = rewritten(G.Update, Ctx, Up), Store = rewritten(G.Store, Ctx, St),
                Cond = rewritten(G.Cond, Ctx, Cd);
    if (Bytes + Existing > Limit) {
      FirstNotApplicable = formatv("two-level tiling: the tiles need {0} bytes of shared memory "
                                   "({1} already used), more than {2}",
                                   Bytes, Existing, Limit)
                               .str();
    } else if (LoadA.empty() || LoadB.empty() || Update.empty() || Store.empty() || Cond.empty()) {
      FirstNotApplicable = "two-level tiling: the product is written inside a macro";
    } else {
      std::string U = "#pragma unroll\n";
      std::string C;
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
      C += I2 + "if (" + Guard(Cond) + ")\n";
      C += I3 + Store + ";\n";
      C += I1 + "}";
      EditCollector E(In);
      E.replace(G.Row->getInit()->getSourceRange(),
                formatv("blockIdx.y * {0} + threadIdx.y", BM).str());
      E.replace(G.Col->getInit()->getSourceRange(),
                formatv("blockIdx.x * {0} + threadIdx.x", BN).str());
      E.add({*FirstOff, RegionEnd - *FirstOff, C});
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
    renameIn(G.ARead, G.Row, Row, Up);
    Up.push_back({G.BRead->getSourceRange(), Bv});
    renameIn(G.Store, G.Acc, Acc + "[" + R + "]", St);
    renameIn(G.Store, G.Row, Row, St);
    renameIn(G.Cond, G.Row, Row, Cd);
    std::string Update = rewritten(G.Update, Ctx, Up), Store = rewritten(G.Store, Ctx, St),
                Cond = rewritten(G.Cond, Ctx, Cd);
    if (Update.empty() || Store.empty() || Cond.empty())
      return Proposals.empty() ? notApplicable("the product is written inside a macro")
                               : RuleOutcome{std::move(Proposals), ""};
    std::string U = "#pragma unroll\n";
    std::string Each =
        formatv("{0} {1} = {2} + {3} * blockDim.y;\n", RowT, Row, G.Row->getName(), R).str();
    std::string Any;
    for (unsigned I = 0; I < TM; ++I)
      Any += (I ? " || " : "") + formatv("{0}[{1}]", Ok, I).str();
    std::string C;
    C += formatv("// register-tiling: {0} rows of C per thread, blockDim.y apart; each "
                 "element of B\n", TM).str();
    C += Ind + formatv("// loaded serves all {0}.\n", TM).str();
    C += Ind + formatv("{0} {1}[{2}];\n", T, Acc, TM).str();
    C += Ind + formatv("bool {0}[{1}];\n", Ok, TM).str();
    C += U + Ind + formatv("for (int {0} = 0; {0} < {1}; ++{0}) {{\n", R, TM).str();
    C += I1 + Each;
    C += I1 + formatv("{0}[{1}] = {2};\n", Ok, R, Guard(Cond)).str();
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
      Rationale += " (No " + FirstNotApplicable + ".)";
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
