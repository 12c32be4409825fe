//===- passes/optimize/ExpertRules.cpp - The table of expert rules --------===//
#include "ExpertRule.h"
#include "Rules.h"
#include "forge/Support/Glob.h"

using namespace llvm;

namespace forge::passes {

ArrayRef<RuleInfo> allExpertRules() {
  static const RuleInfo Rules[] = {
      {"restrict", "const __restrict__ on read-only pointer parameters", createRestrictRule},
      {"unroll", "#pragma unroll on loops with a constant trip count", createUnrollRule},
      {"specialize-scalar", "a copy of the body for the spec's values of parameters that set loop trip counts",
       createSpecializeScalarRule},
      {"launch-bounds", "__launch_bounds__ from the tuned block size", createLaunchBoundsRule},
      {"vectorize", "16-byte loads and stores where alignment and contiguity are shown",
       createVectorizeRule},
      {"grid-stride", "a grid-stride loop with a grid capped at a few waves", createGridStrideRule},
      {"accumulator-promotion", "a memory element updated in every iteration of a loop kept in a register",
       createAccumulatorPromotionRule},
      {"grid-fill", "a grid of a few waves for a grid-stride kernel launched with too few or too many blocks",
       createGridFillRule},
      {"warp-shuffle-reduction", "a shared-memory tree reduction's last steps as warp shuffles",
       createWarpShuffleReductionRule},
      {"hierarchical-reduction", "one atomic per block for a reduction into one address",
       createHierarchicalReductionRule},
      {"segment-reduction", "a warp per block segment for a shared-memory tree's one output per block",
       createSegmentReductionRule},
      {"smem-stencil-tiling", "stage a reused input tile (with halo) in shared memory",
       createSmemStencilTilingRule},
      {"stencil-register-rows", "several rows per thread from a register window of a 2D stencil",
       createStencilRegisterRowsRule},
      {"stencil-z-march", "a register queue along z and shared x-y planes for a 3D stencil whose threads walk z",
       createStencilZMarchRule},
      {"plane-loop", "one plane per block along z as a loop over planes, offered with stencil-z-march on it",
       createPlaneLoopRule},
      {"register-tiling", "several outputs per thread for a naive matrix product",
       createRegisterTilingRule},
      {"cooperative-row", "a warp (or a block) per row for per-thread row loops",
       createCooperativeRowRule},
      {"column-split", "a per-thread column loop split over several warps when the launch has few threads",
       createColumnSplitRule},
      {"warp-axis", "a 2D block's threads renumbered so that lanes walk the contiguous axis",
       createWarpAxisRule},
      {"block-order", "a 2D grid's blocks renumbered so that consecutive blocks walk the contiguous axis",
       createBlockOrderRule},
      {"coalesced-remap", "per-thread chunks visited so that the warp touches consecutive elements",
       createCoalescedRemapRule},
      {"transpose-tile", "a naive transpose through a padded 32 x 32 shared-memory tile",
       createTransposeTileRule},
      {"shared-padding", "a shared-memory array's rows padded where a warp's accesses conflict in its banks",
       createSharedPaddingRule},
      {"histogram-privatize", "a per-block shared-memory copy of a bounded histogram's bins",
       createHistogramPrivatizeRule},
      {"scan-template", "a recognised prefix scan replaced by the one-pass look-back scan template",
       createScanTemplateRule},
      {"sort-template", "a kernel with a sort's contract replaced by the radix sort template",
       createSortTemplateRule},
  };
  return Rules;
}

Expected<std::vector<const RuleInfo *>> selectExpertRules(StringRef Globs) {
  std::vector<StringRef> Names;
  for (const RuleInfo &R : allExpertRules())
    Names.push_back(R.Name);
  auto Picked = selectByGlobs(Names, Globs, "--rules", "expert rule");
  if (!Picked)
    return Picked.takeError();
  std::vector<const RuleInfo *> Out;
  for (size_t I : *Picked)
    Out.push_back(&allExpertRules()[I]);
  return Out;
}

} // namespace forge::passes
