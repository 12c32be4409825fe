//===- passes/optimize/RegisterTilingRule.cpp - The register-tiling expert rule ---------------===//
// Placeholder while the rule is written (issue #6): it proposes nothing.
#include "Rules.h"

namespace forge::passes {
namespace {
class RegisterTilingRule : public ExpertRule {
public:
  llvm::StringRef name() const override { return "register-tiling"; }
  RuleOutcome propose(const RuleInput &) override { return {{}, "not written yet"}; }
};
} // namespace
std::unique_ptr<ExpertRule> createRegisterTilingRule() { return std::make_unique<RegisterTilingRule>(); }
} // namespace forge::passes
