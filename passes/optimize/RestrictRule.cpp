//===- passes/optimize/RestrictRule.cpp - The restrict expert rule ---------------===//
// Placeholder while the rule is written (issue #6): it proposes nothing.
#include "Rules.h"

namespace forge::passes {
namespace {
class RestrictRule : public ExpertRule {
public:
  llvm::StringRef name() const override { return "restrict"; }
  RuleOutcome propose(const RuleInput &) override { return {{}, "not written yet"}; }
};
} // namespace
std::unique_ptr<ExpertRule> createRestrictRule() { return std::make_unique<RestrictRule>(); }
} // namespace forge::passes
