//===- passes/optimize/VectorizeRule.cpp - The vectorize expert rule ---------------===//
// Placeholder while the rule is written (issue #6): it proposes nothing.
#include "Rules.h"

namespace forge::passes {
namespace {
class VectorizeRule : public ExpertRule {
public:
  llvm::StringRef name() const override { return "vectorize"; }
  RuleOutcome propose(const RuleInput &) override { return {{}, "not written yet"}; }
};
} // namespace
std::unique_ptr<ExpertRule> createVectorizeRule() { return std::make_unique<VectorizeRule>(); }
} // namespace forge::passes
