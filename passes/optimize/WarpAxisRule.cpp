//===- passes/optimize/WarpAxisRule.cpp - warp-axis -------------------------===//
///
/// \file
/// A 2D kernel whose lanes walk the wrong axis: `row = blockIdx.x *
/// blockDim.x + threadIdx.x`, `col = ... threadIdx.y`, `C[row * N + col]`.
/// The lanes of a warp (consecutive threadIdx.x) then touch elements N apart,
/// one 32-byte sector each, while threadIdx.y moves along contiguous memory.
/// In the model's terms: some global access has a slope of +-1 element along
/// threadIdx.y and a slope along threadIdx.x that is not 0 or +-1 (strided
/// across the warp), and no access is coalesced along x and strided along y.
///
/// The rewrite renumbers the threads of each block so that consecutive
/// lanes take consecutive threadIdx.y values:
///
///     lin = threadIdx.x + blockDim.x * threadIdx.y;
///     tx = lin / blockDim.y;   // in [0, blockDim.x)
///     ty = lin % blockDim.y;   // in [0, blockDim.y)
///
/// and the body reads tx and ty for threadIdx.x and threadIdx.y. (tx, ty) is
/// a permutation of the block's (threadIdx.x, threadIdx.y), so the block
/// covers the same elements and the launch is unchanged; the rewrite is
/// correct whenever the threads of a block do not cooperate (no shared
/// memory, barrier, warp collective or other effect that depends on which
/// thread runs what), which the rule checks on the AST
/// (docs/passes/warp-axis.md).
///
//===----------------------------------------------------------------------===//
#include "ComponentUses.h"
#include "RuleAst.h"
#include "RuleUtil.h"
#include "Rules.h"
#include "forge/Analysis/KernelModel.h"
#include "forge/Frontend/CudaBuiltins.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace clang;
using namespace llvm;
namespace an = forge::analysis;

namespace forge::passes {
namespace {

/// What the threads of the kernel do that ties a result to a thread
/// number, and where it reads threadIdx.x and threadIdx.y.
struct ThreadUses : ComponentUses {
  explicit ThreadUses(const SourceManager &SM)
      : ComponentUses(SM, "threadIdx", "xy", "the kernel has inline assembly") {}
  bool VisitVarDecl(VarDecl *V) override {
    if (V->hasAttr<CUDASharedAttr>())
      fail("the kernel declares the __shared__ array '" + V->getNameAsString() +
           "': its threads cooperate, and renumbering them would change who shares what");
    if (V->isStaticLocal())
      fail("the kernel has a static local '" + V->getNameAsString() + "'");
    return true;
  }
  std::string callHazard(StringRef N) override {
    if (!isThreadEffect(N))
      return "";
    return "the kernel calls '" + N.str() +
           "', which synchronises or communicates between threads or depends on which thread "
           "runs what";
  }
};

/// How an access moves along threadIdx.x and threadIdx.y: +-1 (unit), 0,
/// or anything else (strided; unknown counts as strided).
enum class Move { Zero, Unit, Strided };
Move moveOf(const an::Slope &S) {
  auto C = S.known() ? S.Step->constantValue() : std::nullopt;
  if (C && *C == 0)
    return Move::Zero;
  if (C && (*C == 1 || *C == -1))
    return Move::Unit;
  return Move::Strided;
}

class WarpAxisRule : public ExpertRule {
public:
  StringRef name() const override { return "warp-axis"; }

  RuleOutcome propose(const RuleInput &In) override {
    ASTContext &Ctx = In.Ctx;
    auto M = kernelModel(In);
    if (!M)
      return notApplicable(toString(M.takeError()));

    // The accesses the renumbering helps and the ones it would hurt.
    std::vector<std::string> Helped, Hurt;
    for (const an::Access &A : M->Accesses) {
      if (A.Space == an::MemorySpace::Shared)
        return notApplicable("the kernel uses shared memory ('" + A.Buffer +
                             "'): its threads cooperate already");
      if (A.Space != an::MemorySpace::Global || !A.IndexKnown)
        continue;
      Move X = moveOf(M->slopeAlong(A, "threadIdx", 'x'));
      Move Y = moveOf(M->slopeAlong(A, "threadIdx", 'y'));
      std::string T = "'" + A.Text + "' (line " + std::to_string(A.Loc.Line) + ")";
      if (Y == Move::Unit && X == Move::Strided)
        Helped.push_back(T);
      else if (X == Move::Unit && Y == Move::Strided) // (Y zero: a row's value, shared)
        Hurt.push_back(T);
    }
    if (Helped.empty())
      return notApplicable("no global access moves by one element along threadIdx.y while "
                           "neighbouring lanes (threadIdx.x) touch elements apart: the warp "
                           "already walks the contiguous axis, or no axis is contiguous");
    if (!Hurt.empty())
      return notApplicable("renumbering the lanes along threadIdx.y would help " +
                           join(Helped, ", ") + " but make " + join(Hurt, ", ") +
                           " strided, which is coalesced along threadIdx.x now");
    if (In.Request.Block && (*In.Request.Block)[1] == 1)
      return notApplicable(formatv("the block is {0}x{1}x{2}: with one thread along y there is "
                                   "no other axis for the lanes to walk",
                                   (*In.Request.Block)[0], (*In.Request.Block)[1],
                                   (*In.Request.Block)[2])
                               .str());

    ThreadUses U(Ctx.getSourceManager());
    EditCollector C(In);
    auto Head = [](const std::array<std::string, 3> &N) -> std::vector<std::string> {
      return {"// warp-axis: the threads of the block renumbered so that consecutive lanes take",
              "// consecutive threadIdx.y, the axis along which memory is contiguous (the same",
              "// threads of the block, in another order).",
              "const unsigned int " + N[0] + " = threadIdx.x + blockDim.x * threadIdx.y;",
              "const unsigned int " + N[1] + " = " + N[0] + " / blockDim.y;",
              "const unsigned int " + N[2] + " = " + N[0] + " % blockDim.y;"};
    };
    if (std::string W = renumberComponents(In, U, "threadIdx",
                                           {"forge_lin", "forge_tx", "forge_ty"}, Head, C);
        !W.empty())
      return notApplicable(W);

    std::string Rationale =
        formatv("Neighbouring lanes of a warp differ in threadIdx.x, along which {0} move by "
                "more than one element, so each lane touches its own 32-byte sector; along "
                "threadIdx.y they move by one element. Renumbering the block's threads "
                "(lane l of the block takes threadIdx.y = l % blockDim.y, threadIdx.x = l / "
                "blockDim.y) puts runs of blockDim.y consecutive elements in each warp "
                "instruction: whole sectors, and whole 128-byte lines once blockDim.y >= 32. The "
                "block covers the same elements, so the launch is unchanged.",
                join(Helped, ", "))
            .str();
    Rationale += "\nPreconditions (kernel model and AST): an access with a slope of one element "
                 "along threadIdx.y and a stride along threadIdx.x; none coalesced along x "
                 "and strided along y; no shared memory, barrier, warp collective, inline "
                 "assembly, static local, or device function that reads threadIdx; threadIdx "
                 "used by its components, outside macros.";
    return proposeEdits(In, name(),
                        "lanes along threadIdx.y, the contiguous axis of " + join(Helped, ", "),
                        Rationale, C.edits());
  }
};

} // namespace

std::unique_ptr<ExpertRule> createWarpAxisRule() { return std::make_unique<WarpAxisRule>(); }

} // namespace forge::passes
