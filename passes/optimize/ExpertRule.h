//===- passes/optimize/ExpertRule.h - The rules' vocabulary and table -*- C++ -*-===//
///
/// \file
/// The expert rules implement lib/Agent's ExpertRule interface; this brings
/// its names into forge::passes, where the rules live, and declares their
/// table (ExpertRules.cpp), from which the drivers are given a selection.
///
//===----------------------------------------------------------------------===//
#ifndef FORGE_PASSES_OPTIMIZE_EXPERTRULE_H
#define FORGE_PASSES_OPTIMIZE_EXPERTRULE_H

#include "forge/Agent/ExpertRule.h"

namespace forge::passes {

using agent::ExpertRule;
using agent::RuleInfo;
using agent::RuleInput;
using agent::RuleOutcome;

/// Every rule, in the order the proposer tries them (cheap, safe rules
/// first; the big restructurings last).
llvm::ArrayRef<RuleInfo> allExpertRules();

/// The rules a glob list selects ("*", "restrict,unroll", "-register-*").
/// An entry that matches no rule is a usage error.
llvm::Expected<std::vector<const RuleInfo *>>
selectExpertRules(llvm::StringRef Globs);

} // namespace forge::passes

#endif
