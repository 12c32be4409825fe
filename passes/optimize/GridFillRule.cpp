//===- passes/optimize/GridFillRule.cpp - grid-fill ------------------------===//
///
/// \file
/// A kernel whose elements are covered by a grid-stride loop,
///
///     for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
///          i += blockDim.x * gridDim.x) ...
///
/// computes the same for any grid.x, but is often launched with a fixed,
/// small grid (`dot<<<32, 256>>>`, sized for an older GPU) that leaves
/// most SMs idle, or with one thread per element, which the loop no longer
/// needs. The rule changes the launch alone: grid.x becomes FORGE_GRID_WAVES
/// waves of full occupancy (a new tunable), or is capped at them. The
/// source is not edited (docs/passes/grid-fill.md).
///
//===----------------------------------------------------------------------===//
#include "ElementwiseKernel.h"
#include "RuleAst.h"
#include "RuleUtil.h"
#include "Rules.h"
#include "forge/Analysis/KernelModel.h"
#include "forge/Frontend/KernelFacts.h"
#include "forge/Measure/IntExpr.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DynamicRecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/Support/FormatVariadic.h"

using namespace clang;
using namespace llvm;
namespace an = forge::analysis;

namespace forge::passes {
namespace {

/// Where blockIdx.x and gridDim.x may be read: the heads of the
/// grid-stride loops (their start and step), and locals that only feed
/// them (`int stride = blockDim.x * gridDim.x;`).
class GridUses : public DynamicRecursiveASTVisitor {
public:
  GridUses(ASTContext &Ctx, const CompoundStmt *Body) : Ctx(Ctx), Body(Body) {}

  /// Statements in which the grid may be read.
  std::vector<const Stmt *> Allowed;
  /// The first read of the grid outside them, in words; "" when none.
  std::string Why;

  bool VisitExpr(Expr *E) override {
    auto B = frontend::cudaBuiltin(E);
    if (!B || B->Dim != 'x' || (B->Var != "blockIdx" && B->Var != "gridDim") || !Why.empty())
      return true;
    if (InCallee) {
      Why = "a device function the kernel calls reads '" + B->Var.str() + ".x'";
      return true;
    }
    if (!allowed(E, 0))
      Why = "'" + B->Var.str() + ".x' is read at line " + line(E) +
            " outside the head of the grid-stride loop: the kernel depends on the grid";
    return true;
  }

  bool VisitCallExpr(CallExpr *C) override {
    std::string N = calleeNameOf(C);
    if (N == "this_grid" || N == "sync_grids")
      if (Why.empty())
        Why = "the kernel synchronises the grid ('" + N +
              "'): a cooperative launch cannot have more blocks than the GPU holds";
    const FunctionDecl *FD = C->getDirectCallee();
    const FunctionDecl *Def = FD ? FD->getDefinition() : nullptr;
    if (!Def || Ctx.getSourceManager().isInSystemHeader(Def->getLocation()) ||
        !Seen.insert(Def).second || Depth >= 4)
      return true;
    ++Depth;
    bool Was = InCallee;
    InCallee = true;
    TraverseStmt(Def->getBody());
    InCallee = Was;
    --Depth;
    return true;
  }

private:
  std::string line(const Stmt *S) const {
    return std::to_string(Ctx.getSourceManager().getPresumedLineNumber(S->getBeginLoc()));
  }

  bool within(const Stmt *S, const Stmt *Region) const {
    const SourceManager &SM = Ctx.getSourceManager();
    SourceRange R = Region->getSourceRange(), X = S->getSourceRange();
    return !SM.isBeforeInTranslationUnit(X.getBegin(), R.getBegin()) &&
           !SM.isBeforeInTranslationUnit(R.getEnd(), X.getEnd());
  }

  /// S lies in an allowed statement, or in the initialiser of a local that
  /// is never assigned and is read only in allowed places (two levels).
  bool allowed(const Stmt *S, unsigned Level) {
    if (any_of(Allowed, [&](const Stmt *A) { return within(S, A); }))
      return true;
    if (Level >= 2)
      return false;
    for (const Stmt *Up = parentStmt(S, Ctx); Up; Up = parentStmt(Up, Ctx)) {
      const auto *DS = dyn_cast<DeclStmt>(Up);
      if (!DS)
        continue;
      for (const Decl *D : DS->decls()) {
        const auto *V = dyn_cast<VarDecl>(D);
        if (!V || !V->getInit() || !within(S, V->getInit()) || isModified(V, Body))
          continue;
        std::vector<const DeclRefExpr *> Refs = referencesTo(V, Body);
        return !Refs.empty() &&
               all_of(Refs, [&](const DeclRefExpr *R) { return allowed(R, Level + 1); });
      }
      return false;
    }
    return false;
  }

  ASTContext &Ctx;
  const CompoundStmt *Body;
  bool InCallee = false;
  std::set<const FunctionDecl *> Seen;
  unsigned Depth = 0;
};

class GridFillRule : public ExpertRule {
public:
  StringRef name() const override { return "grid-fill"; }
  RuleOutcome propose(const RuleInput &In) override;
};

RuleOutcome GridFillRule::propose(const RuleInput &In) {
  ASTContext &Ctx = In.Ctx;
  const agent::ProposalRequest &Req = In.Request;
  const CompoundStmt *Body = kernelBody(In.Kernel);
  if (!Body)
    return notApplicable("the kernel has no body");
  auto MX = kernelModel(In);
  if (!MX)
    return notApplicable(toString(MX.takeError()));
  an::KernelModel &M = *MX;

  // The grid-stride loops over x: start blockIdx.x * blockDim.x +
  // threadIdx.x, step blockDim.x * gridDim.x.
  an::AtomTable &T = M.atoms();
  an::IndexForm BlockX = Req.Block ? an::IndexForm::constant((*Req.Block)[0])
                                    : an::IndexForm::atom(T.builtin("blockDim", 'x'));
  an::IndexForm Global = an::IndexForm::atom(T.builtin("blockIdx", 'x')) * BlockX +
                         an::IndexForm::atom(T.builtin("threadIdx", 'x'));
  an::IndexForm Stride = BlockX * an::IndexForm::atom(T.builtin("gridDim", 'x'));
  GridUses Uses(Ctx, Body);
  std::vector<const an::Loop *> Loops;
  std::string LoopWhy;
  for (const an::Loop &L : M.Loops) {
    if (L.StepK != an::StepKind::GridStride || !L.S || !L.IV)
      continue;
    if (!L.Step || !(*L.Step == Stride) || !L.Start || !(*L.Start == Global)) {
      LoopWhy = "the loop over '" + L.Var + "' at line " + std::to_string(L.Loc.Line) +
                " does not start at blockIdx.x * blockDim.x + threadIdx.x and step by "
                "blockDim.x * gridDim.x";
      continue;
    }
    if (!L.Bound || M.atoms().uniformity(*L.Bound).isThreadVarying()) {
      LoopWhy = "the loop over '" + L.Var + "' at line " + std::to_string(L.Loc.Line) +
                " has no bound that every thread shares";
      continue;
    }
    Loops.push_back(&L);
    // Its head: a for loop's init and increment; a while loop's variable's
    // initialiser and the statement that steps it.
    if (const auto *F = dyn_cast<ForStmt>(L.S)) {
      if (F->getInit())
        Uses.Allowed.push_back(F->getInit());
      if (F->getInc())
        Uses.Allowed.push_back(F->getInc());
    }
    if (L.IV->getInit())
      Uses.Allowed.push_back(L.IV->getInit());
    if (const auto *CS = dyn_cast_or_null<CompoundStmt>(loopBodyOf(L.S)))
      for (const Stmt *X : CS->body())
        if (isModified(L.IV, X))
          Uses.Allowed.push_back(X);
  }
  if (Loops.empty())
    return notApplicable(LoopWhy.empty() ? "no grid-stride loop over x: the kernel's work is "
                                           "tied to its grid"
                                         : LoopWhy);
  Uses.TraverseStmt(const_cast<CompoundStmt *>(Body));
  if (!Uses.Why.empty())
    return notApplicable(Uses.Why);

  // The launch: too few threads for the GPU, or more blocks than waves.
  auto Size = launchSize(In);
  auto Grid = Req.Geometry.find("grid.x");
  if (!Size || !Req.Spec || Grid == Req.Geometry.end())
    return notApplicable("no launch spec with a grid: the rule changes the spec's grid.x");
  if (Size->Grid[1] != 1 || Size->Grid[2] != 1)
    return notApplicable(formatv("the grid is {0} x {1} x {2}: the rule changes a 1D grid",
                                 Size->Grid[0], Size->Grid[1], Size->Grid[2])
                             .str());
  // The kernel's static shared memory limits the blocks an SM holds.
  int64_t Shared = int64_t(frontend::totalBytes(frontend::staticSharedVariables(In.Kernel, Ctx)));
  auto Cap = gridWavesCap(In, Shared);
  if (!Cap)
    return notApplicable("the block size is not known");
  int64_t Resident = int64_t(Cap->SMs) * Cap->BlocksPerSM;
  int64_t Waves4 = 4 * Resident;
  std::string GridText = Grid->second;
  agent::SpecChange S;
  std::string Summary, Change;
  if (underfillsGpu(In, *Cap, *Size)) {
    S.Geometry["grid.x"] = Cap->Expr;
    Summary = formatv("grid.x {0} -> {1} (FORGE_GRID_WAVES waves of the GPU): the grid-stride "
                      "loop is correct for any grid",
                      Size->Grid[0], Cap->Expr)
                  .str();
    Change = formatv("The launch has {0} blocks of {1} threads ({2} threads), less than half "
                     "of what the GPU runs at once ({3} SMs x {4} blocks): most SMs idle. "
                     "grid.x becomes {5} ({6} blocks at the default of 4 waves).",
                     Size->Grid[0], Cap->BlockThreads, Size->Threads, Cap->SMs,
                     Cap->BlocksPerSM, Cap->Expr, Waves4)
                 .str();
  } else if (Size->Grid[0] > 2 * Waves4) {
    S.Geometry["grid.x"] = formatv("min({0}, {1})", GridText, Cap->Expr).str();
    Summary = formatv("grid.x capped at FORGE_GRID_WAVES waves ({0} -> {1} blocks at 4 "
                      "waves): the grid-stride loop is correct for any grid",
                      Size->Grid[0], Waves4)
                  .str();
    Change = formatv("The launch has {0} blocks, over {1} waves of the GPU ({2} SMs x {3} "
                     "blocks): each block does little beyond its start-up. grid.x is capped "
                     "at {4}, and the loop gives each thread several elements.",
                     Size->Grid[0], Size->Grid[0] / Resident, Cap->SMs, Cap->BlocksPerSM,
                     Cap->Expr)
                 .str();
  } else {
    return notApplicable(formatv("{0} has {1} blocks of {2} threads: between half a wave and "
                                 "8 waves of the GPU ({3} SMs x {4} blocks), so the grid "
                                 "already fills it",
                                 Size->From, Size->Grid[0], Cap->BlockThreads, Cap->SMs,
                                 Cap->BlocksPerSM)
                             .str());
  }
  if (auto Parsed = measure::IntExpr::parse(S.Geometry["grid.x"]); !Parsed)
    return notApplicable("the spec's grid.x cannot be written: " +
                         toString(Parsed.takeError()));
  if (!Req.Tunables.count("FORGE_GRID_WAVES"))
    S.NewTunables["FORGE_GRID_WAVES"] = gridWavesCandidates();
  std::vector<std::string> Vars;
  for (const an::Loop *L : Loops)
    Vars.push_back("'" + L->Var + "' (line " + std::to_string(L->Loc.Line) + ")");
  S.Justification = "the grid-stride loop over " + join(Vars, ", ") +
                    " visits every element for any grid, and nothing else in the kernel "
                    "reads blockIdx.x or gridDim.x";
  std::string Rationale =
      Change + "\nPreconditions (kernel model): every grid-stride loop over x starts at "
               "blockIdx.x * blockDim.x + threadIdx.x, steps by blockDim.x * gridDim.x and "
               "has a bound every thread shares; blockIdx.x and gridDim.x are read nowhere "
               "else (nor in the device functions the kernel calls), so no output is per "
               "block; no grid synchronisation. Only the launch changes; a reduction's "
               "partials are combined in another order, which the check's tolerance judges.";
  return proposeLaunch(In, name(), Summary, Rationale, std::move(S));
}

} // namespace

std::unique_ptr<ExpertRule> createGridFillRule() { return std::make_unique<GridFillRule>(); }

} // namespace forge::passes
