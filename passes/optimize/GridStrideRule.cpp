//===- passes/optimize/GridStrideRule.cpp - grid-stride ---------------------===//
///
/// \file
/// Turns the guard of an elementwise kernel,
///
///     int i = blockIdx.x * blockDim.x + threadIdx.x;
///     if (i < n) body
///
/// into a grid-stride loop, `for (long long i = ...; i < n; i += blockDim.x
/// * gridDim.x) body`, which is correct for any grid; the spec change caps
/// the grid at FORGE_GRID_WAVES waves of full occupancy, a new tunable
/// (docs/passes/grid-stride.md).
///
//===----------------------------------------------------------------------===//
#include "RuleUtil.h"
#include "Rules.h"
#include "forge/Measure/IntExpr.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Stmt.h"
#include "llvm/Support/FormatVariadic.h"

using namespace clang;
using namespace llvm;

namespace forge::passes {
namespace {

class GridStrideRule : public ExpertRule {
public:
  StringRef name() const override { return "grid-stride"; }

  RuleOutcome propose(const RuleInput &In) override {
    ASTContext &Ctx = In.Ctx;
    auto Shape = matchOneElementPerThread(In.Kernel, Ctx);
    if (!Shape)
      return notApplicable(toString(Shape.takeError()));

    EditCollector C(In);
    auto Decl = C.rangeOfStatement(Shape->IndexDecl);
    auto Head = C.offsetOf(Shape->Guard->getBeginLoc());
    auto Paren = C.offsetOf(Shape->Guard->getRParenLoc());
    std::string Cond = textOf(Shape->Guard->getCond(), Ctx);
    if (!Decl || !Head || !Paren || Cond.empty())
      return notApplicable("the index or the guard is written through a macro");

    std::string I = Shape->Index->getName().str();
    std::string T = Ctx.getTypeSize(Shape->Index->getType()) >= 64
                        ? Shape->Index->getType().getUnqualifiedType().getAsString(
                              Ctx.getPrintingPolicy())
                        : wideIndexType(Shape->Bound, Ctx);
    C.add(eraseWithLine(In.Source, Decl->first, Decl->second));
    // 'if (cond)' becomes the loop head; the body stays where it is.
    C.add({*Head, *Paren + 1 - *Head,
           formatv("for ({0} {1} = ({0})blockIdx.x * blockDim.x + threadIdx.x; {2}; {1} += "
                   "({0})blockDim.x * gridDim.x)",
                   T, I, Cond)
               .str()});

    std::string Rationale =
        "A grid-stride loop makes the kernel correct for any grid, so the grid can be capped "
        "at a few waves of full occupancy: fewer blocks to launch and retire, the index "
        "arithmetic paid once per thread, and the tuner can choose the number of waves. The "
        "index is " + T + " so that adding the stride cannot overflow.";
    std::optional<agent::SpecChange> Spec;
    auto Grid = In.Request.Geometry.find("grid.x");
    if (Grid != In.Request.Geometry.end() && In.Request.BlockThreads &&
        *In.Request.BlockThreads > 0) {
      const arch::SmLimits &L = In.Target.limits();
      int64_t PerSM = std::min<int64_t>(L.MaxBlocksPerSM,
                                        L.MaxThreadsPerSM / *In.Request.BlockThreads);
      unsigned SMs = In.Request.SmCount ? In.Request.SmCount : 132;
      std::string Expr = formatv("min({0}, {1} * FORGE_GRID_WAVES * {2})", Grid->second, SMs,
                                 std::max<int64_t>(PerSM, 1))
                             .str();
      // The spec language must read it, or the change is worthless.
      if (auto Parsed = measure::IntExpr::parse(Expr)) {
        agent::SpecChange S;
        S.Geometry["grid.x"] = Expr;
        S.NewTunables["FORGE_GRID_WAVES"] = {4, 1, 2, 8, 16, 32};
        S.Justification = formatv("the grid-stride loop covers all {0} elements for any grid, "
                                  "so grid.x may be capped at FORGE_GRID_WAVES waves of {1} "
                                  "SMs x {2} blocks of {3} threads",
                                  textOf(Shape->Bound, Ctx), SMs, PerSM,
                                  *In.Request.BlockThreads)
                              .str();
        Spec = std::move(S);
      } else {
        consumeError(Parsed.takeError());
      }
    } else {
      Rationale += "\nNo spec geometry is known, so the grid is left as it is; the loop is "
                   "correct with it.";
    }
    return proposeEdits(In, name(),
                        "a grid-stride loop over '" + I + "' instead of 'if (" + Cond + ")'",
                        Rationale, C.edits(), std::move(Spec));
  }
};
} // namespace

std::unique_ptr<ExpertRule> createGridStrideRule() { return std::make_unique<GridStrideRule>(); }

} // namespace forge::passes
