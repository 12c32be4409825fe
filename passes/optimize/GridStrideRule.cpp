//===- passes/optimize/GridStrideRule.cpp - grid-stride ---------------------===//
///
/// \file
/// Turns the one-element-per-thread guard of an elementwise map
/// (ElementwiseKernel.h: the model's elementwise pattern over the 1D global
/// index `i`, under `if (i < n ...)` or after `if (i >= n ...) return;`)
/// into a grid-stride loop,
///
///     for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
///          i += (long long)blockDim.x * gridDim.x) body
///
/// which is correct for any grid; the spec change caps the grid at
/// FORGE_GRID_WAVES waves of full occupancy, a new tunable. Other guard
/// conditions stay per element (`if (c) body`, `if (c) continue;`)
/// (docs/passes/grid-stride.md).
///
//===----------------------------------------------------------------------===//
#include "ElementwiseKernel.h"
#include "RuleUtil.h"
#include "Rules.h"
#include "forge/Measure/IntExpr.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Stmt.h"
#include "llvm/ADT/StringExtras.h"
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
    auto K = matchElementwiseKernel(In, /*AllowGridStride=*/false);
    if (!K)
      return notApplicable(toString(K.takeError()));

    EditCollector C(In);
    std::string I = K->indexName(), T = K->IndexType;
    std::string Head = formatv("for ({0} {1} = ({0})blockIdx.x * blockDim.x + threadIdx.x; {2}; "
                               "{1} += ({0})blockDim.x * gridDim.x)",
                               T, I, K->LoopCond)
                           .str();
    if (K->IndexDecl && !K->KeepIndexDecl)
      C.add(eraseIndexDecl(In, *K));
    const auto *If = dyn_cast<IfStmt>(K->Guard);
    std::vector<std::string> Rest;
    for (const Expr *R : K->Rest) {
      auto Range = C.rangeOf(R->getSourceRange());
      if (!Range)
        return notApplicable("the guard is written through a macro");
      Rest.push_back(K->scalarText(In.Source, Range->first, Range->second));
    }
    if (K->Form == ElementGuard::If && Rest.empty()) {
      // 'if (cond)' becomes the loop head; the body stays where it is.
      auto Begin = C.offsetOf(If->getBeginLoc());
      auto Paren = C.offsetOf(If->getRParenLoc());
      if (!Begin || !Paren)
        return notApplicable("the guard is written through a macro");
      C.add({*Begin, *Paren + 1 - *Begin, Head});
      // Arithmetic on the index stays in its own type.
      for (const auto &[B, E] : K->NarrowRanges)
        C.add({B, E - B, "((" + K->OwnType + ")" + I + ")"});
    } else {
      std::vector<std::string> Body = dedentLines(K->BodyText, K->BodyIndent), Stmt;
      if (K->Form == ElementGuard::If) {
        // `if (i < n && c) body`: c is tested per element.
        Stmt = Body;
        Stmt.front() = "if (" + join(Rest, " && ") + ") " + Stmt.front();
      } else {
        // The statements after `if (i >= n [|| c]) return;`.
        Stmt.push_back("{");
        if (!Rest.empty())
          Stmt.push_back("  if (" + join(Rest, " || ") + ") continue;");
        for (const std::string &L : Body)
          Stmt.push_back(L.empty() ? L : "  " + L);
        Stmt.push_back("}");
      }
      C.add({K->Replaced.first, K->Replaced.second - K->Replaced.first,
             indentLines(underHead(Head, Stmt), K->Indent)});
    }

    std::string Guard = K->Form == ElementGuard::If ? "if (" + textOf(If->getCond(), Ctx) + ")"
                                                    : "if (" + textOf(If->getCond(), Ctx) +
                                                          ") return;";
    std::string Rationale =
        "A grid-stride loop makes the kernel correct for any grid, so the grid can be capped "
        "at a few waves of full occupancy: fewer blocks to launch and retire, the index "
        "arithmetic paid once per thread, and the tuner can choose the number of waves. The "
        "index is " + T + " so that adding the stride cannot overflow.";
    Rationale += "\nPreconditions (kernel model): an elementwise map over '" + I +
                 "' = blockIdx.x * blockDim.x + threadIdx.x, bounded by '" + K->LoopCond +
                 "' with a bound every thread shares; the body's values come from its own "
                 "elements, '" + I + "' and grid-uniform values; no barrier, warp collective, "
                 "atomic or early return in it.";
    if (!Rest.empty())
      Rationale += "\nThe rest of the guard ('" + join(Rest, K->Form == ElementGuard::If
                                                                 ? "' && '"
                                                                 : "' || '") +
                   "') is tested per element.";
    std::optional<agent::SpecChange> Spec = wavesCappedGrid(
        In, formatv("the grid-stride loop covers all {0} elements for any grid", K->BoundText)
                .str());
    if (!Spec)
      Rationale += "\nNo spec geometry is known, so the grid is left as it is; the loop is "
                   "correct with it.";
    return proposeEdits(In, name(),
                        "a grid-stride loop over '" + I + "' instead of '" + Guard + "'",
                        Rationale, C.edits(), std::move(Spec));
  }
};
} // namespace

std::unique_ptr<ExpertRule> createGridStrideRule() { return std::make_unique<GridStrideRule>(); }

} // namespace forge::passes
