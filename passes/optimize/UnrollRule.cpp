//===- passes/optimize/UnrollRule.cpp - The unroll expert rule ---------------===//
// Placeholder while the rule is written (issue #6): it proposes nothing.
#include "Rules.h"

namespace forge::passes {
namespace {
class UnrollRule : public ExpertRule {
public:
  llvm::StringRef name() const override { return "unroll"; }
  RuleOutcome propose(const RuleInput &) override { return {{}, "not written yet"}; }
};
} // namespace
std::unique_ptr<ExpertRule> createUnrollRule() { return std::make_unique<UnrollRule>(); }
} // namespace forge::passes
