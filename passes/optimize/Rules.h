//===- passes/optimize/Rules.h - The expert rules' factories ----*- C++ -*-===//
///
/// \file
/// One factory per rule, defined in the rule's own file and listed in
/// ExpertRules.cpp.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_PASSES_OPTIMIZE_RULES_H
#define FORGE_PASSES_OPTIMIZE_RULES_H

#include "ExpertRule.h"

namespace forge::passes {
std::unique_ptr<ExpertRule> createRestrictRule();
std::unique_ptr<ExpertRule> createUnrollRule();
std::unique_ptr<ExpertRule> createSpecializeScalarRule();
std::unique_ptr<ExpertRule> createPlaneLoopRule();
std::unique_ptr<ExpertRule> createLaunchBoundsRule();
std::unique_ptr<ExpertRule> createVectorizeRule();
std::unique_ptr<ExpertRule> createGridStrideRule();
std::unique_ptr<ExpertRule> createGridFillRule();
std::unique_ptr<ExpertRule> createWarpShuffleReductionRule();
std::unique_ptr<ExpertRule> createHierarchicalReductionRule();
std::unique_ptr<ExpertRule> createSmemStencilTilingRule();
std::unique_ptr<ExpertRule> createStencilRegisterRowsRule();
std::unique_ptr<ExpertRule> createStencilZMarchRule();
std::unique_ptr<ExpertRule> createRegisterTilingRule();
std::unique_ptr<ExpertRule> createCooperativeRowRule();
std::unique_ptr<ExpertRule> createTransposeTileRule();
std::unique_ptr<ExpertRule> createCoalescedRemapRule();
std::unique_ptr<ExpertRule> createHistogramPrivatizeRule();
std::unique_ptr<ExpertRule> createScanTemplateRule();
std::unique_ptr<ExpertRule> createSortTemplateRule();
std::unique_ptr<ExpertRule> createWarpAxisRule();
std::unique_ptr<ExpertRule> createBlockOrderRule();
std::unique_ptr<ExpertRule> createColumnSplitRule();
std::unique_ptr<ExpertRule> createSegmentReductionRule();
std::unique_ptr<ExpertRule> createSharedPaddingRule();
std::unique_ptr<ExpertRule> createAccumulatorPromotionRule();
} // namespace forge::passes

#endif
