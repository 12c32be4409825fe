//===- passes/optimize/BlockOrderRule.cpp - block-order ---------------------===//
///
/// \file
/// A 2D grid whose blockIdx.y walks the contiguous axis of memory:
/// `row = blockIdx.x * blockDim.x + ...`, `col = blockIdx.y * blockDim.y +
/// ...`, `C[row * N + col]`. The hardware starts blocks blockIdx.x first, so
/// the blocks resident at one time cover every row and a narrow band of
/// columns: each DRAM page is opened for one block's short run and again,
/// much later, for its neighbour's. In the model's terms: some global access
/// moves by fewer elements along blockIdx.y than along blockIdx.x, and none
/// the other way round.
///
/// The rewrite renumbers the blocks so that consecutive blocks (in the
/// order the hardware starts them) take consecutive blockIdx.y:
///
///     blk = blockIdx.x + gridDim.x * blockIdx.y;
///     bx = blk / gridDim.y;    // in [0, gridDim.x)
///     by = blk % gridDim.y;    // in [0, gridDim.y)
///
/// and the body reads bx and by for blockIdx.x and blockIdx.y. (bx, by) is a
/// permutation of the grid's (blockIdx.x, blockIdx.y) for every grid, so
/// each block does what some block did before, the launch is unchanged and
/// no block shape is assumed. What the rule checks is that nothing ties a
/// result to which block runs when: no inline assembly (%ctaid), no fences,
/// volatile accesses or grid-wide cooperative groups (blocks waiting for
/// one another), no clusters, blockIdx read by its components in the
/// kernel's own text (docs/passes/block-order.md).
///
//===----------------------------------------------------------------------===//
#include "FormCode.h"
#include "RuleAst.h"
#include "RuleUtil.h"
#include "Rules.h"
#include "forge/Analysis/KernelModel.h"
#include "forge/Frontend/CudaBuiltins.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/DynamicRecursiveASTVisitor.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include <cstdlib>
#include <set>

using namespace clang;
using namespace llvm;
namespace an = forge::analysis;

namespace forge::passes {
namespace {

/// Where the kernel reads blockIdx.x and blockIdx.y, and what would make
/// the order in which blocks run matter.
struct BlockUses : DynamicRecursiveASTVisitor {
  const SourceManager &SM;
  std::string Why;
  std::vector<std::pair<SourceRange, char>> Ids; ///< blockIdx.x / .y
  std::vector<SourceRange> Components;           ///< blockIdx.x / .y / .z
  std::vector<const DeclRefExpr *> Whole;        ///< blockIdx references
  std::set<const FunctionDecl *> Seen;
  bool Inside = false;

  explicit BlockUses(const SourceManager &SM) : SM(SM) {}
  void fail(std::string W) {
    if (Why.empty())
      Why = std::move(W);
  }
  bool VisitGCCAsmStmt(GCCAsmStmt *) override {
    fail("the kernel has inline assembly, which may read the block index (%ctaid)");
    return true;
  }
  bool VisitVarDecl(VarDecl *V) override {
    if (V->getType().isVolatileQualified() ||
        (V->getType()->isPointerType() && V->getType()->getPointeeType().isVolatileQualified()))
      fail("'" + V->getNameAsString() +
           "' is volatile: blocks may wait for one another, and renumbering them would change "
           "which one waits");
    return true;
  }
  bool VisitCallExpr(CallExpr *C) override {
    std::string N = calleeNameOf(C);
    if (StringRef(N).starts_with("__threadfence") || N == "this_grid" || N == "this_cluster" ||
        N == "block_rank" || N == "sync_grids" || StringRef(N).contains("cluster")) {
      fail("the kernel calls '" + N +
           "': its blocks communicate, and renumbering them would change which block waits "
           "for which");
      return true;
    }
    const FunctionDecl *FD = C->getDirectCallee();
    if (!FD) {
      if (!isa<CXXOperatorCallExpr>(C) &&
          !isa<UnresolvedLookupExpr>(C->getCallee()->IgnoreParenImpCasts()))
        fail("the kernel calls through a function pointer");
      return true;
    }
    const FunctionDecl *Def = FD->getDefinition();
    if (Def && !SM.isInSystemHeader(Def->getLocation()) && Seen.insert(Def).second) {
      bool Was = Inside;
      Inside = true;
      TraverseStmt(Def->getBody());
      Inside = Was;
    }
    return true;
  }
  bool VisitExpr(Expr *E) override {
    if (isa<ParenExpr, ImplicitCastExpr>(E))
      return true;
    if (E->getType().isVolatileQualified() && E->isGLValue()) {
      fail("the kernel reads or writes volatile memory (line " +
           std::to_string(SM.getPresumedLineNumber(E->getBeginLoc())) +
           "): blocks may wait for one another, and renumbering them would change which one "
           "waits");
      return true;
    }
    auto B = frontend::cudaBuiltin(E);
    if (!B || B->Var != "blockIdx")
      return true;
    if (B->Dim == 'z') {
      if (!Inside)
        Components.push_back(E->getSourceRange());
      return true;
    }
    std::string Name = "blockIdx." + std::string(1, B->Dim);
    if (Inside) {
      fail("a device function the kernel calls reads '" + Name + "'");
      return true;
    }
    SourceRange R = E->getSourceRange();
    if (R.getBegin().isMacroID() || R.getEnd().isMacroID()) {
      fail("'" + Name + "' is written inside a macro expansion");
      return true;
    }
    Ids.push_back({R, B->Dim});
    Components.push_back(R);
    return true;
  }
  bool VisitDeclRefExpr(DeclRefExpr *D) override {
    if (!Inside && frontend::isCudaBuiltinVar(D->getDecl()) &&
        D->getDecl()->getName() == "blockIdx")
      Whole.push_back(D);
    return true;
  }
};

/// How far an access moves, in elements, when a block index grows by one:
/// a value at the request's block and the spec's sizes, or "a row pitch"
/// (a form of parameters without a value there), or nothing known.
struct Step {
  enum Kind { Unknown, Value, Symbolic } K = Unknown;
  int64_t V = 0;
};

Step stepOf(const an::Slope &S, const an::KernelModel &M, const RuleInput &In,
            const measure::ValueMap &Env) {
  if (!S.known() || S.DataDependent || S.Lanes != 1)
    return {};
  if (auto V = evaluateForm(*S.Step, M.atoms(), In, Env))
    return {Step::Value, std::abs(*V)};
  return {Step::Symbolic, 0};
}

class BlockOrderRule : public ExpertRule {
public:
  StringRef name() const override { return "block-order"; }

  RuleOutcome propose(const RuleInput &In) override {
    ASTContext &Ctx = In.Ctx;
    auto M = kernelModel(In);
    if (!M)
      return notApplicable(toString(M.takeError()));
    const CompoundStmt *Body = kernelBody(In.Kernel);
    if (!Body)
      return notApplicable("the kernel has no body");
    if (In.Kernel.hasAttr<CUDAClusterDimsAttr>())
      return notApplicable("the kernel has __cluster_dims__: the clusters group blocks along x, "
                           "and renumbering them would regroup them");

    measure::ValueMap Env;
    const agent::ProposalRequest &Req = In.Request;
    if (Req.Spec) {
      auto E = Req.Spec->environment();
      if (!E)
        return notApplicable("the spec's sizes cannot be evaluated: " + toString(E.takeError()));
      Env = *E;
      for (const auto &[N, V] : Req.Tunables)
        Env[N] = V;
      auto Geo = Req.Spec->geometry(Env);
      if (!Geo)
        return notApplicable("the spec's launch cannot be evaluated: " +
                             toString(Geo.takeError()));
      if (Geo->Grid[1] == 1)
        return notApplicable(formatv("the spec's grid is {0}x{1}x{2}: with one block along y "
                                     "there is no other order for the blocks",
                                     Geo->Grid[0], Geo->Grid[1], Geo->Grid[2])
                                 .str());
    }

    // The accesses the renumbering helps and the ones it would hurt. A
    // step that is a form of parameters with no value (no spec) is a row
    // pitch: longer than any constant step.
    std::vector<std::string> Helped, Hurt;
    for (const an::Access &A : M->Accesses) {
      if (A.Space != an::MemorySpace::Global || !A.IndexKnown)
        continue;
      Step X = stepOf(M->slopeAlong(A, "blockIdx", 'x'), *M, In, Env);
      Step Y = stepOf(M->slopeAlong(A, "blockIdx", 'y'), *M, In, Env);
      auto Shorter = [](const Step &P, const Step &Q) {
        return P.K == Step::Value && P.V > 0 &&
               (Q.K == Step::Symbolic || (Q.K == Step::Value && Q.V > P.V));
      };
      std::string T = "'" + A.Text + "' (line " + std::to_string(A.Loc.Line) + ")";
      if (Shorter(Y, X))
        Helped.push_back(T);
      else if (Shorter(X, Y))
        Hurt.push_back(T);
    }
    if (Helped.empty())
      return notApplicable("no global access moves by fewer elements along blockIdx.y than "
                           "along blockIdx.x: consecutive blocks already walk the contiguous "
                           "axis, or no axis is contiguous");
    if (!Hurt.empty())
      return notApplicable("renumbering the blocks along blockIdx.y would help " +
                           join(Helped, ", ") + " but move " + join(Hurt, ", ") +
                           " away from its neighbours, which consecutive blocks walk now");

    BlockUses U(Ctx.getSourceManager());
    U.TraverseStmt(const_cast<CompoundStmt *>(Body));
    if (!U.Why.empty())
      return notApplicable(U.Why);
    EditCollector C(In);
    std::set<std::string> Taken;
    std::string Blk = freshName("forge_blk", In.Kernel, Taken);
    std::string Bx = freshName("forge_bx", In.Kernel, Taken);
    std::string By = freshName("forge_by", In.Kernel, Taken);
    std::set<std::pair<unsigned, unsigned>> Done;
    for (const auto &[R, Dim] : U.Ids) {
      auto Off = C.rangeOf(R);
      if (!Off)
        return notApplicable("'blockIdx." + std::string(1, Dim) +
                             "' is not plain text of the main file");
      if (Done.insert(*Off).second)
        C.add({Off->first, Off->second - Off->first, Dim == 'x' ? Bx : By});
    }
    // blockIdx as a whole uint3 cannot be renumbered by its components.
    std::vector<std::pair<unsigned, unsigned>> Components;
    for (SourceRange R : U.Components)
      if (auto Off = C.rangeOf(R))
        Components.push_back(*Off);
    for (const DeclRefExpr *D : U.Whole) {
      auto Off = C.rangeOf(D->getSourceRange());
      bool Covered = Off && any_of(Components, [&](auto P) {
                       return P.first <= Off->first && Off->second <= P.second;
                     });
      if (!Covered)
        return notApplicable("'blockIdx' is used as a whole, not by its components");
    }
    auto First = Body->body_empty() ? std::nullopt : C.rangeOfStatement(Body->body_front());
    if (!First)
      return notApplicable("the kernel's first statement is not plain text of the main file");
    std::string Ind = lineIndent(In.Source, First->first).str();
    // 32-bit division unless the grid has more than 2^32 blocks.
    std::vector<std::string> Head = {
        "// block-order: the blocks renumbered so that consecutive blocks (the hardware starts",
        "// them blockIdx.x first) take consecutive blockIdx.y, the axis along which memory is",
        "// contiguous (the same blocks of the same grid, in another order).",
        "unsigned int " + Bx + ", " + By + ";",
        "if ((unsigned long long)gridDim.x * gridDim.y <= 0xffffffffull) {",
        "  const unsigned int " + Blk + " = blockIdx.x + gridDim.x * blockIdx.y;",
        "  " + Bx + " = " + Blk + " / gridDim.y;",
        "  " + By + " = " + Blk + " % gridDim.y;",
        "} else {",
        "  const unsigned long long " + Blk +
            " = blockIdx.x + (unsigned long long)gridDim.x * blockIdx.y;",
        "  " + Bx + " = (unsigned int)(" + Blk + " / gridDim.y);",
        "  " + By + " = (unsigned int)(" + Blk + " % gridDim.y);",
        "}"};
    C.add({First->first, 0, indentLines(Head, Ind) + "\n" + Ind});
    if (C.failed())
      return notApplicable(C.failure());

    std::string Rationale =
        formatv("The hardware starts blocks blockIdx.x first, and {0} move further along "
                "blockIdx.x than along blockIdx.y: the blocks resident at one time cover a "
                "narrow band of each row, and every DRAM page is opened again for each "
                "neighbouring band. Renumbering the blocks (block b = blockIdx.x + gridDim.x * "
                "blockIdx.y of the grid takes blockIdx.y = b % gridDim.y, blockIdx.x = b / "
                "gridDim.y) makes consecutive blocks neighbours in memory. Each block does what "
                "one block of the grid did before, for any grid, so the launch is unchanged.",
                join(Helped, ", "))
            .str();
    Rationale += "\nPreconditions (kernel model and AST): an access that moves by fewer "
                 "elements along blockIdx.y than along blockIdx.x; none the other way round; "
                 "more than one block along y in the spec's grid; no inline assembly, fence, "
                 "volatile variable, cluster or grid-wide cooperative group, or device function "
                 "that reads blockIdx; blockIdx used by its components, outside macros.";
    return proposeEdits(In, name(),
                        "consecutive blocks along blockIdx.y, the contiguous axis of " +
                            join(Helped, ", "),
                        Rationale, C.edits());
  }
};

} // namespace

std::unique_ptr<ExpertRule> createBlockOrderRule() { return std::make_unique<BlockOrderRule>(); }

} // namespace forge::passes
