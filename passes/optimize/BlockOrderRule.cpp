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
#include "ComponentUses.h"
#include "FormCode.h"
#include "RuleAst.h"
#include "RuleUtil.h"
#include "Rules.h"
#include "forge/Analysis/KernelModel.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include <cstdlib>

using namespace clang;
using namespace llvm;
namespace an = forge::analysis;

namespace forge::passes {
namespace {

/// Where the kernel reads blockIdx.x and blockIdx.y, and what would make
/// the order in which blocks run matter.
struct BlockUses : ComponentUses {
  explicit BlockUses(const SourceManager &SM)
      : ComponentUses(SM, "blockIdx", "xy",
                      "the kernel has inline assembly, which may read the block index "
                      "(%ctaid)") {}
  std::string callHazard(StringRef N) override {
    if (!N.starts_with("__threadfence") && N != "this_grid" && N != "block_rank" &&
        N != "sync_grids" && !N.contains("cluster"))
      return "";
    return "the kernel calls '" + N.str() +
           "': its blocks communicate, and renumbering them would change which block waits "
           "for which";
  }
  std::string exprHazard(const Expr *E) override {
    if (!E->getType().isVolatileQualified() || !E->isGLValue())
      return "";
    return "the kernel reads or writes volatile memory (line " +
           std::to_string(SM.getPresumedLineNumber(E->getBeginLoc())) +
           "): blocks may wait for one another, and renumbering them would change which one "
           "waits";
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
    EditCollector C(In);
    // 32-bit division unless the grid has more than 2^32 blocks.
    auto Head = [](const std::array<std::string, 3> &N) -> std::vector<std::string> {
      const std::string &Blk = N[0], &Bx = N[1], &By = N[2];
      return {
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
    };
    if (std::string W = renumberComponents(In, U, "blockIdx",
                                           {"forge_blk", "forge_bx", "forge_by"}, Head, C);
        !W.empty())
      return notApplicable(W);
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
