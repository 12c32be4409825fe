//===- passes/optimize/LaunchBoundsRule.cpp - The launch-bounds expert rule ---------------===//
// Placeholder while the rule is written (issue #6): it proposes nothing.
#include "Rules.h"

namespace forge::passes {
namespace {
class LaunchBoundsRule : public ExpertRule {
public:
  llvm::StringRef name() const override { return "launch-bounds"; }
  RuleOutcome propose(const RuleInput &) override { return {{}, "not written yet"}; }
};
} // namespace
std::unique_ptr<ExpertRule> createLaunchBoundsRule() { return std::make_unique<LaunchBoundsRule>(); }
} // namespace forge::passes
