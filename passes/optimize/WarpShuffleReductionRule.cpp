//===- passes/optimize/WarpShuffleReductionRule.cpp - The warp-shuffle-reduction expert rule ---------------===//
// Placeholder while the rule is written (issue #6): it proposes nothing.
#include "Rules.h"

namespace forge::passes {
namespace {
class WarpShuffleReductionRule : public ExpertRule {
public:
  llvm::StringRef name() const override { return "warp-shuffle-reduction"; }
  RuleOutcome propose(const RuleInput &) override { return {{}, "not written yet"}; }
};
} // namespace
std::unique_ptr<ExpertRule> createWarpShuffleReductionRule() { return std::make_unique<WarpShuffleReductionRule>(); }
} // namespace forge::passes
