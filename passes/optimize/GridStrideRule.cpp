//===- passes/optimize/GridStrideRule.cpp - The grid-stride expert rule ---------------===//
// Placeholder while the rule is written (issue #6): it proposes nothing.
#include "Rules.h"

namespace forge::passes {
namespace {
class GridStrideRule : public ExpertRule {
public:
  llvm::StringRef name() const override { return "grid-stride"; }
  RuleOutcome propose(const RuleInput &) override { return {{}, "not written yet"}; }
};
} // namespace
std::unique_ptr<ExpertRule> createGridStrideRule() { return std::make_unique<GridStrideRule>(); }
} // namespace forge::passes
