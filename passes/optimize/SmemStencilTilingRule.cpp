//===- passes/optimize/SmemStencilTilingRule.cpp - The smem-stencil-tiling expert rule ---------------===//
// Placeholder while the rule is written (issue #6): it proposes nothing.
#include "Rules.h"

namespace forge::passes {
namespace {
class SmemStencilTilingRule : public ExpertRule {
public:
  llvm::StringRef name() const override { return "smem-stencil-tiling"; }
  RuleOutcome propose(const RuleInput &) override { return {{}, "not written yet"}; }
};
} // namespace
std::unique_ptr<ExpertRule> createSmemStencilTilingRule() { return std::make_unique<SmemStencilTilingRule>(); }
} // namespace forge::passes
