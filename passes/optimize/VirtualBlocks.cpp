//===- passes/optimize/VirtualBlocks.cpp - A guarded grid as a loop -------===//
#include "VirtualBlocks.h"
#include "FormCode.h"
#include "forge/Frontend/CudaBuiltins.h"
#include "forge/Measure/IntExpr.h"
#include "forge/Measure/LaunchSpec.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DynamicRecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace clang;
using namespace llvm;

namespace forge::passes {

namespace an = forge::analysis;

bool BuiltinUses::reads(StringRef Var, char Dim, bool OnlyReplaceable) const {
  return any_of(Uses, [&](const BuiltinUse &U) {
    return U.Var == Var && U.Dim == Dim && (!OnlyReplaceable || !U.Range);
  });
}

const DeclRefExpr *BuiltinUses::wholeVariable() const {
  for (auto [Off, Ref] : WholeVars)
    if (none_of(Uses, [&](const BuiltinUse &U) { return U.Range && U.Range->first == Off; }))
      return Ref;
  return nullptr;
}

namespace {

class BuiltinScanner : public DynamicRecursiveASTVisitor {
public:
  BuiltinScanner(const EditCollector &EC, BuiltinUses &B, bool InCallee,
                 const FunctionDecl *Skip)
      : EC(EC), B(B), InCallee(InCallee), Skip(Skip) {
    ShouldVisitImplicitCode = false;
  }

  bool VisitExpr(Expr *E) override {
    if (isa<ImplicitCastExpr, ParenExpr>(E))
      return true;
    if (auto R = frontend::cudaBuiltin(E)) {
      // The same component is seen through several nodes (a property
      // reference and its pseudo-object); keep the outermost range once.
      auto Range = EC.rangeOf(E->getSourceRange());
      for (const BuiltinUse &U : B.Uses)
        if (U.Range && Range && U.Range == Range)
          return true;
      B.Uses.push_back({E, R->Var, R->Dim, InCallee ? std::nullopt : Range});
    }
    return true;
  }
  bool VisitDeclRefExpr(DeclRefExpr *D) override {
    if (!InCallee && frontend::isCudaBuiltinVar(D->getDecl()))
      if (auto O = EC.offsetOf(D->getBeginLoc()))
        B.WholeVars.push_back({*O, D});
    return true;
  }
  bool VisitCallExpr(CallExpr *C) override {
    const FunctionDecl *FD = C->getDirectCallee();
    if (!FD || !FD->hasBody() || FD->isImplicit() ||
        FD->getASTContext().getSourceManager().isInSystemHeader(FD->getLocation()))
      return true;
    const FunctionDecl *Def = FD->getDefinition();
    if (Def && Def != Skip && !is_contained(B.Callees, Def))
      B.Callees.push_back(Def);
    return true;
  }

private:
  const EditCollector &EC;
  BuiltinUses &B;
  bool InCallee;
  const FunctionDecl *Skip;
};

} // namespace

BuiltinUses collectBuiltinUses(const Stmt *Body, const EditCollector &EC,
                               const FunctionDecl *Skip) {
  BuiltinUses B;
  BuiltinScanner(EC, B, false, Skip).TraverseStmt(const_cast<Stmt *>(Body));
  for (size_t I = 0; I < B.Callees.size() && I < 16; ++I)
    BuiltinScanner(EC, B, true, Skip).TraverseStmt(B.Callees[I]->getBody());
  return B;
}

std::optional<BlockBound> blockBoundOf(const an::GuardTerm &T, char Dim,
                                       const an::AtomTable &Tab) {
  if (!T.Cmp)
    return std::nullopt;
  // Holds iff G < 0.
  an::IndexForm G;
  switch (T.Cmp->Op) {
  case an::CmpOp::LT:
    G = T.Cmp->Lhs - T.Cmp->Rhs;
    break;
  case an::CmpOp::LE:
    G = T.Cmp->Lhs - T.Cmp->Rhs - an::IndexForm::constant(1);
    break;
  case an::CmpOp::GT:
    G = T.Cmp->Rhs - T.Cmp->Lhs;
    break;
  case an::CmpOp::GE:
    G = T.Cmp->Rhs - T.Cmp->Lhs - an::IndexForm::constant(1);
    break;
  default:
    return std::nullopt;
  }
  auto B = Tab.findBuiltin("blockIdx", Dim);
  if (!B || G.degreeIn(*B) != 1)
    return std::nullopt;
  // blockIdx's coefficient: a positive constant times blockDim atoms.
  auto Coef = G.coefficientOf(*B);
  if (!Coef || Coef->terms().size() != 1)
    return std::nullopt;
  const auto &[CM, CC] = *Coef->terms().begin();
  if (CC <= 0 ||
      any_of(CM, [&](an::AtomId X) { return Tab[X].Kind != an::AtomKind::BlockDim; }))
    return std::nullopt;
  an::IndexForm Rest = G.withoutAtom(*B);
  // threadIdx's: a non-negative constant (thread 0 passes first).
  if (auto Tid = Tab.findBuiltin("threadIdx", Dim); Tid && Rest.mentions(*Tid)) {
    auto C = Rest.coefficientOf(*Tid);
    if (!C || C->constantValue().value_or(-1) < 0)
      return std::nullopt;
    Rest = Rest.withoutAtom(*Tid);
  }
  for (an::AtomId X : Rest.atoms()) {
    an::IndexForm F = an::IndexForm::atom(X);
    if (Tab.isVarying(X) || Tab.dependsOnKind(F, an::AtomKind::GridDim) ||
        Tab.dependsOnKind(F, an::AtomKind::BlockIdx) ||
        Tab.dependsOnKind(F, an::AtomKind::ThreadIdx))
      return std::nullopt;
  }
  BlockBound BB;
  BB.Dim = Dim;
  BB.NegU = -Rest;
  BB.A = *Coef;
  auto NegU = renderForm(BB.NegU, Tab, true), AText = renderForm(BB.A, Tab, true);
  if (!NegU || !AText)
    return std::nullopt;
  BB.NegUText = *NegU;
  BB.AText = *AText;
  BB.Term = T.Text;
  return BB;
}

VirtualBlocks findVirtualBlocks(const BuiltinUses &Uses, const an::Guard &G,
                                const an::AtomTable &Tab, const an::IndexForm *Address,
                                ArrayRef<const an::Guard *> OtherGuards) {
  VirtualBlocks V;
  for (char D : {'x', 'y', 'z'}) {
    auto B = Tab.findBuiltin("blockIdx", D);
    if (!B || !Uses.reads("blockIdx", D))
      continue;
    std::string Dim = std::string("blockIdx.") + D, Sfx(1, D);
    if (Address && Tab.dependsOn(*Address, *B)) {
      V.Why = "the atomic's address depends on '" + Dim + "'";
      continue;
    }
    if (Uses.reads("gridDim", D)) {
      V.Why = "the kernel reads 'gridDim." + Sfx + "'";
      continue;
    }
    if (Uses.reads("blockIdx", D, true)) {
      V.Why = "'" + Dim + "' is read inside a macro or a called function";
      continue;
    }
    std::optional<BlockBound> Bound;
    std::string Outside;
    for (const an::GuardTerm &T : G.Terms) {
      auto TB = blockBoundOf(T, D, Tab);
      if (!TB)
        continue;
      // A block the term rejects must do nothing: every other write is
      // under the same term.
      if (all_of(OtherGuards, [&](const an::Guard *O) {
            return any_of(O->Terms,
                          [&](const an::GuardTerm &U) { return U.Cmp && *U.Cmp == *T.Cmp; });
          })) {
        Bound = TB;
        break;
      }
      Outside = "the kernel writes memory outside the guard '" + T.Text + "'";
    }
    if (!Bound) {
      V.Why = !Outside.empty() ? Outside
                               : "no guard of the atomic bounds '" + Dim +
                                     "' (such as 'i < n' with i = " + Dim + " * blockDim." + Sfx +
                                     " + threadIdx." + Sfx + ")";
      continue;
    }
    V.Dims.push_back(*Bound);
  }
  return V;
}

std::string checkBlockCoverage(const agent::RuleInput &In, const an::AtomTable &Tab,
                               ArrayRef<BlockBound> Dims) {
  // The rewrite visits the blocks the guard admits; the original launched
  // its grid. With a spec, check that the grid held every such block (else
  // the rewrite would add elements the original never read).
  const measure::LaunchSpec *Spec = In.Request.Spec;
  if (!Spec || Dims.empty())
    return "";
  measure::ValueMap Over(In.Request.Tunables.begin(), In.Request.Tunables.end());
  auto Env = Spec->environment(Over);
  if (!Env) {
    consumeError(Env.takeError());
    return "";
  }
  auto G = Spec->geometry(*Env);
  if (!G) {
    consumeError(G.takeError());
    return "";
  }
  for (const BlockBound &B : Dims) {
    auto NegU = evaluateForm(B.NegU, Tab, In, *Env), Coef = evaluateForm(B.A, Tab, In, *Env);
    if (!NegU || !Coef || *Coef <= 0)
      continue;
    int64_t Blocks = *NegU > 0 ? (*NegU + *Coef - 1) / *Coef : 0;
    int64_t Launched = G->Grid[B.Dim - 'x'];
    if (Blocks > Launched)
      return formatv("the spec launches {0} blocks along {1}, fewer than the {2} that the guard "
                     "'{3}' admits: the original leaves elements out, and a grid-independent "
                     "rewrite would add them",
                     Launched, B.Dim, Blocks, B.Term);
  }
  return "";
}

std::string virtualLoopText(ArrayRef<BlockBound> Dims, StringRef Fn,
                            function_ref<std::string(StringRef)> Fresh, int Unroll,
                            const std::string &Ind) {
  std::string I1 = Ind + "  ", I2 = I1 + "  ", Out;
  auto Line = [&](const std::string &Indent, const std::string &L) { Out += Indent + L + "\n"; };
  std::string Nv = Fresh("blocks"), V = Fresh("vb"), Nb = Fresh("grid_blocks");
  std::vector<std::string> Extents, PhysIdx, PhysCount;
  Line(Ind, "{");
  for (const BlockBound &B : Dims) {
    std::string D(1, B.Dim);
    std::string L = Fresh("limit_" + D), G = Fresh("blocks_" + D);
    Line(I1, "// The blocks along " + D + " that may pass '" + B.Term + "'.");
    Line(I1, "const long long " + L + " = " + B.NegUText + ";");
    Line(I1, "const long long " + G + " = " + L + " > 0 ? (" + L + " + " + B.AText + " - 1) / " +
                 (StringRef(B.AText).contains(' ') ? "(" + B.AText + ")" : B.AText) + " : 0;");
    Extents.push_back(G);
    PhysIdx.push_back(PhysCount.empty() ? "(long long)blockIdx." + D
                                        : join(PhysCount, " * ") + " * blockIdx." + D);
    PhysCount.push_back("(long long)gridDim." + D);
  }
  if (Dims.size() > 1)
    Line(I1, "const long long " + Nv + " = " + join(Extents, " * ") + ";");
  else
    Nv = Extents.front();
  Line(I1, "const long long " + Nb + " = " + join(PhysCount, " * ") + ";");
  // Block v of the virtual grid, x fastest: x = v % gx, y = v / gx % gy, ...
  auto Args = [&](const std::string &X) {
    if (Dims.size() == 1)
      return "(unsigned)" + (StringRef(X).contains(' ') ? "(" + X + ")" : X);
    std::string P = StringRef(X).contains(' ') ? "(" + X + ")" : X;
    std::vector<std::string> Out;
    std::string Div;
    for (size_t I = 0; I < Dims.size(); ++I) {
      std::string Q = Div.empty() ? P
                                  : P + " / " +
                                        (Div.find(' ') != std::string::npos ? "(" + Div + ")" : Div);
      Out.push_back(I + 1 == Dims.size() ? "(unsigned)(" + Q + ")"
                                         : "(unsigned)(" + Q + " % " + Extents[I] + ")");
      Div = Div.empty() ? Extents[I] : Div + " * " + Extents[I];
    }
    return join(Out, ", ");
  };
  std::string Call = Fn.str();
  if (Unroll > 1) {
    Line(I1, "long long " + V + " = " + join(PhysIdx, " + ") + ";");
    Line(I1, "for (; " + V + " + " + std::to_string(Unroll - 1) + " * " + Nb + " < " + Nv + "; " +
                 V + " += " + std::to_string(Unroll) + " * " + Nb + ") {");
    for (int K = 0; K < Unroll; ++K)
      Line(I2, Call + "(" +
                   Args(K == 0   ? V
                        : K == 1 ? V + " + " + Nb
                                 : V + " + " + std::to_string(K) + " * " + Nb) +
                   ");");
    Line(I1, "}");
    Line(I1, "for (; " + V + " < " + Nv + "; " + V + " += " + Nb + ")");
  } else {
    Line(I1, "for (long long " + V + " = " + join(PhysIdx, " + ") + "; " + V + " < " + Nv + "; " +
                 V + " += " + Nb + ")");
  }
  Line(I2, Call + "(" + Args(V) + ");");
  Line(Ind, "}");
  return Out;
}

std::optional<std::map<std::string, std::string>>
virtualGrid(const agent::ProposalRequest &Req, ArrayRef<BlockBound> Dims, std::string Cap,
            std::string &Note) {
  std::string Resized;
  for (const BlockBound &B : Dims)
    Resized += B.Dim;
  Cap = capShare(Req, Resized, std::move(Cap));
  std::vector<std::string> Orig;
  for (const BlockBound &B : Dims) {
    auto It = Req.Geometry.find(std::string("grid.") + B.Dim);
    if (It == Req.Geometry.end()) {
      Note = "The spec's grid is not known, so it is left as it is; the kernel is correct "
             "with it.";
      return std::nullopt;
    }
    Orig.push_back(Dims.size() == 1 ? It->second : "(" + It->second + ")");
  }
  std::map<std::string, std::string> G;
  std::string First = std::string("grid.") + Dims.front().Dim;
  // grid.y and grid.z hold at most 65535 blocks.
  G[First] = "min(" + join(Orig, " * ") + ", " +
             (First == "grid.x" ? Cap : "min(65535, " + Cap + ")") + ")";
  for (size_t I = 1; I < Dims.size(); ++I)
    G[std::string("grid.") + Dims[I].Dim] = "1";
  // The spec language must read it, or the change is worthless.
  for (const auto &[Field, Expr] : G)
    if (auto P = measure::IntExpr::parse(Expr); !P) {
      Note = "The grid stays as it is: '" + Expr + "' is not in the spec's language (" +
             toString(P.takeError()) + ").";
      return std::nullopt;
    }
  return G;
}

std::string capShare(const agent::ProposalRequest &Req, StringRef Resized, std::string Cap) {
  std::vector<std::string> Kept;
  for (char D : {'x', 'y', 'z'}) {
    auto It = Req.Geometry.find(std::string("grid.") + D);
    if (!Resized.contains(D) && It != Req.Geometry.end() && It->second != "1")
      Kept.push_back("(" + It->second + ")");
  }
  if (Kept.empty())
    return Cap;
  return "max(1, " + Cap + " / (" + join(Kept, " * ") + "))";
}

std::string boundTerms(ArrayRef<BlockBound> Dims) {
  std::vector<std::string> Terms;
  for (const BlockBound &B : Dims)
    Terms.push_back("'" + B.Term + "'");
  return join(Terms, " and ");
}

} // namespace forge::passes
