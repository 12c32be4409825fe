//===- passes/optimize/TransposeTileRule.cpp - transpose-tile -------------===//
///
/// \file
/// A naive transpose, `out[x * rows + y] = in[y * cols + x]` over a 2D grid
/// of threads (the model's PatternKind::Transpose), reads along rows and
/// writes along columns: one of its two accesses puts the 32 lanes of a warp
/// a whole row apart, 32 memory transactions per warp instruction.
///
/// The rule stages 32 x 32 tiles in shared memory (`__shared__ T
/// tile[32][33]`, the padding column keeping the column reads off a single
/// bank): the block loads a tile along the rows of `in`, synchronises, and
/// stores it along the rows of `out`, so both sides move whole 128-byte
/// lines. The threads of the block stride over the tile's 1024 elements and
/// the blocks stride over the tiles, so the rewrite is correct for any block
/// shape and any grid; the spec change launches one tile per block.
///
/// Everything is written from the model: the positions x and y (the
/// thread's `blockIdx * blockDim + threadIdx` along x and y, whatever the
/// spelling), the index forms of the load and the store and the comparisons
/// of the store's guard, rendered again over the tile's positions in 64-bit
/// arithmetic. The stored value is the kernel's own expression with the
/// load replaced by the tile element (a scale factor or a conversion stays
/// as written). See docs/passes/transpose-tile.md.
///
//===----------------------------------------------------------------------===//
#include "FormCode.h"
#include "RuleAst.h"
#include "RuleUtil.h"
#include "Rules.h"
#include "forge/Analysis/KernelModel.h"
#include "forge/Measure/IntExpr.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include <functional>
#include <set>

using namespace clang;
using namespace llvm;
namespace an = forge::analysis;

namespace forge::passes {
namespace {

/// The tile's side: a warp loads one row of it, 128 bytes of floats.
constexpr int TileSide = 32;

unsigned lineOf(ASTContext &Ctx, SourceLocation L) {
  const SourceManager &SM = Ctx.getSourceManager();
  return SM.getPresumedLineNumber(SM.getExpansionLoc(L));
}

/// Whether Inner is Outer or inside it.
bool within(const Stmt *Inner, const Stmt *Outer) {
  if (Inner == Outer)
    return true;
  for (const Stmt *C : Outer->children())
    if (C && within(Inner, C))
      return true;
  return false;
}

/// The parent of S, past parentheses and implicit casts; a VarDecl when S
/// initialises one.
DynTypedNode parentPastCasts(ASTContext &Ctx, const Stmt *S) {
  while (true) {
    auto Ps = Ctx.getParents(*S);
    if (Ps.empty())
      return DynTypedNode();
    const Stmt *P = Ps[0].get<Stmt>();
    if (P && (isa<ParenExpr>(P) || isa<ImplicitCastExpr>(P))) {
      S = P;
      continue;
    }
    return Ps[0];
  }
}

/// The comparison operator a guard term's condition is, when it is one.
const BinaryOperator *comparisonIn(const Expr *Cond) {
  const Expr *E = Cond ? Cond->IgnoreParenImpCasts() : nullptr;
  while (const auto *U = dyn_cast_or_null<UnaryOperator>(E)) {
    if (U->getOpcode() != UO_LNot)
      break;
    E = U->getSubExpr()->IgnoreParenImpCasts();
  }
  const auto *B = dyn_cast_or_null<BinaryOperator>(E);
  return B && B->isComparisonOp() ? B : nullptr;
}

/// Whether a tile element of type T can be a __shared__ array element.
bool tileableType(QualType T, ASTContext &Ctx) {
  if (T->isDependentType() || T->isArithmeticType())
    return true;
  if (const auto *RD = T->getAsCXXRecordDecl())
    return RD->hasDefinition() && RD->hasTrivialDefaultConstructor() &&
           RD->isTriviallyCopyable() && Ctx.getTypeSize(T) <= 128;
  return false;
}

/// The kernel's locals that a piece of code reads, with the statement that
/// declares each (top-level declarations of the body only).
struct UniformLocals {
  std::vector<const DeclStmt *> Decls; ///< in body order
  std::string Why;
};

class TransposeTileRule : public ExpertRule {
public:
  StringRef name() const override { return "transpose-tile"; }
  RuleOutcome propose(const RuleInput &In) override;
};

RuleOutcome TransposeTileRule::propose(const RuleInput &In) {
  ASTContext &Ctx = In.Ctx;
  const CompoundStmt *Body = kernelBody(In.Kernel);
  if (!Body)
    return notApplicable("the kernel has no body");

  // The model without the launch block: blockDim stays a symbol, so that
  // what is rendered from the forms is right for whatever block the kernel
  // is launched with.
  auto MOr = an::analyzeKernel(Ctx, In.Kernel, an::AnalysisOptions());
  if (!MOr)
    return notApplicable(toString(MOr.takeError()));
  an::KernelModel &M = *MOr;
  an::AtomTable &T = M.atoms();

  std::vector<const an::Pattern *> Ps = M.patterns(an::PatternKind::Transpose);
  if (Ps.empty())
    return notApplicable("the model recognises no transpose (a store whose value is a load, "
                         "with the fast index of one on threadIdx.x and of the other on "
                         "threadIdx.y)");
  if (Ps.size() > 1)
    return notApplicable(formatv("the kernel holds {0} transposes; only a kernel that is one "
                                 "transpose is tiled",
                                 Ps.size())
                             .str());
  const an::Pattern &P = *Ps.front();
  const an::Access &R = M.Accesses[P.Accesses[0]];
  const an::Access &W = M.Accesses[P.Accesses[1]];
  if (R.Space != an::MemorySpace::Global || W.Space != an::MemorySpace::Global)
    return notApplicable("the kernel already transposes through the shared-memory tile '" +
                         (R.Space == an::MemorySpace::Shared ? R.Buffer : W.Buffer) + "'");
  if (P.role("swapped") != "threadIdx.y")
    return notApplicable("the transpose " + W.Text + " = " + R.Text + " runs along '" +
                         P.role("swapped").str() +
                         "', not along threadIdx.y: only a transpose over a 2D grid of threads "
                         "is tiled");
  if (W.Kind != an::AccessKind::Store)
    return notApplicable("'" + W.Text + "' is not a plain store");
  if (!M.Loops.empty())
    return notApplicable(formatv("the kernel has a loop (line {0}); only a transpose without "
                                 "loops is tiled",
                                 M.Loops.front().Loc.Line)
                             .str());
  // The buffers: parameters indexed in their own element type.
  auto ParamOf = [&](const an::Access &A) -> const ParmVarDecl * {
    if (A.ParamIndex < 0)
      return nullptr;
    const ParmVarDecl *PD = In.Kernel.getParamDecl(unsigned(A.ParamIndex));
    QualType Pointee = PD->getType()->getPointeeType();
    if (Pointee.isNull() || !A.E ||
        !Ctx.hasSameUnqualifiedType(Pointee.getCanonicalType(), A.E->getType().getCanonicalType()))
      return nullptr;
    return PD;
  };
  const ParmVarDecl *InP = ParamOf(R), *OutP = ParamOf(W);
  if (!InP || !OutP)
    return notApplicable("'" + (InP ? W.Text : R.Text) +
                         "' is not an element of a pointer parameter in its own element type");
  for (const an::Access &A : M.Accesses) {
    if (A.Id == R.Id || A.Id == W.Id)
      continue;
    if (A.Space != an::MemorySpace::Global || A.writes() || A.Base == W.Base)
      return notApplicable("the kernel also " + std::string(A.writes() ? "writes " : "reads ") +
                           "'" + A.Text + "' (line " + std::to_string(A.Loc.Line) +
                           "); only a kernel that is one transpose is tiled");
  }
  // Nothing besides the store may be repeated or dropped.
  std::string Effect = effectsOf(Body, In.Kernel, Ctx, [&](const Expr *LHS) {
    return LHS->IgnoreParens() == W.E;
  });
  if (!Effect.empty())
    return notApplicable("the kernel " + Effect + ": the tiled kernel would repeat or drop it");
  struct BuiltinUses : RecursiveASTVisitor<BuiltinUses> {
    std::string Bad;
    bool shouldVisitImplicitCode() const { return true; }
    bool VisitExpr(Expr *E) {
      if (auto B = cudaBuiltin(E); B && Bad.empty() &&
                                   ((B->Var == "threadIdx" && B->Dim == 'z') ||
                                    (B->Var == "gridDim" && B->Dim != 'z')))
        Bad = (B->Var + "." + std::string(1, B->Dim)).str();
      return true;
    }
  } Uses;
  Uses.TraverseStmt(const_cast<CompoundStmt *>(Body));
  if (!Uses.Bad.empty())
    return notApplicable("the kernel reads '" + Uses.Bad + "'; the tiled kernel gives threads " +
                         (StringRef(Uses.Bad).starts_with("gridDim")
                              ? "other blocks (the grid changes)"
                              : "other elements (threadIdx.z would be the same for all)"));

  // The positions x = blockIdx.x * blockDim.x + threadIdx.x and y, as atoms
  // of their own; every form must depend on the thread through them only.
  an::AtomId Tx = T.builtin("threadIdx", 'x'), Ty = T.builtin("threadIdx", 'y');
  an::AtomId Bx = T.builtin("blockIdx", 'x'), By = T.builtin("blockIdx", 'y');
  an::AtomId Dx = T.builtin("blockDim", 'x'), Dy = T.builtin("blockDim", 'y');
  an::AtomId XA = T.symbol(an::AtomKind::Param, nullptr, "x", "transpose-tile:x");
  an::AtomId YA = T.symbol(an::AtomKind::Param, nullptr, "y", "transpose-tile:y");
  an::IndexForm X = an::IndexForm::atom(XA), Y = an::IndexForm::atom(YA);
  // The blocks' stride along each position, read off the load's index: the
  // coefficient of blockIdx over that of threadIdx. Usually blockDim (right
  // for any block); a constant C (`blockIdx.x * 16 + threadIdx.x`) is the
  // position only when blockDim is C, which the rewrite checks on the device.
  an::IndexForm RIdx0 = T.expandLoops(R.Index);
  auto BlockStride = [&](an::AtomId B, an::AtomId Tt, an::AtomId D) {
    an::IndexForm Dim = an::IndexForm::atom(D);
    auto CT = RIdx0.coefficientOf(Tt), CB = RIdx0.coefficientOf(B);
    if (!CT || !CB || CT->isZero())
      return Dim;
    auto Q = CB->dividedExactly(*CT);
    if (Q && Q->constantValue() && *Q->constantValue() > 0 && *Q->constantValue() <= 1024)
      return *Q;
    return Dim;
  };
  an::IndexForm SX = BlockStride(Bx, Tx, Dx), SY = BlockStride(By, Ty, Dy);
  auto Sub = [&](const an::IndexForm &F) {
    return T.substitute(T.expandLoops(F), [&](an::AtomId A) -> std::optional<an::IndexForm> {
      if (A == Tx)
        return X - an::IndexForm::atom(Bx) * SX;
      if (A == Ty)
        return Y - an::IndexForm::atom(By) * SY;
      return std::nullopt;
    });
  };
  // The block dimensions the kernel's positions assume ("blockDim.x != 16").
  std::vector<std::string> FixedDims, Assumed;
  for (auto [S, Name] : {std::pair(&SX, "blockDim.x"), std::pair(&SY, "blockDim.y")})
    if (auto C = S->constantValue()) {
      FixedDims.push_back(formatv("{0} != {1}", Name, *C).str());
      Assumed.push_back(formatv("{0} == {1}", Name, *C).str());
    }
  auto ThreadFree = [&](const an::IndexForm &F) {
    return !T.dependsOn(F, Tx) && !T.dependsOn(F, Ty) && !T.dependsOn(F, Bx) &&
           !T.dependsOn(F, By);
  };
  an::IndexForm RF = Sub(R.Index), WF = Sub(W.Index);
  for (const auto &[A, F] : {std::pair(&R, &RF), std::pair(&W, &WF)})
    if (!ThreadFree(*F))
      return notApplicable("the index of '" + A->Text +
                           "' depends on the thread other than through its position "
                           "(blockIdx * blockDim + threadIdx, or blockIdx * C + threadIdx, along "
                           "x and y)");
  // Which position the load runs along: x (out[x][y] = in[y][x]) or y.
  auto Coef = [&](const an::IndexForm &F, an::AtomId A) -> std::optional<int64_t> {
    auto C = F.coefficientOf(A);
    if (!C || T.dependsOn(*C, XA) || T.dependsOn(*C, YA))
      return std::nullopt;
    return C->constantValue() ? C->constantValue() : std::optional<int64_t>(0);
  };
  bool LoadAlongX = Coef(RF, XA) == 1 && Coef(WF, YA) == 1;
  bool LoadAlongY = Coef(RF, YA) == 1 && Coef(WF, XA) == 1;
  if (LoadAlongX == LoadAlongY)
    return notApplicable("the load '" + R.Text + "' and the store '" + W.Text +
                         "' are not unit-stride along swapped positions");
  for (const auto &[A, F] : {std::pair(&R, &RF), std::pair(&W, &WF)}) {
    const auto *Sub = dyn_cast<ArraySubscriptExpr>(A->E);
    if (Sub && Sub->getIdx()->getType()->isUnsignedIntegerType() && hasNegativeTerm(*F))
      return notApplicable("the index of '" + A->Text +
                           "' is computed in unsigned arithmetic and may wrap around");
  }

  // The guard: comparisons of forms, the same for the load and the store,
  // with an upper bound on each position.
  if (W.G.empty())
    return notApplicable("the store '" + W.Text + "' is not guarded: the tiles at the edges need "
                         "bounds on both positions (x < cols && y < rows)");
  auto Key = [](const an::Guard &G) {
    std::vector<std::pair<const Expr *, bool>> K;
    for (const an::GuardTerm &Tm : G.Terms)
      K.push_back({Tm.Cond, Tm.Holds});
    llvm::sort(K);
    return K;
  };
  if (Key(R.G) != Key(W.G))
    return notApplicable("the load '" + R.Text + "' runs under '" + R.G.render() +
                         "' and the store under '" + W.G.render() +
                         "'; the tile would read elements the kernel does not");
  std::optional<an::IndexForm> ExtX, ExtY;
  for (const an::GuardTerm &Tm : W.G.Terms) {
    if (!Tm.Cmp)
      return notApplicable("the guard '" + Tm.Text + "' is not a comparison of integers" +
                           (Tm.Why.empty() || StringRef(Tm.Why).contains("not a comparison")
                                ? ""
                                : " (" + Tm.Why + ")"));
    an::IndexForm L = Sub(Tm.Cmp->Lhs), Rt = Sub(Tm.Cmp->Rhs);
    if (!ThreadFree(L) || !ThreadFree(Rt))
      return notApplicable("the guard '" + Tm.Text +
                           "' depends on the thread other than through its position");
    if (const BinaryOperator *B = comparisonIn(Tm.Cond);
        B && B->getLHS()->getType()->isUnsignedIntegerType() &&
        (hasNegativeTerm(Tm.Cmp->Lhs) || hasNegativeTerm(Tm.Cmp->Rhs)))
      return notApplicable("the guard '" + Tm.Text + "' compares unsigned values that may wrap "
                           "around");
    // An upper bound on a position: D >= 0 with D = U - x.
    an::IndexForm D;
    switch (Tm.Cmp->Op) {
    case an::CmpOp::LT:
      D = Rt - L - an::IndexForm::constant(1);
      break;
    case an::CmpOp::LE:
      D = Rt - L;
      break;
    case an::CmpOp::GT:
      D = L - Rt - an::IndexForm::constant(1);
      break;
    case an::CmpOp::GE:
      D = L - Rt;
      break;
    default:
      break;
    }
    for (auto [A, Ext] : {std::pair(XA, &ExtX), std::pair(YA, &ExtY)}) {
      an::AtomId Other = A == XA ? YA : XA;
      auto C = D.coefficientOf(A);
      if (!*Ext && Tm.Cmp->Op != an::CmpOp::EQ && Tm.Cmp->Op != an::CmpOp::NE && C &&
          C->constantValue() == -1 && !T.dependsOn(D, Other)) {
        an::IndexForm U = D.withoutAtom(A) + an::IndexForm::constant(1);
        if (T.uniformity(U).atLeast(an::Uniformity::BlockUniform))
          *Ext = U;
      }
    }
  }
  if (!ExtX || !ExtY)
    return notApplicable("the guard '" + W.G.render() + "' does not bound " +
                         (!ExtX ? "x" : "y") +
                         " from above; the tiles at the edges need both bounds");

  // The stored value: the right-hand side of the store with the load
  // replaced by the tile element.
  const Expr *RHS = nullptr;
  {
    DynTypedNode Par = parentPastCasts(Ctx, W.E);
    if (const auto *B = Par.get<BinaryOperator>(); B && B->getOpcode() == BO_Assign)
      RHS = B->getRHS();
    else if (const auto *C = Par.get<CXXOperatorCallExpr>(); C && C->isAssignmentOp())
      RHS = C->getArg(1);
  }
  if (!RHS)
    return notApplicable("'" + W.Text + "' is not assigned a value");
  const VarDecl *Held = nullptr; // float v = in[...]; out[...] = v * s;
  if (!within(R.E, RHS)) {
    Held = parentPastCasts(Ctx, R.E).get<VarDecl>();
    if (!Held || !Held->hasLocalStorage() || isModified(Held, Body) ||
        Held->getInit()->IgnoreParenImpCasts() != R.E)
      return notApplicable("the loaded value reaches the store '" + W.Text +
                           "' in a way the rule does not follow");
    for (const DeclRefExpr *Ref : referencesTo(Held, Body))
      if (!within(Ref, RHS))
        return notApplicable("the loaded value '" + Held->getNameAsString() +
                             "' is also used outside the store (line " +
                             std::to_string(lineOf(Ctx, Ref->getBeginLoc())) + ")");
  }
  QualType TileType = (Held ? Held->getType() : R.E->getType()).getUnqualifiedType();
  if (!tileableType(TileType, Ctx))
    return notApplicable("the element type '" + TileType.getAsString() +
                         "' cannot be held in a __shared__ tile");
  std::string Tile = "forge_tile";
  std::string Phase2Elem = Tile + "[forge_e % 32][forge_e / 32]";
  std::vector<std::pair<SourceRange, std::string>> Repl;
  std::vector<const Stmt *> Replaced;
  if (Held) {
    for (const DeclRefExpr *Ref : referencesTo(Held, RHS)) {
      Repl.push_back({Ref->getSourceRange(), Phase2Elem});
      Replaced.push_back(Ref);
    }
  } else {
    Repl.push_back({R.E->getSourceRange(), Phase2Elem});
    Replaced.push_back(R.E);
  }
  // What else the value reads: constants, parameters, other read-only
  // elements at uniform indices, and locals that are the same in every
  // thread (their declarations come along).
  std::set<const DeclStmt *> KeptSet;
  std::set<std::string> Referenced;
  std::string ValueWhy;
  std::function<void(const Stmt *)> Scan = [&](const Stmt *S) {
    if (!S || !ValueWhy.empty() || is_contained(Replaced, S))
      return;
    if (const auto *E = dyn_cast<Expr>(S)) {
      if (auto B = cudaBuiltin(E)) {
        ValueWhy = "uses '" + (B->Var + "." + std::string(1, B->Dim)).str() + "'";
        return;
      }
      if (const an::Access *A = M.accessAt(E); A && A->Id != R.Id) {
        if (!T.uniformity(A->Index).atLeast(an::Uniformity::GridUniform)) {
          ValueWhy = "reads '" + A->Text + "', which is not the same element for every thread";
          return;
        }
      }
      if (const auto *D = dyn_cast<DeclRefExpr>(E))
        Referenced.insert(D->getDecl()->getNameAsString());
      if (const auto *D = dyn_cast<DeclRefExpr>(E); D && isa<ParmVarDecl>(D->getDecl())) {
        if (isModified(cast<ParmVarDecl>(D->getDecl()), Body))
          ValueWhy = "uses '" + D->getDecl()->getNameAsString() +
                     "', which the kernel assigns";
        return;
      }
      if (const auto *D = dyn_cast<DeclRefExpr>(E))
        if (const auto *V = dyn_cast<VarDecl>(D->getDecl()); V && V->hasLocalStorage()) {
          if (!M.isUniform(D, an::Uniformity::GridUniform)) {
            ValueWhy = "uses '" + V->getNameAsString() + "', which varies between threads (" +
                       M.uniformity(D).Reason + ")";
            return;
          }
          const DeclStmt *DS = nullptr;
          for (const Stmt *Top : Body->body())
            if (const auto *X = dyn_cast<DeclStmt>(Top))
              if (is_contained(X->decls(), V))
                DS = X;
          if (!DS || isModified(V, Body) || !V->getInit()) {
            ValueWhy = "uses '" + V->getNameAsString() +
                       "', which is not declared once at the top of the kernel";
            return;
          }
          if (KeptSet.insert(DS).second)
            Scan(V->getInit());
          return;
        }
    }
    for (const Stmt *C : S->children())
      Scan(C);
  };
  Scan(RHS);
  if (!ValueWhy.empty())
    return notApplicable("the stored value " + ValueWhy +
                         "; the tile moves each element to another thread");
  auto ValueText = textWithReplacements(RHS, Ctx, Repl);
  if (!ValueText)
    return notApplicable("the stored value '" + textOf(RHS, Ctx) +
                         "' is written through a macro");

  // Names: the kernel's own names for the positions when they are free.
  EditCollector C(In);
  std::string XName, YName;
  std::vector<const DeclStmt *> Kept;
  std::set<std::string> KeptNames;
  for (const Stmt *Top : Body->body())
    if (const auto *DS = dyn_cast<DeclStmt>(Top); DS && KeptSet.count(DS)) {
      Kept.push_back(DS);
      for (const Decl *D : DS->decls())
        if (const auto *ND = dyn_cast<NamedDecl>(D))
          KeptNames.insert(ND->getNameAsString());
    }
  {
    struct Locals : RecursiveASTVisitor<Locals> {
      std::vector<const VarDecl *> Vars;
      bool VisitVarDecl(VarDecl *V) { return Vars.push_back(V), true; }
    } L;
    L.TraverseStmt(const_cast<CompoundStmt *>(Body));
    auto Free = [&](StringRef N) {
      if (KeptNames.count(N.str()) || N.starts_with("forge_"))
        return false;
      for (const ParmVarDecl *PD : In.Kernel.parameters())
        if (PD->getName() == N)
          return false;
      // Nor a name the stored value refers to (a global, a function).
      return !Referenced.count(N.str());
    };
    std::string Found[2];
    for (const VarDecl *V : L.Vars) {
      if (!V->getInit() || !V->getType()->isIntegerType() || isModified(V, Body))
        continue;
      an::IndexForm F = Sub(M.formOf(V->getInit()));
      for (int D = 0; D < 2; ++D)
        if (Found[D].empty() && F == (D == 0 ? X : Y) && Free(V->getName()))
          Found[D] = V->getNameAsString();
    }
    std::string XName0 = !Found[0].empty() ? Found[0] : (Free("x") ? "x" : "forge_x");
    XName = XName0;
    YName = !Found[1].empty() && Found[1] != XName ? Found[1]
            : Free("y") && XName != "y"           ? "y"
                                                  : "forge_y";
  }
  FormRenderer Rd(T);
  Rd.name(XA, XName);
  Rd.name(YA, YName);
  std::vector<std::string> GuardText;
  for (const an::GuardTerm &Tm : W.G.Terms) {
    auto Text = Rd.render(Sub(Tm.Cmp->Lhs), Tm.Cmp->Op, Sub(Tm.Cmp->Rhs));
    if (!Text)
      return notApplicable("the guard '" + Tm.Text + "' cannot be written over the tile: " +
                           Rd.Why);
    if (!is_contained(GuardText, *Text))
      GuardText.push_back(*Text);
  }
  auto RIdx = Rd.render(RF), WIdx = Rd.render(WF);
  FormRenderer Plain(T);
  auto EX = Plain.render(*ExtX), EY = Plain.render(*ExtY);
  if (!RIdx || !WIdx || !EX || !EY)
    return notApplicable("the indices cannot be written over the tile: " +
                         (Rd.Why.empty() ? Plain.Why : Rd.Why));
  std::string Load = InP->getNameAsString() + "[" + *RIdx + "]";
  if (!R.Callee.empty())
    Load = R.Callee + "(&" + Load + ")";
  std::string Store = OutP->getNameAsString() + "[" + *WIdx + "] = " + *ValueText + ";";

  // Shared memory.
  std::string Type = typeSpelling(TileType, Ctx);
  uint64_t Bytes =
      TileType->isDependentType() ? 0 : uint64_t(TileSide * (TileSide + 1)) * Ctx.getTypeSize(TileType) / 8;
  uint64_t Limit = uint64_t(In.Target.limits().StaticSharedMemPerBlock);
  if (Bytes > Limit)
    return notApplicable(formatv("the tile needs {0} bytes of shared memory, more than the {1} "
                                 "bytes of static shared memory a block may have on {2}",
                                 Bytes, Limit, In.Target.Name)
                             .str());

  // The new body.
  auto LB = C.offsetOf(Body->getLBracLoc()), RB = C.offsetOf(Body->getRBracLoc());
  if (!LB || !RB)
    return notApplicable("the kernel's body is written through a macro");
  std::string Ind = "  ";
  if (!Body->body_empty())
    if (auto O = C.offsetOf(Body->body_front()->getBeginLoc()))
      Ind = lineIndent(In.Source, *O).str();
  std::vector<std::string> L;
  auto Add = [&](unsigned Depth, const std::string &Text) {
    std::string Pad = Ind;
    for (unsigned I = 0; I < Depth; ++I)
      Pad += "  ";
    L.push_back(Pad + Text);
  };
  std::string Fast = LoadAlongX ? XName : YName, Slow = LoadAlongX ? YName : XName;
  std::string InName = InP->getNameAsString(), OutName = OutP->getNameAsString();
  Add(0, formatv("// transpose-tile: '{0}' reaches '{1}' through 32 x 32 tiles in shared "
                 "memory. A",
                 InName, OutName)
             .str());
  Add(0, formatv("// tile is loaded along {0} (coalesced reads of '{1}') and stored along {2}",
                 Fast, InName, Slow)
             .str());
  Add(0, formatv("// (coalesced writes of '{0}'); the padding column keeps its column reads "
                 "free of",
                 OutName)
             .str());
  Add(0, "// bank conflicts. Threads stride over a tile's elements and blocks over the "
         "tiles,");
  Add(0, "// so any block shape and any grid work.");
  if (!FixedDims.empty()) {
    // The original body, as it was, for the blocks its positions do not
    // describe (the condition is the same for the whole grid).
    Add(0, "// The kernel's positions assume " + join(Assumed, " and ") +
               "; with another block it runs as written.");
    Add(0, "if (" + join(FixedDims, " || ") + ") {");
    StringRef Orig = In.Source.slice(*LB + 1, *RB);
    SmallVector<StringRef, 16> OrigLines;
    Orig.split(OrigLines, '\n');
    for (StringRef Ln : OrigLines)
      if (!Ln.trim().empty())
        L.push_back("  " + Ln.rtrim().str());
    Add(1, "return;");
    Add(0, "}");
  }
  for (const DeclStmt *DS : Kept) {
    auto Rg = C.rangeOfStatement(DS);
    if (!Rg)
      return notApplicable("the declaration '" + textOf(DS, Ctx) +
                           "' is written through a macro");
    Add(0, In.Source.slice(Rg->first, Rg->second).str());
  }
  Add(0, formatv("__shared__ {0} {1}[32][32 + 1];", Type, Tile).str());
  Add(0, "const unsigned forge_t = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + "
         "threadIdx.x;");
  Add(0, "const unsigned forge_threads = blockDim.x * blockDim.y * blockDim.z;");
  Add(0, formatv("for (long long forge_y0 = 32 * (long long)blockIdx.y; forge_y0 < {0}; "
                 "forge_y0 += 32 * (long long)gridDim.y) {{",
                 *EY)
             .str());
  Add(1, formatv("for (long long forge_x0 = 32 * (long long)blockIdx.x; forge_x0 < {0}; "
                 "forge_x0 += 32 * (long long)gridDim.x) {{",
                 *EX)
             .str());
  std::string Cond = join(GuardText, " && ");
  auto Positions = [&](bool FastAlongLanes) {
    // Consecutive elements e of the tile along its rows (e % 32) run along
    // the position that is contiguous in memory.
    std::string XOff = (LoadAlongX == FastAlongLanes) ? "forge_e % 32" : "forge_e / 32";
    std::string YOff = (LoadAlongX == FastAlongLanes) ? "forge_e / 32" : "forge_e % 32";
    return formatv("const long long {0} = forge_x0 + {1}, {2} = forge_y0 + {3};", XName, XOff,
                   YName, YOff)
        .str();
  };
  std::string Loop = "for (unsigned forge_e = forge_t; forge_e < 32 * 32; forge_e += "
                     "forge_threads) {";
  Add(2, "#pragma unroll 4");
  Add(2, Loop);
  Add(3, Positions(/*FastAlongLanes=*/true));
  Add(3, "if (" + Cond + ")");
  Add(4, Tile + "[forge_e / 32][forge_e % 32] = " + Load + ";");
  Add(2, "}");
  Add(2, "__syncthreads();");
  Add(2, "#pragma unroll 4");
  Add(2, Loop);
  Add(3, Positions(/*FastAlongLanes=*/false));
  Add(3, "if (" + Cond + ")");
  Add(4, Store);
  Add(2, "}");
  Add(2, "__syncthreads();");
  Add(1, "}");
  Add(0, "}");
  unsigned From = *LB + 1;
  // The blanks before the closing brace stay (nothing when code precedes it).
  StringRef Before = In.Source.slice(lineStart(In.Source, *RB), *RB);
  std::string Closing = Before.trim().empty() ? Before.str() : "";
  C.add({From, *RB - From, "\n" + join(L, "\n") + "\n" + Closing});

  // The grid: one tile per block.
  std::optional<agent::SpecChange> Spec;
  std::string GridNote;
  const agent::ProposalRequest &Req = In.Request;
  auto GX = Req.Geometry.find("grid.x"), GY = Req.Geometry.find("grid.y");
  if (!FixedDims.empty()) {
    GridNote = " The kernel's positions assume " + join(Assumed, " and ") +
               ", so other blocks run the original body (checked on the device), and the grid "
               "stays as it is, which that body needs.";
  } else if (Req.Block && GX != Req.Geometry.end() && GY != Req.Geometry.end()) {
    int64_t BX = (*Req.Block)[0], BY = (*Req.Block)[1];
    agent::SpecChange S;
    auto Scaled = [](const std::string &G, int64_t B) {
      return B == TileSide ? G : formatv("ceil_div(({0}) * {1}, 32)", G, B).str();
    };
    std::string NX = Scaled(GX->second, BX), NY = Scaled(GY->second, BY);
    bool Ok = true;
    for (const std::string &E : {NX, NY})
      if (auto Parsed = measure::IntExpr::parse(E); !Parsed) {
        consumeError(Parsed.takeError());
        Ok = false;
      }
    if (Ok && BX != TileSide)
      S.Geometry["grid.x"] = NX;
    if (Ok && BY != TileSide)
      S.Geometry["grid.y"] = NY;
    if (!S.Geometry.empty()) {
      S.Justification = formatv("the tiled kernel walks 32 x 32 tiles with a grid stride, so it "
                                "is correct for any grid; a {0} x {1} block covered {0} x {1} "
                                "elements, so one tile per block scales the grid by {0}/{2} "
                                "along x and {1}/{2} along y",
                                BX, BY, TileSide)
                            .str();
      Spec = std::move(S);
    }
  } else {
    GridNote = " No spec geometry is known, so the grid stays as it is: correct, but blocks "
               "beyond the tiles find no work unless the block is 32 x 32.";
  }

  std::string Rationale =
      formatv("The naive transpose {0} = {1} makes one of its two accesses with the lanes of a "
              "warp a row apart (load {2}, store {3}): a memory transaction per lane. Through a "
              "32 x 33 tile in shared memory{4}, the block reads 32 x 32 elements of '{5}' "
              "along their rows and writes them to '{6}' along its rows, so both sides move "
              "whole 128-byte lines; the padding column makes the column reads of the tile "
              "conflict-free. The threads of a block stride over the tile's 1024 elements and "
              "the blocks over the tiles, so the rewrite is correct for any block shape and "
              "any grid. Each element is loaded and stored under the original guard ({7}) and "
              "the stored value is the original expression of the loaded element, so the "
              "results are bitwise identical.{8}",
              W.Text, R.Text,
              R.Warp.constantStride() == 1 ? std::string("coalesced")
                                           : "strided by " + R.Warp.StrideText,
              W.Warp.constantStride() == 1 ? std::string("coalesced")
                                           : "strided by " + W.Warp.StrideText,
              Bytes ? formatv(" ({0} bytes)", Bytes).str() : std::string(), InName, OutName,
              W.G.render(), GridNote)
          .str();
  return proposeEdits(In, name(),
                      formatv("transpose '{0}' into '{1}' through a 32 x 32 shared-memory tile",
                              InName, OutName)
                          .str(),
                      Rationale, C.edits(), std::move(Spec));
}

} // namespace

std::unique_ptr<ExpertRule> createTransposeTileRule() {
  return std::make_unique<TransposeTileRule>();
}

} // namespace forge::passes
